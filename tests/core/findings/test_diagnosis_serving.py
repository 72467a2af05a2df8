"""Diagnosis of serving and multi-GPU stacks: llama.cpp/Ollama, vLLM, NCCL, torch.distributed, TensorFlow's GPU builds (issue 35).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, the values they read, the variants chosen from the whole log, and the suppressions.
"""

from __future__ import annotations

from gpuwizard.core.findings.diagnosis import DIAGNOSIS_CODES, SUPPRESSIONS
from gpuwizard.core.findings.diagnosis_serving import SERVING_PART
from harness.recorded_logs import codes, only, only_in, recorded

_OLLAMA = "ggml-cuda-out-of-memory_ollama-run-qwen3-8b-rtx3050ti-4gb_ollama-9782.txt"
_LLAMA_SERVER = "ggml-cuda-out-of-memory_llama-server-device-1-tensor-split-windows_llama.cpp-26297.txt"
_T4 = "vllm-bf16-unsupported-gpu_tesla-t4-7.5-docker_vllm-docker-37.txt"
_P40 = "vllm-bf16-unsupported-gpu_tesla-p40-6.1-too-old_orpheus-tts-44.txt"
_V100 = "vllm-bf16-unsupported-gpu_v100-7.0-lower-case_openbuddy-45.txt"
_KV_V0 = "vllm-kv-cache-too-small_v0-4096-vs-3664-colab_product-catalog-generator-10.txt"
_KV_V1 = "vllm-kv-cache-too-small_v1-estimate-262144-pipeline-parallel_vllm-34076_partial.txt"
_KV_NONE = "vllm-kv-cache-too-small_no-memory-for-cache-blocks-docker_vllm-10439_partial.txt"
_P2P_RAY = "nccl-peer-access-failed_cuda-failure-217-ray-workers-p2p-disable-ignored_easyr1-579_partial.txt"
_P2P_WARN = "nccl-peer-access-failed_nccl-2.7.8-warn-ipc-handle-217-ray_ray-lightning-24_partial.txt"
_NCCL_LAST = "nccl-error_torch-unhandled-cuda-error-last-error-invalid-argument-2.20.5_nccl-1410.txt"
_NCCL_WARN = "nccl-error_nccl-tests-warn-named-symbol-not-found-rtx4090_nccl-tests-208_partial.txt"
_NCCL_TESTS = "nccl-error_nccl-tests-failure-common.cu-unhandled-cuda-error_nccl-tests-6.txt"
_NO_NCCL = "torch-distributed-backend-unavailable_windows-nccl-not-built-in_llama2-accessory-166.txt"
_LIBUV = (
    "torch-distributed-backend-unavailable_libuv-torch2.5.1-windows-static-tcp-rendezvous_fluxgym-302.txt"
)
_LIBUV_PINOKIO = "torch-distributed-backend-unavailable_libuv-pinokio-log-prefixes_fluxgym-82_partial.txt"
_TF_RTX50 = "tf-no-kernels-for-gpu_rtx5080-cc12.0-invalid-handle-tf-nightly_tensorflow-97387.txt"
_TF_H100 = "tf-no-kernels-for-gpu_h100-cc9.0-stuck-chinese_simplevla-rl-57.txt"
_TF_WIN_218 = "tf-native-windows-no-gpu_tf2.18-win11-cpu-only-device-list_tensorflow-85006.txt"
_TF_WIN_212 = "tf-native-windows-no-gpu_tf2.12-win11-num-gpus-0-cuda11.8_tensorflow-60172.txt"


def test_ggml_out_of_memory_reads_size_and_device_and_fits_the_program():
    server = only_in(_LLAMA_SERVER, "GGML_CUDA_OUT_OF_MEMORY")
    assert server.params["variant"] == "size" and server.severity == "error"
    assert (server.params["size"], server.params["device"]) == ("51748.72 MiB", "1")
    assert "51748.72 MiB on GPU 1" in server.message
    assert "-ngl" in server.hint and "--tensor-split" in server.hint and "num_gpu" not in server.hint

    ollama = only_in(_OLLAMA, "GGML_CUDA_OUT_OF_MEMORY")
    # Only the bytes of the CUDA0 buffer are printed: 838447104 bytes are 799.61 MiB.
    assert ollama.params["variant"] == "ollama_size"
    assert (ollama.params["size"], ollama.params["device"]) == ("799.61 MiB", "0")
    assert "num_gpu" in ollama.hint and "num_ctx" in ollama.hint and "-ngl" not in ollama.hint


def test_ggml_patterns_tolerate_locales_rocm_and_bare_runner_errors():
    # CONSTRUCTED lines in ggml's format: a comma locale, a HIP build's ROCm buffer.
    comma = only(
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 1900,00 MiB on device 0: cudaMalloc failed: out of memory"
    )
    assert comma.params["size"] == "1900.00 MiB"
    rocm = only("llama_model_load: error loading model: unable to allocate ROCm1 buffer")
    assert rocm.code == "GGML_CUDA_OUT_OF_MEMORY" and rocm.params["device"] == "1"
    assert "variant" not in rocm.params
    # A bare "cudaMalloc failed" counts only where ggml's words show whose it is (CONSTRUCTED).
    assert codes("myapp: cudaMalloc failed: out of memory") == []
    # ggml's "CUDA error: out of memory" in the same log is the same failure: one finding.
    both = recorded(_OLLAMA) + "\nCUDA error: out of memory\n"
    assert codes(both) == ["GGML_CUDA_OUT_OF_MEMORY"]
    assert "GPU_OUT_OF_MEMORY" in SERVING_PART.suppresses["GGML_CUDA_OUT_OF_MEMORY"]


def test_vllm_bfloat16_names_the_gpu_and_the_fix_for_its_generation():
    t4 = only_in(_T4, "VLLM_BF16_UNSUPPORTED_GPU")
    assert (t4.params["gpu"], t4.params["capability"]) == ("Tesla T4", "7.5")
    assert "variant" not in t4.params and "--dtype half" in t4.hint
    v100 = only_in(_V100, "VLLM_BF16_UNSUPPORTED_GPU")  # the poster's lower case
    assert v100.params["capability"] == "7.0" and "variant" not in v100.params
    # Below 7.0 vLLM cannot run at all: half precision is no fix there.
    p40 = only_in(_P40, "VLLM_BF16_UNSUPPORTED_GPU")
    assert p40.params["variant"] == "too_old" and p40.params["capability"] == "6.1"
    assert "7.0" in p40.hint and "llama.cpp" in p40.hint


def test_vllm_kv_cache_fix_uses_vllms_own_numbers():
    v0 = only_in(_KV_V0, "VLLM_KV_CACHE_TOO_SMALL")
    assert v0.params["variant"] == "tokens"
    assert (v0.params["max_len"], v0.params["kv_tokens"]) == ("4096", "3664")
    assert "--max-model-len 3664" in v0.hint and "--gpu-memory-utilization" in v0.hint

    v1 = only_in(_KV_V1, "VLLM_KV_CACHE_TOO_SMALL")
    assert v1.params["variant"] == "estimate"
    assert (v1.params["needed"], v1.params["available"], v1.params["estimate"]) == ("24.0", "3.18", "34736")
    assert "--max-model-len 34736" in v1.hint and "262144" in v1.message

    none = only_in(_KV_NONE, "VLLM_KV_CACHE_TOO_SMALL")
    assert none.params["variant"] == "no_memory"
    assert "Raise --gpu-memory-utilization" in none.hint and "do not lower it" in none.hint

    # A healthy start's profiling lines are not the failure.
    assert codes(recorded("negative_vllm-kv-cache-20k-ok-rtx3090_vllm-10517.txt")) == []


def test_vllm_v1_kv_message_without_an_estimate():
    # CONSTRUCTED from vLLM's format (kv_cache_utils.py) when its estimate is 0: no sentence for it.
    text = (
        "ValueError: To serve at least one request with the model's max seq len (8192), (18.00 GiB KV cache "
        "is needed, which is larger than the available KV cache memory (4.00 GiB). Try increasing"
    )
    finding = only(text)
    assert finding.params["variant"] == "needed" and "18.00 GiB" in finding.message


def test_nccl_peer_access_quotes_ncclss_words_and_version():
    ray = only_in(_P2P_RAY, "NCCL_PEER_ACCESS_FAILED")
    assert ray.params["nccl_version"] == "2.27.3"
    assert ray.params["warning"].startswith("Cuda failure 217 'peer access is not supported")
    assert "NCCL_P2P_DISABLE=1" in ray.hint and "runtime_env" in ray.hint
    assert "--disable-custom-all-reduce" in ray.hint

    warn = only_in(_P2P_WARN, "NCCL_PEER_ACCESS_FAILED")
    assert warn.params["nccl_version"] == "2.7.8"
    assert warn.params["warning"] == (
        "failed to open CUDA IPC handle : 217 peer access is not supported between these two devices"
    )
    # The generic NCCL finding of the same log gives way to the cause.
    assert "NCCL_ERROR" in SUPPRESSIONS["NCCL_PEER_ACCESS_FAILED"]


def test_any_nccl_failure_is_quoted_with_its_warning():
    last = only_in(_NCCL_LAST, "NCCL_ERROR")
    assert last.params["variant"] == "warning" and last.params["nccl_version"] == "2.20.5"
    assert last.params["warning"] == "Cuda failure 1 'invalid argument'"
    assert last.params["reason"] == "unhandled cuda error"
    assert "NCCL_DEBUG=INFO" in last.hint

    warn = only_in(_NCCL_WARN, "NCCL_ERROR")
    assert warn.params["warning"] == "Cuda failure 'named symbol not found'"
    assert warn.params["nccl_version"] == "2.21.5" and "named symbol not found" in warn.message

    tests = only_in(_NCCL_TESTS, "NCCL_ERROR")
    assert "variant" not in tests.params and tests.params["reason"] == "unhandled cuda error"
    assert "unhandled cuda error" in tests.message
    # NCCL's status alone is the vendors' generic finding; with NCCL's own error it is this one.
    assert codes("RuntimeError: NCCL error: ncclUnhandledCudaError") == ["VENDOR_LIBRARY_STATUS"]


def test_torch_distributed_on_windows_gets_gloo_or_no_libuv():
    windows = only_in(_NO_NCCL, "TORCH_DISTRIBUTED_BACKEND_UNAVAILABLE")
    assert windows.params["variant"] == "windows" and windows.params["backend"] == "NCCL"
    assert 'backend="gloo"' in windows.hint and "WSL 2" in windows.hint
    # CONSTRUCTED: the same error without a word of the system: the hint covers the CPU-only build too.
    plain = only("RuntimeError: Distributed package doesn't have NCCL built in")
    assert "variant" not in plain.params and "download.pytorch.org/whl/cu" in plain.hint

    for name in (_LIBUV, _LIBUV_PINOKIO):
        libuv = only_in(name, "TORCH_DISTRIBUTED_BACKEND_UNAVAILABLE")
        assert libuv.params["variant"] == "libuv"
        assert "USE_LIBUV=0" in libuv.hint and "use_libuv=0" in libuv.hint


def test_tensorflow_without_kernels_for_the_gpu():
    rtx50 = only_in(_TF_RTX50, "TF_NO_KERNELS_FOR_GPU")
    assert rtx50.params["variant"] == "blackwell" and rtx50.params["capability"] == "12.0"
    assert rtx50.severity == "warning" and "TF_CUDA_COMPUTE_CAPABILITIES" in rtx50.hint
    # Its CUDA_ERROR_INVALID_HANDLE is explained: the vendors' generic finding gives way.
    assert codes(recorded(_TF_RTX50)) == ["TF_NO_KERNELS_FOR_GPU"]
    h100 = only_in(_TF_H100, "TF_NO_KERNELS_FOR_GPU")
    assert "variant" not in h100.params and h100.params["capability"] == "9.0"
    assert "CUDA_CACHE_MAXSIZE" in h100.hint


def test_tensorflow_2_11_or_newer_on_native_windows_names_the_cause():
    for name, version in ((_TF_WIN_218, "2.18"), (_TF_WIN_212, "2.12")):
        finding = only_in(name, "TF_NATIVE_WINDOWS_NO_GPU")
        assert finding.params["tf_version"] == version and finding.severity == "error"
        assert "WSL 2" in finding.hint and "2.10" in finding.hint and "3.10" in finding.hint
    text = recorded(_TF_WIN_212)
    # TensorFlow 2.10 still had GPU support on Windows; in WSL 2 and on Linux the cause is another.
    assert codes(text.replace("tf 2.12.0", "tf 2.10.0")) == []
    assert codes(text.replace("Windows 11", "WSL 2 (Ubuntu 22.04)")) == []
    assert codes(text.replace("Windows 11", "Ubuntu 22.04")) == []


def test_the_parts_codes_are_in_the_contract_list():
    for code in SERVING_PART.codes:
        assert code in DIAGNOSIS_CODES


_NCCL_SHARED = "nccl-shared-memory-exceeded_nccl2.25.1-rtx5090-all-reduce-perf_nccl-tests-287_partial.txt"
_VLLM_EMPTY = "vllm-no-platform_device-string-empty-gke-no-driver-libraries_kinetic-269_partial.txt"
_TF_PTX = "tf-no-kernels-for-gpu_invalid-ptx-tf2.20-sm120_tensorflow-99592_partial.txt"
_OLLAMA_PASCAL = "no-kernel-image_ollama-0.11.11-gtx1080-ggml-cuda_ollama-12316_partial.txt"


def test_nccl_asking_for_more_shared_memory_than_the_gpu_has_names_both_and_the_release():
    found = only_in(_NCCL_SHARED, "NCCL_SHARED_MEMORY_EXCEEDED")
    assert (found.params["needed"], found.params["available"], found.params["version"]) == (
        "82240",
        "79856",
        "2.25.1",
    )
    assert "pip install -U nvidia-nccl-cu12" in found.hint


def test_vllms_empty_device_type_is_its_missing_platform_only_in_a_vllm_log():
    found = only_in(_VLLM_EMPTY, "VLLM_NO_PLATFORM")
    assert "LD_LIBRARY_PATH=/usr/local/nvidia/lib64" in found.hint
    # CONSTRUCTED: torch's words in another program are not vLLM's platform.
    assert "VLLM_NO_PLATFORM" not in codes(
        "device = torch.device(name)\nRuntimeError: Device string must not be empty\n"
    )


def test_tensorflows_rejected_ptx_says_the_build_has_no_kernels_for_the_gpu():
    found = only_in(_TF_PTX, "TF_NO_KERNELS_FOR_GPU")
    assert found.params["variant"] == "ptx_failed" and "tensorflow[and-cuda]" in found.hint


def test_no_kernel_image_in_ggml_asks_for_another_ollama_or_llama_cpp_build_not_a_torch_wheel():
    found = only_in(_OLLAMA_PASCAL, "NO_KERNEL_IMAGE")
    assert found.params["variant"] == "ggml" and "CMAKE_CUDA_ARCHITECTURES" in found.hint
    assert "download.pytorch.org" not in found.hint


def test_nccls_shared_memory_segment_asks_for_the_containers_dev_shm():
    found = only_in("nccl-error_shared-memory-segment-dev-shm-16mb_torchtitan-853_partial.txt", "NCCL_ERROR")
    assert found.params["variant"] == "shared_memory" and "--shm-size=16g" in found.hint
