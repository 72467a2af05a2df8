r"""Activation scripts for conda environments whose owner has no conda (issue 23, point 2).

An environment made by py-rattler (tool ``rattler``) is conda-format, but the person who asked
for it has no ``conda activate``. :func:`write_activation_scripts` writes small scripts into the
environment under the names venv uses, so people know them: ``bin/activate`` (bash, zsh; to be
``source``\ d) and ``bin/activate.fish`` on POSIX, ``Scripts\activate.bat``,
``Scripts\deactivate.bat`` and ``Scripts\Activate.ps1`` on Windows.

Each sets what ``conda activate`` sets, as conda's own activator does it (conda/conda,
``conda/activate.py`` at 0f64223, Aug 2026):

- ``PATH``: the directories of ``_get_path_dirs`` first. On Windows PREFIX,
  ``Library\<variant>\bin`` for the first of ``ucrt64``, ``clang64``, ``mingw64``,
  ``clangarm64`` that exists (MSYS2 packages), ``Library\mingw-w64\bin``, ``Library\usr\bin``,
  ``Library\bin``, ``Scripts``, ``bin``; elsewhere ``PREFIX/bin``.
- ``CONDA_PREFIX``; ``CONDA_DEFAULT_ENV`` (``_default_env``: the folder's name when its parent
  is called ``envs``, else the whole path); ``CONDA_PROMPT_MODIFIER`` and the prompt, prefixed
  with ``({default_env}) `` (``env_prompt``'s default, conda/base/context.py). The prompt is
  left alone when ``VIRTUAL_ENV_DISABLE_PROMPT`` is set, as venv's scripts do.
- then it runs ``etc/conda/activate.d/*.sh`` (``.fish``, ``.bat``, ``.ps1`` for those shells)
  in name order, at activation time (``_get_activate_scripts``), so the packages' own scripts
  and the wizard's variables (:func:`gpuwizard.adapters.envs.env_files.write_conda_variables`)
  both run, including those added after the scripts were written.

``deactivate`` runs ``etc/conda/deactivate.d`` scripts in reverse name order
(``_get_deactivate_scripts``), puts ``PATH``, the prompt and the three ``CONDA_*`` variables
back as they were (a conda environment active before is therefore active again) and removes
itself. ``CONDA_SHLVL`` is not touched: it counts conda's own stack of activations, which
these scripts are not part of. Activating while one of these is active deactivates that one
first, as venv's scripts do (in bash, zsh, fish and PowerShell a venv's ``deactivate`` too).

The POSIX scripts name the prefix in single quotes (UTF-8, any character). The Windows ones
find it from their own place (``%~dp0``, ``$PSScriptRoot``, as CPython's ``Activate.ps1``
does), so no path is ever spelled in a file that cmd reads in the console's code page or
Windows PowerShell 5.1 reads as ANSI.

A file of the same name that the wizard did not write (the ``conda`` package's own
``activate`` in a base environment) is left alone: it belongs to a package.
"""

from __future__ import annotations

import sys
from pathlib import Path, PurePath, PurePosixPath
from typing import Final

from gpuwizard.adapters.atomic_files import write_text_atomically
from gpuwizard.adapters.envs.env_files import fish_quote, sh_quote

#: In every script the wizard writes: a file without it is someone else's and is kept.
MARKER: Final = "Written by gpuwizard: activates this conda environment without conda."


def write_activation_scripts(prefix: Path, *, windows: bool | None = None) -> list[Path]:
    r"""Write the activation scripts of the conda environment at ``prefix``; returns those written.

    Writing again replaces the wizard's own scripts with the same text (idempotent).

    Args:
        prefix: The environment's folder (it has ``conda-meta/``).
        windows: Write the Windows scripts (``Scripts\``); None: as this machine is.

    Raises:
        OSError: The folder cannot be written.
    """
    windows = sys.platform == "win32" if windows is None else windows
    if windows:
        folder = prefix / "Scripts"
        scripts = {
            "activate.bat": (_ACTIVATE_BAT, "\r\n"),
            "deactivate.bat": (_DEACTIVATE_BAT, "\r\n"),
            "Activate.ps1": (_ACTIVATE_PS1, "\n"),
        }
    else:
        folder = prefix / "bin"
        default_env = _default_env(PurePosixPath(str(prefix)))
        values = {
            "@PREFIX@": sh_quote(str(prefix)),
            "@DEFAULT_ENV@": sh_quote(default_env),
            "@MODIFIER@": sh_quote(f"({default_env}) "),
        }
        fish_values = {
            "@PREFIX@": fish_quote(str(prefix)),
            "@DEFAULT_ENV@": fish_quote(default_env),
            "@MODIFIER@": fish_quote(f"({default_env}) "),
        }
        scripts = {
            "activate": (_fill(_ACTIVATE_SH, values), "\n"),
            "activate.fish": (_fill(_ACTIVATE_FISH, fish_values), "\n"),
        }
    folder.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for name, (text, newline) in scripts.items():
        path = folder / name
        if _foreign(path):
            continue
        write_text_atomically(path, text.replace("\n", newline))
        written.append(path)
    return written


def _default_env(prefix: PurePath) -> str:
    """The ``CONDA_DEFAULT_ENV`` conda gives ``prefix`` (``_default_env``; the base case never applies here)."""
    return prefix.name if prefix.parent.name == "envs" else str(prefix)


def _foreign(path: Path) -> bool:
    """True when ``path`` exists and the wizard did not write it."""
    try:
        return MARKER not in path.read_text(encoding="utf-8", errors="replace")
    except FileNotFoundError:
        return False
    except OSError:
        return True


def _fill(template: str, values: dict[str, str]) -> str:
    for key, value in values.items():
        template = template.replace(key, value)
    return template


# bash and zsh. Sourced, so it runs in the user's shell: every helper name starts with
# _gpuwizard, and the loops run inside a function where zsh's `setopt localoptions nullglob`
# keeps an empty folder from being an error ("no matches found") without changing the shell.
_ACTIVATE_SH: Final = f"""\
# {MARKER}
# Use it with "source bin/activate" from bash or zsh (it cannot be run on its own);
# "deactivate" undoes it. It sets what `conda activate` sets (conda/activate.py): PATH,
# CONDA_PREFIX, CONDA_DEFAULT_ENV, CONDA_PROMPT_MODIFIER and the prompt, then runs
# etc/conda/activate.d/*.sh; deactivate runs etc/conda/deactivate.d/*.sh.

if typeset -f deactivate >/dev/null 2>&1; then
    deactivate
fi

_gpuwizard_source_all () {{
    # $1: a folder; $2: "reverse" runs its scripts last name first (conda's deactivate order).
    if [ -n "${{ZSH_VERSION-}}" ]; then
        setopt localoptions nullglob
    fi
    [ -d "$1" ] || return 0
    if [ "$2" = reverse ]; then
        set -- "$1"/*.sh
        _gpuwizard_i=$#
        while [ "$_gpuwizard_i" -gt 0 ]; do
            eval "_gpuwizard_script=\\"\\${{$_gpuwizard_i}}\\""
            if [ -f "$_gpuwizard_script" ]; then
                . "$_gpuwizard_script"
            fi
            _gpuwizard_i=$((_gpuwizard_i - 1))
        done
        unset _gpuwizard_i _gpuwizard_script
    else
        for _gpuwizard_script in "$1"/*.sh; do
            if [ -f "$_gpuwizard_script" ]; then
                . "$_gpuwizard_script"
            fi
        done
        unset _gpuwizard_script
    fi
}}

_gpuwizard_restore () {{
    # $1: a variable's name; puts back the value saved in _GPUWIZARD_OLD_$1, or unsets it.
    if eval "[ -n \\"\\${{_GPUWIZARD_OLD_$1+set}}\\" ]"; then
        eval "$1=\\"\\$_GPUWIZARD_OLD_$1\\"; export $1; unset _GPUWIZARD_OLD_$1"
    else
        unset "$1"
    fi
}}

deactivate () {{
    _gpuwizard_source_all "$_GPUWIZARD_PREFIX/etc/conda/deactivate.d" reverse
    PATH="$_GPUWIZARD_OLD_PATH"
    export PATH
    unset _GPUWIZARD_OLD_PATH
    _gpuwizard_restore CONDA_PREFIX
    _gpuwizard_restore CONDA_DEFAULT_ENV
    _gpuwizard_restore CONDA_PROMPT_MODIFIER
    if [ -n "${{_GPUWIZARD_OLD_PS1+set}}" ]; then
        PS1="$_GPUWIZARD_OLD_PS1"
        unset _GPUWIZARD_OLD_PS1
    fi
    unset _GPUWIZARD_PREFIX
    # bash and zsh remember where commands were found: forget the environment's.
    hash -r 2>/dev/null
    unset -f deactivate _gpuwizard_source_all _gpuwizard_restore
}}

_GPUWIZARD_PREFIX=@PREFIX@
_GPUWIZARD_OLD_PATH="${{PATH-}}"
for _gpuwizard_name in CONDA_PREFIX CONDA_DEFAULT_ENV CONDA_PROMPT_MODIFIER; do
    if eval "[ -n \\"\\${{$_gpuwizard_name+set}}\\" ]"; then
        eval "_GPUWIZARD_OLD_$_gpuwizard_name=\\"\\$$_gpuwizard_name\\""
    fi
done
unset _gpuwizard_name
PATH="$_GPUWIZARD_PREFIX/bin${{PATH:+:$PATH}}"
export PATH
CONDA_PREFIX="$_GPUWIZARD_PREFIX"
CONDA_DEFAULT_ENV=@DEFAULT_ENV@
CONDA_PROMPT_MODIFIER=@MODIFIER@
export CONDA_PREFIX CONDA_DEFAULT_ENV CONDA_PROMPT_MODIFIER
if [ -z "${{VIRTUAL_ENV_DISABLE_PROMPT-}}" ]; then
    _GPUWIZARD_OLD_PS1="${{PS1-}}"
    PS1="$CONDA_PROMPT_MODIFIER${{PS1-}}"
fi
hash -r 2>/dev/null
_gpuwizard_source_all "$_GPUWIZARD_PREFIX/etc/conda/activate.d" forward
"""

# fish: a glob that matches nothing in `for` is an empty list, not an error (fish docs,
# "Wildcards"); the prompt is wrapped as venv's activate.fish wraps it.
_ACTIVATE_FISH: Final = f"""\
# {MARKER}
# Use it with "source bin/activate.fish" from fish; "deactivate" undoes it. It sets what
# `conda activate` sets (conda/activate.py): PATH, CONDA_PREFIX, CONDA_DEFAULT_ENV,
# CONDA_PROMPT_MODIFIER and the prompt, then runs etc/conda/activate.d/*.fish;
# deactivate runs etc/conda/deactivate.d/*.fish.

if functions -q deactivate
    deactivate
end

function _gpuwizard_restore --argument-names name
    set -l saved _GPUWIZARD_OLD_$name
    if set -q $saved
        set -gx $name $$saved
        set -e $saved
    else
        set -e $name
    end
end

function deactivate --description 'Leave the conda environment'
    set -l scripts $_GPUWIZARD_PREFIX/etc/conda/deactivate.d/*.fish
    set -l index (count $scripts)
    while test $index -gt 0
        source $scripts[$index]
        set index (math $index - 1)
    end
    set -gx PATH $_GPUWIZARD_OLD_PATH
    set -e _GPUWIZARD_OLD_PATH
    _gpuwizard_restore CONDA_PREFIX
    _gpuwizard_restore CONDA_DEFAULT_ENV
    _gpuwizard_restore CONDA_PROMPT_MODIFIER
    if functions -q _gpuwizard_old_fish_prompt
        functions -e fish_prompt
        functions -c _gpuwizard_old_fish_prompt fish_prompt
        functions -e _gpuwizard_old_fish_prompt
    end
    set -e _GPUWIZARD_PREFIX
    functions -e deactivate _gpuwizard_restore
end

set -g _GPUWIZARD_PREFIX @PREFIX@
set -g _GPUWIZARD_OLD_PATH $PATH
for name in CONDA_PREFIX CONDA_DEFAULT_ENV CONDA_PROMPT_MODIFIER
    if set -q $name
        set -g _GPUWIZARD_OLD_$name $$name
    end
end
set -gx PATH $_GPUWIZARD_PREFIX/bin $PATH
set -gx CONDA_PREFIX $_GPUWIZARD_PREFIX
set -gx CONDA_DEFAULT_ENV @DEFAULT_ENV@
set -gx CONDA_PROMPT_MODIFIER @MODIFIER@
if test -z "$VIRTUAL_ENV_DISABLE_PROMPT"; and functions -q fish_prompt
    functions -c fish_prompt _gpuwizard_old_fish_prompt
    function fish_prompt
        set -l old_status $status
        printf '%s' $CONDA_PROMPT_MODIFIER
        # Gives the old prompt the last command's status back (as venv's activate.fish does).
        echo "exit $old_status" | .
        _gpuwizard_old_fish_prompt
    end
end
for script in $_GPUWIZARD_PREFIX/etc/conda/activate.d/*.fish
    source $script
end
"""

# cmd. No parenthesised blocks around expanded values: a PATH with "C:\Program Files (x86)"
# would close them. Values are set as set "NAME=VALUE", which keeps & and spaces. The prefix
# comes from the script's own folder. The scripts are listed by `dir /b /o:n` (/o:-n: last name
# first), not by `for %%s in ("FOLDER\*.bat")`, which Wine's cmd (8.0) matches to nothing when
# the pattern is quoted; the extension is checked again because dir also matches 8.3 names.
_ACTIVATE_BAT: Final = f"""\
@echo off
rem {MARKER}
rem Run it in cmd ("PREFIX\\Scripts\\activate.bat"; "call" it from a batch file); "deactivate"
rem undoes it. It sets what `conda activate` sets (conda/activate.py, CmdExeActivator and
rem _get_path_dirs): PATH, CONDA_PREFIX, CONDA_DEFAULT_ENV, CONDA_PROMPT_MODIFIER and PROMPT,
rem then runs PREFIX\\etc\\conda\\activate.d\\*.bat.
if defined _GPUWIZARD_PREFIX call "%_GPUWIZARD_PREFIX%\\Scripts\\deactivate.bat"
for %%i in ("%~dp0..") do set "_GPUWIZARD_PREFIX=%%~fi"
set "_GPUWIZARD_OLD_PATH=%PATH%"
set "_GPUWIZARD_OLD_CONDA_PREFIX=%CONDA_PREFIX%"
set "_GPUWIZARD_OLD_CONDA_DEFAULT_ENV=%CONDA_DEFAULT_ENV%"
set "_GPUWIZARD_OLD_CONDA_PROMPT_MODIFIER=%CONDA_PROMPT_MODIFIER%"
set "_GPUWIZARD_VARIANT="
if exist "%_GPUWIZARD_PREFIX%\\Library\\ucrt64\\" set "_GPUWIZARD_VARIANT=%_GPUWIZARD_PREFIX%\\Library\\ucrt64\\bin;"
if not defined _GPUWIZARD_VARIANT if exist "%_GPUWIZARD_PREFIX%\\Library\\clang64\\" set "_GPUWIZARD_VARIANT=%_GPUWIZARD_PREFIX%\\Library\\clang64\\bin;"
if not defined _GPUWIZARD_VARIANT if exist "%_GPUWIZARD_PREFIX%\\Library\\mingw64\\" set "_GPUWIZARD_VARIANT=%_GPUWIZARD_PREFIX%\\Library\\mingw64\\bin;"
if not defined _GPUWIZARD_VARIANT if exist "%_GPUWIZARD_PREFIX%\\Library\\clangarm64\\" set "_GPUWIZARD_VARIANT=%_GPUWIZARD_PREFIX%\\Library\\clangarm64\\bin;"
set "PATH=%_GPUWIZARD_PREFIX%;%_GPUWIZARD_VARIANT%%_GPUWIZARD_PREFIX%\\Library\\mingw-w64\\bin;%_GPUWIZARD_PREFIX%\\Library\\usr\\bin;%_GPUWIZARD_PREFIX%\\Library\\bin;%_GPUWIZARD_PREFIX%\\Scripts;%_GPUWIZARD_PREFIX%\\bin;%PATH%"
set "_GPUWIZARD_VARIANT="
set "CONDA_PREFIX=%_GPUWIZARD_PREFIX%"
set "CONDA_DEFAULT_ENV=%_GPUWIZARD_PREFIX%"
for %%i in ("%_GPUWIZARD_PREFIX%\\..") do if "%%~nxi"=="envs" for %%j in ("%_GPUWIZARD_PREFIX%") do set "CONDA_DEFAULT_ENV=%%~nxj"
set "CONDA_PROMPT_MODIFIER=(%CONDA_DEFAULT_ENV%) "
if not defined PROMPT set "PROMPT=$P$G"
set "_GPUWIZARD_OLD_PROMPT=%PROMPT%"
if not defined VIRTUAL_ENV_DISABLE_PROMPT set "PROMPT=%CONDA_PROMPT_MODIFIER%%PROMPT%"
if exist "%_GPUWIZARD_PREFIX%\\etc\\conda\\activate.d\\" for /f "delims=" %%s in ('dir /b /a-d /o:n "%_GPUWIZARD_PREFIX%\\etc\\conda\\activate.d\\*.bat" 2^>nul') do if /i "%%~xs"==".bat" call "%_GPUWIZARD_PREFIX%\\etc\\conda\\activate.d\\%%s"
"""

_DEACTIVATE_BAT: Final = f"""\
@echo off
rem {MARKER}
rem Leaves the environment that Scripts\\activate.bat entered: runs
rem PREFIX\\etc\\conda\\deactivate.d\\*.bat (last name first, as conda does), then puts PATH,
rem PROMPT and the CONDA_* variables back.
if not defined _GPUWIZARD_PREFIX goto :eof
if exist "%_GPUWIZARD_PREFIX%\\etc\\conda\\deactivate.d\\" for /f "delims=" %%s in ('dir /b /a-d /o:-n "%_GPUWIZARD_PREFIX%\\etc\\conda\\deactivate.d\\*.bat" 2^>nul') do if /i "%%~xs"==".bat" call "%_GPUWIZARD_PREFIX%\\etc\\conda\\deactivate.d\\%%s"
set "PATH=%_GPUWIZARD_OLD_PATH%"
set "PROMPT=%_GPUWIZARD_OLD_PROMPT%"
set "CONDA_PREFIX=%_GPUWIZARD_OLD_CONDA_PREFIX%"
set "CONDA_DEFAULT_ENV=%_GPUWIZARD_OLD_CONDA_DEFAULT_ENV%"
set "CONDA_PROMPT_MODIFIER=%_GPUWIZARD_OLD_CONDA_PROMPT_MODIFIER%"
set "_GPUWIZARD_OLD_PATH="
set "_GPUWIZARD_OLD_PROMPT="
set "_GPUWIZARD_OLD_CONDA_PREFIX="
set "_GPUWIZARD_OLD_CONDA_DEFAULT_ENV="
set "_GPUWIZARD_OLD_CONDA_PROMPT_MODIFIER="
set "_GPUWIZARD_PREFIX="
"""

# PowerShell (Windows PowerShell 5.1 and 7). Meant to be run with "& PATH" like venv's:
# deactivate and the prompt are global functions, the variables the process's own.
_ACTIVATE_PS1: Final = f"""\
# {MARKER}
# Run it in PowerShell ("& PREFIX\\Scripts\\Activate.ps1"); "deactivate" undoes it. It sets
# what `conda activate` sets (conda/activate.py, PowerShellActivator and _get_path_dirs): PATH,
# CONDA_PREFIX, CONDA_DEFAULT_ENV, CONDA_PROMPT_MODIFIER and the prompt, then runs
# PREFIX\\etc\\conda\\activate.d\\*.ps1.

if (Test-Path -Path function:deactivate) {{
    deactivate
}}

function global:deactivate {{
    $prefix = $global:_GpuwizardPrefix
    $folder = Join-Path $prefix 'etc\\conda\\deactivate.d'
    if (Test-Path -LiteralPath $folder -PathType Container) {{
        foreach ($script in @(Get-ChildItem -LiteralPath $folder -Filter '*.ps1' -File | Sort-Object -Property Name -Descending)) {{
            . $script.FullName
        }}
    }}
    foreach ($entry in $global:_GpuwizardSaved.GetEnumerator()) {{
        if ($null -eq $entry.Value) {{
            Remove-Item -Path "Env:$($entry.Key)" -ErrorAction SilentlyContinue
        }} else {{
            Set-Item -Path "Env:$($entry.Key)" -Value $entry.Value
        }}
    }}
    if (Test-Path -Path function:_GpuwizardOldPrompt) {{
        Copy-Item -Path function:_GpuwizardOldPrompt -Destination function:global:prompt
        Remove-Item -Path function:_GpuwizardOldPrompt
    }}
    Remove-Variable -Name _GpuwizardPrefix, _GpuwizardSaved -Scope Global -ErrorAction SilentlyContinue
    Remove-Item -Path function:deactivate
}}

$global:_GpuwizardPrefix = Split-Path -Parent $PSScriptRoot
$prefix = $global:_GpuwizardPrefix
$global:_GpuwizardSaved = @{{}}
foreach ($name in 'PATH', 'CONDA_PREFIX', 'CONDA_DEFAULT_ENV', 'CONDA_PROMPT_MODIFIER') {{
    $global:_GpuwizardSaved[$name] = [Environment]::GetEnvironmentVariable($name)
}}
$dirs = @($prefix)
foreach ($variant in 'ucrt64', 'clang64', 'mingw64', 'clangarm64') {{
    if (Test-Path -LiteralPath (Join-Path $prefix "Library\\$variant") -PathType Container) {{
        $dirs += Join-Path $prefix "Library\\$variant\\bin"
        break
    }}
}}
$dirs += @('Library\\mingw-w64\\bin', 'Library\\usr\\bin', 'Library\\bin', 'Scripts', 'bin') | ForEach-Object {{ Join-Path $prefix $_ }}
if ($env:PATH) {{
    $dirs += $env:PATH
}}
$env:PATH = $dirs -join [IO.Path]::PathSeparator
$env:CONDA_PREFIX = $prefix
if ((Split-Path -Leaf (Split-Path -Parent $prefix)) -ceq 'envs') {{
    $env:CONDA_DEFAULT_ENV = Split-Path -Leaf $prefix
}} else {{
    $env:CONDA_DEFAULT_ENV = $prefix
}}
$env:CONDA_PROMPT_MODIFIER = "($env:CONDA_DEFAULT_ENV) "
if (-not $env:VIRTUAL_ENV_DISABLE_PROMPT) {{
    function global:_GpuwizardOldPrompt {{ '' }}
    Copy-Item -Path function:prompt -Destination function:_GpuwizardOldPrompt
    function global:prompt {{
        $env:CONDA_PROMPT_MODIFIER + (_GpuwizardOldPrompt)
    }}
}}
$folder = Join-Path $prefix 'etc\\conda\\activate.d'
if (Test-Path -LiteralPath $folder -PathType Container) {{
    foreach ($script in @(Get-ChildItem -LiteralPath $folder -Filter '*.ps1' -File | Sort-Object -Property Name)) {{
        . $script.FullName
    }}
}}
"""
