"""The conda family (conda, mamba, micromamba): the commands built, and creation driven end to end.

The argv tests check what :class:`CondaBackend` asks each tool for. The workflow tests run the
real creation against a fake executable (``tests/fakes/fake_conda.py``) that records its argv and
replays recorded real output; it makes a real venv where conda would make the environment, so
pip inside the environment, the import probe, the variables and the registry all run for real,
offline, from a folder of small wheels named like the frameworks.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from builders.requests import planned
from builders.wheels import build_wheel, tiny_torch
from fakes.fake_conda import FLAVORS, FakeConda, install_fake_conda, process_gone
from gpuwizard.adapters.envs.base import CondaSpec, PackageSource
from gpuwizard.adapters.envs.conda import CondaBackend
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.events import EnvLog, EnvPhase, EnvProgress, EnvResult
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.events import Event
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, SetupRefused, prepare_environment
from gpuwizard.workflow.envs.registry import list_environments
from harness.waits import until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="the fake tool is a shebang script")

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
TF_PACKAGES = ("python=3.10", "cudatoolkit=11.2", "cudnn=8.1.0")


def tf_plan(**changes: Any) -> Plan:
    """The TensorFlow 2.10 GPU plan (the last native-Windows GPU release: CUDA 11.2, cuDNN 8.1 from conda-forge)."""
    values: dict[str, Any] = {
        "framework": "tensorflow",
        "framework_version": "2.10.1",
        "python": PYTHON,
        "cpu_only": False,
        "cuda": "11.2",
        "cudnn": "8.1",
        "torch_variant": None,
        "requirements": ("tensorflow==2.10.1",),
        "index_url": None,
        "conda_channels": ("conda-forge",),
        "conda_packages": (f"python={PYTHON}", "cudatoolkit=11.2", "cudnn=8.1.0"),
        "manager": "conda",
    }
    values.update(changes)
    return Plan(**values)


def torch_plan(**changes: Any) -> Plan:
    values: dict[str, Any] = {
        "framework": "pytorch",
        "framework_version": "2.13.0",
        "python": PYTHON,
        "cpu_only": True,
        "cuda": None,
        "cudnn": None,
        "torch_variant": "cpu",
        "requirements": ("torch==2.13.0",),
        "index_url": "https://download.pytorch.org/whl/cpu",
        "conda_channels": (),
        "conda_packages": (),
        "manager": "conda",
    }
    values.update(changes)
    return Plan(**values)


@pytest.fixture(scope="session")
def venv_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One venv with pip for the whole session, copied by the fakes into each new environment."""
    return tmp_path_factory.mktemp("fake-conda-venv") / "template"


@pytest.fixture(scope="session")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Pure-Python ``tensorflow`` 2.10.1 and ``torch`` 2.13.0 wheels with ``__version__``."""
    folder = tmp_path_factory.mktemp("wheels")
    build_wheel(folder, "tensorflow", "2.10.1")
    tiny_torch(folder, "2.13.0")
    return folder


def fake_tool(tmp_path: Path, flavor: str, scenario: str, template: Path) -> FakeConda:
    return install_fake_conda(tmp_path / flavor, flavor, scenario, venv_template=template)


def tools_for(fake: FakeConda) -> EnvTools:
    return EnvTools(
        runner=StreamingSubprocessRunner(),
        interpreters=[],
        managers=ManagerFacts(**{fake.flavor: fake.executable}),
    )


def make(
    request: tuple[SetupRequest, Plan], env_tools: EnvTools, cancel: threading.Event | None = None
) -> tuple[EnvResult, list[Event]]:
    events: list[Event] = []
    prepared = prepare_environment(*request, env_tools)
    result = create_environment(prepared, env_tools, events.append, cancel or threading.Event())
    return result, events


def create_calls(fake: FakeConda) -> list[list[str]]:
    return [call for call in fake.calls() if call[1:2] == ["create"]]


# -- the commands --------------------------------------------------------------------------------


@pytest.mark.parametrize("flavor", FLAVORS)
def test_create_asks_for_the_prefix_conda_forge_only_and_the_old_tensorflow_libraries(flavor: str):
    backend = CondaBackend(f"/opt/miniforge3/bin/{flavor}", flavor)
    prefix = Path("/work/envs/tf")
    argv = backend.create_command(
        prefix, "3.10", PackageSource(), CondaSpec(TF_PACKAGES, ("conda-forge",))
    ).argv
    assert argv[:2] == (f"/opt/miniforge3/bin/{flavor}", "create")
    assert "--yes" in argv
    assert argv[argv.index("-p") + 1] == str(prefix)
    assert "--override-channels" in argv
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "-c"] == ["conda-forge"]
    packages = [arg for arg in argv if "=" in arg or arg == "pip"]
    assert packages == ["python=3.10", "cudatoolkit=11.2", "cudnn=8.1.0", "pip"]
    assert argv[-1] == "pip"
    assert ("--json" in argv) is (flavor == "conda")
    assert "--offline" not in argv


@pytest.mark.parametrize("flavor", FLAVORS)
def test_offline_create_uses_only_the_package_cache(flavor: str, tmp_path: Path):
    backend = CondaBackend(flavor, flavor)
    source = PackageSource(find_links=tmp_path, offline=True)
    argv = backend.create_command(tmp_path / "env", "3.11", source, CondaSpec(())).argv
    assert "--offline" in argv
    # No plan packages: the wanted Python, pip, and the default channel.
    assert argv[-2:] == ("python=3.11", "pip")
    assert [argv[i + 1] for i, arg in enumerate(argv) if arg == "-c"] == ["conda-forge"]


@pytest.mark.parametrize("flavor", FLAVORS)
def test_create_keeps_a_python_and_pip_the_plan_already_names(flavor: str):
    backend = CondaBackend(flavor, flavor)
    spec = CondaSpec(("python=3.9", "pip", "cudnn=8.1.0"), ("conda-forge",))
    argv = backend.create_command(Path("/e"), "3.12", PackageSource(), spec).argv
    assert [arg for arg in argv if arg.startswith("python=")] == ["python=3.9"]
    assert argv.count("pip") == 1


@pytest.mark.parametrize("flavor", FLAVORS)
def test_only_conda_sets_variables_with_env_config_vars(flavor: str):
    backend = CondaBackend(f"/bin/{flavor}", flavor)
    command = backend.variables_command(Path("/e"), {"TF_FORCE_GPU_ALLOW_GROWTH": "true"})
    if flavor == "conda":
        assert command is not None
        assert command.argv == (
            "/bin/conda",
            "env",
            "config",
            "vars",
            "set",
            "-p",
            str(Path("/e")),
            "TF_FORCE_GPU_ALLOW_GROWTH=true",
        )
    else:
        assert command is None  # mamba 2 and micromamba have no `env config vars` (mamba-org/mamba#3683)


def test_an_unknown_tool_is_refused():
    with pytest.raises(ValueError, match="not a conda-family tool"):
        CondaBackend("/bin/pixi", "pixi")


@pytest.mark.parametrize(
    "channel",
    [
        "pytorch",
        "pytorch-nightly",
        "pytorch-test",
        "https://conda.anaconda.org/pytorch",
        "https://conda.anaconda.org/pytorch-nightly/",
        "https://mirrors.example.org/anaconda/cloud/pytorch/",
        "pytorch/label/nightly",
        "https://conda.anaconda.org/pytorch/label/main/",
    ],
)
def test_the_pytorch_channel_is_refused_before_anything_runs(
    channel: str, tmp_path: Path, venv_template: Path, wheels: Path
):
    fake = fake_tool(tmp_path, "conda", "ok", venv_template)
    plan = torch_plan(conda_channels=(channel, "conda-forge"), conda_packages=("pytorch=2.13.0",))
    request = planned("torch-demo", plan, tool="conda", find_links=wheels, offline=True)
    with pytest.raises(SetupRefused, match=r"PyTorch 2\.5"):
        prepare_environment(*request, tools_for(fake))
    assert fake.calls() == []
    assert not (fake.envs / "torch-demo").exists()


def test_a_channel_merely_named_like_pytorch_is_allowed(tmp_path: Path, venv_template: Path, wheels: Path):
    fake = fake_tool(tmp_path, "conda", "ok", venv_template)
    plan = torch_plan(conda_channels=("conda-forge", "pytorch-community-mirror", "conda-forge/label/pytorch"))
    prepared = prepare_environment(*planned("ok", plan, tool="conda", find_links=wheels), tools_for(fake))
    assert prepared.prefix == fake.envs / "ok"


# -- where named environments go ---------------------------------------------------------------


@pytest.mark.parametrize("flavor", FLAVORS)
def test_envs_dir_comes_from_each_flavors_info(flavor: str, tmp_path: Path, venv_template: Path):
    fake = fake_tool(tmp_path, flavor, "ok", venv_template)
    backend = CondaBackend(fake.executable, flavor)
    assert backend.envs_dir(StreamingSubprocessRunner()) == fake.envs
    assert fake.calls() == [[fake.executable, "info", "--json"]]


def test_envs_dir_is_none_when_the_tool_cannot_be_run(tmp_path: Path):
    backend = CondaBackend(str(tmp_path / "missing" / "conda"), "conda")
    assert backend.envs_dir(StreamingSubprocessRunner()) is None


# -- creation against the fake tool ---------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("flavor", FLAVORS)
def test_creates_a_tensorflow_gpu_environment(flavor: str, tmp_path: Path, venv_template: Path, wheels: Path):
    fake = fake_tool(tmp_path, flavor, "ok", venv_template)
    env_tools = tools_for(fake)
    request = planned("tf-demo", tf_plan(), tool=flavor, find_links=wheels, offline=True)
    prepared = prepare_environment(*request, env_tools)
    events: list[Event] = []
    result = create_environment(prepared, env_tools, events.append, threading.Event())

    assert result.status == "ok", result
    prefix = fake.envs / "tf-demo"
    assert result.path == str(prefix)
    assert result.framework_version == "2.10.1"
    plan = prepared.plan
    expected = prepared.backend.create_command(
        prefix, prepared.python, prepared.source, CondaSpec(plan.conda_packages, plan.conda_channels)
    )
    assert create_calls(fake) == [list(expected.argv)]
    assert {"cudatoolkit=11.2", "cudnn=8.1.0", "--offline", "pip"} <= set(expected.argv)
    # The recorded tool output reached the log line by line, and its progress became progress events.
    logged = [event.line for event in events if isinstance(event, EnvLog) and event.tool == flavor]
    assert logged
    assert any(isinstance(event, EnvProgress) and event.phase == "create" for event in events)
    # pip really installed the framework inside the environment.
    done = subprocess.run(
        [result.python, "-c", "import tensorflow; print(tensorflow.__version__)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    )
    assert done.stdout.strip() == "2.10.1"

    state = prefix / "conda-meta" / "state"
    activate = prefix / "etc" / "conda" / "activate.d" / "gpuwizard-variables.sh"
    deactivate = prefix / "etc" / "conda" / "deactivate.d" / "gpuwizard-variables.sh"
    config_calls = [call for call in fake.calls() if call[1:2] == ["env"]]
    if flavor == "conda":
        env_vars = json.loads(state.read_text(encoding="utf-8"))["env_vars"]
        assert env_vars["TF_FORCE_GPU_ALLOW_GROWTH"] == "true"
        assert env_vars["TF_CPP_MIN_LOG_LEVEL"] == "1"
        assert env_vars["UV_CONSTRAINT"] == result.constraints
        assert len(config_calls) == 1
        assert config_calls[0][1:7] == ["env", "config", "vars", "set", "-p", str(prefix)]
        assert not activate.exists()
    else:
        assert config_calls == []
        assert not state.exists()
        assert "export TF_FORCE_GPU_ALLOW_GROWTH='true'" in activate.read_text(encoding="utf-8")
        assert "unset TF_FORCE_GPU_ALLOW_GROWTH" in deactivate.read_text(encoding="utf-8")
        assert (activate.parent / "gpuwizard-variables.bat").is_file()

    listed = list_environments()
    assert [(entry["name"], entry["manager"], entry["tool"]) for entry in listed] == [
        ("tf-demo", "conda", flavor)
    ]
    assert listed[0]["framework_version"] == "2.10.1"


@pytest.mark.slow
def test_creates_a_pytorch_environment_at_a_chosen_prefix(tmp_path: Path, venv_template: Path, wheels: Path):
    fake = fake_tool(tmp_path, "micromamba", "ok", venv_template)
    prefix = tmp_path / "elsewhere" / "torch-env"
    request = planned(
        "torch-demo", torch_plan(), tool="micromamba", prefix=prefix, find_links=wheels, offline=True
    )
    result, _ = make(request, tools_for(fake))
    assert result.status == "ok", result
    assert result.path == str(prefix)
    assert result.framework_version == "2.13.0"
    # An explicit prefix: the tool is not asked where its environments go.
    assert [call[1] for call in fake.calls()] == ["create"]
    (call,) = create_calls(fake)
    assert call[call.index("-p") + 1] == str(prefix)
    assert f"python={PYTHON}" in call
    assert not any(arg.startswith("pytorch") for arg in call)  # PyTorch comes from pip, not a channel
    assert (prefix / "conda-meta" / "history").is_file()


def test_the_fake_mamba_fails_env_config_vars_like_the_real_one(tmp_path: Path, venv_template: Path):
    # The premise of the activate.d scripts: mamba 2 has no `env config vars` (mamba-org/mamba#3683).
    fake = fake_tool(tmp_path, "mamba", "ok", venv_template)
    done = subprocess.run(
        [fake.executable, "env", "config", "vars", "set", "-p", str(tmp_path), "A=1"],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0
    assert "The following arguments were not expected" in done.stderr


# Text only the recorded output of each failure contains: the log shows it really came back.
FAILURE_MARKERS = {
    ("conda", "packages-not-found"): '"exception_name": "PackagesNotFoundError"',
    ("conda", "http-error"): "CondaHTTPError: HTTP 000 CONNECTION FAILED",
    ("mamba", "packages-not-found"): "critical libmamba Could not solve for environment specs",
    ("mamba", "http-error"): "Could not resolve host: conda.anaconda.org",
    ("micromamba", "packages-not-found"): "critical libmamba Could not solve for environment specs",
    ("micromamba", "http-error"): "Could not resolve host: conda.anaconda.org",
}


@pytest.mark.parametrize("scenario", ["packages-not-found", "http-error", "partial"])
@pytest.mark.parametrize("flavor", FLAVORS)
def test_a_failed_create_leaves_nothing_behind(
    flavor: str, scenario: str, tmp_path: Path, venv_template: Path, wheels: Path
):
    fake = fake_tool(tmp_path, flavor, scenario, venv_template)
    request = planned("tf-demo", tf_plan(), tool=flavor, find_links=wheels, offline=True)
    result, events = make(request, tools_for(fake))

    assert result.status == "failed"
    assert "exited with status 1" in result.error
    prefix = fake.envs / "tf-demo"
    assert result.path == str(prefix)
    assert not prefix.exists()
    if scenario == "partial":
        assert fake.made() == [prefix]  # the fake had made part of it: the rollback removed it
    else:
        assert fake.made() == []
        logged = "\n".join(event.line for event in events if isinstance(event, EnvLog))
        assert FAILURE_MARKERS[flavor, scenario] in logged
    assert [event.phase for event in events if isinstance(event, EnvPhase)][-1] == "rollback"
    assert len(create_calls(fake)) == 1
    assert not any(call[1:2] == ["env"] for call in fake.calls())
    assert list_environments() == []


@pytest.mark.slow
@pytest.mark.parametrize("flavor", ["conda", "micromamba"])
def test_cancel_stops_the_tool_and_its_children_and_removes_the_prefix(
    flavor: str, tmp_path: Path, venv_template: Path, wheels: Path
):
    fake = fake_tool(tmp_path, flavor, "slow", venv_template)
    request = planned("tf-demo", tf_plan(), tool=flavor, find_links=wheels, offline=True)
    cancel = threading.Event()
    seen: list[list[int]] = []

    def both_started() -> list[int] | None:
        pids = fake.slow_pids()  # each writes its pid first
        return pids if len(pids) == 2 else None

    def cancel_once_running() -> None:
        seen.append(until(both_started, "the fake tool and its child started"))
        cancel.set()

    canceller = threading.Thread(target=cancel_once_running)
    canceller.start()
    try:
        result, _ = make(request, tools_for(fake), cancel)
    finally:
        cancel.set()
        canceller.join()

    assert seen, "the fake never started its child"
    assert result.status == "cancelled", result
    assert not (fake.envs / "tf-demo").exists()
    assert fake.made() == [fake.envs / "tf-demo"]
    assert list_environments() == []
    until(lambda: all(process_gone(pid) for pid in seen[0]), "the tool and its child ended")
    # Ended by the cancel, not waited for: neither slept its 60 s to the end.
    assert fake.slow_finished() == []
