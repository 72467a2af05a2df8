"""One JSON codec for every event and result, derived from the dataclass fields.

Writing (:func:`to_json`, :func:`value_to_json`): ``event`` first (for an :class:`Event`), then
each field in the order the class declares it, under its name, then the fields read from JSON
that the class does not know (``Event.extra``). Key order is part of the contract (a reader may
show the keys as they come), so the order of the fields is the order of the JSON.

Reading (:meth:`EventKinds.read`, :func:`value_from_json`) is lenient, as reading another
program's output or an older file must be: each field is coerced to its annotated type, and a
value missing or of the wrong shape becomes the field's default (or the type's empty value:
``""``, ``0``, ``False``, ``()``, ``{}``), never an exception. ``float | None`` takes only a
finite number (``NaN`` and booleans are unknown), ``bool | None`` only a boolean.

A field says more about its JSON form with :func:`json_field`: another name (``key``), a place
inside a nested object (``at=("samples_per_s", "gpu")``: fields sharing the first name are
written as one object where the first of them stands), coercers of its own (``read``,
``write``), or that it is left out when None (``omit_none``), never written (``skip``), or
written only when ``when(the object)`` holds (a result whose fields depend on its status).
"""

from __future__ import annotations

import dataclasses
import math
import types
import typing
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, TypeVar

from gpuwizard.core.events.base import Event, Other, Wrapped

_T = TypeVar("_T")

#: The metadata key of :func:`json_field`'s options.
_META: Final = "gpuwizard.json"
_MISSING: Final = dataclasses.MISSING


@dataclasses.dataclass(frozen=True)
class _Options:
    key: str | None = None
    at: tuple[str, str] | None = None
    read: Callable[[Any], Any] | None = None
    write: Callable[[Any], Any] | None = None
    omit_none: bool = False
    skip: bool = False
    when: Callable[[Any], bool] | None = None
    inline: bool = False
    after: str | None = None


def json_field(
    *,
    key: str | None = None,
    at: tuple[str, str] | None = None,
    read: Callable[[Any], Any] | None = None,
    write: Callable[[Any], Any] | None = None,
    omit_none: bool = False,
    skip: bool = False,
    when: Callable[[Any], bool] | None = None,
    inline: bool = False,
    after: str | None = None,
    default: Any = _MISSING,  # noqa: ANN401 - any field's default
    default_factory: Callable[[], Any] | Any = _MISSING,  # noqa: ANN401
    compare: bool = True,
) -> Any:  # noqa: ANN401 - as dataclasses.field
    """A dataclass field with its JSON form spelled out (see the module's docstring).

    ``read`` gets the raw JSON value (None when absent) and returns the field's value;
    ``write`` gets the field's value and returns a JSON value; ``when`` gets the whole object
    and says whether the field is written at all (read back, an absent one takes its default);
    ``inline`` writes a dataclass value's fields in the object itself, where the field stands,
    and reads them back from it (an optional one is None when none of its keys is there);
    ``after`` writes the field right after the field of that name (a contract whose keys came
    in another order than the fields').
    """
    metadata = {_META: _Options(key, at, read, write, omit_none, skip, when, inline, after)}
    if default is not _MISSING:
        return dataclasses.field(default=default, metadata=metadata, compare=compare)
    if default_factory is not _MISSING:
        return dataclasses.field(default_factory=default_factory, metadata=metadata, compare=compare)
    return dataclasses.field(metadata=metadata, compare=compare)


def json_metadata(**options: Any) -> dict[str, Any]:  # noqa: ANN401 - json_field's options
    """:func:`json_field`'s JSON options as a plain field's metadata: ``field(metadata=...)``.

    For a field without a default in a class built by position (mypy takes every
    ``json_field(...)`` for a field with a default; ``field`` it knows), or one ``repr`` leaves out.
    """
    return {_META: _Options(**options)}


# --- the shape of a class, worked out once ------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Field:
    name: str
    key: str
    at: tuple[str, str] | None
    type: Any
    options: _Options
    default: Any
    default_factory: Any


_SHAPES: dict[type, tuple[_Field, ...]] = {}


def _fields(cls: type) -> tuple[_Field, ...]:
    shape = _SHAPES.get(cls)
    if shape is None:
        shape = _SHAPES[cls] = _shape(cls)  # a race only works it out twice, the same way
    return shape


def _shape(cls: type) -> tuple[_Field, ...]:
    hints = typing.get_type_hints(cls)
    found = []
    for item in dataclasses.fields(cls):
        if item.name == "extra" and issubclass(cls, Event):
            continue
        options = item.metadata.get(_META, _Options())
        found.append(
            _Field(
                name=item.name,
                key=options.key or item.name,
                at=options.at,
                type=hints[item.name],
                options=options,
                default=item.default,
                default_factory=item.default_factory,
            )
        )
    for moved in [item for item in found if item.options.after]:
        found.remove(moved)
        found.insert(next(i for i, item in enumerate(found) if item.name == moved.options.after) + 1, moved)
    return tuple(found)


_KNOWN: dict[type, frozenset[str]] = {}


def _known_keys(cls: type) -> frozenset[str]:
    # Asked on every read of an event (a live test's hundreds): worked out once per class.
    known = _KNOWN.get(cls)
    if known is None:
        known = _KNOWN[cls] = _keys_of(cls)
    return known


def _keys_of(cls: type) -> frozenset[str]:
    known: set[str] = set()
    for item in _fields(cls):
        if item.options.inline:
            known |= _known_keys(_inline_class(item.type))
        else:
            known.add(item.at[0] if item.at else item.key)
    return frozenset(known)


def _inline_class(kind: Any) -> type:  # noqa: ANN401 - `X` or `X | None`
    return next((arm for arm in typing.get_args(kind) if arm is not type(None)), kind)


# --- writing -------------------------------------------------------------------------------


def to_json(event: Event) -> dict[str, Any]:
    """An event as its JSON object: ``event`` first, then its fields, then the ones it did not know."""
    if isinstance(event, Wrapped):
        written = to_json(event.inner)
        # As `{**inner, "source": ...}` wrote it: a key the inner event has keeps its place.
        written["source"] = event.source
        if event.env is not None:
            written["env"] = event.env
        return written
    if isinstance(event, Other):
        return {"event": event.kind, **{key: value for key, value in event.extra.items() if key != "event"}}
    return {"event": event.kind, **_object_to_json(event, event.extra)}


def value_to_json(value: object) -> Any:  # noqa: ANN401 - any JSON value
    """Any value of a field as JSON: dataclasses as objects, tuples as lists, the rest as it is."""
    if isinstance(value, Event):
        return to_json(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _object_to_json(value, {})
    if isinstance(value, (list, tuple)):
        return [value_to_json(item) for item in value]
    if isinstance(value, Mapping):
        return {str(key): value_to_json(item) for key, item in value.items()}
    if isinstance(value, str):
        return str(value)  # a TranslatableText is written as the sentence it reads
    return value


def _object_to_json(value: object, extra: Mapping[str, Any]) -> dict[str, Any]:
    written: dict[str, Any] = {}
    for item in _fields(type(value)):
        options = item.options
        if options.skip or (options.when is not None and not options.when(value)):
            continue
        field_value = getattr(value, item.name)
        if field_value is None and options.omit_none:
            continue
        if options.inline:
            # An event's fields without its own `event`: the object it stands in says that.
            written.update({} if field_value is None else _object_to_json(field_value, {}))
            continue
        json_value = options.write(field_value) if options.write else value_to_json(field_value)
        if item.at is None:
            written[item.key] = json_value
        else:
            group = written.setdefault(item.at[0], {})
            group[item.at[1]] = json_value
    for key, extra_value in extra.items():
        if key == "event":
            continue
        group = written.get(key)
        if isinstance(group, dict) and isinstance(extra_value, Mapping):
            # A nested object's members this version does not read stay in it, after its own.
            for member, member_value in extra_value.items():
                group.setdefault(member, member_value)
        elif key not in written:
            written[key] = extra_value
    return written


# --- reading -------------------------------------------------------------------------------


def value_from_json(cls: type[_T], data: object) -> _T:
    """A dataclass read from a JSON object, each field coerced to its type (see the module)."""
    source: Mapping[str, Any] = data if isinstance(data, Mapping) else {}
    values: dict[str, Any] = {}
    consumed: dict[str, set[str]] = {}
    for item in _fields(cls):
        if item.at is None:
            raw = source.get(item.key)
        else:
            group = source.get(item.at[0])
            raw = group.get(item.at[1]) if isinstance(group, Mapping) else None
            consumed.setdefault(item.at[0], set()).add(item.at[1])
        if item.options.skip:
            continue
        if item.options.inline:
            values[item.name] = _inline(item.type, source)
        elif item.options.read is not None:
            values[item.name] = item.options.read(raw)
        else:
            values[item.name] = _coerce(item.type, raw, _default(item))
    if issubclass(cls, Event):
        values["extra"] = _unknown(source, _known_keys(cls), consumed)
    return cls(**values)


def _inline(kind: Any, source: Mapping[str, Any]) -> Any:  # noqa: ANN401 - a dataclass or None
    cls = _inline_class(kind)
    optional = type(None) in typing.get_args(kind)
    if optional and not _known_keys(cls) & source.keys():
        return None
    return value_from_json(cls, source)


def _unknown(
    source: Mapping[str, Any], known: frozenset[str], consumed: Mapping[str, set[str]]
) -> dict[str, Any]:
    extra: dict[str, Any] = {}
    for key, value in source.items():
        if key == "event":
            continue
        if key not in known:
            extra[key] = value
        elif key in consumed and isinstance(value, Mapping):
            rest = {member: item for member, item in value.items() if member not in consumed[key]}
            if rest:
                extra[key] = rest
    return extra


def _default(item: _Field) -> Any:  # noqa: ANN401
    if item.default is not _MISSING:
        return item.default
    if item.default_factory is not _MISSING:
        return item.default_factory()
    return _MISSING


def _coerce(kind: Any, raw: object, default: Any) -> Any:  # noqa: ANN401, PLR0911, PLR0912 - one case per type
    origin = typing.get_origin(kind)
    arguments = typing.get_args(kind)
    fallback = _empty(kind) if default is _MISSING else default
    if kind is Any or kind is object:
        return fallback if raw is None else raw
    if origin in (typing.Union, types.UnionType):
        if raw is None:
            return None if type(None) in arguments else fallback
        arms = [arm for arm in arguments if arm is not type(None)]
        for arm in arms:
            if arm is bool and not isinstance(raw, bool):
                continue  # `bool | None` takes only a boolean: anything else is unknown
            found = _coerce(arm, raw, None)
            if found is not None:
                return found
        return None if type(None) in arguments else fallback
    if origin is typing.Literal:
        return raw if raw in arguments else fallback
    if kind is bool:
        return raw if isinstance(raw, bool) else (fallback if raw is None else bool(raw))
    if kind is int:
        found = number(raw)
        return fallback if found is None else int(found)
    if kind is float:
        found = number(raw)
        return fallback if found is None else found
    if kind is str:
        return fallback if raw is None else str(raw)
    if origin is tuple or origin is list:
        if not isinstance(raw, (list, tuple)):
            return fallback
        inner = arguments[0] if arguments else Any
        items = [_coerce(inner, item, None) for item in raw]
        kept = [item for item in items if item is not None]
        return tuple(kept) if origin is tuple else kept
    if origin in (dict, Mapping, typing.Mapping) or kind in (dict, Mapping):
        if not isinstance(raw, Mapping):
            return fallback
        value_type = arguments[1] if len(arguments) == 2 else Any
        return {str(key): _coerce(value_type, item, None) for key, item in raw.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        return value_from_json(kind, raw) if isinstance(raw, Mapping) else fallback
    return fallback if raw is None else raw


def _empty(kind: Any) -> Any:  # noqa: ANN401, PLR0911
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType) and type(None) in typing.get_args(kind):
        return None
    if kind is str:
        return ""
    if kind is int:
        return 0
    if kind is float:
        return 0.0
    if kind is bool:
        return False
    if origin is tuple:
        return ()
    if origin is list:
        return []
    if origin in (dict, Mapping, typing.Mapping) or kind in (dict, Mapping):
        return {}
    return None


def number(value: object) -> float | None:
    """A finite number as float; None for anything else (booleans, text, NaN, None, too large an int).

    >>> number(3), number(True), number(float("nan")), number(10**400), number("1")
    (3.0, None, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        found = float(value)
    except OverflowError:  # JSON integers have no limit; float's range does
        return None
    return found if math.isfinite(found) else None


# --- a stream's kinds ----------------------------------------------------------------------


class EventKinds:
    """The event classes one stream may carry, by kind; reads its JSON objects back into events.

    ``nested`` names the streams carried inside this one by their ``source`` (verify carries
    live tests under ``test``): an object with such a ``source`` is read as a :class:`Wrapped`
    event of that stream.

    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True, kw_only=True)
    ... class Tick(Event):
    ...     KIND = "tick"
    ...     count: int = 0
    >>> kinds = EventKinds("demo", [Tick])
    >>> tick = kinds.read({"event": "tick", "count": 3, "colour": "red"})
    >>> tick.count, to_json(tick)
    (3, {'event': 'tick', 'count': 3, 'colour': 'red'})
    >>> to_json(kinds.read({"event": "tock", "x": 1}))
    {'event': 'tock', 'x': 1}
    """

    def __init__(
        self, name: str, classes: Iterable[type[Event]], *, nested: Mapping[str, EventKinds] | None = None
    ) -> None:
        self.name = name
        self.classes: dict[str, type[Event]] = {}
        for cls in classes:
            if not cls.KIND or cls.KIND in self.classes:
                raise ValueError(f"{name}: event class {cls.__name__} has no kind of its own")
            self.classes[cls.KIND] = cls
        self.nested = dict(nested or {})

    def read(self, data: Mapping[str, Any]) -> Event:
        """The typed event for one JSON object; an unknown kind is kept whole as :class:`Other`."""
        source = data.get("source")
        if isinstance(source, str) and source in self.nested:
            env = data.get("env")
            inner = {key: value for key, value in data.items() if key not in ("source", "env")}
            return Wrapped(
                source=source,
                env=env if isinstance(env, str) else None,
                inner=self.nested[source].read(inner),
            )
        cls = self.classes.get(str(data.get("event")))
        if cls is None:
            return Other(name=str(data.get("event", "")), extra=dict(data))
        reader = getattr(cls, "from_json", None)
        if callable(reader):
            found = reader(data)
            if isinstance(found, Event):
                return found
        return value_from_json(cls, data)
