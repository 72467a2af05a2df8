r"""What ROCm's own tools print: ``rocminfo``, ``amd-smi static --json``, ``amd-smi version``, ``.info/version``.

Parsers of text only; running the tools is ``adapters/rocm_tools.py``. Every parser takes what
it recognises and leaves the rest: a tool of another release prints more or fewer fields, and
an issue paste may have lost its indentation.

>>> reading = parse_rocminfo("ROCk module version 6.7.0 is loaded\nRuntime Version:         1.13\n"
...                          "*******\nAgent 2\n*******\n  Name:   gfx1100\n  Device Type:   GPU\n"
...                          "  BDFID:   768\n  Memory Properties:\n")
>>> reading.runtime_version, reading.module_version, reading.gpus[0].gfx_target, reading.gpus[0].apu
('1.13', '6.7.0', 'gfx1100', False)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

_AGENT: Final = re.compile(r"^\s*Agent\s+(\d+)\s*$")
_FIELD: Final = re.compile(r"^\s*([A-Za-z][A-Za-z .()/-]*?):\s*(.*?)\s*$")
_MODULE: Final = re.compile(r"ROCk module version\s+(\S+)\s+is loaded")
_GFX: Final = re.compile(r"^(gfx[0-9a-f]+)(?::.*)?$")
_LEADING_VERSION: Final = re.compile(r"^\s*(\d+\.\d+(?:\.\d+)?)")
_NOT_AVAILABLE: Final = frozenset({"", "n/a", "na", "unknown", "none"})


@dataclass(frozen=True)
class RocminfoAgent:
    """One ``Agent N`` block of ``rocminfo``.

    Attributes:
        name: ``Name:`` (``gfx1100`` for a GPU, the CPU's model for a CPU).
        marketing_name: ``Marketing Name:`` (``Radeon RX 7900 XTX``).
        device_type: ``CPU``, ``GPU`` or ``DSP``.
        chip_id: The PCI device id (``Chip ID: 29772(0x744c)``).
        bdfid: ``bus << 8 | devfn``, as KFD's ``location_id``.
        node: The KFD node.
        apu: True when ``Memory Properties:`` says ``APU``, False when the line is there
            without it (rocminfo of ROCm 6.1 and newer prints it), None when absent.
    """

    name: str | None = None
    marketing_name: str | None = None
    device_type: str | None = None
    chip_id: int | None = None
    bdfid: int | None = None
    node: int | None = None
    apu: bool | None = None

    @property
    def gfx_target(self) -> str | None:
        """The LLVM target from ``Name:`` (``gfx942:sramecc+:xnack-`` gives ``gfx942``)."""
        match = _GFX.match(self.name or "")
        return match.group(1) if match else None


@dataclass(frozen=True)
class RocminfoReading:
    """What ``rocminfo`` said.

    Attributes:
        runtime_version: The HSA runtime's ``Runtime Version:`` (``1.18``), not a ROCm release.
        module_version: The amdgpu module version in ``ROCk module version 6.7.0 is loaded``
            (rocminfo reads ``/sys/module/amdgpu/version``; an in-kernel driver has none).
        agents: Every agent, in the order printed.
    """

    runtime_version: str | None
    module_version: str | None
    agents: tuple[RocminfoAgent, ...]

    @property
    def gpus(self) -> tuple[RocminfoAgent, ...]:
        """The GPU agents."""
        return tuple(agent for agent in self.agents if (agent.device_type or "").upper() == "GPU")


def _number(text: str | None) -> int | None:
    """``29772(0x744c)`` or ``768`` as an int; None when it is not a number."""
    match = re.match(r"\s*(\d+)", text or "")
    return int(match.group(1)) if match else None


def parse_rocminfo(text: str) -> RocminfoReading:
    """Read ``rocminfo``'s output; the first of each field within an agent is its own.

    The ``ISA Info`` and ``Pool Info`` sections below an agent repeat names such as
    ``Name:``; taking the first keeps the agent's.
    """
    runtime: str | None = None
    module: str | None = None
    agents: list[dict[str, str]] = []
    for line in text.splitlines():
        module_match = _MODULE.search(line)
        if module_match:
            module = module_match.group(1)
            continue
        if _AGENT.match(line.replace("\\", "")):
            agents.append({})
            continue
        field = _FIELD.match(line)
        if not field:
            continue
        key, value = field.group(1).strip(), field.group(2)
        if not agents:
            if key == "Runtime Version" and runtime is None:
                runtime = value or None
            continue
        agents[-1].setdefault(key, value)
    return RocminfoReading(
        runtime_version=runtime,
        module_version=module,
        agents=tuple(
            RocminfoAgent(
                name=fields.get("Name") or None,
                marketing_name=fields.get("Marketing Name") or None,
                device_type=fields.get("Device Type") or None,
                chip_id=_number(fields.get("Chip ID")),
                bdfid=_number(fields.get("BDFID")),
                node=_number(fields.get("Node")),
                apu=("APU" in fields["Memory Properties"].upper()) if "Memory Properties" in fields else None,
            )
            for fields in agents
        ),
    )


@dataclass(frozen=True)
class AmdSmiGpu:
    """One GPU of ``amd-smi static --json``.

    Attributes:
        bdf: ``bus.bdf`` (``0000:03:00.0``).
        market_name: ``asic.market_name``; some releases write a generic one.
        pci_id: ``asic.vendor_id:asic.device_id`` in lower-case hex.
        gfx_target: ``asic.target_graphics_version`` (``gfx1101``).
        driver_version: ``driver.version`` (older releases: ``driver.driver_version``).
    """

    bdf: str | None
    market_name: str | None
    pci_id: str | None
    gfx_target: str | None
    driver_version: str | None


def _text(value: object) -> str | None:
    """A JSON value as text, None for amd-smi's ``N/A`` and other empty answers."""
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        text = str(value).strip()
        return None if text.lower() in _NOT_AVAILABLE else text
    return None


def _hex_id(value: object) -> str | None:
    text = _text(value)
    if text is None:
        return None
    try:
        return f"{int(text, 16):04x}"
    except ValueError:
        return None


def _json_document(text: str) -> Any:  # noqa: ANN401 - a JSON value of any shape
    """The first JSON document in ``text``; amd-smi may print Python warnings before it."""
    start = min((i for i in (text.find("{"), text.find("[")) if i >= 0), default=-1)
    if start < 0:
        return None
    try:
        return json.JSONDecoder().raw_decode(text[start:])[0]
    except ValueError:
        return None


def _section(entry: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    value = entry.get(name)
    return value if isinstance(value, Mapping) else {}


def parse_amd_smi_static(text: str) -> tuple[AmdSmiGpu, ...]:
    """Read ``amd-smi static --json``: a list of GPUs, or (newer) ``{"gpu_data": [...]}``."""
    data = _json_document(text)
    if isinstance(data, Mapping):
        data = data.get("gpu_data", [])
    if not isinstance(data, list):
        return ()
    found = []
    for entry in data:
        if not isinstance(entry, Mapping):
            continue
        asic, bus, driver = (_section(entry, name) for name in ("asic", "bus", "driver"))
        vendor, device = _hex_id(asic.get("vendor_id")), _hex_id(asic.get("device_id"))
        gfx = _text(asic.get("target_graphics_version"))
        found.append(
            AmdSmiGpu(
                bdf=(_text(bus.get("bdf")) or "").lower() or None,
                market_name=_text(asic.get("market_name")),
                pci_id=f"{vendor}:{device}" if vendor and device else None,
                gfx_target=gfx if gfx and _GFX.match(gfx) else None,
                driver_version=_text(driver.get("version")) or _text(driver.get("driver_version")),
            )
        )
    return tuple(found)


def parse_amd_smi_version(text: str) -> dict[str, str]:
    """``amd-smi version``'s ``Name: value | Name: value`` line as a dict (``N/A`` values left out).

    >>> parse_amd_smi_version("AMDSMI Tool: 26.0.2+39589fda | ROCm version: 7.0.2 | amd_hsmp version: N/A")
    {'AMDSMI Tool': '26.0.2+39589fda', 'ROCm version': '7.0.2'}
    """
    found: dict[str, str] = {}
    for line in text.splitlines():
        if "|" not in line and ":" not in line:
            continue
        for part in line.split("|"):
            key, sep, value = part.partition(":")
            if sep and _text(value) is not None:
                found[key.strip()] = value.strip()
    return found


def rocm_version_from_info(text: str) -> str | None:
    r"""The release in ROCm's ``.info/version`` (``7.2.0``; older ones ``6.0.2-115``).

    >>> rocm_version_from_info("7.2.0\n"), rocm_version_from_info("6.0.2-115"), rocm_version_from_info("x")
    ('7.2.0', '6.0.2', None)
    """
    match = _LEADING_VERSION.match(text)
    return match.group(1) if match else None
