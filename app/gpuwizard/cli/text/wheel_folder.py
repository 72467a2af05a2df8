"""A folder of wheels that cannot install the plan, as text: the ways forward, one command a line.

``gpuwizard env create --find-links DIR --offline`` refuses such a folder before anything is made
(exit 2, one line on stderr). Before that line, stdout says how to go on (issue 41, point 8):
install the release the folder holds (the same command with ``--version X.Y``), or fetch what it
lacks (the short ``pip download`` command, and which machine can run it). Each command is a line
of its own, indented, so it can be copied whole. Presentation only; the verdict is
:mod:`gpuwizard.core.envs.wheel_folder`.
"""

from __future__ import annotations

import textwrap

from gpuwizard.core.envs.wheel_folder import WheelFolderCheck


def ways_forward(check: WheelFolderCheck, retry: str | None, width: int = 100) -> str:
    """What to do about ``check``: ``retry`` (the command with the offered release) and the fetch command.

    Args:
        check: The refused folder's verdict.
        retry: The command that installs the release the folder holds; None without an offer.
        width: The width prose wraps to (commands are never wrapped).
    """
    lines: list[str] = []

    def say(text: str) -> None:
        lines.extend(textwrap.wrap(text, width=width, break_on_hyphens=False, break_long_words=False))

    if retry is not None and check.found:
        say(f"The folder holds {check.build.split(' ', 1)[0]} {check.found[0]}. To install that release:")
        lines.append(f"  {retry}")
    where = check.fetch_where()
    if where is not None:
        say(f"{'Or fetch' if lines else 'Fetch'} what is missing into the folder. {where}")
        lines.append(f"  {check.download_line()}")
    return "".join(f"{line}\n" for line in lines)
