"""Windows display class keys of AMD and Intel adapters: PCI ids and the vendor's driver version."""

from __future__ import annotations

from gpuwizard.core.machine.display_devices import display_device_from_windows, is_gpu_class


def test_amd_adrenalin_release_is_radeon_software_version():
    """RadeonSoftwareVersion holds the Adrenalin release; DriverVersion Windows' number (SWARM#49)."""
    device = display_device_from_windows(
        {
            "DriverDesc": "AMD Radeon RX 9070 XT",
            "ProviderName": "Advanced Micro Devices, Inc.",
            "DriverVersion": "32.0.21025.1024",
            "RadeonSoftwareVersion": "25.10.1",
            "MatchingDeviceId": "PCI\\VEN_1002&DEV_7550&REV_C0",
        }
    )
    assert device is not None
    assert (device.vendor, device.name, device.pci_id) == ("amd", "AMD Radeon RX 9070 XT", "1002:7550")
    assert (device.driver_version, device.driver_version_source) == ("25.10.1", "windows-registry")
    assert device.nvidia_driver_version is None


def test_amd_without_radeon_software_version_keeps_driver_version():
    device = display_device_from_windows(
        {
            "DriverDesc": "AMD Radeon RX 7900 XTX",
            "DriverVersion": "31.0.24019.1006",
            "RadeonSoftwareVersion": "  ",
            "MatchingDeviceId": "pci\\ven_1002&dev_744c",
        }
    )
    assert device is not None
    assert (device.pci_id, device.driver_version) == ("1002:744c", "31.0.24019.1006")


def test_intel_driver_version_as_intel_numbers_it():
    device = display_device_from_windows(
        {
            "DriverDesc": "Intel(R) Arc(TM) B580 Graphics",
            "ProviderName": "Intel Corporation",
            "DriverVersion": "32.0.101.8331",
            "MatchingDeviceId": "PCI\\VEN_8086&DEV_E20B",
        }
    )
    assert device is not None
    assert (device.vendor, device.pci_id, device.driver_version, device.driver_version_source) == (
        "intel",
        "8086:e20b",
        "32.0.101.8331",
        "windows-registry",
    )


def test_a_key_without_a_driver_version_has_none():
    device = display_device_from_windows(
        {"DriverDesc": "Intel(R) Arc(TM) Graphics", "MatchingDeviceId": "PCI\\VEN_8086&DEV_7DD5"}
    )
    assert device is not None
    assert (device.driver_version, device.driver_version_source) == (None, None)


def test_a_key_without_a_pci_hardware_id_is_no_device():
    assert (
        display_device_from_windows(
            {"DriverDesc": "Microsoft Remote Display Adapter", "MatchingDeviceId": "SWD\\RemoteDisplayEnum"}
        )
        is None
    )


def test_gpu_classes():
    assert (
        is_gpu_class(0x030000, 0x8086) and is_gpu_class(0x038000, 0x1002) and is_gpu_class(0x030200, 0x10DE)
    )
    assert is_gpu_class(0x120000, 0x1002)  # Instinct: "Processing accelerators"
    assert not is_gpu_class(0x120000, 0x8086)  # Intel's NPU
    assert not is_gpu_class(0x040300, 0x1002)  # the card's HDMI audio
