"""Detection of this machine, and saved system reports."""
