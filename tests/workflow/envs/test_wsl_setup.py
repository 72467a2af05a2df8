"""The WSL 2 route from Windows, end to end through the Linux half (issue 39, points 3 and 5).

The acceptance machine's saved report (Windows 11, RTX 4070, an Ubuntu 24.04 WSL 2 distribution)
is checked for the route; then what the Windows side sends into the distribution runs here in a
local shell (``LocalDistro``: the same argv and standard input, a home of the test's), with this
venv's uv sent as uv's binary, a folder of wheels standing for PyPI (a small ``tensorflow``
answering as a CUDA build; TensorFlow itself is hundreds of MB), and a recorded
``/usr/lib/wsl/lib``. The environment is recorded as the Windows side records it, listed, and
removed by ``env remove``'s code: only what carries the wizard's marker goes.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import sys
import threading
from dataclasses import replace
from pathlib import Path

import pytest

from builders.uv_wheels import uv_wheel
from builders.wheels import build_wheel, bundled_pip_wheel
from fakes.wsl_exe import stand_in_wsl
from gpuwizard.adapters.wsl import WslDistro
from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.uv_wheel import UvBinary, uv_from_wheel
from gpuwizard.core.envs.wsl_steps import DISTRO_PYTHON
from gpuwizard.core.events import Event
from gpuwizard.core.machine.system_report import WslDistroFacts
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.envs.prepare import SetupRefused
from gpuwizard.workflow.envs.registry import EnvRemoveError, list_environments, remove_environment
from gpuwizard.workflow.envs.wsl_create import LocalDistro
from gpuwizard.workflow.envs.wsl_setup import (
    WslSetup,
    plan_wsl_setup,
    run_windows_step,
    run_wsl_setup,
    wsl_route_for,
)
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.state.env_registry import find_record
from gpuwizard.workflow.state.wsl_pending import WslStepRun, load_wsl_step, save_wsl_step

pytestmark = pytest.mark.slow

REPORTS = Path(__file__).parents[2] / "fixtures" / "reports"
WITH_WSL = REPORTS / "windows-rtx4070-581.57-wsl-ubuntu2404.json"
WITHOUT_WSL = REPORTS / "windows-rtx4070-581.57-no-wsl.json"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
DISTRO = DISTRO_PYTHON if Path(DISTRO_PYTHON).is_file() else sys.executable
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
TENSORFLOW = """\
from types import SimpleNamespace as _Namespace

__version__ = "{version}"
_INFO = {{"is_cuda_build": True, "cuda_version": "12.5.1", "cudnn_version": "9"}}
sysconfig = _Namespace(get_build_info=lambda: dict(_INFO))
config = _Namespace(list_physical_devices=lambda kind=None: [])
test = _Namespace(is_built_with_cuda=lambda: True)
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "distro-home" / "zoe"
    (folder / ".local" / "share").mkdir(parents=True)
    return folder


@pytest.fixture
def wsl_lib(tmp_path: Path) -> Path:
    folder = tmp_path / "usr" / "lib" / "wsl" / "lib"
    folder.mkdir(parents=True)
    for name in ("libcuda.so", "libcuda.so.1", "libcuda.so.1.1", "libnvidia-ml.so.1", "nvidia-smi"):
        (folder / name).write_bytes(b"")
    return folder


@pytest.fixture(scope="module")
def uv_binary() -> UvBinary:
    if UV is None:
        pytest.skip("uv is a project dependency; not installed here")
    wheel = uv_wheel(Path(UV).read_bytes(), stored=True)
    return uv_from_wheel(wheel, hashlib.sha256(wheel).hexdigest())


def checked(tmp_path: Path, wsl_lib: Path, name: str = "tf") -> WslSetup:
    """The acceptance machine's route checked, then pointed at this machine's stand-ins."""
    report = load_system_report(WITH_WSL)
    request = SetupRequest.checked(framework="tensorflow", name=name)
    rec = recommend(report, parse_wish("tensorflow", None), load_compat())
    setup = plan_wsl_setup(report, request, rec)
    plan = setup.plan
    wheels = tmp_path / "wheels"
    build_wheel(
        wheels,
        "tensorflow",
        plan.framework_version,
        files={"tensorflow/__init__.py": TENSORFLOW.format(version=plan.framework_version)},
        requires=['nvidia-cudnn-cu12; extra == "and-cuda"'],
        extras=["and-cuda"],
    )
    build_wheel(wheels, "nvidia-cudnn-cu12", "9.3.0.75")
    shutil.copy(bundled_pip_wheel(), wheels)
    # What the route sends, but from this machine's wheels and Python: a Windows folder is
    # /mnt/<drive>/... there (distro_path), PyPI and uv's Python download are not reached here.
    local = replace(
        setup.env_request,
        find_links=str(wheels),
        offline=True,
        python_download=False,
        python=PYTHON,
        distro_python=DISTRO,
        wsl_lib=str(wsl_lib),
        requirements=tuple(
            r for r in setup.env_request.requirements if not r.startswith("nvidia-cudnn-cu12<")
        ),
    )
    return replace(setup, env_request=local)


def test_the_route_is_checked_against_the_report_and_refused_with_what_it_takes():
    rec = recommend(load_system_report(WITH_WSL), parse_wish("tensorflow", None), load_compat())
    request = SetupRequest.checked(framework="tensorflow", name="tf")
    setup = plan_wsl_setup(load_system_report(WITH_WSL), request, rec)
    assert (setup.route.distro, setup.route.state) == ("Ubuntu-24.04", "ready")
    assert setup.env_request.requirements[0].startswith("tensorflow[and-cuda]==")
    assert setup.env_request.python_download  # uv brings the plan's Python, not Ubuntu's 3.12
    # Without WSL nothing is made: the one line says what installing it takes.
    bare = load_system_report(WITHOUT_WSL)
    with pytest.raises(
        SetupRefused,
        match=r"administrator.*wsl --install -d Ubuntu-24.04|wsl --install -d Ubuntu-24.04.*administrator",
    ):
        plan_wsl_setup(bare, request, recommend(bare, parse_wish("tensorflow", None), load_compat()))
    with pytest.raises(SetupRefused, match="--manager conda"):
        plan_wsl_setup(load_system_report(WITH_WSL), replace(request, manager="conda"), rec)
    with pytest.raises(SetupRefused, match="drive"):
        plan_wsl_setup(
            load_system_report(WITH_WSL), replace(request, find_links=Path(r"\\server\share\wheels")), rec
        )


def test_a_native_plan_is_turned_to_its_wsl_alternative_when_asked():
    # A report without the wsl block ranks native 2.10 first; --wsl takes the WSL 2 plan, and
    # the route then needs the block (detect again).
    report = load_system_report(WITH_WSL)
    old = replace(report, wsl=None)
    rec = recommend(old, parse_wish("tensorflow", None), load_compat())
    assert rec.plan.target == "native"
    with pytest.raises(SetupRefused, match="detect again"):
        plan_wsl_setup(old, SetupRequest.checked(framework="tensorflow", name="tf"), rec)
    setup = plan_wsl_setup(
        report, SetupRequest.checked(framework="tensorflow", name="tf"), rec, distro="Ubuntu-24.04"
    )
    assert setup.plan.target == "wsl2" and setup.recommendation.alternatives[0].target == "native"


def test_made_in_the_distro_recorded_on_windows_listed_and_removed(
    tmp_path: Path, home: Path, wsl_lib: Path, uv_binary: UvBinary
):
    setup = checked(tmp_path, wsl_lib)
    events: list[Event] = []
    asked: list[str] = []

    def transport(distro: str) -> LocalDistro:
        asked.append(distro)
        return LocalDistro(home)

    result = run_wsl_setup(
        setup, events.append, threading.Event(), transport=transport, uv=lambda arch: uv_binary
    )
    assert result.status == "ok", result
    assert asked == ["Ubuntu-24.04"]
    env = home / ".local" / "share" / "gpuwizard" / "envs" / "tf"
    assert (env / "bin" / "python").exists()
    record = find_record("tf")
    assert record is not None
    assert (record.manager, record.distro, record.path, record.tool) == (
        "wsl",
        "Ubuntu-24.04",
        str(env),
        "uv",
    )
    assert record.framework_version == setup.plan.framework_version and record.id and record.wsl_home_id
    listed = {entry["name"]: entry for entry in list_environments()}
    assert listed["tf"]["manager"] == "wsl" and listed["tf"]["exists"] is None  # no VM started to look

    # A folder of the person's own beside it, and a second environment: the first removal
    # keeps the wizard's folder (another environment is in it), the last one takes it.
    mine = home / ".local" / "share" / "gpuwizard" / "envs" / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("mine", encoding="utf-8")
    second = checked(tmp_path / "second", wsl_lib, name="tf2")
    assert run_wsl_setup(
        second, events.append, threading.Event(), transport=transport, uv=lambda arch: uv_binary
    ).ok

    removed = remove_environment("tf", wsl_transport=transport)
    assert removed.record.name == "tf" and not env.exists() and find_record("tf") is None
    assert (home / ".local" / "share" / "gpuwizard" / "bin" / "uv").exists()
    removed = remove_environment("tf2", wsl_transport=transport)
    assert find_record("tf2") is None
    # The wizard's folder is kept while the person's folder is in it, and said.
    assert (mine / "notes.txt").read_text(encoding="utf-8") == "mine"
    assert removed.kept and any("gpuwizard" in line for line in removed.kept)
    with pytest.raises(EnvRemoveError):
        remove_environment("tf", wsl_transport=transport)


def test_a_refused_uv_changes_nothing_in_the_distro(tmp_path: Path, home: Path, wsl_lib: Path):
    setup = checked(tmp_path, wsl_lib)
    events: list[Event] = []

    def refused(arch: str) -> UvBinary:
        raise RuntimeError("the wheel's sha256 is not the one PyPI publishes")

    result = run_wsl_setup(setup, events.append, threading.Event(), transport=LocalDistro, uv=refused)
    assert result.status == "failed" and "sha256" in (result.error or "")
    assert events == [result]
    assert sorted(home.rglob("*")) == [home / ".local", home / ".local" / "share"]
    assert find_record("tf") is None


def test_through_wsl_exe_every_step_is_an_argument_list_into_the_distribution(
    tmp_path: Path, home: Path, wsl_lib: Path, uv_binary: UvBinary, monkeypatch: pytest.MonkeyPatch
):
    # The Windows transport itself (adapters/wsl.WslDistro) against a stand-in wsl.exe that runs
    # what follows --exec here, in $HOME (the distribution user's, here the test's).
    monkeypatch.setenv("HOME", str(home))
    wsl = stand_in_wsl(tmp_path / "bin", {})
    setup = checked(tmp_path, wsl_lib)
    result = run_wsl_setup(
        setup,
        lambda event: None,
        threading.Event(),
        transport=lambda distro: WslDistro(str(wsl.path), distro),
        uv=lambda arch: uv_binary,
    )
    assert result.status == "ok", result
    calls = wsl.calls()
    assert len(calls) >= 5
    for call in calls:
        argv = call["argv"]
        assert isinstance(argv, list)
        assert argv[:6] == ["--distribution", "Ubuntu-24.04", "--cd", "~", "--exec", DISTRO_PYTHON]
        assert call["WSL_UTF8"] == "1"
    removed = remove_environment("tf", wsl_transport=lambda distro: WslDistro(str(wsl.path), distro))
    assert removed.record.distro == "Ubuntu-24.04"
    assert not (
        home / ".local" / "share" / "gpuwizard"
    ).exists()  # the last one: the wizard's folder went too


def test_the_windows_step_is_recorded_before_it_runs_and_the_next_run_knows_it_asked():
    bare = load_system_report(WITHOUT_WSL)
    request = SetupRequest.checked(framework="tensorflow", name="tf")
    rec = recommend(bare, parse_wish("tensorflow", None), load_compat())
    _, route = wsl_route_for(bare, rec)
    assert route.state == "install_wsl"
    seen: list[tuple[str, str, object]] = []

    def run_step(step: str, distro: str) -> int:
        seen.append((step, distro, load_wsl_step()))  # the record is there while it runs
        return 0

    ran = run_windows_step(route, run_step)
    assert [(step, distro) for step, distro, _ in seen] == [("install_wsl", "Ubuntu-24.04")]
    assert seen[0][2] is not None and seen[0][2].exit_code == -1
    assert load_wsl_step() == ran and ran.exit_code == 0
    # After the restart wsl.exe still says "not installed": the next run says what it asked.
    with pytest.raises(SetupRefused, match=r"installation ran on .* restart Windows"):
        plan_wsl_setup(bare, request, rec)
    # Nothing to run for a route that is ready, or that waits on a restart.
    ready = load_system_report(WITH_WSL)
    _, ready_route = wsl_route_for(ready, recommend(ready, parse_wish("tensorflow", None), load_compat()))
    with pytest.raises(SetupRefused, match="nothing to set up"):
        run_windows_step(ready_route, run_step)
    assert len(seen) == 1


def test_a_creation_after_the_windows_step_goes_on_and_forgets_it(
    tmp_path: Path, home: Path, wsl_lib: Path, uv_binary: UvBinary
):
    save_wsl_step(WslStepRun("Ubuntu-24.04", "install_wsl", "2026-11-29T10:00:00+00:00", 0))
    setup = checked(tmp_path, wsl_lib)
    result = run_wsl_setup(
        setup,
        lambda event: None,
        threading.Event(),
        transport=lambda d: LocalDistro(home),
        uv=lambda arch: uv_binary,
    )
    assert result.ok and load_wsl_step() is None


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"virtualization": False}, "turn virtualization on in the firmware settings"),
        ({"needs_restart": True, "distros": ()}, "restart, then run `wsl --install -d Ubuntu-24.04`"),
        ({"distros": (WslDistroFacts("Debian", 1, True),)}, "Debian runs under WSL 1"),
    ],
)
def test_a_route_that_is_not_ready_is_refused_with_what_it_takes(changes: dict[str, object], said: str):
    report = load_system_report(WITH_WSL)
    assert report.wsl is not None
    report = replace(report, wsl=replace(report.wsl, **changes))
    rec = recommend(report, parse_wish("tensorflow", None), load_compat())
    with pytest.raises(SetupRefused, match=re.escape(said)):
        plan_wsl_setup(report, SetupRequest.checked(framework="tensorflow", name="tf"), rec)
