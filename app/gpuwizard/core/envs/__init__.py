"""Environments: names, space, activation, variables, and progress parsed from tool output."""
