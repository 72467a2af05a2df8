"""Diagnosis of GPUs in containers, Kubernetes and WSL 2 (issue 22).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, which variant a log gets, and that WSL findings need WSL in the log.
"""

from __future__ import annotations

from gpuwizard.core.findings.diagnosis import diagnose
from harness.recorded_logs import RECORDED, codes, only, recorded


def test_a_container_started_without_the_gpu_is_told_to_use_gpus_all():
    for name in (
        "container-started-without-gpu_ngc-cuda11.1-docker-run-no-gpus-flag_panopticseg-20.txt",
        "container-started-without-gpu_docker-desktop-chinese-timestamps_duix-avatar-221.txt",
    ):
        finding = only(recorded(name))
        assert finding.code == "CONTAINER_STARTED_WITHOUT_GPU" and finding.severity == "error"
        assert "--gpus all" in finding.hint
        assert "reservations" in finding.hint and "capabilities: [gpu]" in finding.hint
    # Real banner of older NGC images (NVIDIA/nvidia-docker#1071), which named nvidia-docker.
    old = (
        "WARNING: The NVIDIA Driver was not detected.  GPU functionality will not be available.\n"
        "   Use 'nvidia-docker run' to start this container; see\n"
    )
    assert codes(old) == ["CONTAINER_STARTED_WITHOUT_GPU"]


def test_the_no_driver_banner_after_gpus_all_points_at_the_host_not_the_flag():
    for name in (
        "container-gpu-not-detected_gpus-all-given-wsl2-ngc-tf20.03_nvidia-container-toolkit-271.txt",
        "container-gpu-not-detected_nvidia-docker-gpus-all-pytorch-image_get3d-72.txt",
    ):
        finding = only(recorded(name))
        assert finding.code == "CONTAINER_GPU_NOT_DETECTED" and finding.severity == "warning"
        assert "WSL 2" in finding.hint and "nvidia-ctk runtime configure --runtime=docker" in finding.hint
    # The banner's own "Use 'nvidia-docker run'" is no GPU option; compose's reservation is one.
    banner = recorded("container-started-without-gpu_ngc-cuda11.1-docker-run-no-gpus-flag_panopticseg-20.txt")
    assert codes(banner + "   Use 'nvidia-docker run' to start this container\n") == [
        "CONTAINER_STARTED_WITHOUT_GPU"
    ]
    compose = "    devices:\n      - driver: nvidia\n        capabilities: [gpu]\n" + banner
    assert codes(compose) == ["CONTAINER_GPU_NOT_DETECTED"]
    # A healthy start of an NGC image under WSL 2 (its MOFED note, then nvidia-smi) is no finding.
    healthy = (
        "negative_ngc-tf22.01-gpus-all-wsl2-banner-mofed-note-nvidia-smi-works_nvidia-docker-1604_partial.txt"
    )
    assert diagnose(recorded(healthy)) == []


def test_container_toolkit_failures_get_the_fix_for_their_cause():
    for name in (
        "container-toolkit-failed_compose-legacy-libnvidia-ml-missing_n8n-starter-kit-11.txt",
        "container-toolkit-failed_docker-run-gpus-libnvidia-ml-missing_mvrss-7.txt",
    ):
        missing = only(recorded(name))
        assert missing.code == "CONTAINER_TOOLKIT_FAILED"
        assert missing.params["variant"] == "driver_library"
        assert missing.params["library"] == "libnvidia-ml.so.1"
        assert "nvidia-smi" in missing.hint and "snap" in missing.hint and "rootless" in missing.hint
    mount = only(
        recorded(
            "container-toolkit-failed_wsl-mount-file-exists-libnvidia-ml_nvidia-container-toolkit-176.txt"
        )
    )
    assert mount.code == "CONTAINER_TOOLKIT_FAILED" and mount.params["variant"] == "mount"
    assert mount.params["detail"].endswith("libnvidia-ml.so.1: file exists")
    assert "docker commit" in mount.hint
    for name in (
        "container-toolkit-failed_requirement-cuda12.8-driver-550_tabbyapi-324.txt",
        "container-toolkit-failed_requirement-cuda12.8-windows-driver-551_petric2-27_partial.txt",
    ):
        old_driver = only(recorded(name))
        assert old_driver.params["variant"] == "requirement" and old_driver.params["cuda"] == "12.8"
        assert "CUDA 12.8" in old_driver.message and "NVIDIA_DISABLE_REQUIRES" in old_driver.hint
    # Real line of toolkit 1.0 (NVIDIA/nvidia-docker#536), spaces around the operator.
    assert (
        only("nvidia-container-cli: requirement error: unsatisfied condition: cuda >= 9.0").params["cuda"]
        == "9.0"
    )
    # Real line (the title of NVIDIA/k8s-device-plugin#1400): another stage, the plain text.
    other = only(
        "Auto-detected mode as 'legacy' nvidia-container-cli: ldcache error: "
        "process /sbin/ldconfig terminated with signal 9"
    )
    assert other.code == "CONTAINER_TOOLKIT_FAILED" and "variant" not in other.params
    assert "ldcache error: process /sbin/ldconfig terminated with signal 9" in other.message


def test_an_unknown_nvidia_runtime_is_docker_without_the_toolkit():
    for name in (
        "docker-no-gpu-runtime_runtime-name-nvidia-compose-windows_duix-avatar-247.txt",
        "docker-no-gpu-runtime_runtime-name-nvidia-docker-run_3dgrut-71.txt",
    ):
        finding = only(recorded(name))
        assert finding.code == "DOCKER_NO_GPU_RUNTIME" and finding.params["variant"] == "runtime_name"
        assert "nvidia-ctk runtime configure --runtime=docker" in finding.hint
        assert "Docker Desktop" in finding.hint and "--gpus all" in finding.hint
    # Docker's other wording keeps the existing text.
    plain = only(recorded("docker-no-gpu-runtime_compose-rocky8.7_sd-webui-docker-423.txt"))
    assert plain.code == "DOCKER_NO_GPU_RUNTIME" and "variant" not in plain.params


def test_kubernetes_pods_without_gpus_and_a_failing_device_plugin():
    for name in (
        "kubernetes-no-gpu_insufficient-nvidia.com-gpu-failedscheduling_k8s-device-plugin-119.txt",
        "kubernetes-no-gpu_insufficient-preemption-l40s-minikube_k8s-device-plugin-852_partial.txt",
    ):
        pending = only(recorded(name))
        assert pending.code == "KUBERNETES_NO_GPU" and "variant" not in pending.params
        assert "kubectl describe node" in pending.hint and "device plugin" in pending.hint
    plugin_logs = [
        recorded("kubernetes-no-gpu_device-plugin-incompatible-strategy-auto_k8s-device-plugin-1220.txt"),
        recorded("kubernetes-no-gpu_device-plugin-could-not-load-nvml-containerd_k8s-device-plugin-444.txt"),
    ]
    for log in plugin_logs:
        plugin = only(log)
        assert plugin.code == "KUBERNETES_NO_GPU" and plugin.params["variant"] == "device_plugin"
        assert "--runtime=containerd" in plugin.hint and "RuntimeClass" in plugin.hint
    # The pending pod and the plugin's log together: the plugin is the cause.
    both = only(
        recorded("kubernetes-no-gpu_insufficient-nvidia.com-gpu-failedscheduling_k8s-device-plugin-119.txt")
        + plugin_logs[0]
    )
    assert both.params["variant"] == "device_plugin"
    # Real events about other resources (k3s-io/k3s#8575, Project-HAMi/HAMi#1069) are not NVIDIA GPUs.
    assert (
        diagnose("0/1 nodes are available: 1 Insufficient amd.com/gpu. preemption: 0/1 nodes are available")
        == []
    )
    assert (
        diagnose('err="0/4 nodes are available: 4 Insufficient nvidia.com/gpu.memory. preemption: 0/4"') == []
    )


def test_libcuda_not_found_in_wsl_names_usr_lib_wsl_lib():
    ctypes_log = recorded("wsl-libcuda-not-found_ctypes-libcuda.so-issue-form-wsl2_wsl-8587.txt")
    wsl = next(f for f in diagnose(ctypes_log) if f.code == "WSL_LIBCUDA_NOT_FOUND")
    assert "/usr/lib/wsl/lib" in wsl.message
    assert "export LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH" in wsl.hint
    assert "wsl --shutdown" in wsl.hint
    assert codes(
        recorded("wsl-libcuda-not-found_bitsandbytes-0.38-libcuda-not-found_bitsandbytes-332.txt")
    ) == ["WSL_LIBCUDA_NOT_FOUND"]
    # Without WSL in the log the same lines are no WSL finding: the ctypes error is the plain
    # driver finding, and bitsandbytes' line on native Windows (bitsandbytes#396, real) is nothing.
    without_wsl = ctypes_log.replace("WSL", "OS").replace("wsl-user-guide", "guide")
    assert codes(without_wsl) == ["DLL_NOT_FOUND"]
    windows = (
        "CUDA SETUP: WARNING! libcuda.so not found! Do you have a CUDA driver installed? If you are on a "
        "cluster, make sure you are on a CUDA machine!\n"
        "C:\\Users\\<user>\\miniconda3\\envs\\hiper\\lib\\site-packages\\bitsandbytes\\cextension.py:101: "
        "UserWarning: WARNING: No libcudart.so found! Install CUDA or the cudatoolkit package (anaconda)!"
    )
    assert diagnose(windows) == []


def test_the_wsl_ldconfig_note_is_only_information():
    note = only(
        recorded("wsl-libcuda-not-symlink_ldconfig-real-warning-only_tensorflow-cuda-wsl-ubuntu24.04-2.txt")
    )
    assert note.code == "WSL_LIBCUDA_NOT_SYMLINK" and note.severity == "info"
    assert "LD_LIBRARY_PATH" in note.hint
    # Debian's ldconfig, without ".real" (microsoft/WSL#11229).
    debian = only(recorded("wsl-libcuda-not-symlink_debian-ldconfig-every-install_wsl-11229.txt"))
    assert debian.code == "WSL_LIBCUDA_NOT_SYMLINK" and debian.severity == "info"
    # With libcuda not found, the not-found finding explains both.
    log = (
        note.params["evidence"]
        + "\n"
        + recorded("wsl-libcuda-not-found_bitsandbytes-0.38-libcuda-not-found_bitsandbytes-332.txt")
    )
    assert codes(log) == ["WSL_LIBCUDA_NOT_FOUND"]


def test_a_linux_driver_inside_wsl_is_named_only_when_the_log_shows_wsl():
    for name in (
        "wsl-linux-driver-conflict_apt-nvidia-driver-440-couldnt-communicate_wsl-5265.txt",
        "wsl-linux-driver-conflict_nvidia-utils-510-gpu-access-blocked_wsl-9166.txt",
    ):
        finding = only(recorded(name))
        assert finding.code == "WSL_LINUX_DRIVER_CONFLICT" and finding.severity == "error"
        assert "/usr/lib/wsl/lib/nvidia-smi" in finding.hint and "wsl --shutdown" in finding.hint
        assert "keeping nvidia-container-toolkit" in finding.hint
    # The same nvidia-smi lines without WSL in the log (recorded for the machine check) are not
    # claimed here: on plain Linux they mean a kernel module problem, another part's finding.
    for name in (
        "nvidia-smi_error_couldnt-communicate_linux.txt",
        "nvidia-smi_wsl2_error_gpu-access-blocked_linux-nvidia-utils-installed-in-wsl.txt",
    ):
        assert "WSL_LINUX_DRIVER_CONFLICT" not in codes((RECORDED / name).read_text(encoding="utf-8"))
