"""Verify: recording the last good state and comparing the machine with it."""
