r"""The machine side of PATH editing: which registry, which folders exist, who must restart.

Also the elevated write: the system PATH (``HKLM``) is written by a helper process that the
user agreed to start with administrator rights (UAC); that helper does only the one
compare-and-write and answers with its exit code alone. It writes no file: a file it wrote in
the user's temporary folder could have been swapped for a link to a system file, which the
elevated process would then overwrite. The unelevated wizard reads the value back itself (the
system key is readable without elevation). The journal stays with the unelevated wizard, under
the user's home.

The request travels in a file of the user's temporary folder, which any program of the same
user could rewrite after the user said yes; so its sha256 travels on the helper's command line,
which the UAC prompt fixed, and the helper reads the file once, checks that hash before it
parses anything, and refuses a file that does not match (issue 19).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.elevation import (
    ElevationDeclined,
    ElevationFailed,
    is_elevated,
    relaunch_argv,
    run_elevated,
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
from gpuwizard.core.exit_status import describe_exit
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


#: The elevated helper's exit codes: its only answer (it writes no file).
ELEVATED_WRITTEN: Final = 0
ELEVATED_VALUE_CHANGED: Final = 3
ELEVATED_REFUSED: Final = 4
ELEVATED_WRITE_FAILED: Final = 5


def elevated_write(store: EnvironmentStore, change: PathChange) -> RegValue | None:
    """Write ``change`` through the elevated helper (after the user's consent at the UAC prompt).

    The helper answers with its exit code only; the value is read back here, unelevated.

    Raises:
        ValueChanged: The value changed since it was read; nothing was written.
        RegistryWriteError: The helper was declined, failed, refused the request, or could not write.
    """
    name = change.reverts.name if change.reverts else PATH_NAME
    body = json.dumps(
        {"key": change.key, "name": name, "expected": _value_json(change.old), "new": _value_json(change.new)}
    ).encode("utf-8")
    with tempfile.TemporaryDirectory(prefix="gpuwizard-elevated-") as folder:
        request = Path(folder) / "request.json"
        request.write_bytes(body)
        digest = hashlib.sha256(body).hexdigest()
        argv = [*relaunch_argv(), "path", "_elevated-write", str(request), "--sha256", digest]
        try:
            code = run_elevated(argv)
        except (ElevationDeclined, ElevationFailed) as error:
            raise RegistryWriteError(str(error)) from None
    if code == ELEVATED_VALUE_CHANGED:
        raise ValueChanged(change.key, name, store.read_value(change.key, name))
    if code == ELEVATED_REFUSED:
        raise RegistryWriteError(
            "the elevated helper refused its request (the request's sha256 did not match the one "
            "agreed at the administrator prompt, or it was not the Path of an environment key); "
            "nothing was written"
        )
    if code == ELEVATED_WRITE_FAILED:
        raise RegistryWriteError(f"the elevated helper could not write {change.key}\\{name}")
    if code != ELEVATED_WRITTEN:
        crash = describe_exit(code, windows=True)  # the helper runs on Windows only (UAC)
        status = f"exit code {code}" + (f": {crash}" if crash else "")
        raise RegistryWriteError(f"the elevated helper failed ({status}); nothing was changed")
    return store.read_value(change.key, name)


_SHA256_HEX: Final = re.compile(r"[0-9a-f]{64}")


class RequestTampered(Exception):
    """The request file is not the one the user agreed to write; nothing was written."""


def _agreed_request(request_file: Path, sha256: str) -> Any:  # noqa: ANN401 - JSON
    # Read once: what is checked is what is parsed, whatever happens to the file afterwards.
    body = request_file.read_bytes()
    expected = sha256.strip().lower()
    if not _SHA256_HEX.fullmatch(expected) or not hmac.compare_digest(
        hashlib.sha256(body).hexdigest(), expected
    ):
        raise RequestTampered(
            "the elevated helper's request changed after the administrator prompt (its sha256 "
            "does not match); nothing was written"
        )
    return json.loads(body.decode("utf-8"))


def serve_elevated_request(request_file: Path, sha256: str) -> int:
    """The helper's side: one compare-and-write on the live registry; the exit code is the answer.

    ``sha256`` is the request's hash from the helper's command line: the request is read once
    and refused, before it is parsed and before the registry is opened, unless it matches.
    Elevated, it writes the environment's ``Path`` value and nothing else: no answer file.

    Returns :data:`ELEVATED_WRITTEN` (0), :data:`ELEVATED_VALUE_CHANGED` (3, nothing written),
    :data:`ELEVATED_REFUSED` (4: hash mismatch, not an environment Path, malformed) or
    :data:`ELEVATED_WRITE_FAILED` (5).
    """
    try:
        request = _agreed_request(request_file, sha256)
        key, name = str(request["key"]), str(request["name"])
        expected, new = _value_from(request["expected"]), _value_from(request["new"])
    except (OSError, KeyError, TypeError, ValueError, RequestTampered):  # ValueError: JSON, UTF-8
        return ELEVATED_REFUSED
    # Elevated, it writes the environment's Path and nothing else, whatever the file asks.
    if request["key"] not in SCOPE_KEYS.values() or name.casefold() != PATH_NAME.casefold():
        return ELEVATED_REFUSED
    try:
        WinregEnvironment().replace_value(key, name, expected, new)
    except ValueChanged:
        return ELEVATED_VALUE_CHANGED
    except (OSError, ImportError, TypeError, ValueError, RegistryWriteError):
        return ELEVATED_WRITE_FAILED
    return ELEVATED_WRITTEN
