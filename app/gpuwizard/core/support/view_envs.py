"""The environments, live tests and last good state sections of the support view (pure).

One subsection per environment the wizard made (its folder, interpreter, what the interpreter
reports now, its packages, its last good state and last live test, its findings), the most
recent live tests, and the last good state. The live test's verdicts in words and the level
each one reads at live here too, as the summary at a glance (core/support/view.py) shows them
the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from gpuwizard.core.livetest.verdicts import level, phrase
from gpuwizard.core.support.blocks import (
    Block,
    Cell,
    Fact,
    Facts,
    Findings,
    Mark,
    Paragraph,
    Raw,
    Section,
    Table,
    by_severity,
    code_cell,
    finding_items,
    raw_json,
    value_text,
    when_text,
)

# --- verdicts and rates -------------------------------------------------------------------------


def last_test_result(env: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The ``result`` of an environment's last live test, or None when there is none (or it is no object)."""
    record = env.get("last_test")
    result = record.get("result") if isinstance(record, Mapping) else None
    return result if isinstance(result, Mapping) else None


def rates_text(rates: object, speedup: object) -> str:
    """Samples per second by device, and the speed-up, as one phrase ("" when there are no rates).

    >>> rates_text({"gpu": 12345.6, "cpu": 900, "tpu": None}, 13.7), rates_text(None, 2.0)
    ('GPU 12,346 samples/s, CPU 900 samples/s, 13.7x the CPU', '')
    """
    if not isinstance(rates, Mapping):
        return ""
    parts = [
        f"{device.upper()} {float(rate):,.0f} samples/s" for device, rate in rates.items() if _is_number(rate)
    ]
    if _is_number(speedup):
        parts.append(f"{speedup}x the CPU")
    return ", ".join(parts)


def _is_number(value: object) -> TypeGuard[float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# --- environments -------------------------------------------------------------------------------


def environments_section(environments: Sequence[Mapping[str, Any]], has_gpu: bool) -> Section:
    """The environments the wizard made, one subsection each (a sentence when there is none)."""
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
        Fact("Folder", value_text(env.get("path")), code=True, marks=_exists_mark(env.get("folder_exists"))),
        Fact(
            "Interpreter",
            value_text(env.get("python")),
            code=True,
            marks=_exists_mark(env.get("interpreter_exists")),
        ),
        Fact("Made with", " / ".join(str(v) for v in (env.get("manager"), env.get("tool")) if v) or "—"),
        Fact("Framework", f"{env.get('framework') or '?'} {build or ''}".strip()),
        Fact("Python", value_text(env.get("python_version"))),
        Fact("Created", when_text(env.get("created"))),
        Fact("Constraints file", value_text(env.get("constraints")), code=bool(env.get("constraints"))),
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
                    (Cell(str(p.get("name"))), code_cell(p.get("version")))
                    for p in packages
                    if isinstance(p, Mapping)
                ),
                empty="None of them is installed.",
            )
        )
    blocks += _env_tests(env, has_gpu)
    findings = by_severity(finding_items(env.get("findings") or [], f"environment {name}"))
    if findings:
        blocks.append(Findings(tuple(findings)))
    if isinstance(env.get("probe"), Mapping):
        blocks.append(raw_json(f"What the interpreter of {name} reported (env_report probe)", env["probe"]))
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
        Fact("Framework build", value_text(probe.get("framework_version")), code=True),
        Fact(
            "Built with CUDA",
            value_text(probe.get("cuda_build")) if probe.get("built_with_cuda") else "no (a CPU build)",
            code=bool(probe.get("built_with_cuda")),
        ),
        Fact("Built with cuDNN", value_text(probe.get("cudnn_build")), code=bool(probe.get("cudnn_build"))),
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
        said = f"{len(warnings)} warning{'' if len(warnings) == 1 else 's'} while importing"
        blocks.append(Raw(said, "\n".join(warnings)))
    return blocks


def _env_tests(env: Mapping[str, Any], has_gpu: bool) -> list[Block]:
    facts: list[Fact] = []
    good = env.get("last_good")
    if isinstance(good, Mapping):
        verdict = str(good.get("test_verdict") or "")
        rates = rates_text(good.get("samples_per_s"), None)
        when = when_text(good.get("tested"))
        text = f"{verdict or 'no verdict'}" + (f", {rates}" if rates else "") + f" ({when})"
        facts.append(Fact("Last good state", text, level=level(verdict, has_gpu) if verdict else ""))
    result = last_test_result(env)
    if result is not None:
        verdict = str(result.get("verdict"))
        record = env.get("last_test") or {}
        rates = rates_text(result.get("samples_per_s"), result.get("speedup"))
        text = f"{verdict}: {phrase(verdict)}" + (f"; {rates}" if rates else "")
        when = when_text(record.get("recorded"))
        facts.append(Fact("Last live test", f"{text} ({when})", level=level(verdict, has_gpu)))
    return [Facts(tuple(facts))] if facts else []


# --- live tests and the last good state ---------------------------------------------------------


def tests_section(tests: Sequence[Mapping[str, Any]], has_gpu: bool) -> Section:
    """The most recent live tests, newest first, with their verdicts, rates and speed-ups."""
    rows = []
    for test in sorted(tests, key=lambda item: str(item.get("recorded") or ""), reverse=True):
        result = test.get("result") or {}
        rates = result.get("samples_per_s") or {}
        verdict = str(result.get("verdict"))
        rows.append(
            (
                Cell(str(test["env"])) if test.get("env") else code_cell(test.get("python")),
                Cell(when_text(test.get("recorded"))),
                Cell(
                    verdict,
                    level=level(verdict, has_gpu),
                    marks=(Mark("short"),) if test.get("short") else (),
                ),
                code_cell(result.get("framework_version")),
                Cell(value_text(result.get("device"))),
                Cell(_rate(rates.get("gpu"))),
                Cell(_rate(rates.get("cpu"))),
                Cell(f"{result['speedup']}x" if _is_number(result.get("speedup")) else "—"),
                Cell(value_text(result.get("seconds"))),
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
    return f"{float(value):,.0f}" if _is_number(value) else "—"


def last_good_section(snapshot: object) -> Section:
    """The last good state (``gpuwizard.snapshot/1``): its driver, GPUs, environments and PATH folders."""
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
                code_cell(env.get("framework_build")),
                Cell(value_text(env.get("test_verdict"))),
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
            (Cell(str(e.get("registry"))), Cell(str(e.get("scope"))), code_cell(e.get("folder")))
            for e in snapshot.get("path_entries") or []
            if isinstance(e, Mapping)
        ),
    )
    return Section("last-good", "Last good state", (facts, envs, entries))


def _snapshot_driver(snapshot: Mapping[str, Any]) -> str:
    if not snapshot.get("driver_version"):
        return "none"
    cuda = value_text(snapshot.get("driver_cuda_max"), "unknown")
    return f"{snapshot['driver_version']}, supports CUDA up to {cuda}"
