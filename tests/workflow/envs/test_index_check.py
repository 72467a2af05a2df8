"""The check before an install (issue 20, point 1): every index asked, for real, on 127.0.0.1.

PyTorch's index is pointed at a mirror on a closed port of 127.0.0.1 (``GPUWIZARD_PYTORCH_INDEX_URL``)
or at a server of the test run; PyPI at another (``UV_DEFAULT_INDEX``). Nothing here reaches
beyond this machine.
"""

from __future__ import annotations

import os
import shutil
import sys
from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.envs.package_sources import IndexSettings, plan_sources
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import ManagerFacts, SystemReport
from gpuwizard.workflow.envs.index_check import check_plan_sources, pypi_alternative
from gpuwizard.workflow.envs.prepare import EnvTools
from gpuwizard.workflow.envs.setup import SourcesUnreachable, plan_setup, recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from harness.http_server import closed_port, serve, trust_test_ca

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
SAMPLES = Path(str(resources.files("gpuwizard.resources").joinpath("samples")))


@pytest.fixture(autouse=True)
def _asking_on(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check asks for real here (tests/conftest.py turns it off elsewhere), through no proxy."""
    monkeypatch.delenv("GPUWIZARD_NO_INDEX_CHECK", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)
    # PyPI too is a server of this machine (a closed port unless a test serves it): nothing
    # reaches the network, not even when PyPI's build is looked for as a way forward.
    closed = f"https://127.0.0.1:{closed_port()}/simple"
    monkeypatch.setenv("UV_DEFAULT_INDEX", closed)
    monkeypatch.setenv("PIP_INDEX_URL", closed)


def no_gpu() -> SystemReport:
    return load_system_report(SAMPLES / "no-gpu.json")


def tools() -> EnvTools:
    return EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=[own_python()], managers=ManagerFacts(uv=UV)
    )


def request(name: str = "lab", **options: object) -> SetupRequest:
    return SetupRequest.checked(framework="pytorch", version="2.13", python=PYTHON, name=name, **options)  # type: ignore[arg-type]


def test_an_index_on_a_closed_port_refuses_before_anything_is_made(monkeypatch: pytest.MonkeyPatch):
    port = closed_port()
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{port}/whl")
    report = no_gpu()
    wanted = request()
    with pytest.raises(SourcesUnreachable) as refused:
        plan_setup(report, wanted, recommendation=recommend_for(report, wanted), tools=tools())
    assert str(refused.value) == (
        f"your mirror of PyTorch's index https://127.0.0.1:{port}/whl/cpu cannot be reached: "
        f"127.0.0.1:{port} refused the connection"
    )
    check = refused.value.check
    codes = [(finding.code, finding.params.get("variant")) for finding in check.findings]
    assert codes[0] == ("PACKAGE_INDEX_UNREACHABLE", "refused")
    home = Path(os.environ["GPUWIZARD_HOME"])
    assert not (home / "envs").exists() and not (home / "logs").exists()
    assert not (home / "environments.json").exists()


def test_pypis_build_is_offered_when_pypi_answers(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{closed_port()}/whl")
    with serve(tls=True) as pypi:
        pypi.put("/simple/torch/", "<html></html>", content_type="text/html")
        pypi.put("/simple/pip/", "<html></html>", content_type="text/html")
        monkeypatch.setenv("UV_DEFAULT_INDEX", f"{pypi.url}/simple")
        report = no_gpu()
        wanted = request("newcomer")
        with pytest.raises(SourcesUnreachable) as refused:
            plan_setup(report, wanted, recommendation=recommend_for(report, wanted), tools=tools())
        assert "/simple/torch/" in pypi.seen
    route = next(
        finding for finding in refused.value.check.findings if finding.code == "PYPI_BUILD_AVAILABLE"
    )
    # On Linux without a GPU PyPI's torch is a CUDA build that runs on the CPU, several GB larger.
    assert route.params["variant"] == "cpu"
    assert "several GB more" in route.message
    assert "gpuwizard env create newcomer --framework pytorch --version 2.13.0 --from-pypi" in route.hint
    statuses = {status.index.origin: status.reached for status in refused.value.check.statuses}
    assert statuses == {"GPUWIZARD_PYTORCH_INDEX_URL": False, "UV_DEFAULT_INDEX": True}


def test_reachable_indexes_let_the_setup_go_on(monkeypatch: pytest.MonkeyPatch):
    with serve(tls=True) as site:
        site.put("/whl/cpu/torch/", "<html></html>", content_type="text/html")
        site.put("/simple/pip/", "<html></html>", content_type="text/html")
        monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"{site.url}/whl")
        monkeypatch.setenv("UV_DEFAULT_INDEX", f"{site.url}/simple")
        report = no_gpu()
        wanted = request()
        setup = plan_setup(report, wanted, recommendation=recommend_for(report, wanted), tools=tools())
        assert sorted(site.seen) == ["/simple/pip/", "/whl/cpu/torch/"]
    assert setup.sources_check is not None and setup.sources_check.ok
    assert setup.sources_check.findings == ()


def test_a_wheel_folder_without_offline_is_said_to_need_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{closed_port()}/whl")
    report = no_gpu()
    wanted = request(find_links=tmp_path)
    with pytest.raises(SourcesUnreachable) as refused:
        plan_setup(report, wanted, recommendation=recommend_for(report, wanted), tools=tools())
    assert f"the folder {tmp_path} is used beside the index: add --offline" in str(refused.value)
    assert "WHEEL_FOLDER_NEEDS_OFFLINE" in [finding.code for finding in refused.value.check.findings]


def test_offline_nothing_is_asked(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    asked: list[str] = []
    sources = plan_sources(
        index_url="https://download.pytorch.org/whl/cpu",
        variant="cpu",
        tool="uv",
        settings=IndexSettings(),
        find_links=str(tmp_path),
        offline=True,
    )
    check = check_plan_sources(sources, ["torch==2.13.0"], probe=asked.append)  # type: ignore[arg-type]
    assert (check.ok, check.checked, asked) == (True, False, [])


def test_the_pypi_route_is_not_offered_where_pypis_build_is_wrong():
    report = load_system_report(SAMPLES / "windows-rtx2080super-two-cuda.json")
    rec = recommend_for(report, SetupRequest.checked(framework="pytorch", version="2.13"))
    assert rec.plan.index_url is not None
    assert pypi_alternative(rec, report, name="x", tool="uv", settings=IndexSettings()) is None


def test_a_host_that_ran_out_of_time_is_not_asked_again_for_pypis_build(monkeypatch: pytest.MonkeyPatch):
    """Issue 33, outside check: a trickling mirror of both indexes doubled the check's deadline."""
    from gpuwizard.core.envs.index_reach import IndexAnswer

    port = closed_port()
    monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"https://127.0.0.1:{port}/whl")
    monkeypatch.setenv("UV_DEFAULT_INDEX", f"https://127.0.0.1:{port}/simple")
    asked: list[str] = []

    def slow(url: str) -> IndexAnswer:
        asked.append(url)
        return IndexAnswer(url, ok=False, failure="timeout", detail="no answer in time")

    report = no_gpu()
    wanted = request("patient")
    with pytest.raises(SourcesUnreachable):
        plan_setup(
            report,
            wanted,
            recommendation=recommend_for(report, wanted),
            tools=EnvTools(
                runner=StreamingSubprocessRunner(), interpreters=[own_python()], managers=ManagerFacts(uv=UV),
                index_probe=slow,
            ),
        )  # fmt: skip
    assert asked, "nothing was asked"
    assert not any(url.endswith("/simple/torch/") for url in asked), asked
