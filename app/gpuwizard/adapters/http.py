"""HTTP through requests: the only module that imports it.

Timeouts on every call, retries with back-off for flaky networks and 429/5xx answers, proxy
settings from the environment (``HTTPS_PROXY``, ``NO_PROXY``: requests honours them), and one
exception for every way a fetch can fail, so callers fall back quietly to what they have.

Every request also has a total deadline: connecting, the TLS handshake, the headers, the whole
body, redirects and retries together. A read timeout alone does not bound a request: it restarts
with every byte (requests' ``timeout`` is "how long to wait for the server to send data",
https://requests.readthedocs.io/en/latest/user/advanced/#timeouts, and urllib3's
``Timeout(total=...)`` only shortens that wait per read), so a server trickling a byte every few
seconds held ``recommend --refresh`` for minutes. Each request runs in a worker thread; at the
deadline the caller gets its :class:`HttpError`, and the sockets the request opened are shut down
(``socket.shutdown`` wakes a blocked read, where ``close`` from another thread does not), so the
worker ends too instead of reading on.

Every fetch is https only, redirects included, and size-limited: what the wizard downloads
(compatibility data that chooses later package indexes, the indexes' release lists) must not be
changed on its way, nor fill the memory. There is no exception for plain http, not even to
127.0.0.1: the tests serve https on 127.0.0.1 with a certificate they make
(``tests/harness/http_server.py``) and trust it through ``REQUESTS_CA_BUNDLE``.

:func:`probe_index` is the other use: whether a package index answers at all, before an install
(issue 20). It reads nothing of the answer, so it also asks plain http on this machine (a local
mirror or proxy a person set up); it sends the request as pip would (proxies from the
environment, the certificate checked) and says which way it failed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import socket
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar
from urllib.parse import urljoin, urlsplit

from gpuwizard import __version__
from gpuwizard.core.envs.index_reach import Failure, IndexAnswer
from gpuwizard.core.envs.package_sources import display_url, hide_logins, mirror_refusal

if TYPE_CHECKING:
    import requests

DEFAULT_TIMEOUT_S: Final = 10.0
#: A request's deadline, by default, in read timeouts: one each to connect, for the headers and
#: for the body on a link that is slow but moving (30 s with the default timeout: PyPI's JSON for
#: tensorflow, 1.5 MB, at 50 KB/s).
DEADLINE_IN_TIMEOUTS: Final = 3
#: All the requests of one client (one refresh, one check of PyPI) together, in deadlines.
BUDGET_IN_DEADLINES: Final = 2
#: Sets every client's deadline per request, in seconds (its budget stays twice that): for a
#: link slower than the defaults allow, or a test that cannot wait for them.
DEADLINE_VARIABLE: Final = "GPUWIZARD_HTTP_DEADLINE_S"
_LEAST_S: Final = 0.001
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
    """A fetch failed (offline, refused, timed out, an HTTP error); the message says which, in one line.

    Attributes:
        status: The HTTP status of the answer that was not 200 (404: nothing there), else None.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class _DeadlinePassed(Exception):
    """The request did not finish within its deadline (it was cut off)."""


def configured_deadline() -> float | None:
    """The deadline ``GPUWIZARD_HTTP_DEADLINE_S`` sets (a positive number of seconds), else None."""
    try:
        value = float(os.environ.get(DEADLINE_VARIABLE, ""))
    except ValueError:
        return None
    return value if value > 0 and value != float("inf") else None


class _Exchange:
    """The connections one request uses, so that its deadline can cut them off.

    A connection opened after the cut (the worker was still resolving a name or shaking hands)
    is cut as soon as it is seen.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._connections: list[Any] = []
        self._sockets: list[socket.socket] = []
        self.expired = False

    def track(self, connection: Any, sock: socket.socket | None = None) -> None:  # noqa: ANN401 - urllib3's
        with self._lock:
            if connection not in self._connections:
                self._connections.append(connection)
            if sock is not None:
                self._sockets.append(sock)
            if self.expired:
                _shut(connection, sock)

    def expire(self) -> None:
        with self._lock:
            self.expired = True
            for connection in self._connections:
                _shut(connection, None)
            for sock in self._sockets:
                _shut(None, sock)


def _shut(connection: Any, sock: socket.socket | None) -> None:  # noqa: ANN401 - urllib3's connection
    """Shut ``connection``'s socket (and ``sock``) for both directions; a blocked read then returns."""
    for candidate in (getattr(connection, "sock", None), sock):
        if candidate is None:
            continue
        # OSError: closed already, or not connected yet (a socket the TLS layer took over).
        with contextlib.suppress(OSError):
            candidate.shutdown(socket.SHUT_RDWR)


#: The exchange of the request the current worker thread runs (None elsewhere).
_WORKER = threading.local()


def _track_connection(connection: Any, sock: socket.socket | None = None) -> None:  # noqa: ANN401
    exchange = getattr(_WORKER, "exchange", None)
    if exchange is not None:
        exchange.track(connection, sock)


_T = TypeVar("_T")


def _within(deadline_s: float, work: Callable[[], _T]) -> _T:
    """``work()`` in a worker thread; its answer, or :class:`_DeadlinePassed` after ``deadline_s``.

    At the deadline (or when the caller is interrupted) the worker's connections are shut down,
    so it stops; it is a daemon thread, so it never keeps the program alive either way.
    """
    exchange = _Exchange()
    answer: list[_T] = []
    failure: list[BaseException] = []
    finished = threading.Event()

    def run() -> None:
        _WORKER.exchange = exchange
        try:
            answer.append(work())
        except BaseException as error:  # noqa: BLE001 - handed to the caller, who raises it
            failure.append(error)
        finally:
            finished.set()

    threading.Thread(target=run, name="gpuwizard-http", daemon=True).start()
    try:
        if not finished.wait(deadline_s):
            raise _DeadlinePassed
    finally:
        if not finished.is_set():
            exchange.expire()
    if failure:
        raise failure[0]
    return answer[0]


def _tracking_adapter(**kwargs: Any) -> Any:  # noqa: ANN401 - a requests HTTPAdapter
    """A requests adapter whose connections tell the running request's :class:`_Exchange` about them.

    urllib3 makes connections through the pool classes its PoolManager names
    (``PoolManager.pool_classes_by_scheme``); the adapter's managers get pools whose connections
    report themselves when they open a socket and when they send a request (a pooled connection
    is reused without opening one). A SOCKS proxy's manager keeps its own pools: a request through
    it still ends at its deadline, and its worker at its next read timeout.
    """
    return _tracking_adapter_class()(**kwargs)


@functools.cache
def _tracking_adapter_class() -> Any:  # noqa: ANN401 - a subclass of requests' HTTPAdapter
    """The class of :func:`_tracking_adapter`, made once (requests and urllib3 imported only then)."""
    from requests.adapters import HTTPAdapter  # noqa: PLC0415 - only when something is fetched
    from urllib3 import connection as connections  # noqa: PLC0415
    from urllib3 import connectionpool, poolmanager  # noqa: PLC0415

    def tracked(base: Any) -> Any:  # noqa: ANN401 - one of urllib3's connection classes
        class _Tracked(base):
            def _new_conn(self) -> socket.socket:
                sock = super()._new_conn()
                _track_connection(self, sock)
                return sock

            def request(self, *args: Any, **kwargs: Any) -> None:  # noqa: ANN401 - urllib3's signature
                _track_connection(self)
                super().request(*args, **kwargs)

        return _Tracked

    class _Pool(connectionpool.HTTPConnectionPool):
        ConnectionCls = tracked(connections.HTTPConnection)

    class _TlsPool(connectionpool.HTTPSConnectionPool):
        ConnectionCls = tracked(connections.HTTPSConnection)

    pools = {"http": _Pool, "https": _TlsPool}

    class _Adapter(HTTPAdapter):
        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:  # noqa: ANN401
            super().init_poolmanager(*args, **kwargs)
            self.poolmanager.pool_classes_by_scheme = pools

        def proxy_manager_for(self, proxy: str, **kwargs: Any) -> Any:  # noqa: ANN401
            manager = super().proxy_manager_for(proxy, **kwargs)
            if manager.pool_classes_by_scheme is poolmanager.pool_classes_by_scheme:
                manager.pool_classes_by_scheme = pools
            return manager

    return _Adapter


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
    """The real client: a requests session with retries, each request within a deadline.

    Args:
        retries: Retries of a failed connection or a 429/5xx answer, with back-off.
        backoff_s: urllib3's back-off factor.
        timeout: The wait to connect, and for each read.
        deadline: The most one request may take, start to last byte, redirects and retries
            included; by default ``GPUWIZARD_HTTP_DEADLINE_S``, else :data:`DEADLINE_IN_TIMEOUTS`
            times ``timeout``.
        budget: The most all of this client's requests may take together, from its first (a
            client is made per refresh or check); by default :data:`BUDGET_IN_DEADLINES` deadlines.
    """

    def __init__(
        self,
        retries: int = 2,
        backoff_s: float = 0.3,
        timeout: float = DEFAULT_TIMEOUT_S,
        *,
        deadline: float | None = None,
        budget: float | None = None,
    ) -> None:
        self._timeout = timeout
        self._deadline = deadline or configured_deadline() or DEADLINE_IN_TIMEOUTS * timeout
        self._budget = budget or BUDGET_IN_DEADLINES * self._deadline
        self._first: float | None = None
        import requests  # noqa: PLC0415 - only when something is fetched
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
        self._session.mount("https://", _tracking_adapter(max_retries=retry))
        self._session.headers["User-Agent"] = f"gpuwizard/{__version__}"

    def get(self, url: str, *, timeout: float | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
        """See :class:`HttpClient`."""
        timeout = timeout or self._timeout
        why = url_refusal(url)
        if why is not None:
            raise HttpError(f"{url}: refused, {why}")
        now = time.monotonic()
        self._first = now if self._first is None else self._first
        left = self._budget - (now - self._first)
        # Less than a millisecond connects nowhere: spent (and no clock rounding asks for 1e-9 s).
        if left < _LEAST_S:
            raise HttpError(
                f"{url}: not asked, the {_seconds(self._budget)} s allowed for these requests are spent"
            )
        deadline = min(self._deadline, left)
        # No read waits past the deadline either: the worker ends with the request.
        timeout = min(timeout, deadline)
        try:
            return _within(deadline, lambda: self._follow(url, timeout, max_bytes))
        except _DeadlinePassed:
            raise HttpError(f"{url}: no whole answer within {_seconds(deadline)} s") from None
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
                        raise HttpError(f"{url}: HTTP {response.status_code}", status=response.status_code)
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


def _seconds(value: float) -> str:
    """``1``, ``0.5``, ``12``: seconds to a tenth, as people read them."""
    return f"{round(value, 1):g}"


def _size(count: int) -> str:
    for unit, shift in (("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift} {unit}"
    return f"{count} bytes"


def _reason(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:200]


#: Seconds to wait for a package index to accept the connection, and then for its first answer:
#: an index that answers at all does so within a second or two; pip waits 15 s (its --timeout)
#: and retries 5 times, uv 30 s with 3 retries, which is what made an unreachable index cost
#: the person ~12 s of nothing before the explanation (issue 20).
PROBE_CONNECT_TIMEOUT_S: Final = 4.0
PROBE_READ_TIMEOUT_S: Final = 8.0

#: How the network libraries word each failure (urllib3's NameResolutionError and
#: NewConnectionError carry the OS's text: glibc "Name or service not known", "Temporary failure
#: in name resolution"; macOS "nodename nor servname provided"; Windows WinError 11001
#: "getaddrinfo failed", 10061 "actively refused", 10051/10065 unreachable).
_WORDS: Final[tuple[tuple[Failure, re.Pattern[str]], ...]] = (
    (
        "dns",
        re.compile(
            r"NameResolutionError|Name or service not known|Temporary failure in name resolution|"
            r"getaddrinfo failed|nodename nor servname|No address associated with hostname|Failed to resolve",
            re.IGNORECASE,
        ),
    ),
    ("refused", re.compile(r"Connection refused|actively refused|\[Errno 111\]|10061", re.IGNORECASE)),
    (
        "network",
        re.compile(
            r"Network is unreachable|No route to host|\[Errno 10[13]\]|\[Errno 113\]|1005[01]|10065",
            re.IGNORECASE,
        ),
    ),
    ("timeout", re.compile(r"timed out|timeout", re.IGNORECASE)),
)


def probe_index(
    url: str,
    *,
    connect_timeout: float = PROBE_CONNECT_TIMEOUT_S,
    read_timeout: float = PROBE_READ_TIMEOUT_S,
    follow_redirects: int = 0,
) -> IndexAnswer:
    """Ask ``url`` (an index's page, ``<index>/torch/``) once, without retries; never raises.

    The environment's settings apply as they do to pip: ``HTTPS_PROXY``/``HTTP_PROXY``/
    ``NO_PROXY`` and ``REQUESTS_CA_BUNDLE`` (requests' ``trust_env``,
    https://requests.readthedocs.io/en/latest/user/advanced/#proxies); the certificate is
    checked. Any status below 400 means the index is there (a redirect included). The whole
    exchange ends within ``connect_timeout + read_timeout`` (a ``timeout`` failure after that),
    however slowly the index sends its headers.

    ``follow_redirects``: up to that many redirects are followed, each to an https address (http
    only to this machine), within the same deadline, and the answer lists them: a download whose
    host sends it on to another (GitHub's release files) is asked where it really comes from.
    """
    shown = display_url(url)
    why = mirror_refusal(url)
    if why is not None:
        return IndexAnswer(shown, ok=False, failure="other", detail=f"{shown} {why}")
    import requests  # noqa: PLC0415 - only when something is asked

    proxy = _proxy_for(url)
    started = time.perf_counter()
    failure: Failure | None = None
    detail, status = "", None
    deadline = connect_timeout + read_timeout
    redirects: list[str] = []

    def ask() -> int:
        with requests.Session() as session:
            session.headers["User-Agent"] = f"gpuwizard/{__version__}"
            for scheme in ("https://", "http://"):
                session.mount(scheme, _tracking_adapter())
            current = url
            while True:
                # stream=True: only the status line and headers are read, never the page
                # (https://requests.readthedocs.io/en/latest/user/advanced/#body-content-workflow).
                with session.get(
                    current, timeout=(connect_timeout, read_timeout), allow_redirects=False, stream=True
                ) as response:
                    code = int(response.status_code)
                    location = response.headers.get("Location")
                if not (300 <= code < 400 and location and len(redirects) < follow_redirects):
                    return code
                current = urljoin(current, location)
                redirects.append(current)
                refused = mirror_refusal(current)
                if refused is not None:
                    raise ValueError(f"it sends the request on to {display_url(current)}, which {refused}")

    try:
        status = _within(deadline, ask)
    except _DeadlinePassed:
        failure, detail = "timeout", f"no whole answer within {_seconds(deadline)} s"
    except requests.exceptions.ProxyError as error:
        # "Tunnel connection failed: 407 Proxy Authentication Required" (http.client's CONNECT).
        failure = "proxy_auth" if "407" in str(error) else "proxy"
        detail = _innermost(error)
    except requests.exceptions.SSLError as error:
        failure, detail = "tls", _innermost(error)
    except requests.exceptions.Timeout as error:
        failure, detail = "timeout", _innermost(error)
    except requests.exceptions.ConnectionError as error:
        failure, detail = _connection_failure(error), _innermost(error)
    except (requests.exceptions.RequestException, ValueError) as error:
        failure, detail = "other", _innermost(error)
    seconds = time.perf_counter() - started
    if failure is None and status is not None and status >= 400:
        failure = "proxy_auth" if status == 407 else "http"
        detail = f"HTTP {status}"
    return IndexAnswer(
        shown,
        ok=failure is None,
        failure=failure,
        detail=hide_logins(detail),
        status=status,
        proxy=display_url(proxy) if proxy else None,
        seconds=seconds,
        redirects=tuple(display_url(address) for address in redirects),
    )


def _proxy_for(url: str) -> str | None:
    """The proxy requests will use for ``url`` from the environment (None: straight there)."""
    from requests.utils import get_environ_proxies, select_proxy  # noqa: PLC0415

    proxies = get_environ_proxies(url)
    proxy = select_proxy(url, proxies) if proxies else None
    return str(proxy) if proxy else None


def _chain(error: BaseException) -> list[BaseException]:
    """``error`` and what it wraps: urllib3's MaxRetryError ``reason``, the first argument, the cause."""
    seen: list[BaseException] = []
    current: BaseException | None = error
    while current is not None and current not in seen:
        seen.append(current)
        reason = getattr(current, "reason", None)
        nested = current.args[0] if current.args and isinstance(current.args[0], BaseException) else None
        current = reason if isinstance(reason, BaseException) else nested or current.__cause__
    return seen


def _innermost(error: BaseException) -> str:
    """What the innermost error said, in one line (the OS's or the TLS library's words)."""
    chain = _chain(error)
    return _reason(chain[-1]) if str(chain[-1]) else _reason(error)


def _connection_failure(error: BaseException) -> Failure:
    """Which way a connection failed, from urllib3's exception or the OS's words."""
    from urllib3.exceptions import NameResolutionError  # noqa: PLC0415

    chain = _chain(error)
    if any(isinstance(part, NameResolutionError) for part in chain):
        return "dns"
    text = " ".join(str(part) for part in chain)
    return next((failure for failure, words in _WORDS if words.search(text)), "other")
