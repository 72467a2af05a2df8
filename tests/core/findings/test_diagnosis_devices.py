"""Diagnosis of the driver's kernel module, device visibility, MIG and GPU sharing (issue 22).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say, the values they read from the log, and the variants they choose.
"""

from __future__ import annotations

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from harness.recorded_logs import RECORDED, only, recorded


@pytest.mark.parametrize(
    ("name", "client", "module"),
    [
        # dmesg with timestamps and "NVRM:" on every continuation line.
        (
            "kernel-module-mismatch_api-mismatch-570.153-vs-570.144-dmesg_bazzite-2668_partial.txt",
            "570.153.02",
            "570.144",
        ),
        # The newer wording that names the client process and wraps after "has".
        (
            "kernel-module-mismatch_api-mismatch-client-pid-format-595.84-vs-595.80_nvidia-all-394.txt",
            "595.84",
            "595.80",
        ),
        # syslog, which writes the line breaks as "#012".
        (
            "kernel-module-mismatch_api-mismatch-syslog-012-escapes_ansible-slurm-appliance-287.txt",
            "535.54.03",
            "530.30.02",
        ),
    ],
)
def test_the_kernels_api_mismatch_names_both_versions(name: str, client: str, module: str):
    finding = only(recorded(name))
    assert finding.code == "KERNEL_MODULE_MISMATCH" and finding.severity == "error"
    assert finding.params["variant"] == "api_mismatch"
    assert (finding.params["client"], finding.params["module"]) == (client, module)
    assert f"version {client}" in finding.message and f"version {module}" in finding.message
    assert "Restart the computer" in finding.hint
    assert "sudo rmmod nvidia_uvm nvidia_drm nvidia_modeset nvidia && sudo modprobe nvidia" in finding.hint
    assert "dkms autoinstall" in finding.hint


def test_the_api_mismatch_explains_nvmls_version_mismatch():
    # CONSTRUCTED: nvidia-smi's NVML error, then the kernel's line that names the versions.
    text = (
        "Failed to initialize NVML: Driver/library version mismatch\n"
        "NVRM: API mismatch: the client has the version 550.54.14, but\n"
        "NVRM: this kernel module has the version 535.161.07.  Please\n"
    )
    assert [f.code for f in diagnose(text)] == ["KERNEL_MODULE_MISMATCH"]
    # NVML's message alone keeps its own finding.
    nvml = recorded("nvml-mismatch_nvidia-smi-570.124_tinygrad-open-gpu-kernel-modules-47.txt")
    assert [f.code for f in diagnose(nvml)] == ["NVML_DRIVER_LIBRARY_MISMATCH"]


def test_a_module_that_is_not_running_gets_the_rebuild_and_restart_fixes():
    finding = only(recorded("kernel-module-mismatch_not-loaded-fedora43-akmod-580_nvidia-fedora-guide-9.txt"))
    assert finding.code == "KERNEL_MODULE_MISMATCH" and "variant" not in finding.params
    assert "Restart the computer" in finding.hint
    assert "sudo dkms autoinstall" in finding.hint and "akmods --force" in finding.hint
    assert "Secure Boot" in finding.hint
    # Pasted alone, nvidia-smi's message is recognised (the recording made for the nvidia-smi parser).
    alone = (RECORDED / "nvidia-smi_error_couldnt-communicate_linux.txt").read_text(encoding="utf-8")
    assert [f.code for f in diagnose(alone)] == ["KERNEL_MODULE_MISMATCH"]
    # A typographic apostrophe, as in a pasted Chinese post (qixuema/envs#4).
    curly = "NVIDIA-SMI has failed because it couldn‘t communicate with the NVIDIA driver."
    assert only(curly).code == "KERNEL_MODULE_MISMATCH"


def test_nvidia_smi_in_wsl_is_left_to_the_wsl_findings():
    # CONSTRUCTED: the same message in a log that shows the WSL kernel and WSL's driver folder.
    text = (
        "Linux 5.15.153.1-microsoft-standard-WSL2 x86_64\n"
        "$ /usr/lib/wsl/lib/nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    )
    assert "KERNEL_MODULE_MISMATCH" not in {f.code for f in diagnose(text)}


def test_tensorflow_without_a_kernel_driver_is_not_a_visibility_problem():
    finding = only(
        recorded(
            "kernel-module-mismatch_tf-cuinit-no-device-kernel-driver-not-running_tensorflow-44869_partial.txt"
        )
    )
    # CUDA_ERROR_NO_DEVICE is in the log too: the missing kernel module explains it. Both are
    # TensorFlow's own report of its failed start, which without a GPU is no fault (issue 41):
    # the log alone says both readings, the kernel module's fixes for a machine with a GPU.
    assert (finding.code, finding.params["variant"]) == ("TF_NO_GPU_FOUND", "no_module")
    assert finding.severity == "warning" and "--gpus all" in finding.hint
    assert "dkms autoinstall" in finding.hint


@pytest.mark.parametrize(
    "text",
    [
        recorded("kernel-module-mismatch_error-803-torch-userwarning-chinese-container_atorch-2.txt"),
        recorded("kernel-module-mismatch_error-803-vllm-image-driver-580_gpustack-4678.txt"),
        # Real line, NVIDIA/nvidia-container-toolkit#1679 (CUDA samples' helper_cuda.h form).
        'CUDA error at ../../../Common/helper_cuda.h:816 code=803(cudaErrorSystemDriverMismatch) "cudaGetDeviceCount(&device_count)"',
        # Real line, NVIDIA/nvidia-docker#1256 (Caffe's CHECK form).
        "CUDA: Check failed: e == cudaSuccess (803 vs. 0) : system has unsupported display driver / cuda driver combination",
    ],
)
def test_error_803_is_matched_by_its_number_and_names_both_causes(text: str):
    finding = only(text)
    assert (finding.code, finding.params["variant"]) == ("KERNEL_MODULE_MISMATCH", "error_803")
    assert "restart the computer" in finding.hint
    assert "/usr/local/cuda/compat" in finding.hint and "LD_LIBRARY_PATH" in finding.hint


def test_other_error_numbers_are_not_error_803():
    assert diagnose("Error 8030: something else") == []
    assert diagnose("Check failed: error == cudaSuccess (8030 vs. 0)") == []


def test_forward_compatibility_on_a_gpu_without_it():
    for name in (
        "cuda-forward-compat-unsupported_gpufetch-gtx970-kubuntu_gpufetch-53.txt",
        "cuda-forward-compat-unsupported_ffmpeg-cuinit-docker_libopenshot-955.txt",
    ):
        finding = only(recorded(name))
        assert finding.code == "CUDA_FORWARD_COMPAT_UNSUPPORTED" and "variant" not in finding.params
        assert "cuda-compat" in finding.hint and "data-center" in finding.hint
    # nvidia-smi's banner in the same log shows the compat libcuda: CUDA 12.1 on driver 470.
    smi = only(
        recorded("cuda-forward-compat-unsupported_driver-470-shows-cuda-12.1-2080ti_faster-whisper-653.txt")
    )
    assert smi.params["variant"] == "smi"
    assert (smi.params["driver"], smi.params["driver_cuda"]) == ("470.57.02", "12.1")
    assert "driver 470.57.02 with CUDA 12.1" in smi.message
    # CONSTRUCTED: the number alone in PyTorch's form.
    assert only("Error 804: whatever words").code == "CUDA_FORWARD_COMPAT_UNSUPPORTED"


def test_an_invalid_device_ordinal_is_explained_by_what_the_log_shows():
    torchrun = only(recorded("cuda-device-not-visible_ordinal-torchrun-8-processes-one-gpu_llama-946.txt"))
    assert torchrun.code == "CUDA_DEVICE_NOT_VISIBLE"
    assert torchrun.params["variant"] == "ordinal_torchrun" and torchrun.params["processes"] == "8"
    assert "--nproc-per-node" in torchrun.hint
    visible = only(
        recorded("cuda-device-not-visible_ordinal-runtime-error-101-visible-0_summarize-from-feedback-5.txt")
    )
    assert visible.params["variant"] == "ordinal_visible" and visible.params["visible"] == "0"
    assert "renumbered from 0" in visible.hint
    # CONSTRUCTED: the bare error.
    plain = only("RuntimeError: CUDA error: invalid device ordinal")
    assert plain.params["variant"] == "ordinal" and "'cuda:0'" in plain.hint


@pytest.mark.parametrize(
    ("text", "variant", "visible"),
    [
        (recorded("cuda-device-not-visible_no-cuda-gpus-set-device-cuda0_cor-gs-23.txt"), None, None),
        # TensorFlow on a cluster node whose driver works (libcuda and module both 515.43.4).
        (
            recorded(
                "cuda-device-not-visible_tf-cuinit-no-device-cluster-node-driver-matches_tensorflow-62494_partial.txt"
            ),
            None,
            None,
        ),
        (
            recorded(
                "cuda-device-not-visible_no-device-visible-2-on-one-gpu-thcudacheck-38_pytorch-1040.txt"
            ),
            "none_visible",
            "2",
        ),
        # CONSTRUCTED: the values that hide every GPU, as a shell and a script set them.
        ("$ CUDA_VISIBLE_DEVICES= python train.py\nRuntimeError: No CUDA GPUs are available", "hidden", ""),
        (
            "os.environ['CUDA_VISIBLE_DEVICES'] = '-1'\nfailed call to cuInit: CUDA_ERROR_NO_DEVICE",
            "hidden",
            "-1",
        ),
        # CONSTRUCTED: an index the machine does not have, set in the script.
        (
            'os.environ["CUDA_VISIBLE_DEVICES"] = "7"\nRuntimeError: No CUDA GPUs are available',
            "none_visible",
            "7",
        ),
    ],
)
def test_no_visible_gpu_reads_cuda_visible_devices(text: str, variant: str | None, visible: str | None):
    finding = only(text)
    assert finding.code == "CUDA_DEVICE_NOT_VISIBLE" and finding.severity == "error"
    assert finding.params.get("variant") == variant
    assert finding.params.get("visible") == visible
    assert "nvidia-smi -L" in finding.hint
    if visible is not None:
        assert f"'{visible}'" in finding.message or f"={visible}" in finding.message
    else:
        assert "--gres=gpu:1" in finding.hint


def test_a_module_that_is_not_running_explains_the_missing_device():
    # CONSTRUCTED: PyTorch's error after nvidia-smi's, as a user pastes both.
    text = (
        "RuntimeError: No CUDA GPUs are available\n"
        "$ nvidia-smi\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    )
    assert [f.code for f in diagnose(text)] == ["KERNEL_MODULE_MISMATCH"]


def test_no_driver_is_not_a_visibility_problem():
    assert [f.code for f in diagnose("RuntimeError: Found no NVIDIA driver on your system.")] == [
        "NO_NVIDIA_DRIVER"
    ]
    # CONSTRUCTED: with nvidia-smi's message beside it the driver is installed, its module not running.
    text = (
        "RuntimeError: Found no NVIDIA driver on your system.\n"
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n"
    )
    assert [f.code for f in diagnose(text)] == ["KERNEL_MODULE_MISMATCH"]


def test_mig_instances_explain_missing_devices():
    mig = only(
        recorded("mig-device-misused_ssd-subprocesses-invalid-ordinal-a100-mig_mlcommons-training-442.txt")
    )
    assert (mig.code, mig.params["variant"]) == ("MIG_DEVICE_MISUSED", "mig")
    assert "CUDA_VISIBLE_DEVICES=MIG-<UUID>" in mig.hint and "nvidia-smi -L" in mig.hint
    assert "one MIG instance" in mig.hint
    assert_ = only(
        recorded(
            "mig-device-misused_torch-num-gpus-internal-assert-current-device_pytorch-110000_partial.txt"
        )
    )
    assert assert_.code == "MIG_DEVICE_MISUSED" and "variant" not in assert_.params
    assert "MIG" in assert_.hint and "CUDA_VISIBLE_DEVICES" in assert_.hint
    # nvidia-smi's "MIG M." column is in every recent table: no sign of MIG by itself.
    table = (RECORDED / "nvidia-smi_rtx4070_linux_550.40.07_cuda12.4.txt").read_text(encoding="utf-8")
    assert "MIG M." in table
    text = table + "\nRuntimeError: CUDA error: invalid device ordinal\n"
    assert [f.code for f in diagnose(text)] == ["CUDA_DEVICE_NOT_VISIBLE"]
    # CONSTRUCTED: a MIG UUID (R470 and newer form) in CUDA_VISIBLE_DEVICES.
    uuid = "CUDA_VISIBLE_DEVICES=MIG-c6d4f1ef-42e4-5de3-91c7-45d71c87eb3f,MIG-cba663e8-9bed-5b25-b243-5985ef7c9beb"
    assert only(uuid + "\nRuntimeError: No CUDA GPUs are available").params["variant"] == "mig"


def test_busy_gpus_name_the_exclusive_mode_when_the_log_shows_it():
    plain = only(recorded("gpu-busy-or-exclusive_torch-busy-or-unavailable_instantcharacter-21.txt"))
    assert plain.code == "GPU_BUSY_OR_EXCLUSIVE" and "variant" not in plain.params
    assert "nvidia-smi -i 0 -c DEFAULT" in plain.hint and "CUDA_VISIBLE_DEVICES" in plain.hint
    exclusive = only(
        recorded("gpu-busy-or-exclusive_caffe-46-vs-0-exclusive-process-k40m_digits-2005_partial.txt")
    )
    assert exclusive.params["variant"] == "exclusive" and "E. Process" in exclusive.message


def test_cuda_in_a_forked_process_gets_the_spawn_fix():
    for name in (
        "cuda-forked-subprocess_videochat-stage3-chinese_ask-anything-242.txt",
        "cuda-forked-subprocess_escaped-quotes_groundingdino-276.txt",
        "cuda-forked-subprocess_a3c-wrapped-message-chinese_deep-rl-pytorch-3.txt",
    ):
        finding = only(recorded(name))
        assert finding.code == "CUDA_FORKED_SUBPROCESS" and finding.severity == "error"
        assert 'set_start_method(\\"spawn\\", force=True)'.replace("\\", "") in finding.hint
        assert "multiprocessing_context" in finding.hint


def test_a_mig_mode_change_blocked_by_processes_names_what_holds_the_gpu():
    for name in (
        "mig-reset-blocked_mig-parted-in-use-by-another-client-nvidia-drm_mig-parted-181.txt",
        # The same message inside a JSON-escaped log line ("\n" as two characters).
        "mig-reset-blocked_mig-parted-escaped-log-line_puppet-magic-castle-387.txt",
        "mig-reset-blocked_nvidia-smi-mig-pending-disable-persistenced_gpu-operator-118.txt",
    ):
        finding = only(recorded(name))
        assert finding.code == "MIG_RESET_BLOCKED" and finding.severity == "error"
        assert "sudo rmmod nvidia_drm" in finding.hint and "nvidia-persistenced" in finding.hint
        assert "restart the computer" in finding.hint
    # A plain GPU reset refused without MIG is not this finding.
    assert diagnose("GPU 00000000:C1:00.0 is currently in use by another process.") == []
