"""Gathering a support report."""
