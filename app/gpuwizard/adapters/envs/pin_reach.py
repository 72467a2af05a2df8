"""Whether an environment's pip and uv still read its constraints file (``verify``'s pin check).

The pin holds only while the tools are pointed at it: pip through the environment's own config
file (``pip.conf``, ``pip.ini`` on Windows; its ``[install]`` section, else ``[global]``), uv
through ``UV_CONSTRAINT`` as the wizard's activation sets it. Each is read here the way its tool
reads it (``env_files.py`` cites the sources): the config in the locale's encoding, its value
split at whitespace; ``UV_CONSTRAINT`` split at spaces; ``file:`` URLs turned back into paths.
Every file named must exist (a missing one makes every install fail) and one must be the pin.
"""

from __future__ import annotations

import configparser
import json
import locale
import shlex
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit
from urllib.request import url2pathname

from gpuwizard.adapters.envs.env_files import (
    UV_CONSTRAINT,
    constraint_reference,
    pip_config_name,
)
from gpuwizard.core.health.env_drift import UnreadPin

#: Where the wizard's activation sets its variables, by kind of environment: a venv's sh script
#: (``bin/`` on POSIX, ``Scripts/`` on Windows, where CPython, uv and virtualenv write one too),
#: a conda environment's activate.d script (``env_files.write_conda_variables``).
_SH_SCRIPTS = ("bin/activate", "Scripts/activate", "etc/conda/activate.d/gpuwizard-variables.sh")


def unread_pins(prefix: Path, constraints: Path, *, windows: bool | None = None) -> tuple[UnreadPin, ...]:
    """The tools of the environment at ``prefix`` that do not read its pin file ``constraints``."""
    unread = []
    pip = _pip_problem(prefix, constraints, windows=windows)
    if pip is not None:
        unread.append(pip)
    uv = _uv_problem(prefix, constraints)
    if uv is not None:
        unread.append(uv)
    return tuple(unread)


def _pip_problem(prefix: Path, constraints: Path, *, windows: bool | None) -> UnreadPin | None:
    config = prefix / pip_config_name(windows=windows)
    reference = constraint_reference(constraints)

    def unread(why: str) -> UnreadPin:
        return UnreadPin("pip", str(config), why, f"'constraint = {reference}' under [install]")

    # pip reads its config files in the locale's encoding (pip/_internal/configuration.py).
    encoding = locale.getpreferredencoding(False)
    parser = configparser.RawConfigParser()
    try:
        parser.read_string(config.read_bytes().decode(encoding))
    except FileNotFoundError:
        return unread("is missing")
    except UnicodeDecodeError:
        return unread(f"is not {encoding} text, the encoding pip reads it in")
    except (OSError, configparser.Error) as error:
        return unread(f"cannot be read ({str(error).splitlines()[0][:200]})")
    for section in ("install", "global"):
        if parser.has_option(section, "constraint"):
            # An "append" option: pip splits the value at whitespace (cli/parser.py).
            return _named_problem(parser.get(section, "constraint").split(), constraints, unread, "pip")
    return unread("names no constraints file")


def _uv_problem(prefix: Path, constraints: Path) -> UnreadPin | None:
    found = _uv_setting(prefix)
    if found is None:
        return None  # made before the wizard set UV_CONSTRAINT: nothing to hold it to
    where, value = found
    reference = constraint_reference(constraints)

    def unread(why: str) -> UnreadPin:
        line = f"{UV_CONSTRAINT}={reference}"
        if where.name == "state":
            return UnreadPin("uv", str(where), why, f"'{line}' (conda env config vars set)")
        return UnreadPin("uv", str(where), f"sets {UV_CONSTRAINT}, which {why}", f"'export {line}'")

    # uv splits the variable at spaces (clap's value_delimiter, docs.astral.sh/uv/reference/environment/).
    return _named_problem([item for item in value.split(" ") if item], constraints, unread, "uv")


def _uv_setting(prefix: Path) -> tuple[Path, str] | None:
    """Where the activation sets ``UV_CONSTRAINT``, and to what; None when it does not."""
    for relative in _SH_SCRIPTS:
        script = prefix / relative
        try:
            text = script.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.splitlines():
            if not line.startswith(f"export {UV_CONSTRAINT}="):
                continue
            try:
                words = shlex.split(line)  # the wizard's own line: sh_quote round-trips through it
            except ValueError:
                return script, line
            return script, words[1].partition("=")[2] if len(words) == 2 else line
    # conda's `env config vars set` keeps them in conda-meta/state, {"env_vars": {...}}.
    state = prefix / "conda-meta" / "state"
    try:
        stored = json.loads(state.read_text(encoding="utf-8")).get("env_vars", {})
    except (OSError, ValueError, AttributeError):
        return None
    value = stored.get(UV_CONSTRAINT) if isinstance(stored, dict) else None
    return (state, value) if isinstance(value, str) else None


def _named_problem(
    items: list[str], constraints: Path, unread: Callable[[str], UnreadPin], tool: str
) -> UnreadPin | None:
    if not items:
        return unread("names no constraints file")
    paths = [_as_path(item) for item in items]
    for item, path in zip(items, paths, strict=True):
        if path is None:
            continue  # a URL of another kind: the tool fetches it, the check cannot
        if not path.is_file():
            split = f" ({tool} splits the value at spaces)" if len(items) > 1 else ""
            return unread(f"names {item}, which does not exist: every {tool} install fails{split}")
    if not any(path is not None and _same_file(path, constraints) for path in paths):
        return unread(f"names {' '.join(items)}, not the pin file")
    return None


def _as_path(item: str) -> Path | None:
    """The file an item names: a ``file:`` URL as pip and uv read it, a path as it is; None for other URLs."""
    parts = urlsplit(item)
    if parts.scheme.lower() == "file":
        if parts.netloc not in ("", "localhost"):
            return Path(url2pathname(f"//{parts.netloc}{parts.path}"))
        return Path(url2pathname(parts.path))
    if len(parts.scheme) > 1 and parts.netloc:
        return None  # http(s): not a file on this machine ("C:" is a drive, not a scheme)
    return Path(item)


def _same_file(path: Path, constraints: Path) -> bool:
    try:
        return path.samefile(constraints)
    except OSError:
        return False
