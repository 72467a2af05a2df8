"""The derived JSON codec: fields in order, unknown fields kept, lenient reading, nested streams."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuwizard.core.events import (
    Event,
    EventKinds,
    Other,
    Wrapped,
    json_field,
    to_json,
    value_from_json,
    value_to_json,
)
from gpuwizard.core.events.codec import json_metadata


@dataclass(frozen=True)
class Part:
    name: str
    size: int | None = None


@dataclass(frozen=True, kw_only=True)
class Measured(Event):
    KIND: ClassVar[str] = "measured"
    device: str
    loss: float | None = None
    rate_gpu: float | None = json_field(default=None, at=("rate", "gpu"))
    rate_cpu: float | None = json_field(default=None, at=("rate", "cpu"))
    ok: bool | None = None
    level: Literal["low", "high"] = "low"
    parts: tuple[Part, ...] = ()
    note: str | None = json_field(default=None, omit_none=True)
    table: Mapping[str, float | None] = field(default_factory=dict)
    hidden: str = json_field(default="x", skip=True)


@dataclass(frozen=True, kw_only=True)
class Ended(Event):
    KIND: ClassVar[str] = "result"
    status: str = "complete"


INNER = EventKinds("inner", [Measured, Ended])
OUTER = EventKinds("outer", [Ended], nested={"test": INNER})


def test_fields_are_written_in_declaration_order_with_groups_where_their_first_member_stands() -> None:
    event = Measured(device="gpu", loss=1.5, rate_gpu=2.0, parts=(Part("a", 3),), table={"fp16": 9.0})
    assert list(to_json(event)) == ["event", "device", "loss", "rate", "ok", "level", "parts", "table"]
    assert to_json(event)["rate"] == {"gpu": 2.0, "cpu": None}
    assert to_json(event)["parts"] == [{"name": "a", "size": 3}]


def test_a_replaced_event_is_written_as_it_is_now() -> None:
    event = INNER.read({"event": "measured", "device": "gpu", "loss": 2.0})
    assert isinstance(event, Measured)
    changed = dataclasses.replace(event, loss=0.5)
    assert to_json(changed)["loss"] == 0.5


def test_unknown_fields_and_unknown_members_of_a_group_are_kept_after_the_known_ones() -> None:
    data = {"event": "measured", "device": "cpu", "colour": "red", "rate": {"gpu": 1.0, "npu": 7.0}}
    written = to_json(INNER.read(data))
    assert written["colour"] == "red"
    assert written["rate"] == {"gpu": 1.0, "cpu": None, "npu": 7.0}
    assert list(written)[-1] == "colour"


def test_reading_is_lenient_each_field_takes_its_type_or_its_default() -> None:
    event = INNER.read(
        {
            "event": "measured",
            "device": None,
            "loss": float("nan"),
            "ok": "yes",
            "level": "huge",
            "parts": "no",
        }
    )
    assert isinstance(event, Measured)
    assert (event.device, event.loss, event.ok, event.level, event.parts) == ("", None, None, "low", ())
    assert INNER.read({"event": "measured", "loss": True}).loss is None  # type: ignore[attr-defined]


def test_an_unknown_kind_passes_through_whole() -> None:
    event = INNER.read({"event": "newer", "a": [1, 2]})
    assert isinstance(event, Other)
    assert (event.kind, to_json(event)) == ("newer", {"event": "newer", "a": [1, 2]})


def test_a_nested_stream_is_wrapped_and_written_as_the_inner_event_with_its_source() -> None:
    data = {"event": "measured", "device": "gpu", "source": "test", "env": "demo"}
    event = OUTER.read(data)
    assert isinstance(event, Wrapped)
    assert (event.source, event.env, event.kind) == ("test", "demo", "measured")
    assert isinstance(event.inner, Measured)
    assert to_json(event) == {**to_json(event.inner), "source": "test", "env": "demo"}
    assert list(to_json(event))[-2:] == ["source", "env"]


def test_a_class_without_a_kind_of_its_own_is_refused() -> None:
    with pytest.raises(ValueError, match="Ended"):
        EventKinds("bad", [Ended, Ended])


def test_values_that_are_not_events_are_written_as_json() -> None:
    assert value_to_json({"a": (Part("b"),)}) == {"a": [{"name": "b", "size": None}]}


_json: Any = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=6,
)


# Generation is slow on a loaded 2-core machine; the health check would fail it for that alone.
@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    st.dictionaries(st.sampled_from(["device", "loss", "rate", "ok", "level", "parts", "table", "x"]), _json)
)
def test_any_object_reads_without_error_and_round_trips_once_read(data: dict[str, Any]) -> None:
    event = INNER.read({"event": "measured", **data})
    again = INNER.read(to_json(event))
    assert to_json(again) == to_json(event)


@dataclass(frozen=True)
class Facts:
    verdict: str
    speed: float | None = None


@dataclass(frozen=True, kw_only=True)
class Staged(Event):
    KIND: ClassVar[str] = "stage"
    stage: str
    facts: Facts | None = json_field(default=None, inline=True)
    note: str | None = None


def test_an_inline_value_is_written_in_the_object_where_it_stands_and_read_back_from_it() -> None:
    kinds = EventKinds("staged", [Staged])
    event = Staged(stage="test", facts=Facts(verdict="gpu_ok", speed=2.0), note="n")
    assert list(to_json(event)) == ["event", "stage", "verdict", "speed", "note"]
    assert kinds.read(to_json(event)) == event
    assert list(to_json(Staged(stage="test"))) == ["event", "stage", "note"]
    assert kinds.read({"event": "stage", "stage": "test"}) == Staged(stage="test")
    read = kinds.read({"event": "stage", "stage": "test", "verdict": "cpu_only", "colour": "red"})
    assert isinstance(read, Staged)
    assert dict(read.extra) == {"colour": "red"}


@dataclass(frozen=True)
class Ordered:
    name: str = field(metadata=json_metadata(after="size", key="title"))
    size: int
    private: str | None = field(default=None, repr=False, metadata=json_metadata(skip=True))
    colour: str = "red"


def test_a_field_written_after_another_keeps_its_place_in_the_constructor() -> None:
    value = Ordered("a", 3, private="uuid")
    assert list(value_to_json(value)) == ["size", "title", "colour"]
    assert value_from_json(Ordered, value_to_json(value)) == Ordered("a", 3)
    assert "uuid" not in repr(value)
