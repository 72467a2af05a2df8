"""uv and pip backends: which sources they use, for real, against servers on 127.0.0.1.

A local PEP 503 index stands in for the PyTorch index; a second local server acts as the
HTTP proxy. Offline, neither may see a single request, whatever PIP_*/UV_* variables say.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from builders.requests import planned
from builders.wheels import bundled_pip_wheel, tiny_torch
from gpuwizard.adapters.envs.base import CondaSpec, PackageSource
from gpuwizard.adapters.envs.venv_backends import PipBackend, UvBackend
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, prepare_environment
from harness.http_server import Site, serve

UV = shutil.which("uv", path=str(Path(sys.executable).parent))
TOOLS = ["pip", *(["uv"] if UV else [])]


def plan(index_url: str | None, version: str = "2.13.0") -> Plan:
    return Plan(
        framework="pytorch",
        framework_version=version,
        python=f"{sys.version_info.major}.{sys.version_info.minor}",
        cpu_only=True,
        cuda=None,
        cudnn=None,
        torch_variant="cpu",
        requirements=(f"torch=={version}",),
        index_url=index_url,
    )


def publish(site: Site, wheel: Path, host: str = "") -> None:
    """Serve ``wheel`` as the only file of ``torch`` in a PEP 503 simple index."""
    prefix = host.rstrip("/")
    page = f'<html><body><a href="../../files/{wheel.name}">{wheel.name}</a></body></html>'
    site.put(f"{prefix}/simple/torch/", page, content_type="text/html")
    site.put(f"{prefix}/files/{wheel.name}", wheel.read_bytes())


def create(tool: str, request_plan: Plan, **request: Any) -> dict[str, Any]:
    tools = EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=[own_python()], managers=ManagerFacts(uv=UV)
    )
    prepared = prepare_environment(*planned("idx", request_plan, tool=tool, **request), tools)
    return create_environment(prepared, tools, lambda _event: None, threading.Event())


@pytest.fixture
def pip_only(tmp_path: Path) -> Path:
    """A folder holding only pip, so uv's environment gets pip without asking any index."""
    folder = tmp_path / "pip-only"
    folder.mkdir()
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def test_offline_arguments_name_only_the_folder(tmp_path: Path):
    source = PackageSource(
        index_url="https://download.pytorch.org/whl/cu126", find_links=tmp_path, offline=True
    )
    uv = UvBackend("uv").install_command(tmp_path / "env", ["torch==2.9.1"], source, None)
    assert "--index-url" not in uv.argv
    assert {"--offline", "--no-index", "--find-links", str(tmp_path)} <= set(uv.argv)
    pip = PipBackend().install_command(tmp_path / "env", ["torch==2.9.1"], source, tmp_path / "c.txt")
    assert "--index-url" not in pip.argv
    assert {"--no-index", "--find-links", "--constraint"} <= set(pip.argv)
    assert pip.env["PIP_CONFIG_FILE"] == os.devnull
    assert pip.env["PIP_FIND_LINKS"] == str(tmp_path)
    online = PipBackend().install_command(tmp_path / "env", ["torch"], PackageSource("https://x/cu126"), None)
    assert online.argv[online.argv.index("--index-url") + 1] == "https://x/cu126"


def test_venv_backends_refuse_conda_packages(tmp_path: Path):
    with pytest.raises(ValueError, match="cudnn"):
        PipBackend().create_command(tmp_path, sys.executable, PackageSource(), CondaSpec(("cudnn=8.1.0",)))
    with pytest.raises(ValueError, match="cudnn"):
        UvBackend("uv").create_command(tmp_path, sys.executable, PackageSource(), CondaSpec(("cudnn=8.1.0",)))


@pytest.mark.slow
@pytest.mark.parametrize("tool", TOOLS)
def test_offline_never_asks_an_index_whatever_the_variables_say(
    tool: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0")
    shutil.copy(bundled_pip_wheel(), folder)
    with serve() as site:
        publish(site, tiny_torch(tmp_path, "2.13.0"))
        for name in (
            "PIP_INDEX_URL",
            "PIP_EXTRA_INDEX_URL",
            "UV_INDEX_URL",
            "UV_EXTRA_INDEX_URL",
            "UV_DEFAULT_INDEX",
        ):
            monkeypatch.setenv(name, f"{site.url}/simple")
        monkeypatch.setenv("UV_FIND_LINKS", f"{site.url}/files/")
        result = create(tool, plan(f"{site.url}/simple"), find_links=folder, offline=True)
        assert result.status == "ok", result
        assert site.seen == []


@pytest.mark.slow
@pytest.mark.parametrize("tool", TOOLS)
def test_online_the_plans_index_is_used(tool: str, tmp_path: Path, pip_only: Path):
    with serve() as site:
        publish(site, tiny_torch(tmp_path, "2.13.0"))
        result = create(tool, plan(f"{site.url}/simple"), find_links=pip_only)
        assert result.status == "ok", result
        assert "/simple/torch/" in site.seen
        assert any(path.startswith("/files/torch-2.13.0") for path in site.seen)


@pytest.mark.slow
@pytest.mark.parametrize("tool", TOOLS)
def test_the_proxy_from_the_environment_is_used(
    tool: str, tmp_path: Path, pip_only: Path, monkeypatch: pytest.MonkeyPatch
):
    # The index's host does not exist; only a proxy that answers for it makes the install work.
    index_host = "http://packages.example.invalid"
    with serve() as proxy:
        publish(proxy, tiny_torch(tmp_path, "2.13.0"), host=index_host)
        monkeypatch.setenv("HTTP_PROXY", proxy.url)
        monkeypatch.setenv("http_proxy", proxy.url)
        # pip ignores plain-HTTP hosts other than localhost unless they are trusted.
        monkeypatch.setenv("PIP_TRUSTED_HOST", "packages.example.invalid")
        monkeypatch.delenv("NO_PROXY", raising=False)
        monkeypatch.delenv("no_proxy", raising=False)
        result = create(tool, plan(f"{index_host}/simple"), find_links=pip_only)
        assert result.status == "ok", result
        assert f"{index_host}/simple/torch/" in proxy.seen


@pytest.mark.slow
def test_a_slow_download_is_cancelled_promptly(tmp_path: Path, pip_only: Path):
    if UV is None:
        pytest.skip("uv not installed")
    tools = EnvTools(
        runner=StreamingSubprocessRunner(), interpreters=[own_python()], managers=ManagerFacts(uv=UV)
    )
    with serve() as site:
        wheel = tiny_torch(tmp_path, "2.13.0")
        publish(site, wheel)
        site.put(f"/files/{wheel.name}", wheel.read_bytes(), delay_s=30)
        prepared = prepare_environment(
            *planned("slow", plan(f"{site.url}/simple"), find_links=pip_only), tools
        )
        cancel = threading.Event()

        def watch(event: dict[str, Any]) -> None:
            if event["event"] == "phase" and event["phase"] == "install":
                threading.Timer(1.0, cancel.set).start()

        result = create_environment(prepared, tools, watch, cancel)
    assert result.status == "cancelled"
    assert result.seconds < 20
    assert not prepared.prefix.exists()
