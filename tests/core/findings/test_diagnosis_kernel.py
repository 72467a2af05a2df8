"""Diagnosis of the NVIDIA kernel driver's own NVRM lines: the GPU not initialised (BAR1, GSP) and Xid reports.

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, the variants read from the whole log, and the findings they replace or leave alone.
"""

from __future__ import annotations

import json
from importlib import resources

import pytest

from gpuwizard.core.findings.diagnosis_kernel import xid_vocabulary
from harness.recorded_logs import codes, only, only_in

_BAR1 = "gpu-init-failed_bar1-too-small-rtx2080ti-580-open-module_open-gpu-kernel-modules-934_partial.txt"
_JOURNAL = "gpu-init-failed_rminitadapter-0x24-journal-kernel-prefix_gpu-operator-1146_partial.txt"
_ATTACH = "gpu-init-failed_osinitnvmapping-cannot-attach-gpu-cmp-40hx_cmpunlocker-4_partial.txt"
_GSP_3090 = "gpu-init-failed_gsp-cannot-initialize-rtx3090-no-devices-were-found_open-gpu-kernel-modules-789_partial.txt"
_GSP_FMC = "gpu-init-failed_gsp-fmc-boot-error-rtx5080-laptop-dmesg-h_open-gpu-kernel-modules-935_partial.txt"
_GSP_WPR2 = "gpu-init-failed_gsp-wpr2-already-up-rtx3080-laptop-gpu0-prefix_open-gpu-kernel-modules-1058.txt"
_XID_79 = "gpu-xid-error_xid-79-fallen-off-the-bus-rtx5080-journal_open-gpu-kernel-modules-1151_partial.txt"
_XID_120 = "gpu-xid-error_xid-120-gsp-task-exception_open-gpu-kernel-modules-829_partial.txt"
_XID_13 = "gpu-xid-error_xid-13-and-109-dmesg-ctime_gpud-46.txt"


def test_a_bar1_window_too_small_names_the_firmware_settings_and_the_sizes():
    finding = only_in(_BAR1, "GPU_INIT_FAILED")
    assert finding.params["variant"] == "bar1"
    assert (finding.params["bar1_mib"], finding.params["fb_mib"]) == ("254", "22122")
    assert "Above 4G Decoding" in finding.hint and "Resizable BAR" in finding.hint
    assert "proprietary kernel module" in finding.hint


@pytest.mark.parametrize("name", [_JOURNAL, _ATTACH])
def test_rminitadapter_without_a_named_step_gives_the_general_checks(name: str):
    finding = only_in(name, "GPU_INIT_FAILED")
    assert "variant" not in finding.params
    assert "sudo dmesg" in finding.hint and "/proc/driver/nvidia/version" in finding.hint
    assert "Above 4G Decoding" in finding.hint


def test_the_status_of_rminitadapter_is_read_through_prefixes():
    # syslog's "Dec  2 ... kernel: [ 885.24] NVRM: GPU 0000:0a:00.0: ..." prefix.
    assert only_in(_JOURNAL).params["status"] == "0x24:0x72:1568"


@pytest.mark.parametrize("name", [_GSP_3090, _GSP_FMC, _GSP_WPR2])
def test_the_gsp_firmware_failing_names_the_firmware_and_the_proprietary_switch(name: str):
    finding = only_in(name, "GPU_INIT_FAILED")
    assert finding.params["variant"] == "gsp"
    assert "NVreg_EnableGpuFirmware=0" in finding.hint and "/lib/firmware/nvidia/" in finding.hint


def test_the_kernels_own_diagnosis_keeps_precedence():
    # A module of another version (its GSP firmware then missing), or the open module refusing an
    # old GPU: RmInitAdapter failing is their consequence, not a second finding.
    assert codes(
        "NVRM: API mismatch: the client has the version 570.153.02, but\n"  # CONSTRUCTED
        "NVRM: this kernel module has the version 570.144.  Please\n"
        "NVRM: GPU 0000:07:00.0: RmInitAdapter failed! (0x61:0x56:1770)\n"
    ) == ["KERNEL_MODULE_MISMATCH"]
    assert codes(
        "NVRM: nvidia.ko because it does not include the required GPU\n"  # CONSTRUCTED
        "NVRM: GPU 0000:03:00.0: RmInitAdapter failed! (0x24:0x72:1603)\n"
    ) == ["OPEN_KERNEL_MODULE_UNSUPPORTED_GPU"]


def test_the_gpu_not_initialised_explains_cuda_finding_no_device():
    # CONSTRUCTED: PyTorch's and CUDA's words after the kernel's.
    text = (
        "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)\n"
        "RuntimeError: No CUDA GPUs are available\n"
        "CUDA error: CUDA_ERROR_NO_DEVICE\n"
    )
    assert codes(text) == ["GPU_INIT_FAILED"]


def test_no_devices_were_found_alone_claims_no_cause():
    assert codes("$ nvidia-smi\nNo devices were found\n") == []  # CONSTRUCTED


def test_xid_79_is_the_gpu_falling_off_the_bus():
    finding = only_in(_XID_79, "GPU_XID_ERROR")
    assert finding.params["variant"] == "fallen_off_bus" and finding.params["xids"] == "Xid 79"
    assert "GPU has fallen off the bus" in finding.message
    assert "power" in finding.hint and "Restart the machine" in finding.hint
    # The driver's other line for the same event, without the Xid line (CONSTRUCTED in nv.c's words).
    older = only("kernel: NVRM: GPU at 0000:01:00.0 has fallen off the bus.")
    assert older.params["variant"] == "fallen_off_bus"


def test_gsp_xids_name_the_firmware_switch():
    finding = only_in(_XID_120, "GPU_XID_ERROR")
    assert finding.params["variant"] == "gsp" and finding.params["xids"] == "Xid 120"
    assert "GSP Error" in finding.message and "NVreg_EnableGpuFirmware=0" in finding.hint


def test_application_xids_name_each_number_and_its_meaning():
    finding = only_in(_XID_13, "GPU_XID_ERROR")
    assert "variant" not in finding.params
    assert finding.params["xids"] == "Xid 13, Xid 109"
    assert "Graphics Engine Exception" in finding.message
    assert "Xid 109: not in this wizard's table" in finding.message


@pytest.mark.parametrize("xid", ["48", "63", "94", "95"])
def test_memory_xids_say_reset_and_check_row_remapping(xid: str):
    # CONSTRUCTED in the driver's Xid format (docs.nvidia.com/deploy/xid-errors).
    finding = only(f"[ 12.3] NVRM: Xid (PCI:0000:10:1c): {xid}, pid=1896, name=python3, ...")
    assert finding.params["variant"] == "ecc"
    assert "nvidia-smi -q -d ECC,ROW_REMAPPER" in finding.hint and "nvidia-smi -r" in finding.hint


def test_the_worst_xid_chooses_the_variant():
    # CONSTRUCTED: an application's Xid 13 then the GPU falling off the bus.
    text = "NVRM: Xid (PCI:0000:01:00): 13, pid=1, ...\nNVRM: Xid (0000:01:00): 79, pid=0, GPU has fallen off the bus.\n"
    finding = only(text)
    assert finding.params["variant"] == "fallen_off_bus" and finding.params["xids"] == "Xid 13, Xid 79"


@pytest.mark.parametrize(
    "text",
    [
        "NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.54.14  Thu Feb 22 01:44:30 UTC 2024",
        "The Xid 79 error means the GPU has fallen off the bus, see the docs.",  # prose, no NVRM line
        "nvidia-smi -q -d ECC,ROW_REMAPPER",
    ],
)
def test_healthy_and_prose_lines_stay_silent(text: str):
    assert codes(text) == []  # CONSTRUCTED


def test_the_xid_table_covers_the_common_xids_with_sources():
    table = xid_vocabulary()
    common = {13, 31, 32, 43, 45, 48, 61, 62, 63, 64, 68, 69, 74, 79, 92, 94, 95, 119, 120, 154}
    assert common <= set(table)
    assert all(entry.source.startswith("https://docs.nvidia.com/") for entry in table.values())
    document = json.loads(
        resources.files("gpuwizard.resources")
        .joinpath("vocabularies/nvidia-xid.json")
        .read_text(encoding="utf-8")
    )
    assert all(entry["causes"].strip() for entry in document["entries"])
