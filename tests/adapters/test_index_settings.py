"""The machine's index settings as pip and uv read them: variables, and pip's files in pip's order."""

from __future__ import annotations

import os
from pathlib import Path

from gpuwizard.adapters.index_settings import pip_config_files, read_index_settings


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_variables_are_read_as_they_are(tmp_path: Path):
    env = {
        "HOME": str(tmp_path),
        "XDG_CONFIG_DIRS": str(tmp_path / "none"),
        "GPUWIZARD_PYTORCH_INDEX_URL": " https://mirror.example/whl ",
        "UV_DEFAULT_INDEX": "https://uv.example/simple",
        "UV_INDEX_URL": "",
        "PIP_INDEX_URL": "https://pip.example/simple",
    }
    settings = read_index_settings(env)
    assert settings.pytorch_mirror == "https://mirror.example/whl"
    assert (settings.uv_default_index, settings.uv_index_url) == ("https://uv.example/simple", None)
    assert settings.pip_index_url == "https://pip.example/simple"


def test_pips_files_later_wins_and_install_wins_over_global(tmp_path: Path):
    home = tmp_path / "home"
    system = tmp_path / "xdg"
    write(system / "pip" / "pip.conf", "[global]\nindex-url = https://system.example/simple\n")
    user = write(
        home / ".config" / "pip" / "pip.conf",
        "[global]\nindex_url = https://user-global.example/simple\n[install]\nindex-url = https://user-install.example/simple\n",
    )
    env = {"HOME": str(home), "XDG_CONFIG_DIRS": str(system)}
    settings = read_index_settings(env)
    assert settings.pip_config_index_url == "https://user-install.example/simple"
    assert settings.pip_config_file == str(user)
    order = pip_config_files(env, platform="linux")
    assert (
        order.index(system / "pip" / "pip.conf") < order.index(home / ".pip" / "pip.conf") < order.index(user)
    )


def test_pip_config_file_is_read_first_and_the_null_device_turns_files_off(tmp_path: Path):
    given = write(tmp_path / "given.ini", "[global]\nindex-url = https://given.example/simple\n")
    env = {
        "HOME": str(tmp_path / "empty"),
        "XDG_CONFIG_DIRS": str(tmp_path / "none"),
        "PIP_CONFIG_FILE": str(given),
    }
    assert read_index_settings(env).pip_config_index_url == "https://given.example/simple"
    write(
        tmp_path / "empty" / ".config" / "pip" / "pip.conf",
        "[global]\nindex-url = https://user.example/simple\n",
    )
    assert read_index_settings(env).pip_config_index_url == "https://user.example/simple"  # later files win
    off = {**env, "PIP_CONFIG_FILE": os.devnull}
    assert read_index_settings(off).pip_config_index_url is None


def test_a_damaged_file_is_passed_over(tmp_path: Path):
    write(tmp_path / ".config" / "pip" / "pip.conf", "index-url = no section\n[global\n")
    env = {"HOME": str(tmp_path), "XDG_CONFIG_DIRS": str(tmp_path / "none")}
    assert read_index_settings(env).pip_config_index_url is None


def test_windows_files(tmp_path: Path):
    env = {
        "USERPROFILE": str(tmp_path),
        "APPDATA": str(tmp_path / "Roaming"),
        "ProgramData": str(tmp_path / "PD"),
    }
    files = pip_config_files(env, platform="win32")
    assert files == [
        tmp_path / "PD" / "pip" / "pip.ini",
        tmp_path / "pip" / "pip.ini",
        tmp_path / "Roaming" / "pip" / "pip.ini",
    ]
