"""Everything kept under ``GPUWIZARD_HOME``: files written atomically, one module each."""
