"""Whether the indexes an install needs answer, and what to say when one does not (pure).

``adapters/http.py`` asks an index for its page of the plan's first project and answers with an
:class:`IndexAnswer`: reached, or which way it failed (:data:`FAILURES`). Here those answers
become a :class:`SourcesCheck` with its findings: ``PACKAGE_INDEX_UNREACHABLE`` (in the variant
of the failure) for an index the plan's packages need, ``PACKAGE_INDEX_PIP_UNREACHABLE`` for one
that only brings pip, the PyPI build when it is a way forward (``PYPI_BUILD_AVAILABLE``), and a
note that a folder of wheels given without ``--offline`` does not replace the index.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal

from gpuwizard.core.envs.package_sources import (
    PYTORCH_MIRROR_VARIABLE,
    PlanSources,
    SourceIndex,
    display_url,
    index_to_json,
)
from gpuwizard.core.events import Event, json_field
from gpuwizard.core.findings.model import Finding, finding_from_json, make_finding
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

#: The ways reaching an index fails, as :class:`IndexAnswer` names them.
Failure = Literal["dns", "refused", "timeout", "network", "tls", "proxy", "proxy_auth", "http", "other"]
FAILURES: Final[tuple[Failure, ...]] = (
    "dns",
    "refused",
    "timeout",
    "network",
    "tls",
    "proxy",
    "proxy_auth",
    "http",
    "other",
)
#: What to set for a mirror of each kind of index (docs.astral.sh/uv/reference/environment/,
#: pip.pypa.io/en/stable/topics/configuration/#environment-variables).
PYPI_MIRROR_SETTINGS: Final = "PIP_INDEX_URL (pip) or UV_DEFAULT_INDEX (uv)"


@dataclass(frozen=True)
class IndexAnswer:
    """What asking an index for one page gave.

    Attributes:
        url: The page asked for (``<index>/torch/``), login hidden.
        ok: It answered (any status below 400: the index is there).
        failure: How it failed (:data:`FAILURES`); None when it answered.
        detail: What the network library said, in one line.
        status: The HTTP status, when one came back.
        proxy: The proxy the request went through (login hidden), if any.
        seconds: How long asking took.
    """

    url: str
    ok: bool
    failure: Failure | None = None
    detail: str = ""
    status: int | None = None
    proxy: str | None = None
    seconds: float = 0.0


@dataclass(frozen=True)
class IndexStatus:
    """One index of the install and its answer (None: not asked)."""

    index: SourceIndex
    answer: IndexAnswer | None

    @property
    def reached(self) -> bool:
        """Whether it answered (an index not asked counts as reached: nothing says otherwise)."""
        return self.answer is None or self.answer.ok


@dataclass(frozen=True)
class SourcesCheck:
    """The install's indexes, checked: which answer, and what to say about the others.

    Attributes:
        sources: What was checked.
        statuses: Each index with its answer, in the order of ``sources.indexes``.
        findings: What to say: errors first (an index the packages need), then the ways forward.
        project: The project each index was asked for.
        checked: False when nothing was asked (offline, or checks turned off).
    """

    sources: PlanSources
    statuses: tuple[IndexStatus, ...]
    findings: tuple[Finding, ...] = ()
    project: str = ""
    checked: bool = True

    @property
    def blocking(self) -> tuple[IndexStatus, ...]:
        """The indexes the plan's packages need that did not answer."""
        return tuple(status for status in self.statuses if status.index.essential and not status.reached)

    @property
    def ok(self) -> bool:
        """Whether the install can fetch its packages."""
        return not self.blocking

    def error_line(self) -> str:
        """The one-line refusal for the first index that blocks the install ("" when none does)."""
        if not self.blocking:
            return ""
        status = self.blocking[0]
        line = f"{_index_name(status.index)} {status.index.shown} cannot be reached: {failure_words(status)}"
        if self.sources.find_links is not None:
            line += f" (the folder {self.sources.find_links} is used beside the index: add --offline to install from it alone)"
        return line


#: What failed, by the probe's failure kind (adapters/http.py, ``probe_index``).
_FAILURE_WORDS: Final = {
    "dns": QT_TRANSLATE_NOOP("plans", "the name {hostname} cannot be looked up (DNS)"),
    "refused": QT_TRANSLATE_NOOP("plans", "{host} refused the connection"),
    "timeout": QT_TRANSLATE_NOOP("plans", "{host} did not answer in time"),
    "network": QT_TRANSLATE_NOOP("plans", "there is no network route to {host}"),
    "tls": QT_TRANSLATE_NOOP("plans", "the certificate {host} showed cannot be verified (TLS)"),
    "proxy": QT_TRANSLATE_NOOP("plans", "the proxy {proxy} does not let the request through"),
    "proxy_auth": QT_TRANSLATE_NOOP("plans", "the proxy {proxy} asks for a login (HTTP 407)"),
    "http": QT_TRANSLATE_NOOP("plans", "it answered HTTP {status}"),
}


def failure_words(status: IndexStatus) -> str:
    """What failed, in a few words (``the name download.pytorch.org cannot be looked up (DNS)``).

    A :class:`~gpuwizard.core.texts.TranslatableText` (context ``plans``): English where it is
    printed or logged, translated where a page shows it.
    """
    answer = status.answer
    if answer is None or answer.ok:
        return TranslatableText("plans", QT_TRANSLATE_NOOP("plans", "it answers"))
    template = _FAILURE_WORDS.get(answer.failure or "other")
    if template is None:
        return answer.detail or TranslatableText("plans", QT_TRANSLATE_NOOP("plans", "it did not answer"))
    return TranslatableText(
        "plans",
        template,
        host=status.index.host,
        hostname=status.index.hostname,
        proxy=answer.proxy or "from HTTPS_PROXY",
        status=answer.status,
    )


def mirror_setting(index: SourceIndex) -> str:
    """What to set for a mirror of ``index``."""
    return PYTORCH_MIRROR_VARIABLE if index.role == "pytorch" else PYPI_MIRROR_SETTINGS


def unreachable_finding(status: IndexStatus, project: str) -> Finding:
    """The finding for an index that did not answer: which, what failed, the ways forward."""
    answer = status.answer
    failure = answer.failure if answer is not None and answer.failure else "other"
    host = status.index.host
    params: dict[str, str] = {
        "index": status.index.shown,
        "host": status.index.hostname if failure == "dns" else host,
        "setting": mirror_setting(status.index),
        "detail": failure_words(status),
        "project": project,
        "origin": status.index.origin,
    }
    if failure in ("proxy", "proxy_auth"):
        params["proxy"] = (answer.proxy if answer is not None else None) or "from HTTPS_PROXY"
    if failure == "http":
        params["status"] = str(answer.status) if answer is not None and answer.status else "?"
    if not status.index.essential:
        return make_finding("PACKAGE_INDEX_PIP_UNREACHABLE", **params)
    variant = None if failure == "other" else failure
    return make_finding("PACKAGE_INDEX_UNREACHABLE", variant=variant, **params)


def check_findings(
    sources: PlanSources, statuses: Sequence[IndexStatus], project: str, pypi_route: Finding | None
) -> tuple[Finding, ...]:
    """The findings of a check: each index that did not answer, then the ways forward that apply."""
    findings = [unreachable_finding(status, project) for status in statuses if not status.reached]
    blocked = any(status.index.essential and not status.reached for status in statuses)
    if blocked and pypi_route is not None:
        findings.append(pypi_route)
    if blocked and sources.find_links is not None and not sources.offline:
        findings.append(make_finding("WHEEL_FOLDER_NEEDS_OFFLINE", folder=sources.find_links))
    return tuple(findings)


def _index_name(index: SourceIndex) -> str:
    if index.role == "pytorch":
        return "your mirror of PyTorch's index" if index.mirror else "PyTorch's package index"
    return "your PyPI mirror" if index.mirror else "PyPI"


def status_to_json(status: IndexStatus) -> dict[str, Any]:
    """One index with its answer, as JSON."""
    data = index_to_json(status.index)
    answer = status.answer
    data["reached"] = status.reached
    data["checked"] = answer is not None
    if answer is not None:
        data.update(
            {
                "asked": display_url(answer.url),
                "failure": answer.failure,
                "detail": answer.detail,
                "status": answer.status,
                "proxy": answer.proxy,
                "seconds": round(answer.seconds, 2),
            }
        )
    return data


def _findings(value: object) -> tuple[Finding, ...]:
    items = value if isinstance(value, list) else []
    return tuple(finding_from_json(item) for item in items if isinstance(item, Mapping))


@dataclass(frozen=True, kw_only=True)
class EnvSources(Event):
    """The ``sources`` event of ``env create --json`` and the wizard's Install step: the indexes asked.

    Sent before anything is made: each index with its answer (``indexes``, as
    :func:`status_to_json` reports it) and the findings, ways forward included, that the
    Install page shows as cards when one does not answer. ``apply`` reports the same facts.
    """

    KIND: ClassVar[str] = "sources"

    ok: bool
    checked: bool
    offline: bool
    find_links: str | None
    tool: str
    project: str
    indexes: tuple[Mapping[str, Any], ...] = ()
    findings: tuple[Finding, ...] = json_field(default=(), read=_findings)

    @classmethod
    def of(cls, check: SourcesCheck) -> EnvSources:
        """The event for ``check``."""
        return cls(
            ok=check.ok,
            checked=check.checked,
            offline=check.sources.offline,
            find_links=check.sources.find_links,
            tool=check.sources.tool,
            project=check.project,
            indexes=tuple(status_to_json(status) for status in check.statuses),
            findings=check.findings,
        )
