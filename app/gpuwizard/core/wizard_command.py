r"""How a person starts the wizard's command line, as advice writes it (issue 37, point 2).

Advice names commands to run: "run `gpuwizard verify` again", "add it back: gpuwizard path add
...". The Windows installer need not put ``gpuwizard`` on PATH, and in cmd a name that is not on
PATH is "not recognized"; so each piece of advice starts the wizard the way the person's shell
reaches this very program: ``gpuwizard`` where the one on PATH is it, otherwise its full path
(or ``"<python>" -m gpuwizard``), quoted for the shell.

Where the program is and what PATH finds is the machine's business
(``adapters/wizard_program.py``); here it is only a value, :class:`WizardCommand`, that the
workflow passes in, and the way a program is written as a command's first word, which the
plan's own commands (``core/compat/shell_commands.py``) share.

On Windows a path that needs quotes is written once for each shell: cmd takes
``"C:\Program Files\..."``, but PowerShell reads a quoted string as a value and needs its call
operator (``& 'C:\Program Files\...'``). Elsewhere a POSIX shell's quoting (:func:`shlex.quote`).

The arguments after the program (an environment's name, a folder) are quoted the same way, for
the same shells (:func:`argument_words`, :meth:`WizardCommand.run`, :func:`shell_command`):
``"mein Labor ü"`` in cmd and PowerShell alike, ``'mein Labor ü'`` in a POSIX shell. Where the
shell is not known (a line shown on any machine), :func:`shell_argument` writes a form the three
read alike for text without quotes or ``$``.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

#: A Windows path cmd and PowerShell both run unquoted: no spaces, quotes, ``&``, ``()``, ``%``, ``$``...
_WINDOWS_PLAIN: Final = re.compile(r"[\w.:\\/-]+")
#: An argument cmd and PowerShell both take unquoted (a program's path, and ``=`` ``+`` of pins).
_WINDOWS_PLAIN_ARGUMENT: Final = re.compile(r"[\w.:\\/=+-]+")
#: An argument a POSIX shell takes unquoted: :func:`shlex.quote`'s safe characters, letters of
#: any script included (bash and zsh split words only at blanks and their operators).
_POSIX_PLAIN: Final = re.compile(r"[\w@%+=:,./-]+")
#: What PowerShell reads inside double quotes (variables, its escape character, and the typographic
#: double quotes it takes for ``"``): such an argument goes in its single quotes instead.
_POWERSHELL_EXPANDS: Final = frozenset('$`"\u201c\u201d\u201e')
#: PowerShell's single quotes (typographic ones too): doubled inside its single-quoted string.
_POWERSHELL_SINGLE_QUOTES: Final = re.compile("(['\u2018\u2019\u201a\u201b])")
#: What cmd, PowerShell or a POSIX shell reads in a word: blanks, operators, quotes, globs.
_SHELL_SPECIAL: Final = re.compile(r"[\s<>|&^;(),'\"$`*?\[\]{}]")
#: The name the wizard's command line has on PATH.
WIZARD_NAME: Final = "gpuwizard"


def program_words(executable: str, *, windows: bool) -> tuple[str, str]:
    r"""``executable`` as a command's first word: (in cmd or a POSIX shell, in PowerShell).

    >>> program_words("/opt/my tools/gpuwizard", windows=False)
    ("'/opt/my tools/gpuwizard'", "'/opt/my tools/gpuwizard'")
    >>> program_words("C:\\Tools\\gpuwizard.exe", windows=True)
    ('C:\\Tools\\gpuwizard.exe', 'C:\\Tools\\gpuwizard.exe')
    >>> program_words("C:\\Program Files\\gpuwizard\\gpuwizard.exe", windows=True)[1]
    "& 'C:\\Program Files\\gpuwizard\\gpuwizard.exe'"
    """
    if not windows:
        quoted = shlex.quote(executable)
        return quoted, quoted
    if _WINDOWS_PLAIN.fullmatch(executable):
        return executable, executable
    # PowerShell's single quotes take everything literally but a doubled quote ($ too).
    powershell = executable.replace("'", "''")
    return f'"{executable}"', f"& '{powershell}'"


def argument_words(text: str, *, windows: bool) -> tuple[str, str]:
    r"""``text`` as one argument after a program: (in cmd or a POSIX shell, in PowerShell).

    Double quotes in cmd; in PowerShell too, unless the text holds what PowerShell expands
    there (``$``, a backtick), which its single quotes keep. A trailing backslash is doubled
    inside double quotes: a Windows program reads ``\"`` as a quote (``CommandLineToArgvW``).
    (cmd expands ``%NAME%`` of a defined variable even inside quotes; no quoting stops it.)

    >>> argument_words("mein Labor ü", windows=False), argument_words("ünï", windows=False)
    (("'mein Labor ü'", "'mein Labor ü'"), ('ünï', 'ünï'))
    >>> argument_words("mein Labor ü", windows=True)
    ('"mein Labor ü"', '"mein Labor ü"')
    >>> argument_words("a$b c", windows=True)
    ('"a$b c"', "'a$b c'")
    """
    if not windows:
        quoted = text if _POSIX_PLAIN.fullmatch(text) else shlex.quote(text)
        return quoted, quoted
    if _WINDOWS_PLAIN_ARGUMENT.fullmatch(text):
        return text, text
    backslashes = text[len(text.rstrip("\\")) :]
    cmd = f'"{text}{backslashes}"'
    if _POWERSHELL_EXPANDS.isdisjoint(text):
        return cmd, cmd
    return cmd, "'" + _POWERSHELL_SINGLE_QUOTES.sub(r"\1\1", text) + "'"


def shell_command(words: Sequence[str], *, windows: bool) -> str:
    r"""``words`` (a program and its arguments, unquoted) as one line to paste into the person's shells.

    The program is written as :func:`program_words` writes it, each argument as
    :func:`argument_words` does; where cmd and PowerShell need different forms, both are given.

    >>> shell_command(["python", "-m", "pip", "install", "-r", "req ü.txt"], windows=False)
    "python -m pip install -r 'req ü.txt'"
    >>> shell_command(["python", "-m", "pip", "install", "-r", "req ü.txt"], windows=True)
    'python -m pip install -r "req ü.txt"'
    """
    program, *arguments = words
    return _with_arguments(*program_words(program, windows=windows), arguments, windows=windows)


def _with_arguments(shell: str, powershell: str, arguments: Sequence[str], *, windows: bool) -> str:
    """A program's first words (in cmd or a POSIX shell, in PowerShell) and ``arguments``, quoted."""
    quoted = [argument_words(argument, windows=windows) for argument in arguments]
    return both_shells(
        " ".join([shell, *(cmd for cmd, _ in quoted)]), " ".join([powershell, *(ps for _, ps in quoted)])
    )


def both_shells(shell: str, powershell: str) -> str:
    """One command line, or cmd's with PowerShell's beside it where they differ."""
    if shell == powershell:
        return shell
    return f"{shell}   (cmd; in PowerShell: {powershell})"


@dataclass(frozen=True)
class WizardCommand:
    r"""The words that start this wizard's command line in the person's shells.

    Attributes:
        shell: As cmd reads them on Windows, and a POSIX shell elsewhere: ``gpuwizard``, a
            full path (quoted where needed), or ``"<python>" -m gpuwizard``.
        powershell: As PowerShell reads them (with ``&`` before a quoted path); the same as
            ``shell`` where no quoting is needed, and always off Windows.
        windows: The shells are cmd and PowerShell (Windows); False: a POSIX shell. It decides
            how :meth:`run` quotes the arguments.
    """

    shell: str = WIZARD_NAME
    powershell: str = WIZARD_NAME
    windows: bool = False

    @classmethod
    def of(cls, executable: str, *arguments: str, windows: bool) -> WizardCommand:
        r"""The wizard started by ``executable`` (with ``arguments``, such as ``-m gpuwizard``).

        >>> print(WizardCommand.of("C:\\Program Files\\gpuwizard.exe", windows=True).line("verify"))
        "C:\Program Files\gpuwizard.exe" verify   (cmd; in PowerShell: & 'C:\Program Files\gpuwizard.exe' verify)
        >>> WizardCommand.of("/usr/bin/python3", "-m", "gpuwizard", windows=False).line("verify")
        '/usr/bin/python3 -m gpuwizard verify'
        """
        shell, powershell = program_words(executable, windows=windows)
        rest = "".join(f" {word}" for word in arguments)
        return cls(shell + rest, powershell + rest, windows)

    def line(self, arguments: str = "") -> str:
        """The wizard run with ``arguments`` (already quoted), as advice prints it.

        >>> WizardCommand().line("path undo"), WizardCommand().line()
        ('gpuwizard path undo', 'gpuwizard')
        """
        return both_shells(f"{self.shell} {arguments}".rstrip(), f"{self.powershell} {arguments}".rstrip())

    def run(self, *words: str) -> str:
        """The wizard run with ``words`` (each one argument, unquoted), quoted for the person's shells.

        >>> WizardCommand().run("env", "create", "mein Labor ü", "--from-pypi")
        "gpuwizard env create 'mein Labor ü' --from-pypi"
        >>> WizardCommand(windows=True).run("env", "remove", "mein Labor ü")
        'gpuwizard env remove "mein Labor ü"'
        """
        return _with_arguments(self.shell, self.powershell, words, windows=self.windows)


#: ``gpuwizard`` by its name: for a machine other than this one (a saved report), and the
#: default of the pure functions that write advice.
BY_NAME: Final = WizardCommand()


def registry_option(registry: str) -> str:
    """`` --registry FILE`` where ``registry`` (a PATH store's identity) is a snapshot file, else "".

    A command that changes PATH must name the registry it was made on: without the option it
    works on the live registry.

    >>> registry_option("file:/tmp/reg.json"), registry_option("live")
    (' --registry /tmp/reg.json', '')
    """
    if not registry.startswith("file:"):
        return ""
    return f" --registry {shell_argument(registry.removeprefix('file:'))}"


def shell_argument(text: str) -> str:
    r"""``text`` as one argument in cmd, PowerShell and a POSIX shell alike (paths without quotes or ``$``).

    For a line shown where the shell is not known; where it is, :func:`argument_words`.
    Blanks, operators and globs are put in double quotes, which the three take literally.

    >>> shell_argument("C:\\Program Files\\CUDA"), shell_argument("C:\\CUDA")
    ('"C:\\Program Files\\CUDA"', 'C:\\CUDA')
    >>> shell_argument("/tmp/oc41 wheels"), shell_argument("numpy<2")
    ('"/tmp/oc41 wheels"', '"numpy<2"')
    """
    return f'"{text}"' if _SHELL_SPECIAL.search(text) or not text else text
