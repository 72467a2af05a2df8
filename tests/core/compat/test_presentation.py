"""A plan as people read it, from the real recommender on saved system reports.

Versions that the bundled tables move forward (the newest PyTorch, its CUDA) are read from the
plan; what history fixes (TensorFlow 2.10 on Windows: CUDA 11.2, cuDNN 8.1) is written out.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from gpuwizard.core.compat import presentation
from gpuwizard.core.compat.plan import Recommendation, parse_wish
from gpuwizard.core.compat.presentation import (
    cuda_text,
    driver_minimum,
    driver_text,
    headline,
    install_commands,
    plan_line,
    plan_view,
)
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.shell_commands import command_host
from gpuwizard.core.envs import changes as changes_module
from gpuwizard.core.envs import package_sources as sources_module
from gpuwizard.core.envs.changes import Change, plan_changes
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.core.texts import TranslatableText
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.machine.system_file import load_system_report

ROOT = Path(__file__).parents[3]
REPORTS = sorted((ROOT / "resources" / "samples").glob("*.json")) + sorted(
    (ROOT / "tests" / "fixtures" / "reports").glob("*.json")
)
ENVS = "/home/ana/.local/share/gpuwizard/envs"
NOTHING_ELSE = (
    "Nothing else: PATH, drivers and system files stay as they are. No administrator rights are needed."
)
NOTHING_ELSE_BUT_PATH = (
    "Nothing else: drivers and system files stay as they are. No administrator rights are needed."
)
IN_THE_ENVIRONMENT = "(comes inside the environment: no CUDA toolkit needed)"
ON_THE_SYSTEM = "(must be installed on the system: the wizard does not install it)"
# TensorFlow 2.10 on native Windows in a venv: the system's CUDA 11.2 and cuDNN 8.1, on PATH.
TF_210_PATH = (
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin",
    "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\libnvvp",
    "C:\\tools\\cuda\\bin",
)


@cache
def saved(name: str) -> SystemReport:
    """A saved report of resources/samples or tests/fixtures/reports, by file name."""
    return load_system_report(next(path for path in REPORTS if path.name == name))


def advise(
    report: str | SystemReport,
    framework: str,
    version: str | None = None,
    python: str | None = None,
    manager: str | None = None,
) -> Recommendation:
    machine = saved(report) if isinstance(report, str) else report
    return recommend(machine, parse_wish(framework, version, python, manager), load_compat())


def gpu_present(report: str | SystemReport) -> bool:
    """As the Choose page, recommend and apply tell it: a GPU frameworks train on is in the report."""
    return bool((saved(report) if isinstance(report, str) else report).compute_gpus)


def too_old_gpu() -> SystemReport:
    """The K80 machine with Kepler GPUs of compute capability 3.0 (a GTX 680's): no build serves them."""
    k80 = saved("linux-k80-470.256.02.json")
    return replace(
        k80,
        gpus=tuple(replace(gpu, name="NVIDIA GeForce GTX 680", compute_capability="3.0") for gpu in k80.gpus),
    )


def old_driver() -> SystemReport:
    """The H200 machine on driver 440.33 (CUDA 10.2): too old for any build that serves an H200."""
    h200 = saved("linux-h200.json")
    assert h200.driver is not None
    return replace(h200, driver=replace(h200.driver, version="440.33", cuda_max="10.2"))


def changes(rec: Recommendation, *, preview: bool = False, **request: Any) -> tuple[Change, ...]:
    """What carrying ``rec`` out changes, for a request of its framework with ``request``'s options."""
    return plan_changes(rec, SetupRequest(rec.plan.framework, **request), envs_folder=ENVS, preview=preview)


def texts(lines: tuple[Change, ...]) -> list[str]:
    return [str(line.text) for line in lines]


def test_the_saved_reports_are_all_there():
    assert {path.name for path in REPORTS} >= {
        "linux-h200.json",
        "no-gpu.json",
        "linux-gtx970-nouveau.json",
        "windows-rtx2080super-two-cuda.json",
        "linux-k80-470.256.02.json",
        "wsl2-rtx4070-laptop.json",
    }


# --- the headline ------------------------------------------------------------------------------


def test_headline_a_gpu_machine_as_it_is():
    rec = advise("linux-h200.json", "pytorch")
    assert (
        headline(rec, gpu_present=True) == "GPU training with PyTorch is possible on this machine as it is."
    )
    assert plan_view(rec, gpu_present=True).headline == headline(rec, gpu_present=True)


def test_headline_a_machine_without_a_gpu():
    rec = advise("no-gpu.json", "tensorflow")
    assert gpu_present("no-gpu.json") is False
    assert (
        headline(rec, gpu_present=False)
        == "No NVIDIA GPU here: TensorFlow will train on the CPU (slower, but it works)."
    )


def test_headline_a_driver_update_first():
    rec = advise("linux-gtx970-nouveau.json", "pytorch")
    assert rec.plan.driver_update_required
    assert (
        headline(rec, gpu_present=gpu_present("linux-gtx970-nouveau.json"))
        == "GPU training with PyTorch is possible after a driver update."
    )
    assert headline(advise(old_driver(), "pytorch"), gpu_present=True) == (
        "GPU training with PyTorch is possible after a driver update."
    )


def test_headline_a_wsl2_plan():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.15")
    assert rec.plan.target == "wsl2"
    assert (
        headline(rec, gpu_present=True)
        == "GPU training with TensorFlow is possible inside WSL 2 (Linux on this Windows)."
    )


def test_headline_a_cpu_only_plan_on_a_gpu_machine():
    machine = too_old_gpu()
    rec = advise(machine, "pytorch")
    assert rec.plan.cpu_only
    assert gpu_present(machine) is True
    assert headline(rec, gpu_present=gpu_present(machine)) == (
        "PyTorch will train on the CPU only: the GPU cannot be used (the reasons are below)."
    )


def test_headline_another_plan_than_the_one_picked():
    rec = advise("linux-k80-470.256.02.json", "pytorch", "2.13")
    assert rec.gpu_supported and not rec.some_release_gpu_supported
    assert rec.plan.framework_version != "2.13.0"
    assert headline(rec, gpu_present=True) == (
        "GPU training with PyTorch is possible with the plan below, not with exactly what you picked."
    )


# --- CUDA and the driver -------------------------------------------------------------------------


def test_cuda_brought_by_the_build():
    plan = advise("linux-h200.json", "pytorch").plan
    assert plan.cuda and plan.cudnn
    assert cuda_text(plan) == f"CUDA {plan.cuda}, cuDNN {plan.cudnn} {IN_THE_ENVIRONMENT}"
    assert cuda_text(plan, short=True) == f"CUDA {plan.cuda}, cuDNN {plan.cudnn}"


def test_cuda_from_the_system_toolkit():
    plan = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10", manager="venv").plan
    assert plan.system_cuda_toolkit_required
    assert cuda_text(plan) == f"CUDA 11.2, cuDNN 8.1 {ON_THE_SYSTEM}"
    assert cuda_text(plan, short=True) == "CUDA 11.2, cuDNN 8.1"


def test_cuda_brought_by_conda():
    plan = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10").plan
    assert plan.manager == "conda"
    assert cuda_text(plan) == f"CUDA 11.2, cuDNN 8.1 {IN_THE_ENVIRONMENT}"


def test_cuda_without_a_cudnn_says_only_cuda():
    plan = replace(advise("linux-h200.json", "pytorch").plan, cudnn=None)
    assert cuda_text(plan, short=True) == f"CUDA {plan.cuda}"
    assert cuda_text(plan) == f"CUDA {plan.cuda} {IN_THE_ENVIRONMENT}"


def test_cuda_of_a_cpu_build():
    plan = advise("no-gpu.json", "pytorch").plan
    assert cuda_text(plan) == "CPU build: no CUDA, runs on the processor"
    assert cuda_text(plan, short=True) == "CPU build"
    assert cuda_text(advise(too_old_gpu(), "tensorflow").plan, short=True) == "CPU build"


def test_driver_fine():
    rec = advise("linux-h200.json", "pytorch")
    assert rec.plan.min_driver is not None
    minimum = rec.plan.min_driver["linux"]
    assert driver_minimum(rec) == minimum
    assert driver_text(rec) == f"{minimum} or newer; you have 610.43.02 (fine)"


def test_driver_fine_on_windows_reads_the_windows_minimum():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10", manager="venv")
    assert driver_minimum(rec) == "452.39"
    assert driver_text(rec) == "452.39 or newer; you have 610.62 (fine)"


def test_driver_of_a_wsl2_plan_is_the_windows_one():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.15")
    assert rec.plan.min_driver is not None
    assert driver_minimum(rec) == rec.plan.min_driver["windows"]
    assert driver_text(rec) == f"{rec.plan.min_driver['windows']} or newer; you have 610.62 (fine)"


def test_driver_inside_wsl2_is_the_windows_one():
    rec = advise("wsl2-rtx4070-laptop.json", "pytorch")
    assert rec.plan.min_driver is not None
    assert driver_minimum(rec) == rec.plan.min_driver["windows"]
    assert driver_text(rec) == f"{rec.plan.min_driver['windows']} or newer; you have 566.36 (fine)"


def test_driver_to_update():
    rec = advise(old_driver(), "pytorch")
    assert rec.plan.driver_update_required
    minimum = driver_minimum(rec)
    assert minimum is not None
    assert driver_text(rec) == f"{minimum} or newer; you have 440.33: update it first"


def test_no_driver_answers():
    rec = advise("linux-gtx970-nouveau.json", "pytorch")
    minimum = driver_minimum(rec)
    assert minimum is not None
    assert driver_text(rec) == f"{minimum} or newer; no NVIDIA driver answers now"


def test_no_driver_line_for_a_cpu_build():
    for rec in (advise("no-gpu.json", "pytorch"), advise(too_old_gpu(), "pytorch")):
        assert driver_minimum(rec) is None
        assert driver_text(rec) is None
        assert plan_view(rec, gpu_present=True).driver is None


# --- the plan's lines ---------------------------------------------------------------------------------


def test_the_view_of_a_venv_wheel_plan():
    rec = advise("linux-h200.json", "pytorch", "2.14")  # cu132: from the PyTorch index in 2.14
    plan = rec.plan
    assert plan.index_url
    view = plan_view(rec, gpu_present=True)
    assert view.framework == f"PyTorch {plan.framework_version} (wheel {plan.torch_variant})"
    assert view.python == plan.python
    assert view.manager == "venv (Python virtual environment)"
    assert view.conda_command is None
    assert view.pip_command == f"pip install {' '.join(plan.requirements)}\n    --index-url {plan.index_url}"
    assert view.alternatives == tuple(plan_line(alternative) for alternative in rec.alternatives)


def test_a_cpu_wheel_is_named_in_words_not_by_its_tag():
    rec = advise("no-gpu.json", "pytorch", "2.13")
    assert rec.plan.torch_variant == "cpu"
    framework = plan_view(rec, gpu_present=False).framework
    assert framework == f"PyTorch {rec.plan.framework_version} (CPU-only build)"
    assert "(CPU-only build)" in [
        part.template for part in framework.params.values() if hasattr(part, "template")
    ]


def test_the_view_of_a_conda_plan():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10")
    view = plan_view(rec, gpu_present=True)
    assert view.framework == "TensorFlow 2.10.1"
    assert view.manager == "conda environment, made by conda"  # conda is installed there
    assert view.conda_command == "conda create -c conda-forge python=3.10 cudatoolkit=11.2 cudnn=8.1.0"
    # TensorFlow 2.10 was built against NumPy 1; the pin is quoted so no shell reads a redirection.
    assert view.pip_command == 'pip install tensorflow==2.10.1 "numpy<1.24"'


def test_the_view_of_a_wsl2_plan():
    view = plan_view(advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.15"), gpu_present=True)
    assert view.manager == "venv (Python virtual environment) inside WSL 2"
    assert view.manager.params["environment"] == "venv (Python virtual environment)"


def test_reasons_said_once_for_identical_gpus():
    rec = advise("linux-4xa100-one-lost.json", "pytorch")
    assert len(set(rec.plan.reasons)) < len(rec.plan.reasons)
    reasons = plan_view(rec, gpu_present=True).reasons
    assert reasons == tuple(dict.fromkeys((*rec.plan.reasons, *rec.notes)))
    assert len(set(reasons)) == len(reasons)


def test_plan_line():
    plans = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10", manager="venv").alternatives
    wsl = next(plan for plan in plans if plan.target == "wsl2")
    assert plan_line(wsl) == (
        f"TensorFlow {wsl.framework_version} · {cuda_text(wsl, short=True)} · Python {wsl.python} · venv"
        " · CUDA installed on the system · inside WSL 2"
    )
    update = advise("linux-gtx970-nouveau.json", "pytorch").plan
    assert plan_line(update).endswith(" · venv · needs a driver update")


def test_install_commands_of_the_windows_tensorflow_210_venv_plan():
    machine = saved("windows-rtx2080super-two-cuda.json")
    plan = advise(machine, "tensorflow", "2.10", manager="venv").plan
    assert install_commands(plan, host=command_host(machine, plan)) == [
        "install CUDA 11.2 and cuDNN 8.1 on the system",
        *(f"add to PATH: {entry}" for entry in TF_210_PATH),
        "py -3.10 -m venv ENV",  # no uv on this machine: none offered
        "ENV\\Scripts\\activate.bat   (cmd; in PowerShell: ENV\\Scripts\\Activate.ps1)",
        'pip install tensorflow==2.10.1 "numpy<1.24"',
    ]


def test_install_commands_of_the_windows_tensorflow_210_plan_with_nvidia_wheels():
    # Only the driver on this machine: CUDA and cuDNN come as NVIDIA's wheels, and the last step
    # says what the environment's start-up hook does, for people who do it by hand.
    machine = replace(saved("windows-rtx2080super-two-cuda.json"), cuda_toolkits=(), cudnn=())
    plan = advise(machine, "tensorflow", "2.10", manager="venv").plan
    assert plan.cuda_wheels is not None and not plan.system_cuda_toolkit_required
    commands = install_commands(plan, host=command_host(machine, plan))
    assert commands[:2] == [
        "py -3.10 -m venv ENV",
        "ENV\\Scripts\\activate.bat   (cmd; in PowerShell: ENV\\Scripts\\Activate.ps1)",
    ]
    assert commands[2] == (
        'pip install tensorflow==2.10.1 "numpy<1.24" ' + " ".join(plan.cuda_wheels.packages)
    )
    assert "nvidia\\*\\bin" in commands[3] and "PATH" in commands[3]
    assert len(commands) == 4  # no toolkit to install, nothing added to PATH by the wizard
    assert "NVIDIA's CUDA 11.8 and cuDNN 8.9 wheels" in cuda_text(plan)
    assert " · CUDA from NVIDIA's wheels" in plan_line(plan)


# --- what carrying the plan out changes ----------------------------------------------------------


def test_changes_of_a_venv_plan():
    rec = advise("linux-h200.json", "pytorch")
    plan = rec.plan
    lines = changes(rec, name="torch")
    assert texts(lines) == [
        f"A new folder {Path(ENVS) / 'torch'} holding a Python {plan.python} environment with "
        f"{', '.join(plan.requirements)}.",
        NOTHING_ELSE,
    ]
    assert lines[0].code == ("folder", "packages")
    assert lines[0].text.params["folder"] == str(Path(ENVS) / "torch")
    assert not any(line.strong for line in lines)


def test_changes_of_a_venv_plan_in_a_folder_of_its_own():
    lines = changes(advise("linux-h200.json", "pytorch"), name="torch", prefix=Path("/data/envs/torch"))
    assert lines[0].text.params["folder"] == str(Path("/data/envs/torch"))
    assert texts(lines)[0].startswith(f"A new folder {Path('/data/envs/torch')} holding a Python ")


def test_changes_of_a_conda_plan():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10")
    lines = changes(rec, name="tf", manager="conda")
    assert texts(lines) == [
        "A new conda environment tf (in conda's environments folder), made by conda, with python=3.10 "
        "cudatoolkit=11.2 cudnn=8.1.0, then tensorflow==2.10.1, numpy<1.24 from pip.",
        "Settings that apply only while the environment is active: TF_FORCE_GPU_ALLOW_GROWTH=true, "
        "TF_CPP_MIN_LOG_LEVEL=1.",
        NOTHING_ELSE,
    ]
    assert lines[0].code == ("name", "conda_packages", "packages")
    assert lines[1].code == ("settings",)


def test_changes_of_the_windows_tensorflow_210_venv_plan():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10", manager="venv")
    assert rec.plan.path_entries == TF_210_PATH
    lines = changes(rec, name="tf")
    assert texts(lines) == [
        f"A new folder {Path(ENVS) / 'tf'} holding a Python 3.10 environment with tensorflow==2.10.1, numpy<1.24.",
        "Settings that apply only while the environment is active: TF_FORCE_GPU_ALLOW_GROWTH=true, "
        "TF_CPP_MIN_LOG_LEVEL=1.",
        "Your user PATH gets these folders (the next page shows the change first, and it can be undone):",
        "You install yourself, the wizard does not: CUDA 11.2 and cuDNN 8.1 from NVIDIA.",
        NOTHING_ELSE_BUT_PATH,
    ]
    path_line = lines[2]
    assert path_line.items == TF_210_PATH
    assert path_line.plain() == "".join([str(path_line.text), *(f"\n    {entry}" for entry in TF_210_PATH)])
    assert all(not line.items for line in lines if line is not path_line)


def test_changes_of_the_windows_tensorflow_210_plan_with_nvidia_wheels():
    rec = advise("windows-gtx1060-566.36.json", "tensorflow")
    assert rec.plan.cuda_wheels is not None
    lines = texts(changes(rec, name="tf"))
    assert lines[0].startswith(f"A new folder {Path(ENVS) / 'tf'} holding a Python 3.10 environment with ")
    assert "nvidia-cudnn-cu11==8.9.5.29" in lines[0]
    hook = [line for line in lines if "_gpuwizard_cuda_dlls.pth" in line]
    assert len(hook) == 1 and "the machine's PATH is not changed" in hook[0]
    assert not any(line.startswith(("You install yourself", "Your user PATH")) for line in lines)
    assert lines[-1] == NOTHING_ELSE


def test_changes_offline_from_a_folder():
    lines = changes(
        advise("linux-h200.json", "pytorch"), name="torch", offline=True, find_links=Path("/data/wheels")
    )
    offline = [line for line in lines if str(line.text).startswith("Packages come only from")]
    assert len(offline) == 1
    assert offline[0].text == f"Packages come only from {Path('/data/wheels')}; nothing is downloaded."
    assert offline[0].code == ("folder",)
    assert lines.index(offline[0]) == 1  # right after the environment


def test_changes_with_wheels_but_not_offline_say_nothing_of_them():
    lines = changes(advise("linux-h200.json", "pytorch"), name="torch", find_links=Path("/data/wheels"))
    assert not any("Packages come only from" in text for text in texts(lines))


def test_changes_of_a_replacement_come_first():
    lines = changes(advise("linux-h200.json", "pytorch"), name="torch", replace=True)
    assert texts(lines)[0] == (
        "The existing environment torch is replaced: it is moved aside, and put back if the new one fails."
    )
    assert texts(lines)[1].startswith("A new folder ")
    assert texts(changes(advise("linux-h200.json", "pytorch"), name="torch"))[0].startswith("A new folder ")


def test_changes_with_jupyter_and_chosen_gpus():
    rec = advise("linux-h200.json", "tensorflow")
    lines = changes(rec, name="tf", jupyter=True, gpus="0")
    assert texts(lines) == [
        f"A new folder {Path(ENVS) / 'tf'} holding a Python {rec.plan.python} environment with "
        f"{', '.join(rec.plan.requirements)}, ipykernel.",
        "Settings that apply only while the environment is active: TF_FORCE_GPU_ALLOW_GROWTH=true, "
        "TF_CPP_MIN_LOG_LEVEL=1, CUDA_VISIBLE_DEVICES=0.",
        "A Jupyter kernel for this environment, for your user only.",
        NOTHING_ELSE,
    ]


def test_settings_only_where_there_are_any():
    rec = advise("linux-h200.json", "pytorch")
    assert not any("Settings" in text for text in texts(changes(rec, name="torch")))
    assert texts(changes(rec, name="torch", gpus="0,1"))[1] == (
        "Settings that apply only while the environment is active: CUDA_VISIBLE_DEVICES=0,1."
    )
    # A selection the request never checked (made directly, not by checked()) adds no line.
    assert not any("Settings" in text for text in texts(changes(rec, name="torch", gpus="first")))


def test_changes_of_a_preview():
    rec = advise("linux-h200.json", "pytorch")
    lines = changes(rec, name="torch", preview=True)
    assert texts(lines) == [
        "Nothing: this is a preview; below is what it would do.",
        f"A new folder envs/torch in the wizard's home folder, holding a Python {rec.plan.python} environment "
        f"with {', '.join(rec.plan.requirements)}.",
        NOTHING_ELSE,
    ]
    assert [line.strong for line in lines] == [True, False, False]
    assert lines[1].code == ("folder", "packages")


def test_changes_of_a_conda_preview_name_the_environment_as_usual():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.10")
    assert texts(changes(rec, name="tf", preview=True))[1:] == texts(changes(rec, name="tf"))


WSL_NOTHING_IN_WINDOWS = (
    "Nothing in Windows: no PATH change, no CUDA toolkit; the Windows NVIDIA driver serves WSL 2."
)


def test_changes_of_a_wsl2_plan_are_in_the_distribution():
    rec = advise("windows-rtx2080super-two-cuda.json", "tensorflow", "2.15")
    lines = texts(changes(rec, name="tf"))
    home = "~/.local/share/gpuwizard"
    # The saved report was made before reports said what WSL there is.
    assert lines.pop(0).startswith("This report does not say what WSL there is: detect again")
    assert lines[0].startswith(f"Inside Ubuntu-24.04: a new folder {home}/envs/tf holding a Python ")
    assert "made by uv" in lines[0] and "No sudo" in lines[0]
    assert lines[1].startswith("Downloads: uv's Linux build from PyPI (checked against the digest")
    assert lines[-1] == WSL_NOTHING_IN_WINDOWS
    assert (
        texts(changes(rec, name="tf", preview=True))[0]
        == "Nothing: this is a preview; below is what it would do."
    )
    assert texts(changes(rec, name="tf", preview=True))[2:] == lines


def test_changes_of_a_wsl2_plan_say_first_what_windows_needs():
    import json

    from gpuwizard.core.compat.plan import parse_wish
    from gpuwizard.core.compat.recommend import recommend
    from gpuwizard.core.machine.system_report import report_from_json
    from gpuwizard.workflow.compat.data import load_compat

    path = Path(__file__).parents[2] / "fixtures" / "reports" / "windows-rtx4070-581.57-no-wsl.json"
    report = report_from_json(json.loads(path.read_text(encoding="utf-8")))
    rec = recommend(report, parse_wish("tensorflow", None), load_compat())
    first = changes(rec, name="tf")[0]
    assert first.strong
    assert str(first.text) == (
        "First, on Windows, you make WSL ready (the wizard does not run these): "
        "wsl --install -d Ubuntu-24.04. Then come back here."
    )


def test_you_install_the_driver_yourself():
    rec = advise("linux-gtx970-nouveau.json", "pytorch")
    minimum = driver_minimum(rec)
    assert texts(changes(rec, name="torch"))[-2:] == [
        f"You install yourself, the wizard does not: an NVIDIA driver {minimum} or newer.",
        NOTHING_ELSE,
    ]


def test_you_install_a_newer_driver_yourself_where_no_minimum_is_known():
    rec = advise("linux-gtx970-nouveau.json", "pytorch")
    unknown = replace(rec, plan=replace(rec.plan, min_driver=None))
    assert texts(changes(unknown, name="torch"))[-2] == (
        "You install yourself, the wizard does not: a newer NVIDIA driver."
    )


def test_you_install_cuda_and_cudnn_yourself():
    rec = advise("linux-k80-470.256.02.json", "tensorflow", "2.10")
    assert texts(changes(rec, name="tf"))[-2:] == [
        "You install yourself, the wizard does not: CUDA 11.2 and cuDNN 8.1 from NVIDIA.",
        NOTHING_ELSE,
    ]
    unknown = replace(rec, plan=replace(rec.plan, cudnn=None))
    assert texts(changes(unknown, name="tf"))[-2] == (
        "You install yourself, the wizard does not: CUDA 11.2 and cuDNN ? from NVIDIA."
    )


def test_nothing_to_install_yourself_for_a_plan_that_brings_everything():
    for rec in (advise("linux-h200.json", "pytorch"), advise("no-gpu.json", "pytorch")):
        assert not any(text.startswith("You install yourself") for text in texts(changes(rec, name="x")))


WISHES = [
    ("pytorch", None, None),
    ("pytorch", None, "conda"),
    ("tensorflow", None, None),
    ("tensorflow", "2.10", "venv"),
    ("tensorflow", "2.15", None),
]


@pytest.mark.parametrize("path", REPORTS, ids=lambda path: path.stem)
@pytest.mark.parametrize(("framework", "version", "manager"), WISHES)
def test_the_last_line_is_nothing_else_unless_the_plan_runs_in_wsl2(
    path: Path, framework: str, version: str | None, manager: str | None
):
    rec = advise(path.name, framework, version, manager=manager)
    lines = changes(rec, name="demo")
    if rec.plan.target == "wsl2":
        assert texts(lines)[-1] == WSL_NOTHING_IN_WINDOWS
    else:
        assert texts(lines)[-1] == (NOTHING_ELSE_BUT_PATH if rec.plan.path_entries else NOTHING_ELSE)
        assert sum(text.startswith("Nothing else:") for text in texts(lines)) == 1


def test_change_plain():
    sentence = TranslatableText("plans", "Your user PATH gets {what}:", what="these folders")
    assert Change(sentence).plain() == "Your user PATH gets these folders:"
    assert (
        Change(sentence, items=("C:\\a", "C:\\b")).plain()
        == "Your user PATH gets these folders:\n    C:\\a\n    C:\\b"
    )
    assert type(Change(sentence).plain()) is str


# --- every sentence is a marked template, filled --------------------------------------------------


def _marked_templates(module: ModuleType, context: str) -> set[str]:
    """The literal texts of ``QT_TRANSLATE_NOOP(context, "...")`` calls in ``module``'s source."""
    found = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "QT_TRANSLATE_NOOP":
            where, text = node.args
            assert isinstance(where, ast.Constant) and isinstance(text, ast.Constant)
            if where.value == context:
                found.add(text.value)
    return found


MARKED = (
    _marked_templates(presentation, "plans")
    | _marked_templates(changes_module, "plans")
    | _marked_templates(sources_module, "plans")
)


def _check_sentence(sentence: object) -> None:
    assert isinstance(sentence, TranslatableText), repr(sentence)
    assert sentence.context == "plans"
    joined = sentence.template.startswith("{part0}")  # parts in a line: only placeholders
    assert sentence.template in MARKED or joined, sentence.template
    assert sentence.template.format(**sentence.params) == sentence
    for value in sentence.params.values():
        if isinstance(value, TranslatableText):
            _check_sentence(value)


def _all_sentences() -> list[object]:
    found: list[object] = []
    machines: list[str | SystemReport] = [path.name for path in REPORTS]
    machines += [too_old_gpu(), old_driver()]
    for machine in machines:
        for framework, version, manager in WISHES:
            rec = advise(machine, framework, version, manager=manager)
            view = plan_view(rec, gpu_present=gpu_present(machine))
            found += [
                view.headline,
                view.framework,
                view.cuda,
                view.cuda_short,
                view.manager,
                *view.alternatives,
            ]
            found += [view.driver] if view.driver is not None else []
            found += [view.freshness] if view.freshness is not None else []
            found += [headline(rec, gpu_present=False)]
            # The same plan served only through PTX, and data that knows fewer releases than the index.
            if rec.plan.gpu_indices:
                found += [
                    headline(
                        replace(rec, plan=replace(rec.plan, ptx_jit=rec.plan.gpu_indices)),
                        gpu_present=True,
                    )
                ]
            fresher = replace(
                rec.freshness, data_origin="https://example.org/bundle.json", unverified=("9.9.0",)
            )
            found += [plan_view(replace(rec, freshness=fresher), gpu_present=True).freshness]
            for preview in (False, True):
                lines = changes(
                    rec,
                    preview=preview,
                    name="demo",
                    replace=True,
                    jupyter=True,
                    gpus="0",
                    offline=True,
                    find_links=Path("/data/wheels"),
                )
                found += [line.text for line in lines]
                for line in lines:
                    assert set(line.code) <= set(line.text.params)
    return found


def test_every_sentence_is_a_marked_template_filled_with_its_params():
    sentences = _all_sentences()
    assert len(sentences) > 300
    for sentence in sentences:
        _check_sentence(sentence)


def test_every_marked_template_is_said_somewhere():
    said: set[str] = set()

    def collect(sentence: object) -> None:
        if isinstance(sentence, TranslatableText):
            said.add(sentence.template)
            for value in sentence.params.values():
                collect(value)

    for sentence in _all_sentences():
        collect(sentence)
    rec = advise("linux-gtx970-nouveau.json", "pytorch")
    for change in changes(replace(rec, plan=replace(rec.plan, min_driver=None)), name="x"):
        collect(change.text)
    for plan in advise(
        "windows-rtx2080super-two-cuda.json", "tensorflow", "2.10", manager="venv"
    ).alternatives:
        collect(cuda_text(plan))
    collect(cuda_text(replace(advise("linux-h200.json", "pytorch").plan, cudnn=None)))
    # PyPI's CUDA build on a machine without a GPU (core/compat/pypi_route.py).
    on_the_cpu = replace(advise("no-gpu.json", "pytorch").plan, torch_variant="cu130", cuda="13.0")
    collect(cuda_text(on_the_cpu))
    collect(cuda_text(on_the_cpu, short=True))
    # Where the packages come from: the plan's index and PyPI, or the person's mirrors of them.
    torch = advise("no-gpu.json", "pytorch")
    for settings in (
        sources_module.IndexSettings(),
        sources_module.IndexSettings(
            pytorch_mirror="https://m.example/whl", uv_default_index="https://m.example/simple"
        ),
    ):
        sources = sources_module.plan_sources(
            index_url=torch.plan.index_url, variant=torch.plan.torch_variant, tool="uv", settings=settings
        )
        request = SetupRequest("pytorch", name="x")
        for change in plan_changes(torch, request, envs_folder=ENVS, sources=sources):
            collect(change.text)
    # A line joined from parts is a template of placeholders only: nothing in it to translate.
    joined = {template for template in said if template.startswith("{part0}")}
    assert joined and all("{part0}" in template and "plans" for template in joined)
    assert said - joined == MARKED
