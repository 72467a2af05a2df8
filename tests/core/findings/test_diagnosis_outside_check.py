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


def test_out_of_memory_in_the_runtimes_and_comfyuis_words():
    for name in (
        "gpu-oom_comfyui-allocation-would-exceed-allowed-memory_comfyui-12360.txt",
        "gpu-oom_cuda-error-out-of-memory-chinese-system-info_comfyui-9812.txt",
        "gpu-oom_hip-out-of-memory-rocm_comfyui-6475.txt",
    ):
        only_in(name, "GPU_OUT_OF_MEMORY")


def test_a_mac_is_told_to_use_mps_not_to_install_a_cuda_build():
    for name in (
        "cpu-only-build_macos-pinokio-torch-cuda-capability_wan2gp-1680.txt",
        "cpu-only-build_macos-m2-chinese_codegeex2-183.txt",
    ):
        finding = only_in(name, "CPU_ONLY_BUILD")
        assert finding.params["variant"] == "macos" and "'mps'" in finding.hint, name
        assert "index-url" not in finding.hint
    # Windows' C:\Users and Git Bash's /c/Users are no Mac.
    windows = 'File "C:\\Users\\<user>\\torch\\cuda\\__init__.py"\nAssertionError: Torch not compiled with CUDA enabled'
    assert diagnose(windows)[0].params["variant"] == "pytorch"
    git_bash = "/c/Users/<user>/x.py\nAssertionError: Torch not compiled with CUDA enabled"
    assert diagnose(git_bash)[0].params["variant"] == "pytorch"


def test_an_nvswitch_system_without_its_fabric_manager():
    for name in (
        "cuda-system-not-ready_ollama-8x-h100-init-failure-802_ollama-12173.txt",
        "cuda-system-not-ready_jax-cuinit-system-not-yet-initialized_jax-24866.txt",
    ):
        finding = only_in(name, "CUDA_SYSTEM_NOT_READY")
        assert "nvidia-fabricmanager" in finding.hint, name


def test_uv_picking_a_version_without_a_wheel_for_this_platform():
    finding = only_in(
        "no-matching-distribution_uv-sync-torch-2.5.1-only-linux-aarch64-wheel-on-windows_uv-10843.txt",
        "NO_MATCHING_DISTRIBUTION",
    )
    assert finding.params["variant"] == "platform"
    assert (finding.params["platform"], finding.params["available"]) == ("win_amd64", "linux_aarch64")
    assert "tool.uv.sources" in finding.hint


def test_fbgemm_leads_with_the_torch_2_4_0_fix_and_pytorch_cudnn_failures_with_pytorchs_causes():
    fbgemm = only_in("torch-dll-load-failed_fbgemm-py3.12-win_pytorch-133397.txt", "TORCH_DLL_LOAD_FAILED")
    assert fbgemm.params["variant"] == "fbgemm" and fbgemm.hint.startswith("Most often this is PyTorch 2.4.0")
    # Another DLL, or fbgemm.dll of another torch version the log shows, keeps the general advice.
    other = only_in("torch-dll-load-failed_c10-french-locale_diffusers-5247.txt", "TORCH_DLL_LOAD_FAILED")
    assert "variant" not in other.params
    newer = recorded("torch-dll-load-failed_fbgemm-py3.12-win_pytorch-133397.txt") + "\ntorch 2.5.1+cu124\n"
    assert "variant" not in diagnose(newer)[0].params
    torch = only_in(
        "cudnn-internal-error_torch1.7.1-conv3d_pytorch-53191_partial.txt", "CUDNN_INTERNAL_ERROR"
    )
    assert torch.params["variant"] == "torch" and "set_memory_growth" not in torch.hint
    tf = only_in("cudnn-internal-error_tf2.2-gtx940mx_tensorflow-40646.txt", "CUDNN_INTERNAL_ERROR")
    assert "variant" not in tf.params and "set_memory_growth" in tf.hint


def test_cudas_initialisation_error_in_llama_cpps_and_ollamas_words():
    for name in (
        "cuda-init-failed_ollama-ggml-initialization-error-offline-t4_llama3-215.txt",
        "cuda-init-failed_ollama-init-failure-3-blackwell-575-hmm_ollama-11593.txt",
    ):
        finding = only_in(name, "CUDA_INIT_FAILED")
        assert "nvidia_uvm" in finding.hint and "uvm_disable_hmm=1" in finding.hint, name
    # JAX names the same error with its own, more telling finding.
    assert [
        f.code for f in diagnose("CUDA backend failed to initialize: ... failed: CUDA_ERROR_NOT_INITIALIZED")
    ] == ["JAX_CUDA_BACKEND_FAILED"]
