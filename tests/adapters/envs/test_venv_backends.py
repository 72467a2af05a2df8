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
from gpuwizard.core.envs.package_sources import IndexSettings
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, SetupRefused, prepare_environment
from harness.http_server import Site, serve
from harness.waits import set_when

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
        # The wheel is held back until the test lets it go, after the result: the result can
        # only be the cancel's (uv gives a stalled download up on its own, as failed).
        download = threading.Event()
        site.put(f"/files/{wheel.name}", wheel.read_bytes(), hold=download)
        prepared = prepare_environment(
            *planned("slow", plan(f"{site.url}/simple"), find_links=pip_only), tools
        )
        cancel = threading.Event()
        try:
            with set_when(lambda: f"/files/{wheel.name}" in site.seen, cancel):
                result = create_environment(prepared, tools, lambda _event: None, cancel)
        finally:
            download.set()
    assert result.status == "cancelled"
    assert not prepared.prefix.exists()


# --- mirrors (issue 20): the person's mirrors are named on the command lines that run ---------

TORCH_INDEX = "https://download.pytorch.org/whl/cpu"


def mirrored_tools(settings: IndexSettings) -> EnvTools:
    return EnvTools(
        runner=StreamingSubprocessRunner(),
        interpreters=[own_python()],
        managers=ManagerFacts(uv=UV or "uv"),
        index_settings=lambda: settings,
    )


@pytest.mark.parametrize("tool", ["uv", "pip"])
def test_mirrors_are_shown_and_used_in_the_install_command(tool: str):
    settings = IndexSettings(
        pytorch_mirror="https://torch-mirror.example/whl",
        uv_default_index="https://uv-mirror.example/simple",
        pip_index_url="https://pip-mirror.example/simple",
    )
    prepared = prepare_environment(
        *planned("mirrored", plan(TORCH_INDEX), tool=tool), mirrored_tools(settings)
    )
    install = prepared.backend.install_command(prepared.prefix, prepared.requirements, prepared.source, None)
    argv = list(install.argv)
    # PyTorch's index is replaced by the mirror, its variant appended.
    assert argv[argv.index("--index-url") + 1] == "https://torch-mirror.example/whl/cpu"
    assert TORCH_INDEX not in argv
    assert prepared.sources is not None
    origins = [(index.url, index.origin) for index in prepared.sources.indexes]
    pypi_mirror = "https://uv-mirror.example/simple" if tool == "uv" else "https://pip-mirror.example/simple"
    assert origins[0] == ("https://torch-mirror.example/whl/cpu", "GPUWIZARD_PYTORCH_INDEX_URL")
    assert prepared.sources.install_line(prepared.requirements).endswith(
        "--index-url https://torch-mirror.example/whl/cpu"
    )
    if tool == "pip":
        # pip environments bring their own pip: PyTorch's index (the mirror) is the only one.
        assert len(origins) == 1 and prepared.source.default_index_url is None
        return
    # pip for a uv environment comes from the PyPI mirror, never from PyPI behind the person's back.
    assert origins[1] == (pypi_mirror, "UV_DEFAULT_INDEX")
    assert prepared.source.default_index_url == pypi_mirror
    seed = prepared.backend.install_command(
        prepared.prefix, ["pip"], PackageSource(default_index_url=pypi_mirror), None
    )
    assert seed.argv[seed.argv.index("--index-url") + 1] == pypi_mirror


@pytest.mark.parametrize("tool", ["uv", "pip"])
def test_a_plan_from_the_default_index_uses_the_pypi_mirror(tool: str):
    settings = IndexSettings(
        pip_config_index_url="https://corp.example/pypi/simple", pip_config_file="/etc/pip.conf"
    )
    prepared = prepare_environment(*planned("tf", plan(None), tool=tool), mirrored_tools(settings))
    argv = list(prepared.backend.install_command(prepared.prefix, ["tensorflow"], prepared.source, None).argv)
    assert argv[argv.index("--index-url") + 1] == "https://corp.example/pypi/simple"


def test_a_mirror_that_is_not_https_refuses_the_request(tmp_path: Path):
    settings = IndexSettings(pytorch_mirror="http://torch-mirror.example/whl")
    with pytest.raises(
        SetupRefused,
        match=r"^GPUWIZARD_PYTORCH_INDEX_URL: http://torch-mirror.example/whl is not an https:// URL",
    ):
        prepare_environment(*planned("plain", plan(TORCH_INDEX)), mirrored_tools(settings))


@pytest.mark.slow
@pytest.mark.parametrize("tool", TOOLS)
def test_the_pytorch_mirror_is_where_the_install_really_comes_from(
    tool: str, tmp_path: Path, pip_only: Path, monkeypatch: pytest.MonkeyPatch
):
    # The plan names PyTorch's index, which this machine cannot reach; the mirror serves torch.
    with serve() as site:
        publish(site, tiny_torch(tmp_path, "2.13.0"), host="/mirror/cpu")
        monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"{site.url}/mirror/{{variant}}/simple")
        result = create(tool, plan(TORCH_INDEX), find_links=pip_only)
        assert result.status == "ok", result
        assert "/mirror/cpu/simple/torch/" in site.seen
