"""``--write``: the harvested facts written into the data files, curated fields left as they are.

Each disagreement's fix is applied to a copy of the files; every object a fix changes cites the
wheel it came from (its key in ``sources.json``, added with the wheel's URL and sha256). The
result is checked against the schemas before anything is written, and each changed file is
replaced atomically, in the layout it had (2-space indent, key order, final newline or not).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from harvest.compare import Disagreement, Step, show, variant_order
from harvest.listings import OSES, WheelFile
from harvest.wheels import WheelRecord

FRAMEWORK_FILES = ("pytorch", "tensorflow")


class UpdateError(Exception):
    """The updated data would not be valid, or could not be written."""


def _version_key(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in text.split(".") if part.isdigit())


def _resolve(document: Any, path: tuple[Step, ...]) -> Any:  # noqa: ANN401 - JSON values
    node = document
    for step in path:
        if isinstance(step, tuple):
            name, value = step
            node = next(item for item in node if isinstance(item, dict) and item.get(name) == value)
        else:
            node = node.setdefault(step, {})
    return node


def _set(parent: dict[str, Any], key: str, value: object) -> None:
    """Set ``key``; a new OS key goes where the OS order (linux, windows, darwin) puts it."""
    parent[key] = value
    if set(parent) <= set(OSES):
        ordered = [(name, parent[name]) for name in OSES if name in parent]
        parent.clear()
        parent.update(ordered)


def _insert(items: list[Any], value: dict[str, Any], listing: Step) -> None:
    """Insert a release (newest first) or a variant (CUDA ascending, cpu last) where it belongs.

    A library range goes last.
    """
    if listing == "library_ranges":
        items.append(value)
        return
    if listing == "releases":
        key = _version_key(value["version"])
        at = next((i for i, row in enumerate(items) if _version_key(row["version"]) < key), len(items))
    else:
        order = variant_order(value["name"])
        at = next((i for i, entry in enumerate(items) if variant_order(entry["name"]) > order), len(items))
    items.insert(at, value)


def apply(
    files: dict[str, Any], disagreements: list[Disagreement], records: Mapping[str, WheelRecord], today: str
) -> list[str]:
    """Apply every fix to ``files`` (changed in place); the lines saying what changed."""
    changes = []
    cited: dict[str, WheelFile] = {}
    for disagreement in disagreements:
        fix = disagreement.fix
        if fix is None:
            continue
        document = files[disagreement.framework]
        parent = _resolve(document, fix.path[:-1])
        last = fix.path[-1]
        if fix.insert:
            assert isinstance(last, str)  # noqa: S101 - compare inserts into a list by its key
            _insert(parent.setdefault(last, []), fix.value, last)
        elif isinstance(last, tuple):  # the list item whose field has that value, replaced
            name, value = last
            at = next(
                i for i, item in enumerate(parent) if isinstance(item, dict) and item.get(name) == value
            )
            parent[at] = fix.value
        else:
            _set(parent, last, fix.value)
        keys = [wheel.source_key for wheel in fix.wheels]
        if fix.cite is not None:
            target = _resolve(document, fix.cite)
            sources = target.setdefault("source", [])
            sources += [key for key in keys if key not in sources]
        for wheel in (*fix.wheels, *fix.defines):
            cited[wheel.source_key] = wheel
        changes.append(_change_line(disagreement))
    sources = files["sources"]["sources"]
    for key, wheel in cited.items():
        entry = _source_entry(wheel, records.get(wheel.filename), today)
        old = sources.get(key)
        if old is None or old.get("url") != entry["url"] or old.get("sha256") != entry.get("sha256"):
            sources[key] = entry
    if changes:
        files["sources"]["generated"] = today
    return changes


def _change_line(disagreement: Disagreement) -> str:
    fix = disagreement.fix
    assert fix is not None  # noqa: S101 - only fixed disagreements are described
    where = f"{disagreement.framework} {disagreement.minor}" + (
        f" {disagreement.field}" if disagreement.field else ""
    )
    if fix.change is not None:
        return f"{where}: {fix.change}"
    if fix.insert:
        what = fix.value.get("version") or fix.value.get("name")
        return f"{where}: added {what}"
    return f"{where}: {show(disagreement.data)} -> {show(fix.value)}"


def _source_entry(wheel: WheelFile, record: WheelRecord | None, today: str) -> dict[str, str]:
    entry = {"title": wheel.title, "url": wheel.url}
    if wheel.sha256 and re.fullmatch(r"[0-9a-f]{64}", wheel.sha256):
        entry["sha256"] = wheel.sha256
    seen = (
        record.seen()
        if record is not None and not record.problem
        else f"its file name in the {wheel.origin} listing"
    )
    entry["seen"] = f"{seen}; harvested {today}"
    return entry


def render(document: object, original: str) -> str:
    """The file's text: 2-space indent, non-ASCII as is, a final newline where the original had one."""
    return json.dumps(document, indent=2, ensure_ascii=False) + ("\n" if original.endswith("\n") else "")


def write(folder: Path, files: Mapping[str, Any], originals: Mapping[str, str]) -> list[str]:
    """Validate ``files`` and replace the changed ones in ``folder`` atomically; the names written."""
    from gpuwizard.workflow.compat.files import validation_errors  # noqa: PLC0415 - needs jsonschema

    errors = validation_errors(files)
    if errors:
        raise UpdateError("the updated data does not validate: " + "; ".join(errors[:10]))
    written = []
    for name, original in originals.items():
        text = render(files[name], original)
        if text == original:
            continue
        target = folder / f"{name}.json"
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=f".{name}.", suffix=".tmp")
        try:
            with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as out:
                out.write(text)
            with contextlib.suppress(OSError):
                Path(temporary).chmod(target.stat().st_mode & 0o777)
            Path(temporary).replace(target)
        except OSError as error:
            with contextlib.suppress(OSError):
                Path(temporary).unlink()
            raise UpdateError(f"{target}: {error}") from None
        written.append(f"{name}.json")
    return written
