"""Typed events of the wizard's long operations, and the one JSON codec they share.

Every long operation (making an environment, the live test, verify, apply) reports what it
does as a stream of :class:`Event` values: frozen dataclasses, one class per kind, read by
their fields everywhere inside the process. JSON appears only where an event leaves the
process or comes back into it (``--json`` streams, log files, recorded runs, the probe's
lines), and it is derived from the fields by :func:`to_json` / :meth:`EventKinds.read`
(:mod:`.codec`): there is no hand-written reader or writer per event, so a field added to a
class is written and read back without another line (pipx does the same with its result
envelope and ``dataclasses.asdict``).
"""

from gpuwizard.core.events.base import Event, EventSink, Other, Wrapped
from gpuwizard.core.events.codec import EventKinds, json_field, to_json, value_from_json, value_to_json

__all__ = [
    "Event",
    "EventKinds",
    "EventSink",
    "Other",
    "Wrapped",
    "json_field",
    "to_json",
    "value_from_json",
    "value_to_json",
]
