r"""Drift of an environment's NVIDIA wheels and DLL start-up hook: what ``verify`` says, and the fix.

An environment whose framework takes its CUDA libraries from NVIDIA's wheels on PyPI
(``nvidia-cudnn-cu11``, ``nvidia-cublas-cu12``...: TensorFlow 2.10 on Windows with the wizard's
wheel route, PyTorch from PyPI on Linux) breaks when one of them is uninstalled, or replaced by
another major version, since a framework build loads only the majors it was built for: the
libraries carry their major in their file names (``cudart64_110.dll``, ``cudnn64_8.dll``,
``libcudnn.so.9``; TensorFlow's ``dso_loader.cc`` asks for exactly those), and TensorFlow
refuses a cuDNN of another major than it was compiled with ("CuDNN library needs to have
matching major version and equal or higher minor version", tensorflow
``stream_executor/cuda/cuda_dnn.cc``). On Windows such an environment also needs its DLL
start-up hook (``probes/cuda_dll_hook.py``), which puts the wheels' ``nvidia\*\bin`` folders on
the DLL search path.

:func:`compare_cuda_wheels` compares what the env probe lists now with the last good state:
``ok`` when the same wheels are there at the same versions (and the hook, if it was active,
still is); ``broken`` when a recorded wheel is gone (``CUDA_WHEEL_REMOVED``), was replaced by
another major version or by the same library for another CUDA major (``CUDA_WHEEL_REPLACED``),
or when the hook recorded as active no longer is (``DLL_HOOK_MISSING``); ``changed`` when a
version moved within its major (``CUDA_WHEEL_CHANGED``: the short live test says whether it
still works). An environment that never had NVIDIA wheels gets no such check.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.health.checks import HealthCheck
from gpuwizard.core.health.env_drift import EnvObservation
from gpuwizard.core.health.install_commands import OWN_PIP, EnvSource, install_command
from gpuwizard.core.health.snapshot import SnapshotEnv
from gpuwizard.core.livetest.libraries import CudaWheel

#: The check's kind (``env:NAME:cuda_wheels``).
KIND: Final = "cuda_wheels"


def compare_cuda_wheels(
    baseline: SnapshotEnv,
    observed: EnvObservation,
    *,
    windows: bool,
    recreate: str,
    source: EnvSource = OWN_PIP,
) -> HealthCheck | None:
    """The NVIDIA wheels and DLL hook of one environment against the last good state.

    Args:
        baseline: The environment at the last good state.
        observed: What the env probe found now.
        windows: Write the fix commands for Windows (quoting).
        recreate: The ``gpuwizard env create ... --replace`` command (``env_drift.env_fixes``).
        source: What installs into the environment and from where (the fix puts the wheels back
            with it: core/health/install_commands.py).

    Returns:
        The check; None when the last good state recorded no NVIDIA wheel (an environment that
        never had them, or a snapshot older than this check): nothing to compare.
    """
    recorded = baseline.cuda_wheels
    if not recorded:
        return None
    name = observed.name
    check_id = f"env:{name}:{KIND}"
    before = wheels_text(recorded, "active" if baseline.dll_hook_active else None)
    now = observed.cuda_wheels
    if now is None:
        why = "the interpreter does not run" if observed.interpreter_error else "the probe did not list them"
        return HealthCheck(check_id, KIND, name, "skipped", before, None, note=why)
    hook = observed.dll_hook
    hook_word = "active" if hook is not None and hook.active else ("inactive" if hook is not None else None)
    if baseline.dll_hook_active and hook is None:
        hook_word = "missing"
    after = wheels_text(now, hook_word)

    removed, replaced, moved = _differences(recorded, now)
    python = observed.python or baseline.python
    # From PyPI, where NVIDIA publishes them, or the folder the environment was made from.
    pins = [wheel.pin for wheel in [*removed, *(old for old, _new in replaced)]]
    reinstall = install_command(python, pins, source=source, windows=windows)
    problems: list[Finding] = []
    if removed:
        problems.append(
            make_finding(
                "CUDA_WHEEL_REMOVED",
                env=name,
                wheels=", ".join(wheel.pin for wheel in removed),
                reinstall=reinstall,
                recreate=recreate,
            )
        )
    if replaced:
        problems.append(
            make_finding(
                "CUDA_WHEEL_REPLACED",
                env=name,
                before=", ".join(old.pin for old, _new in replaced),
                after=", ".join(new.pin for _old, new in replaced),
                reinstall=reinstall,
                recreate=recreate,
            )
        )
    if baseline.dll_hook_active and not (hook is not None and hook.active):
        if hook is None:
            problems.append(make_finding("DLL_HOOK_MISSING", env=name, recreate=recreate))
        else:
            reason = hook.problem or "it found no nvidia\\*\\bin folder"
            problems.append(
                make_finding(
                    "DLL_HOOK_MISSING", variant="inactive", env=name, reason=reason, recreate=recreate
                )
            )
    if problems:
        others = [finding.code for finding in problems[1:]]
        note = f"also {', '.join(others)}" if others else None
        return HealthCheck(check_id, KIND, name, "broken", before, after, problems[0], note=note)
    if moved:
        finding = make_finding(
            "CUDA_WHEEL_CHANGED",
            env=name,
            before=", ".join(old.pin for old, _new in moved),
            after=", ".join(new.pin for _old, new in moved),
            reinstall=install_command(
                python, [old.pin for old, _new in moved], source=source, windows=windows
            ),
        )
        return HealthCheck(check_id, KIND, name, "changed", before, after, finding)
    return HealthCheck(check_id, KIND, name, "ok", before, after)


def _differences(
    recorded: Sequence[CudaWheel], now: Sequence[CudaWheel]
) -> tuple[list[CudaWheel], list[tuple[CudaWheel, CudaWheel]], list[tuple[CudaWheel, CudaWheel]]]:
    """``(removed, replaced, moved)``: recorded wheels gone; replaced by another major; moved within it.

    A wheel gone whose library is there now for another CUDA major (``nvidia-cudnn-cu11`` gone,
    ``nvidia-cudnn-cu12`` there and not recorded) counts as replaced by it.
    """
    current = {wheel.name: wheel for wheel in now}
    recorded_names = {wheel.name for wheel in recorded}
    removed: list[CudaWheel] = []
    replaced: list[tuple[CudaWheel, CudaWheel]] = []
    moved: list[tuple[CudaWheel, CudaWheel]] = []
    for wheel in recorded:
        found = current.get(wheel.name)
        if found is None:
            other = next(
                (
                    candidate
                    for candidate in now
                    if candidate.family == wheel.family and candidate.name not in recorded_names
                ),
                None,
            )
            if other is not None:
                replaced.append((wheel, other))
            else:
                removed.append(wheel)
        elif found.major != wheel.major:
            replaced.append((wheel, found))
        elif found.version != wheel.version:
            moved.append((wheel, found))
    return removed, replaced, moved


def wheels_text(wheels: Sequence[CudaWheel], hook: str | None) -> str:
    """The wheels as pins, then the DLL hook's state (``active``, ``inactive``, ``missing``) if any.

    >>> wheels_text([CudaWheel("nvidia-cudnn-cu11", "8.9.5.29")], "active")
    'nvidia-cudnn-cu11==8.9.5.29; DLL hook active'
    """
    text = ", ".join(wheel.pin for wheel in wheels) or "no NVIDIA wheel"
    return f"{text}; DLL hook {hook}" if hook else text
