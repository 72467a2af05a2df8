"""``nvidia-smi`` as a fallback :class:`~gpuwizard.adapters.nvml.NvmlSource`.

Used only when NVML cannot be used from Python (nvidia-ml-py missing, or its library not
found where it looks while nvidia-smi still works). The output is parsed by
:mod:`gpuwizard.core.machine.nvidia_smi_output`, by header name, for any number of GPUs.
"""

from __future__ import annotations

import sys

from gpuwizard.adapters.nvml import NvmlGpuReading, NvmlReading, NvmlUnavailable
from gpuwizard.adapters.runner import CompletedRun, Runner, RunnerError
from gpuwizard.core.exit_status import status_text
from gpuwizard.core.machine.nvidia_smi_output import (
    QUERY_FIELD_REPLACEMENTS,
    QUERY_FIELDS,
    banner_cuda_version,
    banner_driver_version,
    invalid_query_field,
    parse_query_csv,
)

_TIMEOUT_S = 10.0


class NvidiaSmiSource:
    """Reads the driver and GPUs by running nvidia-smi through ``runner``."""

    def __init__(self, runner: Runner, executable: str) -> None:
        self._runner = runner
        self._executable = executable

    def read(self) -> NvmlReading:
        """Read the driver and every GPU (see :class:`~gpuwizard.adapters.nvml.NvmlSource`)."""
        fields = list(QUERY_FIELDS)
        done = self._run([f"--query-gpu={','.join(fields)}", "--format=csv,nounits"])
        for _ in range(len(QUERY_FIELDS)):
            refused = invalid_query_field(done.stdout + done.stderr)
            if done.ok or refused not in fields:
                break
            # Drivers differ in the fields they know (compute_cap is newer; R610 renames
            # driver_version): ask again without, or with the replacement of, the refused one.
            replacement = QUERY_FIELD_REPLACEMENTS.get(refused)
            fields[fields.index(refused)] = replacement if replacement and replacement not in fields else ""
            fields = [field for field in fields if field]
            done = self._run([f"--query-gpu={','.join(fields)}", "--format=csv,nounits"])
        if not done.ok:
            raise NvmlUnavailable(_failure(done), _first_line(done))
        rows = parse_query_csv(done.stdout)
        banner = self._run([])
        cuda = banner_cuda_version(banner.stdout)
        driver = next((row.driver_version for row in rows if row.driver_version), None)
        driver = driver or banner_driver_version(banner.stdout)
        unavailable: list[tuple[str, str]] = []
        if cuda is None:
            unavailable.append(("cuda_driver_version", "NotInOutput"))
        major, _, minor = (cuda or "").partition(".")
        return NvmlReading(
            driver_version=driver,
            cuda_driver_version=int(major) * 1000 + int(minor) * 10 if cuda else None,
            nvml_version=None,
            gpus=tuple(
                NvmlGpuReading(
                    index=row.index,
                    name=row.name,
                    uuid=row.uuid,
                    pci_bus_id=row.pci_bus_id,
                    compute_capability=row.compute_capability,
                    memory_total_bytes=row.memory_total_mib * 1024 * 1024
                    if row.memory_total_mib is not None
                    else None,
                    problem=row.problem,
                )
                for row in rows
            ),
            unavailable=tuple(unavailable),
            source="nvidia-smi",
        )

    def _run(self, args: list[str]) -> CompletedRun:
        try:
            return self._runner.run([self._executable, *args], timeout=_TIMEOUT_S)
        except RunnerError as error:
            raise NvmlUnavailable("library_not_found", str(error)) from error


def _failure(done: CompletedRun) -> str:
    text = (done.stdout + done.stderr).lower()
    if "version mismatch" in text:
        return "driver_library_mismatch"
    if "couldn't communicate with the nvidia driver" in text:
        return "driver_not_loaded"
    if "insufficient permissions" in text or "no permission" in text:
        return "no_permission"
    return "unknown"


def _first_line(done: CompletedRun) -> str:
    for line in (done.stdout + "\n" + done.stderr).splitlines():
        if line.strip():
            return line.strip()
    return f"exit {status_text(done.returncode, windows=sys.platform == 'win32')}, printing nothing"
