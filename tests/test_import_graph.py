"""The import graph of ``gpuwizard``: no cycle anywhere, and commands that import what they need.

The graph is grimp's (import-linter's library): every import of the package, at the top of a
module, inside a function or under ``TYPE_CHECKING``, so a cycle cannot hide in a function-local
import. ``cli/main.py`` imports the command modules by name (``COMMANDS``), which grimp cannot
see; those edges are added by hand.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import grimp
import pytest

from gpuwizard.cli.main import COMMANDS, main

# --- no cycles -------------------------------------------------------------------------------


def import_cycles(imports: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Every module that is part of a cycle, with the shortest cycle through it (deduplicated).

    Each cycle is a chain ``[a, b, ..., a]``; a module importing itself is ``[a, a]``.
    """
    cycles: list[list[str]] = []
    seen: set[tuple[str, ...]] = set()
    for start in sorted(imports):
        chain = _shortest_way_back(imports, start)
        if chain is None:
            continue
        # The same cycle found from each of its modules: keep it once, from its smallest module.
        ring = chain[:-1]
        first = ring.index(min(ring))
        key = tuple(ring[first:] + ring[:first])
        if key not in seen:
            seen.add(key)
            cycles.append([*key, key[0]])
    return cycles


def _shortest_way_back(imports: Mapping[str, Iterable[str]], start: str) -> list[str] | None:
    """The shortest chain of imports from ``start`` back to itself (breadth first), or None."""
    came_from: dict[str, str] = {}
    frontier = [start]
    while frontier:
        following: list[str] = []
        for module in frontier:
            for imported in sorted(imports.get(module, ())):
                if imported == start:
                    chain = [start]
                    step = module
                    while step != start:
                        chain.append(step)
                        step = came_from[step]
                    return [start, *reversed(chain[1:]), start]
                if imported not in came_from:
                    came_from[imported] = module
                    following.append(imported)
        frontier = following
    return None


def package_imports() -> dict[str, set[str]]:
    """Module -> the modules of ``gpuwizard`` it imports, as grimp reads the source."""
    graph = grimp.build_graph("gpuwizard", cache_dir=None)
    for command in COMMANDS.values():
        graph.add_import(importer="gpuwizard.cli.main", imported=command.module)
    return {module: set(graph.find_modules_directly_imported_by(module)) for module in graph.modules}


def test_no_import_cycle_anywhere_in_the_package():
    imports = package_imports()
    assert "gpuwizard.cli.detect" in imports["gpuwizard.cli.main"]  # the hand-added edges are there
    cycles = import_cycles(imports)
    assert cycles == [], "import cycles:\n" + "\n".join(" -> ".join(cycle) for cycle in cycles)


def test_the_cycle_finder_reports_each_cycle_as_a_chain():
    graph = grimp.ImportGraph()
    for importer, imported in [
        ("pkg.a", "pkg.b"),
        ("pkg.b", "pkg.c"),
        ("pkg.c", "pkg.a"),  # a -> b -> c -> a
        ("pkg.d", "pkg.a"),  # into the cycle, not part of it
        ("pkg.e", "pkg.f"),
        ("pkg.f", "pkg.e"),  # e <-> f
        ("pkg.g", "pkg.g"),  # itself
        ("pkg.h", "pkg.i"),  # no cycle
    ]:
        graph.add_import(importer=importer, imported=imported)
    imports = {module: graph.find_modules_directly_imported_by(module) for module in graph.modules}
    assert import_cycles(imports) == [
        ["pkg.a", "pkg.b", "pkg.c", "pkg.a"],
        ["pkg.e", "pkg.f", "pkg.e"],
        ["pkg.g", "pkg.g"],
    ]


# --- a command imports what it needs ---------------------------------------------------------

#: What ``gpuwizard detect --json`` has no use for, with why it must not load it.
NOT_FOR_DETECT: dict[str, str] = {
    "gpuwizard.core.findings.diagnosis": "log diagnosis (diagnose)",
    "gpuwizard.workflow.compat.diagnosis": "log diagnosis (diagnose)",
    "gpuwizard.workflow.fleet": "unattended setup (apply)",
    "gpuwizard.workflow.pathedit": "PATH editing (path)",
    "gpuwizard.core.pathedit.algebra": "PATH editing (path)",
    "gpuwizard.adapters.registry": "the registry adapter (PATH; detection reads it on Windows only)",
    "gpuwizard.adapters.file_locks": "locks on the state files",
    "filelock": "locks on the state files",
    "gpuwizard.ui": "the wizard's windows",
    "PySide6": "Qt",
    "shiboken6": "Qt",
    "jinja2": "the HTML support report",
    "cryptography": "verifying refreshed compatibility data",
    "requests": "the network",
}

#: Prints the exit code and every module loaded after running the command line in this process.
PROBE = """\
import contextlib, io, json, sys
from gpuwizard.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(sys.argv[1:])
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def modules_loaded_by(argv: list[str], home: Path) -> tuple[int, set[str]]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
        env={**os.environ, "GPUWIZARD_HOME": str(home)},
    )
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    return result["code"], set(result["modules"])


def loaded(modules: set[str], name: str) -> bool:
    return any(module == name or module.startswith(name + ".") for module in modules)


def test_detect_json_loads_nothing_another_command_needs(tmp_path: Path):
    code, modules = modules_loaded_by(["detect", "--json"], tmp_path)
    assert code == 0
    assert loaded(modules, "gpuwizard.workflow.machine.detect")
    unwanted = {name: why for name, why in NOT_FOR_DETECT.items() if loaded(modules, name)}
    # `gui` holds the top-level options as well as `screenshots`, so every parse reads it.
    other_commands = {
        command.module
        for name, command in COMMANDS.items()
        if name != "detect" and command.module != "gpuwizard.cli.gui"
    }
    unwanted |= {module: "another command" for module in sorted(other_commands) if module in modules}
    assert unwanted == {}


def test_the_probe_sees_what_a_command_loads(tmp_path: Path):
    # The same probe on `diagnose`, which needs the diagnosis: it is there (the probe can tell).
    log = tmp_path / "train.log"
    log.write_text("RuntimeError: CUDA error: no kernel image is available for execution on the device\n")
    code, modules = modules_loaded_by(["diagnose", str(log), "--log-only", "--json"], tmp_path)
    assert code == 1
    assert loaded(modules, "gpuwizard.core.findings.diagnosis")
    assert "gpuwizard.cli.diagnose" in modules
    assert "gpuwizard.cli.detect" not in modules


# --- --help stays complete -------------------------------------------------------------------


class HelpRecorder:
    """A ``common.Subcommands`` that keeps each command's one-line help."""

    def __init__(self) -> None:
        self.helps: dict[str, str] = {}

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        self.helps[name] = kwargs["help"]
        return argparse.ArgumentParser(prog=f"gpuwizard {name}")


def help_of(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 0
    return capsys.readouterr().out


def test_help_lists_every_command_in_order_with_its_modules_help(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per command
    recorder = HelpRecorder()
    for command in COMMANDS.values():
        command.load_add_parser()(recorder)
    text = help_of(["--help"], capsys)
    listing = text.split("positional arguments:\n")[1].split("\n\n")[0]
    listed = [
        (match[1], match[2])
        for match in (re.match(r"^    (\S+) +(.+)$", line) for line in listing.splitlines())
        if match
    ]
    assert listed == list(recorder.helps.items())
    assert [name for name, _ in listed] == list(COMMANDS)


@pytest.mark.parametrize("name", list(COMMANDS))
def test_each_commands_help_is_its_own(name: str, capsys: pytest.CaptureFixture[str]):
    text = help_of([name, "--help"], capsys)
    assert text.startswith(f"usage: gpuwizard {name} ")
    assert "--help" in text


def test_an_unknown_command_is_refused_naming_every_command(capsys: pytest.CaptureFixture[str]):
    with pytest.raises(SystemExit) as exited:
        main(["no-such-command"])
    assert exited.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith("gpuwizard: error: argument COMMAND: invalid choice: ")
    choices = error.split("choose from", 1)[1]  # quoted or not, as the Python version writes them
    found = [re.search(rf"\b{re.escape(name)}\b", choices) for name in COMMANDS]
    assert all(found)
    positions = [match.start() for match in found if match]
    assert positions == sorted(positions)
