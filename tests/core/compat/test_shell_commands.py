r"""A plan's commands are written for its platform and shells (issue 37, point 3).

Native Windows: ``py -3.X -m venv`` and ``ENV\Scripts\activate.bat`` / ``Activate.ps1`` (cmd,
PowerShell); Linux, macOS and WSL 2: ``python3.X -m venv`` and ``source ENV/bin/activate``;
``uv venv`` only where the report found uv. The real recommender over the saved reports.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from gpuwizard.core.compat.plan import Plan, parse_wish
from gpuwizard.core.compat.presentation import install_commands
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.shell_commands import CommandHost, command_host, python_command
from gpuwizard.core.machine.system_report import ManagerFacts, PythonFacts, SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.machine.system_file import load_system_report

ROOT = Path(__file__).parents[3]
REPORTS = sorted((ROOT / "tests" / "fixtures" / "reports").glob("*.json")) + sorted(
    (ROOT / "resources" / "samples").glob("*.json")
)
WINDOWS = [path for path in REPORTS if path.name.startswith("windows-")]
POSIX = [path for path in REPORTS if not path.name.startswith("windows-")]
WISHES = [("pytorch", None, None), ("tensorflow", None, None), ("tensorflow", "2.10", "venv")]
ACTIVATE_WINDOWS = "ENV\\Scripts\\activate.bat   (cmd; in PowerShell: ENV\\Scripts\\Activate.ps1)"
ACTIVATE_POSIX = "source ENV/bin/activate   (bash, zsh)"


def venv_plan(report: SystemReport, framework: str, version: str | None = None) -> Plan:
    plan = recommend(report, parse_wish(framework, version, manager="venv"), load_compat()).plan
    assert plan.manager == "venv"
    return plan


def commands(report: SystemReport, plan: Plan) -> list[str]:
    return install_commands(plan, host=command_host(report, plan))


def every_plans_steps(
    path: Path, framework: str, version: str | None, manager: str | None
) -> Iterator[tuple[Plan, list[str], str]]:
    """Each plan recommended for the saved report (and its alternatives), its steps and their text."""
    report = load_system_report(path)
    rec = recommend(report, parse_wish(framework, version, manager=manager), load_compat())
    for plan in (rec.plan, *rec.alternatives):
        steps = commands(report, plan)
        yield plan, steps, "\n".join(steps)


def python_facts(version: str, executable: str, source: str, *, ms_store: bool = False) -> PythonFacts:
    return PythonFacts(version=version, executable=executable, source=source, ms_store=ms_store)


def test_there_are_reports_of_both_families():
    assert len(WINDOWS) >= 4 and len(POSIX) >= 4


@pytest.mark.parametrize("path", WINDOWS, ids=lambda path: path.name)
@pytest.mark.parametrize(("framework", "version", "manager"), WISHES)
def test_a_windows_plan_speaks_cmd_and_powershell(
    path: Path, framework: str, version: str | None, manager: str | None
):
    for plan, steps, text in every_plans_steps(path, framework, version, manager):
        if plan.target == "wsl2":
            assert "Scripts" not in text and "PowerShell" not in text
            continue
        assert "source " not in text and "bin/activate" not in text and "python3." not in text
        assert "uv " not in text  # none of these reports found uv
        if plan.manager == "venv":
            assert f"py -{plan.python} -m venv ENV" in steps
            assert ACTIVATE_WINDOWS in steps
            assert steps.index(ACTIVATE_WINDOWS) < next(
                number for number, step in enumerate(steps) if step.startswith("pip install")
            )
        elif plan.conda_engine == "rattler":
            assert "ENV\\Scripts\\activate.bat" in text and "ENV\\Scripts\\Activate.ps1" in text
        else:
            assert f"{plan.conda_engine} activate ENV" in steps  # conda's own: the same in both shells


@pytest.mark.parametrize("path", POSIX, ids=lambda path: path.name)
@pytest.mark.parametrize(("framework", "version", "manager"), WISHES)
def test_a_linux_plan_speaks_a_posix_shell(
    path: Path, framework: str, version: str | None, manager: str | None
):
    for plan, steps, text in every_plans_steps(path, framework, version, manager):
        assert "Scripts" not in text and "PowerShell" not in text and "cmd" not in text
        assert "py -" not in text and "uv " not in text
        if plan.manager == "venv":
            create = steps.index(f"python{plan.python} -m venv ENV")
            assert steps[create + 1] == ACTIVATE_POSIX
            assert steps[create + 2].startswith("pip install ")
        elif plan.conda_engine == "rattler":
            assert "activate it without conda: source ENV/bin/activate   (bash, zsh);" in text
        else:
            assert f"{plan.conda_engine} activate ENV" in steps


def test_a_wsl2_plan_gets_linux_commands_on_a_windows_machine():
    report = load_system_report(ROOT / "resources" / "samples" / "windows-rtx2080super-two-cuda.json")
    # uv on Windows is not inside the WSL 2 distribution: it is not offered there.
    report = replace(report, managers=ManagerFacts(uv="C:\\Users\\ana\\.local\\bin\\uv.exe"))
    rec = recommend(report, parse_wish("tensorflow", "2.15"), load_compat())
    assert rec.plan.target == "wsl2"
    steps = commands(report, rec.plan)
    python = rec.plan.python
    distro = rec.plan.wsl.distro
    # The distribution's Python has no venv module on Ubuntu and refuses pip (PEP 668): uv,
    # installed by its own installer into ~/.local/bin, makes the venv and fetches the Python.
    assert steps[-5:-1] == [
        f"({distro}) curl -LsSf https://astral.sh/uv/install.sh | sh   (without curl: sudo apt install curl)",
        f"({distro}) ~/.local/bin/uv venv --python {python} ENV",
        f"({distro}) source ENV/bin/activate",
        f'({distro}) ~/.local/bin/uv pip install "tensorflow[and-cuda]=={rec.plan.framework_version}"',
    ]
    # In the Linux home (quoted: PowerShell 7.5 may expand a bare ~), then a check that lists the GPU.
    assert steps[-6].startswith(f'(Windows) wsl -d {distro} --cd "~" ')
    assert "list_physical_devices('GPU')" in steps[-1]
    joined = "".join(steps)
    assert "py -" not in joined and "Scripts" not in joined and "uv.exe" not in joined


def test_uv_is_offered_by_the_path_the_report_found_it_at():
    linux = load_system_report(ROOT / "resources" / "samples" / "linux-h200.json")
    linux = replace(linux, managers=ManagerFacts(uv="/home/ana/.local/bin/uv"))
    plan = venv_plan(linux, "pytorch")
    # --seed: `uv venv` alone makes no pip, and the step after is `pip install`.
    assert commands(linux, plan)[0] == (
        f"python{plan.python} -m venv ENV   "
        f"(or: /home/ana/.local/bin/uv venv --seed --python {plan.python} ENV)"
    )
    windows = load_system_report(ROOT / "tests" / "fixtures" / "reports" / "windows-rtx3060-546.33.json")
    windows = replace(windows, managers=ManagerFacts(uv="C:\\Users\\ana\\.local\\bin\\uv.exe"))
    plan = venv_plan(windows, "pytorch")
    assert commands(windows, plan)[0] == (
        f"py -{plan.python} -m venv ENV   "
        f"(or: C:\\Users\\ana\\.local\\bin\\uv.exe venv --seed --python {plan.python} ENV)"
    )


def test_a_windows_path_with_a_space_is_written_for_cmd_and_for_powershell():
    uv = "C:\\Users\\Ana Maria\\.local\\bin\\uv.exe"
    windows = load_system_report(ROOT / "tests" / "fixtures" / "reports" / "windows-rtx3060-546.33.json")
    windows = replace(windows, managers=ManagerFacts(uv=uv))
    plan = venv_plan(windows, "pytorch")
    arguments = f"venv --seed --python {plan.python} ENV"
    assert commands(windows, plan)[0] == (
        f"py -{plan.python} -m venv ENV   (or: \"{uv}\" {arguments}   (cmd; in PowerShell: & '{uv}' {arguments}))"
    )


# --- which interpreter ----------------------------------------------------------------------------

OWN = python_facts(
    "3.11.7", "C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python311\\python.exe", "self"
)


@pytest.mark.parametrize(
    ("interpreters", "expected"),
    [
        # An older report lists no interpreters; the wizard's own alone proves nothing: the launcher.
        ((), "py -3.11 -m venv ENV"),
        ((OWN,), "py -3.11 -m venv ENV"),
        ((OWN, python_facts("3.11.7", "C:\\Python311\\python.exe", "py-launcher")), "py -3.11 -m venv ENV"),
        # Found on PATH and none through a launcher: the interpreter itself.
        ((OWN, python_facts("3.12.1", "C:\\Python312\\python.exe", "path")), f"{OWN.executable} -m venv ENV"),
        # A launcher that does not list 3.11 (it may be the wizard's own, kept once): the path is sure.
        (
            (OWN, python_facts("3.12.1", "C:\\Python312\\python.exe", "py-launcher")),
            f"{OWN.executable} -m venv ENV",
        ),
        (
            (
                python_facts(
                    "3.11.9", "C:\\Program Files\\WindowsApps\\Python 3.11\\python.exe", "self", ms_store=True
                ),
            ),
            '"C:\\Program Files\\WindowsApps\\Python 3.11\\python.exe" -m venv ENV   (cmd; in PowerShell: '
            "& 'C:\\Program Files\\WindowsApps\\Python 3.11\\python.exe' -m venv ENV)",
        ),
        # No 3.11 found at all: the launcher, once python.org's 3.11 is installed.
        ((python_facts("3.12.1", "C:\\Python312\\python.exe", "path"),), "py -3.11 -m venv ENV"),
    ],
)
def test_the_windows_interpreter(interpreters: tuple[PythonFacts, ...], expected: str):
    assert (
        python_command("3.11", "-m venv ENV", CommandHost(windows=True, interpreters=interpreters))
        == expected
    )


@pytest.mark.parametrize(
    ("interpreters", "expected"),
    [
        ((), "python3.11 -m venv ENV"),
        ((python_facts("3.11.7", "/usr/bin/python3", "path"),), "python3.11 -m venv ENV"),
        # Only pyenv has it: no PATH reaches it by name.
        (
            (python_facts("3.11.9", "/home/ana/.pyenv/versions/3.11.9/bin/python", "pyenv"),),
            "/home/ana/.pyenv/versions/3.11.9/bin/python -m venv ENV",
        ),
        (
            (python_facts("3.11.9", "/home/ana maria/.local/share/uv/python/3.11/bin/python3", "uv"),),
            "'/home/ana maria/.local/share/uv/python/3.11/bin/python3' -m venv ENV",
        ),
    ],
)
def test_the_posix_interpreter(interpreters: tuple[PythonFacts, ...], expected: str):
    assert (
        python_command("3.11", "-m venv ENV", CommandHost(windows=False, interpreters=interpreters))
        == expected
    )
