"""The wish and the candidates: which release is wished, how near a release is, which Python.

A :class:`Candidate` is one possible plan with what ranks it (its tier: how it uses the GPU; its
distance from the wished release; its Python). The PyTorch and TensorFlow candidate builders make
them, the recommender sorts them by :meth:`Candidate.key`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from gpuwizard.core.compat.machine_view import MachineView
from gpuwizard.core.compat.plan import Plan, Wish, WishError
from gpuwizard.core.compat.tables import CompatData, TensorflowRelease, TorchRelease, minor_of, version_key
from gpuwizard.core.frameworks import framework_title

# Ranking tiers: how a candidate uses the GPU.
TIER_GPU_NOW: Final = 0
TIER_GPU_AFTER_DRIVER_UPDATE: Final = 1
TIER_GPU_IN_WSL2: Final = 2
TIER_CPU: Final = 3


@dataclass(frozen=True)
class Candidate:
    """One possible plan, with what ranks it: its tier and how close it is to the wish."""

    plan: Plan
    tier: int
    matches_wish: bool
    distance: int
    python_penalty: int
    cuda_preference: tuple[int, ...]

    def key(self) -> tuple[int, int, int, object, int, tuple[int, ...], str]:
        """The sort key of the ranking: lower is better."""
        # The wished version first, but a version that uses the GPU beats the wished
        # version on the CPU: the point of the wizard is the GPU (issue 3: "the nearest plan
        # that does").
        if self.tier < TIER_CPU:
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


def with_conda_engine(candidates: Sequence[Candidate], machine: MachineView) -> list[Candidate]:
    """The candidates, each conda plan naming the engine that would make it on this machine.

    Both frameworks' builders end here, so every conda plan says it the same way: conda, mamba
    or micromamba when installed, else ``rattler`` (py-rattler, shipped with the wizard).
    """
    return [
        replace(candidate, plan=replace(candidate.plan, conda_engine=machine.conda_engine))
        if candidate.plan.manager == "conda"
        else candidate
        for candidate in candidates
    ]


def release_versions(framework: str, compat: CompatData) -> list[str]:
    """The releases of ``framework`` in the tables, newest first."""
    rows: Sequence[TorchRelease | TensorflowRelease] = (
        compat.pytorch if framework == "pytorch" else compat.tensorflow
    )
    return [row.version for row in rows]


def wished_version(wish: Wish, releases: list[str], compat: CompatData) -> str | None:
    """The wished release's exact version, or None without a wish."""
    if wish.version is None:
        return None
    title = framework_title(wish.framework)
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


def is_wished_release(wanted: str | None, release_version: str) -> bool:
    """Whether the release (a minor version) is the wished one; any is without a wish."""
    return wanted is None or minor_of(wanted) == release_version


def distance_from_wish(wanted: str | None, release_version: str, releases: list[str]) -> int:
    """How many releases lie between the wished one and ``release_version``."""
    if wanted is None:
        return 0
    return abs(releases.index(minor_of(wanted)) - releases.index(release_version))


def choose_python(
    python_range_min: str, python_range_max: str, wish: Wish, machine: MachineView
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
