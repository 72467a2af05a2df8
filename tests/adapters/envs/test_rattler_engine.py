"""The py-rattler engine and its backend, run for real against local channels (issue 23).

conda-forge is not reachable here, so each test builds a channel from tiny noarch packages
(``builders/conda_channels.py``) and serves it as ``file://`` or from a real HTTP server on
127.0.0.1; the engine runs as the real program the backend starts (``python -m ...``), through
the project's streaming runner or as a plain child where the test needs its exit status.
Nothing of rattler is faked.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders.conda_channels import CondaPackage, build_channel
from gpuwizard.adapters.envs.base import CondaSpec, PackageSource
from gpuwizard.adapters.envs.rattler_backend import ENGINE_MODULE, FROZEN_ENGINE_FLAG, RattlerBackend
from gpuwizard.adapters.envs.rattler_backend import engine_argv as backend_engine_argv
from gpuwizard.adapters.runner import CommandCancelled, StreamingSubprocessRunner
from gpuwizard.core.envs.conda_channels import ChannelRefused
from gpuwizard.core.envs.rattler_output import rattler_message
from gpuwizard.core.envs.tool_output import parse_tool_line
from gpuwizard.core.envs.tool_progress import ToolProgress
from harness.conda_channel_server import held_channel, serve_channel
from harness.http_server import serve
from harness.waits import EVENT_S

LIB = CondaPackage("libdemo", "1.0")
DEMO = CondaPackage("demo", "2.0", depends=("libdemo >=1.0",))
PYTHON = CondaPackage("python", "3.11.9")
PIP = CondaPackage("pip", "24.0", depends=("python",))
# Served slowly in the cancel tests: its dependency is linked while it is still on its way.
BIG = CondaPackage("bigdemo", "1.0", depends=("libdemo",))
# No proxy for the test server: a developer's HTTP(S)_PROXY must not take the requests away.
NO_PROXY = {"NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}


@pytest.fixture
def channel(tmp_path: Path) -> Path:
    return build_channel(tmp_path / "channel", [LIB, DEMO, PYTHON, PIP, BIG])


def engine_argv(prefix: Path, channels: list[str], specs: list[str], cache: Path, *more: str) -> list[str]:
    argv = [sys.executable, "-m", ENGINE_MODULE, "create", "--prefix", str(prefix), "--cache-dir", str(cache)]
    for channel in channels:
        argv += ["--channel", channel]
    return [*argv, *more, *specs]


def run_engine(
    argv: list[str], env: dict[str, str] | None = None
) -> tuple[int, list[dict[str, Any]], list[str]]:
    """Run through the project's streaming runner: (exit status, JSON events, other lines)."""
    lines: list[str] = []
    status = StreamingSubprocessRunner().stream(
        argv,
        lines.append,
        cancel=threading.Event(),
        timeout=EVENT_S,
        env_overrides={**NO_PROXY, **(env or {})},
    )
    events = [json.loads(line) for line in lines if line.startswith("{")]
    return status, events, [line for line in lines if not line.startswith("{")]


def stages(events: list[dict[str, Any]]) -> list[str]:
    return [event.get("stage", event["event"]) for event in events]


def test_creates_a_conda_environment_from_a_file_channel(channel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "demo"
    status, events, _ = run_engine(engine_argv(prefix, [channel.as_uri()], ["demo"], tmp_path / "cache"))

    assert status == 0, events
    assert {"repodata", "solve", "link", "done"} <= set(stages(events))
    assert stages(events)[-1] == "done"
    assert events[-1]["packages"] == ["demo==2.0", "libdemo==1.0"]
    # The layout conda itself writes: one record per package, the dependency included.
    meta = prefix / "conda-meta"
    assert (meta / "demo-2.0-0.json").is_file()
    assert (meta / "libdemo-1.0-0.json").is_file()
    assert json.loads((meta / "demo-2.0-0.json").read_text())["depends"] == ["libdemo >=1.0"]
    assert (prefix / DEMO.payload_path).read_bytes() == DEMO.payload
    assert (prefix / LIB.payload_path).is_file()
    linked = [event for event in events if event.get("stage") == "link" and "package" in event]
    assert [event["count"] for event in linked] == [1, 2]
    assert {event["total"] for event in linked} == {2}
    # What this machine offers the solver (__glibc on Linux; __cuda where a driver answers).
    (solving,) = [event for event in events if "virtual_packages" in event]
    assert any(item.startswith("__glibc=") for item in solving["virtual_packages"]) or sys.platform != "linux"


def test_the_wizard_reads_progress_and_sentences_from_the_engines_lines(
    channel: Path, tmp_path: Path
) -> None:
    # The engine prints each line's progress record (core/envs/rattler_output.py reads it as is)
    # and the sentence the log keeps: what env create shows of a py-rattler environment.
    lines: list[str] = []
    status = StreamingSubprocessRunner().stream(
        engine_argv(tmp_path / "envs" / "demo", [channel.as_uri()], ["demo"], tmp_path / "cache"),
        lines.append,
        cancel=threading.Event(),
        timeout=EVENT_S,
        env_overrides=NO_PROXY,
    )
    assert status == 0, lines
    events = [json.loads(line) for line in lines]
    records = [parse_tool_line("rattler", line) for line in lines]
    assert all(len(found) == 1 for found in records)
    progress = [found[0] for found in records]
    assert [record.message for record in progress] == [event["message"] for event in events[:-1]] + [
        "installed 2 packages"
    ]
    assert {record.action for record in progress[:2]} == {"solve"}
    linked = [record for record in progress if record.action == "link" and record.package]
    assert [(record.package, record.count, record.percent) for record in linked] == [
        (linked[0].package, 1, 50.0),
        (linked[1].package, 2, 100.0),
    ]
    assert progress[-1] == ToolProgress("installed", count=2, message="installed 2 packages")
    # The log's sentences: each message, and the packages installed at the end.
    said = [rattler_message(line) for line in lines]
    assert said[:-1] == [event["message"] for event in events[:-1]]
    assert said[-1] == "installed demo==2.0, libdemo==1.0"


def test_an_unsolvable_spec_is_an_error_and_leaves_no_prefix(channel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "nothing"
    status, events, _ = run_engine(engine_argv(prefix, [channel.as_uri()], ["demo >=3"], tmp_path / "cache"))

    assert status == 1
    assert events[-1]["event"] == "error"
    assert "demo >=3" in events[-1]["message"]
    # rattler fails in the solve, before it writes anything: the prefix was never made.
    assert not prefix.exists()


def test_a_failed_install_removes_what_it_linked(channel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "broken"
    # The repodata promises a package whose archive is gone: the solve succeeds, the install fails.
    (channel / "noarch" / DEMO.file_name).unlink()
    status, events, _ = run_engine(engine_argv(prefix, [channel.as_uri()], ["demo"], tmp_path / "cache"))

    assert status == 1
    assert "solve" in stages(events)
    assert events[-1]["event"] == "error"
    assert not prefix.exists()


@pytest.mark.parametrize(
    ("channels", "more"),
    [
        (["defaults"], ()),
        (["pytorch"], ()),
        (["https://repo.anaconda.com/pkgs/main"], ()),
        (["bioconda"], ()),
        (["http://mirror.example/conda-forge"], ()),  # plain http to another machine
        (["conda-forge"], ("--offline",)),
    ],
)
def test_refused_channels_stop_before_anything_is_made(
    tmp_path: Path, channels: list[str], more: tuple[str, ...]
) -> None:
    prefix = tmp_path / "envs" / "refused"
    status, events, _ = run_engine(engine_argv(prefix, channels, ["demo"], tmp_path / "cache", *more))

    assert status == 2
    assert [event["event"] for event in events] == ["error"]
    assert not prefix.exists()


def test_offline_installs_from_a_file_channel(channel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "offline"
    argv = engine_argv(prefix, ["nodefaults", channel.as_uri()], ["demo"], tmp_path / "cache", "--offline")
    status, events, _ = run_engine(argv)

    assert status == 0, events
    assert (prefix / "conda-meta" / "demo-2.0-0.json").is_file()


def test_another_platform_is_solved_and_laid_out_for_it(channel: Path, tmp_path: Path) -> None:
    """win-64 from here: no virtual packages can be detected for it, noarch ones still install."""
    prefix = tmp_path / "envs" / "windows"
    argv = engine_argv(prefix, [channel.as_uri()], ["demo"], tmp_path / "cache", "--platform", "win-64")
    status, events, _ = run_engine(argv)

    assert status == 0, events
    assert "for win-64" in events[0]["message"]
    assert [event["virtual_packages"] for event in events if "virtual_packages" in event] == [[]]
    assert (prefix / "conda-meta" / "demo-2.0-0.json").is_file()


def test_downloads_over_http_report_bytes(channel: Path, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "http"
    with serve() as site:
        url = serve_channel(site, channel)
        status, events, _ = run_engine(engine_argv(prefix, [url], ["demo"], tmp_path / "cache"))

    assert status == 0, events
    downloads = [event for event in events if event.get("stage") == "download"]
    assert {event["package"] for event in downloads} == {"demo", "libdemo"}
    assert (prefix / "conda-meta" / "libdemo-1.0-0.json").is_file()
    assert any(path.endswith("/noarch/repodata.json") for path in site.seen)


def test_a_proxy_from_the_environment_carries_the_requests(channel: Path, tmp_path: Path) -> None:
    """rattler's client (reqwest) takes HTTP_PROXY from the environment: nothing listens at the
    channel's port (plain http is accepted only to this machine), so only a proxy can answer,
    and the proxy sees the absolute URLs."""
    prefix = tmp_path / "envs" / "proxied"
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        nobody = f"http://localhost:{closed.getsockname()[1]}"  # bound, never listening
        with serve() as site:
            url = serve_channel(site, channel, prefix=nobody)
            proxy = {"HTTP_PROXY": site.url, "http_proxy": site.url, "NO_PROXY": "", "no_proxy": ""}
            status, events, _ = run_engine(
                engine_argv(prefix, [url], ["demo"], tmp_path / "cache"), env=proxy
            )

    assert status == 0, events
    assert f"{nobody}/ch/noarch/repodata.json" in site.seen
    assert (prefix / "conda-meta" / "demo-2.0-0.json").is_file()


@pytest.fixture
def slow_channel(channel: Path) -> Iterator[str]:
    """The channel over HTTP, with bigdemo's archive held back until the test ends."""
    with held_channel(channel, hold=[BIG.name]) as served:
        yield served.url


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM: the runner uses taskkill /F on Windows")
def test_sigterm_part_way_stops_with_130_and_leaves_nothing(slow_channel: str, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "stopped"
    argv = engine_argv(prefix, [slow_channel], ["bigdemo"], tmp_path / "cache")
    env = {**os.environ, **NO_PROXY}
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=env) as process:
        assert process.stdout is not None
        seen: list[dict[str, Any]] = []
        for line in process.stdout:
            seen.append(json.loads(line))
            if seen[-1].get("stage") == "link" and seen[-1].get("package") == "libdemo":
                break
        else:
            pytest.fail(f"libdemo was never linked: {seen}")
        # Part-way: one package is in the prefix, the other still downloading.
        assert (prefix / LIB.payload_path).is_file()
        assert not (prefix / BIG.payload_path).exists()
        process.send_signal(signal.SIGTERM)
        rest = [json.loads(line) for line in process.stdout]
        status = process.wait(EVENT_S)

    assert status == 130
    assert rest[-1] == {
        "event": "error",
        "message": "cancelled",
        "cancelled": True,
        "log": "error: cancelled",
    }
    assert not prefix.exists()


def test_cancel_through_the_runner_leaves_nothing(slow_channel: str, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "cancelled"
    cancel = threading.Event()
    half_made: list[bool] = []

    def on_line(line: str) -> None:
        if '"stage": "link"' in line and '"package": "libdemo"' in line:
            half_made.append((prefix / LIB.payload_path).is_file())
            cancel.set()

    argv = engine_argv(prefix, [slow_channel], ["bigdemo"], tmp_path / "cache")
    with pytest.raises(CommandCancelled):
        StreamingSubprocessRunner().stream(
            argv, on_line, cancel=cancel, timeout=EVENT_S, env_overrides=NO_PROXY
        )

    assert half_made == [True]
    assert not prefix.exists()


# --- the backend ----------------------------------------------------------------------------


def test_backend_builds_the_engine_command(tmp_path: Path) -> None:
    backend = RattlerBackend(cache_dir=tmp_path / "cache")
    spec = CondaSpec(("cudatoolkit=11.2", "cudnn=8.1.0"), ("conda-forge",))
    command = backend.create_command(tmp_path / "env", "3.10", PackageSource(), spec)

    assert (backend.manager, backend.tool) == ("conda", "rattler")
    assert command.phase == "create"
    assert command.argv[:4] == (sys.executable, "-m", ENGINE_MODULE, "create")
    assert command.argv[4:] == (
        "--prefix", str(tmp_path / "env"), "--channel", "conda-forge", "--cache-dir", str(tmp_path / "cache"),
        "python=3.10", "cudatoolkit=11.2", "cudnn=8.1.0", "pip",
    )  # fmt: skip
    assert backend.variables_command(tmp_path / "env", {"A": "1"}) is None


def test_the_frozen_wizard_starts_the_engine_as_its_console_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PyInstaller's programs have no ``-m``: installer/entry.py takes ``--rattler-engine`` instead,
    and the windowed program (no console streams) hands the engine to the console one beside it."""
    windowed, console = tmp_path / "gpuwizardw.exe", tmp_path / "gpuwizard.exe"
    windowed.write_bytes(b"")
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", str(windowed))
    assert backend_engine_argv() == [str(windowed), FROZEN_ENGINE_FLAG]  # no console program beside it
    console.write_bytes(b"")
    assert backend_engine_argv() == [str(console), FROZEN_ENGINE_FLAG]
    command = RattlerBackend().create_command(tmp_path / "env", "3.10", PackageSource(), CondaSpec(()))
    assert command.argv[:3] == (str(console), FROZEN_ENGINE_FLAG, "create")
    assert command.output == "rattler"


def test_the_frozen_programs_entry_runs_the_engine_for_its_flag(channel: Path, tmp_path: Path) -> None:
    """The entry script PyInstaller freezes, run as a script: ``--rattler-engine`` is the engine."""
    entry = Path(__file__).parents[3] / "installer" / "entry.py"
    prefix = tmp_path / "envs" / "frozen"
    engine = engine_argv(prefix, [channel.as_uri()], ["demo"], tmp_path / "cache")
    assert engine[1:3] == ["-m", ENGINE_MODULE]
    argv = [sys.executable, str(entry), FROZEN_ENGINE_FLAG, *engine[3:]]
    status, events, _ = run_engine(argv)

    assert status == 0, events
    assert events[-1]["event"] == "done"
    assert (prefix / "conda-meta" / "demo-2.0-0.json").is_file()


def test_backend_refuses_channels_before_running(tmp_path: Path) -> None:
    backend = RattlerBackend()
    with pytest.raises(ChannelRefused):
        backend.create_command(tmp_path / "env", "3.10", PackageSource(), CondaSpec((), ("pytorch",)))
    with pytest.raises(ChannelRefused):
        backend.create_command(tmp_path / "env", "3.10", PackageSource(offline=True), CondaSpec(()))


def test_backend_installs_with_pip_inside_and_finds_the_interpreter(tmp_path: Path) -> None:
    backend = RattlerBackend()
    command = backend.install_command(tmp_path / "env", ["tensorflow==2.10.1"], PackageSource(), None)
    python = tmp_path / "env" / ("python.exe" if sys.platform == "win32" else "bin/python")

    assert backend.interpreter(tmp_path / "env") == python
    assert command.argv[:4] == (str(python), "-m", "pip", "install")
    assert command.argv[-1] == "tensorflow==2.10.1"


def test_backend_command_makes_the_environment(channel: Path, tmp_path: Path) -> None:
    backend = RattlerBackend(cache_dir=tmp_path / "cache")
    prefix = tmp_path / "envs" / "made"
    source = PackageSource(offline=True)
    command = backend.create_command(prefix, "3.11", source, CondaSpec(("demo",), (channel.as_uri(),)))
    status, events, _ = run_engine(list(command.argv), dict(command.env))

    assert status == 0, events
    assert events[-1]["packages"] == ["demo==2.0", "libdemo==1.0", "pip==24.0", "python==3.11.9"]
    assert (prefix / "conda-meta" / "python-3.11.9-0.json").is_file()
