"""Making an environment, step by step, with events; on failure or cancel, nothing is left behind.

:func:`create_environment` takes a request :mod:`.prepare` checked, sends its typed events
(:mod:`gpuwizard.core.envs.events`: ``start``, ``phase``, ``log``, ``progress``; the tool's own
lines parsed by :mod:`gpuwizard.core.envs.tool_output`, the import check's by
:mod:`gpuwizard.core.envs.probe_output`) and last the result, which it returns: the
:class:`~gpuwizard.core.envs.result.EnvResult`. Each event is also a line of the run's log file,
as JSON. On failure or cancel it removes what it made
(or puts back the environment it was replacing) first, and the status is ``failed`` or
``cancelled`` (exit code 3).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import sys
import threading
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, Literal, TextIO

from gpuwizard import probes
from gpuwizard.adapters.envs.base import Command, PackageSource
from gpuwizard.adapters.envs.env_files import (
    constraint_reference,
    site_packages,
    write_constraints,
    write_dll_hook,
)
from gpuwizard.adapters.processes import process_identity
from gpuwizard.adapters.runner import CommandCancelled, RunnerError
from gpuwizard.adapters.wizard_program import wizard_command
from gpuwizard.core.envs.events import EnvLog, EnvPhase, EnvPhaseName, EnvProgress, EnvStart
from gpuwizard.core.envs.package_sources import display_url, masked_argv, masked_command, sources_to_json
from gpuwizard.core.envs.probe_output import LogEntry, ProbeOutput
from gpuwizard.core.envs.python_download import contacted_hosts, download_to_json
from gpuwizard.core.envs.rattler_output import rattler_message
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.envs.tool_output import TOOLS, parse_tool_line
from gpuwizard.core.events import Event, EventSink, to_json
from gpuwizard.core.exit_status import status_text
from gpuwizard.core.frameworks import framework_module
from gpuwizard.core.machine.conda_engines import engine_title
from gpuwizard.workflow.envs.ownership import (
    loose_marker,
    make_marked_folder,
    new_id,
    owned_by,
    remove_owned,
    write_marker,
)
from gpuwizard.workflow.envs.prepare import EnvTools, PreparedEnv, SetupRefused, check_target
from gpuwizard.workflow.envs.recovery import backup_folder, kernel_staging, making_folder, settle
from gpuwizard.workflow.envs.trees import remove_tree
from gpuwizard.workflow.state.env_pending import (
    NameBusy,
    PendingEnv,
    drop_pending,
    hold_creation,
    pending_record,
    save_pending,
    with_kernel,
    with_tool,
)
from gpuwizard.workflow.state.env_registry import EnvRecord, find_record, save_record
from gpuwizard.workflow.state.home import wizard_home

# A first `import tensorflow` on a slow disk takes tens of seconds; minutes means it hangs.
_VERIFY_TIMEOUT_S: Final = 600.0
_PROBE: Final = probes.script("framework_import")
# The tools whose environments hold sources only after an install (uv installs without compiling:
# docs.astral.sh/uv/reference/settings/#compile-bytecode). pip compiles what it installs, and
# conda packages carry their bytecode or conda writes it at install.
_SOURCES_ONLY: Final = frozenset({"uv"})


def create_environment(
    prepared: PreparedEnv, tools: EnvTools, on_event: EventSink, cancel: threading.Event
) -> EnvResult:
    """Make the environment; returns the result (its ``result`` event was the last one sent).

    On failure or cancel everything made is removed (an environment being replaced is put
    back) before the result is returned, whose ``status`` is then ``failed`` or ``cancelled``.
    A record of the creation is kept under ``GPUWIZARD_HOME/pending`` while it runs, so that a
    creation killed at any instant is finished or undone by the next command
    (:mod:`.recovery`).

    Raises:
        SetupRefused: Another gpuwizard is making this name or folder, or the folder changed
            since it was checked; nothing was changed.
    """
    try:
        locks = hold_creation(prepared.request.name, prepared.prefix)
    except NameBusy as error:
        raise SetupRefused(str(error)) from None
    try:
        # What a killed run of this name left is settled first (its locks are ours now), and
        # the folder is checked again: it may have changed since prepare looked.
        record = pending_record(prepared.request.name)
        if record is not None:
            try:
                line = settle(record)
            except OSError as error:
                raise SetupRefused(
                    f"an interrupted creation of {record.name!r} cannot be undone: {error}"
                ) from None
            on_event(EnvLog(phase="check", tool="gpuwizard", line=line))
        check_target(prepared.request, prepared.prefix)
        run = _Run(prepared, tools, on_event, cancel)
        try:
            return run.execute()
        finally:
            run.close()
    finally:
        locks.release()


class _Cancelled(Exception):
    pass


class _StepFailed(Exception):
    pass


class _Run:
    """One creation: its log, the steps, and what to undo."""

    def __init__(
        self, prepared: PreparedEnv, tools: EnvTools, on_event: EventSink, cancel: threading.Event
    ) -> None:
        self.prepared = prepared
        self.request = prepared.request
        self.backend = prepared.backend
        self.prefix = prepared.prefix
        self.tools = tools
        self.on_event = on_event
        self.cancel = cancel
        self.started = time.perf_counter()
        self.log_path, self.log = new_env_log(self.request.name)
        # The new environment's id: in its marker, its pending record and its entry (ownership.py).
        self.id = new_id()
        self.backup: Path | None = None
        self.replaces_id: str | None = None
        self.kernel_backup: tuple[Path, Path] | None = None  # (moved-aside copy, where it was)
        self.pending: PendingEnv | None = None
        self.pending_lock = threading.Lock()
        self.made_prefix = False
        self.kernel_dir: Path | None = None
        self.tail: list[str] = []
        self.phase: EnvPhaseName = "check"

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.log.close()
            if self.log_path.stat().st_size == 0:  # nothing could be written (a full disk): no empty log
                self.log_path.unlink()

    # -- events -------------------------------------------------------------------------------
    def emit(self, event: Event) -> None:
        # The log file is an edge: each event is one JSON line there.
        self.log.write(json.dumps(to_json(event), ensure_ascii=False) + "\n")
        self.log.flush()
        self.on_event(event)

    def enter(self, phase: EnvPhaseName, message: str) -> None:
        if self.cancel.is_set():
            raise _Cancelled
        self.phase = phase
        self.emit(EnvPhase(phase=phase, message=message))

    def line(self, tool: str, text: str) -> None:
        # The py-rattler engine speaks JSON lines: the log keeps their sentences.
        said = rattler_message(text) if tool == "rattler" else text
        self.tail = [*self.tail[-19:], said]
        self.emit(EnvLog(phase=self.phase, tool=tool, line=said))
        for progress in parse_tool_line(tool, text):
            self.emit(EnvProgress.of(progress, self.phase))

    # -- steps --------------------------------------------------------------------------------
    def execute(self) -> EnvResult:
        self.emit(_start_event(self.prepared, self.log_path))
        try:
            record = self._steps()
        except (_Cancelled, CommandCancelled):
            return self._roll_back("cancelled", "cancelled by the user")
        except (_StepFailed, RunnerError, OSError, ValueError) as error:
            return self._roll_back("failed", str(error))
        except BaseException:
            self._roll_back("failed", "interrupted")
            raise
        result = EnvResult(
            status="ok",
            name=record.name,
            path=record.path,
            python=record.python,
            framework=record.framework,
            framework_version=record.framework_version,
            framework_build=record.framework_build,
            manager=record.manager,
            tool=record.tool,
            constraints=record.constraints,
            variables=dict(record.variables),
            jupyter_kernel=record.jupyter_kernel,
            seconds=round(time.perf_counter() - self.started, 2),
            log=str(self.log_path),
        )
        self.emit(result)
        return result

    def _steps(self) -> EnvRecord:
        prepared, request, plan = self.prepared, self.request, self.prepared.plan
        conda_spec = prepared.conda
        existed = self.prefix.exists()
        replacing = existed and any(self.prefix.iterdir())
        if self.cancel.is_set():
            raise _Cancelled
        self._record_and_move_aside(existed, replacing)
        tool = engine_title(self.backend.tool)  # py-rattler, as people know it
        self.enter("create", f"creating {self.prefix} with {tool} ({prepared.python_note})")
        self.made_prefix = True
        marked_first = self.backend.marks_folder_before_create
        if marked_first:
            # A kill at any later instant leaves a folder that provably is this run's; the
            # other tools take only an absent or empty folder: theirs is marked once made.
            self._make_marked_folder(existed and not replacing)
        self._run(self.backend.create_command(self.prefix, prepared.python, prepared.source, conda_spec))
        if not marked_first:
            given = existed and not replacing
            write_marker(self.prefix, "environment", self.id, request.name, given=given)
        if self.backend.needs_pip_seed:
            self._seed_pip()
        self.enter("install", f"installing {', '.join(prepared.requirements)}")
        self._run(self.backend.install_command(self.prefix, prepared.requirements, prepared.source, None))
        if plan.cuda_wheels is not None and sys.platform == "win32":
            # Before the import check: TensorFlow looks for its CUDA DLLs when it is imported.
            self.enter("dlls", "making the NVIDIA wheels' DLL folders visible to every start of its Python")
            for written in write_dll_hook(site_packages(self.prefix, plan.python)):
                self._note(f"wrote {written}")
        self.enter("verify", f"importing {framework_module(plan.framework)} in the new environment")
        probe = self._verify()
        # The plan's bounds on CUDA libraries (nvidia-cudnn-cu12<9.11 where today's cuDNN drops
        # this GPU) are kept too: a later `pip install` cannot lift them (issue 36).
        pins = [f"{probe['distribution']}=={probe['distribution_version']}", *plan.library_pins]
        self.enter("constraints", f"pinning {', '.join(pins)} so later installs cannot replace the build")
        constraints = write_constraints(self.prefix, pins)
        variables = dict(prepared.variables)
        # uv does not read pip's config file; UV_CONSTRAINT is its equivalent
        # (docs.astral.sh/uv/reference/environment/#uv_constraint).
        # Named as uv reads it: a file: URL where the path holds spaces or non-ASCII letters.
        variables["UV_CONSTRAINT"] = constraint_reference(constraints)
        self.enter("variables", ", ".join(f"{key}={value}" for key, value in variables.items()))
        self._set_variables(variables)
        kernel = None
        if request.jupyter:
            self.enter("kernel", "registering a Jupyter kernel")
            kernel = self._register_kernel()
        self.enter("register", "recording the environment")
        record = EnvRecord(
            name=request.name,
            path=str(self.prefix),
            python=str(self.backend.interpreter(self.prefix)),
            manager=self.backend.manager,
            framework=plan.framework,
            # The public version, as the contract shows it; the build (+cpu, +cu126) is kept beside it.
            framework_version=str(probe.get("framework_version") or plan.framework_version).split("+")[0],
            framework_build=str(probe.get("distribution_version") or ""),
            tool=self.backend.tool,
            python_version=str(probe.get("python_version", "")),
            created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
            constraints=str(constraints),
            variables=variables,
            jupyter_kernel=kernel,
            log=str(self.log_path),
            id=self.id,
            device=plan.device,
            # Where it was installed from: the fixes verify offers install from there too.
            find_links=str(prepared.source.find_links) if prepared.source.find_links else None,
            offline=prepared.source.offline,
        )
        if self.cancel.is_set():
            raise _Cancelled
        # The point of no return: once the entry is saved, a kill leaves a finished environment
        # (recovery then only deletes the moved-aside original, as the next lines do).
        save_record(record)
        self._drop_replaced()
        drop_pending(request.name)
        if self.cancel.is_set():
            # The cancel came after the last moment it could stop anything: said, not lost.
            remove = wizard_command().run("env", "remove", request.name)
            self._note(
                f"the cancel came after the environment was recorded: it is kept (`{remove}` removes it)"
            )
        return record

    def _record_and_move_aside(self, existed: bool, replacing: bool) -> None:
        """Write the pending record, then move the environment being replaced (and its kernel) aside."""
        request = self.request
        # check_target, under the creation's locks, proved an occupied folder is this name's
        # environment (its marker is the entry's id); its kernel moves aside with it if it is ours.
        replaced = find_record(request.name) if replacing else None
        self.replaces_id = replaced.id if replaced is not None else None
        old_kernel = replaced.jupyter_kernel if replaced is not None else None
        if old_kernel is not None and not owned_by(Path(old_kernel), "kernel", self.replaces_id):
            old_kernel = None
        # Recorded before anything on disk changes: a kill from here on is settled by the next run.
        self.pending = PendingEnv(
            name=request.name,
            prefix=str(self.prefix),
            prefix_existed=existed and not replacing,
            backup=str(backup_folder(self.prefix, self.id)) if replacing else None,
            log=str(self.log_path),
            pid=os.getpid(),
            id=self.id,
            replaces_id=self.replaces_id,
            old_kernel=old_kernel,
        )
        save_pending(self.pending)
        if replacing:
            self.enter("replace", f"moving the existing {request.name} aside until the new one works")
            self.prefix.replace(backup_folder(self.prefix, self.id))
            self.backup = backup_folder(self.prefix, self.id)
            if old_kernel is not None:
                moved = backup_folder(Path(old_kernel), self.id)
                Path(old_kernel).replace(moved)
                self.kernel_backup = (moved, Path(old_kernel))

    def _drop_replaced(self) -> None:
        """Delete the replaced environment and its kernel, now that the new one is recorded."""
        if self.backup is not None:
            remove_owned(self.backup, "environment", self.replaces_id, place=self.prefix)
            self.backup = None
        if self.kernel_backup is not None:
            moved, place = self.kernel_backup
            remove_owned(moved, "kernel", self.replaces_id, place=place)
            self.kernel_backup = None

    def _make_marked_folder(self, existed_empty: bool) -> None:
        """Make the environment's folder with the marker already in it (renamed into place whole)."""
        if existed_empty:
            write_marker(self.prefix, "environment", self.id, self.request.name, given=True)
            return
        staging = making_folder(self.prefix, self.id)
        staging.parent.mkdir(parents=True, exist_ok=True)
        make_marked_folder(staging, "environment", self.id, self.request.name, place=self.prefix)
        staging.replace(self.prefix)

    def _started(self, pid: int) -> None:
        # Recorded the moment it runs: the only processes a later recovery may end. Two may
        # start at once (the import check and the compile beside it): one record at a time.
        identity = process_identity(pid)
        with self.pending_lock:
            if identity is not None and self.pending is not None:
                self.pending = with_tool(self.pending, identity)

    def _run(self, command: Command, *, on_line: Callable[[str], None] | None = None) -> None:
        self.log.write(
            f"$ {masked_command(command.argv, command.env)}\n"
        )  # a mirror's login stays out of the log
        tool = Path(command.argv[0]).stem.lower() if self.backend.tool != "pip" else "pip"
        # Anything else (the environment's own python running pip) prints pip's lines.
        tool = command.output or (tool if tool in TOOLS else "pip")
        take = on_line or (lambda text: self.line(tool, text))
        printed = False

        def heard(text: str) -> None:
            nonlocal printed
            printed = printed or bool(text.strip())
            take(text)

        status = self.tools.runner.stream(
            command.argv, heard, cancel=self.cancel, env_overrides=dict(command.env), on_start=self._started
        )
        if status != 0:
            # A crash is a number (3221225781: a missing DLL, issue 37): said in words, and a
            # tool that printed nothing is said to have, not left as an empty line after a colon.
            last = next((text for text in reversed(self.tail) if text.strip()), "") if printed else ""
            how = status_text(status, windows=sys.platform == "win32")
            ended = f"{Path(command.argv[0]).name} exited with {how}"
            raise _StepFailed(
                f"{self.phase}: {ended}: {last.strip()}"
                if last.strip()
                else f"{self.phase}: {ended}, printing nothing"
            )

    def _seed_pip(self) -> None:
        # `uv venv` makes environments without pip (docs.astral.sh/uv/pip/environments/); people
        # expect `pip install` to work inside, and pip is what reads the constraints file. pip
        # comes from the wheel folder when it holds one, else from the default index (the
        # plan's index, the PyTorch one, need not carry pip). Without pip the environment
        # still works through `uv pip`, so failing to add it is said, not fatal.
        source = self.prepared.source
        has_wheel = source.find_links is not None and any(source.find_links.glob("pip-*.whl"))
        if source.offline and not has_wheel:
            self._note("no pip wheel in the folder: the environment has no pip (use `uv pip`)")
            return
        seed = (
            PackageSource(find_links=source.find_links, offline=True)
            if has_wheel
            else PackageSource(default_index_url=source.default_index_url)  # the person's PyPI mirror, if any
        )
        self.enter("pip", "adding pip to the environment")
        try:
            self._run(self.backend.install_command(self.prefix, ["pip"], seed, None))
        except _StepFailed as error:
            self._note(f"pip could not be added ({error}); use `uv pip` in this environment")

    def _note(self, text: str) -> None:
        self.emit(EnvLog(phase=self.phase, tool="gpuwizard", line=text))

    def _verify(self) -> dict[str, Any]:
        module = framework_module(self.prepared.plan.framework)
        # The probe's JSON answer becomes a sentence with the answer as data, and warnings known
        # to be harmless (torch without NumPy) one explained line: core/envs/probe_output.py.
        output = ProbeOutput()

        def keep(text: str) -> None:
            self._probe_entries(output.feed(text))

        python = self.backend.interpreter(self.prefix)
        argv: tuple[str, ...] = (str(python), "-I", str(_PROBE), module)
        if self.backend.tool in _SOURCES_ONLY:
            # Then the first run's modules are imported (and compiled) here: the probe's --warm.
            argv = (*argv, "--warm", self.prepared.plan.framework)
        self.log.write(f"$ {masked_argv(argv)}\n")
        try:
            status = self.tools.runner.stream(
                argv, keep, cancel=self.cancel, timeout=_VERIFY_TIMEOUT_S, on_start=self._started
            )
        finally:
            self._probe_entries(output.finish())
            if output.warm is not None:  # its seconds: for the log file, not the event
                self.log.write(f"framework_import: {json.dumps(output.warm)}\n")
        report: dict[str, Any] = output.report or {}
        if not report.get("ok"):
            # No answer: the import crashed the interpreter (a DLL, an instruction): its status says how.
            how = status_text(status, windows=sys.platform == "win32")
            silent = f"no answer from the probe (it exited with {how})"
            raise _StepFailed(f"verify: import {module} failed: {report.get('error', silent)}")
        wanted = self.prepared.plan.framework_version
        found = str(report.get("distribution_version") or report.get("framework_version") or "")
        if not (found == wanted or found.startswith(wanted + "+")):
            raise _StepFailed(f"verify: {module} {found} was installed instead of {wanted}")
        return report

    def _probe_entries(self, entries: list[LogEntry]) -> None:
        for entry in entries:
            # The tail explains a failure: the raw lines of a note, the answer in its sentence.
            self.tail = [*self.tail, *(entry.details or (entry.line,))][-20:]
            self.emit(entry.event(self.phase))

    def _set_variables(self, variables: dict[str, str]) -> None:
        command = self.backend.variables_command(self.prefix, variables)
        if command is not None:
            self._run(command)
            return
        for written in self.backend.write_variables(self.prefix, variables):
            self._note(f"wrote {written}")

    def _register_kernel(self) -> str:
        """Write the kernel spec under a name of its own, marked, and rename it into place whole.

        ipykernel's ``install --user`` replaces a kernel folder of the same name, a person's own
        included (jupyter_client's ``install_kernel_spec`` removes the destination first), so
        the spec is written under ``--prefix`` into a folder of this run's and moved to a kernel
        name nobody uses: ``demo`` and ``Demo`` get ``demo`` and ``demo-2``.
        """
        python = self.backend.interpreter(self.prefix)
        kernels = self._kernels_folder(python)
        name = _free_kernel_name(kernels, self.request.name)
        if self.kernel_backup is not None and self.kernel_backup[1].parent == kernels:
            # A replacement keeps the kernel name notebooks already refer to (its place is free).
            name = self.kernel_backup[1].name
        target = kernels / name
        self.kernel_dir = target
        if self.pending is not None:
            self.pending = with_kernel(self.pending, target)
        staging = kernel_staging(target, self.id)
        staging.parent.mkdir(parents=True, exist_ok=True)
        make_marked_folder(staging, "kernel", self.id, self.request.name)
        command = Command(
            (
                str(python),
                "-m",
                "ipykernel",
                "install",
                "--prefix",
                str(staging),
                "--name",
                name,
                "--display-name",
                f"Python ({self.request.name})",
            ),
            "kernel",
        )
        self._run(command, on_line=lambda text: self.line("ipykernel", text))
        # ipykernel writes PREFIX/share/jupyter/kernels/NAME (ipykernel/kernelspec.py, install).
        written = staging / "share" / "jupyter" / "kernels" / name
        write_marker(written, "kernel", self.id, self.request.name, place=target)
        written.replace(target)
        remove_owned(staging, "kernel", self.id)
        return str(target)

    def _kernels_folder(self, python: Path) -> Path:
        """The user's Jupyter kernels folder, as the environment's own jupyter_core finds it."""
        found: list[str] = []
        argv = (str(python), "-c", "import jupyter_core.paths as p; print(p.jupyter_data_dir())")
        status = self.tools.runner.stream(
            argv, found.append, cancel=self.cancel, timeout=_VERIFY_TIMEOUT_S, on_start=self._started
        )
        lines = [line.strip() for line in found if line.strip()]
        if status != 0 or not lines:
            raise _StepFailed(f"kernel: the Jupyter data folder could not be found: {' '.join(lines)[-300:]}")
        return Path(lines[-1]) / "kernels"

    def _roll_back(self, status: Literal["failed", "cancelled"], error: str) -> EnvResult:
        self.emit(EnvPhase(phase="rollback", message=f"{status}: removing what was made"))
        problems = []
        if self.kernel_dir is not None:
            problems += _remove_own(self.kernel_dir, "kernel", self.id)
            problems += _remove_own(kernel_staging(self.kernel_dir, self.id), "kernel", self.id)
        if self.made_prefix:
            if owned_by(self.prefix, "environment", self.id):
                given = self.pending is not None and self.pending.prefix_existed
                problems += remove_owned(self.prefix, "environment", self.id, keep_folder=given)
            elif not self.backend.marks_folder_before_create and self.prefix.exists():
                # Made by the tool in this run, under its locks, and not yet marked.
                problems += remove_tree(self.prefix)
            problems += _remove_own(
                making_folder(self.prefix, self.id), "environment", self.id, place=self.prefix
            )
        if self.backup is not None and not problems:
            try:
                self.backup.replace(self.prefix)
            except OSError as failure:
                problems.append(f"could not put back {self.prefix} from {self.backup}: {failure}")
        elif self.backup is not None:
            problems.append(f"the original is kept at {self.backup}; the next gpuwizard command puts it back")
        if self.kernel_backup is not None and not problems:
            try:
                self.kernel_backup[0].replace(self.kernel_backup[1])
            except OSError as failure:
                problems.append(f"could not put back the kernel {self.kernel_backup[1]}: {failure}")
        if not problems and self.pending is not None:
            if self.pending.prefix_existed and not self.prefix.exists():
                self.prefix.mkdir(parents=True, exist_ok=True)  # the empty folder it was given
            drop_pending(self.request.name)  # else the record stays: the next command finishes the job
        result = EnvResult(
            status=status,
            name=self.request.name,
            path=str(self.prefix),
            error=error,
            log_tail=tuple(self.tail[-10:]),
            rollback_problems=tuple(problems),
            seconds=round(time.perf_counter() - self.started, 2),
            log=str(self.log_path),
        )
        self.emit(result)
        return result


def _start_event(prepared: PreparedEnv, log: Path) -> EnvStart:
    """What will be made, from what: the first event of the creation."""
    source, plan, download = prepared.source, prepared.plan, prepared.python_download
    return EnvStart(
        name=prepared.request.name,
        path=str(prepared.prefix),
        manager=prepared.backend.manager,
        tool=prepared.backend.tool,
        framework=plan.framework,
        framework_version=plan.framework_version,
        python_version=plan.python,
        requirements=tuple(prepared.requirements),
        # The index really used: the plan's, or the person's mirror of it (login hidden).
        index_url=None if source.offline or source.index is None else display_url(source.index),
        find_links=str(source.find_links) if source.find_links else None,
        offline=source.offline,
        # Where the conda packages come from (conda environments): the plan's channels, or the
        # ones given with --channel instead.
        conda_channels=tuple(display_url(channel) for channel in prepared.conda.channels),
        log=str(log),
        # Every index contacted and why, and the install command as it runs (core/envs/package_sources.py).
        package_sources=None
        if prepared.sources is None
        else sources_to_json(prepared.sources, prepared.requirements),
        # The Python build uv downloads (none of the plan's is installed here), and every host
        # contacted with why (core/envs/python_download.py; issue 37, point 6).
        python_download=None if download is None else download_to_json(download),
        hosts=tuple(host.to_json() for host in contacted_hosts(prepared.sources, download)),
    )


def _remove_own(
    folder: Path, kind: Literal["environment", "kernel"], owner_id: str, *, place: Path | None = None
) -> list[str]:
    """Remove a folder of this run's: marked with its id, or left empty by a failure before the marker."""
    loose_marker(folder).unlink(missing_ok=True)
    if owned_by(folder, kind, owner_id, place=place):
        return remove_owned(folder, kind, owner_id, place=place)
    if folder.is_dir() and not folder.is_symlink() and not any(folder.iterdir()):
        folder.rmdir()
    return []


def _free_kernel_name(kernels: Path, name: str) -> str:
    """The kernel name for ``name``: its folder form, numbered past any kernel already there."""
    base = _kernel_name(name)
    # Jupyter finds kernels by their folder's name in lower case (jupyter_client's kernelspec.py
    # lowercases both), so a person's "MyProj" takes "myproj" too, on any file system.
    taken = {entry.name.lower() for entry in kernels.iterdir()} if kernels.is_dir() else set()
    number = 1
    while True:
        candidate = base if number == 1 else f"{base}-{number}"
        if candidate not in taken:
            return candidate
        number += 1


def _file_safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def new_env_log(name: str, kind: str = "env-create") -> tuple[Path, TextIO]:
    """A creation's log file of its own: runs started in the same second (or by two wizards) never share one.

    ``kind`` starts its name (``env-create-wsl`` for one inside WSL 2: ``wsl_create``); the
    uninstaller's "remove data" deletes ``env-create-*.log`` in the logs folder.
    """
    stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
    logs = wizard_home() / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    while True:
        path = logs / f"{kind}-{_file_safe(name)}-{stamp}-{secrets.token_hex(4)}.log"
        try:
            # "x": created here or not at all. Lines the tool prints that are not UTF-8 are kept
            # escaped rather than ending the run.
            return path, path.open("x", encoding="utf-8", errors="backslashreplace")
        except FileExistsError:
            continue


def _kernel_name(name: str) -> str:
    # Kernel names are folder names limited to [a-zA-Z0-9._-] (jupyter_client kernelspec.py).
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-") or "gpuwizard"
