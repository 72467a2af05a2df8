"""The WSL 2 route's own failures in logs (issue 39, point 6).

WSL 1 instead of 2, virtualization off, the WSL feature off, the distribution out of disk, the
virtual machine's memory limit, and the WSL forms of a Linux driver or libcuda that issue 39's
outside check found. The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where
each was posted; the outside check's logs say so, its misses included).
"""

from __future__ import annotations

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from harness.recorded_logs import codes, only, only_in, recorded

WSL1_KERNEL = "wsl1-no-gpu_kernel-headers-4.4.0-19041-nvidia-driver-440_wsl-5554.txt"
WSL1_LIST = "wsl1-no-gpu_wsl-l-v-version-1-set-version-spanish-powershell_wsl-7004.txt"


def test_wsl1_is_named_from_its_kernel_and_explains_the_gpu_failures_it_causes():
    # nvidia-smi failing after a Linux driver was installed in WSL 1: WSL 1 is the cause, not the
    # driver package (the WSL 2 finding for it is dropped).
    finding = only_in(WSL1_KERNEL, "WSL1_NO_GPU")
    assert finding.params["variant"] == "log" and finding.severity == "error"
    assert "4.4.0-19041-Microsoft" in finding.message
    assert "wsl --set-version <distro> 2" in finding.hint and "wsl --set-default-version 2" in finding.hint
    # TensorFlow without libcuda in WSL 1 (outside check): no driver to install, no LD_LIBRARY_PATH.
    only_in(
        "wsl1-no-gpu_tf-libcuda.so.1-proc-version-4.4.0-20150-microsoft_directml-18_partial.txt",
        "WSL1_NO_GPU",
    )


def test_a_wsl2_kernel_is_not_wsl1():
    log = recorded("wsl-memory-limit_oom-killer-killed-process-wsl2-kernel_wsl-10199.txt")
    assert "WSL1_NO_GPU" not in codes(log)
    assert "WSL1_NO_GPU" not in codes(
        "Linux DESKTOP 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux"
    )


def test_the_wsl1_distribution_of_wsl_l_v_is_named_in_the_command():
    finding = only_in(WSL1_LIST, "WSL1_NO_GPU")
    assert finding.params["variant"] == "distro" and finding.params["distro"] == "Ubuntu-20.04"
    assert "wsl --set-version Ubuntu-20.04 2" in finding.hint


def test_a_wsl1_distribution_beside_the_wsl2_one_in_use_is_no_failure():
    log = recorded(WSL1_LIST)
    header, default_row = log.splitlines()[1:3]
    # Docker Desktop's distributions are always WSL 2 and say nothing about the user's.
    docker = f"{header}\n{default_row}\n  docker-desktop  Running         2\n"
    assert codes(docker) == ["WSL1_NO_GPU"]
    # The default distribution is WSL 2; an old one kept as WSL 1 is not what runs the GPU work.
    beside = f"{header}\n* Ubuntu-24.04    Running         2\n{default_row.replace('*', ' ')}\n"
    assert codes(beside) == []
    # A row without the table's header is not read as one.
    assert codes(default_row) == []


@pytest.mark.parametrize(
    "name",
    [
        "wsl-virtualization-disabled_hcs-e-hyperv-not-installed-svm-off_wsl-11775.txt",
        "wsl-virtualization-disabled_install-ubuntu-24.04-wslregisterdistribution-0x80370102_wsl-12382.txt",
        "wsl-virtualization-disabled_old-message-wsl2-install-link_wsl-4930.txt",
        # Outside check: a newer wording, the older launcher's, and HCS_E_SERVICE_NOT_AVAILABLE.
        "wsl-virtualization-disabled_new-wording-to-enable-the-feature-run_wsl-12519.txt",
        "wsl-virtualization-disabled_0x80370102-required-feature-not-installed-win11_wsl-7638.txt",
        "wsl-virtualization-disabled_wslregisterdistribution-0x80370114-vmcompute_wsl-9338.txt",
        "wsl-virtualization-disabled_install-kali-after-wsl-update-fstab-errors_wsl-12638_partial.txt",
    ],
)
def test_virtualization_off_is_told_where_to_turn_it_on(name: str):
    finding = only_in(name, "WSL_VIRTUALIZATION_DISABLED")
    assert "firmware" in finding.hint and "SVM Mode" in finding.hint
    assert "wsl.exe --install --no-distribution" in finding.hint
    assert "bcdedit /set hypervisorlaunchtype Auto" in finding.hint


@pytest.mark.parametrize(
    "name",
    [
        "wsl-not-enabled_wslregisterdistribution-0x8007019e_wsl-docs-475.txt",
        # The launcher's translated sentence garbled: the number still tells.
        "wsl-not-enabled_arch-wsl-garbled-localized-text_arch-wsl-24.txt",
        "wsl-not-enabled_any-wsl-command-0x8007019e-or-msi-1603_wsl-10613.txt",
        "wsl-not-enabled_ubuntu-20.4-after-failed-feature-update_wsl-5182.txt",
        "wsl-not-enabled_enabled-by-optionalfeatures-exe-not-applied_wsl-6053.txt",
    ],
)
def test_the_wsl_feature_off_is_told_how_to_enable_it(name: str):
    finding = only_in(name, "WSL_NOT_ENABLED")
    assert "wsl.exe --install --no-distribution" in finding.hint
    assert "Microsoft-Windows-Subsystem-Linux" in finding.hint


def test_a_full_distribution_disk_is_told_how_to_grow_or_free_it():
    for name in (
        "wsl-disk-full_repo-sync-file-write-error-vhd-251g-full_wsl-4949.txt",
        "wsl-disk-full_aosp-build-go-lowercase-vhd-251g-full_wsl-10781_partial.txt",
        "wsl-disk-full_plato-ftruncate64-err-code-28-wsl-ubuntu_plato-60.txt",
    ):
        finding = only_in(name, "WSL_DISK_FULL")
        assert "variant" not in finding.params, name
        assert "df -h" in finding.hint and "wsl --manage <distro> --resize" in finding.hint
        assert "wsl --shutdown" in finding.hint and "uv cache clean" in finding.hint


def test_a_full_windows_drive_is_told_apart():
    export = only_in("wsl-disk-full_wsl-export-not-enough-space-0x80070070_wsl-10272.txt", "WSL_DISK_FULL")
    assert export.params["variant"] == "windows_drive" and "--move" in export.hint
    # A write that failed on a Windows drive mounted in WSL fills that drive, not the distribution's.
    line = recorded("wsl-disk-full_plato-ftruncate64-err-code-28-wsl-ubuntu_plato-60.txt").splitlines()[1]
    on_c = f"{line} (/mnt/c/Users/<user>/plato/.cache_test/)"
    assert only(on_c).params["variant"] == "windows_drive"


def test_a_full_disk_outside_wsl_is_not_claimed():
    log = recorded("wsl-disk-full_repo-sync-file-write-error-vhd-251g-full_wsl-4949.txt")
    without_wsl = (
        log.replace("WSL version: 2\n", "").replace("/mnt/wsl", "/run/x").replace("/mnt/c", "/media/c")
    )
    assert "WSL_DISK_FULL" not in codes(without_wsl)


@pytest.mark.parametrize(
    "name",
    [
        "wsl-memory-limit_oom-killer-killed-process-wsl2-kernel_wsl-10199.txt",
        "wsl-memory-limit_loading-pygmalion-6b-killed-in-wsl2_textgen-41.txt",
        # Outside check: zsh's lower-case "killed", Python's SIGKILL on a Windows drive's path.
        "wsl-memory-limit_zsh-killed-dream.py-loading-model-wsl_invokeai-342.txt",
        "wsl-memory-limit_webui-launch-died-with-sigkill-mnt-f_reforge-241.txt",
    ],
)
def test_a_killed_process_in_wsl_is_the_vms_memory_limit(name: str):
    finding = only_in(name, "WSL_MEMORY_LIMIT")
    assert "memory=" in finding.hint and "swap=" in finding.hint and "wsl --shutdown" in finding.hint
    assert "$env:USERPROFILE\\.wslconfig" in finding.hint and "%UserProfile%\\.wslconfig" in finding.hint
    assert "not the GPU's" in finding.hint


def test_a_killed_process_outside_wsl_stays_what_it_was():
    # A DataLoader worker killed on plain Linux: no finding, the error is quoted (as before issue 39).
    assert diagnose(recorded("negative_dataloader-killed-by-signal-native-linux-not-wsl_dcpdn-12.txt")) == []
    # The bare "Killed" of a log that does not show WSL (outside check: only the title said WSL).
    assert diagnose(recorded("wsl-memory-limit_localgpt-killed-no-wsl-in-log_localgpt-51.txt")) == []


def test_a_containers_own_memory_limit_and_the_gpus_memory_are_not_the_vms():
    kernel = "5.15.90.1-microsoft-standard-WSL2\n"
    cgroup = "Memory cgroup out of memory: Killed process 5017 (python3) total-vm:18109076kB"
    assert "WSL_MEMORY_LIMIT" not in codes(kernel + cgroup)
    gpu = kernel + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
    assert codes(gpu) == ["GPU_OUT_OF_MEMORY"]


def test_the_outside_checks_new_forms_of_a_linux_driver_and_libcuda_in_wsl():
    driver = only_in(
        "wsl-linux-driver-conflict_nvml-driver-not-loaded-wrong-libnvidia-ml-wsl2_modular-5107.txt",
        "WSL_LINUX_DRIVER_CONFLICT",
    )
    assert "variant" not in driver.params
    only_in(
        "wsl-linux-driver-conflict_couldnt-communicate-shut-down-nvml-driver-not-loaded_wsl-9134.txt",
        "WSL_LINUX_DRIVER_CONFLICT",
    )
    cudarc = only_in(
        "wsl-libcuda-not-found_cudarc-unable-to-find-cuda-lib-mistral.rs-wsl_cudarc-255.txt",
        "WSL_LIBCUDA_NOT_FOUND",
    )
    assert "/usr/lib/wsl/lib" in cudarc.hint
    only_in(
        "wsl-libcuda-not-found_cudf-importerror-libcuda.so.1-miniconda-wsl2_cudf-6191.txt",
        "WSL_LIBCUDA_NOT_FOUND",
    )
    # Without WSL in the log, the same words are no WSL finding.
    assert codes("ABORT: CUDA NVML library initialization failed: NVML_DRIVER_NOT_LOADED") == []
    assert (
        codes('Unable to find cuda lib under the names ["cuda", "nvcuda"]. Please open GitHub issue.') == []
    )


@pytest.mark.parametrize(
    ("log", "code"),
    [
        # Issue 39's outside check, fresh logs: the name written out is a sign of WSL...
        (
            "Fresh Windows Subsystem for Linux install of Ubuntu.\n"
            "OSError: libcuda.so: cannot open shared object file: No such file or directory\n",
            "WSL_LIBCUDA_NOT_FOUND",
        ),
        # ...a person's "WSL1" (microsoft/WSL#9099 style) and Docker Desktop's WSL 1 message
        # (AbdBarho/stable-diffusion-webui-docker#117) say WSL 1...
        (
            "I'm using WSL1 with Ubuntu 20.04\nNVIDIA-SMI has failed because it couldn't communicate "
            "with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n",
            "WSL1_NO_GPU",
        ),
        (
            "The command 'docker' could not be found in this WSL 1 distro.\n"
            "We recommend to convert this distro to WSL 2 and activate the WSL integration in Docker Desktop settings.\n",
            "WSL1_NO_GPU",
        ),
        # ...but a comparison of the two is no claim.
        (
            "Comparing WSL 1 and WSL 2 in WSL 2 now.\nNVIDIA-SMI has failed because it couldn't communicate "
            "with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running.\n",
            "WSL_LINUX_DRIVER_CONFLICT",
        ),
    ],
)
def test_fresh_forms_of_the_route_failures(log: str, code: str):
    assert [finding.code for finding in diagnose(log)] == [code]
