"""Drift of one environment: what it is now against the last good state, and the fixes offered.

The workflow observes each environment (its env probe's answer and its constraints file:
:func:`observe_environment`), and :func:`compare_environment` judges the interpreter, the
framework import, its build, the constraints pin and the GPUs the framework sees;
:func:`compare_test` judges the short live test. A broken check's finding offers the commands
of :func:`env_fixes`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final

from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.frameworks import FRAMEWORKS, framework_module
from gpuwizard.core.health.checks import HealthCheck, text_or_none
from gpuwizard.core.health.install_commands import OWN_PIP, EnvSource, install_command
from gpuwizard.core.health.snapshot import (
    SnapshotEnv,
    cuda_of_build,
    framework_pin,
    parse_constraints,
    pin_allows,
)
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.livetest.libraries import CudaWheel, DllHook, dll_hook_from_json, wheels_from_json
from gpuwizard.core.livetest.verdicts import on_gpu, passed
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand, shell_argument

#: The translation context of the values in words a check reports ("2 GPUs (…)"): the Verify
#: page shows them in the interface's language; ``--json`` keeps the English.
_VALUES: Final = "verify_values"


@dataclass(frozen=True)
class UnreadPin:
    """A tool of an environment that does not read its constraints file (the pin does not hold).

    Attributes:
        tool: ``pip`` or ``uv``.
        source: The file that should name it: the pip config file, the activation script that
            sets ``UV_CONSTRAINT``.
        why: What is wrong with it, a phrase after its name (``names /home/Ana, which does not
            exist: ...``).
        reference: What to write there instead (``'constraint = file:///...' under [install]``).
    """

    tool: str
    source: str
    why: str
    reference: str


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
        gpu_names: Their names, as the framework reports them.
        python_version: The interpreter's version.
        constraints_path: The constraints file looked at.
        constraints_pins: Its pins; None when the file is missing or unreadable.
        cuda_wheels: The ``nvidia-*`` wheels installed; None when the probe could not say.
        dll_hook: What the DLL start-up hook did in the probe; None when it has none (or unknown:
            then ``cuda_wheels`` is None too).
        constraints_unread: The tools that do not read the constraints file (pip's config or
            ``UV_CONSTRAINT`` names another file, or none); empty when both read it.
        probe_facts: The env probe's answer as far as this observation was made from it
            (:func:`probe_facts`); None when the probe gave none. The last good state keeps it,
            so ``verify --no-test`` can observe an environment that provably did not change
            without importing its framework again.
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
    gpu_names: tuple[str, ...] = ()
    python_version: str | None = None
    constraints_path: str | None = None
    constraints_pins: tuple[str, ...] | None = None
    cuda_wheels: tuple[CudaWheel, ...] | None = None
    dll_hook: DllHook | None = None
    constraints_unread: tuple[UnreadPin, ...] = ()
    # Carried for the record, not an observed fact: two observations of the same facts are equal.
    probe_facts: Mapping[str, Any] | None = field(default=None, compare=False)


#: The keys of the env probe's answer (``probes/env_report.py``) that :func:`observe_environment`
#: reads: what a recorded answer must keep to be observed again as the probe's own. A key read
#: there and missing here would make a reused answer differ from a fresh one
#: (tests/core/health/test_probe_reuse.py checks the two agree on real answers).
PROBE_FACTS: Final = (
    "probe", "python", "framework", "ok", "phase", "error", "framework_version", "built_with_cuda",
    "cuda_build", "gpus", "cuda_wheels", "dll_hook",
)  # fmt: skip


def probe_facts(probe: Mapping[str, Any]) -> dict[str, Any]:
    """The part of an env probe's answer that verify judges (:data:`PROBE_FACTS`), to record it.

    What else it says (the libraries loaded and their files, warnings, the architectures) is left
    out: the last good state stays small and holds no more paths than it needs.

    >>> probe_facts({"probe": "env_report", "ok": True, "cuda_libraries": [{"name": "cudart"}]})
    {'probe': 'env_report', 'ok': True}
    """
    return {key: probe[key] for key in PROBE_FACTS if key in probe}


def observe_environment(
    name: str,
    framework: str,
    python: str,
    *,
    probe: Mapping[str, Any] | None,
    probe_failure: str | None = None,
    constraints_path: str | None = None,
    constraints_text: str | None = None,
    constraints_unread: Sequence[UnreadPin] = (),
) -> EnvObservation:
    """Facts from the env probe's JSON object (``probes/env_report.py``) and the constraints file.

    ``probe_failure`` says why the probe gave no object (the interpreter is missing, died or
    hung); ``constraints_text`` is None when the file is missing; ``constraints_unread`` names
    the tools not pointed at it.
    """
    pins = parse_constraints(constraints_text) if constraints_text is not None else None
    common: dict[str, Any] = {
        "name": name,
        "framework": framework,
        "python": python,
        "constraints_path": constraints_path,
        "constraints_pins": pins,
        "constraints_unread": tuple(constraints_unread),
    }
    if probe is None:
        return EnvObservation(**common, interpreter_error=probe_failure or "no answer from the interpreter")
    common["probe_facts"] = probe_facts(probe)
    common["python_version"] = text_or_none(probe.get("python"))
    # Read before the import is judged: the probe lists the wheels even when the import fails.
    common["cuda_wheels"] = wheels_from_json(probe.get("cuda_wheels"))
    common["dll_hook"] = dll_hook_from_json(probe.get("dll_hook"))
    if not probe.get("ok"):
        error = str(probe.get("error") or "unknown error").splitlines()[0][:300]
        module = framework_module(framework)
        missing = probe.get("phase") == "import" and f"No module named '{module}'" in error
        return EnvObservation(**common, import_error=error, framework_missing=missing)
    gpus = probe.get("gpus")
    built = probe.get("built_with_cuda")
    return EnvObservation(
        **common,
        framework_build=text_or_none(probe.get("framework_version")),
        built_with_cuda=built if isinstance(built, bool) else None,
        cuda_build=text_or_none(probe.get("cuda_build")),
        gpus_visible=len(gpus) if isinstance(gpus, list) else None,
        gpu_names=tuple(
            str(gpu["name"])
            for gpu in (gpus if isinstance(gpus, list) else [])
            if isinstance(gpu, Mapping) and gpu.get("name")
        ),
    )


@dataclass(frozen=True)
class EnvFixes:
    """The commands a finding about an environment offers.

    Attributes:
        recreate: ``gpuwizard env create ... --replace``, which makes it anew.
        reinstall: Reinstalls the recorded build into it, with uv or its own pip (:class:`EnvSource`).
        verify: ``gpuwizard verify``, to check again after a fix.
    """

    recreate: str
    reinstall: str
    verify: str = BY_NAME.line("verify")


def env_fixes(
    env: SnapshotEnv,
    *,
    windows: bool,
    prefix: str | None = None,
    wizard: WizardCommand = BY_NAME,
    source: EnvSource = OWN_PIP,
) -> EnvFixes:
    """The fix commands for ``env``; ``prefix`` when it is not in the default folder.

    ``wizard``: how the person starts the wizard here (the recreate command is the wizard's).
    ``source``: what installs into it, and the folder of wheels it was made from, if any: the
    reinstall and the recreate take their packages from there too.

    >>> env = SnapshotEnv("demo", "/e/demo", "/e/demo/bin/python", "venv", "pytorch", "2.13.0",
    ...                   framework_build="2.13.0+cu126", index_url="https://download.pytorch.org/whl/cu126")
    >>> fixes = env_fixes(env, windows=False)
    >>> fixes.recreate
    'gpuwizard env create demo --framework pytorch --version 2.13.0 --replace'
    >>> fixes.reinstall
    '/e/demo/bin/python -m pip install torch==2.13.0+cu126 --force-reinstall --index-url https://download.pytorch.org/whl/cu126'

    Made by uv from a folder of wheels, offline: uv installs (no pip inside), from that folder only.

    >>> from gpuwizard.core.health.install_commands import EnvSource
    >>> offline = EnvSource(uv="/opt/wizard/bin/uv", find_links="/srv/my wheels", offline=True)
    >>> fixes = env_fixes(env, windows=False, source=offline)
    >>> fixes.reinstall
    "/opt/wizard/bin/uv pip install --python /e/demo/bin/python torch==2.13.0+cu126 --reinstall-package torch --find-links '/srv/my wheels' --offline --no-index"
    >>> fixes.recreate
    "gpuwizard env create demo --framework pytorch --version 2.13.0 --find-links '/srv/my wheels' --offline --replace"

    Made by pip from a folder, the index allowed too:

    >>> env_fixes(env, windows=False, source=EnvSource(find_links="/srv/wheels")).reinstall
    '/e/demo/bin/python -m pip install torch==2.13.0+cu126 --force-reinstall --find-links /srv/wheels --index-url https://download.pytorch.org/whl/cu126'
    """
    parts = ["env", "create", env.name, "--framework", env.framework or "pytorch"]
    if env.framework_version:
        parts += ["--version", env.framework_version]
    if env.manager == "conda":
        parts += ["--manager", "conda"]
    if prefix:
        parts += ["--prefix", prefix]
    if source.find_links:
        parts += ["--find-links", source.find_links, *(["--offline"] if source.offline else [])]
    parts.append("--replace")
    pin = framework_pin(env.framework, env.pins) or _default_pin(env)
    reinstall = install_command(
        env.python, [pin], source=source, windows=windows, index_url=env.index_url, force=True
    )
    # Quoted for the shells of the machine the fixes are for, as the reinstall is.
    recreate = replace(wizard, windows=windows).run(*parts)
    return EnvFixes(recreate=recreate, reinstall=reinstall, verify=wizard.line("verify"))


def _default_pin(env: SnapshotEnv) -> str:
    known = FRAMEWORKS.get(env.framework)
    distribution = known.distributions[0] if known else env.framework
    return f"{distribution}=={env.framework_build or env.framework_version}"


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
    checks.append(
        _devices_check(baseline, observed, fixes) if imported else _skipped(name, "devices", "no import")
    )
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
    module = framework_module(observed.framework)
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
    module = framework_module(observed.framework)

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
        # index, replaces the CUDA wheel with PyPI's CPU one (Windows)
        # (Lightning-AI/pytorch-lightning#18968).
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
    broken = _pin_broken(check_id, observed, path=path, pin=pin, recorded_pin=recorded_pin, fixes=fixes)
    if broken is not None:
        return broken
    if baseline.pins and pin not in baseline.pins:
        finding = make_finding(
            "DRIFT_CONSTRAINTS_CHANGED", env=name, path=path, before=recorded_pin or "?", after=pin
        )
        return HealthCheck(check_id, "constraints", name, "changed", recorded_pin, pin, finding)
    return HealthCheck(check_id, "constraints", name, "ok", recorded_pin or pin, pin)


def _pin_broken(
    check_id: str, observed: EnvObservation, *, path: str, pin: str, recorded_pin: str | None, fixes: EnvFixes
) -> HealthCheck | None:
    """Broken when the pin no longer holds the installed build, or a tool is not pointed at it."""
    name = observed.name
    installed = observed.framework_build
    if installed is not None and not pin_allows(pin, installed):
        finding = make_finding(
            "DRIFT_CONSTRAINTS_MISMATCH",
            env=name,
            path=path,
            pin=pin,
            installed=installed,
            reinstall=fixes.reinstall,
            wanted=f"{pin.split('==', maxsplit=1)[0].strip()}=={installed}",
        )
        after = _value(
            QT_TRANSLATE_NOOP("verify_values", "{pin} (installed: {installed})"), pin=pin, installed=installed
        )
        return HealthCheck(check_id, "constraints", name, "broken", recorded_pin, after, finding)
    if not observed.constraints_unread:
        return None
    # The file is right, but pip or uv is not pointed at it: their installs fail (a file named
    # that does not exist) or ignore the pin. verify once said Healthy while every install in an
    # environment whose folder had a space failed (issue 33).
    unread = observed.constraints_unread[0]
    finding = make_finding(
        "DRIFT_CONSTRAINTS_UNREAD",
        env=name,
        tool=unread.tool,
        path=path,
        source=unread.source,
        why=unread.why,
        reference=unread.reference,
        recreate=fixes.recreate,
    )
    tools = ", ".join(item.tool for item in observed.constraints_unread)
    after = _value(
        QT_TRANSLATE_NOOP("verify_values", "{pin} ({tools} not pointed at it)"), pin=pin, tools=tools
    )
    return HealthCheck(check_id, "constraints", name, "broken", recorded_pin, after, finding)


def _devices_check(baseline: SnapshotEnv, observed: EnvObservation, fixes: EnvFixes) -> HealthCheck:
    name = observed.name
    check_id = _check_id(name, "devices")
    after = None if observed.gpus_visible is None else _gpu_count(observed.gpus_visible, observed.gpu_names)
    before = None if baseline.gpus_visible is None else _gpu_count(baseline.gpus_visible, baseline.gpu_names)
    if observed.gpus_visible is None:
        return HealthCheck(check_id, "devices", name, "skipped", before, None, note="the probe did not say")
    if baseline.gpus_visible is not None and observed.gpus_visible < baseline.gpus_visible:
        finding = make_finding(
            "DRIFT_DEVICES_LOST",
            env=name,
            framework=framework_module(observed.framework),
            before=before,
            after=after,
            verify=fixes.verify,
        )
        return HealthCheck(check_id, "devices", name, "broken", before, after, finding)
    return HealthCheck(check_id, "devices", name, "ok", before, after)


def _gpu_count(count: int, names: Sequence[str] = ()) -> str:
    """``1 GPU (NVIDIA H200)``: how many, and which where the framework named them."""
    if names and count:
        if count == 1:
            return _value(QT_TRANSLATE_NOOP("verify_values", "1 GPU ({names})"), names=", ".join(names))
        return _value(
            QT_TRANSLATE_NOOP("verify_values", "{count} GPUs ({names})"), count=count, names=", ".join(names)
        )
    if count == 1:
        return _value(QT_TRANSLATE_NOOP("verify_values", "1 GPU"))
    return _value(QT_TRANSLATE_NOOP("verify_values", "{count} GPUs"), count=count)


def _value(template: str, **params: object) -> str:
    """A value in words (English in ``--json``; the Verify page shows it translated)."""
    return TranslatableText(_VALUES, template, **params)


def compare_test(
    env: str,
    recorded_verdict: str | None,
    result: LiveTestResult | None,
    *,
    machine_has_nvidia_gpu: bool,
    wizard: WizardCommand = BY_NAME,
) -> HealthCheck:
    """The short live test's verdict now against the recorded one (the rule of core.livetest.verdicts).

    ``wizard``: how the person starts the wizard here (a finding names the full test's command).
    """
    check_id = _check_id(env, "test")
    full_test = wizard.line(f"test --env {shell_argument(env)}")
    if result is None:
        return HealthCheck(check_id, "test", env, "skipped", recorded_verdict, None, note="not run")
    now = result.verdict
    reason = next((finding.message for finding in result.findings), "the test gave no reason")
    gpu_before = recorded_verdict is not None and on_gpu(recorded_verdict)
    if not passed(now, machine_has_nvidia_gpu) or (gpu_before and now == "cpu_only"):
        # Trained on the GPU then, not now (or not at all): the setup no longer does its job.
        variant = None if recorded_verdict else "unrecorded"
        finding = make_finding(
            "DRIFT_TEST_WORSE",
            variant=variant,
            env=env,
            before=recorded_verdict or "none",
            after=now,
            reason=reason,
            test=full_test,
        )
        return HealthCheck(check_id, "test", env, "broken", recorded_verdict, now, finding)
    if recorded_verdict == "gpu_ok" and now == "gpu_slow":
        finding = make_finding(
            "DRIFT_TEST_SLOWER", env=env, before=recorded_verdict, after=now, test=full_test
        )
        return HealthCheck(check_id, "test", env, "changed", recorded_verdict, now, finding)
    return HealthCheck(check_id, "test", env, "ok", recorded_verdict, now)
