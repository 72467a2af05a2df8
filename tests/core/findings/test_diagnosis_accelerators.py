"""AMD ROCm, Intel XPU and Apple MPS failures in logs (issue 38, point 7), through ``diagnose``.

The recorded logs (tests/fixtures/recorded/diagnose, SOURCES.md) show each finding on real text;
expected-codes.json already checks their codes. Here: the values each reads, the advice it gives,
and that the makers' enumerations generalise: every value of HIP's hipError_t, of ROCm's HSA and
rocBLAS statuses and of Intel's Level Zero, Unified Runtime and SYCL PI codes is recognised, with
its maker's meaning, though no recorded log shows most of them (the held-out checks below).
"""

from __future__ import annotations

import argparse
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.cli import diagnose as diagnose_command
from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.model import Finding
from harness.recorded_logs import DIAGNOSE, only, only_in, recorded

VOCABULARIES = resources.files("gpuwizard.resources").joinpath("vocabularies")
#: Every recorded log, to show that a held-out value appears in none of them.
RECORDED_TEXT = "\n".join(path.read_text(encoding="utf-8") for path in sorted(DIAGNOSE.glob("*.txt")))


def vocabulary(name: str) -> list[dict[str, object]]:
    document = json.loads(VOCABULARIES.joinpath(f"{name}.json").read_text(encoding="utf-8"))
    entries: list[dict[str, object]] = document["entries"]
    return entries


def by_code(text: str) -> dict[str, Finding]:
    return {finding.code: finding for finding in diagnose(text)}


# --- AMD ROCm ------------------------------------------------------------------------------------


def test_a_gpu_target_missing_from_the_build_is_named_with_its_fix_and_the_override_honestly():
    finding = only_in(
        "rocm-gpu-target-not-in-build_torch-accelerator-error-rocm7-nightly-comfyui_pytorch-164346.txt",
        "ROCM_GPU_TARGET_NOT_IN_BUILD",
    )
    assert finding.params["hip_error"] == "hipErrorInvalidDeviceFunction"
    assert "rocminfo" in finding.hint and "--offload-arch" in finding.hint
    # The override is named with its limits, never as the fix itself.
    assert "HSA_OVERRIDE_GFX_VERSION" in finding.hint
    assert "AMD does not support this" in finding.hint and "Windows" in finding.hint


@pytest.mark.parametrize(
    ("name", "variant", "gfx"),
    [
        (
            "rocm-gpu-target-not-in-build_rocblas-tensile-gfx1103-hip-sdk-6.1-windows_rocmlibs-4.txt",
            "rocblas",
            "gfx1103",
        ),
        (
            "rocm-gpu-target-not-in-build_rocblas-tensile-gfx1032-rocm6.0-llama-cpp-python_llama-cpp-python-1066_partial.txt",
            "rocblas",
            "gfx1032",
        ),
        (
            "rocm-gpu-target-not-in-build_ollama-0.1.32-gfx1103-not-supported-docker_ollama-4099.txt",
            "ollama",
            "gfx1103",
        ),
        (
            "rocm-gpu-target-not-in-build_ollama-0.11.6-supported-types-empty-windows_ollama-12071.txt",
            "ollama",
            "gfx1103",
        ),
    ],
)
def test_rocblas_and_ollama_name_the_gpu_target_they_lack(name: str, variant: str, gfx: str):
    finding = only_in(name, "ROCM_GPU_TARGET_NOT_IN_BUILD")
    assert (finding.params["variant"], finding.params["gfx"]) == (variant, gfx)
    assert gfx in finding.message


def test_the_gpu_target_rocminfo_lists_in_the_log_is_named():
    # CONSTRUCTED: rocminfo's agent line (as in ROCm/legacy-rocm-build#1530) before HIP's error.
    finding = only(
        "  Name:                    gfx1032\n...\nRuntimeError: HIP error: invalid device function"
    )
    assert (finding.code, finding.params["variant"], finding.params["gfx"]) == (
        "ROCM_GPU_TARGET_NOT_IN_BUILD",
        "gfx",
        "gfx1032",
    )
    assert "--offload-arch=gfx1032" in finding.hint


def test_hips_no_kernel_image_is_the_rocm_finding_not_the_cuda_one():
    # Held out: no recorded log quotes HIP's text for hipErrorNoBinaryForGpu after "HIP error: ".
    line = "RuntimeError: HIP error: no kernel image is available for execution on the device"
    assert "HIP error: no kernel image" not in RECORDED_TEXT
    assert list(by_code(line)) == ["ROCM_GPU_TARGET_NOT_IN_BUILD"]
    # Without HIP's words it stays the CUDA finding.
    assert list(by_code("CUDA error: no kernel image is available for execution on the device")) == [
        "NO_KERNEL_IMAGE"
    ]


@pytest.mark.parametrize(
    ("name", "variant"),
    [
        ("rocm-no-device_no-hip-gpus-and-hipErrorNoDevice-rocm4.2_pytorch-70036.txt", None),
        ("rocm-no-device_hipinfo-error-0100-rx580-hip-sdk-6.2-windows_hip-3805.txt", "windows"),
        ("rocm-no-device_rocminfo-hsa-out-of-resources-rx560-rocm5.3_rocm-arch-901.txt", "kfd"),
        (
            "rocm-no-device_kfd-cannot-allocate-memory-pitcairn-not-supported-in-kfd_legacy-rocm-build-2232.txt",
            "kfd",
        ),
    ],
)
def test_no_rocm_device_gives_the_advice_for_its_situation(name: str, variant: str | None):
    finding = only_in(name, "ROCM_NO_DEVICE")
    assert finding.params.get("variant") == variant
    if variant == "windows":
        assert "Adrenalin" in finding.hint
    else:
        assert "render" in finding.hint and "/dev/kfd" in finding.hint


def test_hips_own_text_for_no_device_is_read_back_to_its_value():
    # Held out: the text hipGetErrorString prints for hipErrorNoDevice, after PyTorch's "HIP error: ".
    finding = only("RuntimeError: HIP error: no ROCm-capable device is detected")
    assert (finding.code, finding.params["hip_error"]) == ("ROCM_NO_DEVICE", "hipErrorNoDevice")


def test_kfd_permission_is_the_groups_not_a_missing_gpu():
    finding = only_in(
        "rocm-kfd-permission-denied_rocm-terminal-docker-kfd-permission-denied_rocm-docker-116.txt",
        "ROCM_KFD_PERMISSION_DENIED",
    )
    assert finding.params["reason"] == "Permission denied"
    assert "usermod -a -G render,video" in finding.hint and "--device=/dev/kfd" in finding.hint


@pytest.mark.parametrize(
    ("name", "library", "variant"),
    [
        (
            "rocm-runtime-missing_tensorflow-rocm-libamdhip64.so.3-rocm4.0_tensorflow-upstream-1207_partial.txt",
            "libamdhip64.so.3",
            "hip",
        ),
        (
            "rocm-runtime-missing_tensorflow-rocm-libhsa-runtime64-missing-ubuntu22.04_legacy-rocm-build-1852.txt",
            "libhsa-runtime64.so.1",
            None,
        ),
        (
            "rocm-runtime-missing_llama.cpp-rocm-7.14-libhipblas.so.3-not-on-path_llama.cpp-25807.txt",
            "libhipblas.so.3",
            None,
        ),
    ],
)
def test_a_missing_rocm_library_is_rocm_not_a_cuda_library(name: str, library: str, variant: str | None):
    finding = only_in(name, "ROCM_RUNTIME_MISSING")
    assert (finding.params["library"], finding.params.get("variant")) == (library, variant)
    if variant == "hip":  # libamdhip64.so.N is HIP N, the HIP of ROCm N
        assert finding.params["rocm"] == "3" and "ROCm 3" in finding.message


# --- the makers' enumerations generalise ---------------------------------------------------------

#: HIP values whose cause has a finding of its own (diagnosis_accelerators._HIP_CAUSES).
HIP_CAUSES = {
    "hipErrorNoBinaryForGpu": "ROCM_GPU_TARGET_NOT_IN_BUILD",
    "hipErrorInvalidDeviceFunction": "ROCM_GPU_TARGET_NOT_IN_BUILD",
    "hipErrorNoDevice": "ROCM_NO_DEVICE",
}
HIP = [entry for entry in vocabulary("hip-runtime") if entry["number"] != 0]


@pytest.mark.parametrize("entry", HIP, ids=lambda entry: str(entry["name"]))
def test_every_hip_error_name_of_the_header_is_recognised(entry: dict[str, object]):
    name = str(entry["name"])
    findings = by_code(f"RuntimeError: HIP error: {name}")
    if name in HIP_CAUSES:
        assert findings[HIP_CAUSES[name]].params["hip_error"] == name
        return
    finding = findings["VENDOR_HIP_ERROR"]
    # A deprecated alias keeps its own name; the meaning is the header's (or HIP's printed text).
    assert (finding.params["name"], finding.params["number"]) == (name, str(entry["number"]))
    assert finding.params["meaning"] == entry["message"]


def _first_by_text() -> dict[str, str]:
    first: dict[str, str] = {}
    for entry in HIP:
        if "printed" in entry:
            first.setdefault(str(entry["printed"]).lower(), str(entry["name"]))
    return first


#: HIP's printed texts that other parts already explain by their cause (CUDA's words are the same).
EXPLAINED_ELSEWHERE = {"out of memory", "invalid device ordinal"}


@pytest.mark.parametrize(("text", "name"), sorted(_first_by_text().items()))
def test_every_text_hip_prints_is_read_back_to_its_value(text: str, name: str):
    findings = by_code(f"torch.AcceleratorError: HIP error: {text}")
    assert findings, text
    if text in EXPLAINED_ELSEWHERE:
        return
    if name in HIP_CAUSES:
        assert findings[HIP_CAUSES[name]].params["hip_error"] == name
    elif "VENDOR_HIP_ERROR" in findings:
        assert findings["VENDOR_HIP_ERROR"].params["name"] == name
    else:  # a part that knows the cause explains it (CUDA's words for the same failure)
        assert all(code != "VENDOR_HIP_ERROR" for code in findings)


#: Held out: values whose names and texts appear in no recorded log.
HELD_OUT = [
    ("RuntimeError: HIP error: too many resources requested for launch", "hipErrorLaunchOutOfResources"),
    ("hipErrorECCNotCorrectable", "hipErrorECCNotCorrectable"),
    ("HIP error: the launch timed out and was terminated", "hipErrorLaunchTimeOut"),
]


@pytest.mark.parametrize(("line", "name"), HELD_OUT)
def test_hip_values_no_recorded_log_shows_are_recognised_with_the_headers_meaning(line: str, name: str):
    entry = next(entry for entry in HIP if entry["name"] == name)
    assert name not in RECORDED_TEXT and str(entry.get("printed", "")) not in RECORDED_TEXT
    finding = only(line)
    assert (finding.code, finding.params["name"], finding.params["meaning"]) == (
        "VENDOR_HIP_ERROR",
        name,
        entry["message"],
    )
    assert "rocminfo" in finding.hint  # ROCm's advice, not NVIDIA's


def test_hips_driver_too_old_value_tells_to_update_the_amd_driver():
    finding = only("hipErrorInsufficientDriver")
    assert (finding.code, finding.params["variant"]) == ("VENDOR_HIP_ERROR", "driver")
    assert "amdgpu" in finding.hint and "NVIDIA" not in finding.hint


#: How the statuses that are errors are spelt (HSA's, Level Zero's, UR's and PI's say so; rocBLAS's all).
ERROR_NAME = re.compile(
    r"HSA_STATUS_ERROR|rocblas_status_|ZE_RESULT_(?:EXP_|EXT_)?ERROR_|UR_RESULT_ERROR_|PI_ERROR_"
)


@pytest.mark.parametrize(
    ("vocabulary_name", "stack"),
    [
        ("hsa-runtime", "rocm"),
        ("rocblas", "rocm"),
        ("level-zero", "oneapi"),
        ("unified-runtime", "oneapi"),
        ("sycl-pi", "oneapi"),
    ],
)
def test_every_status_of_rocm_and_oneapi_is_recognised_with_its_stacks_advice(
    vocabulary_name: str, stack: str
):
    names = [str(entry["name"]) for entry in vocabulary(vocabulary_name) if entry["number"] != 0]
    held_out = [name for name in names if name not in RECORDED_TEXT]
    assert len(held_out) > len(names) / 2  # most are in no recorded log
    for entry in vocabulary(vocabulary_name):
        name = str(entry["name"])
        if entry["number"] == 0 or not ERROR_NAME.match(name):
            continue  # success, warning and query values (ZE_RESULT_NOT_READY): no error line names them
        finding = only(f"RuntimeError: Native API failed. Native API returns: {entry['number']} ({name})")
        assert (finding.code, finding.params["name"], finding.params["variant"]) == (
            "VENDOR_LIBRARY_STATUS",
            name,
            stack,
        ), name
        assert finding.params["meaning"] == entry["message"]
        assert "NVIDIA" not in finding.hint


def test_pi_codes_mean_what_the_unified_runtime_values_sycl_maps_onto_them_mean():
    finding = only_in("vendor-library-status_pi-error-uninitialized-a770-windows_ai-playground-125.txt")
    assert finding.params["component"] == "SYCL runtime (PI)"
    [out_of_resources] = [e for e in vocabulary("sycl-pi") if e["name"] == "PI_ERROR_OUT_OF_RESOURCES"]
    # SYCL's ur2piResult maps UR's device out-of-memory onto PI's -5: the meaning says so.
    assert "Insufficient device memory" in str(out_of_resources["message"])


# --- Intel XPU -----------------------------------------------------------------------------------


def test_no_xpu_device_names_the_driver_among_the_causes():
    finding = only_in(
        "xpu-no-device_ipex-2.3.110-device-count-zero-sycl-ls-lists-a770_ipex-702_partial.txt",
        "XPU_NO_DEVICE",
    )
    assert "driver" in finding.hint and "sycl-ls" in finding.hint and "older driver" in finding.hint


def test_the_level_zero_loader_comes_with_the_driver_onemkl_with_oneapi():
    zero = only_in(
        "xpu-runtime-missing_ipex-llm-libze-loader-missing_ipex-llm-11294_partial.txt", "XPU_RUNTIME_MISSING"
    )
    assert (zero.params["variant"], zero.params["library"]) == ("level_zero", "libze_loader.so.1")
    assert "not with pip" in zero.hint
    mkl = only_in(
        "xpu-runtime-missing_ipex-1.10.200-libmkl-sycl-missing_ipex-281_partial.txt", "XPU_RUNTIME_MISSING"
    )
    assert (mkl.params["variant"], mkl.params["component"]) == ("oneapi", "oneMKL")
    assert "setvars.sh" in mkl.hint


def test_onemkl_missing_outside_intels_gpu_stack_is_no_xpu_finding():
    # CONSTRUCTED: CPU builds load oneMKL too; without IPEX, XPU or SYCL in the log it is not theirs.
    assert "XPU_RUNTIME_MISSING" not in by_code(
        "OSError: libmkl_intel_lp64.so.2: cannot open shared object file: No such file or directory"
    )


# --- Apple MPS -----------------------------------------------------------------------------------


def test_an_operator_mps_lacks_is_named_and_the_fallback_comes_with_its_cost():
    finding = only_in(
        "mps-op-not-implemented_slow-conv2d-forward-fallback-set-via-conda_pytorch-86195.txt",
        "MPS_OP_NOT_IMPLEMENTED",
    )
    assert finding.params["op"] == "aten::_slow_conv2d_forward"
    assert "PYTORCH_ENABLE_MPS_FALLBACK=1" in finding.hint
    assert "CPU speed" in finding.hint and "before the program starts" in finding.hint


def test_the_fallback_warning_is_no_failure():
    assert diagnose(recorded("negative_mps-fallback-warning-cholesky-runs-on-cpu_pytorch-77764.txt")) == []


def test_mps_out_of_memory_reads_the_allocators_numbers_and_warns_about_the_watermark():
    finding = only_in("mps-out-of-memory_fooocus-macbook-pro-m2_fooocus-1139.txt", "MPS_OUT_OF_MEMORY")
    assert (finding.params["allocated"], finding.params["other"], finding.params["max_allowed"]) == (
        "8.89 GB",
        "172.98 MB",
        "9.07 GB",
    )
    assert "PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0" in finding.hint and "crash" in finding.hint
    # torch.OutOfMemoryError is raised for MPS too: one finding, MPS's.
    assert list(
        by_code(
            "torch.OutOfMemoryError: MPS backend out of memory (MPS allocated: 1.00 GB, "
            "other allocations: 2.00 GB, max allowed: 3.00 GB)."
        )
    ) == ["MPS_OUT_OF_MEMORY"]


@pytest.mark.parametrize(
    ("name", "dtype"),
    [
        ("mps-dtype-unsupported_float64-tensor-to-mps-torch2.1.1_tianshou-1237_partial.txt", "float64"),
        ("mps-dtype-unsupported_double-no-mapping-torch1.12-nightly_pytorch-77781_partial.txt", "Double"),
    ],
)
def test_float64_on_mps_tells_to_convert_to_float32(name: str, dtype: str):
    finding = only_in(name, "MPS_DTYPE_UNSUPPORTED")
    assert (finding.params["variant"], finding.params["dtype"]) == ("float64", dtype)
    assert (
        ".astype(np.float32)" in finding.hint and "PYTORCH_ENABLE_MPS_FALLBACK does not help" in finding.hint
    )


def test_another_type_mps_lacks_is_named():
    # CONSTRUCTED in PyTorch's words (Comfy-Org/ComfyUI#9263's title): an fp8 model on MPS.
    finding = only(
        "TypeError: Trying to convert Float8_e4m3fn to the MPS backend but it does not have support for that dtype."
    )
    assert (finding.code, finding.params["dtype"], finding.params.get("variant")) == (
        "MPS_DTYPE_UNSUPPORTED",
        "Float8_e4m3fn",
        None,
    )


def test_the_macos_pytorch_asks_for_is_read_and_the_hint_says_the_message_can_be_stale():
    finding = only_in(
        "mps-backend-unavailable_macos-12.7.6-torch2.5.1-says-12.3_pytorch-139425.txt",
        "MPS_BACKEND_UNAVAILABLE",
    )
    assert finding.params["minimum"] == "12.3"
    assert "sw_vers" in finding.hint and "macOS 13" in finding.hint and "arm64" in finding.hint


# --- the command ---------------------------------------------------------------------------------


def test_the_diagnose_command_names_a_held_out_hip_value(tmp_path: Path):
    log = tmp_path / "hip.log"
    log.write_text("RuntimeError: HIP error: too many resources requested for launch\n", encoding="utf-8")
    parser = argparse.ArgumentParser(prog="gpuwizard")
    diagnose_command.add_parser(parser.add_subparsers(dest="command"))
    out: list[str] = []
    code = diagnose_command.run(parser.parse_args(["diagnose", str(log), "--json"]), out.append)
    [finding] = json.loads("".join(out))["findings"]
    assert code == 1
    assert (finding["code"], finding["params"]["name"]) == (
        "VENDOR_HIP_ERROR",
        "hipErrorLaunchOutOfResources",
    )
