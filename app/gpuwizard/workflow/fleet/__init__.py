"""Unattended setup from an answer file (``gpuwizard apply``)."""
