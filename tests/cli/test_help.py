"""Every command's ``--help`` says what the command does, fits 80 columns and ends in examples that run.

Issue 41, point 9: ``detect``, ``recommend``, ``test``, ``verify`` and ``report`` showed their
options without a word of what the command does, ``export --help`` ran to 96 columns. Each
command and action now has a purpose (its description), its options grouped, and, where it takes
arguments, an "examples:" section whose every command is parsed here by the real parser.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Iterator

import pytest

from gpuwizard.cli.main import COMMANDS, build_parser
from harness.entry_point import gpuwizard

WIDTH = 80


def subcommands(parser: argparse.ArgumentParser) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Each (sub)command's parser under ``parser``, with its words (``env create``), the hidden ones left out."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name in list(action.choices):
                if name.startswith("_"):  # path's elevated helper and DLL resolver: not for people
                    continue
                child = action.choices[name]
                yield name, child
                for words, grandchild in subcommands(child):
                    yield f"{name} {words}", grandchild


def every_parser() -> list[tuple[str, argparse.ArgumentParser]]:
    top = build_parser()
    return [("", top), *subcommands(top)]


NAMES = [words for words, _ in every_parser()]


def help_text(words: str, monkeypatch: pytest.MonkeyPatch, columns: int = WIDTH) -> str:
    monkeypatch.setenv("COLUMNS", str(columns))
    parser = dict(every_parser())[words]
    return parser.format_help()


def takes_arguments(parser: argparse.ArgumentParser) -> bool:
    return any(not isinstance(action, argparse._HelpAction) for action in parser._actions)


def examples_of(text: str) -> list[str]:
    assert "\nexamples:\n" in text, text
    section = text.split("\nexamples:\n", 1)[1]
    lines = [line.strip() for line in section.split("\n\n")[0].splitlines()]
    assert lines and all(line.startswith("gpuwizard") for line in lines), section
    return lines


def test_every_command_and_action_is_covered():
    assert {words.split(" ")[0] for words in NAMES if words} == set(COMMANDS)
    assert {"env create", "env list", "env remove", "path add", "path undo"} <= set(NAMES)


@pytest.mark.parametrize("words", NAMES, ids=lambda words: words or "gpuwizard")
def test_help_has_a_purpose_fits_80_columns_and_its_examples_parse(
    words: str, monkeypatch: pytest.MonkeyPatch
):
    parser = dict(every_parser())[words]

    text = help_text(words, monkeypatch)

    too_long = [line for line in text.splitlines() if len(line) > WIDTH]
    assert too_long == [], text
    # The purpose: a sentence right after the usage.
    assert parser.description, f"gpuwizard {words} --help says nothing of what it does"
    after_usage = text.split("\n\n", 2)[1]
    assert after_usage.split()[:3] == parser.description.split()[:3], text
    if not takes_arguments(parser):
        return
    for example in examples_of(text):
        argv = shlex.split(example, comments=True)
        assert argv[: 1 + len(words.split())] == ["gpuwizard", *words.split()], example
        try:
            build_parser().parse_args(argv[1:])
        except SystemExit as exited:  # argparse's way of refusing
            pytest.fail(f"{example!r} does not parse (exit {exited.code})")


def test_a_wide_terminal_still_gets_80_columns(monkeypatch: pytest.MonkeyPatch):
    text = help_text("env create", monkeypatch, columns=200)

    assert max(len(line) for line in text.splitlines()) <= WIDTH


def test_options_are_grouped_and_the_vague_ones_say_what_they_do(monkeypatch: pytest.MonkeyPatch):
    text = help_text("env create", monkeypatch)

    for group in ("what to install:", "where and how:", "package sources:", "examples:"):
        assert f"\n{group}\n" in text, text
    joined = " ".join(text.split())
    assert "--with PKG a pip requirement to add, e.g. numpy; repeatable" in joined
    assert "--find-links DIR a folder of wheels; with --offline, the only source" in joined
    # Each option on one line: the longest command's help, examples and all, fits a terminal.
    assert len(text.splitlines()) <= 42, text


def test_the_entry_point_prints_the_same_help():
    done = gpuwizard("export", "--help", env={"COLUMNS": str(WIDTH)})

    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: gpuwizard export ")
    assert max(len(line) for line in done.stdout.splitlines()) <= WIDTH
    assert "\nwhich plan:\n" in done.stdout and "\nexamples:\n" in done.stdout
