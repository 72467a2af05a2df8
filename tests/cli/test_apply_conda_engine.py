"""``gpuwizard apply``'s preview of a conda environment says which engine makes it (issue 23, point 3).

A saved Windows report without conda: the answers ask for conda, and the preview (no ``--yes``)
says py-rattler makes it, in the plan's JSON, in what changes, and in the environment stage;
nothing is changed.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from harness.entry_point import gpuwizard

NO_CONDA = Path(__file__).parents[1] / "fixtures" / "reports" / "windows-gtx1060-566.36.json"


def answers(folder: Path) -> Path:
    path = folder / "tf.toml"
    path.write_text(
        'framework = "tensorflow"\nversion = "2.10"\nmanager = "conda"\nenvironment = "tf"\n',
        encoding="utf-8",
    )
    return path


def stage(events: list[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(event for event in events if event.get("event") == "stage" and event["stage"] == name)


def test_the_preview_says_py_rattler_makes_the_conda_environment(tmp_path: Path):
    done = gpuwizard("apply", "--answers", str(answers(tmp_path)), "--json", "--system", str(NO_CONDA))
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    plan = stage(events, "plan")
    assert plan["plan"]["manager"] == "conda"
    assert plan["plan"]["conda"] == {
        "channels": ["conda-forge"],
        "packages": ["python=3.10", "cudatoolkit=11.2", "cudnn=8.1.0"],
        "engine": "rattler",
    }
    assert any(
        "made by py-rattler inside the wizard (no conda needed), with python=3.10 cudatoolkit=11.2 "
        "cudnn=8.1.0 from conda-forge" in change
        for change in plan["changes"]
    )
    assert stage(events, "environment")["tool"] == "rattler"
    assert events[-1]["status"] == "preview" and not events[-1]["changed"]
    assert not any(Path(os.environ["GPUWIZARD_HOME"]).rglob("*"))  # a preview changes nothing

    text = gpuwizard("apply", "--answers", str(answers(tmp_path)), "--system", str(NO_CONDA))
    assert text.returncode == 0, text.stderr
    assert "environment tf (planned, made by py-rattler): " in text.stdout
