"""Integrated or discrete, Apple chips and Level Zero versions, on names recorded in the fixtures."""

from __future__ import annotations

import pytest

from gpuwizard.core.machine.gpu_kinds import (
    amd_integrated_from_name,
    apple_chip,
    intel_integrated,
    level_zero_version,
)


@pytest.mark.parametrize(
    ("address", "name", "integrated"),
    [
        ("0000:00:02.0", "Arrow Lake-P [Arc Pro 130T/140T]", True),  # omarchy#4922
        ("0000:00:02.0", "Raptor Lake-P [UHD Graphics]", True),  # the hybrid laptop
        ("0000:03:00.0", "DG2 [Arc A770]", False),
        ("0000:03:00.0", None, False),  # the B580 without a pci.ids name
        (None, "Intel(R) Arc(TM) A770 Graphics", False),
        (None, "Intel(R) Arc(TM) B580 Graphics", False),
        (None, "Intel(R) Arc(TM) Graphics", True),  # Core Ultra on Windows
        (None, "Intel(R) UHD Graphics 770", True),
        (None, "Intel(R) Iris(R) Xe Graphics", True),
        (None, "Intel(R) Data Center GPU Max 1100", False),
        (None, None, None),
    ],
)
def test_intel_integrated(address: str | None, name: str | None, integrated: bool | None):
    assert intel_integrated(address, name) is integrated


@pytest.mark.parametrize(
    ("name", "integrated"),
    [
        ("AMD Radeon(TM) Graphics", True),  # ollama#5124's iGPU
        ("AMD Radeon 780M Graphics", True),
        ("AMD Radeon RX 7900 XTX", False),
        ("AMD Radeon RX 9070 XT", False),
        ("AMD Radeon PRO W7900", False),
        ("AMD Instinct MI300X", False),
        ("Radeon RX 7900 XTX", False),
        ("AMD Radeon Pro", None),
        (None, None),
    ],
)
def test_amd_integrated_from_name(name: str | None, integrated: bool | None):
    assert amd_integrated_from_name(name) is integrated


@pytest.mark.parametrize(
    ("brand", "chip"),
    [
        ("Apple M3 Pro\n", "Apple M3 Pro"),
        ("Apple M1", "Apple M1"),
        ("Intel(R) Core(TM) i9-9880H CPU @ 2.30GHz", None),
        ("", None),
        (None, None),
    ],
)
def test_apple_chip(brand: str | None, chip: str | None):
    assert apple_chip(brand) == chip


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("libze_intel_gpu.so.1.14.37020", "1.14.37020"),
        ("libze_loader.so.1.28.2", "1.28.2"),
        ("libze_intel_gpu.so.1", None),
        ("libze_loader.so", None),
        ("libze_tracing_layer.so.1.28.2", None),
    ],
)
def test_level_zero_version(name: str, version: str | None):
    assert level_zero_version(name) == version
