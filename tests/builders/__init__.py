"""Builders: small helpers that make the values tests start from (requests, wheels, trees, reports)."""
