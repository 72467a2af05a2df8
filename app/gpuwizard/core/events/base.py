"""The event types every stream shares: the base, an unknown kind, and a nested stream's event."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass(frozen=True, kw_only=True)
class Event:
    """One event of a long operation; subclasses name their kind in ``KIND`` (the ``event`` field).

    ``extra`` holds the fields of a JSON object this version does not read (a newer probe's, a
    recording's): they are written back after the known ones, so nothing a producer said is
    lost on the way through. The known fields are always written from the typed values, so an
    event changed with :func:`dataclasses.replace` is written as it is now.
    """

    KIND: ClassVar[str] = ""
    extra: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def kind(self) -> str:
        """The ``event`` field: ``start``, ``phase``, ``result``..."""
        return self.KIND


@dataclass(frozen=True, kw_only=True)
class Other(Event):
    """An event of a kind this version does not know (a newer probe's): passed on as it came."""

    name: str = ""

    @property
    def kind(self) -> str:
        """The kind it was read with."""
        return self.name


@dataclass(frozen=True, kw_only=True)
class Wrapped(Event):
    """An event of a nested operation, said where it came from.

    Verify runs a live test per environment, apply makes an environment and tests it: their
    events reach the outer stream whole, wrapped, never spread into the outer operation's own.
    In JSON the inner event keeps its fields and gains ``source`` (and ``env``, where the inner
    operation ran in one environment); a field of the same name is replaced where it stands.
    """

    source: str
    inner: Event
    env: str | None = None

    @property
    def kind(self) -> str:
        """The inner event's kind (``step``, ``phase``...): the stream says the source beside it."""
        return self.inner.kind


#: Where a long operation's events go: called once per event, in order, on the operation's
#: thread (the UI's :class:`~gpuwizard.ui.event_bridge.EventBridge` carries them to its thread).
EventSink = Callable[[Event], None]
