"""PATH changes on a registry: planned, journaled, applied, undone, checked."""
