"""Whether the indexes an install needs answer, and what to say when one does not (pure).

``adapters/http.py`` asks an index for its page of the plan's first project and answers with an
:class:`IndexAnswer`: reached, or which way it failed (:data:`FAILURES`). Here those answers
become a :class:`SourcesCheck` with its findings: ``PACKAGE_INDEX_UNREACHABLE`` (in the variant
of the failure) for an index the plan's packages need, ``PACKAGE_INDEX_PIP_UNREACHABLE`` for one
that only brings pip, the PyPI build when it is a way forward (``PYPI_BUILD_AVAILABLE``), and a
note that a folder of wheels given without ``--offline`` does not replace the index. The Python
build uv downloads when none of the plan's is installed (issue 37, point 6) is checked with
them: a :class:`PythonStatus`, and ``PYTHON_DOWNLOAD_UNREACHABLE`` (in its OS family's variant:
how to install that Python oneself) when none of its places answers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Literal
from urllib.parse import urlsplit

from gpuwizard.core.envs.package_sources import (
    PYTORCH_MIRROR_VARIABLE,
    PlanSources,
    SourceIndex,
    display_url,
    index_to_json,
)
from gpuwizard.core.envs.python_download import (
    ContactedHost,
    PythonDownload,
    contacted_hosts,
    download_to_json,
    host_of,
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
        redirects: The addresses it was sent on to, in order (login hidden): a download asked
            with its redirects followed (GitHub hands release files out from another host); the
            last one is where it ended, answered or not.
    """

    url: str
    ok: bool
    failure: Failure | None = None
    detail: str = ""
    status: int | None = None
    proxy: str | None = None
    seconds: float = 0.0
    redirects: tuple[str, ...] = ()

    @property
    def last_url(self) -> str:
        """Where asking ended: the last redirect's address, else the one asked."""
        return self.redirects[-1] if self.redirects else self.url


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
class PythonStatus:
    """The Python build uv would download for the install, and what its places answered.

    Attributes:
        download: The build and where uv takes it from (``core/envs/python_download.py``).
        answer: What its first place answered (None: not asked).
        fallback: What GitHub's copy answered, where uv has one to turn to (None: none, or not asked).
    """

    download: PythonDownload
    answer: IndexAnswer | None = None
    fallback: IndexAnswer | None = None

    @property
    def answers(self) -> tuple[IndexAnswer, ...]:
        """The answers there are, the first place's first."""
        return tuple(answer for answer in (self.answer, self.fallback) if answer is not None)

    @property
    def checked(self) -> bool:
        """Whether its places were asked."""
        return bool(self.answers)

    @property
    def reached(self) -> bool:
        """Whether uv can fetch the build: a place of it answered (one not asked counts as reached)."""
        return not self.answers or any(self._answered(answer) for answer in self.answers)

    def _answered(self, answer: IndexAnswer) -> bool:
        # Where uv could not say which file (an older uv), the folder was asked: any HTTP answer
        # shows that the host is there and its certificate good.
        return answer.ok or (not self.download.exact and answer.failure == "http")

    def failure_line(self) -> str:
        """What failed, in one clause per place asked ("" when a place answered)."""
        if self.reached:
            return ""
        words = [answer_words(answer) for answer in self.answers]
        line = f"{words[0]}"
        if len(words) > 1:
            line += f"; nor GitHub's copy: {words[1]}"
        return line


@dataclass(frozen=True)
class SourcesCheck:
    """The install's indexes, checked: which answer, and what to say about the others.

    Attributes:
        sources: What was checked.
        statuses: Each index with its answer, in the order of ``sources.indexes``.
        findings: What to say: errors first (an index the packages need), then the ways forward.
        project: The project each index was asked for.
        checked: False when nothing was asked (offline, or checks turned off).
        python: The Python build uv downloads for the new environment, with what its places
            answered; None when none is downloaded (the plan's Python is installed here, or it
            comes from conda channels).
    """

    sources: PlanSources
    statuses: tuple[IndexStatus, ...]
    findings: tuple[Finding, ...] = ()
    project: str = ""
    checked: bool = True
    python: PythonStatus | None = None

    @property
    def blocking(self) -> tuple[IndexStatus, ...]:
        """The indexes the plan's packages need that did not answer."""
        return tuple(status for status in self.statuses if status.index.essential and not status.reached)

    @property
    def ok(self) -> bool:
        """Whether the install can fetch its packages, and its Python where uv downloads one."""
        return not self.blocking and (self.python is None or self.python.reached)

    def hosts(self) -> tuple[ContactedHost, ...]:
        """Every host the install contacts, with why; those a download was sent on to as well."""
        python = self.python.download if self.python is not None else None
        hosts = list(contacted_hosts(self.sources, python))
        answers = self.python.answers if self.python is not None else ()
        for answer in answers:
            for url in answer.redirects:
                hosts.append(ContactedHost(host_of(url), _redirect_reason(answer.url), url))
        return tuple(dict.fromkeys(hosts))

    def error_line(self) -> str:
        """The one-line refusal for the first index or download that blocks the install ("" when none does)."""
        if not self.blocking:
            return self._python_line()
        status = self.blocking[0]
        line = f"{_index_name(status.index)} {status.index.shown} cannot be reached: {failure_words(status)}"
        if self.sources.find_links is not None:
            line += f" (the folder {self.sources.find_links} is used beside the index: add --offline to install from it alone)"
        return line

    def _python_line(self) -> str:
        python = self.python
        if python is None or python.reached:
            return ""
        download = python.download
        return (
            f"Python {download.python} for the new environment (none is installed here) cannot be "
            f"downloaded from {download.shown}: {python.failure_line()}"
        )


def _redirect_reason(url: str) -> TranslatableText:
    return TranslatableText(
        "plans",
        QT_TRANSLATE_NOOP("plans", "where {host} sends the download on to"),
        host=host_of(url),
    )


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
    return answer_words(status.answer, host=status.index.host, hostname=status.index.hostname)


def answer_words(answer: IndexAnswer | None, *, host: str | None = None, hostname: str | None = None) -> str:
    """What failed in ``answer``, in a few words, naming ``host`` (by default, where asking ended).

    The host where asking ended is the one named: a download sent on by a redirect fails at
    the host it was sent to.
    """
    if answer is None or answer.ok:
        return TranslatableText("plans", QT_TRANSLATE_NOOP("plans", "it answers"))
    template = _FAILURE_WORDS.get(answer.failure or "other")
    if template is None:
        return answer.detail or TranslatableText("plans", QT_TRANSLATE_NOOP("plans", "it did not answer"))
    ended = answer.last_url
    return TranslatableText(
        "plans",
        template,
        host=host or host_of(ended),
        hostname=hostname or _hostname(ended),
        proxy=answer.proxy or "from HTTPS_PROXY",
        status=answer.status,
    )


def _hostname(url: str) -> str:
    try:
        return urlsplit(url).hostname or url
    except ValueError:
        return url


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


def python_unreachable_finding(status: PythonStatus, *, family: str) -> Finding:
    """The finding for a Python build uv cannot download: where, what failed, and how to install it oneself.

    ``family`` is the OS family (``windows``, ``darwin``, ``linux``): each installs Python its own way.
    """
    download = status.download
    variant = family if family in ("windows", "darwin") else None
    return make_finding(
        "PYTHON_DOWNLOAD_UNREACHABLE",
        variant=variant,
        python=download.python,
        url=download.shown,
        host=host_of(download.url),
        detail=status.failure_line(),
    )


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
        data.update(_answer_to_json(answer))
    return data


def python_status_to_json(status: PythonStatus) -> dict[str, Any]:
    """The Python download with what its places answered, as JSON (``sources``' ``python_download``)."""
    data = download_to_json(status.download)
    data["reached"] = status.reached
    data["checked"] = status.checked
    for key, answer in (("answer", status.answer), ("fallback_answer", status.fallback)):
        data[key] = None if answer is None else _answer_to_json(answer)
    return data


def _answer_to_json(answer: IndexAnswer) -> dict[str, Any]:
    return {
        "asked": display_url(answer.url),
        "ok": answer.ok,
        "failure": answer.failure,
        "detail": answer.detail,
        "status": answer.status,
        "proxy": answer.proxy,
        "seconds": round(answer.seconds, 2),
        "redirects": [display_url(url) for url in answer.redirects],
    }


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
    #: Every host the install contacts, with why (``host``, ``why``, ``url``): the indexes, then
    #: the places of the Python build uv downloads, and where a download was sent on to.
    hosts: tuple[Mapping[str, Any], ...] = ()
    #: The Python build uv downloads and what its places answered (:func:`python_status_to_json`);
    #: not written when none is downloaded.
    python_download: Mapping[str, Any] | None = json_field(default=None, omit_none=True)

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
            hosts=tuple(host.to_json() for host in check.hosts()),
            python_download=None if check.python is None else python_status_to_json(check.python),
        )
