"""The environment's Python: uv downloads one only where planned, named and asked first (issue 37, point 6).

When detection found a Python of the plan's version, uv is given it and may download none. When
it found none, the build uv downloads is named (``PreparedEnv.python_download``) and its places
are asked in the same check as the package indexes, before anything is made: one that does not
answer stops the setup in one line, with how to install that Python oneself. Offline, the
refusal says how to install it on this platform. Real uv throughout; https servers on 127.0.0.1
stand in for the mirror of Python builds, GitHub and its file host, and the indexes.
"""

from __future__ import annotations

import os
import platform
import shlex
import shutil
import subprocess
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path

import pytest

from builders.requests import planned
from gpuwizard.adapters.envs.base import PackageSource
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.python_downloads import find_python_download
from gpuwizard.adapters.runner import StreamingSubprocessRunner, SubprocessRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.package_sources import IndexSettings, plan_sources
from gpuwizard.core.envs.python_download import PythonDownload, provide_python
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import ManagerFacts, SystemReport
from gpuwizard.workflow.envs.index_check import check_plan_sources, this_family
from gpuwizard.workflow.envs.prepare import EnvTools, SetupRefused, prepare_environment
from gpuwizard.workflow.envs.setup import SourcesUnreachable, plan_setup, recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from harness.http_server import closed_port, serve, trust_test_ca
from harness.waits import EVENT_S

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
#: A Python that PyTorch 2.13 supports and uv has builds of, other than the one running the tests.
MISSING = "3.13" if PYTHON != "3.13" else "3.12"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
SAMPLES = Path(str(resources.files("gpuwizard.resources").joinpath("samples")))

pytestmark = pytest.mark.skipif(UV is None, reason="uv is a project dependency; not installed here")


@pytest.fixture(autouse=True)
def _asking_on(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The check asks for real (tests/conftest.py turns it off elsewhere), through no proxy, on this machine only."""
    monkeypatch.delenv("GPUWIZARD_NO_INDEX_CHECK", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("UV_ASTRAL_MIRROR_URL", raising=False)
    # uv's managed Pythons go to (and are looked for in) a folder of the test's own.
    monkeypatch.setenv("UV_PYTHON_INSTALL_DIR", str(tmp_path / "uv-pythons"))
    closed = f"https://127.0.0.1:{closed_port()}"
    monkeypatch.setenv("UV_DEFAULT_INDEX", f"{closed}/simple")
    monkeypatch.setenv("PIP_INDEX_URL", f"{closed}/simple")
    monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", f"{closed}/pbs")


def no_gpu() -> SystemReport:
    return load_system_report(SAMPLES / "no-gpu.json")


def tools() -> EnvTools:
    # Detection found only the Python running the tests: none of MISSING.
    return EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=[own_python()], managers=ManagerFacts(uv=UV)
    )


def request(python: str = MISSING, **options: object) -> SetupRequest:
    return SetupRequest.checked(framework="pytorch", version="2.13", python=python, name="lab", **options)  # type: ignore[arg-type]


def nothing_made() -> None:
    home = Path(os.environ["GPUWIZARD_HOME"])
    for name in ("envs", "logs", "pending", "environments.json"):
        assert not (home / name).exists(), name


def serve_indexes(site_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"{site_url}/whl")
    monkeypatch.setenv("UV_DEFAULT_INDEX", f"{site_url}/simple")


def test_the_python_uv_downloads_is_named_and_asked_with_the_indexes(monkeypatch: pytest.MonkeyPatch):
    with serve(tls=True) as site, serve(tls=True) as file_host:
        site.put("/whl/cpu/torch/", "<html></html>", content_type="text/html")
        site.put("/simple/pip/", "<html></html>", content_type="text/html")
        serve_indexes(site.url, monkeypatch)
        monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", f"{site.url}/pbs")
        # The build's file as uv names it; the mirror sends it on to its file host, as GitHub does.
        assert UV is not None
        archive = find_python_download(UV, MISSING, SubprocessRunner()).url
        path = archive.removeprefix(site.url)
        site.put(path, "", status=302, headers={"Location": f"{file_host.url}/objects/python.tar.gz"})
        file_host.put("/objects/python.tar.gz", b"archive", content_type="application/gzip")
        report = no_gpu()
        wanted = request()
        setup = plan_setup(report, wanted, recommendation=recommend_for(report, wanted), tools=tools())
        assert path in site.seen and file_host.seen == ["/objects/python.tar.gz"]
    download = setup.prepared.python_download
    assert download is not None
    assert (download.python, download.url, download.origin) == (MISSING, archive, "UV_PYTHON_INSTALL_MIRROR")
    assert setup.prepared.python == MISSING  # uv gets the version: it downloads that build
    check = setup.sources_check
    assert check is not None and check.ok and check.python is not None and check.python.reached
    hosts = [(host.host, host.url) for host in check.hosts()]
    mirror = site.url.removeprefix("https://")
    assert hosts == [
        (mirror, f"{site.url}/whl/cpu"),
        (mirror, f"{site.url}/simple"),
        (mirror, archive),
        (file_host.url.removeprefix("https://"), f"{file_host.url}/objects/python.tar.gz"),
    ]
    nothing_made()


def test_a_python_host_that_does_not_answer_stops_the_setup_with_nothing_made(
    monkeypatch: pytest.MonkeyPatch,
):
    port = closed_port()
    monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", f"https://127.0.0.1:{port}/pbs")
    with serve(tls=True) as site:
        site.put("/whl/cpu/torch/", "<html></html>", content_type="text/html")
        site.put("/simple/pip/", "<html></html>", content_type="text/html")
        serve_indexes(site.url, monkeypatch)
        report = no_gpu()
        wanted = request()
        with pytest.raises(SourcesUnreachable) as refused:
            plan_setup(report, wanted, recommendation=recommend_for(report, wanted), tools=tools())
        # The indexes were asked in the same round: they answer; only the Python's host does not.
        assert sorted(site.seen) == ["/simple/pip/", "/whl/cpu/torch/"]
    check = refused.value.check
    assert check.python is not None
    url = check.python.download.url
    assert url.startswith(f"https://127.0.0.1:{port}/pbs/") and f"cpython-{MISSING}." in url
    assert str(refused.value) == (
        f"Python {MISSING} for the new environment (none is installed here) cannot be downloaded from "
        f"{url}: 127.0.0.1:{port} refused the connection"
    )
    assert "\n" not in str(refused.value)
    (finding,) = check.findings
    assert finding.code == "PYTHON_DOWNLOAD_UNREACHABLE"
    assert finding.params.get("variant") == (this_family() if this_family() != "linux" else None)
    assert f"Install Python {MISSING} yourself" in finding.hint
    nothing_made()


def test_githubs_copy_is_asked_too_and_either_place_will_do():
    port = closed_port()
    sources = plan_sources(index_url=None, variant=None, tool="uv", settings=IndexSettings())
    with serve(tls=True) as github:
        github.put("/pbs/cpython.tar.gz", b"archive", content_type="application/gzip")
        download = PythonDownload(
            MISSING, f"https://127.0.0.1:{port}/pbs/cpython.tar.gz", version=f"{MISSING}.1",
            fallback_url=f"{github.url}/pbs/cpython.tar.gz",
        )  # fmt: skip
        no_index = lambda url: None  # noqa: E731 - the indexes are not what this test asks
        check = check_plan_sources(sources, ["torch==2.13.0"], probe=no_index, python=download)
        assert github.seen == ["/pbs/cpython.tar.gz"]
    assert check.ok and check.python is not None and check.python.reached
    assert [host.host for host in check.hosts()][-2:] == [
        f"127.0.0.1:{port}",
        github.url.removeprefix("https://"),
    ]
    gone = PythonDownload(
        MISSING, f"https://127.0.0.1:{port}/pbs/cpython.tar.gz", version=f"{MISSING}.1",
        fallback_url=f"https://127.0.0.1:{port}/github/cpython.tar.gz",
    )  # fmt: skip
    failed = check_plan_sources(sources, ["torch==2.13.0"], probe=no_index, python=gone)
    assert not failed.ok
    assert failed.error_line().endswith(
        f"127.0.0.1:{port} refused the connection; nor GitHub's copy: 127.0.0.1:{port} refused the connection"
    )


def own_plan() -> Plan:
    return Plan(
        framework="pytorch", framework_version="2.13.0", python=PYTHON, cpu_only=True, cuda=None, cudnn=None,
        torch_variant="cpu", requirements=("torch==2.13.0",), index_url="https://download.pytorch.org/whl/cpu",
    )  # fmt: skip


def test_a_found_python_is_the_only_one_uv_may_use(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    prepared = prepare_environment(*planned("own", own_plan()), tools())
    assert prepared.python == own_python().executable and prepared.python_download is None
    command = prepared.backend.create_command(
        tmp_path / "env", prepared.python, PackageSource(), prepared.conda
    )
    assert "--no-python-downloads" in command.argv
    with serve(tls=True) as mirror:
        environment = {
            **os.environ, **command.env, "UV_PYTHON_INSTALL_MIRROR": f"{mirror.url}/pbs", "SSL_CERT_FILE":
            trust_test_ca()["REQUESTS_CA_BUNDLE"], "PATH": str(Path(sys.executable).parent),
        }  # fmt: skip
        made = subprocess.run(
            command.argv, check=False, env=environment, capture_output=True, text=True, timeout=EVENT_S
        )
        assert made.returncode == 0, made.stderr
        assert f"version_info = {platform.python_version()}" in (tmp_path / "env" / "pyvenv.cfg").read_text()
        # The same command asking for a Python that is not installed: uv may download none.
        argv = list(command.argv)
        argv[argv.index("--python") + 1] = MISSING
        argv[-1] = str(tmp_path / "other")
        refused = subprocess.run(
            argv, check=False, env=environment, capture_output=True, text=True, timeout=EVENT_S
        )
        assert refused.returncode != 0
        assert mirror.seen == [], "uv tried to download a Python"


def test_offline_without_the_python_says_how_to_install_it_on_this_platform(tmp_path: Path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    with pytest.raises(SetupRefused) as refused:
        prepare_environment(
            *planned("lab", replace(own_plan(), python=MISSING), find_links=folder, offline=True), tools()
        )
    said = str(refused.value)
    assert "\n" not in said
    way = provide_python(MISSING, family=this_family(), uv=UV)
    assert said == (
        f"no 64-bit Python {MISSING} was found, and --offline downloads none: install it first ({way}), "
        "then run this again"
    )
    if sys.platform == "win32":
        assert f"py install {MISSING}" in said
        return
    # The uv command runs as printed (bash): it asks the mirror for that very build.
    printed = said.split("while online: ", 1)[1].split("), then run", 1)[0]
    assert printed == f"{shlex.quote(str(UV))} python install {MISSING}"
    with serve(tls=True) as mirror:
        environment = {
            **os.environ, "UV_PYTHON_INSTALL_MIRROR": f"{mirror.url}/pbs",
            "SSL_CERT_FILE": trust_test_ca()["REQUESTS_CA_BUNDLE"],
        }  # fmt: skip
        assert UV is not None
        build = find_python_download(UV, MISSING, SubprocessRunner()).url  # under the fixture's mirror
        ran = subprocess.run(
            ["bash", "-c", printed],
            check=False,
            env=environment,
            capture_output=True,
            text=True,
            timeout=EVENT_S,
        )
        assert ran.returncode != 0  # the mirror serves no build here
        assert mirror.seen and mirror.seen[0] == "/pbs/" + build.split("/pbs/", 1)[1], ran.stderr
