"""The in-memory registry in the contract's snapshot shape (docs/architecture.md), which Windows paths are tested on."""

from __future__ import annotations

from gpuwizard.adapters.registry import SnapshotRegistry, value_of

SNAPSHOT = {
    "HKCU\\Environment": {"Path": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin"}},
    "HKEY_LOCAL_MACHINE\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0000": {
        "DriverDesc": {"type": "REG_SZ", "value": "NVIDIA GeForce RTX 3060"}
    },
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0001": {},
    "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}\\0001\\Settings": {},
}


def test_values_by_key_with_either_hive_spelling_and_any_case():
    registry = SnapshotRegistry(SNAPSHOT)
    values = registry.values(
        "hklm\\system\\currentcontrolset\\control\\class\\{4D36E968-E325-11CE-BFC1-08002BE10318}\\0000"
    )
    assert values is not None and values["DriverDesc"].value == "NVIDIA GeForce RTX 3060"
    assert value_of(registry, "HKEY_CURRENT_USER\\Environment", "PATH") is not None
    assert registry.values("HKCU\\Nope") is None


def test_subkeys_are_the_next_level_only():
    registry = SnapshotRegistry(SNAPSHOT)
    key = "HKLM\\SYSTEM\\CurrentControlSet\\Control\\Class\\{4d36e968-e325-11ce-bfc1-08002be10318}"
    assert registry.subkeys(key) == ["0000", "0001"]
    assert registry.subkeys(key + "\\") == ["0000", "0001"]
    assert registry.subkeys(key + "\\0001") == ["Settings"]
    assert registry.subkeys("HKCU\\Nope") == []
