"""Known error messages in logs and tracebacks, recognised as findings (``gpuwizard diagnose``).

:func:`diagnose` reads what a framework, a probe, pip, uv or conda printed, or a traceback a
user pasted, and returns the findings it recognises: a stable code (docs/architecture.md,
"The command-line and JSON contract"), a plain-language message and the concrete fix, with the
values it read (the missing library, the GPU architecture, the package) as parameters. Text it
does not know gives no findings; :func:`diagnose_log` then quotes the error the log holds, if it
holds one (:mod:`gpuwizard.core.findings.unrecognised`), so that nothing goes unsaid.

Every signature is a regular expression with the code it stands for and the address of a real
report that shows the message, kept as data beside the finding's texts
(``resources/findings/<part>.json``, ``"signatures"``); tests/fixtures/recorded/diagnose holds
those logs. The code of each theme (``diagnosis_<part>.py``: what reads values out of a match,
chooses a variant from the whole log, or drops a finding another explains) registers by code. Several
findings may apply to one log, but each code appears once: its matches merge their values. A
specific finding suppresses a generic one that explains the same failure (the GPU architecture
warning explains the 'no kernel image' error that follows it).

Logs are often quoted inside JSON (a probe's report, a notebook's error) or wrapped by a
console: each is read in every way :func:`gpuwizard.core.findings.log_views.log_views` gives.

>>> [f.code for f in diagnose("AssertionError: Torch not compiled with CUDA enabled")]
['CPU_ONLY_BUILD']
>>> finding = diagnose("Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found")[0]
>>> finding.code, finding.params["libraries"], finding.params["components"]
('DLL_NOT_FOUND', 'cudart64_110.dll', 'CUDA 11')
>>> diagnose("Successfully installed numpy-2.1.3")
[]
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gpuwizard.core.findings.diagnosis_accelerators import ACCELERATORS_PART
from gpuwizard.core.findings.diagnosis_containers import CONTAINERS_PART
from gpuwizard.core.findings.diagnosis_devices import DEVICES_PART
from gpuwizard.core.findings.diagnosis_extensions import EXTENSIONS_PART
from gpuwizard.core.findings.diagnosis_hosts import HOSTS_PART
from gpuwizard.core.findings.diagnosis_kernel import KERNEL_PART
from gpuwizard.core.findings.diagnosis_logs import LOGS_PART
from gpuwizard.core.findings.diagnosis_network import NETWORK_PART
from gpuwizard.core.findings.diagnosis_packages import PACKAGES_PART
from gpuwizard.core.findings.diagnosis_platform import PLATFORM_PART
from gpuwizard.core.findings.diagnosis_python import PYTHON_PART
from gpuwizard.core.findings.diagnosis_runtimes import RUNTIMES_PART
from gpuwizard.core.findings.diagnosis_serving import SERVING_PART
from gpuwizard.core.findings.diagnosis_toolchains import TOOLCHAINS_PART
from gpuwizard.core.findings.diagnosis_torch import TORCH_PART
from gpuwizard.core.findings.diagnosis_vendors import VENDORS_PART
from gpuwizard.core.findings.diagnosis_wsl import WSL_PART
from gpuwizard.core.findings.gpu_readings import UNKNOWN_MACHINE_KEYS, read_without_machine
from gpuwizard.core.findings.log_facts import forget_logs, read_log_facts
from gpuwizard.core.findings.log_views import log_views
from gpuwizard.core.findings.model import Finding, finding_to_json, make_finding, sort_findings
from gpuwizard.core.findings.signature import DiagnosisPart, Hit, HitRule, NeedleIndex, Needles, Refiner
from gpuwizard.core.findings.unrecognised import (
    UnrecognisedError,
    unrecognised_error,
    unrecognised_error_to_json,
)

DIAGNOSIS_SCHEMA: Final = "gpuwizard.diagnosis/1"

#: The themes (each cites its sources), in the order their signatures are tried.
PARTS: Final[tuple[DiagnosisPart, ...]] = (
    LOGS_PART,  # the frameworks' loaders, GPU architectures, the driver, memory, Windows' paths
    NETWORK_PART,  # pip's and uv's words for a package index that cannot be reached
    PACKAGES_PART,  # pip's, uv's, conda's and mamba's "no matching distribution"
    PLATFORM_PART,  # containers' NVML, Docker's runtime, Windows' paging file, XLA's ptxas
    TORCH_PART,  # PyTorch's own words: cuDNN, the driver, torchvision, cuBLAS
    CONTAINERS_PART,  # containers, Kubernetes, WSL 2
    RUNTIMES_PART,  # JAX, ONNX Runtime, several CUDA runtimes in one process
    DEVICES_PART,  # the kernel module, device visibility, MIG
    PYTHON_PART,  # Python versions without wheels, TensorFlow's DLL load failure on Windows
    HOSTS_PART,  # open kernel module on old GPUs, WSL 2 libcuda, Docker without a GPU, conda __cuda/__glibc
    EXTENSIONS_PART,  # bitsandbytes, xFormers, compiled extensions, TensorRT engines, web UIs
    TOOLCHAINS_PART,  # nvcc's host compiler, CUDA_HOME, Triton's ptxas and C compiler, PTX and the driver
    SERVING_PART,  # llama.cpp/Ollama, vLLM, NCCL, torch.distributed, TensorFlow GPU builds
    KERNEL_PART,  # the kernel driver's NVRM lines: RmInitAdapter failed (BAR1, GSP), Xid reports
    ACCELERATORS_PART,  # AMD ROCm, Intel XPU, Apple MPS: gfx targets, devices, runtimes, MPS limits
    WSL_PART,  # the WSL 2 route itself: WSL 1, virtualization, the distribution's disk and memory
    VENDORS_PART,  # the vendors' own status names and numbers, the last resort
)

#: Every code a log can give (docs/architecture.md, "The command-line and JSON contract"):
#: derived from the parts' signatures and rules, never written twice.
DIAGNOSIS_CODES: Final = tuple(dict.fromkeys(code for part in PARTS for code in part.codes))

#: Every signature, in the order the parts give them (the more specific first).
SIGNATURES: Final = tuple(signature for part in PARTS for signature in part.signatures)

#: Parameters that collect every value seen; the others keep the first one.
_LIST_PARAMS: Final = frozenset({"libraries", "requirements", "packages", "python"})

#: A longer matched line is cut to this many characters in the ``evidence`` parameter.
_EVIDENCE_CHARS: Final = 240

#: The fixed texts of every signature, for the one pass over each view of a log.
_NEEDLES: Final = Needles(SIGNATURES)
#: The matches of one signature read in one view of a log, at most (the first ones).
MATCHES_PER_SIGNATURE: Final = 10_000


def _merged_suppressions(parts: Sequence[DiagnosisPart]) -> dict[str, tuple[str, ...]]:
    merged: dict[str, list[str]] = {}
    for part in parts:
        for code, others in part.suppresses.items():
            known = merged.setdefault(code, [])
            known.extend(other for other in others if other not in known)
    return {code: tuple(others) for code, others in merged.items()}


def _merged_refiners(parts: Sequence[DiagnosisPart]) -> dict[str, Refiner]:
    merged: dict[str, Refiner] = {}
    for part in parts:
        for code, refine in part.refiners.items():
            if code in merged:
                raise ValueError(f"two parts choose the variant of {code}")  # one place decides
            merged[code] = refine
    return merged


#: Every suppression of the parts.
SUPPRESSIONS: Final = _merged_suppressions(PARTS)
#: How the parts choose the variants of their codes from the whole log.
_REFINERS: Final = _merged_refiners(PARTS)
#: What the parts change once every hit of a log is known, in the parts' order.
_RULES: Final[tuple[HitRule, ...]] = tuple(rule for part in PARTS for rule in part.rules)


def _line_at(text: str, position: int) -> str:
    start = text.rfind("\n", 0, position) + 1
    end = text.find("\n", position)
    end = end if end >= 0 else len(text)
    raw = text[start:end]
    line = raw.strip()
    if len(line) <= _EVIDENCE_CHARS:
        return line
    # A long line (a journal's prefix, a JSON record) is quoted around the match: a third of the
    # room for what leads to it, the rest for what follows, which names what failed (the DLL).
    at = max(0, position - start - (len(raw) - len(raw.lstrip())))
    room = _EVIDENCE_CHARS - 2  # an ellipsis at either end
    first = max(0, min(at - _EVIDENCE_CHARS // 3, len(line) - room))
    if first and not line[first - 1].isspace():
        # Not from inside a word or a time stamp ("…8: W tensorflow/..."): from the next field on,
        # never past the match; what follows the match keeps its room.
        space = line.find(" ", first, at)
        first = space + 1 if 0 <= space < at else first
    return ("…" if first else "") + line[first : first + room] + ("…" if first + room < len(line) else "")


def diagnose(text: str) -> list[Finding]:
    """The findings whose known messages appear in ``text``: errors first, then by first appearance."""
    try:
        return _diagnose(text)
    finally:
        forget_logs()  # what the signatures remembered of this log (log_facts.per_log)


def _diagnose(text: str) -> list[Finding]:
    hits: dict[str, Hit] = {}
    # A place in one reading is not a place in another (undoing wraps moves the text): a hit's
    # place and quoted line are the first reading's that has it.
    found_in: dict[str, int] = {}
    for number, view in enumerate(log_views(text)):
        # Each pattern reads only the text around the places its fixed texts stand (found with
        # substring searches, once per view): the time grows with the log, not with log x patterns.
        index = NeedleIndex(view, _NEEDLES)
        for signature in SIGNATURES:
            # A log repeating one message a million times says nothing new after the first ones.
            for match in itertools.islice(signature.matches(index), MATCHES_PER_SIGNATURE):
                values = signature.values(match)
                if values is None:
                    continue
                hit = hits.get(signature.code)
                if hit is None:
                    hit = hits[signature.code] = Hit(match.start(), _line_at(view, match.start()))
                    found_in[signature.code] = number
                elif match.start() < hit.position and found_in[signature.code] == number:
                    hit.position, hit.evidence = match.start(), _line_at(view, match.start())
                hit.add(values, signature.variant)
    for rule in _RULES:
        rule(hits, text)
    for code, suppressed in SUPPRESSIONS.items():
        if code in hits:
            for other in suppressed:
                hits.pop(other, None)
    ordered = sorted(hits.items(), key=lambda item: item[1].position)
    findings = [_finding(code, hit, text) for code, hit in ordered]
    if any(finding.code in UNKNOWN_MACHINE_KEYS for finding in findings):
        # The log alone does not say whose machine it is: a complaint that matters only with a GPU
        # says both readings (core/findings/gpu_readings.py); a known machine reads it again.
        findings = read_without_machine(findings, read_log_facts(text))
    return sort_findings(findings)


@dataclass(frozen=True)
class Diagnosis:
    """What a log shows: the findings recognised, or else the error no finding explains (if any)."""

    findings: tuple[Finding, ...]
    unrecognised: UnrecognisedError | None


def diagnose_log(text: str) -> Diagnosis:
    """The findings of ``text`` (:func:`diagnose`) and, when there are none, its unrecognised error."""
    return diagnosis_of(text, diagnose(text))


def diagnosis_of(text: str, findings: Sequence[Finding]) -> Diagnosis:
    """The diagnosis of ``text`` whose findings are known (made exact for a machine, say).

    The log's error is quoted only when nothing was recognised: a finding already explains it.
    """
    return Diagnosis(tuple(findings), None if findings else unrecognised_error(text))


def diagnosis_to_json(
    findings: Sequence[Finding], unrecognised: UnrecognisedError | None = None
) -> dict[str, object]:
    """The output of ``gpuwizard diagnose --json`` (schema ``gpuwizard.diagnosis/1``)."""
    return {
        "schema": DIAGNOSIS_SCHEMA,
        "findings": [finding_to_json(finding) for finding in findings],
        "unrecognised_error": unrecognised_error_to_json(unrecognised),
    }


def _finding(code: str, hit: Hit, text: str) -> Finding:
    params: dict[str, object] = {
        name: values if name in _LIST_PARAMS else values[0] for name, values in hit.values.items()
    }
    params["evidence"] = hit.evidence
    variant = hit.variants[0] if hit.variants else None
    if refine := _REFINERS.get(code):
        variant, extra = refine(hit.values, hit.variants, text)
        params.update(extra)
    return make_finding(code, variant=variant, **params)
