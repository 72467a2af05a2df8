"""The conda engine on Windows: py-rattler's real win_amd64 wheel from PyPI, in a Windows CPython under Wine.

The base Python 3.10 of ``harness.wine_tf_python`` holds the wizard's Windows dependencies,
py-rattler among them, with the ``bcryptprimitives.dll`` shim beside ``python.exe`` (rattler's
Rust standard library asks for ``ProcessPrng``, which Wine 8.0 lacks; a Windows machine has
it). The engine solves against a local channel by its Windows ``file:///Z:/...`` URL, as
``prepare.local_channel`` writes it there, and lays out a ``win-64`` conda environment.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath
from typing import Any

import pytest

from builders.conda_channels import CondaPackage, build_channel
from harness.wine_python import WineUnavailable, cache_folder, to_windows, unavailable
from harness.wine_tf_python import WineTfPython, uv_tools

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wine-rattler"), pytest.mark.timeout(1800)]

_ENGINE = """
import sys
sys.path.insert(0, sys.argv[1])
from gpuwizard.adapters.envs.rattler_engine import run_and_exit
run_and_exit(sys.argv[2:])
"""


@pytest.fixture(scope="module")
def wine_base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WineTfPython]:
    cache = cache_folder()
    try:
        wine = WineTfPython.provision_tf(tmp_path_factory.mktemp("wine-rattler"), uv_tools(cache), cache)
    except WineUnavailable as why:
        unavailable(str(why))
    yield wine
    wine.close()
    shutil.rmtree(wine.root, ignore_errors=True)


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def test_the_windows_engine_makes_a_win_64_conda_environment(wine_base: WineTfPython, tmp_path: Path) -> None:
    channel = build_channel(
        tmp_path / "channel", [CondaPackage("demo", "2.0", ("dep",)), CondaPackage("dep", "1.0")]
    )
    url = PureWindowsPath(to_windows(channel)).as_uri()  # file:///Z:/...
    prefix = tmp_path / "envs" / "lab"
    argv = ["create", "--prefix", to_windows(prefix), "--channel", url, "--offline",
            "--cache-dir", to_windows(tmp_path / "cache"), "demo"]  # fmt: skip

    done = wine_base.run(_ENGINE, to_windows(wine_base.stage), *argv, timeout=600)

    events = events_of(done.stdout)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert events[-1] == {
        "event": "done",
        "prefix": to_windows(prefix),
        "packages": ["demo==2.0", "dep==1.0"],
        "action": "installed",
        "count": 2,
        "message": "installed 2 packages",
        "log": "installed demo==2.0, dep==1.0",
    }
    stages = {event.get("stage") for event in events}
    assert {"repodata", "solve", "link"} <= stages
    assert "win-64" in events[0]["message"]
    assert (prefix / "conda-meta" / "demo-2.0-0.json").is_file()
    assert (prefix / "share" / "dep" / "payload.txt").read_text() == "made by the gpuwizard tests\n"


def test_a_spec_nothing_provides_fails_and_leaves_no_prefix(wine_base: WineTfPython, tmp_path: Path) -> None:
    channel = build_channel(tmp_path / "channel", [CondaPackage("dep", "1.0")])
    prefix = tmp_path / "envs" / "lab"
    argv = ["create", "--prefix", to_windows(prefix), "--channel", PureWindowsPath(to_windows(channel)).as_uri(),
            "--offline", "--cache-dir", to_windows(tmp_path / "cache"), "missing"]  # fmt: skip

    done = wine_base.run(_ENGINE, to_windows(wine_base.stage), *argv, timeout=600)

    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert events_of(done.stdout)[-1]["event"] == "error"
    assert not prefix.exists()
