"""Create, list and remove the environments the wizard makes (DESIGN.md section 4).

Creation runs in two halves. :func:`prepare_environment` checks everything that can be
checked first (name, folder, tool, interpreter, free space) and changes nothing; its errors
are bad input (exit 2). :func:`create_environment` then does the work step by step, streaming
events; on failure or cancel it removes what it made (or puts back the environment it was
replacing) before it returns a ``failed`` or ``cancelled`` result (exit 3).
"""

from __future__ import annotations

import json
import re
import shutil
import stat
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final, TextIO

from gpuwizard import probes
from gpuwizard.adapters.envs.base import Command, CondaSpec, EnvBackend, PackageSource
from gpuwizard.adapters.envs.conda import CONDA_TOOLS, CondaBackend
from gpuwizard.adapters.envs.env_files import write_conda_variables, write_constraints, write_venv_variables
from gpuwizard.adapters.envs.venv_backends import PipBackend, UvBackend
from gpuwizard.adapters.runner import CommandCancelled, RunnerError, StreamingRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.conda_channels import ChannelRefused, check_channels
from gpuwizard.core.envs.names import EnvNameError, check_env_name
from gpuwizard.core.envs.space import required_bytes, space_message
from gpuwizard.core.envs.tool_output import parse_tool_line, progress_event
from gpuwizard.core.envs.variables import GpuSelectionError, activation_variables
from gpuwizard.core.frameworks import framework_module
from gpuwizard.core.machine.system_report import ManagerFacts, PythonFacts
from gpuwizard.workflow.state.env_registry import (
    EnvRecord,
    drop_record,
    find_record,
    load_records,
    save_record,
)
from gpuwizard.workflow.state.home import wizard_home

VENV_TOOLS: Final = ("uv", "pip")
# A first `import tensorflow` on a slow disk takes tens of seconds; minutes means it hangs.
_VERIFY_TIMEOUT_S: Final = 600.0
_PROBE: Final = probes.script("framework_import")

EventSink = Callable[[dict[str, Any]], None]


class EnvRequestError(ValueError):
    """The request cannot be carried out as asked; nothing was changed (one line, exit code 2)."""


@dataclass(frozen=True)
class EnvRequest:
    """What the user asked for.

    Attributes:
        name: The environment's name (also its folder's name, unless ``prefix`` is given).
        plan: The recommended plan: framework release, Python, requirements and index.
        manager: ``venv`` or ``conda``; None takes the plan's.
        tool: ``uv``, ``pip``, ``conda``, ``mamba`` or ``micromamba``; None picks the best one found.
        prefix: The environment's folder; None puts it under the wizard's home (or conda's envs folder).
        find_links: A folder of wheels to install from.
        offline: Use only ``find_links``; fetch nothing.
        jupyter: Register a Jupyter kernel (installs ipykernel).
        gpus: CUDA_VISIBLE_DEVICES for the environment (``0,1``).
        replace: Replace an environment of the same name (restored if the new one fails).
        extra_requirements: More packages for pip (``numpy``).
    """

    name: str
    plan: Plan
    manager: str | None = None
    tool: str | None = None
    prefix: Path | None = None
    find_links: Path | None = None
    offline: bool = False
    jupyter: bool = False
    gpus: str | None = None
    replace: bool = False
    extra_requirements: tuple[str, ...] = ()


@dataclass(frozen=True)
class EnvTools:
    """What creation works with: the runner, and what detection found."""

    runner: StreamingRunner
    interpreters: Sequence[PythonFacts]
    managers: ManagerFacts
    disk_free: Callable[[Path], int] = field(default=lambda path: shutil.disk_usage(path).free)


@dataclass(frozen=True)
class PreparedEnv:
    """A checked request: everything :func:`create_environment` needs, decided."""

    request: EnvRequest
    backend: EnvBackend
    prefix: Path
    python: str
    python_note: str
    variables: Mapping[str, str]
    source: PackageSource
    requirements: tuple[str, ...]


def default_envs_dir() -> Path:
    """Where venv environments go when no ``--prefix`` is given."""
    return wizard_home() / "envs"


def prepare_environment(request: EnvRequest, tools: EnvTools) -> PreparedEnv:
    """Check the request and decide tool, folder and interpreter, changing nothing.

    Raises:
        EnvRequestError: Anything that makes the request impossible, said in one line.
    """
    plan = request.plan
    manager = request.manager or plan.manager
    tool = request.tool
    if tool is not None and tool not in (*VENV_TOOLS, *CONDA_TOOLS):
        raise EnvRequestError(f"unknown tool {tool!r} (choose uv, pip, conda, mamba or micromamba)")
    if tool is not None:
        manager = "venv" if tool in VENV_TOOLS else "conda"
    try:
        check_env_name(request.name, manager=manager)
        variables = activation_variables(plan.framework, plan.cpu_only, request.gpus)
        if manager == "conda":
            # A `channel::package` spec names its channel too (docs.conda.io match specifications).
            named = [package.split("::", 1)[0] for package in plan.conda_packages if "::" in package]
            check_channels([*plan.conda_channels, *named])
    except (EnvNameError, GpuSelectionError, ChannelRefused) as error:
        raise EnvRequestError(str(error)) from None
    if request.offline and request.find_links is None:
        raise EnvRequestError("--offline needs --find-links DIR: the folder of wheels to install from")
    if request.find_links is not None and not request.find_links.is_dir():
        raise EnvRequestError(f"{request.find_links}: no such folder of wheels")
    backend = _backend(manager, tool, tools.managers)
    prefix = _prefix(request, backend, tools)
    _check_target(request, prefix)
    python, python_note = _interpreter(backend, plan.python, tools.interpreters, request.offline)
    source = PackageSource(
        index_url=plan.index_url,
        find_links=request.find_links.resolve() if request.find_links else None,
        offline=request.offline,
    )
    requirements = (
        *plan.requirements,
        *request.extra_requirements,
        *(("ipykernel",) if request.jupyter else ()),
    )
    local = (
        [wheel.stat().st_size for wheel in source.find_links.glob("*.whl")]
        if source.offline and source.find_links
        else None
    )
    needed = required_bytes(plan.framework, plan.cpu_only, local)
    where = _existing_parent(prefix)
    free = tools.disk_free(where)
    if free < needed:
        raise EnvRequestError(space_message(needed, free, str(where)))
    return PreparedEnv(
        request=request,
        backend=backend,
        prefix=prefix,
        python=python,
        python_note=python_note,
        variables=variables,
        source=source,
        requirements=requirements,
    )


def create_environment(
    prepared: PreparedEnv, tools: EnvTools, on_event: EventSink, cancel: threading.Event
) -> dict[str, Any]:
    """Make the environment; returns the ``result`` event (already sent to ``on_event``).

    On failure or cancel everything made is removed (an environment being replaced is put
    back) before the result is returned, whose ``status`` is then ``failed`` or ``cancelled``.
    """
    run = _Run(prepared, tools, on_event, cancel)
    try:
        return run.execute()
    finally:
        run.close()


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
        stamp = datetime.now(timezone.utc).strftime("%Y%m%d-%H%M%S")
        logs = wizard_home() / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        self.log_path = logs / f"env-create-{_file_safe(self.request.name)}-{stamp}.log"
        self.log: TextIO = self.log_path.open("w", encoding="utf-8")
        self.backup: Path | None = None
        self.made_prefix = False
        self.kernel_dir: Path | None = None
        self.tail: list[str] = []
        self.phase = "check"

    def close(self) -> None:
        self.log.close()

    # -- events -------------------------------------------------------------------------------
    def emit(self, event: dict[str, Any]) -> None:
        self.log.write(json.dumps(event, ensure_ascii=False) + "\n")
        self.log.flush()
        self.on_event(event)

    def enter(self, phase: str, message: str) -> None:
        if self.cancel.is_set():
            raise _Cancelled
        self.phase = phase
        self.emit({"event": "phase", "phase": phase, "message": message})

    def line(self, tool: str, text: str) -> None:
        self.tail = [*self.tail[-19:], text]
        self.emit({"event": "log", "phase": self.phase, "tool": tool, "line": text})
        for progress in parse_tool_line(tool, text):
            self.emit(progress_event(progress, self.phase))

    # -- steps --------------------------------------------------------------------------------
    def execute(self) -> dict[str, Any]:
        request, plan = self.request, self.request.plan
        self.emit(
            {
                "event": "start",
                "name": request.name,
                "path": str(self.prefix),
                "manager": self.backend.manager,
                "tool": self.backend.tool,
                "framework": plan.framework,
                "framework_version": plan.framework_version,
                "python_version": plan.python,
                "requirements": list(self.prepared.requirements),
                "index_url": None if self.prepared.source.offline else plan.index_url,
                "find_links": str(self.prepared.source.find_links)
                if self.prepared.source.find_links
                else None,
                "offline": self.prepared.source.offline,
                "log": str(self.log_path),
            }
        )
        try:
            record = self._steps()
        except (_Cancelled, CommandCancelled):
            return self._roll_back("cancelled", "cancelled by the user")
        except (_StepFailed, RunnerError, OSError, ValueError) as error:
            return self._roll_back("failed", str(error))
        except BaseException:
            self._roll_back("failed", "interrupted")
            raise
        result = {
            "event": "result",
            "status": "ok",
            "name": record.name,
            "path": record.path,
            "python": record.python,
            "framework_version": record.framework_version,
            "framework_build": record.framework_build,
            "manager": record.manager,
            "tool": record.tool,
            "constraints": record.constraints,
            "variables": dict(record.variables),
            "jupyter_kernel": record.jupyter_kernel,
            "seconds": round(time.perf_counter() - self.started, 2),
            "log": str(self.log_path),
        }
        self.emit(result)
        return result

    def _steps(self) -> EnvRecord:
        prepared, request, plan = self.prepared, self.request, self.request.plan
        conda_spec = CondaSpec(plan.conda_packages, plan.conda_channels)
        if self.prefix.exists():
            self.enter("replace", f"moving the existing {request.name} aside until the new one works")
            self.backup = self.prefix.with_name(f".{self.prefix.name}.gpuwizard-replaced")
            _remove_tree(self.backup)
            self.prefix.replace(self.backup)
        self.enter("create", f"creating {self.prefix} with {self.backend.tool} ({prepared.python_note})")
        self.made_prefix = True
        self._run(self.backend.create_command(self.prefix, prepared.python, prepared.source, conda_spec))
        if isinstance(self.backend, UvBackend):
            self._seed_pip()
        self.enter("install", f"installing {', '.join(prepared.requirements)}")
        self._run(self.backend.install_command(self.prefix, prepared.requirements, prepared.source, None))
        self.enter("verify", f"importing {framework_module(plan.framework)} in the new environment")
        probe = self._verify()
        pins = [f"{probe['distribution']}=={probe['distribution_version']}"]
        self.enter("constraints", f"pinning {pins[0]} so later installs cannot replace the build")
        constraints = write_constraints(self.prefix, pins)
        variables = dict(prepared.variables)
        # uv does not read pip's config file; UV_CONSTRAINT is its equivalent
        # (docs.astral.sh/uv/reference/environment/#uv_constraint).
        variables["UV_CONSTRAINT"] = str(constraints)
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
        )
        if self.cancel.is_set():
            raise _Cancelled
        save_record(record)
        if self.backup is not None:
            _remove_tree(self.backup)
            self.backup = None
        return record

    def _run(self, command: Command, *, on_line: Callable[[str], None] | None = None) -> None:
        self.log.write(f"$ {' '.join(command.argv)}\n")
        tool = Path(command.argv[0]).stem.lower() if self.backend.tool != "pip" else "pip"
        tool = tool if tool in ("uv", *CONDA_TOOLS) else "pip"
        status = self.tools.runner.stream(
            command.argv,
            on_line or (lambda text: self.line(tool, text)),
            cancel=self.cancel,
            env_overrides=dict(command.env),
        )
        if status != 0:
            last = next((text for text in reversed(self.tail) if text.strip()), "")
            raise _StepFailed(
                f"{self.phase}: {Path(command.argv[0]).name} exited with status {status}: {last.strip()}"
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
        seed = PackageSource(find_links=source.find_links, offline=True) if has_wheel else PackageSource()
        self.enter("pip", "adding pip to the environment")
        try:
            self._run(self.backend.install_command(self.prefix, ["pip"], seed, None))
        except _StepFailed as error:
            self._note(f"pip could not be added ({error}); use `uv pip` in this environment")

    def _note(self, text: str) -> None:
        self.emit({"event": "log", "phase": self.phase, "tool": "gpuwizard", "line": text})

    def _verify(self) -> dict[str, Any]:
        module = framework_module(self.request.plan.framework)
        lines: list[str] = []

        def keep(text: str) -> None:
            lines.append(text)
            self.line("probe", text)

        python = self.backend.interpreter(self.prefix)
        argv = (str(python), "-I", str(_PROBE), module)
        self.log.write(f"$ {' '.join(argv)}\n")
        self.tools.runner.stream(argv, keep, cancel=self.cancel, timeout=_VERIFY_TIMEOUT_S)
        report: dict[str, Any] = {}
        for text in reversed(lines):
            if text.startswith('{"probe"'):
                try:
                    report = json.loads(text)
                except ValueError:
                    continue
                break
        if not report.get("ok"):
            raise _StepFailed(
                f"verify: import {module} failed: {report.get('error', 'no answer from the probe')}"
            )
        wanted = self.request.plan.framework_version
        found = str(report.get("distribution_version") or report.get("framework_version") or "")
        if not (found == wanted or found.startswith(wanted + "+")):
            raise _StepFailed(f"verify: {module} {found} was installed instead of {wanted}")
        return report

    def _set_variables(self, variables: dict[str, str]) -> None:
        if isinstance(self.backend, CondaBackend):
            command = self.backend.variables_command(self.prefix, variables)
            if command is not None:
                self._run(command)
            else:
                write_conda_variables(self.prefix, variables)
        else:
            write_venv_variables(self.prefix, variables)

    def _register_kernel(self) -> str:
        name = _kernel_name(self.request.name)
        python = self.backend.interpreter(self.prefix)
        found: list[str] = []

        def keep(text: str) -> None:
            found.append(text)
            self.line("ipykernel", text)

        # ipykernel prints "Installed kernelspec NAME in DIR" (ipykernel/kernelspec.py).
        command = Command(
            (
                str(python),
                "-m",
                "ipykernel",
                "install",
                "--user",
                "--name",
                name,
                "--display-name",
                f"Python ({self.request.name})",
            ),
            "kernel",
        )
        self._run(command, on_line=keep)
        for text in found:
            match = re.search(r"Installed kernelspec \S+ in (.+)$", text)
            if match:
                self.kernel_dir = Path(match.group(1).strip())
        return str(self.kernel_dir) if self.kernel_dir else name

    def _roll_back(self, status: str, error: str) -> dict[str, Any]:
        self.emit({"event": "phase", "phase": "rollback", "message": f"{status}: removing what was made"})
        problems = []
        if self.kernel_dir is not None:
            problems += _remove_tree(self.kernel_dir)
        if self.made_prefix:
            problems += _remove_tree(self.prefix)
        if self.backup is not None:
            try:
                self.backup.replace(self.prefix)
            except OSError as failure:
                problems.append(f"could not put back {self.prefix} from {self.backup}: {failure}")
        result: dict[str, Any] = {
            "event": "result",
            "status": status,
            "name": self.request.name,
            "path": str(self.prefix),
            "python": None,
            "framework_version": None,
            "error": error,
            "log_tail": self.tail[-10:],
            "rollback_problems": problems,
            "seconds": round(time.perf_counter() - self.started, 2),
            "log": str(self.log_path),
        }
        self.emit(result)
        return result


def _backend(manager: str, tool: str | None, managers: ManagerFacts) -> EnvBackend:
    if manager == "venv":
        if tool == "pip":
            return PipBackend()
        if managers.uv:
            return UvBackend(managers.uv)
        if tool == "uv":
            raise EnvRequestError(
                "uv was not found (it comes with the wizard: reinstall it, or use --tool pip)"
            )
        return PipBackend()
    found = {name: getattr(managers, name) for name in CONDA_TOOLS if getattr(managers, name)}
    if tool is not None:
        if tool not in found:
            raise EnvRequestError(f"{tool} was not found on this machine")
        return CondaBackend(found[tool], tool)
    if not found:
        raise EnvRequestError(
            "no conda, mamba or micromamba was found; install Miniforge (conda-forge.org/download) or use --manager venv"
        )
    name = next(iter(found))
    return CondaBackend(found[name], name)


def _prefix(request: EnvRequest, backend: EnvBackend, tools: EnvTools) -> Path:
    if request.prefix is not None:
        return request.prefix.expanduser().resolve()
    if isinstance(backend, CondaBackend):
        envs = backend.envs_dir(tools.runner)
        if envs is not None:
            return envs / request.name
    return (default_envs_dir() / request.name).resolve()


def _check_target(request: EnvRequest, prefix: Path) -> None:
    existing = find_record(request.name)
    if prefix.exists() and not prefix.is_dir():
        raise EnvRequestError(f"{prefix} exists and is not a folder")
    occupied = prefix.exists() and any(prefix.iterdir())
    if (occupied or existing is not None) and not request.replace:
        where = existing.path if existing is not None else str(prefix)
        raise EnvRequestError(
            f"an environment {request.name!r} already exists at {where} (add --replace to replace it)"
        )
    if occupied and not ((prefix / "pyvenv.cfg").is_file() or (prefix / "conda-meta").is_dir()):
        raise EnvRequestError(f"{prefix} holds files that are not an environment; choose another --prefix")


def _interpreter(
    backend: EnvBackend, version: str, interpreters: Sequence[PythonFacts], offline: bool
) -> tuple[str, str]:
    """The Python for the environment: a found interpreter of the plan's minor version.

    Base interpreters come before ones inside other environments (a venv made from a venv
    breaks when the first one is removed); 32-bit and Microsoft Store builds are left out
    (findings PYTHON_32BIT, MS_STORE_PYTHON).
    """
    if isinstance(backend, CondaBackend):
        return version, f"Python {version} from conda-forge"
    matching = [
        python
        for python in interpreters
        if ".".join(python.version.split(".")[:2]) == version and python.bits != 32 and not python.ms_store
    ]
    matching.sort(key=lambda python: _inside_venv(Path(python.executable)))
    if matching:
        chosen = matching[0]
        return chosen.executable, f"Python {chosen.version} at {chosen.executable}"
    if isinstance(backend, UvBackend) and not offline:
        # uv fetches a managed CPython build when none is installed
        # (docs.astral.sh/uv/concepts/python-versions/#automatic-python-downloads).
        return version, f"uv downloads a managed CPython {version}: none is installed"
    raise EnvRequestError(
        f"no 64-bit Python {version} was found; install it from python.org"
        + ("" if offline else ", or let uv fetch one (the default tool)")
    )


def _inside_venv(executable: Path) -> bool:
    return (executable.parent.parent / "pyvenv.cfg").is_file()


def _existing_parent(path: Path) -> Path:
    for candidate in (path, *path.parents):
        if candidate.exists():
            return candidate
    return Path(path.anchor) if path.anchor else Path.cwd()


def _file_safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name)


def _kernel_name(name: str) -> str:
    # Kernel names are folder names limited to [a-zA-Z0-9._-] (jupyter_client kernelspec.py).
    return re.sub(r"[^a-z0-9._-]+", "-", name.lower()).strip("-") or "gpuwizard"


def _remove_tree(path: Path) -> list[str]:
    """Remove ``path`` completely; returns what could not be removed (empty when all went)."""
    if not path.exists() and not path.is_symlink():
        return []
    if path.is_symlink() or path.is_file():
        path.unlink()
        return []

    def clear_read_only(function: Callable[..., Any], name: str, *_: object) -> None:
        # Windows refuses to delete read-only files (pip's cached .pyc, conda's pkgs).
        Path(name).chmod(stat.S_IWRITE)
        function(name)

    for attempt in range(5):
        try:
            if sys.version_info >= (3, 12):
                shutil.rmtree(path, onexc=clear_read_only)
            else:
                shutil.rmtree(path, onerror=clear_read_only)
            return []
        except OSError as error:
            # A killed process's files can stay locked for a moment on Windows.
            if attempt == 4:
                return [f"could not remove {path}: {error}"]
            time.sleep(0.2 * (attempt + 1))
    return []


class EnvRemoveError(ValueError):
    """The environment cannot be removed as asked; nothing was changed (exit code 2)."""


def list_environments() -> list[dict[str, Any]]:
    """The environments the wizard made: the contract's fields, then ``exists`` and the rest."""
    return [{**record.to_json(), "exists": Path(record.path).is_dir()} for record in load_records()]


def remove_environment(name: str) -> EnvRecord:
    """Remove the environment called ``name``: its folder, its Jupyter kernel, its entry.

    Only a folder that is an environment (``pyvenv.cfg`` or ``conda-meta``) is deleted, so a
    hand-edited list can never make the wizard delete something else.

    Raises:
        EnvRemoveError: No such environment, or its folder is not an environment.
    """
    record = find_record(name)
    if record is None:
        raise EnvRemoveError(f"no environment {name!r} was made by the wizard (see `gpuwizard env list`)")
    folder = Path(record.path)
    if folder.exists() and not ((folder / "pyvenv.cfg").is_file() or (folder / "conda-meta").is_dir()):
        raise EnvRemoveError(f"{folder} does not look like an environment any more; not removing it")
    problems = _remove_tree(folder)
    if record.jupyter_kernel and Path(record.jupyter_kernel).is_dir():
        problems += _remove_tree(Path(record.jupyter_kernel))
    if problems:
        raise OSError("; ".join(problems))
    drop_record(name)
    return record
