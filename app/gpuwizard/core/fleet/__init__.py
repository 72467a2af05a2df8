"""Unattended setup: answer files, checked as a whole."""
