"""``verify --no-test`` reuses the recorded probe answer of an environment that provably did not change.

The cluster gate must answer within a second; the env probe's ``import torch`` alone takes 1 to
4 s. Each test here makes a real environment (``uv venv`` and an offline install of a stand-in
``torch`` that reports a ``+cu126`` build, ``builders.torch_builds``, and of a small ``extra``
distribution), runs the real verify with the real probe, and counts how often the env probe was
started (:class:`CountingRunner`). What changes the environment, the machine or the variables
must bring the probe back, and what the probe then finds is judged as before.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from builders.reports import machine
from builders.torch_builds import torch_build
from builders.wheels import build_wheel
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.health.checks import HealthReport
from gpuwizard.core.health.probe_reuse import REUSED_NOTE
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.health.good_state import load_last_good, snapshot_path
from gpuwizard.workflow.health.verify import ENV_PROBE, verify_setup
from gpuwizard.workflow.state.env_registry import EnvRecord, save_record

UV = shutil.which("uv", path=str(Path(sys.executable).parent))
NO_GPU = machine(gpus=[], driver=None)
RTX = ("NVIDIA GeForce RTX 3060", "8.6")

pytestmark = [
    pytest.mark.slow,  # real environments, real probes
    pytest.mark.skipif(UV is None, reason="uv is a project dependency"),
]


class CountingRunner(StreamingSubprocessRunner):
    """The real runner, counting the env probes it starts; ``during_probe`` runs as one starts."""

    def __init__(self, during_probe: Callable[[], None] | None = None) -> None:
        super().__init__()
        self.probes = 0
        self.during_probe = during_probe

    def stream(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        timeout: float | None = None,
        **options: Any,
    ) -> int:
        if str(ENV_PROBE) in argv:
            self.probes += 1
            if self.during_probe is not None:
                self.during_probe()
        return super().stream(argv, on_line, cancel=cancel, timeout=timeout, **options)


def uv(*args: str) -> None:
    assert UV is not None
    subprocess.run([UV, *args], check=True, capture_output=True, timeout=300)


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    torch_build(folder, "2.13.0+cu126", "12.6")
    torch_build(folder / "cpu", "2.13.0+cpu", None)
    build_wheel(folder, "extra", "1.0")
    return folder


@pytest.fixture
def env(tmp_path: Path, wheels: Path) -> EnvRecord:
    """An environment the wizard knows, with the stand-in CUDA torch and ``extra`` installed."""
    prefix = tmp_path / "lab"
    uv("venv", "--python", sys.executable, str(prefix))
    python = prefix / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
    uv("pip", "install", "--python", str(python), "--offline", "--no-index", "--find-links", str(wheels),
       "torch==2.13.0+cu126", "extra")  # fmt: skip
    record = EnvRecord(
        "lab", str(prefix), str(python), "venv", "pytorch", "2.13.0", framework_build="2.13.0+cu126"
    )
    save_record(record)
    return record


def site_packages(env: EnvRecord) -> Path:
    return next(
        path for path in (*Path(env.path).glob("lib/python*/site-packages"), Path(env.path) / "Lib" / "site-packages")
        if path.is_dir()
    )  # fmt: skip


def verify(
    runner: CountingRunner, report: SystemReport = NO_GPU, *, short_test: bool = False
) -> HealthReport:
    return verify_setup(
        detect=lambda: report,
        runner=runner,
        on_event=lambda _event: None,
        cancel=threading.Event(),
        short_test=short_test,
    )


def judged(health: HealthReport) -> dict[str, tuple[str, str | None, str | None]]:
    """Each check's status, before and after (what the notes aside, reuse must not change)."""
    return {check.check_id: (check.status, check.before, check.after) for check in health.checks}


def forget_fingerprints() -> None:
    """Take the fingerprints and recorded answers out of the last good state (what an older version wrote)."""
    data: dict[str, Any] = json.loads(snapshot_path().read_text(encoding="utf-8"))
    for entry in data["environments"]:
        del entry["probe_fingerprint"], entry["probe"]
    snapshot_path().write_text(json.dumps(data), encoding="utf-8")


def gate_after_a_recorded_verify(
    report: SystemReport = NO_GPU,
) -> dict[str, tuple[str, str | None, str | None]]:
    """Record a last good state, then verify against it probing, then with nothing changed: not probed.

    The last two compare with the same state, and must judge alike; returns that judgement.
    """
    assert verify(CountingRunner(), report).healthy
    forget_fingerprints()
    first = CountingRunner()
    probed = verify(first, report)
    assert first.probes == 1 and probed.healthy, probed
    entry = load_last_good().environment("lab")  # type: ignore[union-attr]
    assert entry is not None and entry.probe_fingerprint is not None and entry.probe is not None
    again = CountingRunner()
    reused = verify(again, report)
    assert again.probes == 0
    assert judged(reused) == judged(probed)
    return judged(probed)


def test_an_unchanged_environment_is_judged_from_the_recorded_answer_and_says_so(env: EnvRecord):
    before = gate_after_a_recorded_verify()
    # The probe's import wrote bytecode into the environment; that is no change of what is installed.
    assert any((site_packages(env) / "torch").rglob("__pycache__/*.pyc"))
    health = verify(CountingRunner())
    notes = {check.kind: check.note for check in health.checks if check.subject == "lab"}
    assert {kind: notes[kind] for kind in ("interpreter", "import", "build", "devices")} == dict.fromkeys(
        ("interpreter", "import", "build", "devices"), REUSED_NOTE
    )
    assert notes["test"] == "the short live test was not asked for"
    assert before["env:lab:build"] == ("ok", "2.13.0+cu126 (CUDA 12.6)", "2.13.0+cu126 (CUDA 12.6)")


def test_a_full_verify_always_probes(env: EnvRecord):
    gate_after_a_recorded_verify()
    full = CountingRunner()
    health = verify(full, short_test=True)  # the stand-in torch cannot train: its test breaks
    assert full.probes == 1
    assert all(check.note != REUSED_NOTE for check in health.checks)


def test_a_removed_distribution_brings_the_probe_back(env: EnvRecord):
    gate_after_a_recorded_verify()
    uv("pip", "uninstall", "--python", env.python, "extra")
    runner = CountingRunner()
    assert verify(runner).healthy
    assert runner.probes == 1


def test_a_cpu_build_swapped_in_is_probed_and_found_broken(env: EnvRecord, wheels: Path):
    gate_after_a_recorded_verify()
    uv("pip", "install", "--python", env.python, "--offline", "--no-index", "--find-links", str(wheels / "cpu"),
       "--reinstall", "torch==2.13.0+cpu")  # fmt: skip
    runner = CountingRunner()
    health = verify(runner)
    assert runner.probes == 1
    build = judged(health)["env:lab:build"]
    assert build == ("broken", "2.13.0+cu126 (CUDA 12.6)", "2.13.0+cpu (CPU)")


def test_a_file_edited_in_place_brings_the_probe_back(env: EnvRecord):
    gate_after_a_recorded_verify()
    version = site_packages(env) / "torch" / "version.py"
    # Another size too: a source of the same size and second would be read from its stale
    # bytecode by Python itself, whatever the fingerprint (PEP 552: mtime and size, in seconds).
    version.write_text(version.read_text().replace("12.6", "12.10"))
    runner = CountingRunner()
    health = verify(runner)
    assert runner.probes == 1
    assert judged(health)["env:lab:build"][2] == "2.13.0+cu126 (CUDA 12.10)"


def test_another_driver_brings_the_probe_back(env: EnvRecord):
    gate_after_a_recorded_verify(machine(gpus=[RTX], driver="560.35.03", cuda_max="12.6"))
    runner = CountingRunner()
    verify(runner, machine(gpus=[RTX], driver="565.57.01", cuda_max="12.7"))
    assert runner.probes == 1


def test_a_variable_that_picks_the_gpus_brings_the_probe_back(
    env: EnvRecord, monkeypatch: pytest.MonkeyPatch
):
    gate_after_a_recorded_verify()
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1")
    runner = CountingRunner()
    verify(runner)
    assert runner.probes == 1


def test_files_that_change_while_the_probe_runs_record_no_fingerprint(env: EnvRecord, wheels: Path):
    def install_meanwhile() -> None:
        uv("pip", "uninstall", "--python", env.python, "extra")

    first = CountingRunner(during_probe=install_meanwhile)
    assert verify(first).healthy and first.probes == 1
    entry = load_last_good().environment("lab")  # type: ignore[union-attr]
    assert entry is not None and (entry.probe_fingerprint, entry.probe) == (None, None)
    runner = CountingRunner()
    verify(runner)
    assert runner.probes == 1  # nothing vouched for: probed again, and recorded this time
    again = CountingRunner()
    verify(again)
    assert again.probes == 0


def test_a_last_good_state_without_fingerprints_still_loads_and_is_probed(env: EnvRecord):
    gate_after_a_recorded_verify()
    forget_fingerprints()  # what an older version wrote: no fingerprint, no recorded answer
    loaded = load_last_good()
    assert loaded is not None and loaded.environment("lab") is not None
    runner = CountingRunner()
    assert verify(runner).healthy
    assert runner.probes == 1


def test_a_fingerprint_without_its_answer_reuses_nothing(env: EnvRecord):
    gate_after_a_recorded_verify()
    data: dict[str, Any] = json.loads(snapshot_path().read_text(encoding="utf-8"))
    recorded: Mapping[str, Any] = data["environments"][0]
    assert recorded["probe"]["framework_version"] == "2.13.0+cu126"
    data["environments"][0]["probe"] = "not an answer"
    snapshot_path().write_text(json.dumps(data), encoding="utf-8")
    runner = CountingRunner()
    verify(runner)
    assert runner.probes == 1
