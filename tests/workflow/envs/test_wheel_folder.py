"""The check of a folder of wheels against a plan (issue 20, point 6): real uv and pip, small wheels.

The folders hold small real wheels built by ``builders.wheels`` with real dependency metadata
(``Requires-Dist``) and the compatibility tags of real torch wheels; the resolvers are the real
uv the wizard ships and the real pip of the test interpreter. The target is given explicitly
(Python 3.11 on manylinux_2_28 x86_64), so the answers do not depend on the machine the tests
run on.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from builders.requests import cpu_torch_plan
from builders.wheels import build_wheel
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.wheel_folder import DOWNLOAD_LIMIT, WheelFolderCheck
from gpuwizard.workflow.envs.wheel_folder import FolderCheckTools, check_wheel_folder, release_offer

UV = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
TARGET = ("manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64")
TORCH_TAG = "cp311-cp311-manylinux_2_28_x86_64"
TORCH_NEEDS = ("filelock", "sympy>=1.13", "typing-extensions>=4.10; python_version >= '3.9'")
CPU_INDEX = "https://download.pytorch.org/whl/cpu"
CU126_INDEX = "https://download.pytorch.org/whl/cu126"

PLAN = replace(cpu_torch_plan(CPU_INDEX), python="3.11")

#: pip as the test runs it: no configuration file, no find-links of the machine, no version check.
PIP_ALONE = {
    **os.environ,
    "PIP_CONFIG_FILE": os.devnull,
    "PIP_FIND_LINKS": "",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
}

TOOLS = {
    "uv": FolderCheckTools(uv=UV, pythons=(sys.executable,)),
    "pip": FolderCheckTools(uv=None, pythons=(sys.executable,)),
}


@pytest.fixture(params=sorted(TOOLS))
def tool(request: pytest.FixtureRequest) -> str:
    if request.param == "uv" and UV is None:
        pytest.fail("uv is a dependency of the wizard and must be installed beside the test interpreter")
    return str(request.param)


def dependencies(folder: Path, *, skip: tuple[str, ...] = ()) -> None:
    """torch's (small) dependencies, sympy's own among them, except those in ``skip``."""
    wheels = {
        "filelock": ("3.16.1", ()),
        "sympy": ("1.13.3", ("mpmath<1.4,>=1.1.0",)),
        "mpmath": ("1.3.0", ()),
        "typing_extensions": ("4.12.2", ()),
    }
    for name, (version, requires) in wheels.items():
        if name not in skip:
            build_wheel(folder, name, version, requires=requires)


def torch(folder: Path, version: str = "2.13.0+cpu", tag: str = TORCH_TAG) -> Path:
    return build_wheel(folder, "torch", version, requires=TORCH_NEEDS, tag=tag)


def check(folder: Path, tool: str, extras: tuple[str, ...] = ()) -> WheelFolderCheck:
    return check_wheel_folder(folder, PLAN, extras, TOOLS[tool], platforms=TARGET)


def test_a_complete_folder_holds_the_build_and_its_dependencies(tmp_path: Path, tool: str):
    torch(tmp_path)
    dependencies(tmp_path)
    (tmp_path / "notes.txt").write_text("not a wheel\n", encoding="utf-8")

    result = check(tmp_path, tool)

    assert result.status == "ok" and not result.blocks, result.problems
    assert result.tool == tool
    assert result.wheels == 5
    assert result.total_bytes == sum(wheel.stat().st_size for wheel in tmp_path.glob("*.whl"))
    assert str(result.summary()).startswith(
        "Holds torch 2.13.0+cpu and everything it needs for Python 3.11: 5 wheels, "
    )
    assert result.problems == () and result.download == ()


def test_a_folder_without_dependencies_names_every_one_and_the_command_fetches_them(
    tmp_path: Path, tool: str
):
    folder, complete = tmp_path / "wheels", tmp_path / "complete"
    torch(folder)
    dependencies(folder, skip=("filelock", "mpmath"))  # sympy is there, its mpmath is not

    result = check(folder, tool)

    assert result.status == "missing" and result.blocks
    assert set(result.missing) == {"filelock", "mpmath"}
    assert any("It has no wheel of" in problem and "filelock" in problem for problem in result.problems)
    line = result.reason()
    assert "\n" not in line and "filelock" in line and "mpmath" in line and "pip download" in line
    download = list(result.download)
    # torch+cpu is in the folder, its dependencies are on PyPI: the command takes torch from the
    # folder and names no index, so it runs where PyPI answers even when PyTorch's index does not.
    assert download[:6] == ["pip", "download", "--dest", str(folder), "--find-links", str(folder)]
    assert "--index-url" not in download and result.fetch_index is None
    assert "reaches pypi.org" in str(result.fetch_where())
    assert download[download.index("--python-version") + 1] == "3.11"
    assert [download[at + 1] for at, word in enumerate(download) if word == "--platform"] == [
        "manylinux_2_28_x86_64",
        "manylinux2014_x86_64",
    ]
    assert download[-1] == "torch==2.13.0+cpu"
    assert len(result.download_line()) - 2 * len(str(folder)) <= DOWNLOAD_LIMIT

    # The command is real: pip, with a folder standing in for PyPI (the dependencies only, one of
    # them a binary wheel for cp311 on manylinux2014), fills the gap.
    dependencies(complete)
    build_wheel(complete, "markupsafe", "3.0.2", tag="cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64")
    build_wheel(complete, "markupsafe", "3.0.2", tag="cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64")
    argv = [sys.executable, "-m", *download[:-1], "--no-index", "--find-links", str(complete), download[-1]]
    argv.append("markupsafe")  # as a dependency PyPI serves for cp311 only as a binary wheel
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, env=PIP_ALONE, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert check(folder, tool).status == "ok"
    assert {path.name for path in folder.glob("markupsafe-*")} == {
        "markupsafe-3.0.2-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
    }


def test_a_missing_build_pypi_lacks_is_fetched_from_its_index_on_a_machine_that_reaches_it(tmp_path: Path):
    dependencies(tmp_path)

    result = check(tmp_path, "pip")

    assert result.blocks and result.fetch_index == CPU_INDEX
    download = list(result.download)
    assert download[download.index("--index-url") + 1] == CPU_INDEX
    assert "--find-links" not in download and download[-1] == "torch==2.13.0+cpu"
    assert str(result.fetch_where()) == (
        f"The fetch command downloads from {CPU_INDEX} (torch 2.13.0+cpu is not on PyPI): run it on a "
        "machine that reaches download.pytorch.org."
    )
    assert len(result.download_line()) - len(str(tmp_path)) <= DOWNLOAD_LIMIT


def test_a_missing_build_pypi_serves_is_fetched_from_pypi(tmp_path: Path):
    # PyPI's Windows wheel of torch is the CPU build (pytorch.json, pypi_default): no index.
    windows_plan = replace(PLAN, index_url=None)
    dependencies(tmp_path)

    result = check_wheel_folder(tmp_path, windows_plan, (), TOOLS["pip"], platforms=("win_amd64",))

    assert result.blocks and result.fetch_index is None
    download = list(result.download)
    assert "--index-url" not in download and "--extra-index-url" not in download
    assert download[download.index("--platform") + 1] == "win_amd64" and download.count("--platform") == 1
    assert download[-1] == "torch==2.13.0"
    assert "pypi.org" in str(result.fetch_where())


def test_another_release_the_table_knows_is_offered_when_its_plan_takes_the_wheel(tmp_path: Path):
    torch(tmp_path, version="2.12.0+cpu")
    dependencies(tmp_path)
    result = check(tmp_path, "pip")
    assert result.found == ("2.12.0+cpu",)
    asked: list[str] = []

    def plans(newest: str, variant: str) -> Callable[[str], Plan | None]:
        def plan(version: str) -> Plan | None:
            asked.append(version)
            exact = newest if version == "2.12" else version
            return replace(PLAN, framework_version=exact, torch_variant=variant, cpu_only=variant == "cpu")

        return plan

    # The table's 2.12 is 2.12.0: the minor version plans it.
    assert release_offer(result, PLAN, plans("2.12.0", "cpu")) == "2.12"
    # The table's newest 2.12 is 2.12.1: only the full version plans the folder's.
    assert release_offer(result, PLAN, plans("2.12.1", "cpu")) == "2.12.0"
    # A GPU plan would not take a CPU wheel: nothing is offered.
    asked.clear()
    assert release_offer(result, PLAN, plans("2.12.0", "cu126")) is None
    assert asked == ["2.12", "2.12.0"]
    # A release the table does not know: nothing is offered.
    assert release_offer(result, PLAN, lambda _version: None) is None
    assert "--version" not in result.reason()
    assert "ask for version 2.12 (--version 2.12)." in replace(result, offer_version="2.12").reason()


def test_wheels_for_another_python_or_platform_are_said_so(tmp_path: Path, tool: str):
    for tag in ("cp312-cp312-win_amd64", "cp313-cp313-win_amd64", "cp312-cp312-manylinux_2_28_x86_64"):
        torch(tmp_path, tag=tag)
    dependencies(tmp_path)

    result = check(tmp_path, tool)

    assert result.blocks
    assert [str(problem) for problem in result.problems] == [
        "Its 3 torch wheels are for cp312, cp313 / manylinux_2_28_x86_64, win_amd64, "
        "not cp311 / manylinux_2_28_x86_64."
    ]


def test_a_dependency_for_another_platform_only_is_said_so(tmp_path: Path, tool: str):
    torch(tmp_path)
    dependencies(tmp_path, skip=("filelock",))
    build_wheel(tmp_path, "filelock", "3.16.1", tag="cp311-cp311-win_amd64")

    result = check(tmp_path, tool)

    assert result.blocks
    assert (
        "Its filelock wheel is for cp311 / win_amd64, not cp311 / manylinux_2_28_x86_64." in result.problems
    )


def test_another_release_of_the_framework_is_not_the_plans_build(tmp_path: Path, tool: str):
    torch(tmp_path, version="2.12.0+cpu")
    dependencies(tmp_path)

    result = check(tmp_path, tool)

    assert result.blocks
    assert [str(problem) for problem in result.problems] == ["It has torch 2.12.0+cpu, not torch 2.13.0+cpu."]


def test_a_cpu_build_for_a_gpu_plan_is_refused_a_cuda_build_for_a_cpu_plan_only_noted(
    tmp_path: Path, tool: str
):
    # torch==2.13.0 matches 2.13.0+cpu and 2.13.0+cu126 alike: the check reads the resolved label.
    gpu_plan = replace(PLAN, cpu_only=False, cuda="12.6", torch_variant="cu126", index_url=CU126_INDEX)
    torch(tmp_path, version="2.13.0+cpu")
    dependencies(tmp_path)
    result = check_wheel_folder(tmp_path, gpu_plan, (), TOOLS[tool], platforms=TARGET)
    assert result.blocks
    assert str(result.problems[0]) == (
        "Its torch 2.13.0+cpu would be installed, not the plan's torch 2.13.0+cu126: remove that wheel "
        "and add the plan's."
    )
    assert result.download[-1] == "torch==2.13.0+cu126"

    cuda = tmp_path / "cuda"
    torch(cuda, version="2.13.0+cu126")
    dependencies(cuda)
    result = check(cuda, tool)  # the CPU plan
    assert result.ok and not result.blocks
    assert [str(note) for note in result.notes] == [
        "Its torch 2.13.0+cu126 will be installed rather than the plan's torch 2.13.0+cpu: it runs on the "
        "CPU too, but is a larger download."
    ]


def test_what_the_request_adds_is_checked_too(tmp_path: Path, tool: str):
    torch(tmp_path)
    dependencies(tmp_path)

    result = check(tmp_path, tool, extras=("ipykernel",))

    assert result.blocks and result.missing == ("ipykernel",)
    assert result.download[-2:] == ("torch==2.13.0+cpu", "ipykernel")
    # torch comes from the folder, ipykernel and what it needs from PyPI.
    assert "--index-url" not in result.download and result.fetch_index is None

    # Without torch in the folder, its CPU build comes from PyTorch's index and ipykernel from PyPI.
    other = tmp_path / "other"
    dependencies(other)
    build_wheel(other, "ipykernel", "6.29.5")
    without = check(other, tool, extras=("ipykernel",))
    assert without.fetch_index == CPU_INDEX
    assert without.download[without.download.index("--extra-index-url") + 1] == "https://pypi.org/simple"

    build_wheel(tmp_path, "ipykernel", "6.29.5")
    assert str(check(tmp_path, tool, extras=("ipykernel",)).summary()).startswith(
        "Holds torch 2.13.0+cpu, ipykernel and everything they need for Python 3.11: 6 wheels, "
    )


def test_without_uv_and_pip_the_folder_is_unchecked_and_nothing_is_blocked(tmp_path: Path):
    torch(tmp_path)

    result = check_wheel_folder(tmp_path, PLAN, (), FolderCheckTools(uv=None, pythons=()), platforms=TARGET)

    assert result.status == "unchecked" and not result.blocks and not result.ok
    assert result.download == ()
