"""The vendors' error vocabularies (resources/vocabularies) and their recognition in logs."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest

from gpuwizard.core.findings.diagnosis import diagnose

VOCABULARIES = resources.files("gpuwizard.resources").joinpath("vocabularies")
SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/vocabulary.schema.json").read_text()
)
NAMES = sorted(item.name for item in VOCABULARIES.iterdir() if item.name.endswith(".json"))


def test_the_vocabularies_are_there() -> None:
    assert {
        "cuda-runtime.json",
        "cuda-driver.json",
        "nvml.json",
        "nccl.json",
        "cublas.json",
        "libraries.json",
    } <= set(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_each_vocabulary_validates_and_every_entry_has_a_source(name: str) -> None:
    document = json.loads(VOCABULARIES.joinpath(name).read_text(encoding="utf-8"))
    errors = [error.message for error in jsonschema.Draft202012Validator(SCHEMA).iter_errors(document)]
    assert errors == []
    assert all(entry.get("source") or document["source"] for entry in document["entries"])
    assert all(entry["message"].strip() for entry in document["entries"])


def _codes(text: str) -> list[str]:
    return [finding.code for finding in diagnose(text)]


@pytest.mark.parametrize(
    ("line", "code", "name"),
    [
        # jax-ml/jax#5723-like: XLA's driver call failing with the driver's own name.
        (
            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access "
            "was encountered.",
            "VENDOR_CUDA_ERROR",
            "CUDA_ERROR_ILLEGAL_ADDRESS",
        ),
        (
            "RuntimeError: CUDA error: an illegal memory access was encountered (cudaErrorIllegalAddress)",
            "VENDOR_CUDA_ERROR",
            "cudaErrorIllegalAddress",
        ),
        # CONSTRUCTED in PyTorch's words for cuFFT, cuSOLVER and cuSPARSE failures (the names are the
        # libraries' own, from their headers; the meanings from NVIDIA's documentation).
        ("RuntimeError: cuFFT error: CUFFT_INTERNAL_ERROR", "VENDOR_LIBRARY_STATUS", "CUFFT_INTERNAL_ERROR"),
        (
            "torch._C._LinAlgError: cusolver error: CUSOLVER_STATUS_EXECUTION_FAILED, when calling `cusolverDnXgeqrf`",
            "VENDOR_LIBRARY_STATUS",
            "CUSOLVER_STATUS_EXECUTION_FAILED",
        ),
        (
            "RuntimeError: CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
            "VENDOR_LIBRARY_STATUS",
            "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES",
        ),
        # NCCL's status name alone (PyTorch's "NCCL error in: ..." around it is NCCL_ERROR's).
        (
            "ncclUnhandledCudaError: Call to CUDA function failed.",
            "VENDOR_LIBRARY_STATUS",
            "ncclUnhandledCudaError",
        ),
        (
            "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, opa, opb)`",
            "VENDOR_LIBRARY_STATUS",
            "CUBLAS_STATUS_EXECUTION_FAILED",
        ),
        (
            "pynvml.NVMLError_GpuIsLost: NVML_ERROR_GPU_IS_LOST",
            "VENDOR_LIBRARY_STATUS",
            "NVML_ERROR_GPU_IS_LOST",
        ),
        (
            "ggml_cuda_init: CUDA error 700 at ggml-cuda.cu:200",
            "VENDOR_CUDA_ERROR",
            "cudaErrorIllegalAddress",
        ),
        # pytorch/pytorch#131662-like Windows failures, decimal and hex.
        (
            "Process finished with exit code -1073741515 (0xC0000135)",
            "WINDOWS_ERROR_CODE",
            "STATUS_DLL_NOT_FOUND",
        ),
        ("C:\\app\\python.exe returned 3221225477", "WINDOWS_ERROR_CODE", "STATUS_ACCESS_VIOLATION"),
        (
            "OSError: [WinError 1114] A dynamic link library (DLL) initialization routine failed",
            "WINDOWS_ERROR_CODE",
            "ERROR_DLL_INIT_FAILED",
        ),
    ],
)
def test_a_vendor_name_or_number_gives_its_finding(line: str, code: str, name: str) -> None:
    [finding] = diagnose(line)
    assert (finding.code, finding.params["name"]) == (code, name)
    assert finding.severity == "error"
    assert finding.params["meaning"]


def test_a_driver_too_old_value_tells_to_update_the_driver() -> None:
    # Error 222 (PTX from a newer CUDA) has a finding of its own (diagnosis_toolchains.py).
    [finding] = diagnose("CUDA_ERROR_UNSUPPORTED_PTX_VERSION")
    assert finding.code == "CUDA_PTX_TOOLCHAIN_TOO_NEW" and "driver" in finding.hint.lower()
    [finding] = diagnose("NVML_ERROR_LIB_RM_VERSION_MISMATCH")
    assert "driver" in finding.hint.lower()
    assert finding.params["variant"] == "driver"


@pytest.mark.parametrize(
    ("line", "library", "component", "reason"),
    [
        # deepfakes/faceswap#778: pynvml without the driver's NVML library.
        (
            "OSError: libnvidia-ml.so.1: cannot open shared object file: No such file or directory",
            "libnvidia-ml.so.1",
            "the NVIDIA driver (NVML)",
            "driver",  # the driver installs it: the hint says so, never "install a package"
        ),
    ],
)
def test_a_loader_failure_names_the_component(line: str, library: str, component: str, reason: str) -> None:
    [finding] = diagnose(line)
    assert finding.code == "LIBRARY_NOT_LOADED"
    assert (finding.params["library"], finding.params["component"], finding.params["variant"]) == (
        library,
        component,
        reason,
    )
    if reason == "driver":
        assert "NVIDIA driver" in finding.hint and "ships as" not in finding.hint


@pytest.mark.parametrize(
    "text",
    [
        "exit code 0",
        "Process finished with exit code 1",
        "error 126 in line 3",  # a bare number, no Windows around it
        "CUDA is available: True; CUDA version 12.4",
        "cudaSuccess",
        "Successfully installed numpy-2.1.3",
    ],
)
def test_benign_text_stays_silent(text: str) -> None:
    assert diagnose(text) == []


def test_a_specific_finding_suppresses_the_vendor_one() -> None:
    text = "RuntimeError: CUDA error: no kernel image is available for execution on the device\ncudaErrorNoKernelImageForDevice"
    assert _codes(text) == ["NO_KERNEL_IMAGE"]
    assert _codes(
        "ImportError: libcudnn_ops.so.9: cannot open shared object file: No such file or directory"
    ) == ["DLL_NOT_FOUND"]
