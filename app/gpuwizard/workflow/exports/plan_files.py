"""The plan as a file for another target (``gpuwizard export``): which plan, and its text.

The plan is the recommendation for a machine and a wish like ``recommend``'s, or the exact
build of an environment the wizard made. A Dockerfile gets a plan of its own, made for Linux
with the host's GPUs and driver (:mod:`gpuwizard.core.exports.docker`); the renderers are pure
(:mod:`gpuwizard.core.exports.files`); this module picks the plan and reads the bundled image table.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from importlib import resources

from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.compat.plan import FRAMEWORKS, Wish, plan_build_name
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import minor_of
from gpuwizard.core.exports.docker import (
    DockerImages,
    docker_images_from_json,
    plan_container,
    render_dockerfile,
)
from gpuwizard.core.exports.files import (
    Export,
    ExportError,
    default_name,
    plan_with_build,
    render_environment_yml,
    render_requirements,
)
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.state.env_registry import find_record


@dataclass(frozen=True)
class ExportSource:
    """Which plan to write: a wish (the recommendation), or an environment's exact build.

    Attributes:
        wish: The framework, release, Python and manager.
        build: The exact build to keep (``2.13.0+cu126``), for an environment the wizard made.
        origin: What the plan comes from, for the file's header (None: the recommendation).
        env_name: The environment's name, when the plan is one's.
    """

    wish: Wish
    build: str | None = None
    origin: str | None = None
    env_name: str | None = None


def environment_source(env_name: str, fmt: str, manager: str) -> ExportSource:
    """The plan of the environment the wizard made under ``env_name``, build and Python as made.

    Raises:
        ExportError: No such environment, or one without a framework the wizard installed.
    """
    record = find_record(env_name)
    if record is None:
        raise ExportError(
            f"no environment called {env_name!r} ({wizard_command().line('env list')} shows them)"
        )
    if record.framework not in FRAMEWORKS or not record.framework_version:
        raise ExportError(f"the environment {env_name!r} has no framework the wizard installed")
    if fmt == "requirements" and record.manager in ("venv", "conda"):
        manager = record.manager
    python = minor_of(record.python_version) if record.python_version else None
    origin = (
        f"the environment {record.name!r} ({record.framework} {record.framework_build or record.framework_version}"
        + (f", Python {record.python_version}" if record.python_version else "")
        + ")"
    )
    return ExportSource(
        wish=Wish(
            record.framework, record.framework_version, python, manager, requested_name=record.framework
        ),
        build=record.framework_build or None,
        origin=origin,
        env_name=record.name,
    )


def render_export(
    fmt: str, source: ExportSource, report: SystemReport, where: str, *, name: str | None, file_name: str
) -> tuple[str, str]:
    """The file's text and a one-line summary of the plan in it.

    Args:
        fmt: ``dockerfile``, ``environment.yml`` or ``requirements``.
        source: Which plan.
        report: The machine planned for.
        where: That machine, in words, for the header ("this machine").
        name: The conda environment's or image's name; None: from the environment or the plan.
        file_name: The name of the file being written (the requirements say how to install it).

    Raises:
        ExportError: The plan cannot be written in this format (no image for it, say).
        WishError: The wish names something unknown.
    """
    compat = load_compat()
    origin = source.origin or f"the recommendation for {where}"
    if fmt == "dockerfile":
        container = plan_container(report, source.wish, compat, docker_images(), build=source.build)
        plan = container.plan
        built = replace(plan, framework_version=container.base.framework_version or plan.framework_version)
        export = Export(
            plan, report, origin, name or default_name(built, source.env_name), container.recommendation
        )
        text = render_dockerfile(
            export, container.base, wished_python=source.wish.python, file_name=file_name
        )
        return text, f"{plan_build_name(built)} in a Linux container from {container.base.reference}"
    recommendation = recommend(report, source.wish, compat)
    plan = plan_with_build(recommendation, source.build, compat)
    export = Export(plan, report, origin, name or default_name(plan, source.env_name), recommendation)
    render = render_requirements if fmt == "requirements" else render_environment_yml
    summary = f"{plan_build_name(plan)} for Python {plan.python}"
    if plan.index_url:
        summary += f" from {plan.index_url}"
    return render(export, file_name), summary


def docker_images() -> DockerImages:
    """The bundled base-image table (``resources/compat/docker_images.json``)."""
    text = resources.files("gpuwizard.resources").joinpath("compat/docker_images.json").read_text("utf-8")
    return docker_images_from_json(json.loads(text))
