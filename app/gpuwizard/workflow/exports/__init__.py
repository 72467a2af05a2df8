"""Choosing the plan to export and rendering it."""
