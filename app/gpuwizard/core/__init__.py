"""Pure logic and data types: no I/O, no Qt, no NVML, no registry, no subprocess."""
