r"""The Windows registry: the only module that imports ``winreg``.

Reading goes through :class:`RegistryReader`. :class:`WinregReader` reads the live registry
(Windows only); :class:`SnapshotRegistry` reads the snapshot shape of DESIGN.md section 4
(``{"HKCU\\Environment": {"Path": {"type": "REG_EXPAND_SZ", "value": "..."}}}``), which is
how the same code runs and is tested on any OS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, Protocol

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
    """A registry held in memory, in the snapshot shape of DESIGN.md section 4.

    Key paths compare case-insensitively, and ``HKLM``/``HKEY_LOCAL_MACHINE`` are the same.
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
