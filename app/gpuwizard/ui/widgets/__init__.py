"""Reusable widgets (Qt* names, as napari does)."""
