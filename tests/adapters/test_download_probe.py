"""Asking for a download as it starts, its redirects followed: the check of the Python build uv fetches.

Issue 37, point 6: GitHub hands a release file out from another host than github.com, so the
check before an install follows the redirects of a download (each to https, within the one
deadline) and names every host it was sent to. Real https servers on 127.0.0.1 stand in for
github.com and its file host.
"""

from __future__ import annotations

import pytest

from gpuwizard.adapters.http import probe_index
from gpuwizard.adapters.index_check import DOWNLOAD_REDIRECTS, probe_download_from_environment
from gpuwizard.core.envs.index_reach import answer_words
from harness.http_server import closed_port, serve, trust_test_ca

PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
ARCHIVE = "/download/20261110/cpython-3.13.9%2B20261110-x86_64-unknown-linux-gnu-install_only_stripped.tar.gz"


@pytest.fixture(autouse=True)
def _trusted_and_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (*PROXY_VARIABLES, "NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)


def test_a_redirected_download_is_asked_where_it_really_comes_from():
    with serve(tls=True) as releases, serve(tls=True) as assets:
        releases.put(ARCHIVE, "", status=302, headers={"Location": f"{assets.url}/objects/cpython.tar.gz"})
        assets.put("/objects/cpython.tar.gz", b"\x1f\x8b" * 4096, content_type="application/gzip")
        answer = probe_index(releases.url + ARCHIVE, follow_redirects=DOWNLOAD_REDIRECTS)
        assert assets.seen == ["/objects/cpython.tar.gz"]
    assert answer.ok, answer
    assert (answer.status, answer.redirects) == (200, (f"{assets.url}/objects/cpython.tar.gz",))


def test_a_file_host_that_refuses_fails_the_download_and_is_the_one_named():
    port = closed_port()
    with serve(tls=True) as releases:
        releases.put(
            ARCHIVE, "", status=302, headers={"Location": f"https://127.0.0.1:{port}/objects/cpython.tar.gz"}
        )
        answer = probe_index(releases.url + ARCHIVE, follow_redirects=DOWNLOAD_REDIRECTS)
    assert not answer.ok
    assert answer.failure == "refused"
    assert answer.last_url == f"https://127.0.0.1:{port}/objects/cpython.tar.gz"
    assert str(answer_words(answer)) == f"127.0.0.1:{port} refused the connection"


def test_a_redirect_to_plain_http_elsewhere_is_refused_without_asking_it():
    with serve(tls=True) as releases:
        releases.put(
            ARCHIVE, "", status=302, headers={"Location": "http://files.example.invalid/cpython.tar.gz"}
        )
        answer = probe_index(releases.url + ARCHIVE, follow_redirects=DOWNLOAD_REDIRECTS)
    assert (answer.ok, answer.failure) == (False, "other")
    assert "is not an https:// URL" in answer.detail


def test_an_index_page_is_still_asked_alone():
    # The package indexes' check is unchanged: a redirect is an answer, and it is not followed.
    with serve(tls=True) as index, serve(tls=True) as elsewhere:
        index.put("/simple/torch/", "", status=301, headers={"Location": f"{elsewhere.url}/simple/torch/"})
        answer = probe_index(f"{index.url}/simple/torch/")
        assert elsewhere.seen == []
    assert (answer.ok, answer.status, answer.redirects) == (True, 301, ())


def test_the_download_probe_asks_only_when_checks_are_on(monkeypatch: pytest.MonkeyPatch):
    with serve(tls=True) as releases:
        releases.put(ARCHIVE, b"archive", content_type="application/gzip")
        # tests/conftest.py turns asking off
        assert probe_download_from_environment(releases.url + ARCHIVE) is None
        assert releases.seen == []
        monkeypatch.setenv("GPUWIZARD_NO_INDEX_CHECK", "")
        answer = probe_download_from_environment(releases.url + ARCHIVE)
    assert answer is not None and answer.ok
