"""What a machine without an NVIDIA GPU is: a fact with a way forward, not an error.

The one rule (issue 41), which detect, the support report, verify, the pages, diagnose and
the exit codes all follow:

- Detection's ``NO_NVIDIA_GPU`` is a note (severity ``info`` in the catalog,
  ``resources/findings/machine.json``): PyTorch and TensorFlow run on the CPU there, and its
  hint says so first. Nothing is broken, so it fails no check and makes no report "broken".
- Unless the person asked for the GPU (``apply``'s ``require_gpu``): then the same finding is
  the error that explains why the run stopped (:func:`as_asked_for_gpu`).
- A saved report from an older version says ``error``; read today, it says what the catalog
  says (:func:`as_today`, which ``report_from_json`` applies), so an old file and a fresh
  detection give one answer.
- A log's complaint that matters only with a GPU is read the same way on such a machine
  (:mod:`gpuwizard.core.compat.diagnosis_context`, ``on_machine_without_gpu``).

>>> make_finding(NO_GPU_CODE).severity
'info'
>>> [f.severity for f in as_asked_for_gpu([make_finding(NO_GPU_CODE), make_finding("CPU_ONLY_BUILD")])]
['error', 'error']
>>> as_today(replace(make_finding(NO_GPU_CODE), severity="error")).severity
'info'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from typing import Final

from gpuwizard.core.findings.model import Finding, UnknownFindingCode, make_finding

#: Detection's finding for a machine without an NVIDIA GPU (and its variant ``other_gpu``).
NO_GPU_CODE: Final = "NO_NVIDIA_GPU"


def is_no_gpu(finding: Finding) -> bool:
    """Whether ``finding`` says that the machine has no NVIDIA GPU."""
    return finding.code == NO_GPU_CODE


def as_asked_for_gpu(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` where the person asked for the GPU: no NVIDIA GPU is then an error."""
    return [replace(f, severity="error") if is_no_gpu(f) else f for f in findings]


def as_today(finding: Finding) -> Finding:
    """``finding`` (read from a file an older version wrote) as this version says no GPU.

    Only the no-GPU finding is made again from the catalog, with the values it was written with
    (its severity and texts changed); other findings keep what they were written with.
    """
    if not is_no_gpu(finding):
        return finding
    params = dict(finding.params)
    variant = params.pop("variant", None) or None
    try:
        today = make_finding(finding.code, variant=variant, **params)
    except (UnknownFindingCode, KeyError):
        return finding  # a variant or values this version does not know: as written
    return finding if today == finding else today
