"""The GPU kind an environment was made for reaches its live test, and decides its pass.

An environment's record keeps its plan's ``device``; ``gpuwizard test --env`` tells the probe
to expect that kind (``--device``), so a ROCm environment that trains on the CPU is a failure
even on a machine without an NVIDIA GPU. Records from before the field test as before.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.livetest import verdicts
from gpuwizard.workflow.livetest.run import resolve_target
from gpuwizard.workflow.state.env_registry import EnvRecord, load_records, save_record


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUWIZARD_HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def record(name: str, device: str, python: str) -> EnvRecord:
    return EnvRecord(name, str(Path(python).parent), python, "venv", "pytorch", "2.14.1", device=device)


@pytest.mark.parametrize(
    ("device", "told"),
    [("rocm", "rocm"), ("xpu", "xpu"), ("mps", "mps"), ("cuda", "auto"), ("cpu", "auto"), ("", "auto")],
)
def test_the_record_names_the_kind_the_test_expects(
    home: Path, tmp_path: Path, device: str, told: str
) -> None:
    python = tmp_path / "env" / "bin" / "python"
    save_record(record("demo", device, str(python)))
    assert load_records()[0].device == device
    assert resolve_target("demo", None, None).device == told


def test_a_record_written_before_the_field_reads_as_unknown(home: Path) -> None:
    home.mkdir(parents=True)
    (home / "environments.json").write_text(
        '{"environments": [{"name": "old", "path": "/e", "python": "/e/bin/python", "framework": "pytorch",'
        ' "framework_version": "2.1.0"}]}',
        encoding="utf-8",
    )
    assert load_records()[0].device == ""
    assert resolve_target("old", None, None).device == "auto"


def test_training_on_the_cpu_fails_when_a_gpu_kind_was_expected() -> None:
    # A machine without an NVIDIA GPU: a CPU environment passes on the CPU, a ROCm one does not.
    assert verdicts.passed("cpu_only", False)
    assert not verdicts.passed("cpu_only", False, gpu_expected=True)
    assert verdicts.passed("gpu_ok", False, gpu_expected=True)
