"""Making an environment inside a WSL 2 distro, the Linux half, for real (issue 39, "Tests").

The exact steps the Windows side sends through ``wsl.exe`` run here in a local shell
(:class:`LocalDistro`: the same argv, standard input and home folder as inside the distro), with
a home folder of the test's and a recorded ``/usr/lib/wsl/lib`` (the file names of a real one,
microsoft/WSL#12118; empty files, since nothing loads them on the CPU). Real: the distro's own
``python3`` running the helper, uv (this venv's own binary, sent as the binary out of uv's wheel,
with its real sha256), the venv, the install from a folder of wheels, the environment report
probe. TensorFlow itself (hundreds of MB) is too big here: a small pure-Python ``tensorflow``
2.20.0 with an ``and-cuda`` extra (pulling a small ``nvidia-cudnn-cu12``) stands for the plan's
``tensorflow[and-cuda]==X``, answering the report probe as a CUDA build on a machine without a
GPU does. The live test runs with the real CPU torch where the local torch wheel is there.
"""

from __future__ import annotations

import hashlib
import io
import json
import shutil
import subprocess
import sys
import tarfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders.uv_wheels import uv_wheel
from builders.wheels import build_wheel, bundled_pip_wheel
from gpuwizard.core.envs.events import EnvLog, EnvPhase, EnvProgress, EnvStart
from gpuwizard.core.envs.result import env_result_from_json
from gpuwizard.core.envs.uv_wheel import UvBinary, uv_from_wheel
from gpuwizard.core.envs.wsl_steps import (
    DISTRO_PYTHON,
    WslEnvRequest,
    WslPayloads,
    home_step,
    live_test_step,
    stop_step,
)
from gpuwizard.core.events import Event, to_json
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS
from gpuwizard.workflow.envs.ownership import new_id
from gpuwizard.workflow.envs.wsl_create import (
    LocalDistro,
    WslCreation,
    create_wsl_environment,
    read_payloads,
    remove_wsl_environment,
    run_in_distro,
)
from harness.proc import end, gone, hang_after_saying_who, said
from harness.waits import EVENT_S, set_when, until

pytestmark = pytest.mark.slow

UV = shutil.which("uv", path=str(Path(sys.executable).parent))
# The distro's Python runs the helper: this machine's system one, as a distro's.
DISTRO = DISTRO_PYTHON if Path(DISTRO_PYTHON).is_file() else sys.executable
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
NAME = "ana's tf $(x)"  # a shell would read it; no shell ever sees it
#: What a WSL 2 distro's /usr/lib/wsl/lib holds with an NVIDIA driver (microsoft/WSL#12118,
#: `ls -l /usr/lib/wsl/lib/` on a 2024 driver; the folder WSL mounts from Windows' lxss\lib).
WSL_LIB_FILES = (
    "libcuda.so",
    "libcuda.so.1",
    "libcuda.so.1.1",
    "libcudadebugger.so.1",
    "libd3d12.so",
    "libd3d12core.so",
    "libdxcore.so",
    "libnvcuvid.so",
    "libnvcuvid.so.1",
    "libnvdxdlkernels.so",
    "libnvidia-encode.so",
    "libnvidia-encode.so.1",
    "libnvidia-ml.so.1",
    "libnvidia-opticalflow.so",
    "libnvidia-opticalflow.so.1",
    "libnvwgf2umx.so",
    "nvidia-smi",
)
#: A ``tensorflow`` that answers the report probe as a CUDA build of TensorFlow does on a
#: machine without a GPU (tf.sysconfig.get_build_info() of a Linux wheel; no GPU listed).
TENSORFLOW = """\
from types import SimpleNamespace as _Namespace

__version__ = "2.20.0"
_INFO = {"is_cuda_build": True, "cuda_version": "12.5.1", "cudnn_version": "9",
         "cuda_compute_capabilities": ["sm_60", "sm_70", "sm_80", "sm_89", "compute_90"]}
sysconfig = _Namespace(get_build_info=lambda: dict(_INFO))
config = _Namespace(list_physical_devices=lambda kind=None: [],
                    experimental=_Namespace(set_memory_growth=lambda device, grow: None))
test = _Namespace(is_built_with_cuda=lambda: True)
keras = _Namespace(__version__="3.10.0")
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """The distro user's home; ``~/.local/share`` is there, as in any distro someone logged in to."""
    folder = tmp_path / "home" / "ana"
    (folder / ".local" / "share").mkdir(parents=True)
    return folder


@pytest.fixture
def wsl_lib(tmp_path: Path) -> Path:
    folder = tmp_path / "recorded" / "usr" / "lib" / "wsl" / "lib"
    folder.mkdir(parents=True)
    for name in WSL_LIB_FILES:
        (folder / name).write_bytes(b"")
    return folder


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    build_wheel(
        folder,
        "tensorflow",
        "2.20.0",
        files={"tensorflow/__init__.py": TENSORFLOW},
        requires=['nvidia-cudnn-cu12; extra == "and-cuda"'],
        extras=["and-cuda"],
    )
    build_wheel(folder, "nvidia-cudnn-cu12", "9.3.0.75")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


@pytest.fixture(scope="module")
def uv_binary() -> UvBinary:
    """This venv's uv, as the Windows side sends it: the binary out of a wheel laid out as PyPI's."""
    if UV is None:
        pytest.skip("uv is a project dependency; not installed here")
    data = Path(UV).read_bytes()
    wheel = uv_wheel(data, stored=True)  # stored: the binary is large, speed matters more
    binary = uv_from_wheel(wheel, hashlib.sha256(wheel).hexdigest())
    assert binary.sha256 == hashlib.sha256(data).hexdigest()
    return binary


def tf_request(wheels: Path, wsl_lib: Path, **changes: Any) -> WslEnvRequest:
    values: dict[str, Any] = {
        "name": NAME,
        "framework": "tensorflow",
        "framework_version": "2.20.0",
        "python": PYTHON,
        "requirements": ("tensorflow[and-cuda]==2.20.0",),
        "find_links": str(wheels),
        "offline": True,
        "distro": "Ubuntu-24.04",
        "distro_python": DISTRO,
        "wsl_lib": str(wsl_lib),
    }
    values.update(changes)
    return WslEnvRequest(**values)


def create(
    request: WslEnvRequest, sent: WslPayloads, home: Path, cancel: threading.Event | None = None
) -> tuple[WslCreation, list[Event]]:
    events: list[Event] = []
    creation = create_wsl_environment(
        request, sent, LocalDistro(home), events.append, cancel or threading.Event()
    )
    return creation, events


def tree(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*"))


def wizard_folder(home: Path) -> Path:
    return home / ".local" / "share" / "gpuwizard"


def test_makes_the_environment_in_the_distro_home_and_runs_the_report_probe_there(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    creation, events = create(tf_request(wheels, wsl_lib), read_payloads(uv_binary), home)
    result = creation.result
    assert result.status == "ok", result
    folder = wizard_folder(home)
    env = folder / "envs" / NAME
    assert result.path == str(env) and result.python == str(env / "bin" / "python")
    assert (result.manager, result.tool, result.framework, result.framework_version) == (
        "wsl",
        "uv",
        "tensorflow",
        "2.20.0",
    )
    # The events of any other environment: start, phases, uv's lines as progress, the result last.
    assert isinstance(events[0], EnvStart) and events[0].manager == "wsl"
    assert events[-1] == result
    phases = [event.phase for event in events if isinstance(event, EnvPhase)]
    assert phases == ["check", "create", "create", "create", "install", "verify", "verify"]
    installed = {
        (event.package, event.version)
        for event in events
        if isinstance(event, EnvProgress) and event.action == "installed" and event.package
    }
    assert {("tensorflow", "2.20.0"), ("nvidia-cudnn-cu12", "9.3.0.75")} <= installed
    assert "pip" in {package for package, _version in installed}  # `pip install` works inside
    # The report probe ran in the distro's environment and answered as data.
    (answer,) = [event for event in events if isinstance(event, EnvLog) and event.report is not None]
    assert (
        answer.line
        == "tensorflow 2.20.0 imports in the new environment (built with CUDA 12.5.1) and sees no GPU."
    )
    report = creation.report
    assert report is not None and report["python_executable"] == str(env / "bin" / "python")
    assert {"name": "nvidia-cudnn-cu12", "version": "9.3.0.75"} in report["cuda_wheels"]
    # What the first step found: the recorded driver libraries, the distro's Python.
    assert creation.facts["wsl_lib"]["libcuda"] == ["libcuda.so", "libcuda.so.1", "libcuda.so.1.1"]
    assert creation.facts["wsl_lib"]["nvidia_smi"] is True
    lines = [event.line for event in events if isinstance(event, EnvLog)]
    assert (
        f"the Windows NVIDIA driver's CUDA library is passed into the distro: {wsl_lib}/libcuda.so" in lines
    )
    # On disk: the wizard's folder, marked; the environment, marked with the run's id; uv, checked.
    assert creation.home is not None and creation.home.made and creation.home.path == str(folder)
    home_marker = json.loads((folder / "gpuwizard-home.json").read_text())
    assert (home_marker["kind"], home_marker["id"]) == ("wsl-home", creation.home.home_id)
    marker = json.loads((env / "gpuwizard-env.json").read_text())
    assert marker == {
        "schema": "gpuwizard.owner-marker/1",
        "kind": "environment",
        "id": creation.env_id,
        "name": NAME,
        "place": str(env),
        "given": False,
    }
    assert hashlib.sha256((folder / "bin" / "uv").read_bytes()).hexdigest() == uv_binary.sha256
    assert creation.uv_version is not None and creation.uv_version.startswith("uv ")
    done = subprocess.run(
        [str(env / "bin" / "python"), "-c", "import tensorflow; print(tensorflow.__version__)"],
        capture_output=True,
        text=True,
        check=True,
        timeout=EVENT_S,
    )
    assert done.stdout.strip() == "2.20.0"
    # Everything stayed in the wizard's folder; nothing runs any more.
    assert tree(home) == [".local", ".local/share", *[f".local/share/gpuwizard{p}" for p in _below(folder)]]
    assert list((folder / "run").iterdir()) == []
    # The log file holds every event, as env create's does.
    logged = [json.loads(line) for line in Path(result.log).read_text().splitlines() if line.startswith("{")]  # type: ignore[arg-type]
    assert logged == [to_json(event) for event in events]


def _below(folder: Path) -> list[str]:
    return ["", *[f"/{name}" for name in tree(folder)]]


def test_a_distro_without_the_drivers_libraries_is_said_before_anything_is_installed(
    home: Path, wheels: Path, tmp_path: Path, uv_binary: UvBinary
):
    empty = tmp_path / "no-driver"
    empty.mkdir()
    creation, events = create(tf_request(wheels, empty), read_payloads(uv_binary), home)
    assert creation.ok
    lines = [(event.phase, event.line) for event in events if isinstance(event, EnvLog)]
    said = f"no libcuda.so in {empty}: inside this distro the framework will see no GPU"
    assert any(phase == "check" and line.startswith(said) for phase, line in lines)


def test_a_wrong_sha256_for_uv_refuses_and_changes_nothing(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    before = tree(home)
    forged = UvBinary(uv_binary.data, "0" * 64, uv_binary.version)
    creation, events = create(tf_request(wheels, wsl_lib), read_payloads(forged), home)
    assert creation.result.status == "failed"
    assert f"has sha256 {uv_binary.sha256}, not the published {'0' * 64}" in (creation.result.error or "")
    assert creation.result.rollback_problems == ()
    # The wizard's folder this run made went again; nothing else was made.
    assert tree(home) == before
    assert "install" not in [event.phase for event in events if isinstance(event, EnvPhase)]


def test_a_distro_without_the_space_is_refused_before_anything_is_installed(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    before = tree(home)
    creation, events = create(
        tf_request(wheels, wsl_lib, needed_bytes=1 << 62), read_payloads(uv_binary), home
    )
    assert creation.result.status == "failed"
    assert (creation.result.error or "").startswith("not enough free disk space in the distro (")
    assert [event.phase for event in events if isinstance(event, EnvPhase)] == ["check", "rollback"]
    assert tree(home) == before


def test_a_failed_install_rolls_back_and_keeps_what_others_made(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    sent = read_payloads(uv_binary)
    first, _ = create(tf_request(wheels, wsl_lib, name="first"), sent, home)
    assert first.ok
    kept = tree(wizard_folder(home) / "envs" / "first")
    missing = tf_request(wheels, wsl_lib, requirements=("tensorflow[and-cuda]==9.9.9",))
    second, events = create(missing, sent, home)
    result = second.result
    assert result.status == "failed"
    assert (result.error or "").startswith("install: uv exited with status 1")
    assert any("tensorflow" in line for line in result.log_tail)
    assert result.rollback_problems == ()
    assert [event.phase for event in events if isinstance(event, EnvPhase)][-1] == "rollback"
    # Its own folder went; the wizard's folder (not made by this run) and the first stayed.
    assert not (wizard_folder(home) / "envs" / NAME).exists()
    assert second.home is not None and not second.home.made
    assert tree(wizard_folder(home) / "envs" / "first") == kept
    assert sorted(path.name for path in (wizard_folder(home) / "envs").iterdir()) == ["first"]


def hanging_sdist(folder: Path, marker: Path) -> Path:
    """``hang`` 0.1, only as a source distribution whose build says its process id, then hangs.

    uv builds it to learn its metadata (no PKG-INFO, no [project] table): the install is in
    uv's build when the marker appears.
    """
    backend = "\n".join(
        [
            "def get_requires_for_build_wheel(config_settings=None):",
            "    return []",
            "",
            "def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):",
            *(f"    {line}" for line in hang_after_saying_who(marker).splitlines()),
            "",
        ]
    )
    files = {
        "hang-0.1/pyproject.toml": '[build-system]\nrequires = []\nbuild-backend = "hang_backend"\nbackend-path = ["."]\n',
        "hang-0.1/hang_backend.py": backend,
    }
    folder.mkdir(parents=True, exist_ok=True)
    sdist = folder / "hang-0.1.tar.gz"
    with tarfile.open(sdist, "w:gz") as archive:
        for name, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode = len(data), 0o644
            archive.addfile(info, io.BytesIO(data))
    return sdist


@pytest.fixture
def building(tmp_path: Path) -> Iterator[Path]:
    """Where the hanging build says its process id; a build a failure left running is ended."""
    marker = tmp_path / "building-pid"
    yield marker
    end(said(marker))


def test_a_cancel_mid_install_stops_the_build_in_the_distro_and_rolls_back(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary, building: Path
):
    hanging_sdist(wheels, building)
    request = tf_request(wheels, wsl_lib, requirements=("tensorflow[and-cuda]==2.20.0", "hang==0.1"))
    cancel = threading.Event()
    with set_when(lambda: said(building), cancel):
        creation, events = create(request, read_payloads(uv_binary), home, cancel)
    result = creation.result
    assert result.status == "cancelled", result
    build = said(building)
    assert build is not None, "the build never began"
    until(lambda: gone(build), "the hanging build ended")
    assert result.rollback_problems == ()
    phases = [event.phase for event in events if isinstance(event, EnvPhase)]
    assert phases[-2:] == ["install", "rollback"]
    # The wizard's folder was made by this run: it went, with the half-made environment.
    assert tree(home) == [".local", ".local/share"]


def test_the_stop_step_ends_a_tool_its_transport_left_running(
    home: Path, wsl_lib: Path, uv_binary: UvBinary, tmp_path: Path, building: Path
):
    # wsl.exe ended on Windows leaves what it started in the distro running (microsoft/WSL#2496):
    # here the tool runs on with nothing cancelled, until the stop step ends it.
    sent = read_payloads(uv_binary)
    distro = LocalDistro(home)
    answers: list[str] = []
    prepare = home_step(sent.helper, new_id(), python=DISTRO, wsl_lib=str(wsl_lib))
    assert distro.run(prepare.argv, answers.append, cancel=threading.Event(), stdin=prepare.stdin) == 0
    folder = wizard_folder(home)
    env = folder / "envs" / "hangs"
    (env / "bin").mkdir(parents=True)
    (env / "bin" / "python").symlink_to(sys.executable)
    (folder / "probes" / "train_test.py").write_text(hang_after_saying_who(building))
    run_id = new_id()
    test = live_test_step(sent.helper, str(folder), "hangs", "tensorflow", run_id=run_id, python=DISTRO)
    ended: list[int] = []
    running = threading.Thread(
        target=lambda: ended.append(
            run_in_distro(distro, test, answers.append, threading.Event(), helper=sent.helper)
        ),
        daemon=True,
    )
    running.start()
    tool = until(lambda: said(building), "the tool began")
    assert tool is not None
    # The run is recorded in the distro while it runs: what the stop step goes by.
    until((folder / "run" / f"{run_id}.json").is_file, "the run was recorded")
    stopped: list[str] = []
    stop = stop_step(sent.helper, run_id, python=DISTRO)
    assert distro.run(stop.argv, stopped.append, cancel=threading.Event(), stdin=stop.stdin) == 0
    until(lambda: gone(tool), "the tool ended")
    running.join(EVENT_S)
    assert ended and ended[0] != 0
    assert json.loads(stopped[-1])["stopped"] is True
    assert not (folder / "run" / f"{run_id}.json").exists()


def test_removal_removes_only_marked_folders_and_names_what_it_keeps(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    sent = read_payloads(uv_binary)
    creation, _ = create(tf_request(wheels, wsl_lib), sent, home)
    assert creation.ok and creation.home is not None
    envs = wizard_folder(home) / "envs"
    theirs = envs / "theirs"  # a person's own venv beside the wizard's, without the marker
    (theirs / "bin").mkdir(parents=True)
    (theirs / "pyvenv.cfg").write_text("home = /usr/bin\n")
    copied = envs / "copied"  # the wizard's marker copied into another folder: not proof
    copied.mkdir()
    shutil.copy(envs / NAME / "gpuwizard-env.json", copied)
    distro = LocalDistro(home)

    refused = remove_wsl_environment(distro, sent.helper, "theirs", new_id(), python=DISTRO)
    assert refused.removed == () and refused.problems == ()
    assert refused.kept == (f"{theirs} is kept: it does not carry the wizard's marker",)
    wrong_place = remove_wsl_environment(distro, sent.helper, "copied", creation.env_id, python=DISTRO)
    assert wrong_place.removed == ()
    assert wrong_place.kept == (
        f"{copied} is kept: its marker was made for another folder ({envs / NAME}): a copy proves nothing",
    )
    assert theirs.is_dir() and copied.is_dir()

    removal = remove_wsl_environment(
        distro, sent.helper, NAME, creation.env_id, home_id=creation.home.home_id, python=DISTRO
    )
    assert str(envs / NAME) in removal.removed and not (envs / NAME).exists()
    assert removal.problems == ()
    # The wizard's folder stays while folders it cannot prove are its own are in it, and says so.
    assert sorted(removal.kept) == [
        f"{copied} is kept: its marker was made for another folder ({envs / NAME}): a copy proves nothing",
        f"{theirs} is kept: it does not carry the wizard's marker",
    ]
    assert sorted(path.name for path in wizard_folder(home).iterdir()) == ["envs", "gpuwizard-home.json"]
    # Once the person removed theirs, the rest goes: uv, the probes, uv's cache, the folder.
    shutil.rmtree(theirs)
    shutil.rmtree(copied)
    last = remove_wsl_environment(
        distro, sent.helper, NAME, creation.env_id, home_id=creation.home.home_id, python=DISTRO
    )
    assert last.kept == () and last.problems == ()
    assert str(wizard_folder(home)) in last.removed
    assert tree(home) == [".local", ".local/share"]


def test_the_folder_shared_with_the_wizard_installed_in_the_distro_keeps_its_files(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    # The wizard installed inside the distro keeps its state in the same folder
    # (workflow/state/home.py on Linux): it is used, never made nor removed from Windows.
    folder = wizard_folder(home)
    folder.mkdir()
    (folder / "environments.json").write_text('{"schema": "gpuwizard.environments/1", "environments": []}')
    sent = read_payloads(uv_binary)
    creation, _ = create(tf_request(wheels, wsl_lib), sent, home)
    assert creation.ok and creation.home is not None and not creation.home.made
    assert creation.facts["shared"] is True
    removal = remove_wsl_environment(
        LocalDistro(home), sent.helper, NAME, creation.env_id, home_id=creation.home.home_id, python=DISTRO
    )
    assert removal.kept == (
        f"{folder / 'environments.json'} is kept: the wizard's steps from Windows did not make it",
    )
    assert sorted(path.name for path in folder.iterdir()) == ["environments.json", "gpuwizard-home.json"]


def test_the_live_test_runs_in_the_distro_on_the_cpu(
    home: Path, wsl_lib: Path, uv_binary: UvBinary, torch_folder: Path
):
    request = WslEnvRequest(
        name="torch",
        framework="pytorch",
        framework_version="2.13.0",
        python=PYTHON,
        requirements=("torch==2.13.0",),
        find_links=str(torch_folder),
        offline=True,
        distro_python=DISTRO,
        wsl_lib=str(wsl_lib),
    )
    sent = read_payloads(uv_binary)
    creation, _ = create(request, sent, home)
    assert creation.ok, creation.result
    assert creation.report is not None and creation.report["framework_version"].startswith("2.13.0")
    assert creation.home is not None
    test = live_test_step(sent.helper, creation.home.path, "torch", "pytorch", run_id=new_id(), python=DISTRO)
    lines: list[str] = []
    status = run_in_distro(LocalDistro(home), test, lines.append, threading.Event(), helper=sent.helper)
    assert status == 0, lines[-20:]
    # The probe's lines are the live test's events, read as on Windows.
    events = [LIVE_TEST_EVENTS.read(json.loads(line)) for line in lines if line.startswith('{"event"')]
    kinds = [event.KIND for event in events]
    assert kinds[0] == "prepare" and kinds[-1] == "summary"
    start = events[kinds.index("start")]
    assert to_json(start)["framework"] == "pytorch"
    assert to_json(events[-1])["gpu_used"] is False


def test_each_helper_command_answers_in_one_json_line(home: Path, wsl_lib: Path, uv_binary: UvBinary):
    # What wsl.exe carries back is the helper's one line: the Windows side reads it as data.
    sent = read_payloads(uv_binary)
    lines: list[str] = []
    step = home_step(sent.helper, new_id(), python=DISTRO, wsl_lib=str(wsl_lib))
    assert LocalDistro(home).run(step.argv, lines.append, cancel=threading.Event(), stdin=step.stdin) == 0
    (line,) = lines
    answer = json.loads(line)
    assert answer["helper"] == "wsl_home" and answer["command"] == "home" and answer["ok"] is True
    assert answer["made"] is True and answer["home"] == str(wizard_folder(home))
    assert set(answer) >= {"python", "externally_managed", "free_bytes", "wsl_lib"}
    # Found again by a later run: not made now, and its id is the first one's.
    again: list[str] = []
    later = home_step(sent.helper, new_id(), python=DISTRO, wsl_lib=str(wsl_lib))
    assert LocalDistro(home).run(later.argv, again.append, cancel=threading.Event(), stdin=later.stdin) == 0
    assert json.loads(again[0])["made"] is False
    assert json.loads(again[0])["home_id"] == answer["home_id"]


def test_a_folder_the_wizard_did_not_make_is_refused_and_left_as_it_is(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    folder = wizard_folder(home)
    folder.mkdir()
    (folder / "notes.txt").write_text("mine")
    before = tree(home)
    creation, _ = create(tf_request(wheels, wsl_lib), read_payloads(uv_binary), home)
    assert creation.result.status == "failed"
    assert f"{folder} holds files the wizard did not make" in (creation.result.error or "")
    assert tree(home) == before and (folder / "notes.txt").read_text() == "mine"


def test_the_result_reads_back_as_any_environments(
    home: Path, wheels: Path, wsl_lib: Path, uv_binary: UvBinary
):
    creation, _ = create(tf_request(wheels, wsl_lib), read_payloads(uv_binary), home)
    data = to_json(creation.result)
    assert {key: data[key] for key in ("status", "manager", "tool", "framework_version")} == {
        "status": "ok",
        "manager": "wsl",
        "tool": "uv",
        "framework_version": "2.20.0",
    }
    assert env_result_from_json(data) == creation.result
