"""A :class:`~gpuwizard.adapters.runner.Runner` that replays recorded command output.

Answers are matched on the program's file name (``nvcc``, ``nvidia-smi``, ``py``) and the
arguments; an unmatched command raises CommandNotFound, as a missing program would.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PureWindowsPath

from gpuwizard.adapters.runner import CommandNotFound, CompletedRun


@dataclass
class Replay:
    """One recorded answer: stdout, stderr and the exit status."""

    stdout: str = ""
    stderr: str = ""
    returncode: int = 0


Matcher = Callable[[str, Sequence[str]], bool]


@dataclass
class FakeRunner:
    """Replays :class:`Replay` answers; records every command it was asked to run."""

    answers: list[tuple[Matcher, Replay]] = field(default_factory=list)
    calls: list[tuple[str, ...]] = field(default_factory=list)

    def when(self, program: str, *args_contain: str) -> _Answering:
        """Answer commands whose program is ``program`` and whose arguments hold ``args_contain``."""

        def matches(name: str, args: Sequence[str]) -> bool:
            joined = " ".join(args)
            return name == program and all(part in joined for part in args_contain)

        return _Answering(self, matches)

    def run(
        self,
        argv: Sequence[str],
        *,
        timeout: float,
        env_overrides: Mapping[str, str] | None = None,
    ) -> CompletedRun:
        del timeout, env_overrides
        self.calls.append(tuple(argv))
        name = PureWindowsPath(argv[0]).name.lower().removesuffix(".exe")
        for matcher, replay in self.answers:
            if matcher(name, argv[1:]):
                return CompletedRun(tuple(argv), replay.returncode, replay.stdout, replay.stderr, 0.001)
        raise CommandNotFound(argv, "not in the recorded answers")


@dataclass
class _Answering:
    runner: FakeRunner
    matcher: Matcher

    def answer(self, stdout: str = "", stderr: str = "", returncode: int = 0) -> FakeRunner:
        self.runner.answers.append((self.matcher, Replay(stdout, stderr, returncode)))
        return self.runner
