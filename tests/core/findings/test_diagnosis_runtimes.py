"""Diagnosis of JAX, ONNX Runtime and mixed CUDA libraries (issue 22).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, the versions they read, and how they are matched. Lines marked CONSTRUCTED are not real
logs: they vary a real message to test one rule.
"""

from __future__ import annotations

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from harness.recorded_logs import codes, only_in, recorded

# --- JAX ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "variant", "component", "found", "built"),
    [
        (
            "jax-cuda-backend-failed_cudnn-8600-vs-8906_gcbfplus-1.txt",
            "cudnn_version",
            "cuDNN",
            "8.6.0",
            "8.9.6",
        ),
        (
            "jax-cuda-backend-failed_conda-forge-outdated-cudnn-8907-min-9100_jax-feedstock-149.txt",
            "cudnn_version",
            "cuDNN",
            "8.9.7",
            "9.1.0",
        ),
        (
            "jax-cuda-backend-failed_pixi-backend-cuda-outdated-cudnn_pixi-dev-scipystack-1.txt",
            "cudnn_version",
            "cuDNN",
            "8.9.7",
            "9.1.0",
        ),
        (
            "jax-cuda-backend-failed_colab-cuda-12010-vs-12020_rfdiffusion-208.txt",
            "cuda_version",
            "CUDA",
            "12.1",
            "12.2",
        ),
        (
            "jax-cuda-backend-failed_cublas-120205-vs-120304-pip-wheels_jax-18027.txt",
            "cuda_version",
            "cuBLAS",
            "12.2.5",
            "12.3.4",
        ),
    ],
)
def test_jax_version_mismatches_read_both_versions(
    name: str, variant: str, component: str, found: str, built: str
):
    finding = only_in(name, "JAX_CUDA_BACKEND_FAILED")
    assert finding.severity == "error"
    assert finding.params["variant"] == variant
    assert (finding.params["component"], finding.params["found"], finding.params["built"]) == (
        component,
        found,
        built,
    )
    assert f"{component} {built} or newer" in finding.message and found in finding.message
    assert "LD_LIBRARY_PATH" in finding.hint and "jax[cuda12]" in finding.hint
    if variant == "cudnn_version":
        assert f"nvidia-cudnn-cu12>={built}" in finding.hint


def test_jax_plugin_and_jaxlib_mismatches_name_the_release_rule():
    plugin = only_in(
        "jax-cuda-backend-failed_pjrt-plugin-api-0.54-vs-0.51_jax-22416.txt", "JAX_CUDA_BACKEND_FAILED"
    )
    assert plugin.params["variant"] == "plugin_version"
    assert (plugin.params["plugin_api"], plugin.params["framework_api"]) == ("0.54", "0.51")
    assert "jax-cuda12-plugin" in plugin.hint and "same release" in plugin.hint
    jaxlib = only_in(
        "jax-cuda-backend-failed_jaxlib-0.5.1-newer-than-jax-0.3.25_making-it-rain-140.txt",
        "JAX_CUDA_BACKEND_FAILED",
    )
    assert jaxlib.params["variant"] == "jaxlib_version"
    assert (jaxlib.params["jaxlib"], jaxlib.params["jax"]) == ("0.5.1", "0.3.25")
    assert "jaxlib 0.5.1 does not fit jax 0.3.25" in jaxlib.message


def test_an_unknown_jax_backend_reason_gets_the_general_advice():
    # CONSTRUCTED: the backend's failure with a reason no signature knows.
    [finding] = diagnose("CUDA backend failed to initialize: some new reason (Set TF_CPP_MIN_LOG_LEVEL=0)")
    assert finding.code == "JAX_CUDA_BACKEND_FAILED" and "variant" not in finding.params
    assert finding.params["reason"].startswith("some new reason")
    assert 'pip install -U "jax[cuda12]"' in finding.hint


def test_jax_without_cuda_is_a_warning_with_the_install_command():
    for name in (
        "jax-cuda-not-installed_jax0.6.1-warning-then-killed_whisper-jax-211.txt",
        "jax-cuda-not-installed_readme-example_dire-jax-14.txt",
    ):
        finding = only_in(name, "JAX_CUDA_NOT_INSTALLED")
        assert finding.severity == "warning"
        assert 'pip install -U "jax[cuda12]"' in finding.hint and "WSL 2" in finding.hint
    # CONSTRUCTED: the same warning in lower case, as some projects print it (JaxMARL#134).
    lower = "an nvidia gpu may be present on this machine, but a cuda-enabled jaxlib is not installed."
    assert [f.code for f in diagnose(lower)] == ["JAX_CUDA_NOT_INSTALLED"]


def test_jax_cudnn_load_failure_replaces_the_general_backend_finding():
    for name in (
        "jax-cudnn-load-failed_jax0.4.25-cuda12-pip_jax-20519.txt",
        "jax-cudnn-load-failed_poetry-jax0.4.24-cuda12-pip-cpu-device_turbozero-19.txt",
    ):
        finding = only_in(name, "JAX_CUDNN_LOAD_FAILED")
        assert finding.severity == "error"
        assert "unset LD_LIBRARY_PATH" in finding.hint
        assert "https://docs.jax.dev/en/latest/installation.html" in finding.hint
        assert "nvidia-cudnn-cu12" in finding.hint


# --- ONNX Runtime ------------------------------------------------------------------------------


def test_onnxruntime_names_the_cuda_and_cudnn_its_build_needs():
    windows = only_in(
        "onnxruntime-cuda-unavailable_win-error-126-cuda12-cudnn9_onnxruntime-21825.txt",
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
    )
    assert windows.severity == "warning"  # it goes on, on the CPU
    assert windows.params["variant"] == "requirements"
    assert (windows.params["cuda"], windows.params["cudnn"], windows.params["error"]) == ("12", "9", "126")
    assert "CUDA 12.x and cuDNN 9.x" in windows.message
    assert "onnxruntime-gpu[cuda,cudnn]" in windows.hint and "preload_dlls" in windows.hint
    # The Windows text around error 126 arrived garbled; the number and the DLL names still tell.
    garbled = only_in(
        "onnxruntime-cuda-unavailable_win-error-126-garbled-chinese-cuda13-cudnn64_9_hivisionidphotos-279.txt",
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
    )
    assert (garbled.params["cuda"], garbled.params["missing"], garbled.params["error"]) == (
        "13",
        "cudnn64_9.dll",
        "126",
    )


def test_onnxruntime_load_errors_are_matched_by_number_in_any_language():
    # CONSTRUCTED: the LoadLibrary line with German Windows text and no requirements line.
    german = (
        "[E:onnxruntime:Default, provider_bridge_ort.cc:1992 onnxruntime::TryGetProviderInfo_CUDA] "
        'LoadLibrary failed with error 126 "Das angegebene Modul wurde nicht gefunden." when trying '
        'to load "C:\\venv\\Lib\\site-packages\\onnxruntime\\capi\\onnxruntime_providers_cuda.dll"'
    )
    [finding] = diagnose(german)
    assert finding.code == "ONNXRUNTIME_CUDA_UNAVAILABLE" and finding.params["error"] == "126"
    assert "variant" not in finding.params


def test_onnxruntime_missing_library_suppresses_the_generic_dll_finding():
    log = recorded("onnxruntime-cuda-unavailable_linux-cuda11-build-libcublasLt.so.11_step-audio-127.txt")
    [finding] = diagnose(log)
    assert finding.code == "ONNXRUNTIME_CUDA_UNAVAILABLE"
    assert finding.params["variant"] == "missing" and finding.params["missing"] == "libcublasLt.so.11"
    assert "CUDA 11" in finding.hint and "pip install -U onnxruntime-gpu" in finding.hint
    # The loader's line alone (no ONNX Runtime words) is still the generic missing library.
    alone = "OSError: libcublasLt.so.11: cannot open shared object file: No such file or directory"
    assert [f.code for f in diagnose(alone)] == ["DLL_NOT_FOUND"]


def test_the_cpu_only_onnxruntime_package_is_named():
    finding = only_in(
        "onnxruntime-cuda-unavailable_cpu-package-azure-and-cpu-providers_latentsync-225.txt",
        "ONNXRUNTIME_CUDA_UNAVAILABLE",
    )
    assert finding.params["variant"] == "cpu_package" and finding.severity == "warning"
    assert finding.params["available"] == "AzureExecutionProvider, CPUExecutionProvider"
    assert "pip uninstall -y onnxruntime onnxruntime-gpu" in finding.hint
    # CONSTRUCTED: a provider list that has CUDA is not this problem.
    with_cuda = (
        "UserWarning: Specified provider 'CUDAExecutionProvider' is not in available provider names."
        "Available providers: 'TensorrtExecutionProvider, CUDAExecutionProvider, CPUExecutionProvider'"
    )
    assert diagnose(with_cuda) == []


# --- several CUDA runtimes in one process ------------------------------------------------------


def test_torch_with_an_older_nvjitlink_names_the_release_it_needs():
    finding = only_in(
        "cuda-libraries-mixed_torch2.5-dev-cu124-nvjitlink-12_4_pytorch-131312.txt", "CUDA_LIBRARIES_MIXED"
    )
    assert finding.severity == "error" and finding.params["variant"] == "nvjitlink"
    assert (finding.params["library"], finding.params["provider"], finding.params["needed"]) == (
        "libcusparse.so.12",
        "libnvJitLink.so.12",
        "12.4",
    )
    assert "Unset LD_LIBRARY_PATH" in finding.hint and "nvidia-nvjitlink-cu12>=12.4" in finding.hint
    # CONSTRUCTED: the 2023 form of the same error (pytorch/pytorch#111469's title).
    title = (
        "ImportError: /usr/local/lib/python3.10/dist-packages/torch/lib/../../nvidia/cusparse/lib/"
        "libcusparse.so.12: undefined symbol: __nvJitLinkAddData_12_1, version libnvJitLink.so.12"
    )
    [old] = diagnose(title)
    assert old.params["needed"] == "12.1"


def test_two_cudnn_installations_are_named_with_the_folder_of_the_odd_one():
    system = only_in(
        "cuda-libraries-mixed_system-cudnn8-cnn-infer-undefined-symbol_dust3r-198.txt", "CUDA_LIBRARIES_MIXED"
    )
    assert system.params["variant"] == "cudnn"
    assert system.params["library"] == "libcudnn_cnn_infer.so.8"
    assert system.params["folder"] == "/usr/lib/x86_64-linux-gnu"
    assert "libcudnn8" in system.hint and "separate environments" in system.hint
    relocation = only_in(
        "cuda-libraries-mixed_cudnn8-relocation-error-markdown-bold_pdf-extract-kit-57.txt",
        "CUDA_LIBRARIES_MIXED",
    )
    assert relocation.params["variant"] == "cudnn"
    assert relocation.params["provider"] == "libcudnn_ops_infer.so.8"


def test_cublaslt_that_cannot_be_loaded_is_an_error():
    finding = only_in(
        "cuda-libraries-mixed_cublaslt-invalid-handle-paddle_paddleocr-16512_partial.txt",
        "CUDA_LIBRARIES_MIXED",
    )
    assert finding.severity == "error" and finding.params["variant"] == "cublaslt"
    assert finding.params["symbol"] == "cublasLtCreate"


def test_an_optional_cublas_function_is_only_a_note():
    for name, library in (
        (
            "cuda-optional-symbol-missing_tf-cublasGetSmCountTarget-cuda11.2_medaka-472.txt",
            "libcublas.so.11",
        ),
        (
            "cuda-optional-symbol-missing_win-cublas64_11-error-127-torchvision-warnings_easyocr-833.txt",
            "cublas64_11.dll",
        ),
    ):
        # The loader's "undefined symbol" in the same line is the probe's, not a broken library.
        finding = only_in(name, "CUDA_OPTIONAL_SYMBOL_MISSING")
        assert finding.severity == "info"
        assert (finding.params["symbol"], finding.params["library"]) == ("cublasGetSmCountTarget", library)


def test_undefined_symbols_outside_the_cuda_stack_are_not_this_problem():
    # CONSTRUCTED lines: a non-CUDA library, and TensorFlow's own cuDNN version check (which
    # stays CUDNN_VERSION_MISMATCH).
    assert (
        diagnose("ImportError: /usr/lib/libfoo.so.1: undefined symbol: bar_init, version libbar.so.2") == []
    )
    tf = "Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0."
    assert [f.code for f in diagnose(tf)] == ["CUDNN_VERSION_MISMATCH"]


@pytest.mark.timeout(60, method="thread")
@pytest.mark.parametrize(
    "text",
    [
        "x" * 200_000 + "libcudnn.so.8: undefined symbol: a, version libcudnn_ops.so.8",
        "onnxruntime_providers_cuda.dll" * 20_000,
        "LoadLibrary failed with error 126 " + "y" * 200_000,
        "Found cuDNN version 1" * 20_000,
    ],
)
def test_long_adversarial_lines_are_read_in_reasonable_time(text: str):
    diagnose(text)


def test_windows_procedure_not_found_on_a_cuda_dll_is_matched_by_number_in_any_language():
    french = recorded("cuda-libraries-mixed_win-error-127-french-torch-cudnn_adv_infer64_8_kohya-ss-486.txt")
    [finding] = diagnose(french)  # not TORCH_DLL_LOAD_FAILED's generic advice
    assert finding.code == "CUDA_LIBRARIES_MIXED" and finding.params["variant"] == "windows"
    assert finding.params["library"] == "cudnn_adv_infer64_8.dll"
    assert "PATH" in finding.hint and "System32" in finding.hint
    paddle = only_in(
        "cuda-libraries-mixed_win-error-127-paddle-wheel-cudnn_cnn64_9-and-toolkit_paddle-75939.txt",
        "CUDA_LIBRARIES_MIXED",
    )
    assert paddle.params["library"] == "cudnn_cnn64_9.dll"
    # Another error number on the same DLL (126, module not found) stays torch's DLL finding.
    missing = french.replace("[WinError 127] La procédure spécifiée est introuvable.", "[WinError 126]")
    assert [f.code for f in diagnose(missing)] == ["TORCH_DLL_LOAD_FAILED"]
    # 127 on a DLL outside the CUDA stack is not this problem.
    fbgemm = french.replace("cudnn_adv_infer64_8.dll", "fbgemm.dll")
    assert [f.code for f in diagnose(fbgemm)] == ["TORCH_DLL_LOAD_FAILED"]


def test_a_jax_cuda_plugin_from_another_release_is_named():
    for name, error in (
        (
            "jax-cuda-backend-failed_plugin-initialize-attributeerror-triton_torax-1369.txt",
            "AttributeError: ",
        ),
        ("jax-cuda-backend-failed_plugin-module-not-loaded-importerror-triton_thera-7.txt", "ImportError: "),
    ):
        finding = only_in(name, "JAX_CUDA_BACKEND_FAILED")
        assert finding.params["variant"] == "plugin_mismatch"
        assert str(finding.params["plugin_error"]).startswith(error)
        assert "jax[cuda12]==VERSION" in finding.hint
    # CONSTRUCTED from epaillas/acm#152: the plugin failing because this node has no GPU is not
    # a release mismatch (another finding explains a missing device).
    no_device = (
        "Jax plugin configuration error: Exception when calling jax_plugins.xla_cuda12.initialize()\n"
        "Traceback (most recent call last):\n"
        "RuntimeError: jaxlib/cuda/versions_helpers.cc:113: operation cuInit(0) failed: CUDA_ERROR_NO_DEVICE"
    )
    assert "JAX_CUDA_BACKEND_FAILED" not in {f.code for f in diagnose(no_device)}


def test_cublas_with_another_cublaslt_gets_the_general_mixed_libraries_advice():
    for name, symbol in (
        (
            "cuda-libraries-mixed_torch1.13-wheel-cublas-with-other-cublaslt_gail-pytorch-5_partial.txt",
            "cublasLtGetStatusString",
        ),
        (
            "cuda-libraries-mixed_pip-cublas-symbol-version-no-comma_colossalai-4059.txt",
            "cublasLtHSHMatmulAlgoInit",
        ),
    ):
        finding = only_in(name, "CUDA_LIBRARIES_MIXED")
        assert "variant" not in finding.params and finding.severity == "error"
        assert (finding.params["library"], finding.params["provider"], finding.params["symbol"]) == (
            "libcublas.so.11",
            "libcublasLt.so.11",
            symbol,
        )
        assert "unset LD_LIBRARY_PATH" in finding.hint and "separate environments" in finding.hint


def test_cupy_without_cudas_nvrtc_names_the_cuda_major_it_needs():
    dll = only_in(
        "cupy-nvrtc-not-found_nvrtc64-120-dll-comfyui_comfyui-gimm-vfi-17.txt", "CUPY_NVRTC_NOT_FOUND"
    )
    assert (dll.params["library"], dll.params["cuda"]) == ("nvrtc64_120_0.dll", "12")
    assert "Install CUDA Toolkit 12" in dll.hint and "conda install -c conda-forge cupy" in dll.hint
    builtins = only_in(
        "cupy-nvrtc-not-found_builtin-operation-failure-windows-no-toolkit_cutile-python-57_partial.txt",
        "CUPY_NVRTC_NOT_FOUND",
    )
    assert builtins.params["variant"] == "builtins"


def test_jax_not_loading_a_cuda_library_names_it_and_its_wheel_not_a_missing_jaxlib():
    found = only_in(
        "jax-cuda-library-not-loaded_cusparse-hpc-sdk-ld-library-path_jax-30050_partial.txt",
        "JAX_CUDA_LIBRARY_NOT_LOADED",
    )
    assert (found.params["library"], found.params["wheel"]) == ("cuSPARSE", "nvidia-cusparse-cu12")
    assert "unset LD_LIBRARY_PATH LD_PRELOAD" in found.hint
    helper = only_in(
        "jax-cuda-library-not-loaded_cusparse-not-found-cluster-ld-preload_cryojax-559_partial.txt",
        "JAX_CUDA_LIBRARY_NOT_LOADED",
    )
    assert helper.params["library"] == "cuSPARSE"


def test_a_driver_function_missing_is_a_driver_too_old_not_mixed_libraries():
    found = only_in(
        "driver-too-old_undefined-cugreenctxstreamcreate-sgl-kernel_sglang-8131.txt", "DRIVER_TOO_OLD"
    )
    assert (found.params["variant"], found.params["symbol"]) == ("symbol", "cuGreenCtxStreamCreate")
    # CONSTRUCTED: a library's own function (cublas..., lower case after "cu") stays mixed libraries.
    mixed = "ImportError: /x/libcusolver.so.11: undefined symbol: cublasSetEnvironmentMode, version libcublas.so.12\n"
    assert codes(mixed) == ["CUDA_LIBRARIES_MIXED"]
