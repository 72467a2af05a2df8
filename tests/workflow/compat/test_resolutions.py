"""Issue 36: pip's answer of the day for a plan's range pins, asked, kept, and planned with.

Real pip resolves from a local folder of wheels built here (a ``tensorflow`` 2.21.0 stand-in
whose ``and-cuda`` extra asks ``nvidia-cudnn-cu12>=9.3.0.75,<10``, and two cuDNN releases); pip
reads its own settings (``PIP_NO_INDEX``, ``PIP_FIND_LINKS``), as for the person's mirrors.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.reports import machine
from builders.wheels import build_wheel
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.workflow.compat.data import load_bundled
from gpuwizard.workflow.compat.resolutions import plan_resolutions
from gpuwizard.workflow.state.resolution_cache import cache_path

COMPAT = load_bundled()
PASCAL = machine(os="linux", gpus=[("NVIDIA GeForce GTX 1080 Ti", "6.1")], driver="580.95.05", python="3.12")
TODAY = "2026-11-29"


def wheel_folder(tmp_path: Path, *cudnn: str) -> Path:
    folder = tmp_path / "wheels"
    build_wheel(
        folder,
        "tensorflow",
        "2.21.0",
        requires=['nvidia-cudnn-cu12<10.0,>=9.3.0.75; extra == "and-cuda"'],
        extras=["and-cuda"],
    )
    for version in cudnn:
        build_wheel(folder, "nvidia_cudnn_cu12", version)
    return folder


@pytest.fixture
def pip_from(monkeypatch: pytest.MonkeyPatch):
    def use(folder: Path) -> None:
        monkeypatch.setenv("PIP_NO_INDEX", "1")
        monkeypatch.setenv("PIP_FIND_LINKS", str(folder))

    return use


@pytest.mark.slow
def test_pips_answer_is_asked_kept_for_the_day_and_planned_with(tmp_path: Path, pip_from):
    pip_from(wheel_folder(tmp_path, "9.10.2.21", "9.28.0.42"))
    plan = recommend(PASCAL, parse_wish("tensorflow"), COMPAT).plan
    assert plan.framework_version == "2.21.0" and plan.library_pins == ("nvidia-cudnn-cu12<9.11",)

    # Not allowed to ask: nothing kept yet, so the data's resolution stands.
    assert plan_resolutions(plan, ask=False, today=TODAY) == (None, [])
    asked, notes = plan_resolutions(plan, ask=True, runner=SubprocessRunner(), today=TODAY)
    assert notes == [] and asked == {"2.21.0": {"nvidia-cudnn-cu12": ("9.28.0.42", TODAY, "pip")}}
    assert cache_path().is_file()
    # Kept for the day: asked again without pip, the answer comes from the cache ...
    kept, _ = plan_resolutions(plan, ask=False, today=TODAY)
    assert kept == {"2.21.0": {"nvidia-cudnn-cu12": ("9.28.0.42", TODAY, "cache")}}
    # ... and not the next day.
    assert plan_resolutions(plan, ask=False, today="2026-11-30") == (None, [])

    replanned = recommend(PASCAL, parse_wish("tensorflow"), COMPAT, resolutions=kept).plan
    [cudnn] = [library for library in replanned.resolved if library.library == "cudnn"]
    assert (cudnn.version, cudnn.source, cudnn.pin) == ("9.28.0.42", "cache", "<9.11")
    assert any("today (2026-11-29)" in reason for reason in replanned.reasons)


@pytest.mark.slow
def test_a_day_whose_newest_release_keeps_the_gpu_needs_no_pin(tmp_path: Path, pip_from):
    pip_from(wheel_folder(tmp_path, "9.5.1.17", "9.10.2.21"))
    plan = recommend(PASCAL, parse_wish("tensorflow"), COMPAT).plan
    asked, _ = plan_resolutions(plan, ask=True, runner=SubprocessRunner(), today=TODAY)
    assert asked == {"2.21.0": {"nvidia-cudnn-cu12": ("9.10.2.21", TODAY, "pip")}}
    replanned = recommend(PASCAL, parse_wish("tensorflow"), COMPAT, resolutions=asked).plan
    assert replanned.library_pins == () and replanned.requirements == ("tensorflow[and-cuda]==2.21.0",)


@pytest.mark.slow
def test_pip_failing_is_a_note_and_the_datas_resolution_stands(tmp_path: Path, pip_from):
    pip_from(wheel_folder(tmp_path))  # no cuDNN at all: unsatisfiable
    plan = recommend(PASCAL, parse_wish("tensorflow"), COMPAT).plan
    asked, notes = plan_resolutions(plan, ask=True, runner=SubprocessRunner(), today=TODAY)
    assert asked is None and len(notes) == 1
    assert notes[0].startswith("Could not ask pip what tensorflow[and-cuda]==2.21.0 installs today")
    assert "nvidia-cudnn-cu12" in notes[0]
    assert not cache_path().exists()


def test_a_plan_without_ranges_asks_nothing(tmp_path: Path):
    plan = recommend(PASCAL, parse_wish("pytorch"), COMPAT).plan
    assert plan.resolved == ()
    assert plan_resolutions(plan, ask=True, today=TODAY) == (None, [])
    assert not cache_path().exists()
