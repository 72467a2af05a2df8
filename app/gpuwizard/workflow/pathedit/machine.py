r"""The machine side of PATH editing: which registry, which folders exist, who must restart.

Also the elevated write: the system PATH (``HKLM``) is written by a helper process that the
user agreed to start with administrator rights (UAC); that helper does only the one
compare-and-write and reports back in a JSON file. The journal stays with the unelevated
wizard, under the user's home.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.elevation import (
    ElevationDeclined,
    ElevationFailed,
    is_elevated,
    run_elevated,
    wizard_command,
)
from gpuwizard.adapters.registry import (
    EnvironmentStore,
    RegistryWriteError,
    RegValue,
    SnapshotFileEnvironment,
    ValueChanged,
    WinregEnvironment,
)
from gpuwizard.adapters.runner import Runner, RunnerError
from gpuwizard.core.pathedit.algebra import entry_key, entry_of, split_segments
from gpuwizard.core.pathedit.pathlist import expand_windows_vars
from gpuwizard.workflow.pathedit.changes import PATH_NAME, SCOPE_KEYS, PathChange, PathChangeError

#: Programs that read PATH once at start and ignore WM_SETTINGCHANGE, by executable name
#: (microsoft/vscode#98454: VS Code "inherits the environment of the process it is started by";
#: microsoft/terminal#7239 for terminals). Explorer re-reads the environment
#: on the broadcast, so what is started from it afterwards sees the change.
RESTART_PROGRAMS: Final = {
    "cmd.exe": "Command Prompt",
    "powershell.exe": "Windows PowerShell",
    "pwsh.exe": "PowerShell",
    "windowsterminal.exe": "Windows Terminal",
    "code.exe": "Visual Studio Code",
    "pycharm64.exe": "PyCharm",
    "idea64.exe": "IntelliJ IDEA",
    "spyder.exe": "Spyder",
    "jupyter-lab.exe": "JupyterLab",
    "jupyter-notebook.exe": "Jupyter Notebook",
    "anaconda-navigator.exe": "Anaconda Navigator",
    "devenv.exe": "Visual Studio",
}


def open_store(registry_file: Path | None) -> EnvironmentStore:
    """The registry to work on: the snapshot file when given, else the live one (Windows only).

    Raises:
        PathChangeError: No file on a machine without a registry, or a file that is no snapshot.
    """
    if registry_file is not None:
        store = SnapshotFileEnvironment(registry_file)
        try:
            store.check()
        except RegistryWriteError as error:
            raise PathChangeError(str(error)) from None
        return store
    if os.name != "nt":
        raise PathChangeError(
            "the Windows registry exists only on Windows; give --registry FILE to work on a snapshot"
        )
    return WinregEnvironment()


def store_if_any(registry_file: Path | None) -> EnvironmentStore | None:
    """The snapshot file when given, else the live registry on Windows, else None (no registry).

    Raises:
        PathChangeError: The file is no registry snapshot.
    """
    if registry_file is None and os.name != "nt":
        return None  # the wizard edits PATH only on Windows
    return open_store(registry_file)


def missing_folder_keys(values: Iterable[str], env: Mapping[str, str] | None = None) -> set[str]:
    """Comparison keys of the entries whose folders do not exist on this machine.

    Only meaningful for the live registry: a snapshot's folders are on another machine.
    """
    environment = dict(os.environ if env is None else env)
    missing: set[str] = set()
    for value in values:
        for segment in split_segments(value):
            folder = entry_of(segment)
            expanded = expand_windows_vars(folder, environment)
            # An entry whose variable is unknown here cannot be looked for: it is not "missing".
            if folder and "%" not in expanded and not Path(expanded).is_dir():
                missing.add(entry_key(segment, environment))
    return missing


def programs_to_restart(runner: Runner) -> list[str]:
    """Names of running programs that will not see a PATH change until restarted (Windows)."""
    if os.name != "nt":
        return []
    try:
        done = runner.run(["tasklist", "/fo", "csv", "/nh"], timeout=15)
    except RunnerError:
        return []
    found: list[str] = []
    for line in done.stdout.splitlines():
        image = line.split(",", 1)[0].strip().strip('"').casefold()
        name = RESTART_PROGRAMS.get(image)
        if name and name not in found:
            found.append(name)
    return found


# --- the elevated write ---------------------------------------------------------------------


def _value_json(value: RegValue | None) -> dict[str, Any] | None:
    return None if value is None else {"type": value.type, "value": value.value}


def _value_from(data: Any) -> RegValue | None:  # noqa: ANN401 - JSON
    return None if data is None else RegValue(str(data["type"]), data["value"])


def needs_elevation(store: EnvironmentStore, change: PathChange) -> bool:
    """Whether writing ``change`` needs the elevated helper (the live system scope, unelevated)."""
    return store.identity == "live" and change.key.upper().startswith("HKLM") and not is_elevated()


def elevated_write(store: EnvironmentStore, change: PathChange) -> RegValue | None:
    """Write ``change`` through the elevated helper (after the user's consent at the UAC prompt).

    Raises:
        ValueChanged: The value changed since it was read; nothing was written.
        RegistryWriteError: The helper was declined, failed, or could not write.
    """
    with tempfile.TemporaryDirectory(prefix="gpuwizard-elevated-") as folder:
        request, result = Path(folder) / "request.json", Path(folder) / "result.json"
        request.write_text(
            json.dumps(
                {
                    "key": change.key,
                    "name": change.reverts.name if change.reverts else PATH_NAME,
                    "expected": _value_json(change.old),
                    "new": _value_json(change.new),
                }
            ),
            encoding="utf-8",
        )
        try:
            run_elevated([*wizard_command(), "path", "_elevated-write", str(request), str(result)])
        except (ElevationDeclined, ElevationFailed) as error:
            raise RegistryWriteError(str(error)) from None
        try:
            answer = json.loads(result.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            raise RegistryWriteError("the elevated helper gave no answer; nothing was changed") from None
    if answer.get("status") == "changed":
        raise ValueChanged(change.key, PATH_NAME, _value_from(answer.get("current")))
    if answer.get("status") != "ok":
        raise RegistryWriteError(str(answer.get("message") or "the elevated helper failed"))
    return _value_from(answer.get("read_back"))


def serve_elevated_request(request_file: Path, result_file: Path) -> int:
    """The helper's side: one compare-and-write on the live registry; the answer goes to a file.

    Returns 0 when written, 1 otherwise (the file says why).
    """
    answer: dict[str, Any]
    try:
        request = json.loads(request_file.read_text(encoding="utf-8"))
        # Elevated, it writes the environment's Path and nothing else, whatever the file asks.
        if (
            request["key"] not in SCOPE_KEYS.values()
            or str(request["name"]).casefold() != PATH_NAME.casefold()
        ):
            raise RegistryWriteError("the elevated helper writes only the Path of an environment key")
        read_back = WinregEnvironment().replace_value(
            str(request["key"]),
            str(request["name"]),
            _value_from(request["expected"]),
            _value_from(request["new"]),
        )
        answer = {"status": "ok", "read_back": _value_json(read_back)}
    except ValueChanged as changed:
        answer = {"status": "changed", "current": _value_json(changed.current)}
    except (OSError, ImportError, KeyError, TypeError, json.JSONDecodeError, RegistryWriteError) as error:
        answer = {"status": "error", "message": str(error)}
    result_file.write_text(json.dumps(answer), encoding="utf-8")
    return 0 if answer["status"] == "ok" else 1
