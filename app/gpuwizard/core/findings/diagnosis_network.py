"""pip's and uv's words for a package index that cannot be reached (``PACKAGE_INDEX_UNREACHABLE``).

Part of :mod:`gpuwizard.core.findings.diagnosis`. Each signature reads one way a connection fails,
as the tools print it, into the parameter ``failure``; :func:`network_values` then takes the most
telling failure of a log (a proxy or certificate problem explains the refused or timed-out
connections around it) and names the index from the log: uv prints the URL it asked
(``error sending request for url (...)``), pip the indexes it looks in (``Looking in indexes:``,
printed only when it is not PyPI alone: pip/_internal/models/search_scope.py) and urllib3's host.

Every signature matches a log recorded on this project's machine (tests/fixtures/recorded/
diagnose, "recorded here": uv 0.13.9, pip 23.2.1 and 26.3 against download.pytorch.org, which
this machine cannot resolve, a closed port on 127.0.0.1, a server that never answers, a server
whose certificate no CA here signed, and proxies that refuse or ask for a login) and cites a
public report of the same words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart, Values

_CODE: Final = "PACKAGE_INDEX_UNREACHABLE"
#: The most telling failure first: a proxy or a certificate explains the failures around it.
_PRIORITY: Final = ("proxy_auth", "proxy", "tls", "dns", "refused", "timeout", "network", "other")
#: The OS's words inside pip's NewConnectionError (glibc, macOS, Windows' WinError texts).
_OS_WORDS: Final = (
    ("dns", re.compile(r"Name or service not known|name resolution|getaddrinfo failed|nodename nor servname|No address associated", re.IGNORECASE)),
    ("refused", re.compile(r"Connection refused|actively refused", re.IGNORECASE)),
    ("network", re.compile(r"Network is unreachable|No route to host|unreachable network|unreachable host", re.IGNORECASE)),
    ("timeout", re.compile(r"timed out", re.IGNORECASE)),
)  # fmt: skip
#: How far back from a uv cause line its request's URL is looked for.
_UV_CONTEXT_CHARS: Final = 600


def _failure(kind: str) -> Values:
    return {"failure": kind}


def _pip_new_connection(match: re.Match[str]) -> Values:
    words = match.group("why")
    kind = next((kind for kind, pattern in _OS_WORDS if pattern.search(words)), "other")
    return {"failure": kind, "why": words.strip()}


def _uv_timeout(match: re.Match[str]) -> Values | None:
    # "operation timed out" is uv's (hyper's) words for any timeout: it counts when it ends a
    # failed request, not when a build or a probe timed out.
    before = match.string[max(0, match.start() - _UV_CONTEXT_CHARS) : match.start()]
    if "error sending request for url" not in before and "client error (Connect)" not in before:
        return None
    return _failure("timeout")


#: Where a log names the index or the host it could not reach.
_UV_URL: Final = re.compile(
    r"(?:error sending request for url \(|Failed to fetch: `?)(?P<url>https?://[^\s)`\"'}]{1,500})"
)
_PIP_INDEXES: Final = re.compile(r"Looking in indexes: (?P<url>https?://[^\s,\"'}]{1,500})")
_PIP_URL: Final = re.compile(
    r"Could not fetch URL (?P<url>https?://[^\s:]{1,300}(?::\d{1,5})?[^\s:]{0,300}):"
)
_HOST: Final = re.compile(r"(?:host='(?P<host>[^']{1,253})', port=(?P<port>\d{1,5})|Failed to resolve '(?P<name>[^']{1,253})'|Connection to (?P<to>[\w.-]{1,253}) timed out)")  # fmt: skip
#: pip prints "Retrying (Retry(...))" for each failed connection; without "Looking in indexes" it
#: was asking PyPI alone.
_PIP_RETRY: Final = re.compile(r"Retrying \(Retry\(")
#: Settings for a mirror: the wizard's for PyTorch's index, pip's and uv's for PyPI.
_PYTORCH_HOST: Final = "download.pytorch.org"


def network_values(values: Mapping[str, list[str]], text: str) -> tuple[str | None, dict[str, str]]:
    """The variant and the parameters of ``PACKAGE_INDEX_UNREACHABLE`` for a log.

    ``values`` are what the signatures read (every ``failure`` seen); the index and its host
    are looked for in ``text``.
    """
    failures = values.get("failure", [])
    failure = next((kind for kind in _PRIORITY if kind in failures), "other")
    url = _first(_UV_URL, text) or _first(_PIP_INDEXES, text) or _first(_PIP_URL, text)
    if url is None and _PIP_RETRY.search(text):
        url = "https://pypi.org/simple"  # pip names no index when it asks PyPI alone
    host = _host(url, text, values)
    index = _index_of(url) if url is not None else host
    pytorch = _PYTORCH_HOST in (url or "") or _PYTORCH_HOST in host or "/whl/" in (url or "")
    params = {
        "index": index,
        "host": host,
        "proxy": "set in HTTPS_PROXY",
        "setting": "GPUWIZARD_PYTORCH_INDEX_URL"
        if pytorch
        else "PIP_INDEX_URL (pip) or UV_DEFAULT_INDEX (uv)",
        "detail": (values.get("why") or [failure])[0],
        "failure": failure,
    }
    return (None if failure == "other" else failure), params


def _first(pattern: re.Pattern[str], text: str) -> str | None:
    match = pattern.search(text)
    return match.group("url").rstrip("`'\".,") if match else None


def _host(url: str | None, text: str, values: Mapping[str, list[str]]) -> str:
    named = values.get("host")
    if named:
        return named[0]
    if url is not None:
        match = re.match(r"https?://(?:[^@/\s]*@)?(?P<host>\[[^\]]+\]|[^/:\s]+)(?::(?P<port>\d+))?", url)
        if match:
            return match.group("host") + (f":{match.group('port')}" if match.group("port") else "")
    match = _HOST.search(text)
    if match is None:
        return "the index"
    if match.group("host"):
        port = match.group("port")
        return match.group("host") + ("" if port in ("443", "80") else f":{port}")
    return match.group("name") or match.group("to") or "the index"


def _index_of(url: str) -> str:
    """An index from a project page's URL (``.../whl/cpu/torch/`` -> ``.../whl/cpu``); logins hidden."""
    url = re.sub(r"(?<=://)[^/\s@]+@", "***@", url)
    if url.endswith("/"):
        trimmed = url.rstrip("/")
        parent, _, last = trimmed.rpartition("/")
        # A project page ends in its name; an index URL as given (Looking in indexes) does not end in "/".
        if last and "://" in parent and parent.count("/") >= 3:
            return parent
    return url


def _refine(
    values: Mapping[str, Sequence[str]], _variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    variant, params = network_values({name: list(found) for name, found in values.items()}, text)
    return variant, dict(params)


NETWORK_PART: Final = DiagnosisPart(
    name="network",
    extractors=(_uv_timeout, _pip_new_connection),
    refiners={_CODE: _refine},
)
