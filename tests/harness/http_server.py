"""A real HTTP server on 127.0.0.1 for the refresh tests, serving set answers by path."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Answer:
    body: bytes = b""
    status: int = 200
    delay_s: float = 0.0
    content_type: str = ""
    #: Statuses to send first, one per request, before the real answer (to test retries).
    first: list[int] = field(default_factory=list)


@dataclass
class Site:
    """Answers by path; records the requests seen."""

    answers: dict[str, Answer] = field(default_factory=dict)
    seen: list[str] = field(default_factory=list)
    url: str = ""

    def put(self, path: str, body: bytes | str, **kwargs: object) -> None:
        self.answers[path] = Answer(body.encode() if isinstance(body, str) else body, **kwargs)  # type: ignore[arg-type]


@contextmanager
def serve() -> Iterator[Site]:
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
            time.sleep(answer.delay_s)
            self.send_response(answer.status)
            self.send_header("Content-Length", str(len(answer.body)))
            if answer.content_type:
                self.send_header("Content-Type", answer.content_type)
            self.end_headers()
            self.wfile.write(answer.body)

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
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()
