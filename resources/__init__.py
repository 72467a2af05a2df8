"""Data shipped with the wizard, read with importlib.resources: schemas, samples, icons."""
