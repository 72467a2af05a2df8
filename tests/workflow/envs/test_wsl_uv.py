"""uv's Linux binary for a WSL distro, fetched for real over https on 127.0.0.1, checked and kept.

A server of the test run (``harness.http_server``, its certificate signed by the test CA that
requests is told to trust) plays PyPI: the JSON answer recorded from https://pypi.org/pypi/uv/json
with the wheel pointed at the server, the Integrity API's provenance (or its 404), and a wheel
made here (``builders/uv_wheels.py``). The fetches go through the wizard's HTTP adapter, as they
do for real; the kept binaries go to a folder of the test.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import logging
import re
import sys
from pathlib import Path

import pytest

from builders.uv_wheels import AARCH64, SCRIPT, VERSION, X86_64, provenance, pypi_answer, uv_wheel
from gpuwizard.adapters.http import DEADLINE_VARIABLE, RequestsClient
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.workflow.envs.wsl_uv import (
    LATEST,
    UvFetchError,
    WslUv,
    bundled_uv_version,
    fetch_wsl_uv,
    uv_cache_dir,
    wizard_uv_version,
)
from gpuwizard.workflow.state.home import wizard_home
from harness.http_server import Site, serve, trust_test_ca
from harness.waits import EVENT_S

JSON = f"/pypi/uv/{VERSION}/json"
LATEST_JSON = "/pypi/uv/json"
WHEEL = f"/files/{X86_64}"
PROVENANCE = f"/integrity/uv/{VERSION}/{X86_64}/provenance"


@pytest.fixture(autouse=True)
def _trust_the_test_ca(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)
    for name in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy", DEADLINE_VARIABLE):
        monkeypatch.delenv(name, raising=False)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def publish(
    site: Site,
    wheel: bytes,
    *,
    published_sha256: str | None = None,
    wheel_url: str | None = None,
    provenance_body: bytes | None = None,
    json_path: str = JSON,
) -> None:
    """PyPI on ``site``: the JSON answer, ``wheel`` at :data:`WHEEL`, its provenance (None: a 404)."""
    url = wheel_url or site.url + WHEEL
    wrong = {X86_64: published_sha256} if published_sha256 else None
    site.put(json_path, pypi_answer({X86_64: (url, wheel)}, sha256=wrong), content_type="application/json")
    site.put(WHEEL, wheel)
    if provenance_body is not None:
        site.put(PROVENANCE, provenance_body, content_type="application/json")


def fetch(site: Site, cache: Path, **kwargs: object) -> WslUv:
    options: dict[str, object] = {"version": VERSION, "client": RequestsClient(retries=0), "pypi": site.url}
    return fetch_wsl_uv("x86_64", cache_dir=cache, **{**options, **kwargs})  # type: ignore[arg-type]


def kept(cache: Path) -> list[str]:
    return sorted(path.name for path in cache.iterdir()) if cache.is_dir() else []


def test_a_wheel_published_by_uvs_repository(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=provenance(X86_64, sha(wheel)))
        found = fetch(site, tmp_path)
        asked = list(site.seen)
    assert (found.version, found.arch, found.binary.data, found.sha256) == (
        VERSION,
        "x86_64",
        SCRIPT,
        sha(SCRIPT),
    )
    assert (found.publisher_checked, found.publisher) == (True, "GitHub astral-sh/uv (release.yml)")
    assert (found.source_url, found.wheel, found.wheel_sha256) == (site.url + WHEEL, X86_64, sha(wheel))
    # Who published it is asked before the wheel is downloaded.
    assert asked == [JSON, PROVENANCE, WHEEL]
    assert found.path == tmp_path / "uv-0.13.9-x86_64" and not found.from_cache
    assert found.path.read_bytes() == SCRIPT
    assert kept(tmp_path) == ["uv-0.13.9-x86_64", "uv-0.13.9-x86_64.json"]


def test_no_provenance_on_pypi_is_accepted_and_said(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=None)  # the Integrity API answers 404
        found = fetch(site, tmp_path)
        asked = list(site.seen)
    assert (found.publisher_checked, found.publisher, found.binary.data) == (False, None, SCRIPT)
    assert asked == [JSON, PROVENANCE, WHEEL]


def test_a_wrong_sha256_on_pypi_is_refused_and_nothing_kept(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, published_sha256="0" * 64, provenance_body=None)
        with pytest.raises(UvFetchError) as refused:
            fetch(site, tmp_path)
    assert refused.value.refused
    assert (
        str(refused.value)
        == f"{site.url}{WHEEL}: the uv wheel has sha256 {sha(wheel)}, not the published {'0' * 64}"
    )
    assert kept(tmp_path) == []


def test_a_provenance_naming_another_repository_is_refused_before_the_download(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=provenance(X86_64, sha(wheel), repository="someone/uv"))
        with pytest.raises(UvFetchError) as refused:
            fetch(site, tmp_path)
        asked = list(site.seen)
    assert refused.value.refused
    assert str(refused.value).startswith(
        f"{X86_64} was published by GitHub someone/uv, not by GitHub astral-sh/uv"
    )
    assert WHEEL not in asked
    assert kept(tmp_path) == []


def test_a_plain_http_url_in_pypis_answer_is_refused(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        plain = site.url.replace("https://", "http://") + WHEEL
        publish(site, wheel, wheel_url=plain, provenance_body=None)
        with pytest.raises(UvFetchError, match="not an https:// URL") as refused:
            fetch(site, tmp_path)
        asked = list(site.seen)
    assert refused.value.refused
    assert asked == [JSON]
    assert kept(tmp_path) == []


def test_a_binary_its_record_does_not_vouch_for_is_refused(tmp_path: Path):
    wheel = uv_wheel(listed=SCRIPT.replace(b"test", b"TEST"))
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=provenance(X86_64, sha(wheel)))
        with pytest.raises(
            UvFetchError, match=re.escape("does not match the sha256 uv-0.13.9.dist-info/RECORD gives it")
        ) as refused:
            fetch(site, tmp_path)
    assert refused.value.refused
    assert kept(tmp_path) == []


def test_a_wheel_that_trickles_ends_at_the_clients_deadline(tmp_path: Path):
    """The deadline is the client's: the server trickles the wheel for minutes; the fetch ends at 1 s."""
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=None)
        site.put(WHEEL, wheel, trickle_s=0.2, trickle_body_only=True)
        trickle = site.answers[WHEEL]
        client = RequestsClient(retries=0, timeout=5, deadline=1.0)
        with pytest.raises(UvFetchError) as failed:
            fetch(site, tmp_path, client=client)
        assert trickle.trickling.is_set()
        # Cut off while the server still sent (no clock read), and the connection closed.
        assert not trickle.trickled.is_set(), "the fetch waited for the whole trickle"
        assert trickle.client_gone.wait(EVENT_S), "the connection was left open"
    assert not failed.value.refused
    assert str(failed.value) == f"could not download {X86_64}: {site.url}{WHEEL}: no whole answer within 1 s"
    assert kept(tmp_path) == []


def test_pypi_failing_to_say_who_published_it_is_no_404(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=b"")
        site.put(PROVENANCE, b"", status=403)
        with pytest.raises(
            UvFetchError, match=f"could not ask PyPI who published {X86_64}: .*HTTP 403"
        ) as failed:
            fetch(site, tmp_path)
        asked = list(site.seen)
    assert not failed.value.refused
    assert WHEEL not in asked


def test_the_kept_binary_is_used_again_without_asking(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=provenance(X86_64, sha(wheel)))
        first = fetch(site, tmp_path)
        site.seen.clear()
        again = fetch(site, tmp_path)
        assert site.seen == []
    assert again.from_cache and again.path == first.path
    assert (again.binary, again.publisher_checked, again.publisher) == (first.binary, True, first.publisher)
    assert (again.wheel, again.source_url, again.wheel_sha256) == (
        first.wheel,
        first.source_url,
        first.wheel_sha256,
    )


def test_a_changed_kept_binary_is_fetched_again(tmp_path: Path, caplog: pytest.LogCaptureFixture):
    """Re-verified on reuse: a kept binary that lost its sha256 is not used; it is fetched again."""
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=None)
        first = fetch(site, tmp_path)
        assert first.path is not None
        first.path.write_bytes(b"#!/bin/sh\necho tampered\n")
        site.seen.clear()
        with caplog.at_level(logging.WARNING, logger="gpuwizard.state"):
            again = fetch(site, tmp_path)
        asked = list(site.seen)
    assert asked == [JSON, PROVENANCE, WHEEL]
    assert not again.from_cache and again.binary.data == SCRIPT
    assert first.path.read_bytes() == SCRIPT
    assert (
        f"the kept uv 0.13.9 ({first.path}) no longer has its sha256 {sha(SCRIPT)}; it is fetched again"
        in caplog.text
    )


def test_a_changed_kept_binary_is_never_handed_out_when_pypi_cannot_be_asked(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=None)
        first = fetch(site, tmp_path)
        url = site.url
    assert first.path is not None
    first.path.write_bytes(b"#!/bin/sh\necho tampered\n")
    # The server is gone: nothing answers there any more.
    with pytest.raises(UvFetchError, match="could not ask PyPI about uv") as failed:
        fetch_wsl_uv(
            "x86_64", version=VERSION, client=RequestsClient(retries=0), pypi=url, cache_dir=tmp_path
        )
    assert not failed.value.refused


def test_the_latest_release_when_the_wizards_uv_is_not_known(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=None, json_path=LATEST_JSON)
        found = fetch(site, tmp_path, version=None, own_version=lambda: None)
        site.seen.clear()
        # The latest is asked again (it may have moved on); the wheel is not fetched again.
        again = fetch(site, tmp_path, version=LATEST)
        asked = list(site.seen)
    assert found.version == VERSION and not found.from_cache
    assert again.from_cache and asked == [LATEST_JSON]


def test_the_wizards_own_uv_version_is_asked_for(tmp_path: Path):
    wheel = uv_wheel()
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=None)
        found = fetch(site, tmp_path, version=None, own_version=lambda: VERSION)
        asked = list(site.seen)
    assert found.version == VERSION and asked[0] == JSON


def test_each_architecture_is_kept_apart(tmp_path: Path):
    x86, arm = uv_wheel(), uv_wheel(b"#!/bin/sh\necho arm\n")
    with serve(tls=True) as site:
        answer = pypi_answer({X86_64: (site.url + WHEEL, x86), AARCH64: (site.url + "/files/arm.whl", arm)})
        site.put(JSON, answer)
        site.put(WHEEL, x86)
        site.put("/files/arm.whl", arm)
        client = RequestsClient(retries=0)
        first = fetch_wsl_uv("x86_64", version=VERSION, client=client, pypi=site.url, cache_dir=tmp_path)
        second = fetch_wsl_uv("arm64", version=VERSION, client=client, pypi=site.url, cache_dir=tmp_path)
    assert (first.arch, second.arch) == ("x86_64", "aarch64")
    assert second.binary.data == b"#!/bin/sh\necho arm\n" and not second.from_cache
    assert kept(tmp_path) == [
        "uv-0.13.9-aarch64",
        "uv-0.13.9-aarch64.json",
        "uv-0.13.9-x86_64",
        "uv-0.13.9-x86_64.json",
    ]


def test_an_unknown_architecture_is_refused_before_anything_is_asked(tmp_path: Path):
    with serve(tls=True) as site:
        with pytest.raises(UvFetchError, match="no uv for the architecture 'ppc64le'") as refused:
            fetch_wsl_uv(
                "ppc64le", version=VERSION, client=RequestsClient(), pypi=site.url, cache_dir=tmp_path
            )
        assert site.seen == []
    assert refused.value.refused


def test_the_kept_binaries_live_in_the_wizards_home():
    assert uv_cache_dir() == wizard_home() / "cache" / "uv"


REAL_UV = Path(sys.executable).with_name("uv.exe" if sys.platform == "win32" else "uv")


@pytest.mark.skipif(not REAL_UV.is_file(), reason="no uv beside this Python")
def test_the_real_uv_comes_through_and_runs(tmp_path: Path):
    """A wheel holding this machine's real uv: the bytes handed out are a uv that runs."""
    real = REAL_UV.read_bytes()
    wheel = uv_wheel(real, stored=True)
    with serve(tls=True) as site:
        publish(site, wheel, provenance_body=provenance(X86_64, sha(wheel)))
        found = fetch(site, tmp_path)
    assert found.sha256 == sha(real) and found.path is not None
    found.path.chmod(0o755)
    done = SubprocessRunner().run([str(found.path), "--version"], timeout=EVENT_S)
    assert done.stdout.startswith(f"uv {importlib.metadata.version('uv')}")


def test_the_wizards_uv_version_is_its_uv_packages():
    assert wizard_uv_version() == importlib.metadata.version("uv")


@pytest.mark.skipif(not REAL_UV.is_file(), reason="no uv beside this Python")
def test_the_uv_beside_the_program_says_its_version(tmp_path: Path):
    # The frozen build has no metadata of the uv package: the uv beside it is asked.
    assert bundled_uv_version(REAL_UV.parent) == importlib.metadata.version("uv")
    assert bundled_uv_version(tmp_path) is None
    (tmp_path / "uv").write_text("#!/bin/sh\necho 'not uv'\n")
    (tmp_path / "uv").chmod(0o755)
    assert bundled_uv_version(tmp_path, windows=False) is None
