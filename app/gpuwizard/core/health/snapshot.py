"""The last good state: what the machine and each environment were when the live test passed.

The wizard records a :class:`Snapshot` (``GPUWIZARD_HOME/last-good.json``, schema
``gpuwizard.snapshot/1``) whenever an environment's live test passes, and ``verify`` compares
the machine as it is now against it (machine_drift.py, env_drift.py and path_drift.py beside
it). It keeps what decides whether a setup still works: driver, GPUs (never their UUIDs or
serial numbers), each environment's framework build and pin, the GPUs the framework saw and
the test's verdict, the NVIDIA wheels installed in it and whether its DLL start-up hook was
active, and the PATH folders the wizard added; and, for ``verify --no-test`` to reuse, each
environment's fingerprint with its env probe's answer (core/health/probe_reuse.py). Pure data
and parsing, no I/O. Fields added later are optional: an older file still loads, its missing
facts read as unknown.

>>> snapshot = Snapshot(recorded="2026-01-01T00:00:00+00:00", driver_version="550.54", driver_cuda_max="12.4")
>>> snapshot_from_json(snapshot_to_json(snapshot)) == snapshot
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, Final

from packaging.requirements import InvalidRequirement, Requirement
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion

from gpuwizard.core.events import value_to_json
from gpuwizard.core.frameworks import FRAMEWORKS
from gpuwizard.core.livetest.libraries import CudaWheel, wheels_from_json
from gpuwizard.core.machine.readiness import usable_gpus
from gpuwizard.core.machine.system_report import SystemReport

SNAPSHOT_SCHEMA: Final = "gpuwizard.snapshot/1"

# PyTorch wheel tags name their CUDA as cuXY[Z]: cu118 is CUDA 11.8, cu126 is 12.6, cu130 is 13.0
# (download.pytorch.org/whl/ index names, pytorch.org/get-started/locally).
_CUDA_TAG: Final = re.compile(r"^cu(\d+)(\d)$")


class SnapshotError(ValueError):
    """A snapshot file that is not a ``gpuwizard.snapshot/1`` snapshot; the message is one line."""


# --- the last good state ---------------------------------------------------------------------


@dataclass(frozen=True)
class SnapshotGpu:
    """A GPU as it was when the state was recorded (never its UUID or serial number)."""

    index: int
    name: str | None
    compute_capability: str | None = None
    memory_total_mib: int | None = None
    #: ``nvidia``, ``amd``, ``intel`` or ``apple``; a snapshot from before it held NVIDIA GPUs only.
    vendor: str = "nvidia"
    #: An AMD GPU's gfx target, what its builds must carry (issue 38).
    gfx_target: str | None = None


@dataclass(frozen=True)
class SnapshotEnv:
    """One environment as it was when its live test passed.

    Attributes:
        name: The environment's name in the wizard's registry.
        path: Its folder.
        python: Its interpreter.
        manager: ``venv`` or ``conda``.
        framework: ``pytorch`` or ``tensorflow``.
        framework_version: The public version (``2.13.0``).
        framework_build: The installed build as the framework reports it (``2.13.0+cu126``).
        built_with_cuda: Whether that build carries CUDA; None when unknown.
        cuda_build: The CUDA the build was made with (``12.6``); None for CPU builds.
        constraints: The constraints file that pins the build.
        pins: The pins in that file (``torch==2.13.0+cu126``).
        gpus_visible: How many GPUs the framework saw; None when unknown.
        gpu_names: The names of those GPUs, as the framework reported them (empty when unknown).
        test_verdict: The live test's verdict (``gpu_ok``...); None when not tested.
        samples_per_s: The test's throughput per device (``{"gpu": ..., "cpu": ...}``).
        python_version: The interpreter's version (``3.11.7``).
        index_url: The package index the build comes from (None: the default index).
        created: When the environment was made (from the registry), to notice a re-creation.
        tested: When the verdict was recorded.
        cuda_wheels: The ``nvidia-*`` wheels installed (name, version); None when not recorded
            (an older snapshot, or the probe could not list them).
        dll_hook_active: Whether the DLL start-up hook put the wheels' folders on the DLL search
            path (Windows); None when not recorded.
        probe_fingerprint: What the environment's installed files, its interpreter, the
            variables that steer the framework and the machine's driver and GPUs were when
            verify's env probe gave ``probe`` (``sha256:...``,
            ``workflow/health/env_fingerprint.py``); None when not recorded (an older file, a
            WSL environment, or files that changed while the probe ran).
        probe: What that probe answered, as far as verify judges it (``probe_reuse.PROBE_FACTS``):
            ``verify --no-test`` reuses it instead of importing the framework again while the
            fingerprint is the same. None when not recorded.
    """

    name: str
    path: str
    python: str
    manager: str
    framework: str
    framework_version: str
    framework_build: str | None = None
    built_with_cuda: bool | None = None
    cuda_build: str | None = None
    constraints: str | None = None
    pins: tuple[str, ...] = ()
    gpus_visible: int | None = None
    gpu_names: tuple[str, ...] = ()
    test_verdict: str | None = None
    samples_per_s: Mapping[str, float | None] | None = None
    python_version: str | None = None
    index_url: str | None = None
    created: str | None = None
    tested: str | None = None
    cuda_wheels: tuple[CudaWheel, ...] | None = None
    dll_hook_active: bool | None = None
    probe_fingerprint: str | None = None
    probe: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class SnapshotPathEntry:
    """A PATH folder the wizard added, present when the state was recorded.

    Attributes:
        registry: ``live`` or ``file:<snapshot path>`` (as the PATH journal names it).
        scope: ``user`` or ``system``.
        folder: The folder as written in PATH.
    """

    registry: str
    scope: str
    folder: str


@dataclass(frozen=True)
class Snapshot:
    """The last good state."""

    recorded: str
    driver_version: str | None = None
    driver_cuda_max: str | None = None
    gpus: tuple[SnapshotGpu, ...] = ()
    environments: tuple[SnapshotEnv, ...] = ()
    path_entries: tuple[SnapshotPathEntry, ...] = ()

    def environment(self, name: str) -> SnapshotEnv | None:
        """The environment called ``name``, if it is in the snapshot."""
        return next((env for env in self.environments if env.name == name), None)


def snapshot_gpus(report: SystemReport) -> tuple[SnapshotGpu, ...]:
    """The usable GPUs of a report, as a snapshot keeps them (no UUIDs).

    The NVIDIA GPUs a driver serves, and the AMD, Intel and Apple GPUs the OS lists: a GPU of
    any kind that vanishes after an update is drift (issue 38).
    """
    others = [gpu for gpu in report.compute_gpus if gpu.vendor != "nvidia" and gpu.status != "lost"]
    return tuple(
        SnapshotGpu(
            gpu.index, gpu.name, gpu.compute_capability, gpu.memory_total_mib, gpu.vendor, gpu.gfx_target
        )
        for gpu in (*usable_gpus(report), *others)
    )


def with_environment(snapshot: Snapshot, env: SnapshotEnv) -> Snapshot:
    """``snapshot`` with ``env`` added, or replacing the environment of the same name."""
    others = tuple(existing for existing in snapshot.environments if existing.name != env.name)
    return replace(snapshot, environments=(*others, env))


def snapshot_to_json(snapshot: Snapshot) -> dict[str, Any]:
    """The snapshot as ``gpuwizard.snapshot/1`` JSON data: the schema, then every field as declared."""
    return {"schema": SNAPSHOT_SCHEMA, **value_to_json(snapshot)}


def snapshot_from_json(data: object) -> Snapshot:
    """Read ``gpuwizard.snapshot/1`` data; unknown fields are ignored.

    Raises:
        SnapshotError: Not a snapshot: another schema, or fields of the wrong shape.
    """
    if not isinstance(data, Mapping):
        raise SnapshotError(f"not a {SNAPSHOT_SCHEMA} snapshot (expected a JSON object)")
    if data.get("schema") != SNAPSHOT_SCHEMA:
        raise SnapshotError(f"not a {SNAPSHOT_SCHEMA} snapshot (its schema is {data.get('schema')!r})")
    try:
        return Snapshot(
            recorded=str(data["recorded"]),
            driver_version=_text(data.get("driver_version")),
            driver_cuda_max=_text(data.get("driver_cuda_max")),
            gpus=tuple(
                SnapshotGpu(
                    index=int(gpu["index"]),
                    name=_text(gpu.get("name")),
                    compute_capability=_text(gpu.get("compute_capability")),
                    memory_total_mib=_integer(gpu.get("memory_total_mib")),
                    vendor=_text(gpu.get("vendor")) or "nvidia",
                    gfx_target=_text(gpu.get("gfx_target")),
                )
                for gpu in _list(data, "gpus")
            ),
            environments=tuple(_env_from_json(env) for env in _list(data, "environments")),
            path_entries=tuple(
                SnapshotPathEntry(str(entry["registry"]), str(entry["scope"]), str(entry["folder"]))
                for entry in _list(data, "path_entries")
            ),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        if isinstance(error, SnapshotError):
            raise
        raise SnapshotError(
            f"not a valid {SNAPSHOT_SCHEMA} snapshot ({type(error).__name__}: {error})"
        ) from None


def _env_from_json(env: Mapping[str, Any]) -> SnapshotEnv:
    rates = env.get("samples_per_s")
    built = env.get("built_with_cuda")
    hook = env.get("dll_hook_active")
    fingerprint, probe = env.get("probe_fingerprint"), env.get("probe")
    return SnapshotEnv(
        name=str(env["name"]),
        path=str(env["path"]),
        python=str(env.get("python") or ""),
        manager=str(env.get("manager") or "venv"),
        framework=str(env.get("framework") or ""),
        framework_version=str(env.get("framework_version") or ""),
        framework_build=_text(env.get("framework_build")),
        built_with_cuda=built if isinstance(built, bool) else None,
        cuda_build=_text(env.get("cuda_build")),
        constraints=_text(env.get("constraints")),
        pins=tuple(str(pin) for pin in env.get("pins") or ()),
        gpus_visible=_integer(env.get("gpus_visible")),
        gpu_names=tuple(str(name) for name in env.get("gpu_names") or () if isinstance(name, str)),
        test_verdict=_text(env.get("test_verdict")),
        samples_per_s={str(k): _number(v) for k, v in rates.items()} if isinstance(rates, Mapping) else None,
        python_version=_text(env.get("python_version")),
        index_url=_text(env.get("index_url")),
        created=_text(env.get("created")),
        tested=_text(env.get("tested")),
        cuda_wheels=wheels_from_json(env.get("cuda_wheels")),
        dll_hook_active=hook if isinstance(hook, bool) else None,
        # Both or neither: a fingerprint without the answer it vouches for reuses nothing.
        probe_fingerprint=_text(fingerprint) if isinstance(probe, Mapping) and fingerprint else None,
        probe=dict(probe) if isinstance(probe, Mapping) and fingerprint else None,
    )


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list):
        raise SnapshotError(f"not a valid {SNAPSHOT_SCHEMA} snapshot ({key!r} is not a list)")
    return value


def _text(value: object) -> str | None:
    return None if value is None else str(value)


def _integer(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


# --- builds and pins ------------------------------------------------------------------------------


def parse_constraints(text: str) -> tuple[str, ...]:
    r"""The requirement lines of a constraints file (comments and blank lines left out).

    >>> parse_constraints("# Written by gpuwizard\ntorch==2.13.0+cu126  # the build\n\n")
    ('torch==2.13.0+cu126',)
    """
    pins = []
    for line in text.splitlines():
        pin = line.split(" #", 1)[0].strip()
        if pin and not pin.startswith("#"):
            pins.append(pin)
    return tuple(pins)


def framework_pin(framework: str, pins: Iterable[str]) -> str | None:
    """The pin of the framework's distribution among ``pins`` (``torch==...``), if any."""
    known = FRAMEWORKS.get(framework)
    wanted = {canonicalize_name(name) for name in (known.distributions if known else (framework,))}
    for pin in pins:
        try:
            if canonicalize_name(Requirement(pin).name) in wanted:
                return pin
        except InvalidRequirement:
            continue
    return None


def pin_allows(pin: str, version: str) -> bool:
    """Whether ``version`` satisfies ``pin`` (PEP 440: ``==2.13.0`` allows ``2.13.0+cpu``).

    >>> pin_allows("torch==2.13.0+cu126", "2.13.0+cpu"), pin_allows("torch==2.13.0", "2.13.0+cpu")
    (False, True)
    """
    try:
        return Requirement(pin).specifier.contains(version, prereleases=True)
    except (InvalidRequirement, InvalidVersion):
        return pin.partition("==")[2].strip() == version


def cuda_of_build(build: str | None) -> tuple[bool | None, str | None]:
    """``(built_with_cuda, cuda)`` from a PyTorch build's local label; None where it says nothing.

    >>> cuda_of_build("2.13.0+cu126"), cuda_of_build("2.13.0+cpu"), cuda_of_build("2.16.1")
    ((True, '12.6'), (False, None), (None, None))
    """
    label = (build or "").partition("+")[2]
    match = _CUDA_TAG.match(label)
    if match:
        return True, f"{int(match.group(1))}.{match.group(2)}"
    if label == "cpu":
        return False, None
    return None, None


def torch_index_for(build: str | None, template: str) -> str | None:
    """The PyTorch index a labelled build comes from (``+cu126`` -> ``.../whl/cu126``); None otherwise.

    >>> torch_index_for("2.13.0+cu126", "https://download.pytorch.org/whl/{variant}")
    'https://download.pytorch.org/whl/cu126'
    """
    label = (build or "").partition("+")[2]
    return template.format(variant=label) if label and re.fullmatch(r"[a-z0-9.]+", label) else None
