"""A finding's hint as a person reads it: its sentences, and each command to run on a line of its own.

Some hints carry whole commands as parameters (``{reinstall}``, ``{recreate}``, ``{command}``:
the drift findings of ``gpuwizard verify``). Run into the sentence they read as one ("…whl/cpu
Or recreate the environment: gpuwizard env create …"), and a window wraps them inside a word
("--index-" / "url"). :func:`fix_parts` cuts such a hint at those commands, so the wizard shows
each command monospaced with a copy button and the support report each in a block of its own.
It works on the hint as shown, translated or not: the commands are data and stay as they are.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final

#: The parameters that hold a whole command, each run on its own (the catalog's hints end a
#: sentence with them: "Reinstall the recorded build: {reinstall}").
COMMAND_PARAMS: Final = ("reinstall", "recreate", "command")
#: Quotes a translation may put around a command; dropped with the command taken out.
_QUOTES: Final = {"'": "'", "`": "`", '"': '"', "“": "”", "„": "“", "「": "」"}


@dataclass(frozen=True)
class FixPart:
    """A sentence or two of a hint (``command`` False), or one command to run, exactly as typed."""

    text: str
    command: bool = False


def fix_parts(hint: str, params: Mapping[str, object]) -> tuple[FixPart, ...]:
    """``hint`` cut at the commands among ``params`` (:data:`COMMAND_PARAMS`), in the hint's order.

    A hint without such a command is one part.

    >>> parts = fix_parts("Reinstall it: pip install x  Or recreate it: gpuwizard env create a",
    ...                   {"reinstall": "pip install x", "recreate": "gpuwizard env create a"})
    >>> [(part.text, part.command) for part in parts]
    [('Reinstall it:', False), ('pip install x', True), ('Or recreate it:', False), ('gpuwizard env create a', True)]
    >>> fix_parts("Nothing to run.", {"env": "demo"})
    (FixPart(text='Nothing to run.', command=False),)
    """
    commands = [str(params[name]) for name in COMMAND_PARAMS if params.get(name)]
    parts: list[FixPart] = []
    rest = hint
    while True:
        places = [(rest.find(command), -len(command), command) for command in commands if command in rest]
        if not places:
            break
        at, _longest_first, command = min(places)
        before, after = rest[:at], rest[at + len(command) :]
        opening = before.rstrip()[-1:]
        if opening in _QUOTES and after.startswith(_QUOTES[opening]):
            before, after = before.rstrip()[:-1], after[1:]
        _add_text(parts, before)
        parts.append(FixPart(command, command=True))
        rest = after
    _add_text(parts, rest)
    return tuple(parts)


def fix_commands(hint: str, params: Mapping[str, object]) -> list[str]:
    """The commands :func:`fix_parts` takes out of ``hint``, in order."""
    return [part.text for part in fix_parts(hint, params) if part.command]


def _add_text(parts: list[FixPart], text: str) -> None:
    text = text.strip()
    if text:
        parts.append(FixPart(text))
