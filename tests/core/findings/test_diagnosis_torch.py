"""PyTorch's own words for cuDNN, driver, torchvision and cuBLAS failures, read from real logs.

The logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes, this file what the findings say.
"""

from __future__ import annotations

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.diagnosis_torch import cudnn_version
from harness.recorded_logs import DIAGNOSE, only_in


def test_pytorchs_cudnn_mismatch_reads_both_versions_and_blames_the_library_path():
    finding = only_in("cudnn-version-mismatch_torch-8.5.0-vs-8.4.1-ld-library-path_gladia-928.txt")
    assert finding.code == "CUDNN_VERSION_MISMATCH" and finding.params["variant"] == "torch"
    assert (finding.params["compiled"], finding.params["loaded"]) == ("8.5.0", "8.4.1")
    assert "built with cuDNN 8.5.0" in finding.message and "8.4.1" in finding.message
    assert "LD_LIBRARY_PATH" in finding.hint and "nvidia-cudnn" in finding.hint


def test_the_issues_wording_and_old_version_numbers_are_read():
    [new] = diagnose(
        "RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (9, 10, 2) "
        "but found runtime version (9, 1, 0)"
    )
    assert (new.params["compiled"], new.params["loaded"], new.params["major"]) == ("9.10.2", "9.1.0", "9")
    old = only_in("cudnn-version-mismatch_torch-old-integer-7102-vs-7605_centernet-119.txt")
    assert (old.params["compiled"], old.params["loaded"]) == ("7.1.2", "7.6.5")


@pytest.mark.parametrize(("text", "version"), [("(8, 3, 2)", "8.3.2"), ("8005", "8.0.5"), ("90100", "9.1.0")])
def test_cudnn_versions_in_pytorchs_forms(text: str, version: str):
    assert cudnn_version(text) == version


@pytest.mark.parametrize(
    "name",
    [
        "no-nvidia-driver_torch-runtimeerror-own-hardware_runpod-containers-56.txt",
        "no-nvidia-driver_torch-old-assertion-wrapped-lines_vot-toolkit-6.txt",
    ],
)
def test_pytorch_finding_no_driver_gives_the_driver_container_and_cpu_ways_out(name: str):
    finding = only_in(name)
    assert finding.code == "NO_NVIDIA_DRIVER" and finding.params["variant"] == "log"
    assert "--gpus all" in finding.hint and "WSL" in finding.hint and "'cpu'" in finding.hint


def test_torchvision_operator_missing_means_a_mismatched_pair():
    finding = only_in("torchvision-mismatch_nms-meta-registrations-colab_hallo-98.txt")
    assert finding.code == "TORCHVISION_MISMATCH" and finding.params["operator"] == "torchvision::nms"
    assert "same index" in finding.hint and "torchvision" in finding.hint


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("cublas-alloc-failed_torch-linear-cublasCreate_qwen3-873.txt", "CUBLAS_STATUS_ALLOC_FAILED"),
        (
            "cublas-alloc-failed_torch-not-initialized-internlm2_internlm-tutorial-2462_partial.txt",
            "CUBLAS_STATUS_NOT_INITIALIZED",
        ),
    ],
)
def test_cublas_failing_to_start_in_pytorch_is_memory(name: str, status: str):
    finding = only_in(name)
    assert finding.code == "CUBLAS_ALLOC_FAILED" and finding.params["status"] == status
    assert "variant" not in finding.params
    assert "nvidia-smi" in finding.hint and "batch" in finding.hint


def test_cublas_failing_in_tensorflow_names_memory_growth():
    finding = only_in("cublas-alloc-failed_tf-win-failed-to-create-cublas-handle_tensorflow-7072_partial.txt")
    assert finding.params["variant"] == "tensorflow"
    assert "set_memory_growth" in finding.hint and "TF_FORCE_GPU_ALLOW_GROWTH" in finding.hint


def test_a_real_out_of_memory_log_is_not_doubled_by_the_cublas_failure_it_caused():
    findings = diagnose(
        (DIAGNOSE / "gpu-oom_tf1.14-cuda_error_out_of_memory_tensorflow-30912_partial.txt").read_text()
    )
    assert [f.code for f in findings] == ["GPU_OUT_OF_MEMORY"]


@pytest.mark.parametrize(
    "text",
    [
        # cuBLAS failing to run a kernel (a build that does not fit the GPU) is not memory: only
        # cuBLAS' own status is named (issue 35), never GPU_OUT_OF_MEMORY.
        "RuntimeError: CUDA error: CUBLAS_STATUS_EXECUTION_FAILED when calling `cublasSgemm( handle, ...)`",
        "CUBLAS_STATUS_INTERNAL_ERROR when calling `cublasCreate(handle)`",
    ],
)
def test_a_cublas_status_is_named_but_not_called_out_of_memory(text: str):
    assert [f.code for f in diagnose(text)] == ["VENDOR_LIBRARY_STATUS"]


@pytest.mark.parametrize(
    "text",
    [
        "torchvision 0.20.1 requires torch==2.5.1",
        ">>> torch.backends.cudnn.version()\n90100",
    ],
)
def test_near_misses_give_nothing(text: str):
    assert diagnose(text) == []
