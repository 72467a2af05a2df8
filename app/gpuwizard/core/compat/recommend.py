"""``recommend()``: a complete plan for a wish on a machine, or precisely why not and what instead.

Pure and deterministic: a system report, a wish and the compatibility tables in; a
:class:`~gpuwizard.core.compat.plan.Recommendation` out. Four axes are checked at once for every
candidate build (../shared/research/peers.md section 4, point 2):

- the driver: at least the minimum for the build's CUDA (minor-version compatibility);
- the compute capability: the build carries machine code for the GPU (PyTorch: only its
  SASS list counts; TensorFlow documents "8.0 and higher" through PTX, so its PTX counts);
- Python: within the release's tested range;
- OS policy: TensorFlow GPU on native Windows ended at 2.10, no CUDA on macOS,
  ``tensorflow[and-cuda]`` only on Linux/WSL 2.

Candidates are ranked: the wished version using the GPU as the machine is, then after a
driver update, then through WSL 2; then the nearest other version the same three ways; then
the CPU build. The best is the plan; distinct others are the alternatives.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from gpuwizard.core.compat.plan import CudaNumbers, Plan, Recommendation, Wish, WishError
from gpuwizard.core.compat.tables import (
    Architectures,
    CompatData,
    TensorflowGpuBuild,
    TensorflowRelease,
    TorchRelease,
    TorchVariant,
    at_least,
    minor_of,
    version_key,
)
from gpuwizard.core.findings.model import Finding, make_finding, sort_findings
from gpuwizard.core.machine.system_report import CudaToolkitFacts, CudnnFacts, SystemReport, display_name
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

# The translation context of the plans' reasons and notes (the GUI translates them); lupdate
# reads only literal contexts, so the QT_TRANSLATE_NOOP calls below spell it out.
_R: Final = "reasons"


def _text(template: str, **params: object) -> TranslatableText:
    return TranslatableText(_R, template, **params)


FRAMEWORK_TITLES: Final = {"pytorch": "PyTorch", "tensorflow": "TensorFlow"}
_MAX_ALTERNATIVES: Final = 4

# Ranking tiers: how a candidate uses the GPU.
_GPU_NOW: Final = 0
_GPU_AFTER_DRIVER_UPDATE: Final = 1
_GPU_IN_WSL2: Final = 2
_CPU: Final = 3


@dataclass(frozen=True)
class _Gpu:
    index: int
    name: str
    capability: str | None


@dataclass(frozen=True)
class _Machine:
    """What the recommender needs of a report."""

    family: str
    platform: str  # the build platform: linux (also for WSL 2), windows, darwin
    driver_os: str  # whose driver serves the GPU: windows for WSL 2 too
    wsl: bool
    driver: str | None
    cuda_max: str | None
    cuda_max_source: str | None
    gpus: tuple[_Gpu, ...]
    other_gpus: tuple[str, ...]
    pythons: tuple[str, ...]
    toolkits: tuple[CudaToolkitFacts, ...]
    cudnn: tuple[CudnnFacts, ...]
    has_conda: bool


@dataclass(frozen=True)
class _Candidate:
    plan: Plan
    tier: int
    matches_wish: bool
    distance: int
    python_penalty: int
    cuda_preference: tuple[int, ...]

    def key(self) -> tuple[int, int, int, object, int, tuple[int, ...], str]:
        # The wished version first, but a version that uses the GPU beats the wished
        # version on the CPU: the point of the wizard is the GPU (issue 3: "the nearest plan
        # that does").
        if self.tier < _CPU:
            order = self.tier if self.matches_wish else 3 + self.tier
        else:
            order = 6 if self.matches_wish else 7
        newest = tuple(-part for part in version_key(self.plan.framework_version).release)
        served = -len(self.plan.gpu_indices)  # on mixed machines, the build that serves more GPUs
        return (
            order,
            self.distance,
            served,
            newest,
            self.python_penalty,
            self.cuda_preference,
            self.plan.manager,
        )


def recommend(report: SystemReport, wish: Wish, compat: CompatData) -> Recommendation:
    """The plan for ``wish`` on the machine ``report`` describes, with alternatives and findings.

    Raises:
        WishError: The wished version is not a known release.
    """
    machine = _machine(report, compat)
    releases = _release_versions(wish.framework, compat)
    wanted = _check_version(wish, releases, compat)
    candidates = (
        _torch_candidates(machine, wish, wanted, compat)
        if wish.framework == "pytorch"
        else _tensorflow_candidates(machine, wish, wanted, compat)
    )
    if not candidates:
        # Only possible with tables that list no build at all for this OS.
        raise WishError(
            f"the compatibility data lists no {FRAMEWORK_TITLES[wish.framework]} build for {machine.family}"
        )
    ranked = sorted(candidates, key=lambda c: c.key())
    best = ranked[0]
    plan = best.plan
    wished_gpu_now = [c for c in ranked if c.tier == _GPU_NOW and c.matches_wish]
    findings = _findings(machine, wish, wanted=wanted, compat=compat, plan=plan, ranked=ranked)
    return Recommendation(
        framework=wish.framework,
        gpu_supported=bool(wished_gpu_now),
        driver_update_required=plan.driver_update_required,
        plan=plan,
        alternatives=_alternatives(ranked),
        findings=tuple(sort_findings(findings)),
        notes=tuple(_notes(machine, wish, compat, plan, ranked)),
        cuda_numbers=CudaNumbers(
            driver_max=machine.cuda_max,
            driver_max_source=machine.cuda_max_source,
            toolkits=tuple(kit.version or "?" for kit in _toolkits_in_path_order(machine.toolkits)),
            framework=plan.cuda,
            driver=machine.driver,
            driver_os=machine.driver_os,
        ),
        wish=wish,
        compat_origin=compat.origin,
    )


# --- the machine --------------------------------------------------------------------------


def _machine(report: SystemReport, compat: CompatData) -> _Machine:
    family = report.os.family if report.os.family in ("linux", "windows", "darwin") else "linux"
    driver_os = "windows" if family == "windows" or report.os.wsl else "linux"
    driver = report.driver.version if report.driver else None
    cuda_max = report.driver.cuda_max if report.driver else None
    cuda_max_source = "nvml" if cuda_max else None
    if driver and not cuda_max:
        # A report may carry only the driver version (typed, or from another tool).
        cuda_max = compat.cuda_max_for_driver(driver, driver_os)
        cuda_max_source = "driver tables" if cuda_max else None
    gpus = []
    for gpu in report.gpus:
        if gpu.vendor != "nvidia" or gpu.status == "lost":
            continue
        capability = gpu.compute_capability or (
            compat.compute_capability_for_name(gpu.name) if gpu.name else None
        )
        gpus.append(_Gpu(gpu.index, display_name(gpu), capability))
    pythons: list[str] = []
    candidates = [report.python] if report.python else []
    candidates += list(report.interpreters)
    for python in candidates:
        if python is None or python.ms_store or python.bits == 32:
            continue  # never build on these (MS_STORE_PYTHON, PYTHON_32BIT)
        minor = minor_of(python.version)
        if minor not in pythons:
            pythons.append(minor)
    managers = report.managers
    return _Machine(
        family=family,
        platform="linux" if report.os.wsl else family,
        driver_os=driver_os,
        wsl=report.os.wsl,
        driver=driver,
        cuda_max=cuda_max,
        cuda_max_source=cuda_max_source,
        gpus=tuple(gpus),
        other_gpus=tuple(display_name(g) for g in report.gpus if g.vendor != "nvidia"),
        pythons=tuple(pythons),
        toolkits=report.cuda_toolkits,
        cudnn=report.cudnn,
        has_conda=bool(managers.conda or managers.mamba or managers.micromamba),
    )


def _toolkits_in_path_order(toolkits: Sequence[CudaToolkitFacts]) -> list[CudaToolkitFacts]:
    return sorted(
        toolkits, key=lambda k: (k.path_rank is None, k.path_rank or 0, version_key(k.version or "0"))
    )


# --- the wish -----------------------------------------------------------------------------


def _release_versions(framework: str, compat: CompatData) -> list[str]:
    rows: Sequence[TorchRelease | TensorflowRelease] = (
        compat.pytorch if framework == "pytorch" else compat.tensorflow
    )
    return [row.version for row in rows]


def _check_version(wish: Wish, releases: list[str], compat: CompatData) -> str | None:
    """The wished release's exact version, or None without a wish."""
    if wish.version is None:
        return None
    title = FRAMEWORK_TITLES[wish.framework]
    minor = minor_of(wish.version)
    rows: Sequence[TorchRelease | TensorflowRelease] = (
        compat.pytorch if wish.framework == "pytorch" else compat.tensorflow
    )
    row = next((r for r in rows if r.version == minor), None)
    if row is None:
        known = f"{releases[-1]} to {releases[0]}"
        newer = version_key(minor) > version_key(releases[0])
        hint = " (newer releases: run with --refresh)" if newer else ""
        raise WishError(f"{title} {wish.version} is not a known release (known: {known}){hint}")
    if wish.version != minor and version_key(wish.version) > version_key(row.latest):
        raise WishError(
            f"{title} {wish.version} is not a known release (the newest {minor} release is {row.latest})"
        )
    return wish.version if wish.version != minor else row.latest


def _matches(wanted: str | None, release_version: str) -> bool:
    return wanted is None or minor_of(wanted) == release_version


def _distance(wanted: str | None, release_version: str, releases: list[str]) -> int:
    if wanted is None:
        return 0
    return abs(releases.index(minor_of(wanted)) - releases.index(release_version))


def _choose_python(
    python_range_min: str, python_range_max: str, wish: Wish, machine: _Machine
) -> tuple[str, int]:
    """The Python for a release, and how far it is from ideal (0 best).

    The wished one if it fits, else an installed one, else the newest the release supports
    (uv or conda provides it).
    """
    low, high = version_key(python_range_min), version_key(python_range_max)

    def fits(minor: str) -> bool:
        return low <= version_key(minor) <= high

    if wish.python and fits(wish.python):
        return wish.python, 0
    if wish.python:
        # Nearest supported to the wish.
        nearest = python_range_max if version_key(wish.python) > high else python_range_min
        return nearest, 2
    installed = [p for p in machine.pythons if fits(p)]
    if installed:
        return installed[0], 0
    return python_range_max, 1


# --- PyTorch ------------------------------------------------------------------------------


def _torch_candidates(
    machine: _Machine, wish: Wish, wanted: str | None, compat: CompatData
) -> list[_Candidate]:
    releases = [r.version for r in compat.pytorch]
    found: list[_Candidate] = []
    for release in compat.pytorch:
        version = wanted if wanted and _matches(wanted, release.version) else release.latest
        python, penalty = _choose_python(release.python.min, release.python.max, wish, machine)
        for variant in release.variants:
            archs = variant.platforms.get(machine.platform)
            if archs is None:
                continue
            served: tuple[int, ...] = ()
            needs_update = False
            if variant.cuda is not None:
                if not machine.gpus or machine.family == "darwin":
                    continue
                served = tuple(
                    g.index
                    for g in machine.gpus
                    if g.capability is None or archs.runs_natively_on(g.capability)
                )
                if not served:
                    continue
                needs_update = not _driver_ok(machine, variant.cuda, compat)
            plan = _torch_plan(
                release,
                variant,
                version=version,
                python=python,
                manager=wish.manager or "venv",
                machine=machine,
                compat=compat,
                served=served,
                ptx=(),
                needs_update=needs_update,
            )
            if variant.cuda is None:
                tier, preference = _CPU, (0, 0, 0, 0)
            else:
                tier = _GPU_AFTER_DRIVER_UPDATE if needs_update else _GPU_NOW
                preference = (int(variant.experimental), *_cuda_preference(variant.cuda, machine.cuda_max))
            matches, distance = (
                _matches(wanted, release.version),
                _distance(wanted, release.version, releases),
            )
            found.append(_Candidate(plan, tier, matches, distance, penalty, preference))
    return found


def _torch_plan(
    release: TorchRelease,
    variant: TorchVariant,
    *,
    version: str,
    python: str,
    manager: str,
    machine: _Machine,
    compat: CompatData,
    served: tuple[int, ...],
    ptx: tuple[int, ...],
    needs_update: bool,
) -> Plan:
    pypi_default = release.pypi_default.get(machine.platform)
    index_url = None if pypi_default == variant.name else compat.torch_index_url.format(variant=variant.name)
    where = "a conda environment" if manager == "conda" else "a venv"
    if variant.is_cpu:
        summary = f"PyTorch {version}, CPU build, for Python {python} in {where}"
    else:
        summary = (
            f"PyTorch {version} with CUDA {variant.cuda} ({variant.name}) for Python {python} in {where}"
        )
    reasons = _gpu_reasons(machine, served, variant.platforms[machine.platform])
    if variant.cuda is not None:
        reasons += _driver_reasons(machine, variant.cuda, compat)
        if variant.cudnn:
            reasons.append(
                _text(
                    QT_TRANSLATE_NOOP(
                        "reasons",
                        "The wheel brings CUDA {cuda} and cuDNN {cudnn}: only the NVIDIA driver is needed.",
                    ),
                    cuda=variant.cuda,
                    cudnn=variant.cudnn,
                )
            )
        else:
            reasons.append(
                _text(
                    QT_TRANSLATE_NOOP(
                        "reasons", "The wheel brings CUDA {cuda}: only the NVIDIA driver is needed."
                    ),
                    cuda=variant.cuda,
                )
            )
        if variant.experimental:
            reasons.append(
                _text(
                    QT_TRANSLATE_NOOP(
                        "reasons", "PyTorch calls its CUDA {cuda} build of this release experimental."
                    ),
                    cuda=variant.cuda,
                )
            )
    return Plan(
        framework="pytorch",
        framework_version=version,
        python=python,
        cpu_only=variant.is_cpu,
        cuda=variant.cuda,
        cudnn=variant.cudnn,
        torch_variant=variant.name,
        requirements=(f"torch=={version}",),
        index_url=index_url,
        conda_channels=(),
        conda_packages=(f"python={python}",) if manager == "conda" else (),
        min_driver=_min_drivers(variant.cuda, compat) if variant.cuda else None,
        manager=manager,
        gpu_indices=served,
        ptx_jit=ptx,
        driver_update_required=needs_update,
        summary=summary,
        reasons=tuple(reasons),
    )


# --- TensorFlow ---------------------------------------------------------------------------


def _tensorflow_candidates(
    machine: _Machine, wish: Wish, wanted: str | None, compat: CompatData
) -> list[_Candidate]:
    releases = [r.version for r in compat.tensorflow]
    found: list[_Candidate] = []
    for release in compat.tensorflow:
        version = wanted if wanted and _matches(wanted, release.version) else release.latest
        python, penalty = _choose_python(release.python.min, release.python.max, wish, machine)
        matches, distance = _matches(wanted, release.version), _distance(wanted, release.version, releases)
        has_gpu = bool(machine.gpus) and machine.family != "darwin"
        build = release.gpu.get(machine.platform)
        if has_gpu and build is not None:
            served, ptx = _tensorflow_served(machine, build.archs)
            if served or ptx:
                for preference, manager in enumerate(_tensorflow_managers(build, wish, machine)):
                    needs_update = not _driver_ok(machine, build.cuda, compat)
                    plan = _tensorflow_plan(
                        release,
                        build,
                        version=version,
                        python=python,
                        manager=manager,
                        machine=machine,
                        compat=compat,
                        served=served + ptx,
                        ptx=ptx,
                        needs_update=needs_update,
                        target="native",
                    )
                    tier = _GPU_AFTER_DRIVER_UPDATE if needs_update else _GPU_NOW
                    found.append(
                        _Candidate(
                            plan,
                            tier,
                            matches,
                            distance,
                            penalty + preference,  # the first manager offered is the better one
                            _cuda_preference(build.cuda, machine.cuda_max),
                        )
                    )
        linux_build = release.gpu.get("linux")
        if has_gpu and machine.family == "windows" and build is None and linux_build is not None:
            # TensorFlow > 2.10 has no native-Windows GPU build; WSL 2 runs the Linux one on this GPU.
            served, ptx = _tensorflow_served(machine, linux_build.archs)
            if served or ptx:
                needs_update = not _wsl_driver_ok(machine, linux_build.cuda, compat)
                # Inside WSL the Windows Pythons do not exist: the wished one if it fits, else
                # the newest the release supports (uv provides it there).
                wsl_python = (
                    wish.python
                    if wish.python and release.python.contains(wish.python)
                    else release.python.max
                )
                plan = _tensorflow_plan(
                    release,
                    linux_build,
                    version=version,
                    python=wsl_python,
                    manager="venv",
                    machine=machine,
                    compat=compat,
                    served=served + ptx,
                    ptx=ptx,
                    needs_update=needs_update,
                    target="wsl2",
                )
                found.append(
                    _Candidate(
                        plan,
                        _GPU_IN_WSL2,
                        matches,
                        distance,
                        penalty,
                        _cuda_preference(linux_build.cuda, machine.cuda_max),
                    )
                )
        if machine.platform in release.cpu:
            plan = _tensorflow_cpu_plan(release, version, python, wish.manager or "venv")
            found.append(_Candidate(plan, _CPU, matches, distance, penalty, (0, 0, 0)))
    return found


def _tensorflow_served(machine: _Machine, archs: Architectures) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """GPUs a TensorFlow build serves natively, and through its PTX.

    TensorFlow documents its PTX as supported: "CUDA architectures 3.5, 5.0, 6.0, 7.0, 7.5, 8.0
    and higher" (TFDOCS-PIP).
    """
    native = tuple(
        g.index for g in machine.gpus if g.capability is None or archs.runs_natively_on(g.capability)
    )
    ptx = tuple(
        g.index for g in machine.gpus if g.capability is not None and archs.runs_through_ptx_on(g.capability)
    )
    return native, ptx


def _tensorflow_managers(build: TensorflowGpuBuild, wish: Wish, machine: _Machine) -> list[str]:
    """Which managers to plan with.

    conda supplies CUDA and cuDNN for the old builds (the TensorFlow guide's recipe); a venv
    needs them installed on the system.
    """
    if wish.manager:
        return [wish.manager]
    if build.cuda_supply in ("system", "pip-cudnn") and build.conda_packages:
        return ["conda", "venv"] if machine.has_conda or machine.family == "windows" else ["venv", "conda"]
    return ["venv"]


def _tensorflow_plan(
    release: TensorflowRelease,
    build: TensorflowGpuBuild,
    *,
    version: str,
    python: str,
    manager: str,
    machine: _Machine,
    compat: CompatData,
    served: tuple[int, ...],
    ptx: tuple[int, ...],
    needs_update: bool,
    target: str,
) -> Plan:
    windows = machine.platform == "windows"
    conda_supplies = manager == "conda" and bool(build.conda_packages) and build.cuda_supply != "and-cuda"
    system_toolkit = build.cuda_supply in ("system", "pip-cudnn") and not conda_supplies
    removed = compat.policy("tensorflow_gpu_package_removed")
    if version_key(release.version) < version_key(removed["same_package_since"]):
        # Before 2.1 the GPU build is only in tensorflow-gpu (plain tensorflow 2.0 is CPU-only).
        requirements = [f"{removed['package']}=={version}"]
    elif build.cuda_supply == "and-cuda":
        requirements = [f"tensorflow[and-cuda]=={version}"]
    else:
        requirements = [f"tensorflow=={version}"]
    if build.cuda_supply == "pip-cudnn":
        requirements.append(f"nvidia-cudnn-cu11=={build.cudnn}.*")
    path_entries: tuple[str, ...] = ()
    if windows and system_toolkit:
        path_entries = _windows_path_entries(machine, build)
    reasons = _gpu_reasons(machine, served, build.archs)
    reasons += _driver_reasons(machine, build.cuda, compat, wsl=target == "wsl2")
    if target == "wsl2":
        reasons.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons", "Runs inside WSL 2 (Ubuntu), which uses this GPU through the Windows driver."
                )
            )
        )
    if build.cuda_supply == "and-cuda":
        reasons.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons", "tensorflow[and-cuda] brings CUDA {cuda} and cuDNN {cudnn} as pip packages."
                ),
                cuda=build.cuda,
                cudnn=build.cudnn,
            )
        )
    elif conda_supplies:
        reasons.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "conda-forge supplies CUDA {cuda} and cuDNN {cudnn} inside the environment: no PATH changes.",
                ),
                cuda=build.cuda,
                cudnn=build.cudnn,
            )
        )
    else:
        template = (
            QT_TRANSLATE_NOOP(
                "reasons", "Needs CUDA {cuda} and cuDNN {cudnn} installed on the system and on PATH."
            )
            if windows
            else QT_TRANSLATE_NOOP("reasons", "Needs CUDA {cuda} and cuDNN {cudnn} installed on the system.")
        )
        reasons.append(_text(template, cuda=build.cuda, cudnn=build.cudnn))
    where = "a conda environment" if manager == "conda" else "a venv"
    inside = " inside WSL 2" if target == "wsl2" else ""
    return Plan(
        framework="tensorflow",
        framework_version=version,
        python=python,
        cpu_only=False,
        cuda=build.cuda,
        cudnn=build.cudnn,
        torch_variant=None,
        requirements=tuple(requirements),
        index_url=None,
        conda_channels=("conda-forge",) if conda_supplies else (),
        conda_packages=(
            (f"python={python}", *build.conda_packages)
            if conda_supplies
            else ((f"python={python}",) if manager == "conda" else ())
        ),
        system_cuda_toolkit_required=system_toolkit,
        path_entries=path_entries,
        dlls_expected=build.dlls if windows else (),
        min_driver=_wsl_min_drivers(build.cuda, compat)
        if target == "wsl2"
        else _min_drivers(build.cuda, compat),
        manager=manager,
        target=target,
        gpu_indices=served,
        ptx_jit=ptx,
        driver_update_required=needs_update,
        summary=f"TensorFlow {version} with CUDA {build.cuda} and cuDNN {build.cudnn} for Python {python} in {where}{inside}",
        reasons=tuple(reasons),
    )


def _tensorflow_cpu_plan(release: TensorflowRelease, version: str, python: str, manager: str) -> Plan:
    where = "a conda environment" if manager == "conda" else "a venv"
    return Plan(
        framework="tensorflow",
        framework_version=version,
        python=python,
        cpu_only=True,
        cuda=None,
        cudnn=None,
        torch_variant=None,
        requirements=(f"tensorflow=={version}",),
        index_url=None,
        conda_packages=(f"python={python}",) if manager == "conda" else (),
        manager=manager,
        summary=f"TensorFlow {version}, CPU only, for Python {python} in {where}",
        reasons=(_text(QT_TRANSLATE_NOOP("reasons", "Runs on the CPU: no NVIDIA driver or CUDA needed.")),),
    )


def _windows_path_entries(machine: _Machine, build: TensorflowGpuBuild) -> tuple[str, ...]:
    """The CUDA ``bin`` and ``libnvvp`` and the cuDNN ``bin`` the build needs on PATH.

    The ones on this machine when they are there, else where the installers put them.
    """
    toolkit = next(
        (
            k
            for k in _toolkits_in_path_order(machine.toolkits)
            if k.version and minor_of(k.version) == build.cuda
        ),
        None,
    )
    root = (
        toolkit.root if toolkit else f"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v{build.cuda}"
    )
    entries = [f"{root}\\bin", f"{root}\\libnvvp"]
    cudnn = next(
        (d for d in machine.cudnn if d.version and minor_of(d.version) == minor_of(build.cudnn)), None
    )
    if cudnn and cudnn.location not in entries[:1]:
        entries.append(cudnn.location)
    return tuple(entries)


# --- drivers and GPUs ---------------------------------------------------------------------


def _min_drivers(cuda: str, compat: CompatData) -> dict[str, str | None]:
    return {"linux": compat.min_driver(cuda, "linux"), "windows": compat.min_driver(cuda, "windows")}


def _wsl_min_drivers(cuda: str, compat: CompatData) -> dict[str, str | None]:
    """In WSL 2 the driver is the Windows host's: its minimum is a Windows driver version."""
    windows = compat.min_driver(cuda, "windows")
    policy_min = compat.policy("wsl2_gpu").get("windows_driver_min_for_tensorflow")
    if windows and policy_min and version_key(policy_min) > version_key(windows):
        windows = policy_min
    return {"linux": None, "windows": windows}


def _driver_ok(machine: _Machine, cuda: str, compat: CompatData) -> bool:
    minimum = compat.min_driver(cuda, machine.driver_os)
    return machine.driver is not None and minimum is not None and at_least(machine.driver, minimum)


def _wsl_driver_ok(machine: _Machine, cuda: str, compat: CompatData) -> bool:
    minimum = _wsl_min_drivers(cuda, compat)["windows"]
    return machine.driver is not None and minimum is not None and at_least(machine.driver, minimum)


def _cuda_preference(cuda: str, cuda_max: str | None) -> tuple[int, int, int]:
    """Prefer the newest CUDA the driver fully supports; above that, the least far above it.

    Above the driver's CUDA a build runs through minor-version compatibility, with its limits.
    """
    major, minor = (int(part) for part in minor_of(cuda).split("."))
    if cuda_max is None or version_key(minor_of(cuda)) <= version_key(cuda_max):
        return (0, -major, -minor)
    return (1, major, minor)


def _gpu_reasons(machine: _Machine, served: Sequence[int], archs: Architectures) -> list[str]:
    reasons: list[str] = []
    for gpu in machine.gpus:
        if gpu.index not in served:
            continue
        if gpu.capability is None:
            reasons.append(
                _text(
                    QT_TRANSLATE_NOOP(
                        "reasons", "{gpu}: compute capability unknown, not checked against this build."
                    ),
                    gpu=gpu.name,
                )
            )
        elif archs.runs_natively_on(gpu.capability):
            reasons.append(
                _text(
                    QT_TRANSLATE_NOOP(
                        "reasons",
                        "{gpu} (compute capability {capability}) is covered by this build ({archs}).",
                    ),
                    gpu=gpu.name,
                    capability=gpu.capability,
                    archs=archs.describe(),
                )
            )
        else:
            reasons.append(
                _text(
                    QT_TRANSLATE_NOOP(
                        "reasons",
                        "{gpu} (compute capability {capability}) runs this build's PTX {ptx}, compiled at first use.",
                    ),
                    gpu=gpu.name,
                    capability=gpu.capability,
                    ptx=archs.ptx,
                )
            )
    return reasons


def _driver_reasons(machine: _Machine, cuda: str, compat: CompatData, *, wsl: bool = False) -> list[str]:
    minimum = (
        _wsl_min_drivers(cuda, compat)["windows"] if wsl else compat.min_driver(cuda, machine.driver_os)
    ) or "?"
    os_name = "Windows" if machine.driver_os == "windows" or wsl else "Linux"
    if machine.driver is None:
        return [
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons", "Needs an NVIDIA driver {minimum} or newer ({os}); none answers now."
                ),
                minimum=minimum,
                os=os_name,
            )
        ]
    if at_least(machine.driver, minimum):
        return [
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "Driver {driver} is at least the {minimum} that CUDA {cuda} builds need on {os}.",
                ),
                driver=machine.driver,
                minimum=minimum,
                cuda=cuda,
                os=os_name,
            )
        ]
    return [
        _text(
            QT_TRANSLATE_NOOP(
                "reasons", "Needs driver {minimum} or newer on {os}; this machine has {driver}."
            ),
            minimum=minimum,
            os=os_name,
            driver=machine.driver,
        )
    ]


# --- findings, alternatives, notes --------------------------------------------------------


def _findings(
    machine: _Machine,
    wish: Wish,
    *,
    wanted: str | None,
    compat: CompatData,
    plan: Plan,
    ranked: list[_Candidate],
) -> list[Finding]:
    findings: list[Finding] = []
    if wish.requested_name == "tensorflow-gpu" and not plan.requirements[0].startswith("tensorflow-gpu"):
        findings.append(make_finding("TENSORFLOW_GPU_PACKAGE_REMOVED"))
    if machine.family == "darwin":
        findings.append(make_finding("NO_CUDA_ON_MACOS"))
    elif not machine.gpus:
        if machine.other_gpus:
            findings.append(
                make_finding("NO_NVIDIA_GPU", variant="other_gpu", names=list(machine.other_gpus))
            )
        else:
            findings.append(make_finding("NO_NVIDIA_GPU"))
    else:
        findings += _gpu_findings(machine, wish, wanted=wanted, compat=compat, plan=plan, ranked=ranked)
    if wish.python and plan.python != wish.python:
        findings.append(
            make_finding(
                "PYTHON_UNSUPPORTED",
                framework=FRAMEWORK_TITLES[wish.framework],
                version=plan.framework_version,
                python_range=_python_range_of(wish.framework, plan.framework_version, compat),
                python=wish.python,
                chosen=plan.python,
            )
        )
    return findings + _toolkit_findings(machine, plan) + _gpu_use_findings(machine, plan)


def _toolkit_findings(machine: _Machine, plan: Plan) -> list[Finding]:
    """Whether the plan needs a system CUDA toolkit and cuDNN, and whether they are here."""
    if plan.cpu_only:
        return []
    if not plan.system_cuda_toolkit_required:
        variant = "conda" if plan.conda_channels else None
        return [
            make_finding(
                "CUDA_TOOLKIT_NOT_NEEDED",
                variant=variant,
                build=plan_build_name(plan),
                cuda=plan.cuda,
                cudnn=plan.cudnn,
            )
        ]
    findings = []
    if plan.cuda and not any(k.version and minor_of(k.version) == plan.cuda for k in machine.toolkits):
        findings.append(make_finding("CUDA_TOOLKIT_MISSING", build=plan_build_name(plan), cuda=plan.cuda))
    if plan.cudnn and not any(
        d.version and minor_of(d.version) == minor_of(plan.cudnn) for d in machine.cudnn
    ):
        findings.append(
            make_finding("CUDNN_MISSING", build=plan_build_name(plan), cudnn=plan.cudnn, cuda=plan.cuda)
        )
    return findings


def _gpu_use_findings(machine: _Machine, plan: Plan) -> list[Finding]:
    """GPUs the plan leaves out, serves only through PTX, or cannot check."""
    findings = []
    if not plan.cpu_only and plan.gpu_indices:
        visible = ",".join(str(index) for index in plan.gpu_indices)
        findings += [
            make_finding(
                "GPU_NOT_SERVED",
                build=plan_build_name(plan),
                gpu=gpu.name,
                capability=gpu.capability,
                visible=visible,
            )
            for gpu in machine.gpus
            if gpu.index not in plan.gpu_indices and gpu.capability
        ]
    for gpu in machine.gpus:
        if gpu.index in plan.ptx_jit and gpu.capability:
            findings.append(
                make_finding(
                    "GPU_PTX_ONLY", build=plan_build_name(plan), gpu=gpu.name, capability=gpu.capability
                )
            )
        if gpu.capability is None:
            findings.append(make_finding("GPU_ARCH_UNKNOWN", gpu=gpu.name))
    return findings


def _gpu_findings(
    machine: _Machine,
    wish: Wish,
    *,
    wanted: str | None,
    compat: CompatData,
    plan: Plan,
    ranked: list[_Candidate],
) -> list[Finding]:
    title = FRAMEWORK_TITLES[wish.framework]
    findings: list[Finding] = []
    target_version = minor_of(wanted) if wanted else _newest_version(wish.framework, compat)
    target_gpu_plans = [
        c for c in ranked if c.tier < _CPU and minor_of(c.plan.framework_version) == target_version
    ]

    # TensorFlow past 2.10 on native Windows: the policy, before any architecture question.
    policy = compat.policy("tf_native_windows_gpu_ended")
    if (
        wish.framework == "tensorflow"
        and machine.family == "windows"
        and version_key(target_version) > version_key(policy["last_version"])
    ):
        last = next(r for r in compat.tensorflow if r.version == policy["last_version"])
        last_build = last.gpu.get("windows")
        findings.append(
            make_finding(
                "TF_NATIVE_WINDOWS_GPU_ENDED",
                version=wanted or target_version,
                last=policy["last_version"],
                last_cuda=last_build.cuda if last_build else "?",
                last_cudnn=last_build.cudnn if last_build else "?",
            )
        )
    elif not any(c.tier in (_GPU_NOW, _GPU_AFTER_DRIVER_UPDATE) for c in target_gpu_plans):
        findings += _arch_findings(
            machine, wish, version=target_version, compat=compat, plan=plan, title=title
        )

    if machine.driver is None:
        if not plan.cpu_only and plan.min_driver:
            findings.append(
                make_finding(
                    "NO_NVIDIA_DRIVER",
                    variant="recommend",
                    min_driver=plan.min_driver.get(machine.driver_os) or "?",
                    build=plan_build_name(plan),
                )
            )
    elif plan.driver_update_required and plan.min_driver:
        now = next((c.plan for c in ranked if c.tier == _GPU_NOW), None)
        otherwise = f"Or use {now.summary}, which works with this driver." if now else "Or use the CPU build."
        findings.append(
            make_finding(
                "DRIVER_TOO_OLD",
                driver=machine.driver,
                min_driver=plan.min_driver.get(machine.driver_os) or "?",
                build=plan_build_name(plan),
                otherwise=otherwise,
            )
        )
    return findings


def _arch_findings(
    machine: _Machine, wish: Wish, *, version: str, compat: CompatData, plan: Plan, title: str
) -> list[Finding]:
    """GPU_ARCH_UNSUPPORTED for each GPU that no build of ``version`` covers."""
    findings: list[Finding] = []
    archs = _architectures_of(wish.framework, version, machine.platform, compat)
    if not archs:
        return findings
    reported: set[tuple[str, str]] = set()
    for gpu in machine.gpus:
        if gpu.capability is None or (gpu.name, gpu.capability) in reported:
            continue  # several identical GPUs (a K80 board is two) get one finding
        reported.add((gpu.name, gpu.capability))
        covered = any(
            a.runs_natively_on(gpu.capability)
            or (wish.framework == "tensorflow" and a.runs_through_ptx_on(gpu.capability))
            for a in archs
        )
        if covered:
            continue
        if not plan.cpu_only and gpu.index in plan.gpu_indices:
            instead = f"Use {plan.summary}: the nearest release whose build covers it."
        else:
            instead = "No release in the tables covers it on this OS: use the CPU build."
        listed = sorted({cc for a in archs for cc in a.sass}, key=version_key)
        findings.append(
            make_finding(
                "GPU_ARCH_UNSUPPORTED",
                framework=title,
                version=version,
                gpu=gpu.name,
                capability=gpu.capability,
                architectures=", ".join(listed),
                instead=instead,
            )
        )
    return findings


def _architectures_of(framework: str, version: str, platform: str, compat: CompatData) -> list[Architectures]:
    if framework == "pytorch":
        release = next((r for r in compat.pytorch if r.version == version), None)
        if release is None:
            return []
        return [v.platforms[platform] for v in release.variants if not v.is_cpu and platform in v.platforms]
    tf = next((r for r in compat.tensorflow if r.version == version), None)
    build = tf.gpu.get(platform) if tf else None
    return [build.archs] if build else []


def _newest_version(framework: str, compat: CompatData) -> str:
    return compat.pytorch[0].version if framework == "pytorch" else compat.tensorflow[0].version


def _python_range_of(framework: str, version: str, compat: CompatData) -> str:
    rows: Sequence[TorchRelease | TensorflowRelease] = (
        compat.pytorch if framework == "pytorch" else compat.tensorflow
    )
    row = next(r for r in rows if r.version == minor_of(version))
    return str(row.python)


def plan_build_name(plan: Plan) -> str:
    """``PyTorch 2.13.0 (cu126)`` / ``TensorFlow 2.10.1 (CUDA 11.2)`` for messages."""
    title = FRAMEWORK_TITLES[plan.framework]
    if plan.torch_variant:
        return f"{title} {plan.framework_version} ({plan.torch_variant})"
    if plan.cuda:
        return f"{title} {plan.framework_version} (CUDA {plan.cuda})"
    return f"{title} {plan.framework_version} (CPU)"


def _alternatives(ranked: list[_Candidate]) -> tuple[Plan, ...]:
    """The other kinds of plan worth knowing, best first.

    Not the next few in rank (those differ only by an older release): the same release with
    another build or manager, the best plan of each other way of using the GPU (now, after a
    driver update, in WSL 2), and the CPU build; then the next in rank to fill up.
    """
    best = ranked[0]
    others = ranked[1:]
    picked: list[_Candidate] = []
    seen = {_identity(best.plan)}

    def pick(candidate: _Candidate | None) -> None:
        if (
            candidate is not None
            and _identity(candidate.plan) not in seen
            and len(picked) < _MAX_ALTERNATIVES
        ):
            seen.add(_identity(candidate.plan))
            picked.append(candidate)

    same_release = [
        c for c in others if c.plan.framework_version == best.plan.framework_version and c.tier < _CPU
    ]
    for candidate in same_release[:2]:
        pick(candidate)
    for tier in (_GPU_NOW, _GPU_AFTER_DRIVER_UPDATE, _GPU_IN_WSL2):
        pick(next((c for c in others if c.tier == tier and c.tier != best.tier), None))
    cpu = [c for c in others if c.tier == _CPU]
    pick(
        next(
            (c for c in cpu if c.plan.framework_version == best.plan.framework_version),
            cpu[0] if cpu else None,
        )
    )
    for candidate in others:
        pick(candidate)
    order = {id(c): position for position, c in enumerate(ranked)}
    return tuple(c.plan for c in sorted(picked, key=lambda c: order[id(c)]))


def _identity(plan: Plan) -> tuple[str, str | None, str | None, str, bool, str]:
    return (plan.framework_version, plan.torch_variant, plan.cuda, plan.target, plan.cpu_only, plan.manager)


def _notes(
    machine: _Machine, wish: Wish, compat: CompatData, plan: Plan, ranked: list[_Candidate]
) -> list[str]:
    notes: list[str] = []
    if machine.family == "darwin" and wish.framework == "pytorch":
        notes.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "On Apple silicon, PyTorch's CPU build also drives the Apple GPU through MPS (macOS 14 or newer).",
                )
            )
        )
    if machine.other_gpus and not machine.gpus and machine.family == "linux" and wish.framework == "pytorch":
        notes.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "PyTorch publishes ROCm builds for AMD GPUs on Linux; this wizard sets up NVIDIA (CUDA) builds only.",
                )
            )
        )
    if machine.cuda_max_source == "driver tables":
        notes.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "The highest CUDA of driver {driver} ({cuda_max}) was derived from NVIDIA's toolkit-driver table.",
                ),
                driver=machine.driver,
                cuda_max=machine.cuda_max,
            )
        )
    if not plan.driver_update_required:
        better = next((c.plan for c in ranked if c.tier == _GPU_AFTER_DRIVER_UPDATE and c.matches_wish), None)
        if (
            better
            and version_key(better.framework_version) >= version_key(plan.framework_version)
            and better.min_driver
        ):
            minimum = better.min_driver.get(machine.driver_os)
            notes.append(
                _text(
                    QT_TRANSLATE_NOOP(
                        "reasons", "With a driver {minimum} or newer, {plan} becomes possible."
                    ),
                    minimum=minimum,
                    plan=better.summary,
                )
            )
    if wish.framework == "pytorch" and plan.manager == "conda":
        last = compat.policy("pytorch_conda_channel_ended")["last_version"]
        notes.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "PyTorch comes from pip inside the conda environment: the pytorch conda channel ended at {last}.",
                ),
                last=last,
            )
        )
    if machine.wsl:
        notes.append(
            _text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "This is WSL 2: the NVIDIA driver is the Windows host's, and its minimum is a Windows driver version.",
                )
            )
        )
    return notes


def describe_min_driver(min_driver: Mapping[str, str | None] | None) -> str:
    """``Linux 525.60.13, Windows 528.33`` for messages."""
    if not min_driver:
        return "none"
    parts = [f"{os_name.capitalize()} {value}" for os_name, value in min_driver.items() if value]
    return ", ".join(parts) or "unknown"
