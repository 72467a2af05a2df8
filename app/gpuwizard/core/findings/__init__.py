"""Findings: the model, the catalogue of texts by stable code, and diagnosis of logs."""
