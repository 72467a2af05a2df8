"""A conda environment that runs, made by the real py-rattler engine from a local channel (issue 23).

conda-forge is not reachable here, so ``builders/conda_channels.python_channel`` makes a channel
whose ``python`` package turns the prefix into a virtual environment of the interpreter running
the tests and whose ``pip`` is the pip wheel that interpreter bundles; the engine installs both as
it would conda-forge's, and the environment's own ``bin/python -m pip`` then installs wheels into
it. ``harness/conda_channel_server.held_channel`` serves the channel on 127.0.0.1 with an
archive held back, for stops part-way. Nothing of rattler, pip or Python is faked.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import rattler

from builders.conda_channels import PYTHON_SPEC, PYTHON_VERSION, python_channel
from builders.wheels import bundled_pip_wheel, tiny_torch
from gpuwizard.adapters.envs.rattler_backend import ENGINE_MODULE
from harness.conda_channel_server import HeldChannel, held_channel
from harness.waits import EVENT_S

pytestmark = pytest.mark.skipif(
    sys.platform == "win32", reason="the python package lays out a POSIX prefix (bin/python)"
)

PIP_VERSION = bundled_pip_wheel().name.split("-")[1]
SHORT = "python{}.{}".format(*sys.version_info[:2])
# No proxy for the test server, and none of this machine's pip settings (its find-links hold a
# real torch 2.13.0+cpu that would win over the tiny one).
QUIET_ENV = {
    "NO_PROXY": "127.0.0.1,localhost",
    "no_proxy": "127.0.0.1,localhost",
    "PIP_CONFIG_FILE": os.devnull,
    "PIP_FIND_LINKS": "",
    "PIP_DISABLE_PIP_VERSION_CHECK": "1",
}


def child_env() -> dict[str, str]:
    return {**os.environ, **QUIET_ENV}


def engine(prefix: Path, channel: str, cache: Path, *more: str) -> list[str]:
    return [
        sys.executable, "-m", ENGINE_MODULE, "create", "--prefix", str(prefix), "--cache-dir", str(cache),
        "--channel", channel, *more, PYTHON_SPEC, "pip",
    ]  # fmt: skip


def run(argv: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, env=child_env(), timeout=EVENT_S, check=False)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, Any]]]:
    """An environment made offline from the cached python channel: (prefix, the engine's events)."""
    work = tmp_path_factory.mktemp("rattler-python")
    prefix = work / "envs" / "py"
    done = run(engine(prefix, python_channel().as_uri(), work / "cache", "--offline"))
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 0, (events, done.stderr)
    return prefix, events


def test_the_environment_is_conda_format_with_python_and_pip(made: tuple[Path, list[dict[str, Any]]]) -> None:
    prefix, events = made

    assert events[-1]["packages"] == [f"pip=={PIP_VERSION}", f"python=={PYTHON_VERSION}"]
    meta = prefix / "conda-meta"
    [python_record] = meta.glob(f"python-{PYTHON_VERSION}-*.json")
    [pip_record] = meta.glob(f"pip-{PIP_VERSION}-*.json")
    assert json.loads(python_record.read_text())["subdir"] == str(rattler.Subdir.current())
    assert json.loads(pip_record.read_text())["noarch"] == "python"
    # rattler put pip, a noarch python package, into this Python's site-packages.
    assert (prefix / "lib" / SHORT / "site-packages" / "pip" / "__init__.py").is_file()


def test_its_python_runs_in_the_prefix_with_pip(made: tuple[Path, list[dict[str, Any]]]) -> None:
    prefix, _ = made
    code = "import sys, sysconfig, pip; print(sys.prefix); print(sysconfig.get_path('purelib')); print(pip.__version__)"
    done = run([str(prefix / "bin" / "python"), "-c", code])

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        str(prefix),
        str(prefix / "lib" / SHORT / "site-packages"),
        PIP_VERSION,
    ]
    # The entry point rattler wrote from the package's link.json runs too.
    pip = run([str(prefix / "bin" / "pip"), "--version"])
    assert pip.returncode == 0, pip.stderr
    assert pip.stdout.startswith(f"pip {PIP_VERSION} from {prefix}")


def test_pip_inside_installs_a_wheel_offline_and_it_imports(
    made: tuple[Path, list[dict[str, Any]]], tmp_path: Path
) -> None:
    prefix, _ = made
    wheels = tmp_path / "wheels"
    tiny_torch(wheels)
    python = str(prefix / "bin" / "python")
    install = run(
        [python, "-m", "pip", "install", "--no-index", "--find-links", str(wheels), "torch==2.13.0"]
    )

    assert install.returncode == 0, install.stdout + install.stderr
    done = run(
        [python, "-c", "import torch; print(torch.__version__, torch.version.cuda); print(torch.__file__)"]
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "2.13.0 None",
        str(prefix / "lib" / SHORT / "site-packages" / "torch" / "__init__.py"),
    ]


def test_the_channel_is_built_once_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    python_channel.cache_clear()
    try:
        first = python_channel()
        stamp = (first / "noarch" / "repodata.json").stat().st_mtime_ns
        python_channel.cache_clear()  # as a new test process would find it
        again = python_channel()
    finally:
        python_channel.cache_clear()

    assert again == first
    assert first.parent == tmp_path / "xdg" / "gpuwizard-tests" / "conda-python-channel"
    assert (again / "noarch" / "repodata.json").stat().st_mtime_ns == stamp
    assert [path.name for path in first.parent.iterdir()] == [first.name]  # no half-built folder left
    platform = str(rattler.Subdir.current())
    assert json.loads((first / platform / "repodata.json").read_text())["packages"]
    assert json.loads((first / "noarch" / "repodata.json").read_text())["packages"]


@pytest.fixture
def held_pip() -> Iterator[HeldChannel]:
    """The python channel on 127.0.0.1 with pip's archive held back."""
    with held_channel(python_channel(), hold=["pip"]) as served:
        yield served


def read_until(process: subprocess.Popen[str], *wanted: tuple[str, str]) -> list[dict[str, Any]]:
    """The engine's events up to the one where every (stage, message) in ``wanted`` was seen."""
    assert process.stdout is not None
    seen: list[dict[str, Any]] = []
    missing = set(wanted)
    for line in process.stdout:
        seen.append(json.loads(line))
        missing.discard((seen[-1].get("stage", ""), seen[-1].get("message", "")))
        if not missing:
            return seen
    pytest.fail(f"never seen {missing}: {seen}")


def test_a_held_download_is_stopped_part_way_and_leaves_nothing(
    held_pip: HeldChannel, tmp_path: Path
) -> None:
    prefix = tmp_path / "envs" / "stopped"
    argv = engine(prefix, held_pip.url, tmp_path / "cache")
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=child_env()) as process:
        read_until(process, ("download", "downloading pip"), ("link", "linked python"))
        # Part-way: python is in the prefix, pip still on its way.
        assert (prefix / "bin" / "python").is_symlink()
        assert not (prefix / "lib" / SHORT / "site-packages" / "pip").exists()
        process.send_signal(signal.SIGTERM)
        assert process.stdout is not None
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
    assert f"/ch/{held_pip.held[0]}" in held_pip.site.seen


def test_a_released_download_finishes_the_environment(held_pip: HeldChannel, tmp_path: Path) -> None:
    prefix = tmp_path / "envs" / "released"
    argv = engine(prefix, held_pip.url, tmp_path / "cache")
    with subprocess.Popen(argv, stdout=subprocess.PIPE, text=True, env=child_env()) as process:
        read_until(process, ("download", "downloading pip"))
        held_pip.release.set()
        assert process.stdout is not None
        rest = [json.loads(line) for line in process.stdout]
        status = process.wait(EVENT_S)

    assert status == 0, rest
    assert rest[-1]["event"] == "done"
    assert run([str(prefix / "bin" / "python"), "-c", "import pip"]).returncode == 0
