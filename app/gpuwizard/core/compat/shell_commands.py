r"""A plan's environment commands as the plan's own platform and shell run them (issue 37, point 3).

Every command the wizard prints must run as printed on the person's machine and shell: on
native Windows in cmd and in PowerShell, elsewhere (Linux, macOS, and a plan that runs inside
WSL 2 on a Windows machine) in a POSIX shell such as bash or zsh. So:

- Windows makes a venv with the ``py`` launcher (``py -3.13 -m venv ENV``: python.org's
  installer brings it; ``python3.13`` does not exist there), or, where the report found the
  plan's interpreter and shows no launcher, with that ``python.exe`` by its full path;
  elsewhere ``python3.13`` (the versioned name every CPython install on a PATH has), or the
  full path of an interpreter only pyenv or uv installed.
- ``uv venv`` is offered only where the report found uv, by the full path the report has (it
  may be the wizard's own uv, on no PATH), and with ``--seed``: ``uv venv`` alone makes an
  environment without pip, and the next step is ``pip install``.
- Activation is ``ENV\Scripts\activate.bat`` (cmd) and ``ENV\Scripts\Activate.ps1``
  (PowerShell) on Windows, ``source ENV/bin/activate`` (bash, zsh) elsewhere; never the other
  family's.

A path that needs quoting is quoted for each shell: cmd takes ``"C:\Program Files\..."``, but
PowerShell reads a quoted string as a value and needs its call operator (``& '...'``), so such
a Windows command is written once for each.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.machine.system_report import PythonFacts, SystemReport
from gpuwizard.core.wizard_command import both_shells, program_words

#: Interpreters no PATH reaches by their versioned name (``adapters/interpreters.py``'s sources).
_OFF_PATH_SOURCES: Final = frozenset({"pyenv", "uv"})
#: Where interpreters were found other than through the ``py`` launcher (or as the wizard's own).
_FOUND_WITHOUT_LAUNCHER: Final = frozenset({"path", "pyenv", "uv"})


@dataclass(frozen=True)
class CommandHost:
    """Where a plan's commands run, and what the report found there that they can use.

    Attributes:
        windows: cmd and PowerShell on native Windows; False: a POSIX shell (Linux, macOS, WSL 2).
        interpreters: The Python interpreters found there (the report's own first).
        uv: uv's executable there, or None (no ``uv venv`` is offered).
    """

    windows: bool
    interpreters: tuple[PythonFacts, ...] = ()
    uv: str | None = None


def command_host(report: SystemReport, plan: Plan) -> CommandHost:
    """Where ``plan``'s commands run: the report's machine, or the WSL 2 Linux inside it.

    A report made on Windows knows nothing of the WSL 2 distribution a ``wsl2`` plan runs in
    (its interpreters and uv are Windows ones): such a plan gets Linux commands with no path.
    """
    if plan.target == "wsl2":
        return CommandHost(windows=False)
    interpreters = tuple(dict.fromkeys(p for p in (report.python, *report.interpreters) if p is not None))
    return CommandHost(
        windows=report.os.family == "windows", interpreters=interpreters, uv=report.managers.uv
    )


def venv_commands(plan: Plan, host: CommandHost) -> list[str]:
    """Making the plan's venv ``ENV`` (with uv's way where uv is there), then activating it."""
    python = plan.python
    create = python_command(python, "-m venv ENV", host)
    if host.uv:
        create += f"   (or: {_invocation(host.uv, f'venv --seed --python {python} ENV', host)})"
    return [create, activate_command(host)]


def activate_command(host: CommandHost) -> str:
    r"""Activating ``ENV`` in the host's shells (a venv's scripts; py-rattler's have the same names)."""
    if host.windows:
        return "ENV\\Scripts\\activate.bat   (cmd; in PowerShell: ENV\\Scripts\\Activate.ps1)"
    return "source ENV/bin/activate   (bash, zsh)"


def python_command(python: str, arguments: str, host: CommandHost) -> str:
    """Python ``python`` (a minor, ``3.13``) run with ``arguments`` on the host, quoted as its shells need.

    >>> python_command("3.13", "-m venv ENV", CommandHost(windows=True))
    'py -3.13 -m venv ENV'
    >>> python_command("3.13", "-m venv ENV", CommandHost(windows=False))
    'python3.13 -m venv ENV'
    """
    matching = [p for p in host.interpreters if _minor(p.version) == python]
    if host.windows:
        if matching and _no_launcher(matching[0], host.interpreters):
            return _invocation(matching[0].executable, arguments, host)
        return f"py -{python} {arguments}"
    if matching and all(p.source in _OFF_PATH_SOURCES for p in matching):
        return _invocation(matching[0].executable, arguments, host)
    return f"python{python} {arguments}"


def program_command(executable: str, arguments: str, *, windows: bool) -> str:
    """``executable arguments`` as that family's shells run it (issue 37, point 6: ``uv python install``).

    >>> program_command("/opt/my tools/uv", "python install 3.13", windows=False)
    "'/opt/my tools/uv' python install 3.13"
    """
    return _invocation(executable, arguments, CommandHost(windows=windows))


def _invocation(executable: str, arguments: str, host: CommandHost) -> str:
    """``executable arguments`` as the host's shells run it (a form for each where Windows needs quotes)."""
    # The quoting every printed command shares, the wizard's own among them (core/wizard_command.py).
    shell, powershell = program_words(executable, windows=host.windows)
    return both_shells(f"{shell} {arguments}", f"{powershell} {arguments}")


def _no_launcher(found: PythonFacts, interpreters: tuple[PythonFacts, ...]) -> bool:
    """The report does not show a ``py`` launcher that starts ``found``'s version.

    The launcher is assumed (python.org's installer brings it) unless the report listed
    interpreters found other ways and none through it, or the interpreter is the Microsoft
    Store's, which comes without one; an older report lists none, and the launcher is assumed.
    A launcher that lists other versions only may list this one under the wizard's own entry
    (the report keeps each interpreter once): the full path is then the sure way.
    """
    launched = [p for p in interpreters if p.source == "py-launcher"]
    if launched:
        return not any(_minor(p.version) == _minor(found.version) for p in launched)
    return found.ms_store or any(p.source in _FOUND_WITHOUT_LAUNCHER for p in interpreters)


def _minor(version: str) -> str:
    return ".".join(version.split(".")[:2])
