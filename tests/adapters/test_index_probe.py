"""``probe_index``: whether a package index answers, and which way it fails, against real servers on 127.0.0.1.

Each failure is made for real: a port nothing listens on (refused), a name that cannot resolve
(``.invalid`` is reserved never to, RFC 2606), a server that never answers (timeout), a
certificate from a CA the client does not trust (TLS), and as ``HTTPS_PROXY`` a closed port (a
proxy that is down) and a server answering every ``CONNECT`` with 407 (a proxy that wants a login).
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest

from gpuwizard.adapters.http import probe_index
from harness.http_server import closed_port, serve, trust_test_ca
from harness.waits import EVENT_S

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")


@pytest.fixture(autouse=True)
def _no_proxy_but_the_tests(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*PROXY_VARIABLES, "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def answering_407() -> Iterator[str]:
    """A proxy that asks for a login: every request gets ``407 Proxy Authentication Required``."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    stop = threading.Event()

    def serve_forever() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                client, _ = server.accept()
            except OSError:
                continue
            with client:
                client.settimeout(5)
                request = b""
                while b"\r\n\r\n" not in request:
                    chunk = client.recv(4096)
                    if not chunk:
                        break
                    request += chunk
                client.sendall(
                    b"HTTP/1.1 407 Proxy Authentication Required\r\n"
                    b'Proxy-Authenticate: Basic realm="corp"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n'
                )

    thread = threading.Thread(target=serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(EVENT_S)
        server.close()


@pytest.fixture
def silent_server() -> Iterator[str]:
    """Accepts connections and never says a word."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(server.accept()[0])
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(EVENT_S)
        for connection in held:
            connection.close()
        server.close()


def test_an_index_that_answers(trusted: None):
    with serve(tls=True) as site:
        site.put("/whl/cpu/torch/", "<html></html>", content_type="text/html")
        answer = probe_index(f"{site.url}/whl/cpu/torch/")
        assert (answer.ok, answer.failure, answer.status) == (True, None, 200)
        assert site.seen == ["/whl/cpu/torch/"]


def test_an_index_without_the_project_answers_http_404(trusted: None):
    with serve(tls=True) as site:
        answer = probe_index(f"{site.url}/simple/torch/")
    assert (answer.ok, answer.failure, answer.status, answer.detail) == (False, "http", 404, "HTTP 404")


def test_a_closed_port_is_refused():
    port = closed_port()
    answer = probe_index(f"https://127.0.0.1:{port}/whl/cpu/torch/")
    assert (answer.ok, answer.failure) == (False, "refused")
    assert "refused" in answer.detail.lower()


def test_a_name_that_does_not_resolve_is_a_dns_failure():
    answer = probe_index("https://download.pytorch.invalid/whl/cpu/torch/")
    assert (answer.ok, answer.failure) == (False, "dns")


def test_a_server_that_never_answers_times_out(silent_server: str):
    answer = probe_index(f"{silent_server}/simple/torch/", connect_timeout=2, read_timeout=1)
    assert (answer.ok, answer.failure) == (False, "timeout")


def test_a_certificate_no_trusted_ca_signed_is_a_tls_problem(monkeypatch: pytest.MonkeyPatch):
    # As behind a TLS-inspecting company proxy: the server's CA is not one the client trusts.
    monkeypatch.delenv("REQUESTS_CA_BUNDLE", raising=False)
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)
    with serve(tls=True) as site:
        site.put("/simple/torch/", "<html></html>")
        answer = probe_index(f"{site.url}/simple/torch/")
    assert (answer.ok, answer.failure) == (False, "tls")
    assert "CERTIFICATE_VERIFY_FAILED" in answer.detail


def test_https_proxy_at_a_closed_port_is_a_proxy_problem(monkeypatch: pytest.MonkeyPatch):
    proxy = f"http://ana:s3cret@127.0.0.1:{closed_port()}"
    monkeypatch.setenv("HTTPS_PROXY", proxy)
    answer = probe_index("https://pypi.example/simple/torch/")
    assert (answer.ok, answer.failure) == (False, "proxy")
    assert answer.proxy is not None and answer.proxy.startswith("http://***@127.0.0.1:")  # the login hidden


def test_a_proxy_that_asks_for_a_login_is_named(monkeypatch: pytest.MonkeyPatch, answering_407: str):
    monkeypatch.setenv("HTTPS_PROXY", answering_407)
    answer = probe_index("https://pypi.example/simple/torch/")
    assert (answer.ok, answer.failure, answer.proxy) == (False, "proxy_auth", answering_407)


def test_no_proxy_is_honoured_as_pip_honours_it(monkeypatch: pytest.MonkeyPatch, trusted: None):
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{closed_port()}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    with serve(tls=True) as site:
        site.put("/simple/torch/", "<html></html>")
        answer = probe_index(f"{site.url}/simple/torch/")
    assert (answer.ok, answer.proxy) == (True, None)


def test_plain_http_is_asked_only_on_this_machine():
    with serve() as site:
        site.put("/simple/torch/", "<html></html>")
        assert probe_index(f"{site.url}/simple/torch/").ok
        assert site.seen == ["/simple/torch/"]
    refused = probe_index("http://mirror.example/simple/torch/")
    assert (refused.ok, refused.failure) == (False, "other")
    assert "not an https:// URL" in refused.detail
