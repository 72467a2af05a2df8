"""Conda on every machine (issue 23, point 3): each conda plan names the engine that makes it.

conda, mamba or micromamba when the report found one (in that order), else py-rattler inside
the wizard; the plan's lines, steps and changes say which, with the packages. The real
recommender over saved reports; a report's managers are changed with ``dataclasses.replace``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gpuwizard.core.compat.plan import Recommendation, parse_wish, plan_to_json
from gpuwizard.core.compat.presentation import install_commands, plan_line, plan_view
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.shell_commands import command_host
from gpuwizard.core.envs.changes import plan_changes
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.conda_engines import conda_engine
from gpuwizard.core.machine.system_report import ManagerFacts, SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.machine.system_file import load_system_report

ROOT = Path(__file__).parents[3]
NO_CONDA = ROOT / "tests" / "fixtures" / "reports" / "windows-gtx1060-566.36.json"
ENVS = "/home/ana/.local/share/gpuwizard/envs"
TF_210_CONDA = ("python=3.10", "cudatoolkit=11.2", "cudnn=8.1.0")


def windows_gtx1060(**managers: str) -> SystemReport:
    """The Windows GTX 1060 machine with only the driver, with ``managers`` found (none by default)."""
    report = load_system_report(NO_CONDA)
    return replace(report, managers=ManagerFacts(uv=report.managers.uv, **managers))


def advise(
    report: SystemReport, framework: str, version: str | None = None, manager: str | None = None
) -> Recommendation:
    return recommend(report, parse_wish(framework, version, manager=manager), load_compat())


def conda_plans(rec: Recommendation) -> list:
    return [plan for plan in (rec.plan, *rec.alternatives) if plan.manager == "conda"]


@pytest.mark.parametrize(
    ("managers", "engine"),
    [
        ({}, "rattler"),
        ({"micromamba": "/usr/bin/micromamba"}, "micromamba"),
        ({"mamba": "/opt/m/bin/mamba", "micromamba": "/usr/bin/micromamba"}, "mamba"),
        ({"conda": "/opt/c/bin/conda", "mamba": "/opt/c/bin/mamba"}, "conda"),
    ],
)
def test_the_engine_is_the_first_tool_found_else_py_rattler(managers: dict[str, str], engine: str):
    assert conda_engine(ManagerFacts(uv="/usr/bin/uv", **managers)) == engine
    rec = advise(windows_gtx1060(**managers), "tensorflow", "2.10")
    plans = conda_plans(rec)
    assert plans and all(plan.conda_engine == engine for plan in plans)
    # A venv plan has no conda engine.
    assert all(plan.conda_engine is None for plan in (rec.plan, *rec.alternatives) if plan.manager == "venv")


def test_windows_without_conda_offers_conda_through_py_rattler_with_its_packages():
    # The acceptance: Windows + no conda + TensorFlow 2.10 lists conda (through py-rattler) as an
    # alternative, with the packages it would install.
    rec = advise(windows_gtx1060(), "tensorflow", "2.10")
    assert rec.plan.manager == "venv"  # NVIDIA's wheels in a venv stay first without conda
    (conda,) = [plan for plan in rec.alternatives if plan.manager == "conda"]
    assert plan_to_json(conda)["conda"] == {
        "channels": ["conda-forge"],
        "packages": list(TF_210_CONDA),
        "engine": "rattler",
    }
    assert plan_line(conda) == (
        "TensorFlow 2.10.1 · CUDA 11.2, cuDNN 8.1 · Python 3.10 · conda through py-rattler: "
        "python=3.10 cudatoolkit=11.2 cudnn=8.1.0 from conda-forge"
    )


def test_the_tensorflow_route_order_still_follows_an_installed_conda():
    # has_conda keeps its meaning: with conda installed, the conda route comes first.
    assert (
        advise(windows_gtx1060(conda="C:\\miniforge3\\Scripts\\conda.exe"), "tensorflow", "2.10").plan.manager
        == "conda"
    )
    assert advise(windows_gtx1060(), "tensorflow", "2.10").plan.manager == "venv"


def test_a_py_rattler_plan_says_who_makes_it_and_how_to_by_hand():
    rec = advise(windows_gtx1060(), "tensorflow", "2.10", manager="conda")
    plan = rec.plan
    assert plan.conda_engine == "rattler"
    view = plan_view(rec, gpu_present=True)
    assert view.manager == "conda environment, made by py-rattler inside the wizard (no conda needed)"
    assert view.conda_command == "python=3.10 cudatoolkit=11.2 cudnn=8.1.0 from conda-forge"
    commands = install_commands(plan, host=command_host(windows_gtx1060(), plan))
    assert commands[0].startswith(
        "the wizard makes the conda environment ENV itself with py-rattler (no conda needed)"
    )
    assert commands[0].endswith("conda create -n ENV -c conda-forge python=3.10 cudatoolkit=11.2 cudnn=8.1.0")
    # The Windows scripts only: cmd's and PowerShell's, not bash's.
    assert "without conda: ENV\\Scripts\\activate.bat" in commands[1] and "Activate.ps1" in commands[1]
    assert "source " not in commands[1] and "bin/activate" not in commands[1]
    assert commands[2] == 'pip install tensorflow==2.10.1 "numpy<1.24"'


def test_a_found_tool_is_named_in_the_commands():
    rec = advise(windows_gtx1060(mamba="C:\\mf\\Scripts\\mamba.exe"), "tensorflow", "2.10", manager="conda")
    assert plan_view(rec, gpu_present=True).manager == "conda environment, made by mamba"
    assert install_commands(rec.plan, host=command_host(windows_gtx1060(), rec.plan))[:2] == [
        "mamba create -n ENV -c conda-forge python=3.10 cudatoolkit=11.2 cudnn=8.1.0",
        "mamba activate ENV",
    ]


def test_pytorch_with_conda_names_its_engine_too():
    rec = advise(windows_gtx1060(), "pytorch", manager="conda")
    assert rec.plan.manager == "conda" and rec.plan.conda_engine == "rattler"
    assert plan_to_json(rec.plan)["conda"]["engine"] == "rattler"
    assert f"conda through py-rattler: python={rec.plan.python} from conda-forge" in plan_line(rec.plan)


def test_what_changes_says_the_engine_and_where_the_environment_goes():
    rec = advise(windows_gtx1060(), "tensorflow", "2.10", manager="conda")
    request = SetupRequest("tensorflow", manager="conda", name="tf")
    change = plan_changes(rec, request, envs_folder=ENVS)[0]
    assert str(change.text) == (
        f"A new conda environment in {Path(ENVS) / 'tf'}, made by py-rattler inside the wizard (no conda "
        "needed), with python=3.10 cudatoolkit=11.2 cudnn=8.1.0 from conda-forge, then tensorflow==2.10.1, "
        "numpy<1.24 from pip."
    )
    assert change.code == ("folder", "conda_packages", "channels", "packages")
    # A saved report (apply --system) is another machine's: its folder is said relative to its home.
    preview = plan_changes(rec, request, envs_folder=ENVS, preview=True)[1]
    assert str(preview.text).startswith("A new conda environment in envs/tf, made by py-rattler")
    # A tool asked for makes it, whatever the plan's engine.
    asked = plan_changes(rec, replace(request, tool="micromamba"), envs_folder=ENVS)[0]
    assert str(asked.text).startswith(
        "A new conda environment tf (in micromamba's environments folder), made by micromamba, with "
    )
