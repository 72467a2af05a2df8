"""A real HTTP server on 127.0.0.1 for the refresh tests, serving set answers by path.

``serve(tls=True)`` serves https, with a certificate for 127.0.0.1 signed by a CA made for the
test run (``ca_certificate``): the wizard fetches nothing but https (``adapters/http.py``), and trusts
that CA when ``REQUESTS_CA_BUNDLE`` names it (``trust_test_ca``), as requests documents
(https://requests.readthedocs.io/en/latest/user/advanced/#ssl-cert-verification).
"""

from __future__ import annotations

import atexit
import contextlib
import datetime
import ipaddress
import shutil
import socket
import ssl
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID


@dataclass
class Answer:
    body: bytes = b""
    status: int = 200
    delay_s: float = 0.0
    content_type: str = ""
    #: Statuses to send first, one per request, before the real answer (to test retries).
    first: list[int] = field(default_factory=list)
    #: More headers (a redirect's Location, a Content-Encoding).
    headers: dict[str, str] = field(default_factory=dict)
    #: Sent with ``Transfer-Encoding: chunked`` in pieces of this many bytes, without a
    #: Content-Length (0: all at once, with one).
    chunk: int = 0
    #: Held back until this is set (at most ``delay_s``, or without bound when that is 0): a
    #: download the test lets finish, or never, once it has seen it start.
    hold: threading.Event | None = None
    #: A server that trickles: the whole answer, status line and headers included, one byte every
    #: this many seconds (0: at once). Each byte restarts a client's read timeout, so only a
    #: deadline for the whole request ends it (adapters/http.py).
    trickle_s: float = 0.0
    #: Trickle the body only: the status line and headers go at once.
    trickle_body_only: bool = False
    #: Set once the trickle has begun (the client is waiting), and once the client has gone away
    #: (it closed or shut down its socket: the trickle could not write any more).
    trickling: threading.Event = field(default_factory=threading.Event)
    client_gone: threading.Event = field(default_factory=threading.Event)
    #: Set once the trickle has sent its last byte.
    trickled: threading.Event = field(default_factory=threading.Event)


@dataclass
class Site:
    """Answers by path; records the requests seen."""

    answers: dict[str, Answer] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)
    url: str = ""
    #: Set when the server stops: a trickle still running ends then.
    stopped: threading.Event = field(default_factory=threading.Event)

    def put(self, path: str, body: bytes | str, **kwargs: object) -> None:
        self.answers[path] = Answer(body.encode() if isinstance(body, str) else body, **kwargs)  # type: ignore[arg-type]


@contextmanager
def serve(*, tls: bool = False) -> Iterator[Site]:
    """A server on 127.0.0.1 (https with ``tls``, trusted through :func:`trust_test_ca`)."""
    site = Site()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            site.seen.append(self.path)
            answer = site.answers.get(self.path)
            if answer is None:
                self.send_error(404)
                return
            if answer.first:
                self.send_error(answer.first.pop(0))
                return
            if answer.trickle_s:
                self._trickle(answer)
                return
            if answer.hold is not None:
                answer.hold.wait(answer.delay_s or None)
            else:
                time.sleep(answer.delay_s)
            if answer.chunk:
                self._send_chunked(answer)
                return
            self.send_response(answer.status)
            self.send_header("Content-Length", str(len(answer.body)))
            if answer.content_type:
                self.send_header("Content-Type", answer.content_type)
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            # The client may have gone away (a download cancelled part-way): what the test wants.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(answer.body)

        def _send_chunked(self, answer: Answer) -> None:
            # Chunked transfer is HTTP/1.1 (RFC 9112, 7.1); the connection closes after it.
            self.protocol_version = "HTTP/1.1"
            self.close_connection = True
            self.send_response(answer.status)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Connection", "close")
            for name, value in answer.headers.items():
                self.send_header(name, value)
            self.end_headers()
            try:
                for start in range(0, len(answer.body), answer.chunk):
                    piece = answer.body[start : start + answer.chunk]
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
                self.wfile.write(b"0\r\n\r\n")
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client stopped reading (an answer too large): what the test wants

        def _trickle(self, answer: Answer) -> None:
            extra = "".join(f"{name}: {value}\r\n" for name, value in answer.headers.items())
            head = f"HTTP/1.1 {answer.status} OK\r\nContent-Length: {len(answer.body)}\r\n{extra}\r\n"
            data = head.encode("ascii") + answer.body
            self.close_connection = True
            start = len(head) if answer.trickle_body_only else 0
            try:
                self.wfile.write(data[:start])
                self.wfile.flush()
                answer.trickling.set()
                for index in range(start, len(data)):
                    self.wfile.write(data[index : index + 1])
                    self.wfile.flush()
                    if site.stopped.wait(answer.trickle_s):
                        return
                answer.trickled.set()
            except OSError:
                # BrokenPipeError, ConnectionResetError, or a TLS error from a socket cut off.
                answer.client_gone.set()

        def do_HEAD(self) -> None:
            # uv asks HEAD first to see whether range requests work (PEP 658 fallback).
            answer = site.answers.get(self.path)
            if answer is None:
                self.send_error(404)
                return
            self.send_response(answer.status)
            self.send_header("Content-Length", str(len(answer.body)))
            if answer.content_type:
                self.send_header("Content-Type", answer.content_type)
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        certificate, key, _ = _server_files()
        context.load_cert_chain(certificate, key)
        server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.url = f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    try:
        yield site
    finally:
        site.stopped.set()
        server.shutdown()
        server.server_close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: an index that does not answer."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def asking(**variables: str) -> dict[str, str]:
    """The environment of a ``gpuwizard`` run that asks the indexes for real, through no proxy.

    tests/conftest.py turns asking off for every other test. PyPI too is a closed port of this
    machine unless ``variables`` name a server of the test: nothing leaves the machine.
    """
    proxies = dict.fromkeys(
        ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"), ""
    )
    closed = f"https://127.0.0.1:{closed_port()}/simple"
    pypi = {"UV_DEFAULT_INDEX": closed, "PIP_INDEX_URL": closed}
    return {**proxies, **pypi, "GPUWIZARD_NO_INDEX_CHECK": "", **trust_test_ca(), **variables}


def trust_test_ca() -> dict[str, str]:
    """The environment under which requests trusts the test CA (and nothing else)."""
    return {"REQUESTS_CA_BUNDLE": str(ca_certificate())}


def ca_certificate() -> Path:
    """The test run's CA certificate (PEM), made on first use."""
    return _server_files()[2]


@cache
def _server_files() -> tuple[Path, Path, Path]:
    """(server certificate, its key, the CA's certificate): a CA made for this run and a server
    certificate for 127.0.0.1, ::1 and localhost that it signed, with the extensions that
    strict verification asks for (key identifiers, key usage, serverAuth)."""
    now = datetime.datetime.now(datetime.timezone.utc)

    def name(common: str) -> x509.Name:
        return x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, common)])

    def usage(*, sign_certificates: bool) -> x509.KeyUsage:
        return x509.KeyUsage(
            digital_signature=not sign_certificates, content_commitment=False, key_encipherment=False,
            data_encipherment=False, key_agreement=False, key_cert_sign=sign_certificates,
            crl_sign=sign_certificates, encipher_only=False, decipher_only=False,
        )  # fmt: skip

    ca_key, key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    ca_name = name("gpuwizard test CA")
    ca_ski = x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key())
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(usage(sign_certificates=True), critical=True)
        .add_extension(ca_ski, critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    server = (
        x509.CertificateBuilder()
        .subject_name(name("127.0.0.1"))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(days=1))
        .not_valid_after(now + datetime.timedelta(days=30))
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(usage(sign_certificates=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .add_extension(
            x509.SubjectAlternativeName(
                [
                    x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
                    x509.IPAddress(ipaddress.ip_address("::1")),
                    x509.DNSName("localhost"),
                ]
            ),
            critical=False,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_subject_key_identifier(ca_ski), critical=False)
        .sign(ca_key, hashes.SHA256())
    )
    folder = Path(tempfile.mkdtemp(prefix="gpuwizard-test-tls-"))
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    paths = folder / "server.pem", folder / "server.key", folder / "ca.pem"
    paths[0].write_bytes(server.public_bytes(serialization.Encoding.PEM))
    paths[1].write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    paths[2].write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    return paths
