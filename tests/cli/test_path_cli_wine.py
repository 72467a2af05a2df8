r"""``gpuwizard path`` on a real Windows registry: the Windows CPython under Wine runs the CLI.

The same commands as ``test_path_cli.py``, without ``--registry``: they read and write
``HKCU\Environment`` and ``HKLM\...\Session Manager\Environment`` through ``winreg``, broadcast
``WM_SETTINGCHANGE`` through ``user32``, start the elevated helper through ``ShellExecuteExW``,
and check DLLs from a freshly started process. Each test restores the values it touched.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from harness.wine_python import WinePython, to_windows

# With pytest-xdist (-n), Wine's Python is set up once, on one worker: its tests stay together.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wine")]

CUDA = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA"
V112_BIN = rf"{CUDA}\v11.2\bin"
USER_PATH = r"%USERPROFILE%\bin;C:\windows"

# Runs the real entry point's main() with GPUWIZARD_HOME set, then prints the raw registry
# values (type number and data) so that the Linux side can check them byte for byte.
CLI = r"""
import json, os, sys, winreg
os.environ["GPUWIZARD_HOME"] = sys.argv[1]
from gpuwizard.cli.main import main

def raw(hive, key):
    try:
        with winreg.OpenKey(hive, key) as handle:
            data, kind = winreg.QueryValueEx(handle, "Path")
            return [kind, data]
    except FileNotFoundError:
        return None

SYSTEM = r"SYSTEM\CurrentControlSet\Control\Session Manager\Environment"
if sys.argv[2] == "--set-user":
    with winreg.OpenKey(winreg.HKEY_CURRENT_USER, "Environment", 0, winreg.KEY_SET_VALUE) as handle:
        if sys.argv[3] == "-":
            try:
                winreg.DeleteValue(handle, "Path")
            except FileNotFoundError:
                pass
        else:
            winreg.SetValueEx(handle, "Path", 0, int(sys.argv[3]), sys.argv[4])
    code = 0
else:
    code = main(sys.argv[2:])
sys.stdout.write("\n" + json.dumps({
    "code": code,
    "user": raw(winreg.HKEY_CURRENT_USER, "Environment"),
    "system": raw(winreg.HKEY_LOCAL_MACHINE, SYSTEM),
}) + "\n")
"""


def cli(wine: WinePython, home: Path, *args: str) -> tuple[dict[str, Any], str]:
    """Run ``gpuwizard ARGS`` under Wine; returns the registry after it, and what it printed."""
    done = wine.run(CLI, to_windows(home), *args, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    printed, _, last = done.stdout.rstrip().rpartition("\n")
    return json.loads(last), printed


@pytest.fixture
def user_path(wine_python: WinePython, tmp_path: Path):
    """A user Path of REG_EXPAND_SZ with a %VAR% entry for the test; removed afterwards."""
    state, _ = cli(wine_python, tmp_path, "--set-user", "2", USER_PATH)
    assert state["user"] == [2, USER_PATH]
    yield
    cli(wine_python, tmp_path, "--set-user", "-")


@pytest.mark.usefixtures("user_path")
def test_add_again_and_undo_on_the_live_user_path(wine_python: WinePython, tmp_path: Path):
    state, printed = cli(wine_python, tmp_path, "path", "add", V112_BIN, "--scope", "user", "--json")
    assert state["code"] == 0, printed
    result = json.loads(printed)
    assert result["registry"] == "live"
    assert result["written"] is True
    assert result["broadcast"] is True
    # REG_EXPAND_SZ (type 2) kept, %USERPROFILE% not expanded, the entry appended.
    assert state["user"] == [2, f"{USER_PATH};{V112_BIN}"]
    assert any(f["code"] == "PATH_RESTART_PROGRAMS" for f in result["findings"])

    state, printed = cli(wine_python, tmp_path, "path", "add", V112_BIN, "--json")
    assert json.loads(printed)["changed"] is False
    assert state["user"] == [2, f"{USER_PATH};{V112_BIN}"]

    state, printed = cli(wine_python, tmp_path, "path", "undo")
    assert state["code"] == 0, printed
    assert state["user"] == [2, USER_PATH]
    state, printed = cli(wine_python, tmp_path, "path", "history", "--json")
    assert [e["action"] for e in json.loads(printed)] == ["add", "undo"]


@pytest.mark.usefixtures("user_path")
def test_show_on_the_live_registry_marks_folders_that_do_not_exist(wine_python: WinePython, tmp_path: Path):
    state, printed = cli(wine_python, tmp_path, "path", "show", "--json")
    assert state["code"] == 0
    shown = json.loads(printed)
    entries = shown["scopes"]["user"]["entries"]
    assert [e["segment"] for e in entries] == USER_PATH.split(";")
    # %USERPROFILE%\bin does not exist in a new prefix; C:\windows does, and the system PATH
    # (which Wine fills with C:\windows and C:\windows\system32) names it first.
    assert "missing" in entries[0]["problems"]
    assert entries[1]["problems"] == ["duplicate"]
    assert shown["scopes"]["system"]["type"] in ("REG_EXPAND_SZ", "REG_SZ")


def test_system_scope_cuda_first_and_undo_restore_the_value_exactly(wine_python: WinePython, tmp_path: Path):
    before, _ = cli(wine_python, tmp_path, "--set-user", "-")
    state, printed = cli(
        wine_python, tmp_path, "path", "add", rf"{CUDA}\v12.1\bin", "--scope", "system", "--json"
    )
    assert state["code"] == 0, printed
    state, printed = cli(wine_python, tmp_path, "path", "add", V112_BIN, "--scope", "system", "--json")
    entries = state["system"][1].split(";")
    assert entries.index(V112_BIN) < entries.index(rf"{CUDA}\v12.1\bin")
    assert state["system"][0] == before["system"][0]
    for _ in range(2):
        state, printed = cli(wine_python, tmp_path, "path", "undo")
        assert state["code"] == 0, printed
    assert state["system"] == before["system"]


def test_the_elevated_helper_starts_through_shellexecute_and_reports_its_exit_code(wine_python: WinePython):
    # Wine grants the runas verb without a prompt; the start, the wait and the exit code are real.
    done = wine_python.run(
        "import sys\n"
        "from gpuwizard.adapters.elevation import run_elevated\n"
        "print(run_elevated([sys.executable, '-c', 'import sys; sys.exit(7)']))\n"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "7"


# The elevated helper for real: elevated_write starts `python -m gpuwizard path _elevated-write
# REQUEST --sha256 HEX` through ShellExecuteExW's runas verb (Wine grants it without a prompt),
# the helper writes through winreg and answers with its exit code only, and the wizard reads the
# value back itself. Then a request swapped after consent: the helper refuses it (exit code 4)
# before it opens the registry; and a value changed since it was read (exit code 3). A link
# planted where the old answer file went is left alone: the helper writes no file at all. The
# user key stands in for the system one (the helper writes the Path of either environment key,
# and nothing else).
ELEVATED = r"""
import hashlib, json, os, sys, winreg
from pathlib import Path
from gpuwizard.adapters.registry import USER_ENVIRONMENT_KEY as KEY, RegValue, WinregEnvironment
from gpuwizard.workflow.pathedit.changes import PathChange
from gpuwizard.workflow.pathedit.machine import elevated_write, serve_elevated_request

store = WinregEnvironment()
def raw():
    with winreg.OpenKey(winreg.HKEY_CURRENT_USER, "Environment") as handle:
        data, kind = winreg.QueryValueEx(handle, "Path")
    return [kind, data]

before = store.read_value(KEY, "Path")
new = RegValue(before.type, before.value + ";C:\\elevated")
read_back = elevated_write(store, PathChange("user", KEY, "add", ("C:\\elevated",), before, new))
written = raw()

folder = Path(sys.argv[1])
request, result = folder / "request.json", folder / "result.json"
result.write_text("planted", encoding="utf-8")  # stands for a link to a system file
agreed = {"key": KEY, "name": "Path", "expected": {"type": new.type, "value": new.value},
          "new": {"type": new.type, "value": new.value + ";C:\\agreed"}}
swapped = dict(agreed, new={"type": "REG_SZ", "value": "C:\\swapped"})
request.write_text(json.dumps(swapped), encoding="utf-8")
agreed_hash = hashlib.sha256(json.dumps(agreed).encode("utf-8")).hexdigest()
swapped_code = serve_elevated_request(request, agreed_hash)
after_swap = raw()

stale = dict(agreed, expected={"type": before.type, "value": before.value})
body = json.dumps(stale).encode("utf-8")
request.write_bytes(body)
stale_code = serve_elevated_request(request, hashlib.sha256(body).hexdigest())
print(json.dumps({
    "read_back": [read_back.type, read_back.value], "written": written,
    "swapped_code": swapped_code, "after_swap": after_swap,
    "stale_code": stale_code, "after_stale": raw(),
    "result": result.read_text(encoding="utf-8"), "files": sorted(os.listdir(folder)),
}))
"""


@pytest.mark.usefixtures("user_path")
def test_the_elevated_helper_writes_what_was_agreed_and_refuses_a_swapped_request(
    wine_python: WinePython, tmp_path: Path
):
    done = wine_python.run(ELEVATED, to_windows(tmp_path), timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["read_back"] == ["REG_EXPAND_SZ", rf"{USER_PATH};C:\elevated"]
    assert result["written"] == [2, rf"{USER_PATH};C:\elevated"]
    assert result["swapped_code"] == 4
    assert result["after_swap"] == [2, rf"{USER_PATH};C:\elevated"]  # neither swapped nor agreed
    assert result["stale_code"] == 3
    assert result["after_stale"] == [2, rf"{USER_PATH};C:\elevated"]
    assert result["result"] == "planted"  # the helper wrote no answer file
    assert result["files"] == ["request.json", "result.json"]


@pytest.mark.usefixtures("user_path")
def test_dlls_resolve_from_a_fresh_process_only_after_the_folder_is_on_path(
    wine_python: WinePython, tmp_path: Path
):
    # A real DLL (one of the interpreter's own extension modules) under CUDA's DLL name.
    folder = tmp_path / "cuda-bin"
    folder.mkdir()
    shutil.copy(wine_python.interpreter / "select.pyd", folder / "cudart64_110.dll")
    check = (
        "import json\n"
        "from gpuwizard.adapters.registry import WinregEnvironment\n"
        "from gpuwizard.adapters.runner import SubprocessRunner\n"
        "from gpuwizard.workflow.pathedit.dll_check import resolve_dlls\n"
        "found = resolve_dlls(WinregEnvironment(), ['cudart64_110.dll', 'cudnn64_8.dll'], SubprocessRunner())\n"
        "print(json.dumps({'found': found.found, 'missing': sorted(found.missing)}))\n"
    )
    before = json.loads(wine_python.run(check, timeout=120).stdout.strip().splitlines()[-1])
    assert before["found"] == {}
    assert before["missing"] == ["cudart64_110.dll", "cudnn64_8.dll"]

    state, printed = cli(wine_python, tmp_path, "path", "add", to_windows(folder))
    assert state["code"] == 0, printed
    after = json.loads(wine_python.run(check, timeout=120).stdout.strip().splitlines()[-1])
    assert after["missing"] == ["cudnn64_8.dll"]
    assert after["found"]["cudart64_110.dll"].lower() == (to_windows(folder) + "\\cudart64_110.dll").lower()


# A command line as cmd hands it to a program (cmd passes the line on; the program's C runtime
# cuts it into arguments): the trailing \" keeps the quote open to the end of the line.
TYPED_IN_CMD = r"""
import subprocess, sys
line = ('"%s" -c "import sys; from gpuwizard.cli.main import main; sys.exit(main(sys.argv[1:]))" '
        'path add "C:\\Some Folder\\" --scope user') % sys.executable
done = subprocess.run(line, capture_output=True, text=True)
print(done.returncode)
print(done.stderr, end="")
"""


def test_a_folder_typed_with_a_trailing_backslash_in_cmd_gets_how_to_type_it(wine_python: WinePython):
    done = wine_python.run(TYPED_IN_CMD, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    code, line = done.stdout.strip().splitlines()[-2:]
    assert code == "2"
    assert line.startswith('gpuwizard: error: the folder C:\\Some Folder" --scope user holds a quote')
    assert line.endswith('write "C:\\Some Folder" (no backslash at the end) or "C:\\Some Folder\\\\"')


@pytest.mark.usefixtures("user_path")
def test_a_folder_that_does_not_exist_is_added_with_a_warning(wine_python: WinePython, tmp_path: Path):
    missing = r"C:\Tools\not-made-yet\bin"
    for dry_run in (["--dry-run"], []):
        done = wine_python.run(
            CLI, to_windows(tmp_path), "path", "add", missing, "--json", *dry_run, timeout=120
        )
        assert done.returncode == 0, done.stdout + done.stderr
        printed, _, last = done.stdout.rstrip().rpartition("\n")
        assert json.loads(last)["code"] == 0
        assert json.loads(printed)["missing_folders"] == [missing]
        assert f"gpuwizard: warning: {missing} does not exist on this machine" in done.stderr
    assert json.loads(last)["user"] == [2, f"{USER_PATH};{missing}"]  # added all the same
    here = to_windows(tmp_path)
    state, printed = cli(wine_python, tmp_path, "path", "add", here, "--json")
    assert json.loads(printed)["missing_folders"] == []
    assert state["user"] == [2, f"{USER_PATH};{missing};{here}"]
