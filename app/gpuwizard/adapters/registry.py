r"""The Windows registry: the only module that imports ``winreg``.

Reading goes through :class:`RegistryReader`. :class:`WinregReader` reads the live registry
(Windows only); :class:`SnapshotRegistry` reads the snapshot shape of docs/architecture.md,
"The command-line and JSON contract"
(``{"HKCU\\Environment": {"Path": {"type": "REG_EXPAND_SZ", "value": "..."}}}``), which is
how the same code runs and is tested on any OS.

Writing environment values goes through :class:`EnvironmentStore`: :class:`WinregEnvironment`
writes the live registry and broadcasts ``WM_SETTINGCHANGE``; :class:`SnapshotFileEnvironment`
writes a snapshot file in place. Both write only when the value is still the one the change
was planned from, and read it back afterwards. A snapshot file is also locked against other
processes (a ``.lock`` file beside it) for each compare-and-write, and for a whole change
while :meth:`EnvironmentStore.exclusive` is held.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from gpuwizard.adapters.atomic_files import remove_stale_temporaries, write_text_atomically
from gpuwizard.adapters.file_locks import StateBusy, locked
from gpuwizard.adapters.input_files import REGISTRY_SNAPSHOT_LIMIT, InputFileError, read_input
from gpuwizard.core.json_input import JsonInputError, decode_utf8, parse_json

#: Hive abbreviations as written in paths, to winreg's constant names.
_HIVES: Final = {
    "HKLM": "HKEY_LOCAL_MACHINE",
    "HKEY_LOCAL_MACHINE": "HKEY_LOCAL_MACHINE",
    "HKCU": "HKEY_CURRENT_USER",
    "HKEY_CURRENT_USER": "HKEY_CURRENT_USER",
}

#: winreg's value type numbers and their names (winreg documentation, "Value Types").
_TYPE_NAMES: Final = {
    0: "REG_NONE",
    1: "REG_SZ",
    2: "REG_EXPAND_SZ",
    3: "REG_BINARY",
    4: "REG_DWORD",
    7: "REG_MULTI_SZ",
    11: "REG_QWORD",
}


@dataclass(frozen=True)
class RegValue:
    """One registry value with its type name (``REG_EXPAND_SZ``...)."""

    type: str
    value: Any


class RegistryReader(Protocol):
    r"""Reads keys and values by full path (``HKLM\\SYSTEM\\...``)."""

    def values(self, key: str) -> Mapping[str, RegValue] | None:
        """All values of ``key``, or None when the key does not exist or cannot be read."""
        ...

    def subkeys(self, key: str) -> list[str]:
        """The names of the subkeys of ``key`` (empty when it does not exist)."""
        ...


def value_of(reader: RegistryReader, key: str, name: str) -> RegValue | None:
    """One value of ``key``, matching the name case-insensitively as Windows does."""
    values = reader.values(key) or {}
    wanted = name.casefold()
    return next((v for n, v in values.items() if n.casefold() == wanted), None)


def _split(key: str) -> tuple[str, str]:
    hive, _, rest = key.partition("\\")
    return hive.upper(), rest


class WinregReader:
    """Reads the live Windows registry (64-bit view, read-only access)."""

    def __init__(self) -> None:
        import winreg  # noqa: PLC0415 - Windows only; a plain import keeps the import rules seeing it

        self._winreg: Any = winreg

    def _open(self, key: str) -> Any:  # noqa: ANN401 - winreg.HKEYType exists only on Windows
        hive, rest = _split(key)
        root = getattr(self._winreg, _HIVES[hive])
        access = self._winreg.KEY_READ | self._winreg.KEY_WOW64_64KEY
        return self._winreg.OpenKey(root, rest, 0, access)

    def values(self, key: str) -> Mapping[str, RegValue] | None:
        """See :class:`RegistryReader`."""
        try:
            handle = self._open(key)
        except OSError:
            return None
        result: dict[str, RegValue] = {}
        with handle:
            index = 0
            while True:
                try:
                    name, data, kind = self._winreg.EnumValue(handle, index)
                except OSError:
                    break
                result[name] = RegValue(_TYPE_NAMES.get(kind, f"REG_TYPE_{kind}"), data)
                index += 1
        return result

    def subkeys(self, key: str) -> list[str]:
        """See :class:`RegistryReader`."""
        try:
            handle = self._open(key)
        except OSError:
            return []
        names: list[str] = []
        with handle:
            index = 0
            while True:
                try:
                    names.append(self._winreg.EnumKey(handle, index))
                except OSError:
                    break
                index += 1
        return names


class SnapshotRegistry:
    """A registry held in memory, in the registry snapshot shape.

    The shape is docs/architecture.md, "The command-line and JSON contract". Key paths compare
    case-insensitively, and ``HKLM``/``HKEY_LOCAL_MACHINE`` are the same.
    """

    def __init__(self, snapshot: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
        self._keys: dict[str, tuple[str, dict[str, RegValue]]] = {}
        for key, values in snapshot.items():
            self._keys[_canonical(key)] = (
                key,
                {name: RegValue(str(v["type"]), v["value"]) for name, v in values.items()},
            )

    def values(self, key: str) -> Mapping[str, RegValue] | None:
        """See :class:`RegistryReader`."""
        found = self._keys.get(_canonical(key))
        return dict(found[1]) if found else None

    def subkeys(self, key: str) -> list[str]:
        """See :class:`RegistryReader`."""
        parent = _canonical(key)
        depth = parent.count("\\") + 1
        names: dict[str, str] = {}
        for canonical, (original, _) in self._keys.items():
            if canonical.startswith(parent + "\\"):
                child = original.strip("\\").split("\\")[depth]
                names.setdefault(child.casefold(), child)
        return sorted(names.values())


def _canonical(key: str) -> str:
    hive, rest = _split(key)
    return (_HIVES.get(hive, hive) + "\\" + rest.strip("\\")).casefold()


#: The two keys that hold environment variables (Microsoft Learn, "Environment Variables":
#: user variables in HKEY_CURRENT_USER\Environment, system variables under
#: HKEY_LOCAL_MACHINE\System\CurrentControlSet\Control\Session Manager\Environment).
USER_ENVIRONMENT_KEY: Final = "HKCU\\Environment"
SYSTEM_ENVIRONMENT_KEY: Final = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Session Manager\\Environment"

#: The value types an environment string may have; any other type is not touched.
_STRING_TYPES: Final = {"REG_SZ": 1, "REG_EXPAND_SZ": 2}


class ValueChanged(Exception):
    """The value is no longer the one the change was planned from; nothing was written."""

    def __init__(self, key: str, name: str, current: RegValue | None) -> None:
        super().__init__(f"{key}\\{name} changed since it was read")
        self.current = current


class RegistryWriteError(Exception):
    """The value could not be written or read back; the message says why, in one line."""


class EnvironmentStore(Protocol):
    """Environment values of the registry (live or a snapshot), read and written one at a time."""

    #: What the store is, for the journal: ``live`` or ``file:<absolute path>``.
    identity: str

    def read_value(self, key: str, name: str) -> RegValue | None:
        """The value (name matched without case), or None when it does not exist."""
        ...

    def replace_value(
        self, key: str, name: str, expected: RegValue | None, new: RegValue | None
    ) -> RegValue | None:
        """Write ``new`` (None deletes the value) only while the value is still ``expected``.

        Returns the value read back after writing.

        Raises:
            ValueChanged: The value is not ``expected`` any more; nothing was written.
            RegistryWriteError: Writing failed (no access, a broken file); nothing was written.
        """
        ...

    def broadcast_environment_change(self) -> bool:
        """Tell running programs that the environment changed; False when nobody could be told."""
        ...

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        """Keep other processes from writing through this store while inside (re-entrant).

        A change holds it from reading the value it is planned from until it is journaled, so
        two wizards of different homes on one snapshot file take turns instead of re-planning.

        Raises:
            RegistryWriteError: Another process held it too long; nothing was changed.
        """
        ...


def _is_string_value(value: RegValue) -> bool:
    return value.type in _STRING_TYPES and isinstance(value.value, str)


def _check_writable(new: RegValue | None) -> None:
    if new is None or _is_string_value(new):
        return
    if new.type not in _STRING_TYPES:
        raise RegistryWriteError(f"{new.type} is not a type an environment string may have")
    raise RegistryWriteError(f"an environment string must be text, not {type(new.value).__name__}")


def _same(a: RegValue | None, b: RegValue | None) -> bool:
    return a == b


class WinregEnvironment:
    """The live registry (Windows only). Writing the system key needs an elevated process."""

    identity = "live"

    def __init__(self) -> None:
        import winreg  # noqa: PLC0415 - Windows only; a plain import keeps the import rules seeing it

        self._winreg: Any = winreg

    def _open(self, key: str, *, write: bool) -> Any:  # noqa: ANN401 - winreg.HKEYType exists only on Windows
        hive, rest = _split(key)
        root = getattr(self._winreg, _HIVES[hive])
        access = self._winreg.KEY_READ | self._winreg.KEY_WOW64_64KEY
        if write:
            access |= self._winreg.KEY_SET_VALUE
        return self._winreg.OpenKey(root, rest, 0, access)

    def _read(self, handle: Any, name: str) -> RegValue | None:  # noqa: ANN401 - see _open
        # RegQueryValueEx matches value names without case, as Windows always does.
        try:
            data, kind = self._winreg.QueryValueEx(handle, name)
        except FileNotFoundError:
            return None
        return RegValue(_TYPE_NAMES.get(kind, f"REG_TYPE_{kind}"), data)

    def read_value(self, key: str, name: str) -> RegValue | None:
        """See :class:`EnvironmentStore`."""
        try:
            with self._open(key, write=False) as handle:
                return self._read(handle, name)
        except FileNotFoundError:
            return None

    def replace_value(
        self, key: str, name: str, expected: RegValue | None, new: RegValue | None
    ) -> RegValue | None:
        """See :class:`EnvironmentStore`.

        The registry has no compare-and-swap; the value is read again through the same open
        handle just before writing, which leaves a window of microseconds instead of the
        seconds between planning and applying.
        """
        _check_writable(new)
        try:
            handle = self._open(key, write=True)
        except PermissionError:
            raise RegistryWriteError(
                f"no permission to write {key} (the system scope needs elevation)"
            ) from None
        except OSError as error:
            raise RegistryWriteError(f"cannot open {key}: {error.strerror or error}") from None
        with handle:
            current = self._read(handle, name)
            if not _same(current, expected):
                raise ValueChanged(key, name, current)
            if current == new:
                return current  # nothing to write (deleting what is already gone, for one)
            # The existing spelling of the name is kept (Windows itself writes "Path").
            target = name if current is None else self._existing_name(handle, name)
            try:
                if new is None:
                    self._winreg.DeleteValue(handle, target)
                else:
                    self._winreg.SetValueEx(handle, target, 0, _STRING_TYPES[new.type], new.value)
            except OSError as error:
                raise RegistryWriteError(f"cannot write {key}\\{target}: {error.strerror or error}") from None
            return self._read(handle, name)

    def _existing_name(self, handle: Any, name: str) -> str:  # noqa: ANN401 - see _open
        index = 0
        while True:
            try:
                found = self._winreg.EnumValue(handle, index)[0]
            except OSError:
                return name
            if found.casefold() == name.casefold():
                return str(found)
            index += 1

    def exclusive(self) -> contextlib.AbstractContextManager[None]:
        """Nothing to hold: the live registry has no lock; each write compares first instead.

        The wizard's own processes take turns on the journal's lock (one per home); another
        program's write between reading and writing is what the compare in
        :meth:`replace_value` catches.
        """
        return contextlib.nullcontext()

    def broadcast_environment_change(self) -> bool:
        """Broadcast ``WM_SETTINGCHANGE`` with "Environment", as the System Properties dialog does.

        ``SMTO_ABORTIFHUNG`` with a 5 s timeout per window, so one hung program cannot hang the
        wizard (Microsoft Learn, "WM_SETTINGCHANGE message" and "SendMessageTimeoutW").
        """
        import ctypes  # noqa: PLC0415 - Windows only
        from ctypes import wintypes  # noqa: PLC0415

        hwnd_broadcast, wm_settingchange, smto_abortifhung = 0xFFFF, 0x001A, 0x0002
        # A private library object, so these argtypes change nothing for other code.
        send = ctypes.WinDLL("user32").SendMessageTimeoutW  # type: ignore[attr-defined]
        send.argtypes = [
            wintypes.HWND, wintypes.UINT, wintypes.WPARAM, wintypes.LPCWSTR,
            wintypes.UINT, wintypes.UINT, ctypes.POINTER(ctypes.c_size_t),
        ]  # fmt: skip
        send.restype = wintypes.LPARAM
        result = ctypes.c_size_t(0)
        answered = send(
            hwnd_broadcast, wm_settingchange, 0, "Environment", smto_abortifhung, 5000, ctypes.byref(result)
        )
        return bool(answered)


class SnapshotFileEnvironment:
    """A registry snapshot file, written back in place.

    The format is docs/architecture.md, "The command-line and JSON contract". Only the one
    value changes; every other key and value is written back as it was read. The file is
    replaced atomically, so a failure never leaves half a file.
    """

    def __init__(self, path: Path) -> None:
        self.path = path.resolve()
        self.identity = f"file:{self.path}"

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """See :class:`EnvironmentStore`: the snapshot's lock file (``FILE.lock``, :mod:`.file_locks`) is held.

        Taking it also removes the temporary copies of the snapshot that killed writers left
        beside it (:func:`remove_stale_temporaries`): every writer holds this lock while its copy
        exists, so none of a living writer is taken.
        """
        try:
            with locked(self.path):
                remove_stale_temporaries(self.path)
                yield
        except StateBusy as error:
            raise RegistryWriteError(str(error)) from None
        except OSError as error:
            raise RegistryWriteError(f"{self.path}: cannot lock it ({error.strerror or error})") from None

    def _load(self) -> dict[str, dict[str, dict[str, Any]]]:
        # Size-limited, strict UTF-8, strict JSON (a key twice, NaN, nesting too deep refused):
        # a bad file is one line, exit 2 (core/json_input.py).
        try:
            raw = read_input(self.path, limit=REGISTRY_SNAPSHOT_LIMIT, what="a registry snapshot")
            data = parse_json(decode_utf8(raw, source=str(self.path)), source=str(self.path))
        except InputFileError as error:
            if error.reason == "missing":
                raise RegistryWriteError(f"{self.path}: no such registry snapshot") from None
            raise RegistryWriteError(str(error)) from None
        except JsonInputError as error:
            raise RegistryWriteError(str(error)) from None
        if not isinstance(data, dict) or not all(
            isinstance(values, dict)
            and all(
                isinstance(v, dict) and isinstance(v.get("type"), str) and "value" in v
                for v in values.values()
            )
            for values in data.values()
        ):
            raise RegistryWriteError(
                f'{self.path}: not a registry snapshot (expected {{"KEY": {{"NAME": {{"type": ..., "value": ...}}}}}})'
            )
        for key, values in data.items():
            for name, found in values.items():
                problem = self._value_problem(found["type"], found["value"])
                if problem is not None:
                    raise RegistryWriteError(
                        f"{self.path}: not a registry snapshot ({key}\\{name}: {problem})"
                    )
        return data

    @staticmethod
    def _value_problem(kind: str, value: object) -> str | None:
        """What is wrong with a value of registry type ``kind``, as the registry could never hold it."""
        if kind in _STRING_TYPES:
            if not isinstance(value, str):
                json_type = {type(None): "null", list: "a list", dict: "an object", bool: "true or false"}
                return f"a {kind} value must be text, not {json_type.get(type(value), 'a number')}"
            if "\x00" in value:
                return f"a {kind} value cannot hold a NUL character"
        elif kind == "REG_MULTI_SZ" and not (
            isinstance(value, list) and all(isinstance(v, str) for v in value)
        ):
            return f"a {kind} value must be a list of text"
        elif kind in ("REG_DWORD", "REG_QWORD") and (not isinstance(value, int) or isinstance(value, bool)):
            return f"a {kind} value must be a whole number"
        return None

    @staticmethod
    def _locate(data: Mapping[str, Mapping[str, Any]], key: str, name: str) -> tuple[str | None, str | None]:
        wanted = _canonical(key)
        key_name = next((k for k in data if _canonical(k) == wanted), None)
        if key_name is None:
            return None, None
        value_name = next((n for n in data[key_name] if n.casefold() == name.casefold()), None)
        return key_name, value_name

    def check(self) -> None:
        """Raise :class:`RegistryWriteError` when the file is missing or not a snapshot."""
        self._load()

    def read_value(self, key: str, name: str) -> RegValue | None:
        """See :class:`EnvironmentStore`."""
        data = self._load()
        key_name, value_name = self._locate(data, key, name)
        if key_name is None or value_name is None:
            return None
        found = data[key_name][value_name]
        return RegValue(str(found["type"]), found["value"])

    def replace_value(
        self, key: str, name: str, expected: RegValue | None, new: RegValue | None
    ) -> RegValue | None:
        """See :class:`EnvironmentStore`.

        The file's lock is held from reading to replacing it, so no other process's write falls
        in between. Deleting a key's last value deletes the key too: a snapshot keeps no empty
        key that it did not have (the live registry's ``Environment`` key is never deleted).
        """
        _check_writable(new)
        with self.exclusive():
            data = self._load()
            key_name, value_name = self._locate(data, key, name)
            current = None
            if key_name is not None and value_name is not None:
                found = data[key_name][value_name]
                current = RegValue(str(found["type"]), found["value"])
            if not _same(current, expected):
                raise ValueChanged(key, name, current)
            if current == new:
                return current
            if key_name is None:
                key_name = key
                data[key_name] = {}
            if new is None:
                data[key_name].pop(value_name or name, None)
                if not data[key_name]:
                    del data[key_name]
            else:
                data[key_name][value_name or name] = {"type": new.type, "value": new.value}
            self._save(data)
            return self.read_value(key, name)

    def _save(self, data: Mapping[str, Any]) -> None:
        try:
            # A value may hold a lone surrogate (the registry stores UTF-16 unchecked; a snapshot
            # reads "\udc80"): written back as the same JSON escape, never refused.
            text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            write_text_atomically(self.path, text, errors="backslashreplace")
        except OSError as error:
            raise RegistryWriteError(f"{self.path}: cannot write ({error.strerror or error})") from None

    def broadcast_environment_change(self) -> bool:
        """A snapshot file has no running programs to tell."""
        return False
