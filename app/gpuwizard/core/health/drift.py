"""What drifted since the last good state: the health checks and the rules that decide them.

``verify`` compares the machine as it is now with the last good state (core/snapshot.py): the
NVIDIA driver, the GPUs, each environment (interpreter, framework import, build, constraints
pin, GPUs the framework sees, a short live test) and the PATH folders the wizard added. Each
comparison is a :class:`HealthCheck` that is ``ok``, ``changed`` (different, but nothing is
broken: an upgraded driver), ``broken`` (with a finding that says what to do) or ``skipped``
(nothing to compare with).

Everything here is pure: the workflow gathers the facts (workflow/verify.py) and these
functions judge them, so every rule is tested on data (aesthetics.md section 7, principle 10).
The snapshot types are re-exported here, so callers need one import.

>>> test_passed("cpu_only", machine_has_nvidia_gpu=False), test_passed("cpu_only", machine_has_nvidia_gpu=True)
(True, False)
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from packaging.version import InvalidVersion, Version

from gpuwizard.core.compat.tables import at_least, minor_of, version_key
from gpuwizard.core.findings.model import Finding, finding_from_json, finding_to_json, make_finding
from gpuwizard.core.health.snapshot import (
    FRAMEWORK_DISTRIBUTIONS,
    FRAMEWORK_MODULES,
    SNAPSHOT_SCHEMA,
    Snapshot,
    SnapshotEnv,
    SnapshotError,
    SnapshotGpu,
    SnapshotPathEntry,
    cuda_of_build,
    framework_pin,
    parse_constraints,
    pin_allows,
    snapshot_from_json,
    snapshot_gpus,
    snapshot_to_json,
    torch_index_for,
    usable_gpus,
    with_environment,
)
from gpuwizard.core.machine.system_report import GpuFacts, SystemReport, gpu_list

HEALTH_SCHEMA: Final = "gpuwizard.health/1"

Status = Literal["ok", "changed", "broken", "skipped"]
STATUSES: Final = ("ok", "changed", "broken", "skipped")
KINDS: Final = ("driver", "gpus", "interpreter", "import", "build", "constraints", "devices", "test", "path")

__all__ = [
    "FRAMEWORK_DISTRIBUTIONS",
    "FRAMEWORK_MODULES",
    "HEALTH_SCHEMA",
    "KINDS",
    "SNAPSHOT_SCHEMA",
    "STATUSES",
    "DriverNeed",
    "EnvFixes",
    "EnvObservation",
    "HealthCheck",
    "HealthReport",
    "Snapshot",
    "SnapshotEnv",
    "SnapshotError",
    "SnapshotGpu",
    "SnapshotPathEntry",
    "Status",
    "check_to_json",
    "compare_driver",
    "compare_environment",
    "compare_gpus",
    "compare_path",
    "compare_test",
    "cuda_of_build",
    "env_fixes",
    "framework_pin",
    "health_from_json",
    "health_to_json",
    "machine_has_nvidia_gpu",
    "observe_environment",
    "parse_constraints",
    "path_add_command",
    "pin_allows",
    "snapshot_from_json",
    "snapshot_gpus",
    "snapshot_to_json",
    "test_passed",
    "torch_index_for",
    "usable_gpus",
    "with_environment",
]


# --- checks and the report ---------------------------------------------------------------------


@dataclass(frozen=True)
class HealthCheck:
    r"""One comparison of the machine now with the last good state.

    Attributes:
        check_id: Stable identifier (``driver``, ``env:demo:build``, ``path:user:C:\CUDA\bin``).
        kind: One of :data:`KINDS`.
        subject: What was checked: the environment, the GPUs or the folder ("" for the driver).
        status: ``ok``, ``changed`` (different, nothing broken), ``broken`` or ``skipped``.
        before: The recorded value, as text; None when nothing was recorded.
        after: The value now, as text; None when it could not be found out.
        finding: What changed or broke and what to do; None when ok or skipped.
        note: Why a check was skipped, or a short remark.
    """

    check_id: str
    kind: str
    subject: str
    status: Status
    before: str | None = None
    after: str | None = None
    finding: Finding | None = None
    note: str | None = None


@dataclass(frozen=True)
class HealthReport:
    """Every check of one ``verify`` run, in the order they were made."""

    checks: tuple[HealthCheck, ...]
    snapshot_recorded: str | None = None

    @property
    def healthy(self) -> bool:
        """True when no check is broken (changed is fine: an upgrade that still works)."""
        return not any(check.status == "broken" for check in self.checks)

    @property
    def drifted(self) -> tuple[HealthCheck, ...]:
        """The checks whose value moved since the last good state (changed or broken)."""
        return tuple(
            check
            for check in self.checks
            if check.status in ("changed", "broken") and check.before != check.after
        )

    @property
    def broken(self) -> tuple[HealthCheck, ...]:
        """The broken checks."""
        return tuple(check for check in self.checks if check.status == "broken")


def check_to_json(check: HealthCheck) -> dict[str, Any]:
    """One check as JSON data (also the body of a ``check`` event)."""
    return {
        "check_id": check.check_id,
        "kind": check.kind,
        "subject": check.subject,
        "status": check.status,
        "before": check.before,
        "after": check.after,
        "finding": finding_to_json(check.finding) if check.finding is not None else None,
        "note": check.note,
    }


def health_to_json(report: HealthReport) -> dict[str, Any]:
    """The report as ``gpuwizard.health/1`` JSON data."""
    counts = dict.fromkeys(STATUSES, 0)
    for check in report.checks:
        counts[check.status] += 1
    return {
        "schema": HEALTH_SCHEMA,
        "healthy": report.healthy,
        "snapshot_recorded": report.snapshot_recorded,
        "counts": counts,
        "drifted": [check.check_id for check in report.drifted],
        "checks": [check_to_json(check) for check in report.checks],
    }


def health_from_json(data: Mapping[str, Any]) -> HealthReport:
    """The report again from :func:`health_to_json` data (or a verify ``result`` event); tolerant.

    Checks of unknown status count as skipped; a finding keeps its code, texts and parameters.
    """
    checks = []
    for item in data.get("checks") or ():
        if not isinstance(item, Mapping):
            continue
        status = item.get("status")
        finding = item.get("finding")
        checks.append(
            HealthCheck(
                check_id=str(item.get("check_id") or ""),
                kind=str(item.get("kind") or ""),
                subject=str(item.get("subject") or ""),
                status=status if status in STATUSES else "skipped",
                before=_text(item.get("before")),
                after=_text(item.get("after")),
                finding=finding_from_json(finding) if isinstance(finding, Mapping) else None,
                note=_text(item.get("note")),
            )
        )
    return HealthReport(tuple(checks), _text(data.get("snapshot_recorded")))


def test_passed(verdict: str, machine_has_nvidia_gpu: bool) -> bool:
    """Whether a live test verdict counts as a pass on this machine.

    ``gpu_ok`` and ``gpu_slow`` train on the GPU (slow is a warning, not a failure);
    ``cpu_only`` passes only where there is no usable NVIDIA GPU, since the CPU is then all
    there is; ``broken`` never passes.

    >>> [test_passed(v, True) for v in ("gpu_ok", "gpu_slow", "cpu_only", "broken")]
    [True, True, False, False]
    """
    if verdict in ("gpu_ok", "gpu_slow"):
        return True
    return verdict == "cpu_only" and not machine_has_nvidia_gpu


# Not a test, whatever its name: pytest must not collect it where a test module imports it.
test_passed.__test__ = False  # type: ignore[attr-defined]


def machine_has_nvidia_gpu(report: SystemReport) -> bool:
    """Whether the machine has an NVIDIA GPU that a driver serves (one the live test could use)."""
    return report.driver is not None and bool(usable_gpus(report))


# --- driver and GPUs ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DriverNeed:
    """What one environment's build asks of the driver.

    Attributes:
        env: The environment's name.
        cuda_build: The CUDA its framework build was made with (``12.6``).
        min_driver: The lowest driver that runs it (NVIDIA's minor-version compatibility
            table, core/compat.py ``min_driver``); None when the tables do not know that CUDA.
    """

    env: str
    cuda_build: str
    min_driver: str | None = None


def compare_driver(
    snapshot: Snapshot | None, report: SystemReport, needs: Sequence[DriverNeed] = ()
) -> HealthCheck:
    """The driver now against the recorded one, and against what each environment's build needs."""
    now = report.driver
    # Versions only: the highest CUDA follows from the version, and UIs show "before -> after".
    after = now.version if now else None
    if snapshot is None:
        return HealthCheck("driver", "driver", "", "skipped", None, after, note="no last good state yet")
    before = snapshot.driver_version
    if now is None:
        if snapshot.driver_version is None:
            return HealthCheck("driver", "driver", "", "ok", None, None, note="no NVIDIA driver, then or now")
        # The GPUs were trained on at the last good state; without a driver nothing can use them.
        finding = make_finding("DRIFT_DRIVER_GONE", before=before)
        return HealthCheck("driver", "driver", "", "broken", before, None, finding)
    too_old = [need for need in needs if _driver_too_old(now.version, now.cuda_max, need)]
    if too_old:
        # A build needs at least its CUDA's minimum driver (minor-version compatibility, CUDA
        # Compatibility guide section 2); below it the framework sees no GPU (DRIVER_TOO_OLD).
        floors = [need.min_driver for need in too_old if need.min_driver]
        finding = make_finding(
            "DRIFT_DRIVER_TOO_OLD_FOR_BUILD",
            driver=now.version,
            builds=", ".join(f"{need.env} (CUDA {need.cuda_build})" for need in too_old),
            min_driver=max(floors, key=_version_or_zero)
            if floors
            else f"one for CUDA {too_old[0].cuda_build}",
        )
        return HealthCheck("driver", "driver", "", "broken", before, after, finding)
    if snapshot.driver_version != now.version:
        # A newer driver runs every build an older one ran (NVIDIA drivers are backward
        # compatible with applications built for older CUDA): a change, not a breakage.
        finding = make_finding("DRIFT_DRIVER_CHANGED", before=before or "none", after=after)
        return HealthCheck("driver", "driver", "", "changed", before, after, finding)
    return HealthCheck("driver", "driver", "", "ok", before, after)


def _driver_too_old(driver: str, cuda_max: str | None, need: DriverNeed) -> bool:
    try:
        if need.min_driver:
            return not at_least(driver, need.min_driver)
        # No table row: the driver's own highest CUDA is the best we know.
        return cuda_max is not None and version_key(minor_of(cuda_max)) < version_key(
            minor_of(need.cuda_build)
        )
    except InvalidVersion:
        return False


def _version_or_zero(text: str) -> Version:
    try:
        return version_key(text)
    except InvalidVersion:
        return version_key("0")


def compare_gpus(snapshot: Snapshot | None, report: SystemReport) -> HealthCheck:
    """The NVIDIA GPUs now against the recorded ones."""
    # A GPU without a driver is still there (the driver check says what is wrong); one that
    # fell off the bus ("lost", Xid 79) is not.
    present = tuple(
        SnapshotGpu(gpu.index, gpu.name, gpu.compute_capability, gpu.memory_total_mib)
        for gpu in report.nvidia_gpus
        if gpu.status != "lost"
    )
    after = _gpus_text(present)
    if snapshot is None:
        return HealthCheck("gpus", "gpus", after, "skipped", None, after, note="no last good state yet")
    before = _gpus_text(snapshot.gpus)
    if len(present) < len(snapshot.gpus):
        finding = make_finding("DRIFT_GPU_MISSING", before=before, after=after)
        return HealthCheck("gpus", "gpus", after, "broken", before, after, finding)
    if report.driver is None:
        # Without a driver, names come from the PCI database and capabilities are unknown.
        return HealthCheck("gpus", "gpus", after, "skipped", before, after, note="no NVIDIA driver answers")
    if _gpu_keys(present) != _gpu_keys(snapshot.gpus):
        finding = make_finding("DRIFT_GPU_CHANGED", before=before, after=after)
        return HealthCheck("gpus", "gpus", after, "changed", before, after, finding)
    return HealthCheck("gpus", "gpus", after, "ok", before, after)


def _gpus_text(gpus: Sequence[SnapshotGpu]) -> str:
    if not gpus:
        return "none"
    return gpu_list([GpuFacts(gpu.index, "nvidia", gpu.name) for gpu in gpus])


def _gpu_keys(gpus: Sequence[SnapshotGpu]) -> list[tuple[str, str]]:
    # Memory is left out: drivers round it differently; name and architecture decide what runs.
    return sorted((gpu.name or "", gpu.compute_capability or "") for gpu in gpus)


# --- environments ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class EnvObservation:
    """What the workflow found in one environment just now (env probe + constraints file).

    Attributes:
        name: The environment's name.
        framework: ``pytorch`` or ``tensorflow``.
        python: Its interpreter.
        interpreter_error: Why the interpreter did not run the probe; None when it ran.
        import_error: Why the framework did not import (or report); None when it did.
        framework_missing: The framework is not installed at all (its module is not found).
        framework_build: The build the framework reports (``torch.__version__``: ``2.13.0+cpu``).
        built_with_cuda: Whether that build carries CUDA.
        cuda_build: The CUDA the build was made with.
        gpus_visible: How many GPUs the framework sees.
        python_version: The interpreter's version.
        constraints_path: The constraints file looked at.
        constraints_pins: Its pins; None when the file is missing or unreadable.
    """

    name: str
    framework: str
    python: str
    interpreter_error: str | None = None
    import_error: str | None = None
    framework_missing: bool = False
    framework_build: str | None = None
    built_with_cuda: bool | None = None
    cuda_build: str | None = None
    gpus_visible: int | None = None
    python_version: str | None = None
    constraints_path: str | None = None
    constraints_pins: tuple[str, ...] | None = None


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def observe_environment(
    name: str,
    framework: str,
    python: str,
    *,
    probe: Mapping[str, Any] | None,
    probe_failure: str | None = None,
    constraints_path: str | None = None,
    constraints_text: str | None = None,
) -> EnvObservation:
    """Facts from the env probe's JSON object (``probes/env_report.py``) and the constraints file.

    ``probe_failure`` says why the probe gave no object (the interpreter is missing, died or
    hung); ``constraints_text`` is None when the file is missing.
    """
    pins = parse_constraints(constraints_text) if constraints_text is not None else None
    common: dict[str, Any] = {
        "name": name,
        "framework": framework,
        "python": python,
        "constraints_path": constraints_path,
        "constraints_pins": pins,
    }
    if probe is None:
        return EnvObservation(**common, interpreter_error=probe_failure or "no answer from the interpreter")
    common["python_version"] = _text(probe.get("python"))
    if not probe.get("ok"):
        error = str(probe.get("error") or "unknown error").splitlines()[0][:300]
        module = FRAMEWORK_MODULES.get(framework, framework)
        missing = probe.get("phase") == "import" and f"No module named '{module}'" in error
        return EnvObservation(**common, import_error=error, framework_missing=missing)
    gpus = probe.get("gpus")
    built = probe.get("built_with_cuda")
    return EnvObservation(
        **common,
        framework_build=_text(probe.get("framework_version")),
        built_with_cuda=built if isinstance(built, bool) else None,
        cuda_build=_text(probe.get("cuda_build")),
        gpus_visible=len(gpus) if isinstance(gpus, list) else None,
    )


@dataclass(frozen=True)
class EnvFixes:
    """The commands a finding about an environment offers.

    Attributes:
        recreate: ``gpuwizard env create ... --replace``, which makes it anew.
        reinstall: Reinstalls the recorded build into it with its own pip.
    """

    recreate: str
    reinstall: str


def env_fixes(env: SnapshotEnv, *, windows: bool, prefix: str | None = None) -> EnvFixes:
    """The fix commands for ``env``; ``prefix`` when it is not in the default folder.

    >>> env = SnapshotEnv("demo", "/e/demo", "/e/demo/bin/python", "venv", "pytorch", "2.13.0",
    ...                   framework_build="2.13.0+cu126", index_url="https://download.pytorch.org/whl/cu126")
    >>> fixes = env_fixes(env, windows=False)
    >>> fixes.recreate
    'gpuwizard env create demo --framework pytorch --version 2.13.0 --replace'
    >>> fixes.reinstall
    '/e/demo/bin/python -m pip install torch==2.13.0+cu126 --index-url https://download.pytorch.org/whl/cu126'
    """
    quote = _windows_quoted if windows else shlex.quote
    parts = ["gpuwizard", "env", "create", quote(env.name), "--framework", env.framework or "pytorch"]
    if env.framework_version:
        parts += ["--version", env.framework_version]
    if env.manager == "conda":
        parts += ["--manager", "conda"]
    if prefix:
        parts += ["--prefix", quote(prefix)]
    parts.append("--replace")
    pin = framework_pin(env.framework, env.pins) or _default_pin(env)
    reinstall = [quote(env.python), "-m", "pip", "install", quote(pin)]
    if env.index_url:
        reinstall += ["--index-url", env.index_url]
    return EnvFixes(recreate=" ".join(parts), reinstall=" ".join(reinstall))


def _default_pin(env: SnapshotEnv) -> str:
    distribution = FRAMEWORK_DISTRIBUTIONS.get(env.framework, (env.framework,))[0]
    return f"{distribution}=={env.framework_build or env.framework_version}"


def _windows_quoted(text: str) -> str:
    return f'"{text}"' if any(char in text for char in " &()^;,") else text


def compare_environment(
    baseline: SnapshotEnv, observed: EnvObservation, *, fixes: EnvFixes
) -> tuple[HealthCheck, ...]:
    """The interpreter, import, build, constraints and devices checks of one environment.

    ``baseline`` is the environment at the last good state, or, without one, as the
    registry recorded it when it was made (then pins, GPUs and verdict are unknown).
    """
    name = observed.name
    checks = [_interpreter_check(baseline, observed, fixes)]
    if observed.interpreter_error is not None:
        why = "the interpreter does not run"
        return (
            *checks,
            *(_skipped(name, kind, why) for kind in ("import", "build", "constraints", "devices")),
        )
    checks.append(_import_check(observed, fixes))
    imported = observed.import_error is None
    checks.append(
        _build_check(baseline, observed, fixes) if imported else _skipped(name, "build", "no import")
    )
    checks.append(_constraints_check(baseline, observed, fixes))
    checks.append(_devices_check(baseline, observed) if imported else _skipped(name, "devices", "no import"))
    return tuple(checks)


def _check_id(env: str, kind: str) -> str:
    return f"env:{env}:{kind}"


def _skipped(env: str, kind: str, why: str) -> HealthCheck:
    return HealthCheck(_check_id(env, kind), kind, env, "skipped", note=why)


def _interpreter_check(baseline: SnapshotEnv, observed: EnvObservation, fixes: EnvFixes) -> HealthCheck:
    name = observed.name
    before = f"Python {baseline.python_version}" if baseline.python_version else "runs"
    if observed.interpreter_error is not None:
        finding = make_finding(
            "DRIFT_ENV_INTERPRETER_BROKEN",
            env=name,
            python=observed.python,
            error=observed.interpreter_error,
            recreate=fixes.recreate,
        )
        return HealthCheck(
            _check_id(name, "interpreter"), "interpreter", name, "broken", before, "does not run", finding
        )
    after = f"Python {observed.python_version}" if observed.python_version else "runs"
    if (
        baseline.python_version
        and observed.python_version
        and baseline.python_version != observed.python_version
    ):
        # A patch release of the base interpreter (3.11.7 -> 3.11.9) keeps the environment
        # working; a new minor release would have failed the import below.
        finding = make_finding("DRIFT_PYTHON_CHANGED", env=name, before=before, after=after)
        return HealthCheck(
            _check_id(name, "interpreter"), "interpreter", name, "changed", before, after, finding
        )
    return HealthCheck(_check_id(name, "interpreter"), "interpreter", name, "ok", before, after)


def _import_check(observed: EnvObservation, fixes: EnvFixes) -> HealthCheck:
    name = observed.name
    module = FRAMEWORK_MODULES.get(observed.framework, observed.framework)
    check_id = _check_id(name, "import")
    if observed.framework_missing:
        finding = make_finding(
            "DRIFT_FRAMEWORK_MISSING",
            env=name,
            framework=module,
            reinstall=fixes.reinstall,
            recreate=fixes.recreate,
        )
        return HealthCheck(check_id, "import", name, "broken", f"import {module}", "not installed", finding)
    if observed.import_error is not None:
        finding = make_finding(
            "DRIFT_FRAMEWORK_BROKEN",
            env=name,
            framework=module,
            error=observed.import_error,
            reinstall=fixes.reinstall,
            recreate=fixes.recreate,
        )
        return HealthCheck(check_id, "import", name, "broken", f"import {module}", "fails", finding)
    return HealthCheck(check_id, "import", name, "ok", f"import {module}", f"import {module}")


def _build_text(build: str | None, built_with_cuda: bool | None, cuda: str | None) -> str | None:
    if not build:
        return None
    if built_with_cuda:
        return f"{build} (CUDA {cuda})" if cuda else f"{build} (CUDA)"
    if built_with_cuda is False:
        return f"{build} (CPU)"
    return build


def _with_cuda(
    build: str | None, built_with_cuda: bool | None, cuda: str | None
) -> tuple[bool | None, str | None]:
    label_cuda, label_version = cuda_of_build(build)
    return (
        built_with_cuda if built_with_cuda is not None else label_cuda,
        cuda or label_version,
    )


def _build_check(baseline: SnapshotEnv, observed: EnvObservation, fixes: EnvFixes) -> HealthCheck:
    name = observed.name
    check_id = _check_id(name, "build")
    cuda_before, cuda_version_before = _with_cuda(
        baseline.framework_build, baseline.built_with_cuda, baseline.cuda_build
    )
    cuda_after, cuda_version_after = _with_cuda(
        observed.framework_build, observed.built_with_cuda, observed.cuda_build
    )
    before = _build_text(baseline.framework_build, cuda_before, cuda_version_before)
    after = _build_text(observed.framework_build, cuda_after, cuda_version_after)
    module = FRAMEWORK_MODULES.get(observed.framework, observed.framework)

    def broken(code: str) -> HealthCheck:
        finding = make_finding(
            code,
            env=name,
            framework=module,
            before=before,
            after=after,
            reinstall=fixes.reinstall,
            recreate=fixes.recreate,
        )
        return HealthCheck(check_id, "build", name, "broken", before, after, finding)

    if cuda_before is True and cuda_after is False:
        # The classic swap: `pip install` of a package that depends on torch, from the default
        # index, replaces the CUDA wheel with PyPI's CPU one (Windows) (peers.md, top pains).
        return broken("DRIFT_CPU_BUILD_SWAPPED")
    flipped = cuda_before is not None and cuda_after is not None and cuda_before != cuda_after
    if (
        baseline.framework_build
        and observed.framework_build
        and (baseline.framework_build != observed.framework_build or flipped)
    ):
        pin = framework_pin(observed.framework, observed.constraints_pins or ())
        if pin is not None and pin_allows(pin, observed.framework_build):
            # Changed, but to what the environment's own pin asks for: someone re-pinned it.
            finding = make_finding(
                "DRIFT_BUILD_UPDATED", env=name, framework=module, before=before, after=after
            )
            return HealthCheck(check_id, "build", name, "changed", before, after, finding)
        return broken("DRIFT_BUILD_CHANGED")
    return HealthCheck(check_id, "build", name, "ok", before, after)


def _constraints_check(baseline: SnapshotEnv, observed: EnvObservation, fixes: EnvFixes) -> HealthCheck:
    name = observed.name
    check_id = _check_id(name, "constraints")
    path = observed.constraints_path or baseline.constraints
    if path is None:
        return HealthCheck(check_id, "constraints", name, "skipped", note="no constraints file was recorded")
    recorded_pin = framework_pin(baseline.framework, baseline.pins) or (
        _default_pin(baseline) if baseline.framework_build else None
    )
    if observed.constraints_pins is None:
        # pip reads the file through the environment's pip.conf; while it is missing, every
        # `pip install` there fails ("Could not open requirements file"), and nothing holds the build.
        finding = make_finding(
            "DRIFT_CONSTRAINTS_MISSING", env=name, path=path, pin=recorded_pin or "?", recreate=fixes.recreate
        )
        return HealthCheck(check_id, "constraints", name, "broken", recorded_pin, "missing", finding)
    pin = framework_pin(observed.framework, observed.constraints_pins)
    if pin is None:
        finding = make_finding(
            "DRIFT_CONSTRAINTS_MISSING",
            variant="pin",
            env=name,
            path=path,
            pin=recorded_pin or "?",
            recreate=fixes.recreate,
        )
        return HealthCheck(check_id, "constraints", name, "broken", recorded_pin, "no pin", finding)
    installed = observed.framework_build
    if installed is not None and not pin_allows(pin, installed):
        finding = make_finding(
            "DRIFT_CONSTRAINTS_MISMATCH",
            env=name,
            path=path,
            pin=pin,
            installed=installed,
            reinstall=fixes.reinstall,
            wanted=f"{pin.split('==')[0].strip()}=={installed}",
        )
        after = f"{pin} (installed: {installed})"
        return HealthCheck(check_id, "constraints", name, "broken", recorded_pin, after, finding)
    if baseline.pins and pin not in baseline.pins:
        finding = make_finding(
            "DRIFT_CONSTRAINTS_CHANGED", env=name, path=path, before=recorded_pin or "?", after=pin
        )
        return HealthCheck(check_id, "constraints", name, "changed", recorded_pin, pin, finding)
    return HealthCheck(check_id, "constraints", name, "ok", recorded_pin or pin, pin)


def _devices_check(baseline: SnapshotEnv, observed: EnvObservation) -> HealthCheck:
    name = observed.name
    check_id = _check_id(name, "devices")
    after = None if observed.gpus_visible is None else _gpu_count(observed.gpus_visible)
    before = None if baseline.gpus_visible is None else _gpu_count(baseline.gpus_visible)
    if observed.gpus_visible is None:
        return HealthCheck(check_id, "devices", name, "skipped", before, None, note="the probe did not say")
    if baseline.gpus_visible is not None and observed.gpus_visible < baseline.gpus_visible:
        finding = make_finding(
            "DRIFT_DEVICES_LOST",
            env=name,
            framework=FRAMEWORK_MODULES.get(observed.framework, observed.framework),
            before=before,
            after=after,
        )
        return HealthCheck(check_id, "devices", name, "broken", before, after, finding)
    return HealthCheck(check_id, "devices", name, "ok", before, after)


def _gpu_count(count: int) -> str:
    return f"{count} GPU" if count == 1 else f"{count} GPUs"


def compare_test(
    env: str,
    recorded_verdict: str | None,
    result: Mapping[str, Any] | None,
    *,
    machine_has_nvidia_gpu: bool,
) -> HealthCheck:
    """The short live test's verdict now (its ``result`` event) against the recorded one."""
    check_id = _check_id(env, "test")
    if result is None:
        return HealthCheck(check_id, "test", env, "skipped", recorded_verdict, None, note="not run")
    now = str(result.get("verdict"))
    reason = next(
        (str(item.get("message")) for item in result.get("findings") or () if isinstance(item, Mapping)),
        "the test gave no reason",
    )
    gpu_before = recorded_verdict in ("gpu_ok", "gpu_slow")
    if not test_passed(now, machine_has_nvidia_gpu) or (gpu_before and now == "cpu_only"):
        # Trained on the GPU then, not now (or not at all): the setup no longer does its job.
        variant = None if recorded_verdict else "unrecorded"
        finding = make_finding(
            "DRIFT_TEST_WORSE",
            variant=variant,
            env=env,
            before=recorded_verdict or "none",
            after=now,
            reason=reason,
        )
        return HealthCheck(check_id, "test", env, "broken", recorded_verdict, now, finding)
    if recorded_verdict == "gpu_ok" and now == "gpu_slow":
        finding = make_finding("DRIFT_TEST_SLOWER", env=env, before=recorded_verdict, after=now)
        return HealthCheck(check_id, "test", env, "changed", recorded_verdict, now, finding)
    return HealthCheck(check_id, "test", env, "ok", recorded_verdict, now)


# --- PATH ------------------------------------------------------------------------------------------


def compare_path(entry: SnapshotPathEntry, *, present: bool, removed_by_wizard: bool = False) -> HealthCheck:
    """A PATH folder the wizard added: still on that scope's PATH?

    ``removed_by_wizard``: the PATH journal shows a later ``gpuwizard path remove`` (or undo)
    of it, so its absence is the user's own choice, a change rather than a breakage.
    """
    check_id = f"path:{entry.scope}:{entry.folder}"
    if present:
        return HealthCheck(check_id, "path", entry.folder, "ok", "on PATH", "on PATH")
    command = path_add_command(entry)
    if removed_by_wizard:
        finding = make_finding(
            "DRIFT_PATH_ENTRY_DROPPED", folder=entry.folder, scope=entry.scope, command=command
        )
        return HealthCheck(check_id, "path", entry.folder, "changed", "on PATH", "not on PATH", finding)
    finding = make_finding(
        "DRIFT_PATH_ENTRY_REMOVED", folder=entry.folder, scope=entry.scope, command=command
    )
    return HealthCheck(check_id, "path", entry.folder, "broken", "on PATH", "not on PATH", finding)


def path_add_command(entry: SnapshotPathEntry) -> str:
    r"""The command that puts ``entry`` back.

    >>> path_add_command(SnapshotPathEntry("live", "user", "C:\\Program Files\\CUDA\\bin"))
    'gpuwizard path add "C:\\Program Files\\CUDA\\bin" --scope user'
    """
    parts = ["gpuwizard", "path", "add", _double_quoted(entry.folder), "--scope", entry.scope]
    if entry.registry.startswith("file:"):
        parts += ["--registry", _double_quoted(entry.registry.removeprefix("file:"))]
    return " ".join(parts)


def _double_quoted(text: str) -> str:
    # Double quotes work in cmd, PowerShell and POSIX shells alike for paths without quotes.
    return f'"{text}"' if re.search(r"\s", text) else text
