"""Diagnosis of the compilers around a GPU stack: nvcc's host compiler, CUDA_HOME, torch's CUDA check, Triton's ptxas and C compiler, PTX and the driver (issue 35, point 3).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, the values they read, the variants chosen from the whole log, and the suppressions.
"""

from __future__ import annotations

from gpuwizard.core.findings.diagnosis import DIAGNOSIS_CODES
from gpuwizard.core.findings.diagnosis_toolchains import TOOLCHAINS_PART, first_cuda_for, ptx_min_driver
from harness.recorded_logs import codes, only, only_in, recorded

_GCC = "host-compiler-unsupported_gcc13-cuda12.1-cmake-ubuntu24.04_instant-ngp-1562.txt"
_GCC_WRAPPED = "host-compiler-unsupported_gcc14-nvcc12.0-line-wrapped-email_darknet-129.txt"
_MSVC = "host-compiler-unsupported_msvc-cuda11.8-ms-deform-attn-windows_brushedit-17.txt"
_DEEPSPEED = "cuda-home-not-set_deepspeed-0.12.4-pip-metadata_chattts-enhanced-3.txt"
_FLASH = "cuda-home-not-set_flash-attn-nvcc-not-found-torch2.0.1-cu117_flash-attention-509.txt"
_MISMATCH = "extension-cuda-version-mismatch_cuda12.4-torch-cu118-make-sh_responsible-visual-editing-4.txt"
_MISMATCH_PIP = "extension-cuda-version-mismatch_pip-indented-cuda11.8-torch12.4_autoalign-25.txt"
_PTXAS_SPARK = "triton-ptxas-unsupported-gpu_sm121a-dgx-spark-torch2.10-cu130_triton-8539.txt"
_PTXAS_THOR = (
    "triton-ptxas-unsupported-gpu_ptxas-blackwell-sm110a-jetson-thor_triton-inference-server-8632.txt"
)
_PTXAS_5090 = "triton-ptxas-unsupported-gpu_sm120-rtx5090-inductor-log-prefixes_pytorch-148551_partial.txt"
_CC_WINDOWS = "triton-no-c-compiler_windows-cogvideox-venv-triton3.0_sageattention-7.txt"
_CC_LINUX = "triton-no-c-compiler_linux-trainer-triton3.0.0_ml-cross-entropy-5.txt"
_PTX_TRAK = "cuda-ptx-toolchain-too-new_fast-jl-cuda11.8-driver460_trak-68.txt"
_PTX_PWC = "cuda-ptx-toolchain-too-new_pwc-net-driver470-cuda11.8-prose_pwc-net-138.txt"
_PTX_PLAIN = "cuda-ptx-toolchain-too-new_diffvg-runtime-error-torch1.8.1_diffvg-84.txt"


def test_the_codes_are_in_the_contract_list():
    for code in TOOLCHAINS_PART.codes:
        assert code in DIAGNOSIS_CODES


def test_nvcc_refusing_gcc_names_the_newest_gcc_it_takes():
    for name in (_GCC, _GCC_WRAPPED):
        finding = only_in(name, "HOST_COMPILER_UNSUPPORTED")
        assert finding.params["variant"] == "gcc" and finding.params["limit"] == "12"
        assert "gcc-12 g++-12" in finding.hint and "NVCC_CCBIN=g++-12" in finding.hint
        assert "up to version 12" in finding.message
    # CONSTRUCTED line: the header's path names the CUDA release, which the message then names.
    versioned = only(
        "/usr/local/cuda-12.4/targets/x86_64-linux/include/crt/host_config.h:143:2: error: #error -- "
        "unsupported GNU version! gcc versions later than 13 are not supported!"
    )
    assert versioned.params["variant"] == "gcc_cuda" and versioned.params["cuda"] == "12.4"
    assert "CUDA 12.4 supports gcc up to version 13" in versioned.message


def test_nvcc_refusing_visual_studio_names_the_versions_and_the_cuda_release():
    finding = only_in(_MSVC, "HOST_COMPILER_UNSUPPORTED")
    assert finding.params["variant"] == "msvc_cuda"
    assert finding.params["supported"] == "2017 and 2022" and finding.params["cuda"] == "11.8"
    assert "CUDA 11.8" in finding.message and "vs_BuildTools.exe" in finding.hint
    # CONSTRUCTED from CUDA 9.1's wording of the same check, with a console's wrap before it.
    old = only(
        "fatal error C1189: #error:  -\n- unsupported Microsoft Visual Studio version! Only the versions "
        "2012, 2013, 2015 and 2017 are supported!"
    )
    assert old.params["variant"] == "msvc" and old.params["supported"] == "2012, 2013, 2015 and 2017"


def test_a_missing_toolkit_gives_the_cuda_of_the_torch_build_when_the_log_names_it():
    flash = only_in(_FLASH, "CUDA_HOME_NOT_SET")
    assert flash.params["variant"] == "cuda" and flash.params["cuda"] == "11.7"
    assert "export CUDA_HOME=/usr/local/cuda-11.7" in flash.hint and "cuda-toolkit=11.7" in flash.hint
    deepspeed = only_in(_DEEPSPEED, "CUDA_HOME_NOT_SET")
    assert "variant" not in deepspeed.params and "torch.version.cuda" in deepspeed.hint
    # CONSTRUCTED: the same error in a Windows build (a drive letter in the path).
    windows = only(
        'File "C:\\\\venv\\\\lib\\\\site-packages\\\\torch\\\\utils\\\\cpp_extension.py", line 2416\n'
        "OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root."
    )
    assert windows.params["variant"] == "windows" and "CUDA_PATH" in windows.hint
    assert "export" not in windows.hint


def test_the_cuda_version_mismatch_reads_both_versions_through_line_wraps():
    finding = only_in(_MISMATCH, "EXTENSION_CUDA_VERSION_MISMATCH")
    assert (finding.params["detected"], finding.params["torch_cuda"]) == ("12.4", "11.8")
    assert finding.params["variant"] == "index" and "download.pytorch.org/whl/cu124" in finding.hint
    assert "/usr/local/cuda-11.8" in finding.hint
    pip = only_in(_MISMATCH_PIP, "EXTENSION_CUDA_VERSION_MISMATCH")
    assert (pip.params["detected"], pip.params["torch_cuda"]) == ("11.8", "12.4")
    # CONSTRUCTED: a toolkit PyTorch publishes no build for: no index to name.
    odd = only(
        "The detected CUDA version (12.2) mismatches the version that was used to compile PyTorch (11.8)."
    )
    assert "variant" not in odd.params and "index-url" not in odd.hint
    # torch's warning for a minor difference (CONSTRUCTED from cpp_extension.py) is no finding.
    assert (
        codes(
            "UserWarning: The detected CUDA version (12.1) has a minor version mismatch with the version that "
            "was used to compile PyTorch (12.4). Most likely this shouldn't be a problem."
        )
        == []
    )


def test_tritons_ptxas_names_the_first_cuda_that_knows_the_gpu():
    rtx = only_in(_PTXAS_5090, "TRITON_PTXAS_UNSUPPORTED_GPU")
    assert rtx.params["variant"] == "triton_cuda" and rtx.params["sm"] == "sm_120"
    assert rtx.params["first_cuda"] == "12.8" and "whl/cu128" in rtx.hint and "TRITON_PTXAS_PATH" in rtx.hint
    thor = only_in(_PTXAS_THOR, "TRITON_PTXAS_UNSUPPORTED_GPU")
    assert thor.params["sm"] == "sm_110a" and thor.params["first_cuda"] == "13.0" and "whl/cu130" in thor.hint
    # sm_121 (DGX Spark) is in no table here: the hint points Triton at the newest ptxas.
    spark = only_in(_PTXAS_SPARK, "TRITON_PTXAS_UNSUPPORTED_GPU")
    assert spark.params["variant"] == "triton" and "TRITON_PTXAS_PATH=/usr/local/cuda/bin/ptxas" in spark.hint
    # CONSTRUCTED: the same refusal under nvcc, no Triton in the log: an old toolkit.
    toolkit = only("ptxas fatal   : Value 'sm_89' is not defined for option 'gpu-name'")
    assert toolkit.params["variant"] == "toolkit_cuda" and toolkit.params["first_cuda"] == "11.8"
    assert "TRITON" not in toolkit.hint


def test_pytorchs_own_architecture_warning_explains_the_ptxas_refusal():
    warning = (
        "NVIDIA GeForce RTX 5090 with CUDA capability sm_120 is not compatible with the current PyTorch "
        "installation.\n"
    )  # CONSTRUCTED from torch/cuda/__init__.py's wording
    assert codes(warning + recorded(_PTXAS_5090)) == ["GPU_ARCH_UNSUPPORTED"]


def test_no_c_compiler_gives_triton_windows_on_windows_and_gcc_elsewhere():
    windows = only_in(_CC_WINDOWS, "TRITON_NO_C_COMPILER")
    assert windows.params["variant"] == "windows"
    assert 'pip install -U "triton-windows<3.7"' in windows.hint and "pip uninstall triton" in windows.hint
    linux = only_in(_CC_LINUX, "TRITON_NO_C_COMPILER")
    assert "variant" not in linux.params and "build-essential" in linux.hint
    # With torch's version in a Windows log (CONSTRUCTED line), the matching triton-windows line.
    torch = only(recorded(_CC_WINDOWS) + "\ntorch 2.7.1+cu128\n")
    assert torch.params["variant"] == "windows_torch" and '"triton-windows<3.4"' in torch.hint


def test_ptx_from_a_newer_cuda_names_the_minimum_driver():
    trak = only_in(_PTX_TRAK, "CUDA_PTX_TOOLCHAIN_TOO_NEW")
    assert trak.params["variant"] == "driver"
    assert (trak.params["cuda"], trak.params["driver"], trak.params["min_driver"]) == (
        "11.8",
        "460.91.03",
        "520.61.05",
    )
    assert "520.61.05 or newer" in trak.hint and "460.91.03" in trak.hint
    pwc = only_in(_PTX_PWC, "CUDA_PTX_TOOLCHAIN_TOO_NEW")
    assert (pwc.params["cuda"], pwc.params["driver"]) == ("11.8", "470.223.02")
    plain = only_in(_PTX_PLAIN, "CUDA_PTX_TOOLCHAIN_TOO_NEW")
    assert "variant" not in plain.params and "gpuwizard detect" in plain.hint
    # The vendors' generic finding of the same error gives way (the llama.cpp log: "CUDA error 222").
    llama = only_in("vendor-cuda-error_llama.cpp-cuda-error-222-ptx_llama.cpp-1648.txt")
    assert llama.code == "CUDA_PTX_TOOLCHAIN_TOO_NEW"
    # CONSTRUCTED: a driver new enough for the CUDA named: the log does not show which CUDA made the PTX.
    newer = only(
        "CUDA error: the provided PTX was compiled with an unsupported toolchain.\n"
        "Cuda compilation tools, release 11.8, V11.8.89\nDriver Version: 535.104.05"
    )
    assert "variant" not in newer.params


def test_the_tables_behind_the_hints():
    assert ptx_min_driver("12.4", "linux") == "550.54.14"
    assert ptx_min_driver("12.8", "windows") == "570.65"
    assert ptx_min_driver("13.0", "windows") == "580"  # no Windows driver ships with CUDA 13: the R580 floor
    assert first_cuda_for("10.0") == "12.8" and first_cuda_for("9.0") == "11.8"


_GCC_HEADERS = "host-compiler-unsupported_gcc16-libstdcxx-headers-nvcc-cmake_llama.cpp-22714_partial.txt"
_LLVM_SM120 = "triton-ptxas-unsupported-gpu_llvm-sm120-unknown-make-cubin_rational-kat-cu-17.txt"
_LLVM_WARNING_ONLY = "negative_triton-llvm-sm120-warning-then-ptxas-compiles_triton-windows-59.txt"
_BUNDLED_PTXAS = "triton-ptxas-unsupported-gpu_bundled-ptxas-exit-255-sm120_fish-speech-907.txt"
_CAPABILITY_ASSERT = (
    "triton-ptxas-unsupported-gpu_compute-capability-assert-triton3.2-rtx5080_triton-6087.txt"
)
_LIBCUDA_GKE = "libcuda-not-linkable_triton-l-libcuda.so.1-gke-vllm_llm-d-1063_partial.txt"
_LIBCUDA_LCUDA = "libcuda-not-linkable_triton-lcuda-gcc-command_seg-zero-63.txt"


def test_nvcc_failing_in_a_newer_gccs_own_headers_names_that_gcc_and_the_one_before():
    found = only_in(_GCC_HEADERS, "HOST_COMPILER_UNSUPPORTED")
    assert found.params["variant"] == "headers" and found.params["gcc"] == "16"
    assert "export CC=gcc-15 CXX=g++-15 NVCC_CCBIN=g++-15" in found.hint
    # CONSTRUCTED: the same header error where no nvcc ran (GCC's own build) is not this.
    gcc_only = '/usr/include/c++/16.1.1/type_traits(3081): error: identifier "false_type" is undefined\n'
    assert "HOST_COMPILER_UNSUPPORTED" not in codes(gcc_only)
    # CONSTRUCTED: a mistake in the user's code, shown in the header where it was instantiated,
    # is not an unreadable header.
    user_bug = (
        "nvcc -c kernel.cu\n/usr/include/c++/13/bits/stl_vector.h(1125): error: no suitable "
        'constructor exists to convert from "int" to "Foo"\n'
    )
    assert "HOST_COMPILER_UNSUPPORTED" not in codes(user_bug)


def test_llvms_unknown_gpu_warning_counts_only_where_ptxas_then_fails():
    found = only_in(_LLVM_SM120, "TRITON_PTXAS_UNSUPPORTED_GPU")
    assert found.params["sm"] == "sm_120" and found.params["variant"] == "triton_cuda"
    assert codes(recorded(_LLVM_WARNING_ONLY)) == []
    bundled = only_in(_BUNDLED_PTXAS, "TRITON_PTXAS_UNSUPPORTED_GPU")
    assert bundled.params["sm"] == "sm_120" and "whl/cu128" in bundled.hint
    # CONSTRUCTED: Triton's bundled ptxas failing on an architecture every ptxas knows is another failure.
    older = (
        "subprocess.CalledProcessError: Command '['/venv/site-packages/triton/backends/nvidia/bin/ptxas', "
        "'--gpu-name=sm_86', '/tmp/a.ptx']' returned non-zero exit status 255.\n"
    )
    assert "TRITON_PTXAS_UNSUPPORTED_GPU" not in codes(older)


def test_tritons_assertion_on_the_compute_capability_asks_for_a_newer_triton():
    found = only_in(_CAPABILITY_ASSERT, "TRITON_PTXAS_UNSUPPORTED_GPU")
    assert found.params["variant"] == "triton_capability" and "whl/cu128" in found.hint


def test_the_linker_not_finding_libcuda_points_triton_at_the_drivers_folder():
    gke = only_in(_LIBCUDA_GKE, "LIBCUDA_NOT_LINKABLE")
    assert gke.params["flag"] == "-l:libcuda.so.1" and "TRITON_LIBCUDA_PATH" in gke.hint
    plain = only_in(_LIBCUDA_LCUDA, "LIBCUDA_NOT_LINKABLE")
    assert plain.params["flag"] == "-lcuda" and "variant" not in plain.params
    # CONSTRUCTED: in WSL 2 the folder is known.
    wsl = only(recorded(_LIBCUDA_LCUDA) + "\nLinux 5.15.167.4-microsoft-standard-WSL2\n")
    assert wsl.params["variant"] == "wsl" and "TRITON_LIBCUDA_PATH=/usr/lib/wsl/lib" in wsl.hint
    # -lcudart is the toolkit's runtime, another problem.
    assert "LIBCUDA_NOT_LINKABLE" not in codes("/usr/bin/ld: cannot find -lcudart\n")  # CONSTRUCTED


def test_cmake_finding_no_cuda_compiler_asks_for_nvcc_on_path_or_named():
    found = only_in(
        "cuda-home-not-set_cmake-no-cuda-compiler-llama.cpp-ubuntu_llama.cpp-13527_partial.txt",
        "CUDA_HOME_NOT_SET",
    )
    assert (
        found.params["variant"] == "cmake" and "-DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc" in found.hint
    )
