"""Helpers of ``tests/cli/test_json_contract.py``: the runs it records and how they are compared."""
