"""A support report laid out for reading: the summary at a glance, then sections of blocks (pure).

:func:`support_view` turns a redacted ``gpuwizard.support/1`` document into a
:class:`~gpuwizard.core.support.blocks.SupportView`: a summary (verdict, key facts, error/warning
counts), every finding with where it comes from, then sections made of a few kinds of blocks
(paragraphs, facts, tables, findings, raw text, subsections; core/support/blocks.py). The
sections are built beside it: the machine, PATH and variables in core/support/view_machine.py,
the environments, live tests and last good state in core/support/view_envs.py. The HTML and
Markdown renderers only lay these blocks out, so both formats say the same things, and neither
reads anything the document does not hold.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from gpuwizard.core.findings.model import SEVERITY_ORDER
from gpuwizard.core.livetest.verdicts import level, phrase
from gpuwizard.core.machine.readiness import gpu_readiness, machine_has_nvidia_gpu, no_gpu_note
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport, display_name, report_from_json
from gpuwizard.core.support.blocks import (
    Fact,
    FindingItem,
    Summary,
    SupportView,
    by_severity,
    finding_items,
    when_text,
)
from gpuwizard.core.support.view_envs import (
    environments_section,
    last_good_section,
    last_test_result,
    rates_text,
    tests_section,
)
from gpuwizard.core.support.view_machine import machine_section, memory_text, path_section, variables_section

_LEVELS: Final = ("ok", "info", "warning", "error")


# --- the view -----------------------------------------------------------------------------------


def support_view(document: Mapping[str, Any]) -> SupportView:
    """Lay out a (redacted) ``gpuwizard.support/1`` document for reading."""
    report = report_from_json(document.get("system") or {"os": {}})
    has_gpu = machine_has_nvidia_gpu(report)
    environments = [env for env in document.get("environments") or [] if isinstance(env, Mapping)]
    tests = [test for test in document.get("tests") or [] if isinstance(test, Mapping)]
    path = document.get("path") or {}
    findings = _all_findings(report, path, environments, tests)
    sections = (
        machine_section(report, document.get("system") or {}),
        environments_section(environments, has_gpu),
        tests_section(tests, has_gpu),
        last_good_section(document.get("last_good")),
        path_section(path),
        variables_section(document.get("variables") or {}),
    )
    return SupportView(
        title="GPU Setup Wizard support report",
        generated=when_text(document.get("generated")),
        wizard_version=str(document.get("wizard_version") or ""),
        redaction=_redaction_lines(document.get("redaction")),
        summary=_summary(report, environments, tests, findings, has_gpu),
        findings=tuple(findings),
        sections=sections,
    )


def _redaction_lines(redaction: object) -> tuple[str, ...]:
    if not isinstance(redaction, Mapping):
        return ("Nothing was redacted.",)
    counts = redaction.get("counts") or {}
    names = {
        "gpu_uuid": ("GPU UUID", "GPU UUIDs"),
        "serial_number": ("serial number", "serial numbers"),
        "home_folder": ("home-folder path", "home-folder paths"),
        "user_name": ("user name", "user names"),
        "host_name": ("computer name", "computer names"),
        "url_credentials": ("URL login", "URL logins"),
        "url_secret": ("secret in a URL", "secrets in URLs"),
        "credential_variable": ("credential variable", "credential variables"),
        "access_token": ("access token", "access tokens"),
        "private_key": ("private key", "private keys"),
    }
    found = [
        f"{count} {names[kind][0] if count == 1 else names[kind][1]}"
        for kind, count in counts.items()
        if kind in names and isinstance(count, int) and count
    ]
    total = "Replaced before writing: " + (", ".join(found) if found else "nothing (none was found)") + "."
    return (total, *(str(rule) for rule in redaction.get("rules") or []))


# --- the summary at a glance --------------------------------------------------------------------


def _summary(
    report: SystemReport,
    environments: Sequence[Mapping[str, Any]],
    tests: Sequence[Mapping[str, Any]],
    findings: Sequence[FindingItem],
    has_gpu: bool,
) -> Summary:
    counts = {severity: sum(1 for f in findings if f.severity == severity) for severity in SEVERITY_ORDER}
    readiness = gpu_readiness(report)
    level = "error" if counts["error"] else "warning" if counts["warning"] else "ok"
    if counts["error"]:
        headline = f"Something is broken: {_count(counts['error'], 'error')} below, each with what to do."
    elif counts["warning"]:
        headline = f"Nothing is broken; {_count(counts['warning'], 'warning')} to look at."
    else:
        headline = "No problems found."
    if readiness.ready:
        names = ", ".join(display_name(gpu) for gpu in readiness.usable_gpus)
        detail = f"GPU frameworks can use {names} through the NVIDIA driver."
    elif report.nvidia_gpus:
        detail = "This machine has an NVIDIA GPU, but frameworks cannot use it as it is now."
    elif report.compute_gpus:
        names = ", ".join(display_name(gpu) for gpu in report.compute_gpus)
        detail = (
            f"No NVIDIA GPU; {names}: the recommendation says which build (ROCm, XPU, MPS) uses it, "
            "and the live test whether it trains."
        )
    else:
        detail = "No NVIDIA GPU was found: frameworks run on the CPU here."
    facts = (
        _gpu_fact(report),
        _driver_fact(report),
        _toolkit_fact(report),
        _environments_fact(environments, has_gpu),
        _last_test_fact(tests, has_gpu),
    )
    return Summary(level, headline, detail, facts, counts)


def _count(number: int, word: str) -> str:
    return f"{number} {word}" + ("" if number == 1 else "s")


def _gpu_fact(report: SystemReport) -> Fact:
    gpus = report.nvidia_gpus
    compute = report.compute_gpus
    if not gpus and compute:
        # AMD, Intel, Apple: named with what decides their builds (the gfx target, the driver).
        return Fact("GPU", "no NVIDIA GPU; " + "; ".join(_other_gpu_text(gpu) for gpu in compute), level="")
    if not gpus:
        others = ", ".join(display_name(gpu) for gpu in report.gpus)
        # No NVIDIA GPU is a fact with a way forward (the CPU builds), not a fault
        # (core/findings/no_gpu.py); no GPU detection could see (WSL 2 without its driver) is one.
        level = "" if no_gpu_note(report) is not None else "warning"
        return Fact("GPU", f"no NVIDIA GPU (only {others})" if others else "none found", level=level)
    parts = []
    for gpu in gpus:
        extra = [
            f"compute {gpu.compute_capability}" if gpu.compute_capability else "",
            memory_text(gpu.memory_total_mib),
        ]
        text = display_name(gpu) + "".join(f", {item}" for item in extra if item)
        parts.append(text if gpu.status == "ok" else f"{text} ({gpu.status})")
    level = "ok" if all(gpu.status == "ok" for gpu in gpus) else "error"
    return Fact("GPU", "; ".join(parts), level=level)


def _other_gpu_text(gpu: GpuFacts) -> str:
    extra = [
        gpu.gfx_target or "",
        f"driver {gpu.driver_version}" if gpu.driver_version else "",
        f"kernel driver {gpu.kernel_driver}" if gpu.kernel_driver else "",
    ]
    return display_name(gpu) + "".join(f", {item}" for item in extra if item)


def _driver_fact(report: SystemReport) -> Fact:
    if report.driver is None:
        return Fact("Driver", "no NVIDIA driver answered", level="error" if report.nvidia_gpus else "")
    cuda = report.driver.cuda_max or "unknown"
    return Fact("Driver", f"{report.driver.version}, supports CUDA up to {cuda}", level="ok")


def _toolkit_fact(report: SystemReport) -> Fact:
    if not report.cuda_toolkits:
        return Fact("CUDA toolkits", "none on disk (pip and conda builds bring their own CUDA)")
    texts = []
    for kit in report.cuda_toolkits:
        where = "first on PATH" if kit.path_rank == 0 else "on PATH" if kit.on_path else "not on PATH"
        texts.append(f"{kit.version or '?'} ({where})")
    return Fact("CUDA toolkits", ", ".join(texts))


def _env_level(env: Mapping[str, Any], test: Mapping[str, Any] | None, has_gpu: bool) -> str:
    severities = [str(f.get("severity")) for f in env.get("findings") or [] if isinstance(f, Mapping)]
    if "error" in severities:
        return "error"
    if test is not None:
        return level(str(test.get("verdict")), has_gpu)
    return "warning" if "warning" in severities else ""


def _environments_fact(environments: Sequence[Mapping[str, Any]], has_gpu: bool) -> Fact:
    if not environments:
        return Fact("Environments", "none made by the wizard")
    parts = []
    levels = []
    for env in environments:
        test = last_test_result(env)
        level = _env_level(env, test, has_gpu)
        levels.append(level)
        # Its last verdict, and what is wrong with it now (the first error's code, to look up below).
        errors = [
            str(f.get("code"))
            for f in env.get("findings") or []
            if isinstance(f, Mapping) and f.get("severity") == "error"
        ]
        state = [_verdict_text(env, test), *errors[:1]]
        parts.append(f"{env.get('name')} ({'; '.join(state)})")
    worst = max(levels, key=lambda level: _LEVELS.index(level) if level in _LEVELS else 0)
    return Fact("Environments", f"{len(environments)}: " + ", ".join(parts), level=worst)


def _verdict_text(env: Mapping[str, Any], test: Mapping[str, Any] | None) -> str:
    """The last live test's verdict; else the one the last good state recorded; else "not tested"."""
    if test is not None:
        return str(test.get("verdict"))
    good = env.get("last_good")
    if isinstance(good, Mapping) and good.get("test_verdict"):
        return f"{good['test_verdict']} in the last good state"
    return "not tested"


def _last_test_fact(tests: Sequence[Mapping[str, Any]], has_gpu: bool) -> Fact:
    if not tests:
        return Fact("Last live test", "none recorded")
    latest = max(tests, key=lambda test: str(test.get("recorded") or ""))
    result = latest.get("result") or {}
    verdict = str(result.get("verdict"))
    who = latest.get("env") or latest.get("python") or "?"
    rates = rates_text(result.get("samples_per_s"), result.get("speedup"))
    text = f"{who}: {verdict} ({phrase(verdict)})" + (f", {rates}" if rates else "")
    return Fact(
        "Last live test",
        f"{text}, {when_text(latest.get('recorded'))}",
        level=level(verdict, has_gpu),
    )


# --- findings -----------------------------------------------------------------------------------


def _all_findings(
    report: SystemReport,
    path: Mapping[str, Any],
    environments: Sequence[Mapping[str, Any]],
    tests: Sequence[Mapping[str, Any]],
) -> list[FindingItem]:
    items = finding_items(({"severity": f.severity, "code": f.code, "message": f.message, "hint": f.hint}
                           for f in report.findings), "detection")  # fmt: skip
    items += finding_items(path.get("findings") or [], "PATH")
    for env in environments:
        items += finding_items(env.get("findings") or [], f"environment {env.get('name')}")
    for test in tests:
        result = test.get("result") or {}
        items += finding_items(
            result.get("findings") or [], f"live test of {test.get('env') or test.get('python')}"
        )
    return by_severity(items)
