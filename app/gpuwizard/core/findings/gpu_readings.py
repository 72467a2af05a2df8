"""Complaints of a log that matter only on a machine with an NVIDIA GPU: read for the machine.

TensorFlow prints the same lines whether its machine has no NVIDIA GPU (where they mean nothing:
it runs on the CPU) or has one it failed to use (where they name what to fix): the dlerror of its
CUDA runtime, followed by its own "Ignore above cudart dlerror if you do not have a GPU set up on
your machine" (``DLL_NOT_FOUND``), and its failed start of CUDA (``TF_NO_GPU_FOUND``: "Could not
find cuda drivers on your machine, GPU will not be used", "failed call to cuInit: ..."). Such a
finding follows the machine (issue 41, the rule of :mod:`gpuwizard.core.findings.no_gpu`):

- a machine without an NVIDIA GPU: a note with the CPU way first (severity ``info``;
  :func:`gpuwizard.core.compat.diagnosis_context.on_machine_without_gpu`);
- a machine with one: the catalog's finding, an error whose hint is the fix (:func:`as_on_gpu_machine`);
- a log whose machine is unknown (``--log-only``, a report or a log of another OS): a warning whose
  hint says both readings, the log's own reassurance first (:func:`read_without_machine`, which
  :func:`gpuwizard.core.findings.diagnosis.diagnose` applies).

A log that itself shows an NVIDIA GPU (its compute capability, a running driver, TensorFlow
finding a GPU and failing to open its libraries) is a GPU machine's: its findings stay errors.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from gpuwizard.core.findings.catalog_context import context_hint
from gpuwizard.core.findings.log_facts import LogFacts
from gpuwizard.core.findings.model import Finding, template_for
from gpuwizard.core.findings.signature import DRIVER_LIBRARY

#: TensorFlow's finding for a start that found no usable NVIDIA GPU (core/findings/diagnosis_devices.py).
TF_NO_GPU_CODE: Final = "TF_NO_GPU_FOUND"
#: TensorFlow found a GPU and could not open its libraries: the log's machine has one.
_TF_SAW_A_GPU: Final = "TF_CANNOT_DLOPEN_GPU_LIBS"

#: The sentence (catalog_context.CONTEXT_HINTS) that opens the hint where the machine is unknown.
UNKNOWN_MACHINE_KEYS: Final = {"DLL_NOT_FOUND": "reassured_dlerror", TF_NO_GPU_CODE: "gpu_unknown_tensorflow"}
#: The sentence that replaces the hint on a machine without an NVIDIA GPU.
NO_GPU_KEYS: Final = {"DLL_NOT_FOUND": "no_nvidia_gpu_dlerror", TF_NO_GPU_CODE: "no_nvidia_gpu_tensorflow"}
#: The parameters a machine's reading adds (catalog_context.context_hint reads them).
_CONTEXT_PARAMS: Final = ("context_hint", "context_replaces")

#: TensorFlow's CUDA runtime (``cudart64_110.dll``, ``libcudart.so.11.0``): what its
#: reassurance is about; the driver's own library fails with it on such a machine.
_CUDART: Final = re.compile(r"(?:lib)?cudart(?:64_\d{1,4}\.dll|\.so(?:\.\d{1,4}){0,3})", re.IGNORECASE)


def log_shows_gpu(facts: LogFacts, findings: Sequence[Finding]) -> bool:
    """Whether the log shows that its machine has an NVIDIA GPU (then it is a GPU machine's log)."""
    return (
        facts.gpu_capability is not None
        or facts.nvidia_driver_running
        or any(finding.code == _TF_SAW_A_GPU for finding in findings)
    )


def reassured_dlerror(finding: Finding, facts: LogFacts) -> bool:
    """A missing CUDA runtime (and driver library) the log itself says to ignore without a GPU."""
    if finding.code != "DLL_NOT_FOUND" or not facts.no_gpu_reassurance:
        return False
    libraries = [name.strip() for name in finding.params.get("libraries", "").split(",") if name.strip()]
    return any(_CUDART.fullmatch(name) for name in libraries) and all(
        _CUDART.fullmatch(name) or DRIVER_LIBRARY.fullmatch(name) for name in libraries
    )


def matters_only_with_gpu(finding: Finding, facts: LogFacts, findings: Sequence[Finding]) -> bool:
    """Whether ``finding`` (one of the log's ``findings``) is read differently with and without a GPU."""
    if log_shows_gpu(facts, findings):
        return False
    return finding.code == TF_NO_GPU_CODE or reassured_dlerror(finding, facts)


def follows_machine(finding: Finding) -> bool:
    """Whether ``finding`` was read without its machine (:func:`read_without_machine`)."""
    key = UNKNOWN_MACHINE_KEYS.get(finding.code)
    return key is not None and finding.params.get("context_hint") == key


def read_without_machine(findings: Sequence[Finding], facts: LogFacts) -> list[Finding]:
    """``findings`` of a log whose machine is unknown: a warning that says both readings.

    The hint opens with the reading for a machine without an NVIDIA GPU (nothing to fix; for the
    dlerror, in the log's own words) and goes on with the fix for a machine with one.
    """
    return [
        _both_readings(finding) if matters_only_with_gpu(finding, facts, findings) else finding
        for finding in findings
    ]


def _both_readings(finding: Finding) -> Finding:
    params = {**finding.params, "context_hint": UNKNOWN_MACHINE_KEYS[finding.code], "context_replaces": "no"}
    hint = context_hint(finding.code, params, finding.hint)
    return replace(finding, severity="warning", hint=hint, params=params)


def as_on_gpu_machine(finding: Finding) -> Finding:
    """``finding`` as the catalog says it, for a machine with an NVIDIA GPU: the error and its fix."""
    if not follows_machine(finding):
        return finding
    params = {name: value for name, value in finding.params.items() if name not in _CONTEXT_PARAMS}
    template = template_for(finding.code, params.get("variant"))
    return replace(finding, severity=template.severity, hint=template.hint.format(**params), params=params)
