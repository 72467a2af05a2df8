"""Facts about the machine: the system report and the pure readings and rules behind it."""
