"""What each environment backend answers for itself: its folder, pip, and how activation gets the variables.

``env create`` asks the backend rather than checking its class (workflow/envs/create.py): these
are the answers it acts on, each checked on the files written.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gpuwizard.adapters.envs.base import EnvBackend
from gpuwizard.adapters.envs.conda import CondaBackend
from gpuwizard.adapters.envs.rattler_backend import RattlerBackend
from gpuwizard.adapters.envs.venv_backends import PipBackend, UvBackend

VARIABLES = {"CUDA_VISIBLE_DEVICES": "0"}


def test_a_venv_is_marked_before_the_tool_writes_and_a_conda_folder_after() -> None:
    venvs: list[EnvBackend] = [UvBackend("uv"), PipBackend()]
    condas: list[EnvBackend] = [CondaBackend("/opt/conda/bin/conda", "conda"), RattlerBackend()]
    assert [backend.marks_folder_before_create for backend in venvs] == [True, True]
    assert [backend.marks_folder_before_create for backend in condas] == [False, False]


def test_only_uv_leaves_pip_to_be_added() -> None:
    backends: list[EnvBackend] = [
        UvBackend("uv"), PipBackend(), CondaBackend("/opt/mamba/bin/mamba", "mamba"), RattlerBackend()
    ]  # fmt: skip
    assert [backend.needs_pip_seed for backend in backends] == [True, False, False, False]


def test_conda_sets_the_variables_with_its_own_command(tmp_path: Path) -> None:
    command = CondaBackend("/opt/conda/bin/conda", "conda").variables_command(tmp_path, VARIABLES)
    assert command is not None
    assert command.argv[1:5] == ("env", "config", "vars", "set")
    assert command.argv[-1] == "CUDA_VISIBLE_DEVICES=0"


@pytest.mark.parametrize("tool", ["mamba", "micromamba"])
def test_mamba_and_micromamba_get_activate_d_scripts_and_nothing_to_name(tool: str, tmp_path: Path) -> None:
    backend = CondaBackend(f"/opt/{tool}/bin/{tool}", tool)
    assert backend.variables_command(tmp_path, VARIABLES) is None
    assert backend.write_variables(tmp_path, VARIABLES) == []
    script = tmp_path / "etc" / "conda" / "activate.d" / "gpuwizard-variables.sh"
    assert "CUDA_VISIBLE_DEVICES" in script.read_text(encoding="utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="the POSIX scripts")
def test_py_rattler_adds_activation_scripts_of_its_own_and_names_them(tmp_path: Path) -> None:
    backend = RattlerBackend()
    assert backend.variables_command(tmp_path, VARIABLES) is None
    written = backend.write_variables(tmp_path, VARIABLES)
    assert tmp_path / "bin" / "activate" in written
    assert "CUDA_VISIBLE_DEVICES" in (
        tmp_path / "etc" / "conda" / "activate.d" / "gpuwizard-variables.sh"
    ).read_text(encoding="utf-8")


def test_a_venv_gets_the_variables_in_its_own_scripts(tmp_path: Path) -> None:
    activate = tmp_path / "bin" / "activate"
    activate.parent.mkdir()
    activate.write_text(
        'deactivate () {\n    unset VIRTUAL_ENV\n}\nexport VIRTUAL_ENV="/x"\n', encoding="utf-8"
    )
    backend = UvBackend("uv")
    assert backend.variables_command(tmp_path, VARIABLES) is None
    assert backend.write_variables(tmp_path, VARIABLES) == []
    assert "CUDA_VISIBLE_DEVICES" in activate.read_text(encoding="utf-8")
