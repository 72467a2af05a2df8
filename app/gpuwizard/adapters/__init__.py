"""The only code that touches the outside world: one module per foreign API, each behind a Protocol."""
