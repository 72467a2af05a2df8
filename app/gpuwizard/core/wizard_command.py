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
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Final

#: A Windows path cmd and PowerShell both run unquoted: no spaces, quotes, ``&``, ``()``, ``%``, ``$``...
_WINDOWS_PLAIN: Final = re.compile(r"[\w.:\\/-]+")
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
    """

    shell: str = WIZARD_NAME
    powershell: str = WIZARD_NAME

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
        return cls(shell + rest, powershell + rest)

    def line(self, arguments: str = "") -> str:
        """The wizard run with ``arguments`` (already quoted), as advice prints it.

        >>> WizardCommand().line("path undo"), WizardCommand().line()
        ('gpuwizard path undo', 'gpuwizard')
        """
        return both_shells(f"{self.shell} {arguments}".rstrip(), f"{self.powershell} {arguments}".rstrip())


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

    >>> shell_argument("C:\\Program Files\\CUDA"), shell_argument("C:\\CUDA")
    ('"C:\\Program Files\\CUDA"', 'C:\\CUDA')
    """
    return f'"{text}"' if re.search(r"\s", text) else text
