"""Turning the output lines of package tools into structured progress.

The environment backends run uv, pip, conda, mamba or micromamba without a terminal, and each
line they print goes through :func:`parse_tool_line`. What the tools print was recorded from
real runs (tests/fixtures/recorded/envtools, with SOURCES.md saying which command and which
version printed each file); a line no parser knows gives ``[]``, and nothing a tool prints,
garbage included, makes it raise.

One line can give several records: conda separates its ``--json`` progress records with NUL
characters (so a line may carry more than one), and pip's ``Successfully installed a-1 b-2``
names every package it installed.

This module splits a line into segments and hands them to each tool's parser: pip_output.py,
uv_output.py, conda_output.py and rattler_output.py (the py-rattler engine's JSON lines); the
record they give is tool_progress.py's :class:`ToolProgress`, which the creation sends as
:class:`~gpuwizard.core.envs.events.EnvProgress` events.
"""

from __future__ import annotations

import re
from typing import Final

from gpuwizard.core.envs.conda_output import conda_json, conda_text
from gpuwizard.core.envs.pip_output import pip_line
from gpuwizard.core.envs.rattler_output import rattler_json
from gpuwizard.core.envs.request import ENV_TOOLS
from gpuwizard.core.envs.tool_progress import Parser, ToolProgress
from gpuwizard.core.envs.uv_output import uv_line

#: The tools whose lines are understood: every tool that makes environments.
TOOLS: Final = ENV_TOOLS

_CONDA_FAMILY: Final = ("conda", "mamba", "micromamba")

# Colour and cursor sequences (uv and pip print none with NO_COLOR / --no-color, but a user's
# configuration can force them).
_ANSI: Final = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]")
# conda writes each --json progress record as `{...}\n\0` (conda/plugins/reporter_backends/json.py,
# JSONProgressBar.update_to; conda/common/io.py before the reporter plugins): the NUL ends up
# at the start of the next line, and "conda's flavor of json streams ... separate json objects
# with a NULL character" (conda/conda#5402). A carriage return is a redrawn progress bar.
_SEGMENT_SPLIT: Final = re.compile(r"[\x00\r]")

_PARSERS: Final[dict[str, tuple[Parser, ...]]] = {
    "uv": (uv_line,),
    "pip": (pip_line,),
    # conda env create runs pip for an environment file's pip section and prints its output.
    **dict.fromkeys(_CONDA_FAMILY, (conda_json, conda_text, pip_line)),
    # The py-rattler engine's JSON lines (adapters/envs/rattler_engine.py).
    "rattler": (rattler_json,),
}


def parse_tool_line(tool: str, line: str) -> list[ToolProgress]:
    """The progress records in one output line of ``tool`` (one of :data:`TOOLS`).

    Lines that say nothing about progress, lines of an unknown tool, and garbage give ``[]``.

    >>> [(p.action, p.package, p.version) for p in parse_tool_line("uv", " + torch==2.13.0+cpu")]
    [('installed', 'torch', '2.13.0+cpu')]
    >>> [(p.action, p.count) for p in parse_tool_line("uv", "Resolved 10 packages in 12ms")]
    [('resolve', 10)]
    """
    if tool not in TOOLS or not isinstance(line, str):
        return []
    parsers = _PARSERS[tool]
    found: list[ToolProgress] = []
    for raw in _SEGMENT_SPLIT.split(_ANSI.sub("", line)):
        segment = raw.strip()
        if not segment:
            continue
        for parser in parsers:
            try:
                records = parser(segment)
            except (ValueError, ArithmeticError):  # a number too odd to use: not progress
                records = []
            if records:
                found.extend(records)
                break
    return found
