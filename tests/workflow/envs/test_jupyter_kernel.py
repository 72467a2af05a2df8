"""The Jupyter kernel step with the real ipykernel, downloaded once into a wheel folder."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from builders.requests import cpu_torch_plan, planned
from builders.wheels import bundled_pip_wheel, tiny_torch
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, prepare_environment
from gpuwizard.workflow.envs.registry import list_environments, remove_environment


@pytest.fixture(scope="module")
def ipykernel_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("ipykernel-wheels")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--only-binary=:all:", "--dest", str(folder), "ipykernel"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    if done.returncode != 0:
        if os.environ.get("CI") == "true":
            pytest.fail(f"ipykernel could not be downloaded from the registry: {done.stderr[-500:]}")
        pytest.skip("ipykernel cannot be downloaded here (no registry)")
    tiny_torch(folder, "2.13.0")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


@pytest.mark.slow
def test_kernel_is_registered_with_the_environments_python_and_removed_with_it(
    ipykernel_wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    jupyter_data = tmp_path / "jupyter"
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(jupyter_data))
    plan = cpu_torch_plan(index_url=None)
    tools = EnvTools(
        runner=StreamingSubprocessRunner(),
        interpreters=[own_python()],
        managers=ManagerFacts(uv=shutil.which("uv", path=str(Path(sys.executable).parent))),
    )
    request = planned("Lab GPU", plan, find_links=ipykernel_wheels, offline=True, jupyter=True)
    prepared = prepare_environment(*request, tools)
    assert "ipykernel" in prepared.requirements
    result = create_environment(prepared, tools, lambda _event: None, threading.Event())
    assert result.status == "ok", result
    kernel_dir = Path(result.jupyter_kernel)
    assert kernel_dir.parent == jupyter_data / "kernels"
    spec = json.loads((kernel_dir / "kernel.json").read_text())
    assert spec["argv"][0] == result.python
    assert spec["display_name"] == "Python (Lab GPU)"
    assert list_environments()[0]["jupyter_kernel"] == str(kernel_dir)
    remove_environment("Lab GPU")
    assert not kernel_dir.exists()
    assert not Path(result.path).exists()


@pytest.mark.slow
def test_kernels_of_people_and_of_other_environments_are_never_overwritten_or_removed(
    ipykernel_wheels: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Issue 33: ``env create MyProj --jupyter`` rewrote a person's own ``kernels/myproj``, and
    ``demo`` and ``Demo`` shared one kernel, so removing one deleted the other's."""
    jupyter_data = tmp_path / "jupyter"
    theirs = jupyter_data / "kernels" / "myproj"
    theirs.mkdir(parents=True)
    (theirs / "kernel.json").write_text('{"argv": ["/opt/their/python"], "display_name": "Mine"}')
    before = (theirs / "kernel.json").read_bytes()
    # Jupyter reads kernel names in lower case: a person's "Lab" is the name "lab" too.
    capital = jupyter_data / "kernels" / "Lab"
    capital.mkdir()
    (capital / "kernel.json").write_text('{"argv": ["/opt/lab/python"], "display_name": "Lab"}')
    monkeypatch.setenv("JUPYTER_DATA_DIR", str(jupyter_data))
    tools = EnvTools(
        runner=StreamingSubprocessRunner(),
        interpreters=[own_python()],
        managers=ManagerFacts(uv=shutil.which("uv", path=str(Path(sys.executable).parent))),
    )
    plan = Plan(
        framework="pytorch", framework_version="2.13.0",
        python=f"{sys.version_info.major}.{sys.version_info.minor}", cpu_only=True, cuda=None, cudnn=None,
        torch_variant="cpu", requirements=("torch==2.13.0",), index_url=None,
    )  # fmt: skip

    def make(name: str, *, replace: bool = False) -> Path:
        request = planned(
            name, plan, find_links=ipykernel_wheels, offline=True, jupyter=True, replace=replace
        )
        result = create_environment(
            prepare_environment(*request, tools), tools, lambda _e: None, threading.Event()
        )
        assert result.status == "ok", result
        return Path(result.jupyter_kernel)

    upper, lower = make("MyProj"), make("myproj")
    assert {upper.name, lower.name, theirs.name} == {"myproj", "myproj-2", "myproj-3"}
    assert make("lab").name == "lab-2"
    assert (theirs / "kernel.json").read_bytes() == before
    assert make("myproj", replace=True) == lower  # a replacement keeps its kernel's name
    remove_environment("MyProj")
    assert not upper.exists()
    assert (lower / "kernel.json").is_file()
    assert (theirs / "kernel.json").read_bytes() == before
    remove_environment("myproj")
    assert not lower.exists()
    remove_environment("lab")
    assert sorted(path.name for path in (jupyter_data / "kernels").iterdir()) == ["Lab", "myproj"]
