"""Before an install: which indexes it will contact, and whether each answers.

:func:`sources_for` decides where a plan's packages will come from on this machine (the same
decision :mod:`.prepare` makes for the install itself); :func:`check_plan_sources` asks every
index of it at once, in parallel, for its page of the plan's first project, and returns a
:class:`~gpuwizard.core.envs.index_reach.SourcesCheck` with what to say when one does not
answer, the ways forward included: the same release from PyPI when that is a correct build for
this machine (:func:`pypi_alternative`) and PyPI answers. The places of the Python build uv
downloads, when none of the plan's is installed (``PreparedEnv.python_download``), are asked in
the same round (issue 37, point 6).

``gpuwizard env create``, ``gpuwizard apply`` (through :func:`gpuwizard.workflow.envs.setup.plan_setup`)
and the Choose page (on a worker) call it; offline, nothing is asked.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

from gpuwizard.adapters.index_check import IndexProbe, probe_download_from_environment, probe_from_environment
from gpuwizard.adapters.index_settings import read_index_settings
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.compat.plan import Plan, Recommendation
from gpuwizard.core.compat.pypi_route import NoPypiBuild, pypi_build
from gpuwizard.core.envs.index_reach import (
    IndexAnswer,
    IndexStatus,
    PythonStatus,
    SourcesCheck,
    check_findings,
    python_unreachable_finding,
)
from gpuwizard.core.envs.package_sources import (
    IndexSettings,
    MirrorRefused,
    PlanSources,
    SourceIndex,
    plan_sources,
    requirement_project,
)
from gpuwizard.core.envs.python_download import PythonDownload
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.findings.model import Finding, make_finding
from gpuwizard.core.machine.system_report import ManagerFacts, SystemReport
from gpuwizard.workflow.compat.data import load_compat

__all__ = [
    "MirrorRefused",
    "PypiAlternative",
    "ask_sources",
    "check_plan_sources",
    "expected_tool",
    "pypi_alternative",
    "sources_for",
]

#: Places asked at once (a plan has two indexes at most, three with PyPI's build as a way
#: forward, and the Python build uv downloads two places more).
_WORKERS: Final = 6


@dataclass(frozen=True)
class PypiAlternative:
    """The same release from PyPI, offered when PyTorch's index does not answer.

    Attributes:
        index: The index it would come from (PyPI, or the person's PyPI mirror).
        finding: What to say (``PYPI_BUILD_AVAILABLE``).
        plan: The plan that installs it.
    """

    index: SourceIndex
    finding: Finding
    plan: Plan


def expected_tool(manager: str, tool: str | None, managers: ManagerFacts) -> str:
    """The tool that will install the packages: ``uv`` for a venv when uv is there, else pip.

    conda environments get their pip packages from pip too (``adapters/envs/conda.py``); the
    choice follows ``workflow/envs/prepare.py``'s ``_backend``.
    """
    if manager == "conda" or tool in ("pip", "conda", "mamba", "micromamba"):
        return "pip"
    return "uv" if managers.uv else "pip"


def has_pip_wheel(folder: Path | None) -> bool:
    """Whether a folder of wheels holds pip (a uv environment then gets it from there)."""
    return folder is not None and folder.is_dir() and any(folder.glob("pip-*.whl"))


def sources_for(
    plan: Plan,
    *,
    tool: str,
    find_links: Path | None,
    offline: bool,
    settings: IndexSettings,
) -> PlanSources:
    """Where the install of ``plan`` by ``tool`` will take its packages from.

    Raises:
        MirrorRefused: A mirror the person set cannot be used.
    """
    return plan_sources(
        index_url=plan.index_url,
        variant=plan.torch_variant,
        tool=tool,
        settings=settings,
        find_links=str(find_links) if find_links is not None else None,
        offline=offline,
        pip_from_folder=has_pip_wheel(find_links),
    )


def sources_for_request(plan: Plan, request: SetupRequest, managers: ManagerFacts) -> PlanSources:
    """Where carrying out ``request`` for ``plan`` takes its packages from, with this machine's settings.

    Raises:
        MirrorRefused: A mirror the person set cannot be used.
    """
    return sources_for(
        plan,
        tool=expected_tool(request.wanted_manager or plan.manager, request.tool, managers),
        find_links=request.find_links,
        offline=request.offline,
        settings=read_index_settings(),
    )


def pypi_alternative(
    rec: Recommendation, report: SystemReport, *, name: str, tool: str, settings: IndexSettings
) -> PypiAlternative | None:
    """PyPI's build of the plan's release, when the plan uses PyTorch's index and it is a correct build here."""
    if rec.plan.index_url is None:
        return None
    try:
        build = pypi_build(rec, report, load_compat())
        index = plan_sources(index_url=None, variant=None, tool=tool, settings=settings).indexes[0]
    except (NoPypiBuild, MirrorRefused):
        return None
    version = build.plan.framework_version
    finding = make_finding(
        "PYPI_BUILD_AVAILABLE",
        variant="cpu" if build.larger else None,
        version=version,
        build=build.variant,
        name=name,
        command=_pypi_command(name, version),
    )
    return PypiAlternative(index, finding, build.plan)


def _pypi_command(name: str, version: str) -> str:
    # The whole command, quoted for this machine's shells (a name may hold spaces): a command of
    # the hint (core/findings/fix_parts.py), shown on a line of its own.
    return wizard_command().run(
        "env", "create", name, "--framework", "pytorch", "--version", version, "--from-pypi"
    )


def ask_sources(
    report: SystemReport,
    rec: Recommendation,
    sources: PlanSources,
    *,
    name: str,
    probe: IndexProbe,
    settings: IndexSettings,
    python: PythonDownload | None = None,
    download_probe: IndexProbe = probe_download_from_environment,
) -> SourcesCheck:
    """Ask the indexes of ``sources``, with PyPI's build of the release as a way forward where it fits.

    The one check before an install (``plan_setup``) and on the Choose page; ``name`` is the
    environment's, for the command the PyPI finding gives. ``python``: the Python build uv
    downloads for the environment, whose places are asked with the indexes.
    """
    alternative = pypi_alternative(rec, report, name=name, tool=sources.tool, settings=settings)
    return check_plan_sources(
        sources,
        rec.plan.requirements,
        probe=probe,
        alternative=alternative,
        python=python,
        download_probe=download_probe,
    )


def renamed(check: SourcesCheck, *, name: str) -> SourcesCheck:
    """``check`` with its PyPI way forward made for the environment ``name`` (nothing asked again).

    The Choose page asks the indexes once per plan; a name typed afterwards changes only the
    command that finding gives. Its release and build stay as found (no tables read: this runs
    on the page's thread, at each keystroke).
    """

    def for_name(finding: Finding) -> Finding:
        if finding.code != "PYPI_BUILD_AVAILABLE":
            return finding
        params = {key: value for key, value in finding.params.items() if key != "variant"}
        params.update(name=name, command=_pypi_command(name, params["version"]))
        return make_finding(finding.code, variant=finding.params.get("variant") or None, **params)

    return replace(check, findings=tuple(for_name(finding) for finding in check.findings))


def check_plan_sources(
    sources: PlanSources,
    requirements: Sequence[str],
    *,
    probe: IndexProbe = probe_from_environment,
    alternative: PypiAlternative | None = None,
    python: PythonDownload | None = None,
    download_probe: IndexProbe = probe_download_from_environment,
) -> SourcesCheck:
    """Ask every index of ``sources`` whether it answers, in parallel; offline, nothing is asked.

    Each index is asked for its page of the first requirement's project (``<index>/torch/``);
    one that only brings pip, for pip's page. The PyPI build is offered as a way forward when
    its index answers too. ``python``'s places (the build uv downloads, and GitHub's copy uv
    turns to) are asked in the same round, for the file itself as a download of it starts
    (``download_probe``: its redirects followed, only the headers read), so the whole check
    still ends within one probe's deadline.
    """
    project = requirement_project(requirements[0]) if requirements else "pip"
    if sources.offline:
        return SourcesCheck(sources, (), (), project, checked=False)
    asked: list[tuple[SourceIndex, str]] = [
        (index, "pip" if index.needed_for == "pip" else project) for index in sources.indexes
    ]
    downloads = python.urls if python is not None else ()
    questions = [(probe, index.project_url(page)) for index, page in asked]
    questions += [(download_probe, url) for url in downloads]
    everything = _ask(questions)
    answers, python_answers = everything[: len(asked)], everything[len(asked) :]
    own = tuple(IndexStatus(index, answer) for (index, _), answer in zip(asked, answers, strict=True))
    python_status = None
    if python is not None:
        python_status = PythonStatus(python, *python_answers[:2])
    route = None
    if alternative is not None and any(status.index.essential and not status.reached for status in own):
        # Only now, with PyTorch's index known not to answer: does PyPI have the project's page?
        # Not when PyPI (or its mirror) is a host that just ran out of time: a second wait on a
        # dead host would double the check's deadline (adapters/http.py, probe_index).
        url = alternative.index.project_url(project)
        timed_out = {_server(answer.url) for answer in answers if answer and answer.failure == "timeout"}
        answer = None if _server(url) in timed_out else probe(url)
        route = alternative.finding if answer is not None and answer.ok else None
    checked = any(answer is not None for answer in everything)
    findings = check_findings(sources, own, project, route)
    if python_status is not None and not python_status.reached:
        findings = (*findings, python_unreachable_finding(python_status, family=this_family()))
    return SourcesCheck(sources, own, findings, project, checked, python_status)


def _server(url: str) -> tuple[str | None, int]:
    parts = urlsplit(url)
    return parts.hostname, parts.port or (443 if parts.scheme == "https" else 80)


def _ask(questions: list[tuple[IndexProbe, str]]) -> list[IndexAnswer | None]:
    """Each URL asked with its probe, all at once; the answers in the same order."""
    if len(questions) <= 1:
        return [probe(url) for probe, url in questions]
    with ThreadPoolExecutor(
        max_workers=min(_WORKERS, len(questions)), thread_name_prefix="index-check"
    ) as pool:
        return list(pool.map(lambda question: question[0](question[1]), questions))


def this_family() -> str:
    """This machine's OS family, as the reports name it: ``windows``, ``darwin`` or ``linux``."""
    if sys.platform == "win32":
        return "windows"
    return "darwin" if sys.platform == "darwin" else "linux"
