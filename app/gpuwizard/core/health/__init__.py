"""The last good state and what drifted since: snapshots and health checks."""
