"""Diagnosis of the machine under a framework: the open kernel module on old GPUs, WSL 2's libcuda, Docker without a GPU, conda's virtual packages (issue 35).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, the values and variants read from the whole log, and the wrong findings they replace.
"""

from __future__ import annotations

from gpuwizard.core.findings.diagnosis import DIAGNOSIS_CODES
from gpuwizard.core.findings.diagnosis_hosts import HOSTS_PART
from harness.recorded_logs import codes, only, only_in, recorded

_GT1030 = "open-kernel-module-unsupported-gpu_gt1030-560.31-journal_negativo17-nvidia-driver-158.txt"
_TESLA_P4 = "open-kernel-module-unsupported-gpu_tesla-p4-r580-nvidia-smi-no-devices-dmesg_truenas-nvidia-drivers-20_partial.txt"
_POP = "open-kernel-module-unsupported-gpu_gtx1050-mobile-580-open-quoted-fragment_pop-3859.txt"
_CUML = "wsl-linux-driver-conflict_numba-cuinit-no-device-mnt-c-venv_cuml-6218_partial.txt"
_CANDLE = "wsl-linux-driver-conflict_candle-driver-error-no-device-ubuntu-wsl2_candle-2282.txt"
_AIXCL = "docker-no-nvidia-gpu_windows11-no-dedicated-gpu-no-adapters_aixcl-142.txt"
_GROUNDED = (
    "docker-no-nvidia-gpu_nividia-typo-wsl2-laptop-without-nvidia-card_grounded-segment-anything-506.txt"
)
_INTEL_XE = "docker-no-nvidia-gpu_could-not-select-ubuntu-intel-xe-graphics_stable-diffusion-docker-82.txt"
_PIXI = "conda-cuda-virtual-package_pixi-no-gpu-ci-override-hint_ftw-baselines-117.txt"
_LIBMAMBA = (
    "conda-cuda-virtual-package_libmamba-jaxlib-nothing-provides-cuda-missing_alphapulldownsnakemake-28.txt"
)
_RATTLER = "conda-cuda-virtual-package_pixi-jaxlib-cuda12-no-candidates_pixi-1288.txt"
_RERUN = "glibc-too-old_pip-rerun-sdk-versions-none-centos7-glibc-2.17-manylinux-2.31_rerun-2628.txt"


def test_the_open_module_on_a_gpu_before_turing_names_the_gpu_and_the_proprietary_module():
    gt1030 = only_in(_GT1030, "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU")
    assert gt1030.params["variant"] == "gpu_named" and gt1030.params["pci_device"] == "1d01"
    assert (gt1030.params["gpu"], gt1030.params["architecture"]) == ("GT 1030", "Pascal")
    assert "nvidia-driver-580" in gt1030.hint and "-m=kernel" in gt1030.hint
    assert "not nvidia-driver-580-open" in gt1030.hint and "kernel.conf" in gt1030.hint

    # lspci's chip name says the architecture; nvidia-smi's "No devices found" is not a second finding.
    tesla = only_in(_TESLA_P4, "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU")
    assert (tesla.params["gpu"], tesla.params["architecture"]) == ("Tesla P4", "Pascal")
    # One quoted line of the kernel's message is enough.
    pop = only_in(_POP, "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU")
    assert pop.params["gpu"] == "GeForce GTX 1050 Mobile"


def test_the_open_module_explains_what_nvidia_smi_and_pytorch_then_say():
    # CONSTRUCTED lines: the kernel's message with nvidia-smi's and PyTorch's usual words after it.
    text = (
        "NVRM: nvidia.ko because it does not include the required GPU\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
        "RuntimeError: Found no NVIDIA driver on your system.\n"
    )
    finding = only(text)
    assert finding.code == "OPEN_KERNEL_MODULE_UNSUPPORTED_GPU" and "variant" not in finding.params
    assert "Maxwell, Pascal or Volta" in finding.message


def test_no_device_in_wsl_is_the_libcuda_loaded_not_cuda_visible_devices():
    for name in (_CUML, _CANDLE):
        finding = only_in(name, "WSL_LINUX_DRIVER_CONFLICT")
        assert finding.params["variant"] == "libcuda", name
        assert "/usr/lib/wsl/lib" in finding.hint and "LD_LIBRARY_PATH" in finding.hint
        assert "CUDA_VISIBLE_DEVICES" not in finding.hint
    # Without WSL in the log, the same words are the device list's finding.
    [error_line] = [line for line in recorded(_CANDLE).splitlines() if "CUDA_ERROR_NO_DEVICE" in line]
    assert codes(error_line) == ["CUDA_DEVICE_NOT_VISIBLE"]
    # CONSTRUCTED line: a WSL log that sets CUDA_VISIBLE_DEVICES keeps the device finding.
    hidden = recorded(_CANDLE) + "\nexport CUDA_VISIBLE_DEVICES=\n"
    assert codes(hidden) == ["CUDA_DEVICE_NOT_VISIBLE"]


def test_nvidia_smi_failing_in_wsl_keeps_the_linux_driver_text():
    finding = only_in("wsl-linux-driver-conflict_nvidia-utils-510-gpu-access-blocked_wsl-9166.txt")
    assert finding.code == "WSL_LINUX_DRIVER_CONFLICT" and "variant" not in finding.params


def test_docker_without_an_nvidia_gpu_is_not_told_to_reinstall_the_toolkit():
    for name in (_AIXCL, _GROUNDED, _INTEL_XE):
        finding = only_in(name, "DOCKER_NO_NVIDIA_GPU")
        assert finding.params["variant"] == "other_gpu", name
        assert "--gpus all" in finding.hint and "CPU" in finding.hint
        assert "nvidia-ctk" not in finding.hint
    # CONSTRUCTED line: the adapters message alone may be a driver WSL 2 does not see: both causes.
    plain = only(
        "nvidia-container-cli: initialization error: WSL environment detected but no adapters were found"
    )
    assert plain.code == "DOCKER_NO_NVIDIA_GPU" and "variant" not in plain.params
    assert "wsl --update" in plain.hint and "without '--gpus all'" in plain.hint
    # Docker's "could not select" with an NVIDIA GPU in the log stays the toolkit's finding.
    assert codes(recorded("docker-no-gpu-runtime_compose-rocky8.7_sd-webui-docker-423.txt")) == [
        "DOCKER_NO_GPU_RUNTIME"
    ]


def test_conda_cuda_virtual_package_missing_names_the_override():
    for name in (_PIXI, _LIBMAMBA, _RATTLER):
        finding = only_in(name, "CONDA_CUDA_VIRTUAL_PACKAGE")
        assert "variant" not in finding.params, name
        assert "CONDA_OVERRIDE_CUDA=" in finding.hint and "manage-virtual.html" in finding.hint


def test_conda_cuda_virtual_package_too_old_names_the_driver():
    # CONSTRUCTED line in rattler's (pixi's) form.
    text = (
        "Virtual package '__cuda >=12.1' does not match any of the available virtual packages on your"
        " machine: [__cuda=11.4=0, __glibc=2.35=0]"
    )
    finding = only(text)
    assert finding.code == "CONDA_CUDA_VIRTUAL_PACKAGE" and finding.params["variant"] == "too_old"
    assert (finding.params["required"], finding.params["found"]) == ("12.1", "11.4")
    assert "Update the NVIDIA driver" in finding.hint
    # CONSTRUCTED line: the same solver failure on a Mac.
    mac = only("platform : osx-arm64\n  - nothing provides __cuda needed by pytorch-2.1.0-cuda118py310")
    assert mac.params["variant"] == "macos"


def test_glibc_too_old_reads_both_versions_and_ignores_a_satisfied_requirement():
    pip = only_in(_RERUN, "GLIBC_TOO_OLD")
    assert pip.params["variant"] == "pip"
    assert (pip.params["required"], pip.params["found"]) == ("2.31", "2.17")
    # CONSTRUCTED lines: rattler's and libmamba's __glibc.
    pixi = only(
        "Virtual package '__glibc >=2.28' does not match any of the available virtual packages on your machine: [__glibc=2.17=0, __unix=0=0]"
    )
    assert pixi.params["variant"] == "conda" and pixi.params["found"] == "2.17"
    mamba = only("└─ __glibc >=2.39,<3.0.a0 *, which is missing on the system.")
    assert mamba.params["variant"] == "conda_unknown" and mamba.params["required"] == "2.39"
    # conda's misleading report (conda/conda#12489): 2.31 satisfies >=2.17, so glibc is not the cause.
    assert "GLIBC_TOO_OLD" not in codes(
        "  - feature:/linux-64::__glibc==2.31=0\n"  # CONSTRUCTED, as in conda/conda#12489
        "  - python=3.10 -> libgcc-ng[version='>=11.2.0'] -> __glibc[version='>=2.17']\n"
    )


def test_a_cuda_package_on_macos_replaces_no_matching_distribution():
    cublas = only_in("cuda-package-on-macos_pip-nvidia-cublas-cu12-m2-sonoma_pokemonredexperiments-195.txt")
    assert (
        cublas.code == "CUDA_PACKAGE_ON_MACOS" and "nvidia-cublas-cu12==12.4.5.8" in cublas.params["packages"]
    )
    torch = only_in(
        "cuda-package-on-macos_pip-torch-2.1.2-cu118-mac-m1_stablecascade-23.txt", "CUDA_PACKAGE_ON_MACOS"
    )
    assert "+cuXXX" in torch.hint and "mps" in torch.hint
    only_in(
        "cuda-package-on-macos_uv-nvidia-cuda-cccl-macosx-arm64-tag_maxdiffusion-393.txt",
        "CUDA_PACKAGE_ON_MACOS",
    )
    # The same pip lines on Linux (CONSTRUCTED): the installer's own finding.
    linux = (
        "ERROR: No matching distribution found for nvidia-cublas-cu12==12.4.5.8 (from versions: 0.0.1.dev5)"
    )
    assert codes(linux) == ["NO_MATCHING_DISTRIBUTION"]


def test_healthy_virtual_package_lists_give_nothing():
    assert codes(recorded("negative_conda-info-virtual-packages-cuda12.1-glibc2.31_conda-12489.txt")) == []


def test_the_codes_this_part_suppresses_exist():
    for code, others in HOSTS_PART.suppresses.items():
        assert code in DIAGNOSIS_CODES, code
        for other in others:
            assert other in DIAGNOSIS_CODES, (code, other)


def test_an_old_libstdcxx_names_the_symbol_version_and_the_gcc_that_brought_it():
    found = only_in(
        "libstdcxx-too-old_glibcxx-3.4.30-conda-libtorch-python_pytorch-157709.txt", "LIBSTDCXX_TOO_OLD"
    )
    assert (found.params["needed"], found.params["gcc"]) == ("GLIBCXX_3.4.30", "12.1")
    assert "conda install -c conda-forge libstdcxx-ng" in found.hint
    # CONSTRUCTED: a symbol version the table does not know names no GCC, so no finding.
    unknown = "/usr/lib/libstdc++.so.6: version `GLIBCXX_3.4.99' not found (required by ./app)\n"
    assert "LIBSTDCXX_TOO_OLD" not in codes(unknown)
