"""TensorFlow candidates and plans: native GPU builds, the Linux build through WSL 2, the CPU build.

Apart from PyTorch's because TensorFlow's builds differ in kind: its PTX counts (documented),
CUDA and cuDNN come from the system, conda-forge or pip depending on the release, native Windows
GPU builds ended at 2.10, and old releases need PATH entries on Windows.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpuwizard.core.compat.candidates import (
    TIER_CPU,
    TIER_GPU_AFTER_DRIVER_UPDATE,
    TIER_GPU_IN_WSL2,
    TIER_GPU_NOW,
    Candidate,
    choose_python,
    distance_from_wish,
    is_wished_release,
    with_conda_engine,
)
from gpuwizard.core.compat.library_pins import ResolvedToday, pin_for_gpus, resolved_ranges
from gpuwizard.core.compat.machine_view import MachineView, gpus_where, toolkits_in_path_order
from gpuwizard.core.compat.plan import CudaWheels, Plan, ResolvedLibrary, Wish
from gpuwizard.core.compat.reasons import (
    cuda_preference,
    driver_reasons,
    gpu_reasons,
    min_drivers,
    reason_text,
    wsl_driver_ok,
    wsl_min_drivers,
)
from gpuwizard.core.compat.tables import (
    CompatData,
    TensorflowGpuBuild,
    TensorflowRelease,
    at_least,
    minor_of,
    version_key,
)
from gpuwizard.core.compat.wsl_route import wsl_route, wsl_route_reasons
from gpuwizard.core.texts import QT_TRANSLATE_NOOP


def tensorflow_candidates(
    machine: MachineView,
    wish: Wish,
    wanted: str | None,
    compat: CompatData,
    resolutions: ResolvedToday | None = None,
) -> list[Candidate]:
    """Every TensorFlow build of the tables for the machine (native, WSL 2, CPU), as candidates.

    ``resolutions``: per release (``2.21.0``), what an installer resolved its ranges to that day
    (package -> version, day, source); the data's recorded resolution stands in for the others.
    """
    releases = [r.version for r in compat.tensorflow]
    found: list[Candidate] = []
    for release in compat.tensorflow:
        version = wanted if wanted and is_wished_release(wanted, release.version) else release.latest
        python, penalty = choose_python(release.python.min, release.python.max, wish, machine)
        matches, distance = (
            is_wished_release(wanted, release.version),
            distance_from_wish(wanted, release.version, releases),
        )
        has_gpu = bool(machine.gpus) and machine.family != "darwin"
        build = release.gpu.get(machine.platform)
        if has_gpu and build is not None:
            served, ptx = _tensorflow_served(machine, build, compat)
            if served or ptx:
                for preference, (manager, supply) in enumerate(_tensorflow_routes(build, wish, machine)):
                    route_served, route_ptx = served, ptx
                    if supply == "wheels" and build.cuda_wheels is not None:
                        # The wheels' own cuDNN and cuBLAS decide too (cuDNN 8.9 has no Kepler code).
                        libraries = (build.cuda_wheels.cuda, build.cuda_wheels.cudnn)
                        route_served, route_ptx = _tensorflow_served(machine, build, compat, libraries)
                        if not (route_served or route_ptx):
                            continue
                    minimum = _route_min_drivers(build, supply, compat)[machine.driver_os]
                    needs_update = not (
                        machine.driver is not None
                        and minimum is not None
                        and at_least(machine.driver, minimum)
                    )
                    plan = _tensorflow_plan(
                        release,
                        build,
                        version=version,
                        python=python,
                        manager=manager,
                        supply=supply,
                        machine=machine,
                        compat=compat,
                        served=route_served + route_ptx,
                        ptx=route_ptx,
                        needs_update=needs_update,
                        target="native",
                        resolved_today=(resolutions or {}).get(version),
                    )
                    tier = TIER_GPU_AFTER_DRIVER_UPDATE if needs_update else TIER_GPU_NOW
                    found.append(
                        Candidate(
                            plan,
                            tier,
                            matches,
                            distance,
                            penalty + preference,  # the first manager offered is the better one
                            cuda_preference(build.cuda, machine.cuda_max),
                        )
                    )
        linux_build = release.gpu.get("linux")
        if (
            has_gpu
            and machine.family == "windows"
            and build is None
            and linux_build is not None
            # A Windows build that gives no CUDA to WSL 2 has no such route (a note says so).
            and windows_build_supports_wsl_gpu(
                machine.wsl_host.windows_build if machine.wsl_host else None, compat
            )
        ):
            # TensorFlow > 2.10 has no native-Windows GPU build; WSL 2 runs the Linux one on this GPU.
            served, ptx = _tensorflow_served(machine, linux_build, compat)
            if served or ptx:
                needs_update = not wsl_driver_ok(machine, linux_build.cuda, compat)
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
                    supply=linux_build.cuda_supply,
                    machine=machine,
                    compat=compat,
                    served=served + ptx,
                    ptx=ptx,
                    needs_update=needs_update,
                    target="wsl2",
                    resolved_today=(resolutions or {}).get(version),
                )
                found.append(
                    Candidate(
                        plan,
                        _wsl_tier(machine, needs_update, compat),
                        matches,
                        distance,
                        penalty,
                        cuda_preference(linux_build.cuda, machine.cuda_max),
                    )
                )
        if machine.platform in release.cpu:
            plan = _tensorflow_cpu_plan(release, version, python, wish.manager or "venv", compat)
            found.append(Candidate(plan, TIER_CPU, matches, distance, penalty, (0, 0, 0)))
    return with_conda_engine(found, machine)


def _wsl_tier(machine: MachineView, needs_update: bool, compat: CompatData) -> int:
    """How the WSL 2 route ranks: beside the native builds once detection asked ``wsl.exe``.

    The wizard carries the route out itself (issue 39), installing WSL when it must: where the
    report says what WSL there is, the route counts as using the GPU now (after a driver update,
    when the driver is too old). A report without that block (made elsewhere, or by an older
    wizard) keeps it an alternative. (A Windows build older than the one CUDA in WSL 2 needs gets
    no route at all.)
    """
    if machine.wsl_host is None:
        return TIER_GPU_IN_WSL2
    return TIER_GPU_AFTER_DRIVER_UPDATE if needs_update else TIER_GPU_NOW


def windows_build_supports_wsl_gpu(build: int | None, compat: CompatData) -> bool:
    """Whether Windows build ``build`` gives CUDA to WSL 2 (policy ``wsl2_gpu``); True when unknown."""
    minimum = compat.policy("wsl2_gpu").get("min_windows_build")
    return build is None or minimum is None or build >= int(minimum)


def _tensorflow_served(
    machine: MachineView,
    build: TensorflowGpuBuild,
    compat: CompatData,
    libraries: tuple[str, str] | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """GPUs a TensorFlow build serves natively, and through its PTX.

    TensorFlow documents its PTX as supported: "CUDA architectures 3.5, 5.0, 6.0, 7.0, 7.5, 8.0
    and higher" (TFDOCS-PIP). A GPU the bundled cuDNN or cuBLAS no longer supports is served by
    neither (the libraries' support matrices, cuda.json ``library_architectures``). ``libraries``:
    the CUDA and cuDNN that really serve the build, when not its own (NVIDIA's wheels).
    """
    archs = build.archs
    cuda, cudnn = libraries or (build.cuda, build.cudnn)

    def libraries_ok(capability: str) -> bool:
        return compat.libraries_exclude(cuda, cudnn, capability) is None

    # Each compute capability is judged once, however many GPUs share it (machine_view.gpus_where).
    native = gpus_where(
        machine,
        lambda capability: archs.runs_natively_on(capability) and libraries_ok(capability),
        unknown=True,
    )
    ptx = gpus_where(
        machine,
        lambda capability: archs.runs_through_ptx_on(capability) and libraries_ok(capability),
        unknown=False,
    )
    return native, ptx


def _tensorflow_routes(build: TensorflowGpuBuild, wish: Wish, machine: MachineView) -> list[tuple[str, str]]:
    """The routes to plan with, best first: each a manager and where CUDA and cuDNN come from.

    The supplies: ``conda`` (conda-forge's packages, the TensorFlow guide's recipe for the old
    Windows builds), ``wheels`` (NVIDIA's CUDA 11 and cuDNN 8 wheels in a venv, with the
    environment's DLL start-up hook: only the driver is needed), ``system`` (a toolkit and cuDNN
    installed on the system and put on PATH), or the build's own (``and-cuda``, ``pip-cudnn``).
    Where NVIDIA's wheels can serve the build, a venv with them comes first unless conda is
    here, or the machine already has the build's CUDA and cuDNN on disk (their route stays
    for those who set them up).
    """
    old_supply = build.cuda_supply in ("system", "pip-cudnn") and bool(build.conda_packages)
    wheels = build.cuda_wheels is not None and machine.platform == "windows"
    venv = [("venv", "wheels"), ("venv", build.cuda_supply)] if wheels else [("venv", build.cuda_supply)]
    if wheels and _has_build_libraries(build, machine):
        venv.reverse()
    if wish.manager == "conda":
        return [("conda", "conda")] if old_supply else [("conda", build.cuda_supply)]
    if wish.manager == "venv" or not old_supply:
        return venv
    if machine.has_conda or (machine.family == "windows" and not wheels):
        return [("conda", "conda"), *venv]
    return [*venv, ("conda", "conda")]


def _has_build_libraries(build: TensorflowGpuBuild, machine: MachineView) -> bool:
    """The build's CUDA toolkit and cuDNN (same minors) are both on this machine's disk."""
    return any(k.version and minor_of(k.version) == build.cuda for k in machine.toolkits) and any(
        d.version and minor_of(d.version) == minor_of(build.cudnn) for d in machine.cudnn
    )


def _route_min_drivers(build: TensorflowGpuBuild, supply: str, compat: CompatData) -> dict[str, str | None]:
    """The lowest drivers of a route.

    NVIDIA's wheels bring CUDA 11.8 libraries, and cuDNN 8.9 compiles kernels at run time with
    NVRTC 11.8: PTX of 11.8 does not load on a driver older than 11.8's own ("Applications
    that compile device code to PTX will not work on older drivers", NV-MVC-LIMITS), so the
    floor is CUDA 11.8's toolkit driver (520.06 on Windows), not minor version compatibility's.
    """
    floors = min_drivers(build.cuda, compat)
    if supply != "wheels" or build.cuda_wheels is None:
        return floors
    toolkit = next((t for t in compat.toolkit_drivers if minor_of(t.cuda) == build.cuda_wheels.cuda), None)
    if toolkit is None:
        return min_drivers(max(build.cuda, build.cuda_wheels.cuda, key=version_key), compat)
    return {
        "linux": _higher(floors["linux"], toolkit.linux),
        "windows": _higher(floors["windows"], toolkit.windows),
    }


def _higher(first: str | None, second: str | None) -> str | None:
    if first is None or second is None:
        return first or second
    return max(first, second, key=version_key)


def _tensorflow_plan(
    release: TensorflowRelease,
    build: TensorflowGpuBuild,
    *,
    version: str,
    python: str,
    manager: str,
    supply: str,
    machine: MachineView,
    compat: CompatData,
    served: tuple[int, ...],
    ptx: tuple[int, ...],
    needs_update: bool,
    target: str,
    resolved_today: Mapping[str, tuple[str, str, str]] | None = None,
) -> Plan:
    windows = machine.platform == "windows"
    conda_supplies = supply == "conda" and bool(build.conda_packages)
    wheels = build.cuda_wheels if supply == "wheels" else None
    system_toolkit = supply in ("system", "pip-cudnn")
    removed = compat.policy("tensorflow_gpu_package_removed")
    if version_key(release.version) < version_key(removed["same_package_since"]):
        # Before 2.1 the GPU build is only in tensorflow-gpu (plain tensorflow 2.0 is CPU-only).
        requirements = [f"{removed['package']}=={version}"]
    elif build.cuda_supply == "and-cuda":
        requirements = [f"tensorflow[and-cuda]=={version}"]
    else:
        requirements = [f"tensorflow=={version}"]
    requirements += numpy_pin(release, compat)
    # What the build's ranges resolve to, and the pins that keep the GPUs it serves supported.
    serving = frozenset(served)  # a set: a fleet's plan serves thousands of GPUs
    capabilities = {gpu.capability for gpu in machine.gpus if gpu.index in serving and gpu.capability}
    resolved = pin_for_gpus(resolved_ranges(build.library_ranges, resolved_today), capabilities, compat)
    requirements += [pin for library in resolved if (pin := library.requirement)]
    if build.cuda_supply == "pip-cudnn":
        requirements.append(f"nvidia-cudnn-cu11=={build.cudnn}.*")
    if wheels is not None:
        requirements += wheels.packages
    path_entries: tuple[str, ...] = ()
    if windows and system_toolkit:
        path_entries = _windows_path_entries(machine, build)
    reasons = gpu_reasons(machine, served, build.archs)
    if wheels is not None:
        minimum = _route_min_drivers(build, supply, compat)[machine.driver_os]
        reasons += driver_reasons(machine, wheels.cuda, compat, minimum=minimum)
    else:
        reasons += driver_reasons(machine, build.cuda, compat, wsl=target == "wsl2")
    route = wsl_route(machine.wsl_host) if target == "wsl2" else None
    if route is not None:
        reasons += wsl_route_reasons(route)
    reasons += _supply_reasons(build, wheels, conda_supplies=conda_supplies, windows=windows, version=version)
    reasons += [_pin_reason(library) for library in resolved if library.pin]
    where = "a conda environment" if manager == "conda" else "a venv"
    inside = " inside WSL 2" if target == "wsl2" else ""
    from_wheels = (
        f" (runtime CUDA {wheels.cuda} and cuDNN {wheels.cudnn} from NVIDIA's wheels)" if wheels else ""
    )
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
        min_driver=wsl_min_drivers(build.cuda, compat)
        if target == "wsl2"
        else _route_min_drivers(build, supply, compat),
        cuda_wheels=wheels,
        manager=manager,
        target=target,
        gpu_indices=served,
        ptx_jit=ptx,
        driver_update_required=needs_update,
        summary=f"TensorFlow {version} with CUDA {build.cuda} and cuDNN {build.cudnn}{from_wheels} "
        f"for Python {python} in {where}{inside}",
        reasons=tuple(reasons),
        resolved=resolved,
        wsl=route,
    )


def _pin_reason(library: ResolvedLibrary) -> str:
    source = (
        QT_TRANSLATE_NOOP(
            "reasons",
            "{package} {spec} resolves to {version} (the data's resolution of {day}), which no longer supports compute capability {capabilities}: the plan pins {package}{pin}, in the environment's constraints too.",
        )
        if library.source == "data"
        else QT_TRANSLATE_NOOP(
            "reasons",
            "{package} {spec} resolves to {version} today ({day}), which no longer supports compute capability {capabilities}: the plan pins {package}{pin}, in the environment's constraints too.",
        )
    )
    return reason_text(
        source,
        package=library.package,
        spec=library.spec,
        version=library.version,
        day=library.resolved_on,
        capabilities=", ".join(library.drops),
        pin=library.pin,
    )


def _supply_reasons(
    build: TensorflowGpuBuild,
    wheels: CudaWheels | None,
    *,
    conda_supplies: bool,
    windows: bool,
    version: str,
) -> list[str]:
    """Where CUDA and cuDNN come from for this plan, as reasons."""
    reasons: list[str] = []
    if build.cuda_supply == "and-cuda":
        reasons.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons", "tensorflow[and-cuda] brings CUDA {cuda} and cuDNN {cudnn} as pip packages."
                ),
                cuda=build.cuda,
                cudnn=build.cudnn,
            )
        )
    elif wheels is not None:
        reasons.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "NVIDIA's CUDA {runtime} and cuDNN {cudnn_runtime} wheels bring the DLLs into the "
                    "environment, and it finds them however its Python is started: only the driver is "
                    "needed, no CUDA toolkit, cuDNN download or PATH change.",
                ),
                runtime=wheels.cuda,
                cudnn_runtime=wheels.cudnn,
            )
        )
        reasons.append(
            reason_text(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "TensorFlow {version} was built with CUDA {cuda} and cuDNN {cudnn}: it runs on a later "
                    "CUDA 11 runtime (NVIDIA's minor version compatibility) and accepts cuDNN {cudnn_runtime} "
                    "(same major version, equal or higher minor: its own check when it loads cuDNN).",
                ),
                version=version,
                cuda=build.cuda,
                cudnn=build.cudnn,
                cudnn_runtime=wheels.cudnn,
            )
        )
    elif conda_supplies:
        reasons.append(
            reason_text(
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
        reasons.append(reason_text(template, cuda=build.cuda, cudnn=build.cudnn))
    return reasons


def numpy_pin(release: TensorflowRelease, compat: CompatData) -> list[str]:
    """``numpy<2`` for the releases built against NumPy 1 whose wheels do not cap it (policy ``tensorflow_numpy``).

    Their wheels ask for ``numpy>=1.20`` (2.8 to 2.11) with no upper bound, so pip picks NumPy 2
    today, whose ABI such builds cannot load ("A module that was compiled using NumPy 1.x cannot
    be run in NumPy 2"): the policy's sources. Releases whose wheels cap NumPy need no pin.
    """
    policy = compat.policies.get("tensorflow_numpy")  # absent from data published before it
    if policy and release.version in policy.get("releases", ()):
        return [str(policy["requirement"])]
    return []


def _tensorflow_cpu_plan(
    release: TensorflowRelease, version: str, python: str, manager: str, compat: CompatData
) -> Plan:
    where = "a conda environment" if manager == "conda" else "a venv"
    return Plan(
        framework="tensorflow",
        framework_version=version,
        python=python,
        cpu_only=True,
        cuda=None,
        cudnn=None,
        torch_variant=None,
        requirements=(f"tensorflow=={version}", *numpy_pin(release, compat)),
        index_url=None,
        conda_packages=(f"python={python}",) if manager == "conda" else (),
        manager=manager,
        summary=f"TensorFlow {version}, CPU only, for Python {python} in {where}",
        reasons=(
            reason_text(QT_TRANSLATE_NOOP("reasons", "Runs on the CPU: no NVIDIA driver or CUDA needed.")),
        ),
    )


def _windows_path_entries(machine: MachineView, build: TensorflowGpuBuild) -> tuple[str, ...]:
    """The CUDA ``bin`` and ``libnvvp`` and the cuDNN ``bin`` the build needs on PATH.

    The ones on this machine when they are there, else where the installers put them.
    """
    toolkit = next(
        (
            k
            for k in toolkits_in_path_order(machine.toolkits)
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
