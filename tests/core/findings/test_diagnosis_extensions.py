"""Diagnosis of the packages built on a framework: bitsandbytes, xFormers, compiled extensions, TensorRT engines, the web UI's GPU check (issue 22).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, the values they read, the variants chosen from the whole log, and the suppressions.
"""

from __future__ import annotations

from gpuwizard.core.findings.diagnosis import DIAGNOSIS_CODES
from gpuwizard.core.findings.diagnosis_extensions import EXTENSIONS_PART
from harness.recorded_logs import codes, only, only_in, recorded

_BNB_OVERRIDE = (
    "bitsandbytes-no-cuda-binary_source-checkout-bnb-cuda-version-124_bitsandbytes-1559_partial.txt"
)
_BNB_SOURCE = "bitsandbytes-no-cuda-binary_source-checkout-cuda121-comfyui_bitsandbytes-1614_partial.txt"
_WEBUI_AMD = "torch-cuda-unavailable_sd-webui-amd-wiki-linux_stable-diffusion-webui-9402_partial.txt"
_WEBUI_DOCKER = "torch-cuda-unavailable_docker-build-buildkit-prefixes_stable-diffusion-webui-docker-5.txt"
_FLASH_C10 = "extension-built-for-other-torch_flash-attn-c10-error-cxx11_flash-attention-1832.txt"
_FLASH_AT = "extension-built-for-other-torch_flash-attn-at-ops-zeros-bloom_flash-attention-1612.txt"
_TRT_TAGS = "tensorrt-engine-version-mismatch_serialization-tag-213-vs-232_d2slam-52.txt"
_TRT_JETSON = (
    "tensorrt-engine-version-mismatch_jetson-safe-version-chinese_feature-detection-matching-algorithm-12.txt"
)
_TRT_LIBRARY = "tensorrt-engine-version-mismatch_library-8.5.1.7-got-8.5.3.1-windows_ai-aimbot-109.txt"


def test_bitsandbytes_reads_the_missing_cuda_library_and_the_override():
    override = only_in(_BNB_OVERRIDE, "BITSANDBYTES_NO_CUDA_BINARY")
    assert override.severity == "error"
    assert override.params["variant"] == "override"
    assert override.params["cuda"] == "12.4" and override.params["override"] == "124"
    assert override.params["folder"] == "/notebooks/bitsandbytes/bitsandbytes"
    assert "BNB_CUDA_VERSION=124" in override.message
    assert "unset BNB_CUDA_VERSION" in override.hint and "pip install -U bitsandbytes" in override.hint

    source = only_in(_BNB_SOURCE, "BITSANDBYTES_NO_CUDA_BINARY")
    assert source.params["variant"] == "cuda" and source.params["cuda"] == "12.1"
    assert "/data1/prd/bitsandbytes/bitsandbytes" in source.message and "CUDA 12.1" in source.message
    assert "pip install -U bitsandbytes" in source.hint and "BNB_CUDA_VERSION" not in source.hint

    # CONSTRUCTED line, not a real log: the summary alone names no CUDA version.
    plain = only("CUDA Setup failed despite GPU being available. Please run the following command")
    assert plain.code == "BITSANDBYTES_NO_CUDA_BINARY" and "variant" not in plain.params
    assert "pip install -U bitsandbytes" in plain.hint


def test_in_wsl_the_missing_libcuda_explains_the_bitsandbytes_fallback():
    wsl = recorded("wsl-libcuda-not-found_bitsandbytes-0.38-libcuda-not-found_bitsandbytes-332.txt")
    assert codes(wsl) == ["WSL_LIBCUDA_NOT_FOUND"]
    # Without the WSL finding, the same log's CPU-library fallback is bitsandbytes' finding.
    assert codes(wsl.replace("libcuda.so not found!", "no GPU found!")) == ["BITSANDBYTES_NO_CUDA_BINARY"]


def test_web_ui_gpu_check_variants_follow_the_log():
    docker = only_in(_WEBUI_DOCKER, "TORCH_CUDA_UNAVAILABLE")
    assert docker.params["variant"] == "docker_build" and docker.severity == "error"
    assert "--gpus all" in docker.hint and "--skip-torch-cuda-test" in docker.hint

    amd_text = recorded(_WEBUI_AMD)
    amd = only(amd_text)
    assert amd.params["variant"] == "amd"
    assert "rocm" in amd.hint and "ZLUDA" in amd.hint

    # A ROCm image started with "docker run" (not a build) on a Radeon: the AMD text.
    rocm = only_in(
        "torch-cuda-unavailable_rocm-docker-run-radeon-rx580_stable-diffusion-rocm-docker-24_partial.txt",
        "TORCH_CUDA_UNAVAILABLE",
    )
    assert rocm.params["variant"] == "amd" and "ROCm" in rocm.message

    # The same real log without the poster's sentence about AMD: the plain checklist.
    plain = only(amd_text.split("```\n", 1)[1])
    assert plain.code == "TORCH_CUDA_UNAVAILABLE" and "variant" not in plain.params
    assert "+cpu" in plain.hint and "nvidia-smi" in plain.hint and "download.pytorch.org/whl/cu" in plain.hint
    # An AMD processor (CONSTRUCTED line) or Windows' "AMD64" does not make an AMD GPU.
    cpu_line = "CPU: AMD Ryzen 9 5900HS, Python 3.10.6 [MSC v.1932 64 bit (AMD64)]\n"
    assert "variant" not in only(cpu_line + amd_text.split("```\n", 1)[1]).params


def test_the_web_ui_check_gives_way_to_the_findings_that_explain_it():
    check = recorded(_WEBUI_DOCKER)
    assert codes(check + "\nAssertionError: Torch not compiled with CUDA enabled") == ["CPU_ONLY_BUILD"]
    assert codes(check + "\nRuntimeError: Found no NVIDIA driver on your system.") == ["NO_NVIDIA_DRIVER"]
    for code in {
        key for key, others in EXTENSIONS_PART.suppresses.items() if "TORCH_CUDA_UNAVAILABLE" in others
    }:
        assert code in DIAGNOSIS_CODES, code


def test_cublas_not_supported_names_bfloat16_when_the_call_shows_it():
    bf16 = only_in(
        "cublas-not-supported_bf16-strided-batched-gemm_comfyui_ace-step-10.txt", "CUBLAS_NOT_SUPPORTED"
    )
    assert bf16.params["variant"] == "bf16"
    assert "8.0" in bf16.hint and "float16" in bf16.hint
    plain = only_in("cublas-not-supported_rtx4090-fp16-gemm-chinese_speechgpt-37.txt", "CUBLAS_NOT_SUPPORTED")
    assert "variant" not in plain.params and "11.8" in plain.hint
    # cuBLAS failing to start is memory, another finding.
    assert codes("CUBLAS_STATUS_ALLOC_FAILED when calling `cublasCreate(handle)`") == ["CUBLAS_ALLOC_FAILED"]


def test_extension_built_for_another_torch_names_the_module():
    for name in (_FLASH_C10, _FLASH_AT):
        finding = only_in(name, "EXTENSION_BUILT_FOR_OTHER_TORCH")
        assert finding.params["module"] == "flash_attn_2_cuda"
        assert finding.params["variant"] == "flash_attn"
        assert finding.params["symbol"].startswith(("_ZN3c10", "_ZN2at"))
        assert "cxx11abi" in finding.hint and "--no-build-isolation" in finding.hint
    # vLLM's "_C" module is named with its package; its hint is the generic one.
    vllm = only_in("extension-built-for-other-torch_vllm-C-abi3-torch-library-optional_vllm-5501.txt")
    assert vllm.code == "EXTENSION_BUILT_FOR_OTHER_TORCH" and vllm.params["module"] == "vllm/_C"
    assert "variant" not in vllm.params and "torch version the package was built for" in vllm.hint
    # CONSTRUCTED line: a package's "_C" module is named with its package; not flash-attn.
    xformers = only(
        "ImportError: /venv/lib/python3.11/site-packages/xformers/_C.so: undefined symbol: _ZN5torch3jit17parseSchemaE"
    )
    assert xformers.code == "EXTENSION_BUILT_FOR_OTHER_TORCH" and xformers.params["module"] == "xformers/_C"
    assert "variant" not in xformers.params and "--no-build-isolation" in xformers.hint


def test_undefined_symbols_of_cuda_and_torch_libraries_are_other_problems():
    # A CUDA library's symbol is CUDA_LIBRARIES_MIXED (diagnosis_runtimes.py), never this finding.
    cuda = "libcudnn_cnn_infer.so.8: undefined symbol: _ZN5cudnn3cnn5infer22queryClusterPointProxyEv, version libcudnn_ops_infer.so.8"
    assert "EXTENSION_BUILT_FOR_OTHER_TORCH" not in codes(cuda)
    # torch's own library missing its own symbol is two torch installations, not an extension.
    assert codes("libtorch_cuda.so: undefined symbol: _ZN3c104cuda9SetDeviceEi") == []
    # A C symbol of an extension is not a torch C++ symbol.
    assert (
        codes("flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so: undefined symbol: cudaLaunchKernel") == []
    )


def test_xformers_built_for_another_torch_picks_the_fix_from_the_installed_torch():
    cpu = only_in(
        "xformers-built-for-other-torch_cpu-torch-2.2.0_xformers-982.txt", "XFORMERS_BUILT_FOR_OTHER_TORCH"
    )
    assert cpu.params["variant"] == "cpu_torch" and cpu.severity == "warning"
    assert cpu.params["have"] == "2.2.0+cpu" and cpu.params["built"] == "2.2.0+cu121"
    assert "CPU-only" in cpu.message and "pip install torch --index-url" in cpu.hint

    cuda = only_in(
        "xformers-built-for-other-torch_cu118-vs-cu121_fooocus-2517.txt", "XFORMERS_BUILT_FOR_OTHER_TORCH"
    )
    assert "variant" not in cuda.params and cuda.params["index"] == "cu121"
    assert "pip install -U xformers --index-url https://download.pytorch.org/whl/cu121" in cuda.hint
    assert "2.0.1+cu118" in cuda.message and "2.1.0+cu121" in cuda.message

    # CONSTRUCTED line: a torch without a local version tag (Linux's PyPI wheel).
    untagged = only(
        "xFormers can't load C++/CUDA extensions. xFormers was built for:\n"
        "    PyTorch 2.5.1+cu121 with CUDA 1201 (you have 2.6.0)"
    )
    assert untagged.params["variant"] == "untagged" and "2.6.0" in untagged.hint


def test_tensorrt_engine_mismatch_reads_both_versions():
    tags = only_in(_TRT_TAGS, "TENSORRT_ENGINE_VERSION_MISMATCH")
    assert (tags.params["current"], tags.params["engine"]) == ("213", "232")
    assert "variant" not in tags.params and tags.severity == "error"
    assert "trtexec --onnx=model.onnx --saveEngine=model.engine" in tags.hint
    jetson = only_in(_TRT_JETSON, "TENSORRT_ENGINE_VERSION_MISMATCH")
    assert (jetson.params["current"], jetson.params["engine"]) == ("0", "97")
    library = only_in(_TRT_LIBRARY, "TENSORRT_ENGINE_VERSION_MISMATCH")
    assert library.params["variant"] == "library"
    assert (library.params["installed"], library.params["built"]) == ("8.5.1.7", "8.5.3.1")
    assert "TensorRT 8.5.1.7" in library.message and "TensorRT 8.5.3.1" in library.message
    assert "trtexec" in library.hint
