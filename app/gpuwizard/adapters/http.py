"""HTTP through requests: the only module that imports it.

Timeouts on every call, retries with back-off for flaky networks and 429/5xx answers, proxy
settings from the environment (``HTTPS_PROXY``, ``NO_PROXY``: requests honours them), and one
exception for every way a fetch can fail, so callers fall back quietly to what they have.

Every fetch is https only, redirects included, and size-limited: what the wizard downloads
(compatibility data that chooses later package indexes, the indexes' release lists) must not be
changed on its way, nor fill the memory. There is no exception for plain http, not even to
127.0.0.1: the tests serve https on 127.0.0.1 with a certificate they make
(``tests/harness/http_server.py``) and trust it through ``REQUESTS_CA_BUNDLE``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, Protocol
from urllib.parse import urljoin, urlsplit

from gpuwizard import __version__

if TYPE_CHECKING:
    import requests

DEFAULT_TIMEOUT_S: Final = 10.0
#: The most one answer may bring unless the caller says less: above anything the wizard fetches
#: (the largest, PyPI's JSON for tensorflow, was 1,575,636 bytes on 2026-11-25), far below what
#: would trouble the memory of the machines it runs on.
DEFAULT_MAX_BYTES: Final = 32 << 20
#: Redirects followed, each checked to stay on https. requests alone follows 30
#: (``requests.models.DEFAULT_REDIRECT_LIMIT``); the wizard asks for files by their published
#: URLs, which need a redirect or two at most (a moved site, a mirror), so 5 is room enough.
MAX_REDIRECTS: Final = 5
_CHUNK: Final = 1 << 16
#: The statuses requests follows as redirects (``requests.sessions.SessionRedirectMixin``).
_REDIRECTS: Final = frozenset({301, 302, 303, 307, 308})


class HttpError(Exception):
    """A fetch failed (offline, refused, timed out, an HTTP error); the message says which, in one line."""


class HttpClient(Protocol):
    """Fetches bytes from a URL."""

    def get(self, url: str, *, timeout: float | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
        """The body of a 200 answer (``timeout`` in seconds; None: the client's default).

        Only ``https://`` URLs, redirects included, and bodies of at most ``max_bytes``.

        Raises:
            HttpError: Anything else.
        """
        ...


def url_refusal(url: str) -> str | None:
    """Why ``url`` is not fetched, or None when it is an ``https://`` URL with a host."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
    except ValueError:
        return "not a URL"
    if parts.scheme.lower() != "https" or not host:
        return "not an https:// URL (anything else can be changed on its way to this machine)"
    return None


class RequestsClient:
    """The real client: a requests session with retries."""

    def __init__(self, retries: int = 2, backoff_s: float = 0.3, timeout: float = DEFAULT_TIMEOUT_S) -> None:
        self._timeout = timeout
        import requests  # noqa: PLC0415 - only when something is fetched
        from requests.adapters import HTTPAdapter  # noqa: PLC0415
        from urllib3.util.retry import Retry  # noqa: PLC0415

        self._requests = requests
        self._session = requests.Session()
        retry = Retry(
            total=retries,
            connect=retries,
            read=retries,
            backoff_factor=backoff_s,
            status_forcelist=(429, 500, 502, 503, 504),
            allowed_methods=("GET",),
        )
        # Retries for https only: no other URL reaches the session (``url_refusal``).
        self._session.mount("https://", HTTPAdapter(max_retries=retry))
        self._session.headers["User-Agent"] = f"gpuwizard/{__version__}"

    def get(self, url: str, *, timeout: float | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
        """See :class:`HttpClient`."""
        timeout = timeout or self._timeout
        why = url_refusal(url)
        if why is not None:
            raise HttpError(f"{url}: refused, {why}")
        try:
            return self._follow(url, timeout, max_bytes)
        except self._requests.exceptions.Timeout:
            raise HttpError(f"{url}: no answer within {timeout:g} s") from None
        except self._requests.exceptions.ConnectionError as error:
            # After retries, a read timeout arrives wrapped in a ConnectionError (urllib3's
            # MaxRetryError around ReadTimeoutError): say what happened, not how it was wrapped.
            if "timed out" in str(error).lower():
                raise HttpError(f"{url}: no answer within {timeout:g} s") from None
            raise HttpError(f"{url}: cannot connect ({_reason(error)})") from None
        except self._requests.exceptions.RequestException as error:
            raise HttpError(f"{url}: {_reason(error)}") from None

    def _follow(self, url: str, timeout: float, max_bytes: int) -> bytes:
        """GET ``url``, following up to :data:`MAX_REDIRECTS` redirects, each checked before it is asked.

        requests follows redirects by itself, to any scheme, and only ``response.history`` tells
        afterwards: too late, the http URL has been fetched. So redirects are off
        (``allow_redirects=False``) and each target is checked here first
        (https://requests.readthedocs.io/en/latest/user/quickstart/#redirection-and-history).

        Raises:
            HttpError: A refused redirect, too many, an HTTP error, an answer too large.
        """
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            # stream=True: the body is read below in chunks and dropped once past the limit,
            # never loaded whole first (https://requests.readthedocs.io/en/latest/user/advanced/#body-content-workflow).
            with self._session.get(current, timeout=timeout, allow_redirects=False, stream=True) as response:
                if response.status_code not in _REDIRECTS or "location" not in response.headers:
                    if response.status_code != 200:
                        raise HttpError(f"{url}: HTTP {response.status_code}")
                    return _body(url, response, max_bytes)
                # The Location header as requests itself reads it (bytes decoded as it does),
                # relative to the URL that answered.
                target = urljoin(current, self._session.get_redirect_target(response) or "")
            why = url_refusal(target)
            if why is not None:
                raise HttpError(f"{url}: refused a redirect to {target}, {why}")
            current = target
        raise HttpError(f"{url}: more than {MAX_REDIRECTS} redirects")


def _body(url: str, response: requests.Response, max_bytes: int) -> bytes:
    """The body, read in chunks, refused once it is longer than ``max_bytes``.

    Content-Length, when sent, refuses a long answer before any of it is read; it counts the bytes
    as sent, so it is trusted only when they are not compressed. The count while reading is of the
    bytes as decoded (``iter_content`` un-gzips): a small compressed answer that unpacks into a
    large one is refused as well.

    Raises:
        HttpError: It is longer.
    """
    too_large = f"{url}: answer larger than the {_size(max_bytes)} allowed"
    declared = response.headers.get("content-length", "")
    encoding = response.headers.get("content-encoding", "identity").strip().lower()
    if declared.isdigit() and encoding == "identity" and int(declared) > max_bytes:
        raise HttpError(f"{too_large} (Content-Length {declared})")
    body = bytearray()
    for chunk in response.iter_content(_CHUNK):
        body += chunk
        if len(body) > max_bytes:
            raise HttpError(too_large)
    return bytes(body)


def _size(count: int) -> str:
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count} bytes"


def _reason(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:200]
