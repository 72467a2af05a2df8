"""``gpuwizard test --env NAME`` for an environment inside WSL 2 (issue 39, point 3).

The environment is made in a local "distribution" (``LocalDistro``: the argv the Windows side
sends, run here with a home of the test's) with the real CPU torch wheel, recorded as the
Windows side records it (``manager: wsl``), and tested through the same ``run_live_test`` as any
environment, its probe sent into the distribution by :class:`DistroProbeRunner`: the real probe
trains on the CPU there, its events come back, and the verdict is judged here.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import threading
from pathlib import Path

import pytest

from builders.uv_wheels import uv_wheel
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.envs.uv_wheel import uv_from_wheel
from gpuwizard.core.envs.wsl_steps import DISTRO_PYTHON, WslEnvRequest
from gpuwizard.core.events import Event
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.workflow.envs.wsl_create import LocalDistro, create_wsl_environment, read_payloads
from gpuwizard.workflow.health.verify import verify_setup
from gpuwizard.workflow.livetest.in_wsl import DistroProbeRunner
from gpuwizard.workflow.livetest.run import resolve_target, run_live_test
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.state.env_registry import EnvRecord, save_record

pytestmark = pytest.mark.slow

UV = shutil.which("uv", path=str(Path(sys.executable).parent))
DISTRO = DISTRO_PYTHON if Path(DISTRO_PYTHON).is_file() else sys.executable
PYTHON = f"{sys.version_info.major}.{sys.version_info.minor}"
NO_GPU = Path(__file__).parents[3] / "resources" / "samples" / "no-gpu.json"


def health_tests(events: list[Event]) -> set[str]:
    """The environments whose short live test sent events (verify wraps them with the env's name)."""
    return {getattr(event, "env", None) for event in events if getattr(event, "source", None) == "test"} - {
        None
    }


def test_the_live_test_of_a_wsl_environment_runs_in_its_distribution(tmp_path: Path, torch_folder: Path):
    if UV is None:
        pytest.skip("uv is a project dependency; not installed here")
    home = tmp_path / "home" / "zoe"
    (home / ".local" / "share").mkdir(parents=True)
    wsl_lib = tmp_path / "usr" / "lib" / "wsl" / "lib"
    wsl_lib.mkdir(parents=True)
    (wsl_lib / "libcuda.so.1").write_bytes(b"")
    wheel = uv_wheel(Path(UV).read_bytes(), stored=True)
    sent = read_payloads(uv_from_wheel(wheel, hashlib.sha256(wheel).hexdigest()))
    request = WslEnvRequest(
        name="torch",
        framework="pytorch",
        framework_version="2.13.0",
        python=PYTHON,
        requirements=("torch==2.13.0",),
        find_links=str(torch_folder),
        offline=True,
        distro="Ubuntu-24.04",
        distro_python=DISTRO,
        wsl_lib=str(wsl_lib),
    )
    creation = create_wsl_environment(request, sent, LocalDistro(home), lambda event: None, threading.Event())
    assert creation.ok and creation.home is not None, creation.result
    save_record(
        EnvRecord(
            name="torch",
            path=creation.home.env_path("torch"),
            python=creation.home.env_python("torch"),
            manager="wsl",
            framework="pytorch",
            framework_version="2.13.0",
            id=creation.env_id,
            device="cuda",
            distro="Ubuntu-24.04",
            wsl_home=creation.home.path,
            wsl_home_id=creation.home.home_id,
        )
    )
    target = resolve_target("torch", None, None)
    assert (target.distro, target.wsl_home) == ("Ubuntu-24.04", creation.home.path)
    events: list[Event] = []
    result = run_live_test(
        target,
        runner=DistroProbeRunner(LocalDistro(home), python=target.python, wsl_home=target.wsl_home),
        on_event=events.append,
        cancel=threading.Event(),
        machine_has_nvidia_gpu=False,
        in_distro=True,
    )
    # The real probe trained on the CPU inside: no GPU here, so the verdict says CPU only.
    assert isinstance(result, LiveTestResult) and events[-1] == result
    assert result.verdict == "cpu_only", result
    kinds = [event.KIND for event in events]
    assert kinds[0] == "prepare" and "summary" in kinds

    # verify probes it there too: the interpreter and the import inside the distribution, the
    # short live test run there; nothing is called broken for living in WSL.
    verify_events: list[Event] = []
    health = verify_setup(
        detect=lambda: load_system_report(NO_GPU),
        runner=StreamingSubprocessRunner(),
        on_event=verify_events.append,
        cancel=threading.Event(),
        short_test=True,
        wsl_transport=lambda distro: LocalDistro(home),
    )
    torch_checks = {c.kind: c.status for c in health.checks if c.subject == "torch"}
    assert torch_checks and "broken" not in torch_checks.values(), health.checks
    assert torch_checks.get("interpreter") == "ok" and torch_checks.get("import") == "ok"
    assert "torch" in health_tests(verify_events)


def test_a_wsl_environment_needs_its_distribution_folder_to_be_tested():
    save_record(EnvRecord(name="old", path="/home/zoe/envs/old", python="/home/zoe/envs/old/bin/python",
                          manager="wsl", framework="tensorflow", framework_version="2.21.0", distro="Ubuntu"))  # fmt: skip
    target = resolve_target("old", None, None)
    with pytest.raises(ValueError, match="wizard's folder"):
        DistroProbeRunner(LocalDistro(Path("/nonexistent")), python=target.python, wsl_home=target.wsl_home)
