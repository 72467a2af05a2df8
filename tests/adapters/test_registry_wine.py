r"""The live registry adapter, for real: a Windows CPython under Wine runs ``WinregEnvironment``.

Each test runs a script in the Windows interpreter (see ``fakes/wine_python.py``) that prints
one JSON line, and asserts on it here. The prefix is shared by the whole session, so each test
uses value names of its own, and the one test that writes ``Path`` puts it back.
"""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from harness.waits import EVENT_S
from harness.wine_python import WinePython, from_windows, to_windows

# With pytest-xdist (-n), Wine's Python is set up once, on one worker: its tests stay together.
pytestmark = pytest.mark.xdist_group("wine")

LISTENER = Path(__file__).parents[1] / "harness" / "settingchange_listener.py"

# Shared by every script: the adapter under test, and raw winreg to check it against.
PRELUDE = r"""
import json
import os
import sys
import winreg

from gpuwizard.adapters import registry
from gpuwizard.adapters.registry import USER_ENVIRONMENT_KEY as KEY, RegValue, ValueChanged, WinregEnvironment

store = WinregEnvironment()


def raw(name):
    # [type number, data] straight from the registry, or None when the value does not exist.
    with winreg.OpenKey(winreg.HKEY_CURRENT_USER, "Environment") as key:
        try:
            data, kind = winreg.QueryValueEx(key, name)
        except FileNotFoundError:
            return None
    return [kind, data]


def every_value():
    found = {}
    with winreg.OpenKey(winreg.HKEY_CURRENT_USER, "Environment") as key:
        index = 0
        while True:
            try:
                name, data, kind = winreg.EnumValue(key, index)
            except OSError:
                return found
            found[name] = [kind, data]
            index += 1


def shape(value):
    return None if value is None else [value.type, value.value]


def emit(**result):
    print(json.dumps(result, default=repr))
"""

REG_SZ, REG_EXPAND_SZ = 1, 2
USER_PATH = r"%USERPROFILE%\bin;C:\tools"


def on_windows(wine: WinePython, body: str, *args: str) -> dict[str, Any]:
    """Run PRELUDE + ``body`` in the Windows Python; its last output line, as JSON."""
    done = wine.run(PRELUDE + body, *args)
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.strip().splitlines()
    assert lines, done.stderr
    result: dict[str, Any] = json.loads(lines[-1])
    return result


def unique_name() -> str:
    return f"GpuwizardTest{uuid.uuid4().hex[:10]}"


def test_linux_paths_map_to_wines_z_drive_and_back():
    assert to_windows(Path("/tmp/a b/c.py")) == "Z:\\tmp\\a b\\c.py"
    assert from_windows("Z:\\tmp\\a b\\c.py") == Path("/tmp/a b/c.py")
    assert from_windows("z:\\") == Path("/")
    with pytest.raises(ValueError, match="Z: drive"):
        from_windows("C:\\Windows")
    with pytest.raises(ValueError, match="Z: drive"):
        from_windows("Z:relative")


@pytest.mark.slow
def test_the_windows_python_sees_linux_files_through_the_z_drive(wine_python: WinePython, tmp_path: Path):
    data = tmp_path / "some folder" / "data.txt"
    data.parent.mkdir()
    data.write_text("written on Linux")
    result = on_windows(
        wine_python,
        "emit(text=open(sys.argv[1]).read(), absolute=os.path.abspath(sys.argv[1]), module=registry.__file__)",
        wine_python.to_windows(data),
    )
    assert result["text"] == "written on Linux"
    assert from_windows(result["absolute"]) == data
    # The adapter is the copy of app/ staged for this session, not something else importable.
    assert from_windows(result["module"]) == wine_python.stage / "gpuwizard" / "adapters" / "registry.py"


@pytest.mark.slow
def test_a_user_path_is_written_as_reg_expand_sz_and_left_unexpanded(wine_python: WinePython):
    result = on_windows(
        wine_python,
        r"""
before = store.read_value(KEY, "Path")
written = store.replace_value(KEY, "Path", before, RegValue("REG_EXPAND_SZ", sys.argv[1]))
read = store.read_value(KEY, "PATH")  # value names match without case, as on Windows
stored = raw("Path")
expanded = winreg.ExpandEnvironmentStrings(stored[1])
# Written again through another spelling, the value keeps the name it already had.
again = store.replace_value(KEY, "PATH", read, RegValue("REG_EXPAND_SZ", sys.argv[1] + ";C:\\more"))
spellings = [name for name in every_value() if name.casefold() == "path"]
restored = store.replace_value(KEY, "Path", again, before)
emit(
    before=shape(before), written=shape(written), read=shape(read), stored=stored,
    expanded=expanded, profile=os.environ["USERPROFILE"], again=shape(again),
    spellings=spellings, restored=shape(restored), after=shape(store.read_value(KEY, "Path")),
)
""",
        USER_PATH,
    )
    assert result["written"] == ["REG_EXPAND_SZ", USER_PATH]
    assert result["read"] == ["REG_EXPAND_SZ", USER_PATH]
    # The raw registry holds type 2 (REG_EXPAND_SZ) and the variable as written, unexpanded...
    assert result["stored"] == [REG_EXPAND_SZ, USER_PATH]
    # ...which Windows expands when it builds a process's environment.
    assert result["profile"] and "%" not in result["expanded"]
    assert result["expanded"] == result["profile"] + r"\bin;C:\tools"
    assert result["again"] == ["REG_EXPAND_SZ", USER_PATH + r";C:\more"]
    assert result["spellings"] == ["Path"]
    # The session's prefix is left as it was found.
    assert result["restored"] == result["before"] == result["after"]


@pytest.mark.slow
def test_a_reg_sz_value_stays_reg_sz_after_replace(wine_python: WinePython):
    result = on_windows(
        wine_python,
        r"""
name = sys.argv[1]
first = store.replace_value(KEY, name, None, RegValue("REG_SZ", "C:\\one"))
second = store.replace_value(KEY, name, first, RegValue("REG_SZ", "C:\\two;%WINDIR%"))
emit(first=shape(first), second=shape(second), stored=raw(name))
store.replace_value(KEY, name, second, None)
""",
        unique_name(),
    )
    assert result["first"] == ["REG_SZ", r"C:\one"]
    assert result["second"] == ["REG_SZ", r"C:\two;%WINDIR%"]
    assert result["stored"] == [REG_SZ, r"C:\two;%WINDIR%"]


@pytest.mark.slow
def test_a_value_changed_since_planning_is_not_written_and_nothing_else_moves(wine_python: WinePython):
    name, sibling = unique_name(), unique_name()
    result = on_windows(
        wine_python,
        r"""
name, sibling = sys.argv[1:3]
store.replace_value(KEY, name, None, RegValue("REG_SZ", "planned"))
store.replace_value(KEY, sibling, None, RegValue("REG_EXPAND_SZ", "%TEMP%\\sibling"))
before = every_value()
outcomes = {}
for label, expected in [
    ("stale value", RegValue("REG_SZ", "old")),
    ("same text, other type", RegValue("REG_EXPAND_SZ", "planned")),
    ("thought absent", None),
]:
    try:
        store.replace_value(KEY, name, expected, RegValue("REG_SZ", "mine"))
        outcomes[label] = "written"
    except ValueChanged as changed:
        outcomes[label] = shape(changed.current)
emit(outcomes=outcomes, before=before, after=every_value())
store.replace_value(KEY, name, store.read_value(KEY, name), None)
store.replace_value(KEY, sibling, store.read_value(KEY, sibling), None)
""",
        name,
        sibling,
    )
    assert result["outcomes"] == {
        "stale value": ["REG_SZ", "planned"],
        "same text, other type": ["REG_SZ", "planned"],
        "thought absent": ["REG_SZ", "planned"],
    }
    assert result["after"] == result["before"]
    assert result["after"][name] == [REG_SZ, "planned"]
    assert result["after"][sibling] == [REG_EXPAND_SZ, r"%TEMP%\sibling"]
    # Wine's new prefix has its own user variables, which must be there untouched too.
    assert "TEMP" in result["after"]


@pytest.mark.slow
def test_writing_from_absent_creates_and_writing_none_deletes(wine_python: WinePython):
    name = unique_name()
    result = on_windows(
        wine_python,
        r"""
name = sys.argv[1]
created = store.replace_value(KEY, name, None, RegValue("REG_EXPAND_SZ", "%USERPROFILE%\\new"))
stored = raw(name)
deleted = store.replace_value(KEY, name, created, None)
emit(
    created=shape(created), stored=stored, deleted=shape(deleted),
    read=shape(store.read_value(KEY, name)), raw_after=raw(name), listed=name in every_value(),
)
""",
        name,
    )
    assert result["created"] == ["REG_EXPAND_SZ", r"%USERPROFILE%\new"]
    assert result["stored"] == [REG_EXPAND_SZ, r"%USERPROFILE%\new"]
    assert result["deleted"] is None
    assert result["read"] is None
    assert result["raw_after"] is None
    assert result["listed"] is False


@pytest.mark.slow
def test_the_broadcast_reaches_a_window_of_another_program(wine_python: WinePython):
    listener = wine_python.popen(LISTENER.read_text(encoding="utf-8"), "20")
    try:
        assert listener.stdout is not None
        first = listener.stdout.readline().strip()  # the listener's own timer bounds this wait
        assert first == "ready", first + (listener.stderr.read() if listener.stderr else "")
        sent = on_windows(wine_python, "emit(answered=store.broadcast_environment_change())")
        out, err = listener.communicate(timeout=EVENT_S)
    finally:
        if listener.poll() is None:
            listener.kill()
            listener.wait()
    assert listener.returncode == 0, out + err
    assert sent == {"answered": True}
    assert "Environment" in json.loads(out.strip().splitlines()[-1])["received"]


@pytest.mark.slow
def test_a_value_that_is_not_text_is_never_written_and_the_live_store_has_no_lock(wine_python: WinePython):
    # issue 19, point 8: a string type holding null (or a list, a number) is refused before the
    # registry is opened, never stringified; the live registry has nothing to lock (each write
    # compares first), so exclusive() holds nothing and can be entered twice.
    name = unique_name()
    result = on_windows(
        wine_python,
        r"""
refused = []
for value in (None, ["C:\\a"], 7):
    try:
        store.replace_value(KEY, sys.argv[1], None, RegValue("REG_SZ", value))
    except registry.RegistryWriteError as error:
        refused.append(str(error))
with store.exclusive(), store.exclusive():
    inside = True
emit(refused=refused, stored=raw(sys.argv[1]), inside=inside)
""",
        name,
    )
    assert len(result["refused"]) == 3
    assert all("must be text" in message for message in result["refused"])
    assert result["stored"] is None
    assert result["inside"] is True
