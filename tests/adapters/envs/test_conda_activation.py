r"""Activation scripts of conda environments made without conda: run in real bash, zsh, fish and cmd.

The prefix is a small fake conda environment (``conda-meta/``, ``bin/python`` linking to this
interpreter) whose path has a space, a non-ASCII letter and an apostrophe. The wizard's own
variables script (``write_conda_variables``) and a package's ``activate.d`` script must run;
``deactivate`` must leave the shell as it was. cmd runs under Wine where it can be had
(the ``wine_python`` fixture: skipped without Wine, failed in CI).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gpuwizard.adapters.envs.conda_activation import MARKER, write_activation_scripts
from gpuwizard.adapters.envs.env_files import write_conda_variables
from harness.wine_python import WinePython, to_windows

VARIABLES = {"TF_FORCE_GPU_ALLOW_GROWTH": "true", "CUDA_VISIBLE_DEVICES": "0,1"}
#: The PATH every shell starts with: only what the shells themselves need.
BASE_PATH = os.pathsep.join(
    dict.fromkeys(str(Path(shutil.which(name) or "/usr/bin/x").parent) for name in ("sh", "env"))
)


@pytest.fixture
def prefix(tmp_path: Path) -> Path:
    """A conda-format environment in ``.../envs/gpu té st``, under a folder with an apostrophe."""
    made = tmp_path / "Ana's é nv" / "envs" / "gpu té st"
    (made / "conda-meta").mkdir(parents=True)
    (made / "bin").mkdir()
    (made / "bin" / "python").symlink_to(sys.executable)
    write_conda_variables(made, VARIABLES)
    return made


def add_package_scripts(prefix: Path, suffix: str, activate: str, deactivate: str) -> None:
    """A package's own activate.d/deactivate.d scripts (``pkg.SUFFIX``)."""
    newline = "\r\n" if suffix == "bat" else "\n"
    for folder, text in (("activate.d", activate), ("deactivate.d", deactivate)):
        path = prefix / "etc" / "conda" / folder / f"pkg.{suffix}"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline=newline)


def shell_env(**extra: str) -> dict[str, str]:
    env = {"PATH": BASE_PATH, "HOME": os.environ.get("HOME", "/tmp"), "LC_ALL": "C.UTF-8"}
    env.update(extra)
    return env


def read_lines(output: str) -> dict[str, str]:
    """``KEY=VALUE`` lines (the first ``=`` splits) as a dict."""
    return dict(line.split("=", 1) for line in output.splitlines() if "=" in line)


def shell_report(argv: list[str], env: dict[str, str] | None = None) -> dict[str, str]:
    """Run a shell script that prints ``KEY=VALUE`` lines; what it printed (it must succeed)."""
    done = subprocess.run(
        argv,
        env=env or shell_env(),
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return read_lines(done.stdout)


# Runs in bash and zsh alike (POSIX syntax): activate twice (the second deactivates the first:
# nothing stacks), report, deactivate, report again. KEY=VALUE lines, unset values as <unset>.
POSIX_SCRIPT = r"""
PS1='$ '
original="$PATH"
. "$1"
unset ORDER
. "$1"
printf 'reactivation_deorder=%s\n' "${DEORDER-<unset>}"
unset DEORDER
printf 'python=%s\n' "$(command -v python)"
printf 'prefix=%s\n' "${CONDA_PREFIX-<unset>}"
printf 'default_env=%s\n' "${CONDA_DEFAULT_ENV-<unset>}"
printf 'tf=%s\n' "${TF_FORCE_GPU_ALLOW_GROWTH-<unset>}"
printf 'devices=%s\n' "${CUDA_VISIBLE_DEVICES-<unset>}"
printf 'pkg=%s\n' "${PKG_HOME-<unset>}"
printf 'order=%s\n' "${ORDER-<unset>}"
printf 'ps1=%s\n' "$PS1"
printf 'path=%s\n' "$PATH"
deactivate
printf 'after_same_path=%s\n' "$([ "$PATH" = "$original" ] && echo yes || echo no)"
printf 'after_prefix=%s\n' "${CONDA_PREFIX-<unset>}"
printf 'after_tf=%s\n' "${TF_FORCE_GPU_ALLOW_GROWTH-<unset>}"
printf 'after_devices=%s\n' "${CUDA_VISIBLE_DEVICES-<unset>}"
printf 'after_pkg=%s\n' "${PKG_HOME-<unset>}"
printf 'after_ps1=%s\n' "$PS1"
printf 'after_deorder=%s\n' "${DEORDER-<unset>}"
printf 'after_deactivate=%s\n' "$(typeset -f deactivate >/dev/null 2>&1 && echo defined || echo gone)"
"""


def posix_shell(name: str) -> list[str]:
    program = shutil.which(name)
    if program is None:
        pytest.skip(f"{name} is not installed here")
    # No start-up files: what the shell does is what the scripts do.
    return [program, "--noprofile", "--norc", "-c"] if name == "bash" else [program, "-f", "-c"]


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_bash_and_zsh_activate_run_the_scripts_and_deactivate_restores_everything(prefix: Path, shell: str):
    argv = posix_shell(shell)
    written = write_activation_scripts(prefix, windows=False)
    assert written == [prefix / "bin" / "activate", prefix / "bin" / "activate.fish"]
    # Written after the activation scripts: they are found when activating, not when writing.
    add_package_scripts(prefix, "sh", 'export PKG_HOME="$CONDA_PREFIX/pkg"\n', "unset PKG_HOME\n")
    for name in ("a-first", "b-second"):
        for folder, variable in (("activate.d", "ORDER"), ("deactivate.d", "DEORDER")):
            script = prefix / "etc" / "conda" / folder / f"{name}.sh"
            script.write_text(f'{variable}="${{{variable}:+${variable} }}{name}"\n', encoding="utf-8")

    seen = shell_report([*argv, POSIX_SCRIPT, shell, str(prefix / "bin" / "activate")])

    assert seen["python"] == str(prefix / "bin" / "python")
    assert seen["prefix"] == str(prefix)
    assert seen["default_env"] == "gpu té st"  # the folder's name: its parent is called envs
    assert (seen["tf"], seen["devices"]) == ("true", "0,1")
    assert seen["pkg"] == f"{prefix}/pkg"
    # activate.d in name order, the package's own scripts included; sourced twice, it did not stack.
    assert seen["order"] == "a-first b-second"
    assert seen["reactivation_deorder"] == "b-second a-first"
    assert seen["path"] == f"{prefix}/bin:{BASE_PATH}"
    assert seen["ps1"] == "(gpu té st) $ "
    assert seen["after_same_path"] == "yes"
    for name in ("after_prefix", "after_tf", "after_devices", "after_pkg"):
        assert seen[name] == "<unset>", name
    assert seen["after_ps1"] == "$ "
    assert seen["after_deorder"] == "b-second a-first"  # deactivate.d last name first, as conda
    assert seen["after_deactivate"] == "gone"


def test_a_conda_environment_active_before_is_active_again_after_deactivate(prefix: Path):
    argv = posix_shell("bash")
    write_activation_scripts(prefix, windows=False)
    script = (
        '. "$1"; printf "inside=%s\\n" "$CONDA_PREFIX"; deactivate; '
        'printf "prefix=%s\\nname=%s\\nmodifier=%s\\n" "$CONDA_PREFIX" "$CONDA_DEFAULT_ENV" "$CONDA_PROMPT_MODIFIER"'
    )
    seen = shell_report(
        [*argv, script, "bash", str(prefix / "bin" / "activate")],
        shell_env(CONDA_PREFIX="/opt/conda", CONDA_DEFAULT_ENV="base", CONDA_PROMPT_MODIFIER="(base) "),
    )
    assert seen["inside"] == str(prefix)
    assert (seen["prefix"], seen["name"], seen["modifier"]) == ("/opt/conda", "base", "(base) ")


def test_outside_an_envs_folder_the_environment_is_named_by_its_path(tmp_path: Path):
    argv = posix_shell("bash")
    elsewhere = tmp_path / "my projects" / "gpu"
    (elsewhere / "conda-meta").mkdir(parents=True)
    write_activation_scripts(elsewhere, windows=False)
    done = subprocess.run(
        [*argv, '. "$1"; printf "%s\\n" "$CONDA_DEFAULT_ENV"', "bash", str(elsewhere / "bin" / "activate")],
        env=shell_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    # conda's _default_env: the whole path unless the parent folder is called envs.
    assert done.stdout.strip() == str(elsewhere)


FISH_SCRIPT = r"""
function fish_prompt; echo -n '> '; end
set original (string join : $PATH)
source $argv[1]
source $argv[1]
printf 'python=%s\n' (command -v python)
printf 'prefix=%s\n' $CONDA_PREFIX
printf 'pkg=%s\n' $PKG_HOME
printf 'grow=%s\n' $TF_FORCE_GPU_ALLOW_GROWTH
printf 'prompt=%s\n' (fish_prompt)
printf 'path=%s\n' (string join : $PATH)
deactivate
printf 'after_same_path=%s\n' (test (string join : $PATH) = $original; and echo yes; or echo no)
printf 'after_prefix=%s\n' (set -q CONDA_PREFIX; and echo $CONDA_PREFIX; or echo '<unset>')
printf 'after_pkg=%s\n' (set -q PKG_HOME; and echo $PKG_HOME; or echo '<unset>')
printf 'after_grow=%s\n' (set -q TF_FORCE_GPU_ALLOW_GROWTH; and echo set; or echo '<unset>')
printf 'after_prompt=%s\n' (fish_prompt)
printf 'after_deactivate=%s\n' (functions -q deactivate; and echo defined; or echo gone)
"""


def test_fish_activate_runs_the_scripts_and_deactivate_restores_everything(prefix: Path):
    fish = shutil.which("fish")
    if fish is None:
        pytest.skip("fish is not installed here")
    write_activation_scripts(prefix, windows=False)
    add_package_scripts(prefix, "fish", 'set -gx PKG_HOME "$CONDA_PREFIX/pkg"\n', "set -e PKG_HOME\n")
    seen = shell_report([fish, "--no-config", "-c", FISH_SCRIPT, str(prefix / "bin" / "activate.fish")])
    assert seen["python"] == str(prefix / "bin" / "python")
    assert seen["prefix"] == str(prefix)
    assert seen["pkg"] == f"{prefix}/pkg"
    assert seen["grow"] == "true"  # the wizard's variables: activate.d/gpuwizard-variables.fish
    assert seen["prompt"] == "(gpu té st) > "
    assert seen["path"] == f"{prefix}/bin:{BASE_PATH}"
    assert seen["after_same_path"] == "yes"
    assert (seen["after_prefix"], seen["after_pkg"], seen["after_grow"]) == ("<unset>",) * 3
    assert seen["after_prompt"] == "> "
    assert seen["after_deactivate"] == "gone"


def test_writing_again_gives_the_same_files_and_a_package_s_own_script_is_kept(prefix: Path):
    first = write_activation_scripts(prefix, windows=False)
    texts = [path.read_bytes() for path in first]
    assert write_activation_scripts(prefix, windows=False) == first
    assert [path.read_bytes() for path in first] == texts
    foreign = prefix / "Scripts" / "activate.bat"
    foreign.parent.mkdir()
    foreign.write_bytes(b"@REM the conda package's own\r\n")
    written = write_activation_scripts(prefix, windows=True)
    assert written == [prefix / "Scripts" / "deactivate.bat", prefix / "Scripts" / "Activate.ps1"]
    assert foreign.read_bytes() == b"@REM the conda package's own\r\n"


def test_the_windows_scripts_follow_conda_s_path_order_with_crlf_for_cmd(prefix: Path):
    scripts = {path.name: path.read_bytes() for path in write_activation_scripts(prefix, windows=True)}
    assert set(scripts) == {"activate.bat", "deactivate.bat", "Activate.ps1"}
    for name, data in scripts.items():
        # No path is spelled in them (found from their own place): plain ASCII for every code page.
        assert data.isascii(), name
        assert MARKER.encode() in data
    for name in ("activate.bat", "deactivate.bat"):
        assert data_lines_end_in_crlf(scripts[name]), name
    assert b"\r" not in scripts["Activate.ps1"]
    bat = scripts["activate.bat"].decode()
    # conda/activate.py _get_path_dirs on Windows: PREFIX, the MSYS2 variant, mingw-w64, usr, Library\bin, Scripts, bin.
    p = "%_GPUWIZARD_PREFIX%"
    assert (
        f'set "PATH={p};%_GPUWIZARD_VARIANT%{p}\\Library\\mingw-w64\\bin;{p}\\Library\\usr\\bin;'
        f'{p}\\Library\\bin;{p}\\Scripts;{p}\\bin;%PATH%"'
    ) in bat
    ps1 = scripts["Activate.ps1"].decode()
    assert "'Library\\mingw-w64\\bin', 'Library\\usr\\bin', 'Library\\bin', 'Scripts', 'bin'" in ps1
    assert "etc\\conda\\activate.d" in ps1 and "etc\\conda\\deactivate.d" in ps1


def data_lines_end_in_crlf(data: bytes) -> bool:
    return data.count(b"\n") > 0 and data.count(b"\n") == data.count(b"\r\n")


# Compares inside cmd (values with a non-ASCII letter would reach the pipe in the console's code
# page): each check prints a word only when it holds.
DRIVER_BAT = r"""@echo off
set "BEFORE=%PATH%"
call "%GW_PREFIX%\Scripts\activate.bat"
call "%GW_PREFIX%\Scripts\activate.bat"
if "%CONDA_PREFIX%"=="%GW_PREFIX%" echo PREFIX-OK
if "%CONDA_DEFAULT_ENV%"=="%GW_NAME%" echo NAME-OK
if "%PKG_HOME%"=="%GW_PREFIX%\pkg" echo PKG-OK
if "%PATH%"=="%GW_PREFIX%;%GW_PREFIX%\Library\mingw-w64\bin;%GW_PREFIX%\Library\usr\bin;%GW_PREFIX%\Library\bin;%GW_PREFIX%\Scripts;%GW_PREFIX%\bin;%BEFORE%" echo PATH-OK
echo TF=%TF_FORCE_GPU_ALLOW_GROWTH%
echo DEVICES=%CUDA_VISIBLE_DEVICES%
if "%PROMPT%"=="(%GW_NAME%) $P$G" echo PROMPT-OK
call deactivate
if "%PATH%"=="%BEFORE%" echo AFTER-PATH-OK
if not defined CONDA_PREFIX echo AFTER-PREFIX-GONE
if not defined TF_FORCE_GPU_ALLOW_GROWTH echo AFTER-TF-GONE
if not defined CUDA_VISIBLE_DEVICES echo AFTER-DEVICES-GONE
if not defined PKG_HOME echo AFTER-PKG-GONE
if "%PROMPT%"=="$P$G" echo AFTER-PROMPT-OK
"""


def test_cmd_activate_bat_under_wine(prefix: Path, tmp_path: Path, wine_python: WinePython):
    write_activation_scripts(prefix, windows=True)
    add_package_scripts(prefix, "bat", '@set "PKG_HOME=%CONDA_PREFIX%\\pkg"\n', '@set "PKG_HOME="\n')
    driver = tmp_path / "driver.bat"
    driver.write_text(DRIVER_BAT, encoding="ascii", newline="\r\n")
    env = dict(wine_python.env, LC_ALL="C.UTF-8", GW_PREFIX=to_windows(prefix), GW_NAME=prefix.name)
    env.pop("PROMPT", None)
    done = subprocess.run(
        [wine_python.wine, "cmd", "/c", to_windows(driver)],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=120,
        check=False,
    )
    words = done.stdout.split()
    expected = [
        "PREFIX-OK", "NAME-OK", "PKG-OK", "PATH-OK", "TF=true", "DEVICES=0,1", "PROMPT-OK",
        "AFTER-PATH-OK", "AFTER-PREFIX-GONE", "AFTER-TF-GONE", "AFTER-DEVICES-GONE", "AFTER-PKG-GONE",
        "AFTER-PROMPT-OK",
    ]  # fmt: skip
    assert words == expected, done.stdout + done.stderr
