"""Arguments of a printed command quoted for the person's shells (issue 41: names and paths with spaces).

A POSIX shell's reading is checked for real: :func:`shlex.split` reads a line as ``sh`` does,
and ``sh -c`` runs it. cmd and PowerShell are not at hand here, so their spellings are checked
as written: double quotes for both, PowerShell's single quotes where it would expand ``$``.
"""

from __future__ import annotations

import shlex
import subprocess

import pytest

from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.wizard_command import (
    BY_NAME,
    WizardCommand,
    argument_words,
    shell_argument,
    shell_command,
)
from harness.waits import EVENT_S

#: Names and paths a person may type: spaces, letters outside ASCII, a shell's special characters.
WORDS = [
    "ünï gpu",
    "mein Labor ü",
    "/tmp/oc41 wheels 2.13 only torch",
    "/tmp/x dir/req ü.txt",
    "训练 数据",
    "lab $HOME",
    "Ann's lab",
    "a&b;c(d)",
    "numpy<2",
    "*",
    "",
]


@pytest.mark.parametrize("word", WORDS)
def test_a_posix_shell_reads_each_argument_back_as_one_word(word: str):
    line = shell_command(["printf", "%s\\n", word], windows=False)
    assert shlex.split(line) == ["printf", "%s\\n", word]
    done = subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=EVENT_S, check=True)
    assert done.stdout == f"{word}\n"


@pytest.mark.parametrize("word", WORDS)
def test_the_wizard_run_with_a_name_is_read_back_by_a_posix_shell(word: str):
    line = BY_NAME.run("env", "create", word, "--framework", "pytorch", "--from-pypi")
    assert shlex.split(line) == ["gpuwizard", "env", "create", word, "--framework", "pytorch", "--from-pypi"]


def test_plain_words_and_letters_of_any_script_stay_unquoted():
    assert (
        BY_NAME.run("env", "create", "ünï", "--version", "2.13.0")
        == "gpuwizard env create ünï --version 2.13.0"
    )
    windows = WizardCommand(windows=True)
    assert windows.run("env", "remove", "训练") == "gpuwizard env remove 训练"


@pytest.mark.parametrize(
    ("word", "cmd", "powershell"),
    [
        ("ünï gpu", '"ünï gpu"', '"ünï gpu"'),
        ("mein Labor ü", '"mein Labor ü"', '"mein Labor ü"'),
        (r"C:\Users\Zoë\oc41 wheels", r'"C:\Users\Zoë\oc41 wheels"', r'"C:\Users\Zoë\oc41 wheels"'),
        ("Ann's lab", '"Ann\'s lab"', '"Ann\'s lab"'),
        ("a&b", '"a&b"', '"a&b"'),
        # PowerShell expands $ and ` inside double quotes: its single quotes keep them.
        ("lab $HOME", '"lab $HOME"', "'lab $HOME'"),
        ("Ann's $lab", '"Ann\'s $lab"', "'Ann''s $lab'"),
        # A Windows program reads \" as a quote: a trailing backslash is doubled inside quotes.
        ("C:\\my wheels\\", '"C:\\my wheels\\\\"', '"C:\\my wheels\\\\"'),
        ("C:\\wheels", "C:\\wheels", "C:\\wheels"),
    ],
)
def test_the_windows_spellings_for_cmd_and_powershell(word: str, cmd: str, powershell: str):
    assert argument_words(word, windows=True) == (cmd, powershell)
    line = WizardCommand(windows=True).run("env", "create", word)
    if cmd == powershell:
        assert line == f"gpuwizard env create {cmd}"
    else:
        assert line == f"gpuwizard env create {cmd}   (cmd; in PowerShell: gpuwizard env create {powershell})"


def test_a_windows_program_path_and_a_quoted_name_each_get_their_shells_form():
    wizard = WizardCommand.of(r"C:\Program Files\gpuwizard\gpuwizard.exe", windows=True)
    assert wizard.run("env", "create", "mein Labor ü", "--from-pypi") == (
        r'"C:\Program Files\gpuwizard\gpuwizard.exe" env create "mein Labor ü" --from-pypi'
        r"   (cmd; in PowerShell: & 'C:\Program Files\gpuwizard\gpuwizard.exe' env create "
        '"mein Labor ü" --from-pypi)'
    )


def test_the_wizard_found_here_quotes_for_the_shells_it_was_asked_for():
    assert wizard_command(windows=True).windows
    assert (
        wizard_command(windows=True)
        .run("env", "remove", "mein Labor ü")
        .endswith(' env remove "mein Labor ü"')
    )
    assert not wizard_command(windows=False).windows
    assert (
        wizard_command(windows=False)
        .run("env", "remove", "mein Labor ü")
        .endswith(" env remove 'mein Labor ü'")
    )


def test_a_requirements_file_name_with_a_space_in_each_family():
    argv = ["python", "-m", "pip", "install", "-r", "req ü.txt"]
    assert shell_command(argv, windows=False) == "python -m pip install -r 'req ü.txt'"
    assert shell_command(argv, windows=True) == 'python -m pip install -r "req ü.txt"'


@pytest.mark.parametrize("word", ["/tmp/oc41 wheels", "numpy<2", "a&b", "(x)", "a,b", ""])
def test_the_form_every_shell_reads_alike_quotes_blanks_operators_and_globs(word: str):
    quoted = shell_argument(word)
    assert quoted == f'"{word}"'
    assert shlex.split(f"pip {quoted}") == ["pip", word]
