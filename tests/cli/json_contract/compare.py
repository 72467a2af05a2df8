"""What varies between two runs of the same command is stood in for; everything else is compared.

The rules, all of them (``tests/cli/test_json_contract.py`` repeats them for its readers):

1. Folders: the run's temporary folder becomes ``<TMP>``, the test venv ``<VENV>``, the
   repository ``<REPO>``, and the interpreter this machine made the environments from
   ``<BASE_PYTHON>``, wherever they stand in a string (a key too); its full version
   (``3.11.2``, a whole token) becomes ``<BASE_PYTHON_VERSION>``. The test leaves the
   interpreter out for runs on saved reports of other machines, which name their own.
2. Times: an ISO 8601 date and time in a string becomes ``<TIME>``; the stamp and random token in
   an environment log's file name (``env-create-NAME-20261129-074142-46fd54c1.log``) ``<STAMP>``;
   uv's own timings in its lines (``Resolved 1 package in 0.86ms``) ``in <DURATION>``; the line
   numbers of a traceback (``File "...", line 46, in main``) ``line <LINE>`` (an edit of the
   probe moves them; the frames, files and functions are still compared).
3. Values by key: a number under ``seconds`` becomes ``"<SECONDS>"``; 32 hexadecimal digits
   under ``id`` or a key ending in ``_id`` (an environment's marker id from ``secrets``, a PATH
   journal entry's ``uuid4``) become ``"<ID>"``.

4. Another program's own output: the ``log`` events of a tool the wizard runs (``uv``, ``pip``,
   the conda engines, ``ipykernel``) and the ``progress`` events read from its lines say what
   that program printed, and its next release, or the same release on a slower machine or
   another file system, may print other lines, more or fewer, in another order (a warning that
   it copies instead of linking, a line split in two). So each run of such events between two
   of the wizard's own is compared as one place in the sequence (which nested stream it came
   from), and the shapes of all of them (each event's keys in their order) as a set over the
   whole stream: a renamed or reordered field, or a kind of event that no longer comes, is
   still a difference. The wizard's own events around them are compared in full.

Nothing else is touched: every other value is compared as it is, with its JSON type (``1`` is not
``1.0``, ``true`` is not ``1``), and every object's keys in their order.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

_ISO_TIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:[+-]\d{2}:\d{2}|Z)?")
_LOG_STAMP = re.compile(r"(?<=-)\d{8}-\d{6}-[0-9a-f]{8}(?=\.log\b)")
_UV_TIMING = re.compile(r"(?<= in )\d+(?:\.\d+)?(?:ns|µs|us|ms|s|m)\b")
_TRACEBACK_LINE = re.compile(r'(?<=", line )\d+(?=, in )')
_HEX_ID = re.compile(r"[0-9a-f]{32}")


@dataclass(frozen=True)
class Placeholders:
    """The run's own folders and interpreter, each with the text that stands for it."""

    folders: Sequence[tuple[str, str]]
    base_python_version: str | None = None

    def text(self, value: str) -> str:
        """``value`` with rules 1 and 2 applied."""
        # The longest folder first: the venv or the temporary folder may lie inside the repository.
        for folder, placeholder in sorted(self.folders, key=lambda pair: -len(pair[0])):
            value = value.replace(folder, placeholder)
        if self.base_python_version:
            version = re.escape(self.base_python_version)
            value = re.sub(rf"(?<![\w.]){version}(?![\w.])", "<BASE_PYTHON_VERSION>", value)
        value = _ISO_TIME.sub("<TIME>", value)
        value = _LOG_STAMP.sub("<STAMP>", value)
        value = _TRACEBACK_LINE.sub("<LINE>", value)
        return _UV_TIMING.sub("<DURATION>", value)

    def value(self, value: Any, key: str | None = None) -> Any:
        """``value`` (parsed JSON) with every rule applied, objects' keys kept in their order."""
        if isinstance(value, dict):
            return {self.text(name): self.value(item, name) for name, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if key == "seconds" and isinstance(value, int | float) and not isinstance(value, bool):
            return "<SECONDS>"
        if isinstance(value, str):
            if key is not None and (key == "id" or key.endswith("_id")) and _HEX_ID.fullmatch(value):
                return "<ID>"
            return self.text(value)
        return value


def _strict_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict in its order; a key twice is an error (a dict would hide it)."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {key!r} appears twice in one object")
        found[key] = value
    return found


def parse(text: str) -> tuple[str, list[Any]]:
    """Stdout as ``("json-lines", [each line])`` or ``("json-document", [the document])``."""
    lines = [line for line in text.splitlines() if line.strip()]
    try:
        return "json-lines", [json.loads(line, object_pairs_hook=_strict_object) for line in lines]
    except json.JSONDecodeError:
        return "json-document", [json.loads(text, object_pairs_hook=_strict_object)]


def golden_lines(header: dict[str, Any], items: Iterable[Any]) -> str:
    """The golden file's text: the header line, then one line per event (or the one document)."""
    return "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in [header, *items])


def read_golden(text: str) -> tuple[dict[str, Any], list[Any]]:
    """The header and the items of a golden file, objects in their order."""
    header, *items = [json.loads(line, object_pairs_hook=_strict_object) for line in text.splitlines()]
    return header, items


def _label(item: Any) -> str:
    if isinstance(item, dict) and isinstance(item.get("event"), str):
        kind = item["event"]
        detail = item.get("stage") or item.get("phase") or item.get("check_id")
        source = item.get("source")
        return (
            kind
            + (f" {detail}" if isinstance(detail, str) else "")
            + (f" (source {source})" if source else "")
        )
    return type(item).__name__


def _type_name(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "integer" if isinstance(value, int) else "number"
    )


def differences(expected: Any, actual: Any, where: str = "", *, added_ok: bool = False) -> list[str]:
    """Every difference between two JSON values, field by field, key order included.

    ``added_ok``: a field only ``actual`` has is no difference (a newer reader of an older
    recording fills in a field the recording predates); the fields both have keep their order.
    """
    here = where or "(top)"
    if _type_name(expected) != _type_name(actual):
        return [f"{here}: {_type_name(expected)} {expected!r} became {_type_name(actual)} {actual!r}"]
    if isinstance(expected, dict):
        found = []
        missing = [key for key in expected if key not in actual]
        added = [key for key in actual if key not in expected]
        if missing:
            found.append(f"{here}: fields missing: {missing}")
        if added and not added_ok:
            found.append(f"{here}: fields added: {added}")
        shared_expected = [key for key in expected if key in actual]
        shared_actual = [key for key in actual if key in expected]
        if shared_expected != shared_actual:
            found.append(f"{here}: key order {shared_expected} became {shared_actual}")
        for key in shared_expected:
            found += differences(expected[key], actual[key], f"{where}.{key}", added_ok=added_ok)
        return found
    if isinstance(expected, list):
        found = []
        if len(expected) != len(actual):
            found.append(f"{here}: {len(expected)} items became {len(actual)}")
        for index, (old, new) in enumerate(zip(expected, actual, strict=False)):
            found += differences(old, new, f"{where}[{index}]", added_ok=added_ok)
        return found
    if expected != actual:
        return [f"{here}: {expected!r} became {actual!r}"]
    return []


#: The programs whose own lines the wizard passes on (rule 4).
OTHER_PROGRAMS = frozenset({"uv", "pip", "conda", "mamba", "micromamba", "rattler", "ipykernel"})


def _from_another_program(item: Any) -> bool:
    if not isinstance(item, dict):
        return False
    return item.get("event") == "progress" or (
        item.get("event") == "log" and item.get("tool") in OTHER_PROGRAMS
    )


def _shape(item: dict[str, Any]) -> dict[str, Any]:
    return {"<shape of>": [item.get("event"), item.get("source")], "<keys>": list(item)}


def shapes_of_other_programs(items: Sequence[Any]) -> list[Any]:
    """``items`` with rule 4 applied: each run of another program's events as one place."""
    kept: list[Any] = []
    for item in items:
        if _from_another_program(item):
            place = {"<another program's lines>": item.get("source")}
            if kept and kept[-1] == place:
                continue
            kept.append(place)
        else:
            kept.append(item)
    return kept


def other_programs_shapes(items: Sequence[Any]) -> list[Any]:
    """The distinct shapes of another program's events in ``items`` (rule 4), in a fixed order."""
    shapes = {json.dumps(_shape(item)) for item in items if _from_another_program(item)}
    return [json.loads(shape) for shape in sorted(shapes)]


def comparable(items: Sequence[Any]) -> list[Any]:
    """What of ``items`` is compared, as one list: the sequence with rule 4 applied, then the shapes."""
    return [
        *shapes_of_other_programs(items),
        {"<shapes of another program's events>": other_programs_shapes(items)},
    ]


def stream_differences(
    expected: Sequence[Any], actual: Sequence[Any], *, added_ok: bool = False
) -> list[str]:
    """The differences of two event streams: the shapes of other programs' events (rule 4), the
    sequence of kinds, then each event's fields."""
    found = differences(
        other_programs_shapes(expected), other_programs_shapes(actual), "another program's events",
        added_ok=added_ok,
    )  # fmt: skip
    expected, actual = shapes_of_other_programs(expected), shapes_of_other_programs(actual)
    old_kinds = [_label(item) for item in expected]
    new_kinds = [_label(item) for item in actual]
    if old_kinds != new_kinds:
        found.append(f"the events {old_kinds} became {new_kinds}")
    for index, (old, new) in enumerate(zip(expected, actual, strict=False)):
        found += [
            f"event {index} ({_label(old)}) {said}" for said in differences(old, new, added_ok=added_ok)
        ]
    return found
