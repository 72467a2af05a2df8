"""Orchestration without Qt: detect -> recommend -> apply -> verify, reporting through callbacks."""
