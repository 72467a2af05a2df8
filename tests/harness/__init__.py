"""Harnesses: real parts driven for the tests (the entry point, a host wizard, a stand-in GPU run)."""
