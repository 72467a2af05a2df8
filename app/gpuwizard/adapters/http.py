"""HTTP through requests: the only module that imports it.

Timeouts on every call, retries with back-off for flaky networks and 429/5xx answers, proxy
settings from the environment (``HTTPS_PROXY``, ``NO_PROXY``: requests honours them), and one
exception for every way a fetch can fail, so callers fall back quietly to what they have.
"""

from __future__ import annotations

from typing import Final, Protocol

from gpuwizard import __version__

DEFAULT_TIMEOUT_S: Final = 10.0


class HttpError(Exception):
    """A fetch failed (offline, refused, timed out, an HTTP error); the message says which."""


class HttpClient(Protocol):
    """Fetches bytes from a URL."""

    def get(self, url: str, *, timeout: float | None = None) -> bytes:
        """The body of a 200 answer (``timeout`` in seconds; None: the client's default).

        Raises:
            HttpError: Anything else.
        """
        ...


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
        adapter = HTTPAdapter(max_retries=retry)
        self._session.mount("http://", adapter)
        self._session.mount("https://", adapter)
        self._session.headers["User-Agent"] = f"gpuwizard/{__version__}"

    def get(self, url: str, *, timeout: float | None = None) -> bytes:
        """See :class:`HttpClient`."""
        timeout = timeout or self._timeout
        try:
            response = self._session.get(url, timeout=timeout)
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
        if response.status_code != 200:
            raise HttpError(f"{url}: HTTP {response.status_code}")
        return response.content


def _reason(error: BaseException) -> str:
    text = str(error).splitlines()[0] if str(error) else type(error).__name__
    return text[:200]
