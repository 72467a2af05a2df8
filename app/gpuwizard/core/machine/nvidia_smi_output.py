"""Reading ``nvidia-smi`` output, the fallback when NVML cannot be used from Python.

Only a fallback: nvidia-smi's human output changes between driver branches (R610 relabelled
the header: Jaded-Encoding-Thaumaturgy/vs-jetpack#295, and the R610 recordings listed in
tests/fixtures/recorded/SOURCES.md), and one line per GPU broke other tools' parsers
(astral-sh/uv#14647). So the CSV query is read by its header names, not by column
position; unknown columns are ignored; and the CUDA version in the banner is found by a
pattern that accepts the old and the new labels.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass
from typing import Final

#: The fields asked of ``nvidia-smi --query-gpu``. ``compute_cap`` is missing on old drivers
#: (the adapter retries without it); R610 deprecates ``driver_version`` for ``kmd_version``
#: ("Deprecated; use "kmd_version" instead", nvidia-smi --help-query-gpu, 610.43.02).
QUERY_FIELDS: Final = ("index", "name", "uuid", "pci.bus_id", "memory.total", "driver_version", "compute_cap")

#: What to ask instead when a driver refuses a field; refused fields without one are dropped.
QUERY_FIELD_REPLACEMENTS: Final = {"driver_version": "kmd_version"}

# Cells nvidia-smi writes when it has no value.
_NO_VALUE: Final = re.compile(
    r"^\[?(N/A|Not Supported|Unknown Error|GPU is lost|Insufficient Permissions|ERR!)\]?$", re.I
)
_UNIT: Final = re.compile(r"\s*\[[^\]]*\]\s*$")
_INVALID_FIELD: Final = re.compile(r'Field "([^"]+)" is not a valid field to query', re.I)
# "CUDA Version: 12.3" up to R58x; R610 prints "CUDA UMD Version: 13.3" and
# "KMD Version: 610.43.02" instead of "Driver Version" (recorded R610 outputs in
# tests/fixtures/recorded).
_BANNER_CUDA: Final = re.compile(r"CUDA(?:\s+UMD)?\s+Version\s*:\s*(\d+\.\d+)", re.I)
_BANNER_DRIVER: Final = re.compile(r"(?:Driver|KMD)\s+Version\s*:\s*(\d+(?:\.\d+){1,2})", re.I)
_VERSION_VALUE: Final = re.compile(r"^(\d+(?:\.\d+){1,2})")


@dataclass(frozen=True)
class SmiGpuRow:
    """One GPU row of the CSV query; a field is None when nvidia-smi gave no value."""

    index: int
    name: str | None
    uuid: str | None
    pci_bus_id: str | None
    memory_total_mib: int | None
    driver_version: str | None
    compute_capability: tuple[int, int] | None
    problem: str | None = None


def header_key(cell: str) -> str:
    """``' memory.total [MiB]'`` -> ``'memory.total'``.

    >>> header_key(" memory.total [MiB]")
    'memory.total'
    """
    return _UNIT.sub("", cell).strip().lower()


def invalid_query_field(output: str) -> str | None:
    """The field nvidia-smi refused (``Field "compute_cap" is not a valid field to query.``)."""
    match = _INVALID_FIELD.search(output)
    return match.group(1) if match else None


def parse_query_csv(text: str) -> list[SmiGpuRow]:
    r"""Read ``nvidia-smi --query-gpu=... --format=csv,nounits`` output (with its header).

    >>> rows = parse_query_csv("index, name, memory.total [MiB]\n0, NVIDIA GeForce RTX 3060, 12288\n")
    >>> rows[0].name, rows[0].memory_total_mib
    ('NVIDIA GeForce RTX 3060', 12288)
    """
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        return []
    reader = csv.reader(io.StringIO("\n".join(lines)), skipinitialspace=True)
    header = [header_key(cell) for cell in next(reader)]
    rows: list[SmiGpuRow] = []
    for position, cells in enumerate(reader):
        raw = {key: cell.strip() for key, cell in zip(header, cells, strict=False)}
        values = {key: (None if _NO_VALUE.match(cell) else cell) for key, cell in raw.items()}
        problems = [cell for cell in raw.values() if re.search(r"lost|unknown error|err!", cell, re.I)]
        rows.append(
            SmiGpuRow(
                index=_int(values.get("index"), default=position),
                name=values.get("name"),
                uuid=values.get("uuid"),
                pci_bus_id=values.get("pci.bus_id"),
                memory_total_mib=_mib(values.get("memory.total")),
                driver_version=_version(values.get("kmd_version") or values.get("driver_version")),
                compute_capability=_capability(values.get("compute_cap")),
                problem=problems[0].strip("[]") if problems else None,
            )
        )
    return rows


def banner_cuda_version(text: str) -> str | None:
    """The CUDA version in plain ``nvidia-smi`` output: the highest the driver supports.

    >>> banner_cuda_version("| NVIDIA-SMI 546.33   Driver Version: 546.33   CUDA Version: 12.3     |")
    '12.3'
    """
    match = _BANNER_CUDA.search(text)
    return match.group(1) if match else None


def banner_driver_version(text: str) -> str | None:
    """The driver version in plain ``nvidia-smi`` output.

    >>> banner_driver_version("Driver Version: 535.104.05")
    '535.104.05'
    >>> banner_driver_version("| NVIDIA-SMI 610.43.02     KMD Version: 610.43.02     CUDA UMD Version: 13.3 |")
    '610.43.02'
    """
    match = _BANNER_DRIVER.search(text)
    return match.group(1) if match else None


def _version(value: str | None) -> str | None:
    match = _VERSION_VALUE.match(value or "")
    return match.group(1) if match else None


def _int(value: str | None, *, default: int) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def _mib(value: str | None) -> int | None:
    if value is None:
        return None
    match = re.match(r"^(\d+)", value)
    return int(match.group(1)) if match else None


def _capability(value: str | None) -> tuple[int, int] | None:
    if value is None:
        return None
    match = re.match(r"^(\d+)\.(\d+)$", value)
    return (int(match.group(1)), int(match.group(2))) if match else None
