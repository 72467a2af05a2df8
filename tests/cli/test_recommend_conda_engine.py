"""``gpuwizard recommend`` offers conda on every machine and says which engine makes it (issue 23, point 3).

Through the real entry point: the JSON (checked against the published schema) and the text.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema

from harness.entry_point import gpuwizard

NO_CONDA = Path(__file__).parents[1] / "fixtures" / "reports" / "windows-gtx1060-566.36.json"
SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/recommendation-1.schema.json").read_text()
)
TF_210 = ("--framework", "tensorflow", "--version", "2.10")


def recommendation(report: Path) -> dict[str, Any]:
    done = gpuwizard("recommend", *TF_210, "--system", str(report), "--json", timeout=120)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


def conda_plans(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [plan for plan in (data["plan"], *data["alternatives"]) if plan["manager"] == "conda"]


def test_windows_without_conda_lists_conda_through_py_rattler_with_its_packages():
    data = recommendation(NO_CONDA)
    assert data["plan"]["manager"] == "venv" and data["plan"]["conda"]["engine"] is None
    (conda,) = conda_plans(data)
    assert conda in data["alternatives"]
    assert conda["conda"] == {
        "channels": ["conda-forge"],
        "packages": ["python=3.10", "cudatoolkit=11.2", "cudnn=8.1.0"],
        "engine": "rattler",
    }


def test_with_conda_found_the_engine_is_conda(tmp_path: Path):
    report = json.loads(NO_CONDA.read_text(encoding="utf-8"))
    report["managers"]["conda"] = "C:\\Users\\ana\\miniforge3\\Scripts\\conda.exe"
    copy = tmp_path / "with-conda.json"
    copy.write_text(json.dumps(report), encoding="utf-8")
    data = recommendation(copy)
    plans = conda_plans(data)
    assert data["plan"]["manager"] == "conda"  # with conda here, its route comes first
    assert plans and all(plan["conda"]["engine"] == "conda" for plan in plans)


def test_the_text_names_py_rattler_and_the_packages():
    done = gpuwizard("recommend", *TF_210, "--system", str(NO_CONDA), timeout=120)
    assert done.returncode == 0, done.stderr
    alternatives = done.stdout.split("\nAlternatives\n", 1)[1].split("\n\n", 1)[0]
    line = " ".join(alternatives.split())  # wrapped to the terminal's width
    assert (
        "Python 3.10 · conda through py-rattler: python=3.10 cudatoolkit=11.2 cudnn=8.1.0 from conda-forge"
        in line
    )
