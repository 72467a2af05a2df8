"""Refreshing the compatibility data over real HTTP on 127.0.0.1."""

from __future__ import annotations

import copy
import hashlib
import json
import socket
import time
from pathlib import Path

import pytest

from gpuwizard.adapters.http import HttpError, RequestsClient
from gpuwizard.workflow.compat.data import bundled_date, bundled_files, load_compat
from gpuwizard.workflow.compat.refresh import make_bundle, refresh_compat
from gpuwizard.workflow.state.compat_cache import cache_dir
from harness.http_server import Site, serve

NEWER = "2099-01-01"


def newer_files() -> dict:
    files = copy.deepcopy(bundled_files())
    release = copy.deepcopy(files["pytorch"]["releases"][0])
    release["version"], release["latest"] = "9.1", "9.1.0"
    files["pytorch"]["releases"].insert(0, release)
    return files


def publish(site: Site, files: dict, generated: str = NEWER, sha: str | None = None) -> str:
    raw = make_bundle(files, generated)
    site.put("/compat.json", raw)
    site.put("/compat.json.sha256", f"{sha or hashlib.sha256(raw).hexdigest()}  compat.json\n")
    site.put("/pypi/torch/json", json.dumps({"info": {"version": "2.14.0"}}))
    site.put("/pypi/tensorflow/json", json.dumps({"info": {"version": "2.21.0"}}))
    return f"{site.url}/compat.json"


@pytest.fixture(autouse=True)
def _indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing leaves 127.0.0.1: the index addresses point at an unused local port by default.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("GPUWIZARD_PYPI_URL", f"http://127.0.0.1:{port}/pypi")
    monkeypatch.setenv("GPUWIZARD_TORCH_INDEX_URL", f"http://127.0.0.1:{port}/whl")
    monkeypatch.delenv("GPUWIZARD_COMPAT_URL", raising=False)


def client() -> RequestsClient:
    return RequestsClient(retries=2, backoff_s=0.01, timeout=2)


def use_site_indexes(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUWIZARD_PYPI_URL", f"{site.url}/pypi")
    monkeypatch.setenv("GPUWIZARD_TORCH_INDEX_URL", f"{site.url}/whl")


def test_newer_data_is_verified_cached_and_used(monkeypatch: pytest.MonkeyPatch):
    with serve() as site:
        use_site_indexes(site, monkeypatch)
        url = publish(site, newer_files())
        notes = refresh_compat(url, client())
    assert notes[0] == f"Compatibility data refreshed: data of {NEWER} from {url}."
    assert (cache_dir() / "bundle.json").is_file()
    compat = load_compat()
    assert compat.pytorch[0].version == "9.1"
    assert compat.origin.startswith(f"refreshed data of {NEWER} from {url}, fetched 0 min ago")


def test_a_digest_that_does_not_match_is_refused():
    with serve() as site:
        url = publish(site, newer_files(), sha="0" * 64)
        notes = refresh_compat(url, client())
    assert "does not match its published sha256" in notes[0]
    assert not cache_dir().exists()
    assert load_compat().origin == "bundled"


def test_data_that_fails_its_schema_is_refused():
    files = newer_files()
    del files["cuda"]["toolkit_drivers"][0]["source"]
    with serve() as site:
        notes = refresh_compat(publish(site, files), client())
    assert "is invalid (cuda.json: at toolkit_drivers/0: 'source' is a required property)" in notes[0]
    assert not cache_dir().exists()


def test_data_that_is_not_newer_is_not_cached():
    with serve() as site:
        notes = refresh_compat(publish(site, newer_files(), generated=bundled_date()), client())
    assert "is not newer than the bundled data" in notes[0]
    assert not cache_dir().exists()


def test_offline_falls_back_quietly_and_quickly():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # nothing listens there
    started = time.monotonic()
    notes = refresh_compat(f"http://127.0.0.1:{port}/compat.json", client())
    assert time.monotonic() - started < 5
    assert notes[0].startswith("Could not refresh the compatibility data (")
    assert notes[0].endswith(f"using the bundled data of {bundled_date()}.")
    assert all(note.startswith("Could not ask PyPI") for note in notes[1:])
    assert load_compat().origin == "bundled"


def test_a_server_that_does_not_answer_times_out():
    with serve() as site:
        site.put("/slow", b"{}", delay_s=3)
        with pytest.raises(HttpError, match=r"no answer within 0\.5 s"):
            RequestsClient(retries=0, timeout=0.5).get(f"{site.url}/slow")


def test_transient_server_errors_are_retried():
    with serve() as site:
        site.put("/flaky", b"fine", first=[503, 502])
        assert client().get(f"{site.url}/flaky") == b"fine"
        assert site.seen.count("/flaky") == 3


def test_newer_releases_on_the_indexes_are_reported(monkeypatch: pytest.MonkeyPatch):
    with serve() as site:
        use_site_indexes(site, monkeypatch)
        site.put("/pypi/torch/json", json.dumps({"info": {"version": "2.15.0"}}))
        site.put("/pypi/tensorflow/json", json.dumps({"info": {"version": "2.21.0"}}))
        site.put(
            "/whl/torch/",
            '<a href="torch-2.15.0%2Bcu130-cp312-cp312-manylinux_2_28_x86_64.whl">'
            "torch-2.15.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl</a>\n"
            "<a>torch-2.15.0+cpu-cp312-cp312-win_amd64.whl</a><a>torch-2.14.0+cu126-cp312-x.whl</a>",
        )
        notes = refresh_compat(None, client())
    assert notes[0].startswith("No compatibility data URL is set")
    assert notes[1] == (
        "PyPI has torch 2.15.0, newer than the 2.14.0 the data knows: its build matrix is not in the tables "
        "yet, so it is not recommended. The PyTorch index offers it as cpu, cu130."
    )
    assert notes[2] == "PyPI's newest tensorflow is 2.21.0: the data knows it."


def test_a_tampered_cache_is_ignored(monkeypatch: pytest.MonkeyPatch):
    with serve() as site:
        use_site_indexes(site, monkeypatch)
        refresh_compat(publish(site, newer_files()), client())
    bundle = cache_dir() / "bundle.json"
    bundle.write_bytes(bundle.read_bytes().replace(b"9.1.0", b"9.2.0"))
    assert load_compat().origin == "bundled"


def test_the_cache_lives_under_gpuwizard_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUWIZARD_HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / "cache" / "compat"
