"""HTTP for the harvester: GETs with a timeout and retries on every request, and Range reads.

A Range read that the server answers with the whole file (200 instead of 206) is closed at once
and reported: the harvester never downloads a whole wheel. Every byte that comes in is counted.
"""

from __future__ import annotations

import re
import threading
import time
from typing import Final
from urllib.parse import urlsplit

import requests
from requests.adapters import HTTPAdapter

#: Answers worth another try: rate limits and server errors.
_RETRY_STATUS: Final = frozenset({429, 500, 502, 503, 504})
_CONTENT_RANGE: Final = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")
_LOOPBACK: Final = frozenset({"127.0.0.1", "localhost", "::1"})
#: The most a plain GET may bring (PyPI's torch JSON is under 1 MB).
MAX_DOCUMENT: Final = 64 << 20
_CHUNK: Final = 1 << 16


class FetchError(Exception):
    """A request failed after its retries (unreachable, an HTTP error, a bad answer)."""


class RangeUnsupported(FetchError):
    """The server answered a Range request with something other than the range."""


def url_problem(url: str) -> str | None:
    """Why ``url`` cannot be fetched, or None: https, or http to this machine only."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return f"{url!r} is not an http(s) URL"
    if parts.scheme == "http" and parts.hostname not in _LOOPBACK:
        return f"{url!r}: plain http only to this machine (127.0.0.1, localhost); use https"
    return None


class Fetcher:
    """GETs and Range GETs through one requests session, counting what arrives."""

    def __init__(self, timeout: float = 30.0, retries: int = 3, backoff: float = 0.5) -> None:
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.bytes_in = 0
        self.requests = 0
        self._lock = threading.Lock()
        self._session = requests.Session()
        self._session.headers["User-Agent"] = "gpuwizard-compat-harvest/1"
        # Retries are done here, around the whole exchange (a body cut short is retried too).
        adapter = HTTPAdapter(max_retries=0)
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)

    def close(self) -> None:
        """Close the session's connections."""
        self._session.close()

    def _count(self, size: int) -> None:
        with self._lock:
            self.bytes_in += size
            self.requests += 1

    def _exchange(self, url: str, headers: dict[str, str], limit: int, *, ranged: bool) -> tuple[bytes, str]:
        """The body (at most ``limit`` bytes) and the Content-Range header, with retries."""
        problem = url_problem(url)
        if problem:
            raise FetchError(problem)
        last = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                with self._session.get(url, headers=headers, timeout=self.timeout, stream=True) as answer:
                    if answer.status_code in _RETRY_STATUS:
                        last = f"HTTP {answer.status_code}"
                        continue
                    if ranged and answer.status_code == 200:
                        raise RangeUnsupported(f"{url}: the server ignored the Range header (HTTP 200)")
                    expected = 206 if ranged else 200
                    if answer.status_code != expected:
                        raise FetchError(f"{url}: HTTP {answer.status_code}")
                    body = bytearray()
                    for chunk in answer.iter_content(_CHUNK):
                        body += chunk
                        if len(body) > limit:
                            break
                    self._count(len(body))
                    if len(body) > limit:
                        raise FetchError(f"{url}: answer longer than the {limit} bytes asked for")
                    return bytes(body), answer.headers.get("Content-Range", "")
            except (requests.ConnectionError, requests.Timeout) as error:
                last = _reason(error)
            except requests.RequestException as error:
                raise FetchError(f"{url}: {_reason(error)}") from None
        raise FetchError(f"{url}: {last} (after {self.retries + 1} tries)")

    def get(self, url: str) -> bytes:
        """The body of a 200 answer to a plain GET (a listing, a JSON document, a .metadata file)."""
        body, _ = self._exchange(url, {}, MAX_DOCUMENT, ranged=False)
        return body

    def get_range(self, url: str, start: int, end: int) -> bytes:
        """Bytes ``start``..``end`` (inclusive) of the file at ``url``, by one Range request."""
        body, header = self._exchange(url, {"Range": f"bytes={start}-{end}"}, end - start + 1, ranged=True)
        found = _CONTENT_RANGE.fullmatch(header.strip())
        if not found or int(found.group(1)) != start:
            raise RangeUnsupported(f"{url}: asked for bytes {start}-{end}, got Content-Range {header!r}")
        return body

    def get_tail(self, url: str, size: int) -> tuple[bytes, int]:
        """The last ``size`` bytes of the file (all of it when smaller) and the file's length."""
        body, header = self._exchange(url, {"Range": f"bytes=-{size}"}, size, ranged=True)
        found = _CONTENT_RANGE.fullmatch(header.strip())
        if not found or found.group(3) == "*":
            raise RangeUnsupported(f"{url}: no file length in Content-Range {header!r}")
        total = int(found.group(3))
        if int(found.group(2)) != total - 1 or len(body) != int(found.group(2)) - int(found.group(1)) + 1:
            raise RangeUnsupported(f"{url}: the tail answer does not end the file ({header!r})")
        return body, total


def _reason(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    if "Failed to resolve" in text or "Name or service not known" in text or "NameResolutionError" in text:
        return "cannot resolve the host name"
    if "Connection refused" in text:
        return "connection refused"
    if "timed out" in text.lower():
        return "no answer in time"
    return text[:200]
