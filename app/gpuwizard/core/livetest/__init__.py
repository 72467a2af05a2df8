"""The live training test: its events and results, and the verdict rules."""
