"""A support report laid out for reading: the summary at a glance, then sections of blocks (pure).

:func:`support_view` turns a redacted ``gpuwizard.support/1`` document into a
:class:`SupportView`: a summary (verdict, key facts, error/warning counts), every finding with
where it comes from, then sections made of a few kinds of blocks (paragraphs, facts, tables,
findings, raw text, subsections). The HTML and Markdown renderers only lay these blocks out, so
both formats say the same things, and neither reads anything the document does not hold.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, ClassVar, Final, TypeAlias, TypeGuard

from gpuwizard.core.findings.model import SEVERITY_ORDER
from gpuwizard.core.machine.readiness import gpu_readiness, machine_has_nvidia_gpu
from gpuwizard.core.machine.system_report import SystemReport, display_name, report_from_json

#: The live test's verdicts in words (core/live_test.py defines them).
VERDICT_WORDS: Final = {
    "gpu_ok": "trains on the GPU, clearly faster than the CPU",
    "gpu_slow": "trains on the GPU, but not clearly faster than the CPU",
    "cpu_only": "trains on the CPU only",
    "broken": "does not train",
}
#: What an entry's problem names (core/path_algebra.py, workflow/path_request.py) mean.
PATH_PROBLEM_WORDS: Final = {
    "missing": "missing folder",
    "duplicate": "duplicate",
    "other_cuda_first": "another CUDA version comes first",
    "empty": "empty entry",
    "reg_sz_with_vars": "%VARS% in a REG_SZ value (never expanded)",
}
_LEVELS: Final = ("ok", "info", "warning", "error")
_FAMILY_NAMES: Final = {"windows": "Windows", "linux": "Linux", "darwin": "macOS"}


# --- the blocks -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Mark:
    """A short badge beside a value (``missing folder``, ``CUDA 12.1``), with its level."""

    text: str
    level: str = "info"


@dataclass(frozen=True)
class Cell:
    """One table cell: text, shown as code (paths, versions) or not, with badges."""

    text: str
    code: bool = False
    level: str = ""
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class Fact:
    """A labelled value (``Driver: 546.33``)."""

    label: str
    value: str
    code: bool = False
    level: str = ""
    marks: tuple[Mark, ...] = ()


@dataclass(frozen=True)
class FindingItem:
    """A finding with where it was found (``detection``, ``PATH``, ``environment demo``...)."""

    severity: str
    code: str
    message: str
    hint: str
    where: str


@dataclass(frozen=True)
class Paragraph:
    """A sentence or two."""

    kind: ClassVar[str] = "paragraph"
    text: str
    level: str = ""


@dataclass(frozen=True)
class Facts:
    """Labelled values."""

    kind: ClassVar[str] = "facts"
    facts: tuple[Fact, ...]


@dataclass(frozen=True)
class Table:
    """A table with a caption; ``empty`` is said instead when it has no rows."""

    kind: ClassVar[str] = "table"
    caption: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    empty: str = "none"


@dataclass(frozen=True)
class Findings:
    """Findings, errors first."""

    kind: ClassVar[str] = "findings"
    items: tuple[FindingItem, ...]
    empty: str = "No findings."


@dataclass(frozen=True)
class Raw:
    """Long raw text (JSON, tracebacks), folded away unless asked for."""

    kind: ClassVar[str] = "raw"
    summary: str
    text: str


@dataclass(frozen=True)
class Section:
    """A heading and its blocks (a section may hold subsections)."""

    kind: ClassVar[str] = "section"
    anchor: str
    title: str
    blocks: tuple[Block, ...]
    level: int = 2


Block: TypeAlias = "Paragraph | Facts | Table | Findings | Raw | Section"


@dataclass(frozen=True)
class Summary:
    """The box at the top: overall level, a headline, key facts and the finding counts."""

    level: str
    headline: str
    detail: str
    facts: tuple[Fact, ...]
    counts: Mapping[str, int]


@dataclass(frozen=True)
class SupportView:
    """Everything a renderer lays out, in order."""

    title: str
    generated: str
    wizard_version: str
    redaction: tuple[str, ...]
    summary: Summary
    findings: tuple[FindingItem, ...]
    sections: tuple[Section, ...]


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
        _machine_section(report, document.get("system") or {}),
        _environments_section(environments, has_gpu),
        _tests_section(tests, has_gpu),
        _last_good_section(document.get("last_good")),
        _path_section(path),
        _variables_section(document.get("variables") or {}),
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
    }
    found = [
        f"{count} {names[kind][0] if count == 1 else names[kind][1]}"
        for kind, count in counts.items()
        if kind in names and isinstance(count, int) and count
    ]
    total = "Replaced before writing: " + (", ".join(found) if found else "nothing (none was found)") + "."
    return (total, *(str(rule) for rule in redaction.get("rules") or []))


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
    if not gpus:
        others = ", ".join(display_name(gpu) for gpu in report.gpus)
        return Fact("GPU", f"no NVIDIA GPU (only {others})" if others else "none found", level="warning")
    parts = []
    for gpu in gpus:
        extra = [
            f"compute {gpu.compute_capability}" if gpu.compute_capability else "",
            _memory(gpu.memory_total_mib),
        ]
        text = display_name(gpu) + "".join(f", {item}" for item in extra if item)
        parts.append(text if gpu.status == "ok" else f"{text} ({gpu.status})")
    level = "ok" if all(gpu.status == "ok" for gpu in gpus) else "error"
    return Fact("GPU", "; ".join(parts), level=level)


def _memory(mib: int | None) -> str:
    return f"{mib / 1024:.0f} GiB" if mib is not None else ""


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
        return _verdict_level(str(test.get("verdict")), has_gpu)
    return "warning" if "warning" in severities else ""


def _verdict_level(verdict: str, has_gpu: bool) -> str:
    if verdict == "gpu_ok" or (verdict == "cpu_only" and not has_gpu):
        return "ok"
    return "error" if verdict == "broken" else "warning"


def _environments_fact(environments: Sequence[Mapping[str, Any]], has_gpu: bool) -> Fact:
    if not environments:
        return Fact("Environments", "none made by the wizard")
    parts = []
    levels = []
    for env in environments:
        test = _last_test_result(env)
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


def _last_test_result(env: Mapping[str, Any]) -> Mapping[str, Any] | None:
    record = env.get("last_test")
    result = record.get("result") if isinstance(record, Mapping) else None
    return result if isinstance(result, Mapping) else None


def _last_test_fact(tests: Sequence[Mapping[str, Any]], has_gpu: bool) -> Fact:
    if not tests:
        return Fact("Last live test", "none recorded")
    latest = max(tests, key=lambda test: str(test.get("recorded") or ""))
    result = latest.get("result") or {}
    verdict = str(result.get("verdict"))
    who = latest.get("env") or latest.get("python") or "?"
    rates = _rates_text(result.get("samples_per_s"), result.get("speedup"))
    text = f"{who}: {verdict} ({VERDICT_WORDS.get(verdict, verdict)})" + (f", {rates}" if rates else "")
    return Fact(
        "Last live test",
        f"{text}, {when_text(latest.get('recorded'))}",
        level=_verdict_level(verdict, has_gpu),
    )


def _rates_text(rates: object, speedup: object) -> str:
    if not isinstance(rates, Mapping):
        return ""
    parts = [
        f"{device.upper()} {float(rate):,.0f} samples/s" for device, rate in rates.items() if _number(rate)
    ]
    if _number(speedup):
        parts.append(f"{speedup}x the CPU")
    return ", ".join(parts)


def _number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --- findings -----------------------------------------------------------------------------------


def _items(findings: Iterable[object], where: str) -> list[FindingItem]:
    items = []
    for finding in findings:
        if isinstance(finding, Mapping):
            items.append(
                FindingItem(
                    severity=str(finding.get("severity") or "info"),
                    code=str(finding.get("code") or ""),
                    message=str(finding.get("message") or ""),
                    hint=str(finding.get("hint") or ""),
                    where=where,
                )
            )
    return items


def _sorted(items: Iterable[FindingItem]) -> list[FindingItem]:
    return sorted(items, key=lambda item: SEVERITY_ORDER.get(item.severity, 3))


def _all_findings(
    report: SystemReport,
    path: Mapping[str, Any],
    environments: Sequence[Mapping[str, Any]],
    tests: Sequence[Mapping[str, Any]],
) -> list[FindingItem]:
    items = _items(({"severity": f.severity, "code": f.code, "message": f.message, "hint": f.hint}
                    for f in report.findings), "detection")  # fmt: skip
    items += _items(path.get("findings") or [], "PATH")
    for env in environments:
        items += _items(env.get("findings") or [], f"environment {env.get('name')}")
    for test in tests:
        result = test.get("result") or {}
        items += _items(result.get("findings") or [], f"live test of {test.get('env') or test.get('python')}")
    return _sorted(items)


# --- sections -----------------------------------------------------------------------------------


def _text(value: object, missing: str = "—") -> str:
    if value is None or value == "":
        return missing
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def _code(value: object, missing: str = "—") -> Cell:
    return Cell(_text(value, missing), code=value not in (None, ""))


def _raw_json(summary: str, data: object) -> Raw:
    return Raw(summary, json.dumps(data, indent=2, ensure_ascii=False))


def _machine_section(report: SystemReport, system: Mapping[str, Any]) -> Section:
    os_facts = report.os
    family = _FAMILY_NAMES.get(os_facts.family, os_facts.family)
    os_text = (
        f"{os_facts.distribution} ({family} {os_facts.release}, {os_facts.arch})"
        if os_facts.distribution
        else f"{family} {os_facts.release} ({os_facts.arch})"
    )
    extras = [
        f"WSL {os_facts.wsl_version or ''}".strip() if os_facts.wsl else "",
        "container" if os_facts.container else "",
    ]
    os_text += "".join(f", {extra}" for extra in extras if extra)
    facts = [Fact("Operating system", os_text)]
    if report.python is not None:
        bits = f", {report.python.bits}-bit" if report.python.bits else ""
        facts.append(Fact("Python", f"{report.python.version}{bits}"))
        facts.append(Fact("Python executable", report.python.executable, code=True))
    driver = report.driver
    if driver is not None:
        facts.append(Fact("NVIDIA driver", driver.version, code=True, marks=(Mark(f"from {driver.source}"),)))
        facts.append(
            Fact(
                "Highest CUDA the driver supports",
                driver.cuda_max or "unknown",
                code=True,
                marks=(Mark("the driver's limit, not an installed toolkit"),),
            )
        )
    else:
        facts.append(Fact("NVIDIA driver", "none answered", level="error" if report.nvidia_gpus else ""))
    if report.long_paths_enabled is not None:
        facts.append(Fact("Windows long paths", "enabled" if report.long_paths_enabled else "disabled"))
    if report.wizard_version:
        facts.append(Fact("Detected by", f"gpuwizard {report.wizard_version}"))
    gpus = Table(
        "GPUs",
        ("#", "Name", "Vendor", "Compute capability", "Memory", "PCI bus", "Status"),
        tuple(
            (
                Cell(str(gpu.index)),
                Cell(display_name(gpu)),
                Cell(gpu.vendor),
                _code(gpu.compute_capability),
                Cell(_memory(gpu.memory_total_mib) or "—"),
                _code(gpu.pci_bus_id),
                Cell(gpu.status, level="ok" if gpu.status == "ok" else "error"),
            )
            for gpu in report.gpus
        ),
        empty="No GPU was found.",
    )
    toolkits = Table(
        "CUDA toolkits on disk",
        ("Version", "On PATH", "Folder", "Version from", "Found by"),
        tuple(
            (
                _code(kit.version, "?"),
                Cell(
                    ("first" if kit.path_rank == 0 else f"#{(kit.path_rank or 0) + 1}")
                    if kit.on_path
                    else "no",
                    level="ok" if kit.path_rank == 0 else "",
                ),
                _code(kit.root),
                Cell(_text(kit.version_source)),
                Cell(", ".join(kit.found_by) or "—"),
            )
            for kit in report.cuda_toolkits
        ),
        empty="No CUDA toolkit on disk (pip and conda builds of the frameworks bring their own CUDA).",
    )
    cudnn = Table(
        "cuDNN on disk",
        ("Version", "On the library path", "Folder", "Version from"),
        tuple(
            (
                _code(dnn.version, "?"),
                Cell(_text(dnn.on_path)),
                _code(dnn.location),
                Cell(_text(dnn.version_source)),
            )
            for dnn in report.cudnn
        ),
        empty="No cuDNN found outside the frameworks' own wheels.",
    )
    managers = Table(
        "Environment managers",
        ("Manager", "Executable"),
        tuple((Cell(name), _code(where)) for name, where in report.managers.found()),
        empty="None found besides Python's own venv.",
    )
    interpreters = Table(
        "Python interpreters",
        ("Version", "Bits", "Found by", "Executable"),
        tuple(
            (
                _code(python.version),
                Cell(_text(python.bits)),
                Cell(python.source + (", Microsoft Store" if python.ms_store else "")),
                _code(python.executable),
            )
            for python in report.interpreters
        ),
        empty="No other interpreter was found.",
    )
    return Section(
        "machine",
        "This machine",
        (
            Facts(tuple(facts)),
            gpus,
            toolkits,
            cudnn,
            managers,
            interpreters,
            _raw_json("The system report as detected (gpuwizard.system/1)", dict(system)),
        ),
    )


def _environments_section(environments: Sequence[Mapping[str, Any]], has_gpu: bool) -> Section:
    if not environments:
        return Section(
            "environments",
            "Environments",
            (Paragraph("The wizard has made no environment on this machine (gpuwizard env create)."),),
        )
    return Section("environments", "Environments", tuple(_environment(env, has_gpu) for env in environments))


def _exists_mark(exists: object) -> tuple[Mark, ...]:
    if exists is False:
        return (Mark("missing", "error"),)
    if exists is True:
        return (Mark("exists", "ok"),)
    return ()


def _environment(env: Mapping[str, Any], has_gpu: bool) -> Section:
    name = str(env.get("name") or "?")
    build = env.get("framework_build") or env.get("framework_version")
    facts = [
        Fact("Folder", _text(env.get("path")), code=True, marks=_exists_mark(env.get("folder_exists"))),
        Fact(
            "Interpreter",
            _text(env.get("python")),
            code=True,
            marks=_exists_mark(env.get("interpreter_exists")),
        ),
        Fact("Made with", " / ".join(str(v) for v in (env.get("manager"), env.get("tool")) if v) or "—"),
        Fact("Framework", f"{env.get('framework') or '?'} {build or ''}".strip()),
        Fact("Python", _text(env.get("python_version"))),
        Fact("Created", when_text(env.get("created"))),
        Fact("Constraints file", _text(env.get("constraints")), code=bool(env.get("constraints"))),
    ]
    if env.get("jupyter_kernel"):
        facts.append(Fact("Jupyter kernel", str(env["jupyter_kernel"]), code=True))
    variables = env.get("variables") or {}
    if isinstance(variables, Mapping) and variables:
        facts.append(
            Fact(
                "Activation variables",
                ", ".join(f"{key}={value}" for key, value in variables.items()),
                code=True,
            )
        )
    blocks: list[Block] = [Facts(tuple(facts))]
    blocks += _probe_blocks(env, has_gpu)
    packages = env.get("packages")
    if isinstance(packages, list):
        blocks.append(
            Table(
                "Packages that matter for GPU frameworks",
                ("Package", "Version"),
                tuple(
                    (Cell(str(p.get("name"))), _code(p.get("version")))
                    for p in packages
                    if isinstance(p, Mapping)
                ),
                empty="None of them is installed.",
            )
        )
    blocks += _env_tests(env, has_gpu)
    findings = _sorted(_items(env.get("findings") or [], f"environment {name}"))
    if findings:
        blocks.append(Findings(tuple(findings)))
    if isinstance(env.get("probe"), Mapping):
        blocks.append(_raw_json(f"What the interpreter of {name} reported (env_report probe)", env["probe"]))
    return Section(f"env-{name}", f"Environment {name}", tuple(blocks), level=3)


def _probe_blocks(env: Mapping[str, Any], has_gpu: bool) -> list[Block]:
    probe = env.get("probe")
    if env.get("interpreter_exists") is False:
        return []  # its finding says so
    if env.get("probed") is False:
        return [Paragraph("Its interpreter was not run (--no-probe).")]
    if not isinstance(probe, Mapping):
        error = env.get("probe_error")
        return [Paragraph(f"Its interpreter did not answer: {error}", level="error")] if error else []
    if not probe.get("ok"):
        blocks: list[Block] = [
            Paragraph(
                f"The framework does not import: {probe.get('error') or 'unknown error'}", level="error"
            )
        ]
        if probe.get("traceback"):
            blocks.append(Raw("Traceback", str(probe["traceback"])))
        return blocks
    arches = " ".join(str(arch) for arch in probe.get("arch_list") or [])
    facts = [
        Fact("Framework build", _text(probe.get("framework_version")), code=True),
        Fact(
            "Built with CUDA",
            _text(probe.get("cuda_build")) if probe.get("built_with_cuda") else "no (a CPU build)",
            code=bool(probe.get("built_with_cuda")),
        ),
        Fact("Built with cuDNN", _text(probe.get("cudnn_build")), code=bool(probe.get("cudnn_build"))),
        Fact("GPU code in the build", arches or "—", code=bool(arches)),
    ]
    gpus = [gpu for gpu in probe.get("gpus") or [] if isinstance(gpu, Mapping)]
    seen = "; ".join(
        f"{gpu.get('name')} (compute {gpu.get('compute_capability') or '?'}"
        + (", no code for it in the build" if gpu.get("arch_in_build") is False else "")
        + (", through PTX only" if gpu.get("ptx_only") else "")
        + ")"
        for gpu in gpus
    )
    hidden = has_gpu and not gpus  # the machine has one, the framework sees none
    facts.append(Fact("GPUs the framework sees", seen or "none", level="warning" if hidden else ""))
    warnings = [str(w) for w in probe.get("warnings") or []]
    blocks = [Paragraph("What its interpreter reports now:"), Facts(tuple(facts))]
    if warnings:
        blocks.append(Raw(f"{len(warnings)} warning(s) while importing", "\n".join(warnings)))
    return blocks


def _env_tests(env: Mapping[str, Any], has_gpu: bool) -> list[Block]:
    facts: list[Fact] = []
    good = env.get("last_good")
    if isinstance(good, Mapping):
        verdict = str(good.get("test_verdict") or "")
        rates = _rates_text(good.get("samples_per_s"), None)
        when = when_text(good.get("tested"))
        text = f"{verdict or 'no verdict'}" + (f", {rates}" if rates else "") + f" ({when})"
        facts.append(Fact("Last good state", text, level=_verdict_level(verdict, has_gpu) if verdict else ""))
    result = _last_test_result(env)
    if result is not None:
        verdict = str(result.get("verdict"))
        record = env.get("last_test") or {}
        rates = _rates_text(result.get("samples_per_s"), result.get("speedup"))
        text = f"{verdict}: {VERDICT_WORDS.get(verdict, verdict)}" + (f"; {rates}" if rates else "")
        when = when_text(record.get("recorded"))
        facts.append(Fact("Last live test", f"{text} ({when})", level=_verdict_level(verdict, has_gpu)))
    return [Facts(tuple(facts))] if facts else []


def when_text(value: object) -> str:
    """An ISO 8601 time as ``2026-05-01 10:00 UTC`` (as written when it is not one).

    >>> when_text("2026-05-01T10:00:07+00:00"), when_text("2026-05-01T12:00:00+02:00"), when_text(None)
    ('2026-05-01 10:00 UTC', '2026-05-01 10:00 UTC', '—')
    """
    if not value:
        return "—"
    try:
        moment = datetime.fromisoformat(str(value))
    except ValueError:
        return str(value)
    if moment.tzinfo is None:
        return moment.strftime("%Y-%m-%d %H:%M")
    return moment.astimezone(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def _tests_section(tests: Sequence[Mapping[str, Any]], has_gpu: bool) -> Section:
    rows = []
    for test in sorted(tests, key=lambda item: str(item.get("recorded") or ""), reverse=True):
        result = test.get("result") or {}
        rates = result.get("samples_per_s") or {}
        verdict = str(result.get("verdict"))
        rows.append(
            (
                Cell(str(test["env"])) if test.get("env") else _code(test.get("python")),
                Cell(when_text(test.get("recorded"))),
                Cell(
                    verdict,
                    level=_verdict_level(verdict, has_gpu),
                    marks=(Mark("short"),) if test.get("short") else (),
                ),
                _code(result.get("framework_version")),
                Cell(_text(result.get("device"))),
                Cell(_rate(rates.get("gpu"))),
                Cell(_rate(rates.get("cpu"))),
                Cell(f"{result['speedup']}x" if _number(result.get("speedup")) else "—"),
                Cell(_text(result.get("seconds"))),
            )
        )
    blocks: list[Block] = [
        Paragraph(
            "The most recent live training test of each environment (gpuwizard test, the wizard's Test page, "
            "and verify's short test), passed or not; their findings are listed at the top."
        ),
        Table(
            "Live tests, newest first",
            (
                "Environment",
                "When",
                "Verdict",
                "Build",
                "Device",
                "GPU samples/s",
                "CPU samples/s",
                "Speed-up",
                "Seconds",
            ),
            tuple(rows),
            empty="No live test was recorded.",
        ),
    ]
    return Section("tests", "Live tests", tuple(blocks))


def _rate(value: object) -> str:
    return f"{float(value):,.0f}" if _number(value) else "—"


def _last_good_section(snapshot: object) -> Section:
    if not isinstance(snapshot, Mapping):
        return Section(
            "last-good",
            "Last good state",
            (Paragraph("None recorded yet: it is recorded when a live test passes."),),
        )
    gpus = ", ".join(str(gpu.get("name")) for gpu in snapshot.get("gpus") or [] if isinstance(gpu, Mapping))
    facts = Facts(
        (
            Fact("Recorded", when_text(snapshot.get("recorded"))),
            Fact("Driver", _snapshot_driver(snapshot)),
            Fact("GPUs", gpus or "none"),
        )
    )
    envs = Table(
        "Environments in the last good state",
        ("Environment", "Build", "Verdict", "GPU samples/s", "CPU samples/s", "Tested"),
        tuple(
            (
                Cell(str(env.get("name"))),
                _code(env.get("framework_build")),
                Cell(_text(env.get("test_verdict"))),
                Cell(_rate((env.get("samples_per_s") or {}).get("gpu"))),
                Cell(_rate((env.get("samples_per_s") or {}).get("cpu"))),
                Cell(when_text(env.get("tested"))),
            )
            for env in snapshot.get("environments") or []
            if isinstance(env, Mapping)
        ),
    )
    entries = Table(
        "PATH folders the wizard added",
        ("Registry", "Scope", "Folder"),
        tuple(
            (Cell(str(e.get("registry"))), Cell(str(e.get("scope"))), _code(e.get("folder")))
            for e in snapshot.get("path_entries") or []
            if isinstance(e, Mapping)
        ),
    )
    return Section("last-good", "Last good state", (facts, envs, entries))


def _snapshot_driver(snapshot: Mapping[str, Any]) -> str:
    if not snapshot.get("driver_version"):
        return "none"
    return f"{snapshot['driver_version']}, supports CUDA up to {_text(snapshot.get('driver_cuda_max'), 'unknown')}"


def _entry_marks(problems: Iterable[object], cuda_version: object, cuda: bool = False) -> tuple[Mark, ...]:
    marks = [
        Mark(
            PATH_PROBLEM_WORDS.get(str(problem), str(problem)), "warning" if problem != "missing" else "error"
        )
        for problem in problems
    ]
    if cuda_version:
        marks.append(Mark(f"CUDA {cuda_version}"))
    elif cuda:
        marks.append(Mark("CUDA"))
    return tuple(marks)


def _path_section(path: Mapping[str, Any]) -> Section:
    blocks: list[Block] = []
    if path.get("note"):
        blocks.append(Paragraph(str(path["note"])))
    for scope in path.get("scopes") or []:
        if not isinstance(scope, Mapping):
            continue
        kind = scope.get("type") or "no value"
        title = f"{str(scope.get('scope')).capitalize()} PATH ({kind}, {scope.get('length', 0)} characters)"
        rows = tuple(
            (
                Cell(str(entry.get("index"))),
                Cell(str(entry.get("segment")) or "(empty)", code=True),
                Cell("", marks=_entry_marks(entry.get("problems") or [], entry.get("cuda_version"))),
            )
            for entry in scope.get("entries") or []
            if isinstance(entry, Mapping)
        )
        blocks.append(Table(title, ("#", "Entry", "Marks"), rows, empty="This PATH is empty."))
    journal = [entry for entry in path.get("journal") or [] if isinstance(entry, Mapping)]
    if path.get("registry"):
        reverted = {entry.get("reverts") for entry in journal if entry.get("reverts")}
        blocks.append(
            Table(
                "PATH changes the wizard made (journal), oldest first",
                ("When", "Scope", "Action", "Folders", "Type before → after", "State"),
                tuple(
                    (
                        Cell(when_text(entry.get("time"))),
                        Cell(_text(entry.get("scope"))),
                        Cell(_text(entry.get("action"))),
                        Cell(", ".join(str(f) for f in entry.get("folders") or []) or "—", code=True),
                        Cell(f"{_value_type(entry.get('old'))} → {_value_type(entry.get('new'))}"),
                        Cell("undone" if entry.get("id") in reverted else _text(entry.get("status"))),
                    )
                    for entry in journal
                ),
                empty="The wizard has not changed this PATH.",
            )
        )
    process = path.get("process") or {}
    rows = tuple(
        (
            Cell(str(entry.get("index"))),
            Cell(str(entry.get("entry")), code=True),
            Cell(
                "",
                marks=_entry_marks(
                    [
                        p
                        for p, on in (
                            ("missing", entry.get("exists") is False),
                            ("duplicate", entry.get("duplicate")),
                        )
                        if on
                    ],
                    entry.get("cuda_version"),
                    bool(entry.get("cuda")),
                ),
            ),
        )
        for entry in process.get("entries") or []
        if isinstance(entry, Mapping)
    )
    blocks.append(
        Table(
            "PATH of the wizard's own process (what programs started like it see)",
            ("#", "Entry", "Marks"),
            rows,
        )
    )
    return Section("path", "PATH", tuple(blocks))


def _value_type(value: object) -> str:
    return str(value.get("type")) if isinstance(value, Mapping) else "none"


def _variables_section(variables: Mapping[str, Any]) -> Section:
    table = Table(
        "Set in the wizard's process",
        ("Variable", "Value"),
        tuple((Cell(str(name), code=True), Cell(str(value), code=True)) for name, value in variables.items()),
        empty="None of the variables that change what GPU frameworks find is set.",
    )
    intro = Paragraph(
        "Variables that decide which GPUs a framework sees and where it finds CUDA (CUDA_*, TF_*, "
        "LD_LIBRARY_PATH, NVIDIA_*...) and which interpreter and index it uses; others are left out."
    )
    return Section("variables", "Environment variables", (intro, table))
