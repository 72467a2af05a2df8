"""``recommend()``: a complete plan for a wish on a machine, or precisely why not and what instead.

Pure and deterministic: a system report, a wish and the compatibility tables in; a
:class:`~gpuwizard.core.compat.plan.Recommendation` out. Four axes are checked at once for every
candidate build:

- the driver: at least the minimum for the build's CUDA (minor-version compatibility);
- the compute capability: the build carries machine code for the GPU (PyTorch: only its
  SASS list counts; TensorFlow documents "8.0 and higher" through PTX, so its PTX counts);
- Python: within the release's tested range;
- OS policy: TensorFlow GPU on native Windows ended at 2.10, no CUDA on macOS,
  ``tensorflow[and-cuda]`` only on Linux/WSL 2.

Candidates are ranked: the wished version using the GPU as the machine is, then after a
driver update, then through WSL 2; then the nearest other version the same three ways; then
the CPU build. The best is the plan; distinct others are the alternatives.

This module ranks the candidates and assembles the recommendation; the parts live apart: the
machine as the recommender sees it (machine_view), the wish and the candidates' rank (candidates),
each framework's plans (torch_plans, tensorflow_plans), the driver and GPU reasons (reasons), and
the findings and notes (plan_findings).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Final

from gpuwizard.core.compat.candidates import (
    TIER_CPU,
    TIER_GPU_AFTER_DRIVER_UPDATE,
    TIER_GPU_IN_WSL2,
    TIER_GPU_NOW,
    Candidate,
    release_versions,
    wished_version,
)
from gpuwizard.core.compat.index_view import IndexReleases, beyond_tables, with_index
from gpuwizard.core.compat.library_pins import ResolvedToday
from gpuwizard.core.compat.machine_view import machine_view, toolkits_in_path_order
from gpuwizard.core.compat.plan import CudaNumbers, Freshness, Plan, Recommendation, Wish, WishError
from gpuwizard.core.compat.plan_findings import findings_for_plan, notes_for_plan
from gpuwizard.core.compat.reasons import gpu_min_drivers
from gpuwizard.core.compat.release_findings import patch_notes, release_findings
from gpuwizard.core.compat.tables import CompatData, version_key
from gpuwizard.core.compat.tensorflow_plans import tensorflow_candidates
from gpuwizard.core.compat.torch_plans import torch_candidates
from gpuwizard.core.findings.model import sort_findings
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.machine.system_report import SystemReport

_MAX_ALTERNATIVES: Final = 4


def recommend(
    report: SystemReport,
    wish: Wish,
    compat: CompatData,
    index: IndexReleases | None = None,
    resolutions: ResolvedToday | None = None,
) -> Recommendation:
    """The plan for ``wish`` on the machine ``report`` describes, with alternatives and findings.

    ``resolutions``: what an installer resolved the ranges of a release's requirements to that
    day (:mod:`gpuwizard.core.compat.library_pins`); else the data's recorded resolution.
    ``index`` is what the package index publishes (None: not asked): a newer patch of a known
    minor is planned, a newer minor is named and, when wished, answered with the newest
    verified plan.

    Raises:
        WishError: The wished version is not a known release (and the index does not have it).
    """
    compat, news = with_index(compat, index)
    machine = machine_view(report, compat)
    releases = release_versions(wish.framework, compat)
    unverified = _unverified_wish(wish, compat, index)
    asked = wish
    if unverified is not None:
        wish = replace(wish, version=None)  # plan the newest verified release instead
    wanted = wished_version(wish, releases, compat)
    candidates = (
        torch_candidates(machine, wish, wanted, compat)
        if wish.framework == "pytorch"
        else tensorflow_candidates(machine, wish, wanted, compat, resolutions)
    )
    if not candidates:
        # Only possible with tables that list no build at all for this OS.
        raise WishError(
            f"the compatibility data lists no {framework_title(wish.framework)} build for {machine.family}"
        )
    ranked = sorted(candidates, key=lambda c: c.key())
    best = ranked[0]
    # What every NVIDIA GPU here needs of a driver, whatever the build: once per machine (a
    # fleet's report lists thousands of GPUs), then on each NVIDIA plan given out.
    gpu_floor = gpu_min_drivers(machine, compat)
    plan = _with_gpu_floor(best.plan, gpu_floor)
    # DESIGN.md section 4: "PTX-JIT-only paths do not count". A plan counts when at least one
    # GPU it serves runs the build's machine code (the GPU_PTX_ONLY finding names the others).
    # gpu_supported is the plan's own (issue 36): a release the plan does not use says nothing
    # of it; whether some release of the wish would is said apart.
    plan_gpu_now = best.tier == TIER_GPU_NOW and _runs_natively(plan)
    wished_gpu_now = [
        c for c in ranked if c.tier == TIER_GPU_NOW and c.matches_wish and _runs_natively(c.plan)
    ]
    findings = findings_for_plan(machine, wish, wanted=wanted, compat=compat, plan=plan, ranked=ranked)
    findings += release_findings(asked, unverified, news, plan, index)
    return Recommendation(
        framework=wish.framework,
        # An unverified release's build matrix is unknown: not GPU-supported as far as we know.
        gpu_supported=plan_gpu_now and unverified is None,
        some_release_gpu_supported=bool(wished_gpu_now) and unverified is None,
        driver_update_required=plan.driver_update_required,
        plan=plan,
        alternatives=tuple(_with_gpu_floor(other, gpu_floor) for other in _alternatives(ranked)),
        findings=tuple(sort_findings(findings)),
        notes=tuple(notes_for_plan(machine, wish, compat, plan, ranked) + patch_notes(news, wish.framework)),
        cuda_numbers=CudaNumbers(
            driver_max=machine.cuda_max,
            driver_max_source=machine.cuda_max_source,
            toolkits=tuple(kit.version or "?" for kit in toolkits_in_path_order(machine.toolkits)),
            framework=plan.cuda,
            driver=machine.driver,
            driver_os=machine.driver_os,
        ),
        wish=asked,
        compat_origin=compat.origin,
        freshness=Freshness(
            data_generated=compat.generated,
            data_origin=compat.origin,
            index_checked_at=index.checked_at if index else None,
            index_source=index.source if index else None,
            unverified=tuple(v for f, v in news.unverified if f == asked.framework),
            patches=tuple((minor, newest) for f, minor, _, newest in news.patches if f == asked.framework),
        ),
    )


def _unverified_wish(wish: Wish, compat: CompatData, index: IndexReleases | None) -> str | None:
    """``"index"`` or ``"unchecked"`` when the wish names a minor newer than the tables know.

    Raises:
        WishError: The index was asked and has no such release: it does not exist.
    """
    if wish.version is None or not beyond_tables(wish.framework, wish.version, compat):
        return None
    if index is None:
        return None  # not asked (an answer file, an export): "not a known release", exit 2
    if not index.knows(wish.framework):
        return "unchecked"  # asked, no answer (offline): the newest verified plan, with a warning
    if index.has(wish.framework, wish.version):
        return "index"
    published = index.versions.get(wish.framework, ())
    newest = max(published, key=version_key) if published else "?"
    raise WishError(
        f"{framework_title(wish.framework)} {wish.version} is not a release "
        f"(the newest on the index is {newest})"
    )


def _with_gpu_floor(plan: Plan, gpu_floor: dict[str, str | None] | None) -> Plan:
    """``plan`` with the machine's GPU driver floor when it is an NVIDIA build (``min_driver`` set)."""
    if plan.device != "cuda" or not plan.min_driver or gpu_floor is None:
        return plan
    return replace(plan, gpu_min_driver=gpu_floor)


def _runs_natively(plan: Plan) -> bool:
    """Whether some GPU the plan serves runs the build's machine code, not only its PTX."""
    ptx_only = frozenset(plan.ptx_jit)  # a set: a fleet's plan serves thousands of GPUs
    return any(index not in ptx_only for index in plan.gpu_indices)


def _alternatives(ranked: list[Candidate]) -> tuple[Plan, ...]:
    """The other kinds of plan worth knowing, best first.

    Not the next few in rank (those differ only by an older release): the same release with
    another build or manager, the best plan of each other way of using the GPU (now, after a
    driver update, in WSL 2), the best plan of the other target (native Windows or WSL 2), and
    the CPU build; then the next in rank to fill up.
    """
    best = ranked[0]
    others = ranked[1:]
    picked: list[Candidate] = []
    seen = {_identity(best.plan)}

    def pick(candidate: Candidate | None) -> None:
        if (
            candidate is not None
            and _identity(candidate.plan) not in seen
            and len(picked) < _MAX_ALTERNATIVES
        ):
            seen.add(_identity(candidate.plan))
            picked.append(candidate)

    same_release = [
        c for c in others if c.plan.framework_version == best.plan.framework_version and c.tier < TIER_CPU
    ]
    for candidate in same_release[:2]:
        pick(candidate)
    # On Windows, TensorFlow's WSL 2 route and its native one are different ways to go (issue
    # 39): whichever is best, the best of the other is offered.
    pick(next((c for c in others if c.plan.target != best.plan.target and c.tier < TIER_CPU), None))
    for tier in (TIER_GPU_NOW, TIER_GPU_AFTER_DRIVER_UPDATE, TIER_GPU_IN_WSL2):
        pick(next((c for c in others if c.tier == tier and c.tier != best.tier), None))
    cpu = [c for c in others if c.tier == TIER_CPU]
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


def _identity(plan: Plan) -> tuple[str, str | None, str | None, str, bool, str, bool]:
    # A venv with NVIDIA's CUDA wheels and one with a system toolkit are different ways to go.
    return (
        plan.framework_version,
        plan.torch_variant,
        plan.cuda,
        plan.target,
        plan.cpu_only,
        plan.manager,
        plan.cuda_wheels is not None,
    )
