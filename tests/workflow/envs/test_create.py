"""Creating environments for real (uv and pip, offline from a folder of wheels built here).

The wheels are small pure-Python stand-ins named like the frameworks (a ``torch`` 2.13.0 with
``__version__``); everything else is real: the interpreter, uv, pip, the venv, the probe,
the activation scripts, the files left behind or removed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from builders.requests import planned
from builders.wheels import build_wheel, bundled_pip_wheel, tiny_torch
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.compat.plan import Plan, ResolvedLibrary
from gpuwizard.core.envs.events import EnvLog, EnvPhase, EnvStart
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.events import Event, to_json
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, SetupRefused, prepare_environment
from gpuwizard.workflow.envs.registry import EnvRemoveError, list_environments, remove_environment
from harness.proc import end, gone, hang_after_saying_who, said
from harness.waits import EVENT_S, set_when, until

PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
CONTRACT_FIELDS = {"name", "path", "python", "manager", "framework", "framework_version"}


def torch_plan(version: str = "2.13.0", **changes: Any) -> Plan:
    values: dict[str, Any] = {
        "framework": "pytorch",
        "framework_version": version,
        "python": PYTHON,
        "cpu_only": True,
        "cuda": None,
        "cudnn": None,
        "torch_variant": "cpu",
        "requirements": (f"torch=={version}",),
        "index_url": "https://download.pytorch.org/whl/cpu",
    }
    values.update(changes)
    return Plan(**values)


def tools(**changes: Any) -> EnvTools:
    values: dict[str, Any] = {
        "runner": StreamingSubprocessRunner(),
        "interpreters": [own_python()],
        "managers": ManagerFacts(uv=UV),
    }
    values.update(changes)
    return EnvTools(**values)


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def make(
    request: tuple[SetupRequest, Plan],
    env_tools: EnvTools | None = None,
    cancel: threading.Event | None = None,
):
    env_tools = env_tools or tools()
    events: list[Event] = []
    prepared = prepare_environment(*request, env_tools)
    result = create_environment(prepared, env_tools, events.append, cancel or threading.Event())
    return result, events


def env_python_says(python: str, code: str) -> str:
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    return done.stdout.strip()


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["uv", "pip"])
def test_creates_offline_from_the_folder_with_either_tool(tool: str, wheels: Path, tmp_path: Path):
    if tool == "uv" and UV is None:
        pytest.skip("uv is a project dependency; not installed here")
    request = planned("demo", torch_plan(), tool=tool, find_links=wheels, offline=True)
    result, events = make(request)
    assert result.status == "ok", result
    assert events[-1] == result
    assert isinstance(events[0], EnvStart) and events[0].log == result.log
    assert env_python_says(result.python, "import torch; print(torch.__version__)") == "2.13.0"
    phases = [event.phase for event in events if isinstance(event, EnvPhase)]
    assert phases[:1] == ["create"]
    assert {"install", "verify", "constraints", "register"} <= set(phases)
    assert any(isinstance(event, EnvLog) for event in events)
    # The log file holds every event, one JSON line each, as --json writes them.
    lines = [line for line in Path(result.log).read_text().splitlines() if line.startswith("{")]
    assert [json.loads(line) for line in lines] == [to_json(event) for event in events]
    listed = list_environments()
    assert [entry["name"] for entry in listed] == ["demo"]
    assert listed[0].keys() >= CONTRACT_FIELDS
    assert listed[0]["framework_version"] == "2.13.0"
    assert listed[0]["tool"] == tool
    assert Path(listed[0]["path"]).is_dir()
    log = Path(result.log).read_text()
    assert "--find-links" in log and str(wheels) in log


@pytest.mark.slow
def test_the_constraints_file_stops_pip_from_swapping_the_framework(wheels: Path, tmp_path: Path):
    result, _ = make(planned("pinned", torch_plan(), find_links=wheels, offline=True))
    assert result.status == "ok"
    assert "torch==2.13.0" in Path(result.constraints).read_text()
    other = tmp_path / "other"
    other.mkdir()
    tiny_torch(other, "2.0.0")
    build_wheel(other, "needs_old_torch", "1.0", requires=["torch<2.1"])
    for wanted in ("torch==2.0.0", "needs_old_torch"):
        done = subprocess.run(
            [result.python, "-m", "pip", "install", "--no-index", "--find-links", str(other), wanted],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode != 0, done.stdout
    assert env_python_says(result.python, "import torch; print(torch.__version__)") == "2.13.0"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("bash") is None, reason="needs bash")
def test_tensorflow_gpu_variables_are_set_on_activation_and_unset_on_deactivate(tmp_path: Path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    build_wheel(folder, "tensorflow", "2.16.1")
    plan = torch_plan(
        framework="tensorflow",
        framework_version="2.16.1",
        cpu_only=False,
        torch_variant=None,
        requirements=("tensorflow==2.16.1",),
        index_url=None,
    )
    result, _ = make(planned("tf", plan, find_links=folder, offline=True, gpus="0"))
    assert result.status == "ok", result
    activate = Path(result.path) / "bin" / "activate"
    script = (
        f"source '{activate}'; echo \"$TF_FORCE_GPU_ALLOW_GROWTH $TF_CPP_MIN_LOG_LEVEL $CUDA_VISIBLE_DEVICES\"; "
        'deactivate; echo "after:$TF_FORCE_GPU_ALLOW_GROWTH$CUDA_VISIBLE_DEVICES"'
    )
    done = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=EVENT_S, check=True)
    assert done.stdout.split("\n")[:2] == ["true 1 0", "after:"]


@pytest.mark.slow
def test_a_missing_package_fails_and_leaves_nothing(wheels: Path):
    result, events = make(
        planned("broken", torch_plan("2.14.0"), tool="pip", find_links=wheels, offline=True)
    )
    assert result.status == "failed"
    assert "install" in result.error
    assert result.log_tail
    assert not Path(result.path).exists()
    assert list_environments() == []
    assert any(isinstance(event, EnvPhase) and event.phase == "rollback" for event in events)


@pytest.mark.slow
def test_a_framework_that_does_not_import_fails_and_leaves_nothing(tmp_path: Path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0", init="raise ImportError('libcudart.so.12: cannot open shared object file')")
    result, _ = make(planned("noimport", torch_plan(), find_links=folder, offline=True))
    assert result.status == "failed"
    assert "libcudart.so.12" in result.error
    assert not Path(result.path).exists()
    assert list_environments() == []


# torch's own words on import without NumPy (recorded: resources/samples/runs/env-create-torch-cpu.jsonl).
NUMPY_WARNING = (
    "Failed to initialize NumPy: No module named 'numpy' "
    "(Triggered internally at /__w/pytorch/pytorch/torch/csrc/utils/tensor_numpy.cpp:84.)"
)


@pytest.mark.slow
def test_the_import_check_logs_sentences_not_raw_json_or_numpy_noise(tmp_path: Path):
    # Issue 20: the install log showed the check's raw `{"probe": ...}` line and torch's NumPy
    # warning (two lines, reading like an error) on a working environment.
    if UV is None:
        pytest.skip("uv is a project dependency; not installed here")
    folder = tmp_path / "wheels"
    folder.mkdir()
    tiny_torch(folder, "2.13.0", init=f"import warnings\nwarnings.warn({NUMPY_WARNING!r}, UserWarning)")
    shutil.copy(bundled_pip_wheel(), folder)
    result, events = make(planned("quiet", torch_plan(), find_links=folder, offline=True))
    assert result.status == "ok", result
    checks = [
        event
        for event in events
        if isinstance(event, EnvLog) and event.phase == "verify" and "in miniature" not in event.line
    ]  # the check's lines; its miniature live test after it says one more (test_create_warm_start.py)
    shown = [event.line for event in checks]
    assert not any(line.lstrip().startswith("{") for line in shown)
    assert not any("UserWarning" in line for line in shown)
    assert shown == [
        "note: torch says NumPy is missing: harmless here; NumPy is only needed to exchange arrays with "
        "NumPy (torch does not require it; `pip install numpy` adds it)",
        "torch 2.13.0 imports in the new environment (a CPU build).",
    ]
    note, answer = checks
    assert note.tool == answer.tool == "gpuwizard"
    assert len(note.details) == 2 and note.details[0].endswith(f"UserWarning: {NUMPY_WARNING}")
    assert answer.report is not None
    assert answer.report["probe"] == "framework_import" and answer.report["ok"] is True
    log = Path(result.log).read_text()
    assert NUMPY_WARNING in log  # the raw lines stay in the log file, as details


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["uv", "pip"])
def test_cancel_part_way_removes_everything(tool: str, tmp_path: Path):
    if tool == "uv" and UV is None:
        pytest.skip("uv not installed")
    folder = tmp_path / "wheels"
    folder.mkdir()
    importing = tmp_path / "import-pid"
    # `import torch` in the verify step hangs for an hour: cancelled once it hangs, the result
    # comes only if the cancel ended it (the probe is gone), never by waiting for it.
    tiny_torch(folder, "2.13.0", init=hang_after_saying_who(importing))
    cancel = threading.Event()
    env_tools = tools()
    request = planned("cancelme", torch_plan(), tool=tool, find_links=folder, offline=True)
    prepared = prepare_environment(*request, env_tools)
    try:
        with set_when(lambda: said(importing), cancel):
            result = create_environment(prepared, env_tools, lambda _event: None, cancel)
        assert result.status == "cancelled"
        probe = said(importing)
        assert probe is not None, "the import never began"
        until(lambda: gone(probe), "the hanging import probe ended")
    finally:
        end(said(importing))
    assert not prepared.prefix.exists()
    assert list_environments() == []


@pytest.mark.slow
def test_a_failed_replacement_puts_the_old_environment_back(wheels: Path):
    first, _ = make(planned("keep", torch_plan(), find_links=wheels, offline=True))
    assert first.status == "ok"
    marker = Path(first.path) / "marker.txt"
    marker.write_text("the old one")
    with pytest.raises(SetupRefused, match="already exists"):
        prepare_environment(*planned("keep", torch_plan(), find_links=wheels, offline=True), tools())
    again, _ = make(planned("keep", torch_plan("2.14.0"), find_links=wheels, offline=True, replace=True))
    assert again.status == "failed"
    assert marker.read_text() == "the old one"
    assert [entry["framework_version"] for entry in list_environments()] == ["2.13.0"]
    assert not list(Path(first.path).parent.glob(".gpuwizard-*"))


def test_refusals_change_nothing(wheels: Path, tmp_path: Path):
    plan = torch_plan()
    refused = {
        "con": planned("con", plan, find_links=wheels, offline=True),
        "../x": planned("../x", plan, find_links=wheels, offline=True),
        "empty": planned("", plan, find_links=wheels, offline=True),
        "offline without folder": planned("a", plan, offline=True),
        "missing folder": planned("a", plan, find_links=tmp_path / "nope", offline=True),
        "bad gpus": planned("a", plan, find_links=wheels, offline=True, gpus="first"),
        "unknown tool": planned("a", plan, tool="poetry"),
        "no mamba": planned("a", plan, tool="mamba"),
        "conda offline without a channel": planned(
            "a", plan, manager="conda", find_links=wheels, offline=True
        ),
        "channel for a venv": planned("a", plan, manager="venv", channels=(str(wheels),)),
        "not a channel": planned("a", plan, manager="conda", channels=(str(wheels),)),
        "no such channel": planned("a", plan, manager="conda", channels=(str(tmp_path / "nope"),)),
        "remote http channel": planned("a", plan, tool="rattler", channels=("http://mirror.example/c",)),
        "pytorch channel": planned("a", torch_plan(conda_channels=("pytorch",)), tool="conda"),
    }
    for why, request in refused.items():
        with pytest.raises(SetupRefused) as caught:
            prepare_environment(*request, tools())
        assert "\n" not in str(caught.value), why
    full = tools(disk_free=lambda _path: 10 * 1024 * 1024)
    with pytest.raises(SetupRefused, match="not enough free disk space"):
        prepare_environment(*planned("a", plan, find_links=wheels, offline=True), full)
    occupied = tmp_path / "occupied"
    occupied.mkdir()
    (occupied / "thesis.tex").write_text("do not delete")
    with pytest.raises(SetupRefused, match="not an environment"):
        prepare_environment(
            *planned("a", plan, prefix=occupied, find_links=wheels, offline=True, replace=True), tools()
        )
    assert (occupied / "thesis.tex").read_text() == "do not delete"
    assert list_environments() == []


def test_no_interpreter_of_the_plans_python_offline_is_refused(wheels: Path):
    with pytest.raises(SetupRefused, match=r"no 64-bit Python 3\.99"):
        prepare_environment(
            *planned("a", torch_plan(python="3.99"), find_links=wheels, offline=True), tools()
        )
    with pytest.raises(SetupRefused, match=r"no 64-bit Python 3\.99"):
        prepare_environment(*planned("a", torch_plan(python="3.99"), tool="pip"), tools())


def test_online_uv_without_that_python_lets_uv_fetch_it():
    if UV is None:
        pytest.skip("uv not installed")
    missing = "3.13" if PYTHON != "3.13" else "3.12"  # a Python uv has builds of, not this one
    prepared = prepare_environment(*planned("a", torch_plan(python=missing)), tools())
    assert prepared.python == missing
    assert "uv downloads" in prepared.python_note
    # What uv downloads is planned, named and asked before anything is made (issue 37, point 6).
    assert prepared.python_download is not None and prepared.python_download.python == missing
    assert not prepared.prefix.exists()
    # A Python uv has no build of is refused now, in one line, rather than by uv part-way.
    with pytest.raises(SetupRefused, match=r"uv has no Python 3\.99 build to download"):
        prepare_environment(*planned("a", torch_plan(python="3.99")), tools())


@pytest.mark.slow
def test_remove_deletes_folder_and_entry_and_guards_other_folders(wheels: Path):
    result, _ = make(planned("gone", torch_plan(), find_links=wheels, offline=True))
    assert result.status == "ok"
    with pytest.raises(EnvRemoveError):
        remove_environment("never-made")
    marker = Path(result.path) / "gpuwizard-env.json"
    kept = marker.read_bytes()
    marker.unlink()  # without its marker the folder is not provably the wizard's
    with pytest.raises(EnvRemoveError, match="does not carry the wizard's marker"):
        remove_environment("gone")
    assert (Path(result.path) / "pyvenv.cfg").is_file()
    marker.write_bytes(kept)
    remove_environment("gone")
    assert not Path(result.path).exists()
    assert list_environments() == []


class _FailingRunner(StreamingSubprocessRunner):
    """Every tool exits 1 at once: a creation fails within milliseconds."""

    def stream(self, argv, on_line, **_: Any) -> int:  # type: ignore[override]
        on_line("error: no")
        return 1


def test_runs_in_the_same_second_keep_their_own_logs(wheels: Path):
    # Issue 19: the log was named by the second only, so a run started in the same second
    # overwrote the other's log.
    env_tools = tools(runner=_FailingRunner())
    results = [
        make(planned("demo", torch_plan(), find_links=wheels, offline=True), env_tools)[0] for _ in range(3)
    ]
    assert [result.status for result in results] == ["failed"] * 3
    logs = {result.log for result in results}
    assert len(logs) == 3
    for log in logs:
        assert "error: no" in Path(str(log)).read_text(encoding="utf-8")


def test_a_second_create_of_a_name_being_made_is_refused_and_changes_nothing(wheels: Path):
    from gpuwizard.workflow.state.env_pending import hold_creation

    request = planned("demo", torch_plan(), find_links=wheels, offline=True)
    prepared = prepare_environment(*request, tools())
    other = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\n"
         "from pathlib import Path\n"
         "from gpuwizard.workflow.state.env_pending import hold_creation\n"
         "held = hold_creation('demo', Path(sys.argv[1])); print('held', flush=True); time.sleep(60)",
         str(prepared.prefix)],
        stdout=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert other.stdout is not None and other.stdout.readline().strip() == "held"
        with pytest.raises(SetupRefused, match="being made by another gpuwizard"):
            create_environment(prepared, tools(), lambda event: None, threading.Event())
        assert not prepared.prefix.exists()
    finally:
        other.kill()
        other.wait()
    held = hold_creation("demo", prepared.prefix)  # the dead holder's lock is free again
    held.release()


def test_conda_without_conda_is_made_by_py_rattler_from_conda_forge_or_the_given_channel(tmp_path: Path):
    plan = torch_plan(conda_channels=("conda-forge",), conda_packages=(f"python={PYTHON}",))
    prepared = prepare_environment(*planned("lab", plan, manager="conda"), tools())
    assert (prepared.backend.manager, prepared.backend.tool) == ("conda", "rattler")
    assert prepared.python_note == f"Python {PYTHON} from conda-forge; no conda needed"
    assert prepared.conda.channels == ("conda-forge",)
    assert prepared.prefix.name == "lab" and not prepared.prefix.exists()

    channel = tmp_path / "my channel"
    (channel / "noarch").mkdir(parents=True)
    (channel / "noarch" / "repodata.json").write_text("{}")
    given = prepare_environment(*planned("lab", plan, manager="conda", channels=(str(channel),)), tools())
    # The person's channel replaces conda-forge, as conda's --override-channels -c does.
    assert given.conda.channels == (channel.resolve().as_uri(),)
    both = planned("lab", plan, manager="conda", channels=(channel.as_uri(), "conda-forge"))
    assert prepare_environment(*both, tools()).conda.channels == (channel.resolve().as_uri(), "conda-forge")


def test_a_found_conda_is_preferred_and_rattler_can_still_be_chosen(tmp_path: Path):
    plan = torch_plan(conda_channels=("conda-forge",), conda_packages=(f"python={PYTHON}",))
    found = tools(
        managers=ManagerFacts(uv=UV, micromamba="/opt/micromamba"), runner=StreamingSubprocessRunner()
    )
    prefix = tmp_path / "env"
    prepared = prepare_environment(*planned("lab", plan, manager="conda", prefix=prefix), found)
    assert prepared.backend.tool == "micromamba"
    chosen = prepare_environment(*planned("lab", plan, tool="rattler", prefix=prefix), found)
    assert chosen.backend.tool == "rattler"


@pytest.mark.slow
def test_the_plans_library_pin_holds_in_the_environment(wheels: Path, tmp_path: Path):
    # Issue 36: a plan that pins cuDNN below the release that dropped its GPU keeps the pin after
    # the install: a later `pip install` can lift neither the library nor anything needing more.
    build_wheel(wheels, "nvidia_cudnn_cu12", "9.10.2.21")
    cudnn = ResolvedLibrary(
        "cudnn", "nvidia-cudnn-cu12", "<10.0,>=9.3.0.75", "9.28.0.42", "2026-11-29", "data", "<9.11", ("6.1",)
    )
    plan = torch_plan(requirements=("torch==2.13.0", "nvidia-cudnn-cu12<9.11"), resolved=(cudnn,))
    assert plan.library_pins == ("nvidia-cudnn-cu12<9.11",)
    result, _ = make(planned("cudnn-pinned", plan, find_links=wheels, offline=True))
    assert result.status == "ok", result
    assert "nvidia-cudnn-cu12<9.11" in Path(result.constraints).read_text().splitlines()
    other = tmp_path / "newer"
    other.mkdir()
    build_wheel(other, "nvidia_cudnn_cu12", "9.28.0.42")
    build_wheel(other, "needs_new_cudnn", "1.0", requires=["nvidia-cudnn-cu12>=9.11"])
    for wanted in ("nvidia-cudnn-cu12==9.28.0.42", "--upgrade nvidia-cudnn-cu12", "needs_new_cudnn"):
        done = subprocess.run(
            [
                result.python,
                "-m",
                "pip",
                "install",
                "--no-index",
                "--find-links",
                str(other),
                *wanted.split(),
            ],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        installed = env_python_says(
            result.python, "import importlib.metadata as m; print(m.version('nvidia-cudnn-cu12'))"
        )
        assert installed == "9.10.2.21", (wanted, done.stdout, done.stderr)
