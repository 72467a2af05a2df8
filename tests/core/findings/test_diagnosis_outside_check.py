"""What an outside check on fresh real logs found, each kept as a recorded log (issue 22).

Thirteen real logs from threads the signatures were not built from (SOURCES.md: "found in an
outside check"): consoles that wrap lines at 80 columns, older wordings, prefixes of journald and
torchrun, a Python version that only an issue form shows. Each is recognised with the advice
that fits its situation.
"""

from __future__ import annotations

from gpuwizard.core.findings.diagnosis import diagnose
from harness.recorded_logs import only_in, recorded


def test_a_console_wrapped_at_80_columns_is_read_as_one_line():
    # "CUDAE" / "xecutionProvider": Windows' console wrapped ONNX Runtime's line.
    finding = only_in(
        "onnxruntime-cuda-unavailable_win-console-wrapped-80-columns_onnxruntime-22930.txt",
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
    )
    assert finding.params["variant"] == "requirements"
    assert (finding.params["cuda"], finding.params["cudnn"]) == ("12", "9")


def test_older_and_other_spellings_of_known_messages():
    only_in(
        "onnxruntime-cuda-unavailable_ort1.14-no-final-period_onnxruntime-15873.txt",
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
    )
    only_in(
        "nvml-mismatch_driver-Library-capital-l_deepstream-dgpu-installation-5.txt",
        "NVML_DRIVER_LIBRARY_MISMATCH",
    )


def test_nvidia_smi_in_a_container_started_without_gpus_is_the_container_not_the_kernel_module():
    finding = only_in(
        "container-started-without-gpu_docker-run-driver-mounted-by-hand-chinese_bigdata-108.txt",
        "CONTAINER_STARTED_WITHOUT_GPU",
    )
    assert finding.params["variant"] == "run" and "--gpus all" in finding.hint


def test_jax_prints_cusolver_in_thousands_not_ten_thousands():
    log = "jax-cuda-backend-failed_cusolver-11.0.2-vs-11.4.1_alphapulldown-237.txt"
    [jax] = [f for f in diagnose(recorded(log)) if f.code == "JAX_CUDA_BACKEND_FAILED"]
    assert (jax.params["component"], jax.params["found"], jax.params["built"]) == (
        "cuSOLVER",
        "11.0.2",
        "11.4.1",
    )
    assert "cuSOLVER is 11.4.1 or newer" in jax.hint


def test_torchruns_rank_prefix_tells_that_several_processes_share_one_gpu():
    finding = only_in(
        "cuda-device-not-visible_ordinal-rank5-one-gpu-chinese_rag-retrieval-27.txt",
        "CUDA_DEVICE_NOT_VISIBLE",
    )
    assert finding.params["variant"] == "ordinal_torchrun" and finding.params["processes"] == "6"


def test_a_python_the_log_shows_is_named_instead_of_a_32_bit_python():
    for name in (
        "no-matching-distribution_pip-tensorflow-python3.13-win-versions-none_tensorflow-79349.txt",
        "no-matching-distribution_tensorflow-python3.13-issue-form_tensorflow-85298.txt",
    ):
        finding = only_in(name, "NO_MATCHING_DISTRIBUTION")
        assert finding.params["variant"] == "python" and finding.params["python"] == "3.13", name
        assert "Python 3.13" in finding.message and "32-bit Python" in finding.hint


def test_the_gpus_own_generation_gets_its_advice_and_the_gpu_its_name():
    ampere = only_in("gpu-arch-unsupported_a100-sm_80-torch1.6_torchal-4.txt", "GPU_ARCH_UNSUPPORTED")
    assert ampere.params["variant"] == "log_current_gpu"
    assert "Every current PyTorch CUDA build" in ampere.hint and "RTX 50" not in ampere.hint
    blackwell = only_in(
        "gpu-arch-unsupported_rtx5090-sm_120-journald-prefixes_sd-webui-nix-9.txt", "GPU_ARCH_UNSUPPORTED"
    )
    assert blackwell.params["gpu"] == "NVIDIA GeForce RTX 5090"  # not journald's "Oct 04 ... [394]:"
    assert blackwell.params["variant"] == "log_blackwell"
