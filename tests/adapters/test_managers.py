"""Finding uv and the conda family on PATH, through their variables, and in default folders."""

from __future__ import annotations

from pathlib import Path

from gpuwizard.adapters.managers import find_managers


def executable(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_conda_installed_but_not_on_path_is_found_in_its_default_folder(tmp_path: Path):
    conda = executable(tmp_path / "miniforge3" / "bin" / "conda")
    mamba = executable(tmp_path / "miniforge3" / "bin" / "mamba")
    found = find_managers("linux", {}, [], tmp_path, tmp_path / "scripts")
    assert (found.conda, found.mamba) == (str(conda), str(mamba))


def test_path_comes_first(tmp_path: Path):
    on_path = executable(tmp_path / "bin" / "uv")
    executable(tmp_path / ".local" / "bin" / "uv")
    assert find_managers("linux", {}, [str(tmp_path / "bin")], tmp_path, tmp_path / "scripts").uv == str(
        on_path
    )


def test_variables_set_by_the_installers(tmp_path: Path):
    micromamba = executable(tmp_path / "tools" / "micromamba")
    conda = executable(tmp_path / "anywhere" / "conda")
    found = find_managers(
        "linux",
        {"MAMBA_EXE": str(micromamba), "CONDA_EXE": str(conda)},
        [],
        tmp_path / "home",
        tmp_path / "scripts",
    )
    assert (found.micromamba, found.conda) == (str(micromamba), str(conda))


def test_windows_layout(tmp_path: Path):
    scripts = tmp_path / "Users" / "ana" / "miniconda3" / "Scripts"
    scripts.mkdir(parents=True)
    (scripts / "conda.exe").write_bytes(b"MZ")
    found = find_managers("windows", {}, [], tmp_path / "Users" / "ana", tmp_path / "scripts")
    assert found.conda == str(scripts / "conda.exe")
    assert found.micromamba is None


def test_the_uv_bundled_with_the_wizard_is_used_when_none_is_on_path(tmp_path: Path):
    bundled = executable(tmp_path / "venv" / "bin" / "uv")
    assert find_managers("linux", {}, [], tmp_path / "home", bundled.parent).uv == str(bundled)
    assert find_managers("linux", {}, [], tmp_path / "home", tmp_path / "elsewhere").uv is None
