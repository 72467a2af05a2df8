"""The machine's package-index settings: mirror variables and ``index-url`` in pip's files.

Read as pip and uv read them, so the wizard installs from, shows and checks the same indexes
the tools would use (issue 20): ``GPUWIZARD_PYTORCH_INDEX_URL`` (the wizard's own), ``UV_DEFAULT_INDEX``
and ``UV_INDEX_URL`` (docs.astral.sh/uv/reference/environment/), ``PIP_INDEX_URL``, and
``index-url`` of pip's configuration files in pip's order
(pip.pypa.io/en/stable/topics/configuration/, "Location" and "Loading order"):
``PIP_CONFIG_FILE`` first (``os.devnull`` turns every file off), then the global files, then the
user's (the legacy one before the current one); each later file wins, and in a file the
``[install]`` section wins over ``[global]``. The site file is the new environment's own, which
does not exist yet. What :mod:`gpuwizard.core.envs.package_sources` decides from them is pure.
"""

from __future__ import annotations

import configparser
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from gpuwizard.core.envs.package_sources import PYTORCH_MIRROR_VARIABLE, IndexSettings


def read_index_settings(environ: Mapping[str, str] | None = None) -> IndexSettings:
    """The settings as this process's environment (or ``environ``) and pip's files give them."""
    env = os.environ if environ is None else environ
    config_url, config_file = _pip_config_index(env)
    return IndexSettings(
        pytorch_mirror=_value(env, PYTORCH_MIRROR_VARIABLE),
        uv_default_index=_value(env, "UV_DEFAULT_INDEX"),
        uv_index_url=_value(env, "UV_INDEX_URL"),
        pip_index_url=_value(env, "PIP_INDEX_URL"),
        pip_config_index_url=config_url,
        pip_config_file=config_file,
    )


def pip_config_files(environ: Mapping[str, str] | None = None, *, platform: str | None = None) -> list[Path]:
    """Pip's configuration files in the order pip loads them (the last one read wins)."""
    env = os.environ if environ is None else environ
    platform = platform or sys.platform
    files: list[Path] = []
    given = env.get("PIP_CONFIG_FILE")
    if given:
        if given == os.devnull:
            return []
        files.append(Path(given))
    home = Path(env.get("HOME") or env.get("USERPROFILE") or Path.home())
    if platform == "win32":
        if env.get("ProgramData"):
            files.append(Path(env["ProgramData"]) / "pip" / "pip.ini")
        files.append(home / "pip" / "pip.ini")  # the legacy per-user file
        if env.get("APPDATA"):
            files.append(Path(env["APPDATA"]) / "pip" / "pip.ini")
        return files
    if platform == "darwin":
        files.append(Path("/Library/Application Support/pip/pip.conf"))
    else:
        for folder in (env.get("XDG_CONFIG_DIRS") or "/etc/xdg").split(os.pathsep):
            if folder:
                files.append(Path(folder) / "pip" / "pip.conf")
        files.append(Path("/etc/pip.conf"))
    files.append(home / ".pip" / "pip.conf")  # the legacy per-user file
    if platform == "darwin" and (home / "Library" / "Application Support" / "pip").is_dir():
        files.append(home / "Library" / "Application Support" / "pip" / "pip.conf")
    else:
        config_home = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
        files.append(config_home / "pip" / "pip.conf")
    return files


def _pip_config_index(env: Mapping[str, str]) -> tuple[str | None, str | None]:
    """``index-url`` from pip's files, and the file it came from."""
    found: tuple[str | None, str | None] = (None, None)
    for path in pip_config_files(env):
        value = _index_url_in(path)
        if value:
            found = (value, str(path))
    return found


def _index_url_in(path: Path) -> str | None:
    """``index-url`` of one pip file (``[install]`` over ``[global]``); None when absent or unreadable."""
    parser = configparser.RawConfigParser()
    try:
        if not path.is_file():
            return None
        parser.read(path, encoding="utf-8")
    except (OSError, UnicodeDecodeError, configparser.Error):
        return None  # pip would refuse such a file too; the install then says so in its own words
    value: str | None = None
    for section in ("global", "install"):
        if parser.has_section(section):
            for key in ("index-url", "index_url"):  # pip accepts both spellings
                if parser.has_option(section, key):
                    value = parser.get(section, key).strip() or value
    return value


def _value(env: Mapping[str, str], name: str) -> str | None:
    value = env.get(name, "").strip()
    return value or None
