"""``gpuwizard env create`` on a machine without the plan's Python, through the real entry point (issue 37, point 6).

uv then downloads a managed CPython from another host than the package indexes: the preview
names it beside them ("Python from", "Hosts"; ``python_download`` and ``hosts`` with
``--json``), the check before anything is made asks it with the indexes, and one that does not
answer ends the command with exit 2, one line, and how to install that Python oneself. The
machine is made to lack it: the command sees only the test venv's folder on PATH and empty
pyenv and uv folders, so the one Python found is the wizard's own. Servers on 127.0.0.1 stand
in for the indexes, the mirror of Python builds and its file host; nothing leaves the machine.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.entry_point import gpuwizard
from harness.http_server import Site, ca_certificate, closed_port, serve, trust_test_ca

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
#: A Python PyTorch 2.13 supports and uv has builds of, other than the wizard's own.
MISSING = "3.13" if PYTHON != "3.13" else "3.12"
VENV_BIN = Path(sys.executable).parent
UV = VENV_BIN / ("uv.exe" if sys.platform == "win32" else "uv")

pytestmark = pytest.mark.skipif(not UV.exists(), reason="uv is a project dependency; not installed here")


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


@pytest.fixture
def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # set for every test by tests/conftest.py


def without_python(tmp_path: Path, indexes: Site, **variables: str) -> dict[str, str]:
    """A run that asks for real, on a machine whose only Python is the wizard's own."""
    proxies = dict.fromkeys(
        ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"), ""
    )
    return {
        **proxies,
        "GPUWIZARD_NO_INDEX_CHECK": "",
        **trust_test_ca(),
        "SSL_CERT_FILE": str(ca_certificate()),  # uv trusts the test CA too
        "PATH": str(VENV_BIN),
        "HOME": str(tmp_path / "home"),
        "USERPROFILE": str(tmp_path / "home"),
        "PYENV_ROOT": str(tmp_path / "no-pyenv"),
        "UV_PYTHON_INSTALL_DIR": str(tmp_path / "uv-pythons"),
        "UV_ASTRAL_MIRROR_URL": "",
        "GPUWIZARD_PYTORCH_INDEX_URL": f"{indexes.url}/whl",
        "UV_DEFAULT_INDEX": f"{indexes.url}/simple",
        "PIP_INDEX_URL": f"{indexes.url}/simple",
        **variables,
    }


def create(env: dict[str, str], *extra: str) -> subprocess.CompletedProcess[str]:
    return gpuwizard(
        "env", "create", "lab", "--framework", "pytorch", "--version", "2.13", "--python", MISSING, *extra, env=env
    )  # fmt: skip


def answering_indexes(site: Site) -> None:
    site.put("/whl/cpu/torch/", "<html></html>", content_type="text/html")
    site.put("/simple/pip/", "<html></html>", content_type="text/html")


def nothing_made(home: Path) -> None:
    for name in ("envs", "environments.json", "logs", "pending"):
        assert not (home / name).exists(), name


def test_a_python_host_that_does_not_answer_is_named_and_stops_everything(tmp_path: Path, home: Path):
    port = closed_port()
    with serve(tls=True) as indexes:
        answering_indexes(indexes)
        env = without_python(tmp_path, indexes, UV_PYTHON_INSTALL_MIRROR=f"https://127.0.0.1:{port}/pbs")
        done = create(env)
        as_json = create(env, "--json")
    assert done.returncode == 2, done.stdout + done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        f"gpuwizard: error: Python {MISSING} for the new environment (none is installed here) cannot be "
        f"downloaded from https://127.0.0.1:{port}/pbs/"
    )
    assert line.endswith(f": 127.0.0.1:{port} refused the connection")
    said = " ".join(done.stdout.split())
    assert "Python from https://127.0.0.1:" in said and f"cpython-{MISSING}." in said
    assert f"Hosts {indexes.url.removeprefix('https://')}, 127.0.0.1:{port}" in said
    assert "PYTHON_DOWNLOAD_UNREACHABLE" in said and f"Install Python {MISSING} yourself" in said

    assert as_json.returncode == 2 and len(as_json.stderr.splitlines()) == 1
    (sources,) = events_of(as_json.stdout)
    assert (sources["event"], sources["ok"], sources["checked"]) == ("sources", False, True)
    python = sources["python_download"]
    assert (python["python"], python["origin"], python["reached"]) == (
        MISSING,
        "UV_PYTHON_INSTALL_MIRROR",
        False,
    )
    assert python["answer"]["failure"] == "refused"
    assert [index["reached"] for index in sources["indexes"]] == [True, True]
    assert f"127.0.0.1:{port}" in [host["host"] for host in sources["hosts"]]
    assert [finding["code"] for finding in sources["findings"]] == ["PYTHON_DOWNLOAD_UNREACHABLE"]
    nothing_made(home)


def test_uv_downloads_from_the_place_the_preview_named_and_the_check_asked(tmp_path: Path, home: Path):
    with serve(tls=True) as indexes, serve(tls=True) as file_host:
        answering_indexes(indexes)
        # Every build the mirror is asked for is sent on to its file host, as GitHub does; the
        # file there is no Python build, so uv's own check of the archive stops the install.
        file_host.put("/objects/python.tar.gz", b"not a python build", content_type="application/gzip")
        env = without_python(tmp_path, indexes, UV_PYTHON_INSTALL_MIRROR=f"{indexes.url}/pbs")
        archive = _archive(env)
        indexes.put(archive, "", status=302, headers={"Location": f"{file_host.url}/objects/python.tar.gz"})
        done = create(env, "--json")
        seen_by_file_host = list(file_host.seen)
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr
    events = events_of(done.stdout)
    sources = events[0]
    assert (sources["event"], sources["ok"]) == ("sources", True)
    assert sources["python_download"]["answer"]["redirects"] == [f"{file_host.url}/objects/python.tar.gz"]
    start = next(event for event in events if event["event"] == "start")
    assert start["python_download"]["url"] == indexes.url + archive
    assert [host["host"] for host in start["hosts"]][-1] == indexes.url.removeprefix("https://")
    # The check asked the file, then uv downloaded it from there: no other place.
    assert seen_by_file_host[:2] == ["/objects/python.tar.gz", "/objects/python.tar.gz"]
    assert events[-1]["event"] == "result" and events[-1]["status"] == "failed"
    assert not (home / "envs" / "lab").exists()


def _archive(env: dict[str, str]) -> str:
    """The path of the build uv downloads from the mirror, as uv itself names it."""
    listed = subprocess.run(
        [str(UV), "python", "list", MISSING, "--only-downloads", "--output-format", "json", "--no-config"],
        env={**os.environ, **env, "UV_OFFLINE": "1"}, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    url = next(entry["url"] for entry in json.loads(listed.stdout) if entry["implementation"] == "cpython")
    return "/pbs/" + url.split("/pbs/", 1)[1]


def test_offline_without_the_python_says_how_to_install_it(tmp_path: Path, home: Path):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    with serve(tls=True) as indexes:
        env = without_python(tmp_path, indexes)
        done = create(env, "--find-links", str(wheels), "--offline")
        assert indexes.seen == []
    assert done.returncode == 2
    (line,) = done.stderr.splitlines()
    assert line.startswith(
        f"gpuwizard: error: no 64-bit Python {MISSING} was found, and --offline downloads none: install it first ("
    )
    if sys.platform == "win32":
        assert f"py install {MISSING}" in line
    else:
        assert f"while online: {shlex.quote(str(UV))} python install {MISSING}" in line
    nothing_made(home)
