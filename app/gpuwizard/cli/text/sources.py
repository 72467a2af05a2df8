"""Where an install's packages come from, as text: each index, why, and whether it answers.

Shown by ``gpuwizard env create`` before anything is made, and by ``gpuwizard recommend`` (without
the answers: recommend asks nothing). ``env create`` also names the Python build uv downloads
when none of the plan's version is installed, and every host the install contacts (issue 37,
point 6). Presentation only; the decisions are :mod:`gpuwizard.core.envs.package_sources`,
:mod:`gpuwizard.core.envs.python_download` and :mod:`gpuwizard.core.envs.index_reach`.
"""

from __future__ import annotations

import textwrap

from gpuwizard.cli.text.findings import finding_lines
from gpuwizard.core.envs.index_reach import (
    IndexStatus,
    PythonStatus,
    SourcesCheck,
    answer_words,
    failure_words,
)
from gpuwizard.core.envs.package_sources import PlanSources, display_url, index_reason
from gpuwizard.core.envs.python_download import fallback_reason, host_of, python_reason


def source_lines(
    sources: PlanSources, width: int = 100, *, statuses: tuple[IndexStatus, ...] = ()
) -> list[str]:
    """``Packages from`` and one line per index (with its answer when ``statuses`` has one)."""
    if sources.offline:
        return [f"  Packages from  only the folder {sources.find_links}: nothing is downloaded"]
    answers = {status.index: status for status in statuses}
    lines = []
    for number, index in enumerate(sources.indexes):
        label = "Packages from" if number == 0 else ""
        status = answers.get(index)
        said = ""
        if status is not None and status.answer is not None:
            said = " - answers" if status.reached else f" - CANNOT BE REACHED: {failure_words(status)}"
        lines += textwrap.wrap(
            f"{index.shown} ({index_reason(index)}){said}",
            width,
            initial_indent=f"  {label:<13}  ",
            subsequent_indent=" " * 17,
        )
    if sources.find_links is not None:
        lines.append(f"  {'and':<13}  the folder {sources.find_links}")
    return lines


def python_lines(status: PythonStatus, width: int = 100) -> list[str]:
    """``Python from`` and a line per place of the build uv downloads (with its answer once asked)."""
    download = status.download
    places = [(download.shown, python_reason(download), status.answer)]
    if download.fallback_url:
        places.append((display_url(download.fallback_url), fallback_reason(download), status.fallback))
    lines: list[str] = []
    for number, (url, why, answer) in enumerate(places):
        label = "Python from" if number == 0 else ""
        said = ""
        if answer is not None:
            said = " - answers" if answer.ok else f" - CANNOT BE REACHED: {answer_words(answer)}"
            if answer.ok and answer.redirects:
                said += f" (through {', '.join(host_of(url) for url in answer.redirects)})"
        lines += _wrapped(f"{url} ({why}){said}", label, width)
    return lines


def hosts_line(check: SourcesCheck, width: int = 100) -> list[str]:
    """``Hosts``: every host the install contacts, each once."""
    names = list(dict.fromkeys(host.host for host in check.hosts()))
    return _wrapped(", ".join(names), "Hosts", width) if names else []


def _wrapped(text: str, label: str, width: int) -> list[str]:
    return textwrap.wrap(
        text,
        width,
        initial_indent=f"  {label:<13}  ",
        subsequent_indent=" " * 17,
        break_long_words=False,
        break_on_hyphens=False,
    )


def check_text(check: SourcesCheck, width: int = 100) -> str:
    """The check before an install: the hosts and their answers, then what to do about the others."""
    lines = [
        "== sources: the package indexes this install uses"
        + (", and where its Python comes from" if check.python is not None else ""),
        *source_lines(check.sources, width, statuses=check.statuses),
    ]
    if check.python is not None:
        lines += python_lines(check.python, width)
    lines += hosts_line(check, width)
    if not check.checked and not check.sources.offline:
        lines.append("  (not asked: GPUWIZARD_NO_INDEX_CHECK=1)")
    for finding in check.findings:
        lines += finding_lines(finding, width)
    return "\n".join(lines) + "\n"
