"""A uv environment is handed over compiled: its modules have their bytecode (issue 41, point 13).

uv installs sources only; the wizard compiles them beside the import check, so neither the
check nor the first run compiles, and a run that cannot write ``__pycache__`` does not compile
at every start. Real uv, a real venv and the real probes, offline from small pure-Python wheels.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from builders.requests import cpu_torch_plan, planned
from builders.wheels import build_wheel, bundled_pip_wheel
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.envs.events import EnvLog, EnvPhase
from gpuwizard.core.events import Event
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, prepare_environment
from gpuwizard.workflow.envs.registry import list_environments
from harness.proc import end, gone, hang_after_saying_who, said
from harness.waits import set_when, until

UV = shutil.which("uv", path=str(Path(sys.executable).parent))

pytestmark = [pytest.mark.slow, pytest.mark.skipif(UV is None, reason="uv is not installed here")]

# A torch whose first run imports more than `import torch` does (torch.optim and what it pulls
# in, as the real one's first optimizer imports torch._dynamo), with a test suite of its own.
_TORCH_FILES = {
    "torch/__init__.py": '__version__ = "2.13.0"\n\nfrom torch import version as version\n',
    "torch/version.py": "cuda = None\n",
    "torch/optim/__init__.py": "from torch.optim import adam as adam\n",
    "torch/optim/adam.py": "LEARNING_RATE = 0.01\n",
    "torch/tests/test_optim.py": "def test_nothing():\n    pass\n",
}


def _wheels(folder: Path) -> Path:
    folder.mkdir()
    build_wheel(folder, "torch", "2.13.0", files=_TORCH_FILES)
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def _tools(runner: StreamingSubprocessRunner | None = None) -> EnvTools:
    return EnvTools(
        runner=runner or StreamingSubprocessRunner(),
        interpreters=[own_python()],
        managers=ManagerFacts(uv=UV),
    )


def _site_packages(prefix: Path) -> Path:
    found = sorted(prefix.glob("lib/python3*/site-packages")) or [prefix / "Lib" / "site-packages"]
    return found[0]


def _is_current(source: Path) -> bool:
    """Whether ``source``'s cached file is one ``import`` accepts: this Python's, its mtime and size."""
    cached = Path(importlib.util.cache_from_source(str(source)))
    if not cached.is_file():
        return False
    head, stat = cached.read_bytes()[:16], source.stat()
    return (
        head[:4] == importlib.util.MAGIC_NUMBER
        and int.from_bytes(head[4:8], "little") == 0
        and int.from_bytes(head[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(head[12:16], "little") == stat.st_size & 0xFFFFFFFF
    )


def test_the_environment_is_handed_over_with_its_modules_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    # As on a machine that never writes bytecode by itself: the wizard writes it all the same.
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")
    wheels = _wheels(tmp_path / "wheels")
    events: list[Event] = []
    env_tools = _tools()
    prepared = prepare_environment(
        *planned("fast", cpu_torch_plan(), tool="uv", find_links=wheels, offline=True), env_tools
    )
    result = create_environment(prepared, env_tools, events.append, threading.Event())
    assert result.status == "ok", result
    torch = _site_packages(Path(result.path)) / "torch"
    # What the import check imports, and what the first run imports later, are compiled.
    for module in ("__init__.py", "version.py", "optim/__init__.py", "optim/adam.py"):
        assert _is_current(torch / module), module
    # A package's test suite is never imported by a run: left as it came.
    assert not Path(importlib.util.cache_from_source(str(torch / "tests" / "test_optim.py"))).exists()
    said_lines = [event.line for event in events if isinstance(event, EnvLog) and event.phase == "verify"]
    # Torch's files and pip's (the environment is given pip): a count, but no race of who wrote which.
    assert any(
        re.fullmatch(r"compiled the environment's [\d,]+ Python files to bytecode", line)
        for line in said_lines
    )
    assert (
        'compile_bytecode: {"probe": "compile_bytecode"' in Path(result.log).read_text()
    )  # workers, seconds: in the log file


class _HangingCompile(StreamingSubprocessRunner):
    """Runs everything, but the compile is a process that hangs once the import check is over."""

    def __init__(self, marker: Path) -> None:
        super().__init__()
        self.marker = marker
        self.check_over = threading.Event()

    def stream(self, argv: Sequence[str], on_line: Callable[[str], None], **options: Any) -> int:
        if any(str(part).endswith("compile_bytecode.py") for part in argv):
            # Started beside the check; it begins its hang only once the check has answered,
            # so the cancel comes while the creation waits for the compile alone.
            if not self.check_over.wait(120):
                raise AssertionError("the import check never ended")
            hang = (str(argv[0]), "-c", hang_after_saying_who(self.marker))
            return super().stream(hang, on_line, **options)
        try:
            return super().stream(argv, on_line, **options)
        finally:
            if any(str(part).endswith("framework_import.py") for part in argv):
                self.check_over.set()


def test_a_cancel_while_compiling_ends_the_compile_and_removes_everything(tmp_path: Path):
    wheels = _wheels(tmp_path / "wheels")
    marker = tmp_path / "compile-pid"
    runner = _HangingCompile(marker)
    env_tools = _tools(runner)
    prepared = prepare_environment(
        *planned("cancelled", cpu_torch_plan(), tool="uv", find_links=wheels, offline=True), env_tools
    )
    cancel = threading.Event()
    events: list[Event] = []
    try:
        with set_when(lambda: said(marker), cancel):
            result = create_environment(prepared, env_tools, events.append, cancel)
        assert result.status == "cancelled", result
        compile_pid = said(marker)
        assert compile_pid is not None, "the compile never began"
        until(lambda: gone(compile_pid), "the hanging compile ended")
    finally:
        end(said(marker))
    phases = [event.phase for event in events if isinstance(event, EnvPhase)]
    assert "verify" in phases and "constraints" not in phases
    assert phases[-1] == "rollback"
    assert not prepared.prefix.exists()
    assert list_environments() == []
