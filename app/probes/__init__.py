"""Stdlib-only scripts run inside a target environment with its own interpreter.

They never import gpuwizard and keep to Python 3.7 syntax; they talk back in JSON lines.
"""
