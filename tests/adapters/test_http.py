"""adapters/http.py against real servers on 127.0.0.1: https only, redirects checked, sizes limited.

The https server's certificate is signed by a CA made for the test run and trusted through
``REQUESTS_CA_BUNDLE`` (``harness.http_server``); the plain http server is there to show that
nothing reaches it.
"""

from __future__ import annotations

import gzip

import pytest

from gpuwizard.adapters.http import DEFAULT_MAX_BYTES, MAX_REDIRECTS, HttpError, RequestsClient
from harness.http_server import serve, trust_test_ca

KIB = 1 << 10
NOT_HTTPS = "not an https:// URL (anything else can be changed on its way to this machine)"


@pytest.fixture(autouse=True)
def _trust_the_test_ca(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)


def client() -> RequestsClient:
    return RequestsClient(retries=0, timeout=5)


def refused(url: str, **kwargs: int) -> str:
    """The one-line message of the HttpError that ``get`` raises."""
    with pytest.raises(HttpError) as raised:
        client().get(url, **kwargs)
    message = str(raised.value)
    assert len(message.splitlines()) == 1, message
    return message


@pytest.mark.parametrize("host", ["127.0.0.1", "localhost"])
def test_plain_http_is_refused_before_any_request_even_to_this_machine(host: str):
    with serve() as site:
        site.put("/data", b"served")
        url = site.url.replace("127.0.0.1", host) + "/data"
        assert refused(url) == f"{url}: refused, {NOT_HTTPS}"
        assert site.seen == []


@pytest.mark.parametrize(
    "url",
    [
        "http://example.org/data",
        "http://[::1]/data",
        "HTTP://127.0.0.1/data",
        "ftp://127.0.0.1/data",
        "file:///etc/passwd",
        "https:///data",
        "127.0.0.1/data",
        "https://[::1/data",
    ],
)
def test_every_url_but_https_with_a_host_is_refused(url: str):
    assert refused(url).startswith(f"{url}: refused, not")


def test_https_within_the_limit_is_fetched():
    with serve(tls=True) as site:
        site.put("/exact", b"x" * KIB)
        site.put("/exact-chunked", b"y" * KIB, chunk=100)
        assert client().get(f"{site.url}/exact", max_bytes=KIB) == b"x" * KIB
        assert client().get(f"{site.url}/exact-chunked", max_bytes=KIB) == b"y" * KIB


def test_an_untrusted_certificate_is_refused(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("REQUESTS_CA_BUNDLE")
    with serve(tls=True) as site:
        site.put("/data", b"served")
        message = refused(f"{site.url}/data")
    assert message.startswith(f"{site.url}/data: cannot connect (") and "CERTIFICATE_VERIFY_FAILED" in message
    assert site.seen == []


@pytest.mark.parametrize("status", [301, 302, 303, 307, 308])
def test_a_redirect_to_http_is_refused_before_it_is_followed(status: int):
    with serve() as plain, serve(tls=True) as site:
        plain.put("/data", b"served over http")
        target = f"{plain.url}/data"
        site.put("/moved", b"", status=status, headers={"Location": target})
        url = f"{site.url}/moved"
        assert refused(url) == f"{url}: refused a redirect to {target}, {NOT_HTTPS}"
    assert site.seen == ["/moved"]
    assert plain.seen == []


def test_https_redirects_are_followed_relative_or_absolute():
    with serve(tls=True) as site:
        site.put("/data", b"here")
        site.put("/relative", b"", status=301, headers={"Location": "/absolute"})
        site.put("/absolute", b"", status=307, headers={"Location": f"{site.url}/data"})
        assert client().get(f"{site.url}/relative") == b"here"
    assert site.seen == ["/relative", "/absolute", "/data"]


def test_a_redirect_loop_stops():
    with serve(tls=True) as site:
        site.put("/loop", b"", status=302, headers={"Location": "/loop"})
        url = f"{site.url}/loop"
        assert refused(url) == f"{url}: more than {MAX_REDIRECTS} redirects"
    assert site.seen == ["/loop"] * (MAX_REDIRECTS + 1)


def test_an_answer_longer_than_its_content_length_allows_is_refused_unread():
    with serve(tls=True) as site:
        site.put("/big", b"x" * (KIB + 1))
        url = f"{site.url}/big"
        assert (
            refused(url, max_bytes=KIB)
            == f"{url}: answer larger than the 1 KiB allowed (Content-Length 1025)"
        )


def test_a_chunked_answer_without_content_length_is_cut_off_at_the_limit():
    with serve(tls=True) as site:
        site.put("/big", b"x" * (4 << 20), chunk=16 * KIB)  # 4 MiB, no Content-Length
        url = f"{site.url}/big"
        assert refused(url, max_bytes=64 * KIB) == f"{url}: answer larger than the 64 KiB allowed"


def test_a_small_compressed_answer_that_unpacks_too_large_is_refused():
    # The limit counts the bytes as decoded: 2 MiB of zeros gzip to about 2 KiB.
    packed = gzip.compress(b"\0" * (2 << 20))
    assert len(packed) < 8 * KIB
    with serve(tls=True) as site:
        site.put("/bomb", packed, headers={"Content-Encoding": "gzip"})
        url = f"{site.url}/bomb"
        assert refused(url, max_bytes=1 << 20) == f"{url}: answer larger than the 1 MiB allowed"


def test_the_default_limit_is_32_mib():
    assert DEFAULT_MAX_BYTES == 32 << 20
    with serve(tls=True) as site:
        site.put("/huge", b"x" * (DEFAULT_MAX_BYTES + 1), chunk=1 << 20)
        url = f"{site.url}/huge"
        assert refused(url) == f"{url}: answer larger than the 32 MiB allowed"


def test_an_http_error_is_one_line():
    with serve(tls=True) as site:
        url = f"{site.url}/missing"
        assert refused(url) == f"{url}: HTTP 404"
