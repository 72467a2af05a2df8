"""The ``gpuwizard`` command line: one module per command, what they share in :mod:`.common`."""
