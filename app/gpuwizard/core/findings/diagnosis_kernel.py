r"""The NVIDIA Linux kernel driver's own words (NVRM) when it cannot initialise the GPU, and its Xid reports.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries :data:`KERNEL_PART` with the other
parts. The signatures and their texts are data in ``resources/findings/kernel.json``; each cites
the file of NVIDIA/open-gpu-kernel-modules that prints the message and a public report that shows
it (tests/fixtures/recorded/diagnose, SOURCES.md). The lines may come from dmesg, journalctl or
syslog: timestamps, "kernel:" and PCI addresses before them change nothing.

- ``GPU_INIT_FAILED``: "RmInitAdapter failed!" and the lines that go with it. The variant names the
  step that failed where the log shows it: the BAR1 window too small for the GPU's memory
  (``bar1``: Resizable BAR, Above 4G Decoding) or the GSP firmware (``gsp``).
- ``DRIVER_DROPPED_GPU``: the driver ignores a GPU that only a legacy branch supports ("supported
  through the NVIDIA 580.xx Legacy drivers"); ``branch`` where the branch is numbered.
- ``GPU_XID_ERROR``: "NVRM: Xid (PCI:...): N": the Xid numbers and NVIDIA's meaning of each, from
  the vocabulary ``resources/vocabularies/nvidia-xid.json`` (NVIDIA's Xid documentation). The
  variant follows the worst of them: the GPU fell off the bus (79), a memory error (ECC, row
  remapping), the GSP firmware (119, 120).

nvidia-smi's "No devices were found" is no finding of its own: beside these lines it is their
consequence, and alone it says nothing of the cause.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("NVRM: Xid (PCI:0000:01:00): 79, pid=0, GPU has fallen off the bus.")
>>> finding.code, finding.params["variant"], finding.params["xids"]
('GPU_XID_ERROR', 'fallen_off_bus', 'Xid 79')
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart, Values

# --- the GPU not initialised -------------------------------------------------------------------

_MIB: Final = 1024 * 1024


def _bar1_sizes(match: re.Match[str]) -> Values:
    """The BAR1 window and the memory it had to map, in MiB (the kernel prints bytes)."""
    return {
        "bar1_mib": str(int(match.group("bar1")) // _MIB),
        "fb_mib": str(int(match.group("fb")) // _MIB),
    }


# --- a GPU only a legacy driver branch supports ------------------------------------------------

#: The GPU's name before the legacy branch ("The NVIDIA NVIDIA GeForce GTX 1050 GPU installed"),
#: and the installed driver after it ("The 595.71.05 NVIDIA driver will ignore"); the words run
#: over several "NVRM:" lines.
_LEGACY_GPU: Final = re.compile(r"The NVIDIA (?:NVIDIA )?(?P<gpu>[^\n>]{1,80}?) GPU installed in this system")
_LEGACY_DRIVER: Final = re.compile(
    r"The (?P<driver>\d{2,3}\.\d{1,3}(?:\.\d{1,3})?) NVIDIA driver will ignore"
)


def _legacy_branch(match: re.Match[str]) -> Values:
    """The legacy branch, the GPU and the installed driver, where the lines around say them."""
    text = match.string
    values: Values = {"legacy": match.group("legacy"), "gpu": "GPU", "driver": "?"}
    gpus = list(_LEGACY_GPU.finditer(text, max(0, match.start() - 300), match.start()))
    if gpus:
        values["gpu"] = gpus[-1].group("gpu").strip()
    if driver := _LEGACY_DRIVER.search(text, match.end(), match.end() + 400):
        values["driver"] = driver.group("driver")
    return values


def _legacy_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    # A numbered branch ("580.xx") has packages named for it; an old one ("1.0-96xx") only NVIDIA's page.
    branch = re.match(r"\d{3}\.xx$", values.get("legacy", [""])[0])
    return ("branch", {"branch": values["legacy"][0][:3]}) if branch else (None, {})


def _init_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    # The step that failed says more than the final banner: BAR1 first (its fix is a firmware
    # setting), then the GSP firmware.
    for variant in ("bar1", "gsp"):
        if variant in variants:
            return variant, {}
    return None, {}


# --- Xid reports -----------------------------------------------------------------------------


@dataclass(frozen=True)
class XidEntry:
    """One Xid in NVIDIA's documentation: its number, meaning, usual causes and the page."""

    number: int
    meaning: str
    causes: str
    source: str


@functools.cache
def xid_vocabulary() -> dict[int, XidEntry]:
    """NVIDIA's Xids (resources/vocabularies/nvidia-xid.json), by number."""
    source = resources.files("gpuwizard.resources").joinpath("vocabularies/nvidia-xid.json")
    document = json.loads(source.read_text(encoding="utf-8"))
    return {
        int(entry["number"]): XidEntry(
            int(entry["number"]), entry["message"], entry["causes"], entry.get("source") or document["source"]
        )
        for entry in document["entries"]
    }


#: Xids of the GPU's memory (ECC errors, row remapping and page retirement), NVIDIA's documentation.
_ECC_XIDS: Final = frozenset({48, 63, 64, 92, 94, 95})
#: Xids of the GSP firmware.
_GSP_XIDS: Final = frozenset({119, 120})


def _xid_variant(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The Xids seen, with NVIDIA's meanings; the variant of the worst one."""
    numbers = list(dict.fromkeys(int(value) for value in values.get("xid", ())))
    known = xid_vocabulary()
    meanings = [
        f"Xid {number}: {entry.meaning} (causes: {entry.causes})"
        if (entry := known.get(number))
        else f"Xid {number}: not in this wizard's table of common Xids"
        for number in numbers
    ]
    params: dict[str, object] = {
        "xids": ", ".join(f"Xid {number}" for number in numbers),
        "meanings": "; ".join(meanings),
    }
    seen = set(numbers)
    if 79 in seen:
        return "fallen_off_bus", params
    if seen & _ECC_XIDS:
        return "ecc", params
    if seen & _GSP_XIDS:
        return "gsp", params
    return None, params


KERNEL_PART: Final = DiagnosisPart(
    name="kernel",
    extractors=(_bar1_sizes, _legacy_branch),
    suppresses={
        # The GPU never came up: CUDA and PyTorch finding no device, or failing to initialise,
        # follow from it; the device-list and driver-install advice does not help.
        "GPU_INIT_FAILED": (
            "CUDA_DEVICE_NOT_VISIBLE",
            "CUDA_INIT_FAILED",
            "NO_NVIDIA_DRIVER",
            "VENDOR_CUDA_ERROR",
        ),
        # The kernel's own diagnosis of the same failure comes first: a module of another
        # version (its missing GSP firmware then fails RmInitAdapter, bazzite#2668), or the open
        # module refusing a GPU without a GSP (truenas-nvidia-drivers#20).
        "KERNEL_MODULE_MISMATCH": ("GPU_INIT_FAILED",),
        "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU": ("GPU_INIT_FAILED",),
        # The driver ignores the GPU: no device, no initialisation, no driver answering follow
        # (nvidia-smi's "couldn't communicate with the NVIDIA driver", nixos-hardware#1828).
        "DRIVER_DROPPED_GPU": (
            "KERNEL_MODULE_MISMATCH",
            "GPU_INIT_FAILED",
            "CUDA_DEVICE_NOT_VISIBLE",
            "CUDA_INIT_FAILED",
            "NO_NVIDIA_DRIVER",
            "VENDOR_CUDA_ERROR",
        ),
    },
    refiners={
        "GPU_INIT_FAILED": _init_variant,
        "GPU_XID_ERROR": _xid_variant,
        "DRIVER_DROPPED_GPU": _legacy_variant,
    },
)
