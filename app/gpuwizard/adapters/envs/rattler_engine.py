"""The conda engine for machines without conda: py-rattler, run as its own program (issue 23).

``python -m gpuwizard.adapters.envs.rattler_engine create --prefix DIR --channel URL...
[--platform P] [--offline] [--cache-dir DIR] SPEC...`` solves ``SPEC``s against the channels and
installs the result into ``DIR`` as a conda environment (``conda-meta/``), with py-rattler
(github.com/conda/rattler, prefix.dev's engine behind pixi). The backend starts it through the
streaming runner, like every other tool, so the log, cancel and the progress parser work the
same. Each step is one JSON object per line on stdout, which says three things:

- the engine's own facts: ``{"event": "progress", "stage": "repodata"|"solve"|"download"|"link",
  ...}`` with ``message``, and where rattler tells them ``package``, ``version``, ``count``,
  ``total``, ``bytes_done``, ``bytes_total``; the solve step's ``virtual_packages`` are what this
  machine offers the solver (``__glibc=2.36``, ``__cuda=12.7`` where a driver answers); last
  ``{"event": "done", "prefix": DIR, "packages": ["name==version", ...]}``, exit 0, or
  ``{"event": "error", "message": ...}``: exit 2 for a refused channel or an unreadable spec
  (nothing was made), 1 for a failure, 130 when SIGTERM/SIGINT stopped it. After an error the
  prefix is removed if this run made it (emptied if it was an empty folder before);
- the progress record the wizard shows, as every tool's parser gives it
  (:class:`~gpuwizard.core.envs.tool_progress.ToolProgress`: ``action``, ``package``,
  ``version``, ``count``, ``bytes_done``, ``bytes_total``, ``percent``, ``message``), on every
  ``progress`` and ``done`` line: fetching channel metadata and solving are ``solve``, as for
  conda, a download's percentage is of its bytes and linking's of the packages to link;
- ``log``: the sentence the creation's log keeps for the line, rather than the JSON.

Channels with a login or a token: ``--channel`` would show them to every user of the machine
(``ps``), so the backend gives them in the variable ``GPUWIZARD_RATTLER_CHANNELS`` instead, a
JSON list of URLs (read when no ``--channel`` is given); what the engine prints names every
channel with its login and token hidden (``core/envs/package_sources.py``, ``display_url``), and
an error's text is masked the same way.

Proxies: rattler's client is reqwest, whose system proxy support reads ``HTTP_PROXY``,
``HTTPS_PROXY``, ``ALL_PROXY`` and ``NO_PROXY`` (either case) from the environment
(docs.rs/reqwest, "Proxies": system proxies are enabled by default); the engine reads no
pixi/rattler configuration file, so those variables are the whole story. Offline, only
``file://`` channels are accepted (:mod:`gpuwizard.core.envs.rattler_channels`), so nothing is
fetched from the network.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final, NoReturn

import rattler
from rattler.exceptions import InvalidMatchSpecError, ParseSubdirError

from gpuwizard.core.envs.conda_channels import ChannelRefused
from gpuwizard.core.envs.package_sources import RATTLER_CHANNELS_VARIABLE, display_url, hide_logins
from gpuwizard.core.envs.rattler_channels import rattler_channels
from gpuwizard.core.envs.tool_progress import percent_of

EXIT_FAILED: Final = 1
EXIT_BAD_INPUT: Final = 2
EXIT_CANCELLED: Final = 130
# Download progress is reported at most this often per package: a fast local download calls
# back for every chunk, and the log keeps every line.
_PROGRESS_EVERY_S: Final = 0.25
# Removing a failed prefix: looks, how far apart, and the bound (see _undo).
_UNDO_QUIET_LOOKS: Final = 3
_UNDO_LOOK_S: Final = 0.1
_UNDO_BOUND_S: Final = 1.5


#: The engine's stages as the progress records name them (tool_progress.ACTIONS).
_ACTIONS: Final = {"repodata": "solve", "solve": "solve", "download": "download", "link": "link"}


class _Emitter:
    """Writes one JSON object per line; rattler calls back from its own threads."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    def __call__(self, event: str, log: str, **fields: object) -> None:
        known = {key: value for key, value in fields.items() if value is not None}
        line = json.dumps({"event": event, **known, "log": log})
        with self._lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def progress(self, stage: str, message: str, **fields: Any) -> None:  # noqa: ANN401 - JSON values
        action = _ACTIONS[stage]
        if action == "link":
            percent = percent_of(fields.get("count"), fields.get("total"))
        elif action == "download":
            percent = percent_of(fields.get("bytes_done"), fields.get("bytes_total"))
        else:
            percent = None
        self("progress", message, stage=stage, action=action, message=message, percent=percent, **fields)

    def done(self, prefix: Path, packages: list[str]) -> None:
        said = f"installed {', '.join(packages)}" if packages else "installed"
        self(
            "done",
            said,
            prefix=str(prefix),
            packages=packages,
            action="installed",
            count=len(packages),
            message=f"installed {len(packages)} packages",
        )

    def error(self, message: str, **fields: object) -> None:
        self("error", f"error: {message or 'the engine failed'}", message=message, **fields)


class _Reporter(rattler.InstallerReporter):
    """rattler's install callbacks as ``download`` and ``link`` progress events.

    The int each ``*_start`` returns comes back to the matching callbacks (rattler/install
    ``InstallerReporter``), so tokens are the operation's index and name the package.
    """

    def __init__(self, emit: _Emitter, versions: dict[str, str]) -> None:
        self._emit = emit
        self._versions = versions
        self._names: dict[int, str] = {}
        self._last: dict[int, float] = {}
        self._total = 0
        self._linked = 0

    def on_transaction_start(self, total_operations: int) -> None:
        self._total = total_operations
        self._emit.progress(
            "link", f"{total_operations} packages to put in place", total=total_operations, count=0
        )

    def on_populate_cache_start(self, operation: int, package_name: str) -> int:
        self._names[operation] = package_name
        return operation

    def on_download_start(self, cache_entry: int) -> int:
        name = self._names.get(cache_entry, "")
        self._emit.progress(
            "download",
            f"downloading {name}",
            package=name or None,
            version=self._versions.get(name),
            bytes_done=0,
        )
        return cache_entry

    def on_download_progress(self, download_idx: int, progress: int, total: int | None) -> None:
        now = time.monotonic()
        if now - self._last.get(download_idx, 0.0) < _PROGRESS_EVERY_S:
            return
        self._last[download_idx] = now
        name = self._names.get(download_idx, "")
        self._emit.progress(
            "download", f"downloading {name}", package=name or None, bytes_done=progress, bytes_total=total
        )

    def on_download_completed(self, download_idx: int) -> None:
        name = self._names.get(download_idx, "")
        self._emit.progress(
            "download", f"downloaded {name}", package=name or None, version=self._versions.get(name)
        )

    def on_link_start(self, operation: int, package_name: str) -> int:
        self._names[operation] = package_name
        return operation

    def on_link_complete(self, index: int) -> None:
        self._linked += 1
        name = self._names.get(index, "")
        self._emit.progress(
            "link",
            f"linked {name}",
            package=name or None,
            version=self._versions.get(name),
            count=self._linked,
            total=self._total,
        )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m gpuwizard.adapters.envs.rattler_engine")
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create", help="solve SPECs and make a conda environment at --prefix")
    create.add_argument("--prefix", required=True, type=Path)
    create.add_argument(
        "--channel",
        action="append",
        dest="channels",
        help=f"a channel (repeat for more); default: the JSON list in {RATTLER_CHANNELS_VARIABLE}",
    )
    create.add_argument(
        "--platform", default=None, help="conda subdir (linux-64, win-64...); default: this machine"
    )
    create.add_argument("--offline", action="store_true", help="only file:// channels")
    create.add_argument("--cache-dir", type=Path, default=None, help="default: rattler's (shared with pixi)")
    create.add_argument("specs", nargs="+", metavar="SPEC")
    return parser


async def create(args: argparse.Namespace, emit: _Emitter, channels: list[str]) -> list[str]:
    """Fetch repodata, solve, install; the packages installed as ``name==version``."""
    platform = rattler.Subdir(args.platform) if args.platform else rattler.Subdir.current()
    platforms = [platform, rattler.Subdir("noarch")]
    specs = [rattler.MatchSpec(spec) for spec in args.specs]
    cache = args.cache_dir
    gateway = rattler.Gateway(
        cache_dir=cache / "repodata" if cache else None, client=rattler.Client.default_client()
    )

    shown = [display_url(channel) for channel in channels]
    emit.progress("repodata", f"reading {', '.join(shown)} for {platform}", channels=shown)
    found = await gateway.query(channels, platforms, specs, recursive=True)
    emit.progress("repodata", f"{sum(map(len, found))} package records", count=sum(map(len, found)))

    # __glibc, __cuda, __win...: what this machine offers, so a build needing a newer driver or
    # libc is not chosen (rattler VirtualPackage.detect). Another platform's cannot be detected here.
    virtual = rattler.VirtualPackage.detect() if platform == rattler.Subdir.current() else []
    offered = [package.into_generic() for package in virtual]
    # Said, so a first run can be checked: __cuda appears here when a driver answers.
    emit.progress(
        "solve",
        f"solving {' '.join(args.specs)}",
        virtual_packages=[f"{package.name.normalized}={package.version}" for package in offered],
    )
    records = await rattler.solve(
        channels, specs, gateway=gateway, platforms=platforms, virtual_packages=virtual
    )
    versions = {record.name.normalized: str(record.version) for record in records}
    emit.progress(
        "solve",
        f"{len(records)} packages",
        count=len(records),
        bytes_total=sum(record.size or 0 for record in records),
        packages=[f"{name}=={version}" for name, version in sorted(versions.items())],
    )

    await rattler.install(
        records,
        args.prefix,
        cache_dir=cache / "pkgs" if cache else None,
        platform=platform,
        # Link scripts run arbitrary code and rattler advises against them (rattler.install docs).
        execute_link_scripts=False,
        show_progress=False,
        # The protocol's other methods are inherited no-ops ("All methods have no-op defaults",
        # rattler/install/installer.py); mypy reads their empty bodies as abstract.
        reporter=_Reporter(emit, versions),  # type: ignore[abstract]
    )
    return [f"{name}=={version}" for name, version in sorted(versions.items())]


def _undo(prefix: Path, existed_empty: bool) -> None:
    """Remove what this run put at ``prefix`` (rattler leaves a half-linked prefix behind).

    When one package fails, ``rattler.install`` returns while other packages' link tasks may
    still be writing on rattler's own threads (seen here: 2 runs in 30 left a dependency's
    file after the removal), and Python cannot join those threads. So the prefix is removed
    again until it has stayed gone for a few looks, within a bound well under the runner's
    3 s between SIGTERM and SIGKILL; the workflow's rollback, which runs after this process
    is gone, removes whatever is still there.
    """
    deadline = time.monotonic() + _UNDO_BOUND_S
    quiet = 0
    while quiet < _UNDO_QUIET_LOOKS and time.monotonic() < deadline:
        if prefix.exists():
            quiet = 0
            shutil.rmtree(prefix, ignore_errors=True)
        else:
            quiet += 1
        time.sleep(_UNDO_LOOK_S)
    if existed_empty:
        with contextlib.suppress(OSError):
            prefix.mkdir(parents=True)


async def _run_cancellable(args: argparse.Namespace, emit: _Emitter, channels: list[str]) -> list[str]:
    """:func:`create`, cancelled by SIGTERM or SIGINT (the runner's polite stop, POSIX)."""
    task = asyncio.current_task()
    loop = asyncio.get_running_loop()
    if task is not None and sys.platform != "win32":
        # On Windows the runner ends the tree with taskkill /F: no signal to catch, and the
        # workflow's rollback removes the prefix.
        for number in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(number, task.cancel)
    return await create(args, emit, channels)


def _channels_from_environment() -> list[str]:
    """The channels the backend put in ``GPUWIZARD_RATTLER_CHANNELS`` (a JSON list of strings).

    Raises:
        ChannelRefused: The variable is missing or is not a JSON list of strings.
    """
    text = os.environ.get(RATTLER_CHANNELS_VARIABLE, "")
    try:
        channels = json.loads(text) if text else None
    except ValueError:
        channels = None
    if not isinstance(channels, list) or not all(isinstance(channel, str) for channel in channels):
        raise ChannelRefused(
            f"no channel: give --channel, or {RATTLER_CHANNELS_VARIABLE} as a JSON list of URLs"
        )
    return channels


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; the exit status (see the module notes)."""
    args = _parser().parse_args(argv)
    emit = _Emitter()
    prefix: Path = args.prefix.absolute()
    args.prefix = prefix
    try:
        channels = rattler_channels(args.channels or _channels_from_environment(), offline=args.offline)
        for spec in args.specs:
            rattler.MatchSpec(spec)
        if args.platform:
            rattler.Subdir(args.platform)
    except (ChannelRefused, InvalidMatchSpecError, ParseSubdirError) as error:
        emit.error(hide_logins(str(error).splitlines()[0]) if str(error) else type(error).__name__)
        return EXIT_BAD_INPUT
    existed = prefix.exists()
    if existed and (not prefix.is_dir() or any(prefix.iterdir())):
        emit.error(f"{prefix} exists and is not empty")
        return EXIT_BAD_INPUT
    try:
        packages = asyncio.run(_run_cancellable(args, emit, channels))
    except (asyncio.CancelledError, KeyboardInterrupt):
        _undo(prefix, existed)
        emit.error("cancelled", cancelled=True)
        return EXIT_CANCELLED
    except Exception as error:  # noqa: BLE001 - rattler raises one class per Rust error; all end here
        _undo(prefix, existed)
        emit.error(hide_logins(f"{type(error).__name__}: {error}".strip()))
        return EXIT_FAILED
    emit.done(prefix, packages)
    return 0


def run_and_exit(argv: Sequence[str] | None = None) -> NoReturn:
    """Run :func:`main` and end the process with its status, without finalising the interpreter.

    Not sys.exit: with py-rattler 0.28.0 on Python 3.11 the interpreter's finalisation crashed
    about one run in three here (SIGSEGV, or "Fatal Python error: PyGILState_Release ...
    finalizing") after a finished install: rattler's runtime threads outlive the interpreter.
    Everything is written and flushed by then, so the process ends without finalising. Both
    ``python -m`` and the frozen wizard's ``--rattler-engine`` (installer/entry.py) end here.
    """
    status = main(argv)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    run_and_exit()
