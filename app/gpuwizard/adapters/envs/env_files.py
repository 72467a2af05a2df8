r"""Files the wizard writes into an environment: activation variables, the framework pin.

Variables go where each kind of environment reads them on activation: the venv activation
scripts (bash/zsh, fish, csh, cmd, PowerShell) or a conda environment's ``activate.d`` and
``deactivate.d`` scripts. The pin is a constraints file that pip reads through the
environment's own config file (``sys.prefix/pip.conf``, ``pip.ini`` on Windows; pip's
"site" configuration, pip.pypa.io/en/stable/topics/configuration/#location), so a later
``pip install`` of another package cannot swap the CUDA build for a CPU one; uv reads it through
``UV_CONSTRAINT`` in the activation variables.

Both name the file in a form that survives how they read it (:func:`constraint_reference`):
pip splits a config value of a list option at every whitespace (``pip/_internal/cli/parser.py``,
``_update_defaults``: ``val.split()`` for "append" options such as ``constraint``) and reads its
config files in the locale's encoding (``configuration.py``, ``_construct_parser``:
``locale.getpreferredencoding``, cp1252 on many Windows machines); uv splits ``UV_CONSTRAINT`` at
spaces ("a space-separated list of files", docs.astral.sh/uv/reference/environment/#uv_constraint);
cmd reads the ``set`` lines appended to ``activate.bat`` after the venv template restored the
console's code page. A path with a space (``C:\Users\Ana Maria``) or a letter outside ASCII
(``Ana María``, ``训练``) is therefore written as a ``file:`` URL, percent-encoded UTF-8 (RFC 8089),
pure ASCII without spaces: pip reads it (``req_file.get_file_content``: ``file:`` goes through its
local file adapter, ``utils/urls.url_to_path``), and uv does too (checked with uv 0.13.9;
``tests/cli/test_env_paths_spaces.py`` installs with both). Any other path stays a path, as every
version of both reads it.
"""

from __future__ import annotations

import configparser
import re
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Final

from gpuwizard import probes
from gpuwizard.adapters.atomic_files import write_text_atomically

CONSTRAINTS_NAME: Final = "gpuwizard-constraints.txt"
#: The start-up hook that puts the NVIDIA wheels' DLL folders on the search path (Windows), and
#: the ``.pth`` line that runs it: ``probes/cuda_dll_hook.py`` says why and how.
DLL_HOOK_MODULE: Final = "_gpuwizard_cuda_dlls"
DLL_HOOK_PTH: Final = f"{DLL_HOOK_MODULE}.pth"
_BEGIN: Final = "gpuwizard variables >>>"
_END: Final = "<<< gpuwizard variables"
_SCRIPT_NAME: Final = "gpuwizard-variables"

# The line that opens `deactivate` in CPython's venv templates and in uv/virtualenv's;
# unsetting there makes `deactivate` take the variables away again.
_DEACTIVATE_OPENERS: Final = {
    "activate": re.compile(r"^deactivate\s*\(\)\s*\{\s*$", re.MULTILINE),
    "activate.fish": re.compile(r"^function deactivate\b.*$", re.MULTILINE),
    "Activate.ps1": re.compile(r"^function global:deactivate\s*\(.*\{\s*$", re.MULTILINE),
}


#: The variable through which uv reads the pin (docs.astral.sh/uv/reference/environment/#uv_constraint).
UV_CONSTRAINT: Final = "UV_CONSTRAINT"


def pip_config_name(*, windows: bool | None = None) -> str:
    """The name of a virtual environment's own pip config file: ``pip.ini`` on Windows, else ``pip.conf``."""
    windows = sys.platform == "win32" if windows is None else windows
    return "pip.ini" if windows else "pip.conf"


def constraint_reference(path: Path) -> str:
    """How pip's config and ``UV_CONSTRAINT`` name the file ``path``: the path, else a ``file:`` URL.

    The path itself when it is printable ASCII without whitespace (what every pip and uv read
    alike); otherwise its ``file:`` URL, whose spaces and other letters are percent-encoded
    UTF-8, so that neither tool splits it and no code page changes it (the module's docstring
    says why each would).

    >>> constraint_reference(Path("/envs/demo/gpuwizard-constraints.txt"))
    '/envs/demo/gpuwizard-constraints.txt'
    >>> constraint_reference(Path("/home/Ana María/envs/x y/gpuwizard-constraints.txt"))
    'file:///home/Ana%20Mar%C3%ADa/envs/x%20y/gpuwizard-constraints.txt'
    """
    text = str(path)
    if text.isascii() and text.isprintable() and not any(char.isspace() for char in text):
        return text
    return path.absolute().as_uri()


def variables_as_written(variables: Mapping[str, str]) -> dict[str, str]:
    """``variables`` as the environment's activation sets them: ``UV_CONSTRAINT`` as uv must read it.

    The wizard sets ``UV_CONSTRAINT`` to its one pin file; a path (not a URL already) becomes
    :func:`constraint_reference`, so a folder with a space is not split into two files.
    """
    written = dict(variables)
    value = written.get(UV_CONSTRAINT)
    if value and "://" not in value and not value.startswith("file:"):
        written[UV_CONSTRAINT] = constraint_reference(Path(value))
    return written


def write_constraints(prefix: Path, pins: Sequence[str], *, windows: bool | None = None) -> Path:
    """Write the pins (``torch==2.13.0+cpu``) and point the environment's pip at them.

    The config is read and written raw (pip reads it with ``RawConfigParser``): a ``%`` in a
    value is no interpolation, and a ``file:`` URL's ``%20`` is kept as it is.
    """
    constraints = prefix / CONSTRAINTS_NAME
    header = (
        "# Written by gpuwizard: keeps the framework build this environment was made with"
        " (and the CUDA libraries its GPU needs).\n"
    )
    constraints.write_text(header + "".join(f"{pin}\n" for pin in pins), encoding="utf-8")
    config_path = prefix / pip_config_name(windows=windows)
    config = configparser.RawConfigParser()
    if config_path.is_file():
        config.read(config_path, encoding="utf-8")
    if not config.has_section("install"):
        config.add_section("install")
    config.set("install", "constraint", constraint_reference(constraints))
    with config_path.open("w", encoding="utf-8") as handle:
        config.write(handle)
    return constraints


def site_packages(prefix: Path, python_version: str, *, windows: bool | None = None) -> Path:
    r"""An environment's ``site-packages``: ``Lib\site-packages`` on Windows, ``lib/pythonX.Y/...`` elsewhere."""
    windows = sys.platform == "win32" if windows is None else windows
    if windows:
        return prefix / "Lib" / "site-packages"
    minor = ".".join(python_version.split(".")[:2])
    return prefix / "lib" / f"python{minor}" / "site-packages"


def write_dll_hook(site: Path) -> list[Path]:
    """Put the DLL start-up hook into ``site`` (a ``site-packages``); returns the two files written.

    The module first and the ``.pth`` line last, each replaced in one step: a process starting
    meanwhile sees either no hook or a whole one, never a line importing a missing module.
    """
    module = site / f"{DLL_HOOK_MODULE}.py"
    pth = site / DLL_HOOK_PTH
    write_text_atomically(module, probes.script("cuda_dll_hook").read_text(encoding="utf-8"))
    # site.py runs a .pth line that starts with "import" (docs.python.org/3/library/site.html).
    write_text_atomically(pth, f"import {DLL_HOOK_MODULE}\n")
    return [module, pth]


def write_venv_variables(prefix: Path, variables: Mapping[str, str]) -> list[Path]:
    """Set ``variables`` in every activation script the venv has; returns the scripts changed.

    ``deactivate`` unsets them again in the shells whose template allows it (bash/zsh, fish,
    PowerShell, cmd's ``deactivate.bat``); it does not restore a value set before activating.
    """
    if not variables:
        return []
    variables = variables_as_written(variables)
    changed: list[Path] = []
    # CPython writes Activate.ps1, uv and virtualenv activate.ps1: names are matched without case.
    renderers = {name.lower(): (name, render) for name, render in _VENV_RENDERERS.items()}
    for folder in (prefix / "bin", prefix / "Scripts"):
        if not folder.is_dir():
            continue
        for script in sorted(folder.iterdir()):
            key = script.name.lower()
            if key in renderers and script.is_file():
                name, render = renderers[key]
                unset = _unsetters(name, variables)
                _add_block(script, render(variables), _DEACTIVATE_OPENERS.get(name), unset)
                changed.append(script)
            elif key == "deactivate.bat":
                _add_block(script, _bat_unset(variables), None, "")
                changed.append(script)
    return changed


def write_conda_variables(prefix: Path, variables: Mapping[str, str]) -> list[Path]:
    """Activation scripts for conda-family environments (mamba 2 and micromamba have no ``env config vars``)."""
    if not variables:
        return []
    variables = variables_as_written(variables)
    scripts = {
        prefix / "etc" / "conda" / "activate.d" / f"{_SCRIPT_NAME}.sh": _sh_exports(variables),
        prefix / "etc" / "conda" / "activate.d" / f"{_SCRIPT_NAME}.bat": _bat_sets(variables),
        prefix / "etc" / "conda" / "activate.d" / f"{_SCRIPT_NAME}.ps1": _ps1_sets(variables),
        # conda runs the .fish scripts in fish (conda/activate.py FishActivator, script_extension).
        prefix / "etc" / "conda" / "activate.d" / f"{_SCRIPT_NAME}.fish": _fish_sets(variables),
        prefix / "etc" / "conda" / "deactivate.d" / f"{_SCRIPT_NAME}.fish": "".join(
            f"set -e {name}\n" for name in variables
        ),
        prefix / "etc" / "conda" / "deactivate.d" / f"{_SCRIPT_NAME}.sh": _unsetters("activate", variables),
        prefix / "etc" / "conda" / "deactivate.d" / f"{_SCRIPT_NAME}.bat": _bat_unset(variables),
        prefix / "etc" / "conda" / "deactivate.d" / f"{_SCRIPT_NAME}.ps1": _unsetters(
            "Activate.ps1", variables
        ),
    }
    for path, text in scripts.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="\r\n" if path.suffix == ".bat" else "\n")
    return list(scripts)


def _add_block(script: Path, block: str, opener: re.Pattern[str] | None, unset: str) -> None:
    newline = "\r\n" if script.suffix.lower() == ".bat" else "\n"
    text = script.read_text(encoding="utf-8")
    comment = "REM" if script.suffix.lower() == ".bat" else "#"
    if _BEGIN in text:
        return  # written already (idempotent)
    if opener is not None and unset:
        match = opener.search(text)
        if match is not None:
            text = text[: match.end()] + "\n" + unset + text[match.end() :]
    text = text.rstrip("\r\n") + "\n\n" + f"{comment} {_BEGIN}\n{block}{comment} {_END}\n"
    script.write_text(text, encoding="utf-8", newline=newline)


def sh_quote(value: str) -> str:
    """A single-quoted word for sh, bash and zsh (and csh): nothing inside is special but ``'``."""
    return "'" + value.replace("'", "'\\''") + "'"


def fish_quote(value: str) -> str:
    r"""A single-quoted word for fish, where ``\`` and ``'`` are escaped inside (fish docs, "Quotes")."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _sh_exports(variables: Mapping[str, str]) -> str:
    return "".join(f"export {name}={sh_quote(value)}\n" for name, value in variables.items())


def _fish_sets(variables: Mapping[str, str]) -> str:
    return "".join(f"set -gx {name} {fish_quote(value)}\n" for name, value in variables.items())


def _csh_sets(variables: Mapping[str, str]) -> str:
    return "".join(f"setenv {name} {sh_quote(value)}\n" for name, value in variables.items())


def _bat_sets(variables: Mapping[str, str]) -> str:
    # In a .bat file % starts a variable reference: %% is a literal percent sign.
    return "".join(f'set "{name}={value.replace("%", "%%")}"\n' for name, value in variables.items())


def _bat_unset(variables: Mapping[str, str]) -> str:
    return "".join(f'set "{name}="\n' for name in variables)


def _ps1_sets(variables: Mapping[str, str]) -> str:
    return "".join(
        f"$env:{name} = '{value.replace(chr(39), chr(39) * 2)}'\n" for name, value in variables.items()
    )


def _unsetters(script_name: str, variables: Mapping[str, str]) -> str:
    if script_name == "activate":
        return "".join(f"    unset {name}\n" for name in variables)
    if script_name == "activate.fish":
        return "".join(f"    set -e {name}\n" for name in variables)
    if script_name == "Activate.ps1":
        return "".join(
            f"    Remove-Item -Path Env:{name} -ErrorAction SilentlyContinue\n" for name in variables
        )
    return ""


_VENV_RENDERERS: Final = {
    "activate": _sh_exports,
    "activate.fish": _fish_sets,
    "activate.csh": _csh_sets,
    "activate.bat": _bat_sets,
    "Activate.ps1": _ps1_sets,
}
