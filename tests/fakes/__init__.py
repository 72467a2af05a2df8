"""Fakes of the outside world, each behind the interface its adapter uses."""
