"""No false alarms: benign noise in real logs gives no error or warning finding (issue 22, point 3).

The ``negative_*`` files in tests/fixtures/recorded/diagnose are real logs copied from public
issue threads and from TensorFlow's own guide (SOURCES.md says where): the lines every TensorFlow
or PyTorch user sees on a working machine (the CPU-instructions line, TF-TRT's "Could not find
TensorRT", the NUMA-node note, oneDNN notices, the cuDNN/cuFFT/cuBLAS "Unable to register factory"
lines that TensorFlow 2.14-2.17 logs at level E, deprecation warnings, ptxas' register-spill
notes, the BFC allocator's "this is not a failure"), successful GPU starts, clean training runs,
healthy ``nvidia-smi`` output (in a container, with MIG, in Exclusive_Process mode, WSL 2's
``/usr/lib/wsl/lib``), JAX listing its CUDA devices and pip resolving the nvidia-* wheels. None of
them may give an error or a warning finding; the clean runs may give no finding at all.

Each benign line is also inserted, verbatim, into every recorded failing log: the codes that log
gives must not change. Point 4 (multilingual): Windows' localised error texts in real logs are
recognised by their error numbers and DLL names.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.model import Finding

DIAGNOSE = Path(__file__).parents[2] / "fixtures" / "recorded" / "diagnose"
EXPECTED: dict[str, list[str]] = json.loads((DIAGNOSE / "expected-codes.json").read_text(encoding="utf-8"))
NEGATIVES = sorted(path.name for path in DIAGNOSE.glob("negative_*.txt"))

#: The negative corpus at the time of writing (issue 22 asks for at least 10 real logs): a test
#: fails if files are lost, so the corpus cannot shrink without someone noticing.
MINIMUM_NEGATIVES = 24

#: Clean runs: a working GPU doing its work. These give no finding at all, not even a note.
CLEAN_RUNS = (
    "negative_nvidia-smi-550.40.07-rtx4070-healthy_nvidia-all-212.txt",
    "negative_tf2.5-keras-created-device-rtx3070-fit-starts_tensorflow-50488_partial.txt",
    "negative_tf2.5-keras-fit-loaded-cudnn-8201-epochs-gpu_tensorflow-50488_partial.txt",
    "negative_torch1.11-cu113-rtx3080-laptop-vgg16-training-win_machine-learning-notes-6.txt",
    "negative_pip-torch2.4.0-cu124-nvidia-wheels-resolving-after-fix_pytorch-193491_partial.txt",
    "negative_docker-cdi-nvidia-smi-rtx4090-in-container-works_nixpkgs-331071_partial.txt",
    "negative_nvidia-smi-L-mig-enabled-a100-in-agent-pod_datadog-agent-33120_partial.txt",
    "negative_nvidia-smi-L-mig-1g.20gb-four-a100_telegraf-5812.txt",
    "negative_jax0.5.3-devices-eight-cuda-gpus-works_jax-27535.txt",
    "negative_wsl-which-nvidia-smi-usr-lib-wsl-lib_wsl-8174.txt",
    "negative_nvidia-smi-580-tesla-t4-exclusive-process-busy-node_dra-driver-nvidia-gpu-889_partial.txt",
)

_TF_FACTORY = "negative_tf-factory-cpu-instructions-tftrt-rtx3070_microwakeword-trainer-nvidia-docker-8.txt"
_TF_GUIDE = "negative_tf2.17-guide-gpu-factory-numa_tensorflow-org-guide-gpu_partial.txt"
_TF_ONEDNN = "negative_tf-factory-tftrt-onednn-training-question_descriptorreasoning-accv-2024-5_partial.txt"
_TF_XLA = "negative_tf-onednn-int64-notice-xla-service-a100_keras-hub-2161_partial.txt"
_TF_CREATED = "negative_tf2.5-keras-created-device-rtx3070-fit-starts_tensorflow-50488_partial.txt"
_TF_FIT = "negative_tf2.5-keras-fit-loaded-cudnn-8201-epochs-gpu_tensorflow-50488_partial.txt"
_TORCH_WARNINGS = "negative_torch-futurewarning-gradscaler-inductor-sms_nanogpt-635.txt"

#: Each kind of benign noise: the real log it is taken from, and the first and last line of the
#: block (substrings; the block is copied from the file, so every inserted line is real text).
BENIGN_KINDS: dict[str, tuple[str, str, str]] = {
    "tensorflow_cpu_instructions": (
        _TF_FACTORY,
        "This TensorFlow binary is optimized to use available CPU instructions",
        "rebuild TensorFlow with the appropriate compiler flags",
    ),
    "tf_trt_could_not_find_tensorrt": (_TF_FACTORY, "TF-TRT Warning: Could not find TensorRT", ""),
    "tensorrt_optional_libnvinfer": (
        "negative_tf2.1-wsl2-tensorrt-optional-libnvinfer_tensorflow-36201_partial.txt",
        "Could not load dynamic library 'libnvinfer.so.6'",
        "Could not load dynamic library 'libnvinfer_plugin.so.6'",
    ),
    "numa_node_negative_value": (_TF_GUIDE, "successful NUMA node read from SysFS had negative value", ""),
    "onednn_custom_operations": (_TF_ONEDNN, "oneDNN custom operations are on", ""),
    "onednn_int64_fallback": (_TF_XLA, "oneDNN supports DT_INT64 only on platforms with AVX-512", ""),
    "cudnn_cufft_cublas_factory_registration": (
        _TF_FACTORY,
        "Unable to register cuFFT factory",
        "Unable to register cuBLAS factory",
    ),
    "torch_futurewarning_deprecated_gradscaler": (
        _TORCH_WARNINGS,
        "FutureWarning: `torch.cuda.amp.GradScaler(args...)` is deprecated",
        "scaler = torch.cuda.amp.GradScaler(",
    ),
    "tf_deprecation_warning": (
        "negative_tf-deprecated-is-gpu-available-warning_foolbox-738.txt",
        "is deprecated and will be removed in a future version",
        "instead.",
    ),
    "tf_bfc_allocator_not_a_failure": (
        "negative_tf-bfc-allocator-not-a-failure-warnings_sleap-2089_partial.txt",
        "The caller indicates that this is not a failure",
        "",
    ),
    "inductor_not_enough_sms": (_TORCH_WARNINGS, "Not enough SMs to use max_autotune_gemm mode", ""),
    "tf_created_gpu_device": (
        _TF_CREATED,
        "Created TensorFlow device (/job:localhost/replica:0/task:0/device:GPU:0",
        "",
    ),
    "tf_loaded_cudnn_version": (_TF_FIT, "Loaded cuDNN version 8201", ""),
    "keras_fit_epochs": (_TF_FIT, "Epoch 2/100", "Epoch 3/100"),
    "xla_service_started": (_TF_XLA, "XLA service", "StreamExecutor device (0)"),
    "ptxas_register_spill_warning": (
        "negative_tf-xla-ptxas-register-spill-warnings_keras-hub-2686_partial.txt",
        "ptxas warning : Registers are spilled to local memory",
        "",
    ),
    "pytorch_training_on_cuda": (
        "negative_torch1.11-cu113-rtx3080-laptop-vgg16-training-win_machine-learning-notes-6.txt",
        "device cuda",
        "Total Training Time",
    ),
    "nvidia_smi_healthy": (
        "negative_nvidia-smi-550.40.07-rtx4070-healthy_nvidia-all-212.txt",
        "NVIDIA-SMI 550.40.07",
        "NVIDIA GeForce RTX 4070",
    ),
    "nvidia_smi_in_a_container": (
        "negative_docker-cdi-nvidia-smi-rtx4090-in-container-works_nixpkgs-331071_partial.txt",
        "docker run --rm --device=nvidia.com/gpu=all",
        "NVIDIA GeForce RTX 4090",
    ),
    "nvidia_smi_exclusive_process_mode": (
        "negative_nvidia-smi-580-tesla-t4-exclusive-process-busy-node_dra-driver-nvidia-gpu-889_partial.txt",
        "NVIDIA-SMI 580.126.09",
        "E. Process",
    ),
    "mig_devices_listed": (
        "negative_nvidia-smi-L-mig-1g.20gb-four-a100_telegraf-5812.txt",
        "nvidia-smi -L",
        "GPU 3: NVIDIA A100-SXM4-80GB",
    ),
    "jax_cuda_devices": (
        "negative_jax0.5.3-devices-eight-cuda-gpus-works_jax-27535.txt",
        ">>> import jax",
        "[CudaDevice(id=0)",
    ),
    "wsl_nvidia_smi_in_usr_lib_wsl_lib": (
        "negative_wsl-which-nvidia-smi-usr-lib-wsl-lib_wsl-8174.txt",
        "wsl which nvidia-smi",
        "/usr/lib/wsl/lib/nvidia-smi",
    ),
    "pip_resolving_nvidia_wheels": (
        "negative_pip-torch2.4.0-cu124-nvidia-wheels-resolving-after-fix_pytorch-193491_partial.txt",
        "Looking in indexes: https://download.pytorch.org/whl/cu124",
        "Collecting nvidia-cuda-nvrtc-cu12==12.4.99",
    ),
}


#: Benign on their own, but they tell where the log comes from, and the diagnosis reads that on
#: purpose (diagnosis_containers.py, diagnosis_devices.py): a log that shows WSL 2's
#: /usr/lib/wsl/lib is a WSL log, where "the kernel module is not loaded" means a Linux driver was
#: installed inside WSL; a log that lists MIG devices comes from a MIG machine, where "no CUDA GPUs
#: are available" or "invalid device ordinal" means a MIG device addressed the wrong way; a
#: `docker run` that asks for the GPU (``--device=nvidia.com/gpu=all``) turns NVIDIA's "Driver was
#: not detected" banner from "started without --gpus" into "the GPU was requested but not passed
#: in". Added to a log from elsewhere they are not noise, so they are left out of that test.
CONTEXT_KINDS = frozenset(
    {"wsl_nvidia_smi_in_usr_lib_wsl_lib", "mig_devices_listed", "nvidia_smi_in_a_container"}
)


def read(name: str) -> str:
    return (DIAGNOSE / name).read_bytes().decode("utf-8", errors="replace")


def codes(findings: list[Finding]) -> set[str]:
    return {finding.code for finding in findings}


def benign_block(kind: str) -> str:
    """The lines of one kind of benign noise, copied from the real log named for it."""
    name, first, last = BENIGN_KINDS[kind]
    lines = read(name).splitlines()
    start = next(i for i, line in enumerate(lines) if first in line)
    end = next(i for i in range(start, len(lines)) if (last or first) in lines[i])
    return "\n".join(lines[start : end + 1])


def failing_logs() -> list[str]:
    return sorted(name for name, expected in EXPECTED.items() if expected)


def describe(findings: list[Finding]) -> str:
    return "; ".join(f"{f.code} ({f.severity}): {f.params.get('evidence', '')!r}" for f in findings)


#: Negative logs that do show a real failure, kept here to prove what they are *not*: the one
#: finding each may give. The SparseConvNet log shows cuBLAS' CUBLAS_STATUS_EXECUTION_FAILED on an
#: RTX 3080 with a CUDA 10.0 build: not out of memory (it is here for that), but a real cuBLAS
#: failure, and issue 35 asks that a log showing a vendor's status gets a finding naming the
#: component and what the status means.
NOT_A_FALSE_ALARM = {
    "negative_torch1.3.1-rtx3080-cublas-execution-failed-not-memory_sparseconvnet-208.txt": {
        "VENDOR_LIBRARY_STATUS"
    },
}


@pytest.mark.parametrize("name", NEGATIVES)
def test_a_negative_log_gives_no_error_or_warning(name: str):
    findings = diagnose(read(name))
    assert "GPU_OUT_OF_MEMORY" not in codes(findings), name
    alarms = [
        f
        for f in findings
        if f.severity in ("error", "warning") and f.code not in NOT_A_FALSE_ALARM.get(name, set())
    ]
    assert alarms == [], f"{name} gives {describe(alarms)}"


@pytest.mark.parametrize("name", CLEAN_RUNS)
def test_a_clean_run_gives_no_finding_at_all(name: str):
    findings = diagnose(read(name))
    assert findings == [], f"{name} gives {describe(findings)}"


def test_the_negative_corpus_holds_real_cited_logs():
    sources = (DIAGNOSE / "SOURCES.md").read_text(encoding="utf-8")
    real = [
        name
        for name in NEGATIVES
        if "_recorded-here" not in name and EXPECTED.get(name) == [] and f"| {name} |" in sources
    ]
    assert len(real) >= MINIMUM_NEGATIVES, f"only {len(real)} real negative logs: {real}"
    assert set(CLEAN_RUNS) <= set(NEGATIVES)


@pytest.mark.parametrize("kind", sorted(BENIGN_KINDS))
def test_a_benign_block_alone_gives_no_error_or_warning(kind: str):
    block = benign_block(kind)
    assert block.strip(), kind
    alarms = [f for f in diagnose(block) if f.severity in ("error", "warning")]
    assert alarms == [], f"{kind} gives {describe(alarms)}"


@pytest.mark.parametrize("kind", sorted(set(BENIGN_KINDS) - CONTEXT_KINDS))
def test_benign_lines_do_not_change_the_codes_of_a_real_failing_log(kind: str):
    block = benign_block(kind)
    changed = []
    for name in failing_logs():
        log = read(name)
        for where, text in (("before", f"{block}\n{log}"), ("after", f"{log}\n{block}")):
            got = codes(diagnose(text))
            if got != set(EXPECTED[name]):
                changed.append(f"{name} ({where}): {sorted(got)} instead of {EXPECTED[name]}")
    assert changed == [], f"{kind} changes: " + "\n".join(changed)


def test_all_the_benign_noise_together_is_still_no_alarm():
    noise = "\n".join(benign_block(kind) for kind in sorted(BENIGN_KINDS))
    alarms = [f for f in diagnose(noise) if f.severity in ("error", "warning")]
    assert alarms == [], describe(alarms)


# --- point 4: localised Windows messages in real logs ------------------------------------------

#: Real logs whose Windows error text is not English, the localised words they carry (so the test
#: proves the log is really in that language), the code and the DLL the finding must name.
LOCALISED = (
    (
        "torch-dll-load-failed_fbgemm-chinese-locale_materialsearch-105.txt",
        "找不到指定的模块",
        "TORCH_DLL_LOAD_FAILED",
        "fbgemm.dll",
    ),
    (
        "torch-dll-load-failed_fbgemm-russian-locale-py3.12_deep-live-cam-146.txt",
        "Не найден указанный модуль",
        "TORCH_DLL_LOAD_FAILED",
        "fbgemm.dll",
    ),
    (
        "torch-dll-load-failed_cudnn_cnn_infer64_8-russian-locale_sunone-aimbot-66.txt",
        "Не найден указанный модуль",
        "TORCH_DLL_LOAD_FAILED",
        "cudnn_cnn_infer64_8.dll",
    ),
    (
        "torch-dll-load-failed_c10-french-locale_diffusers-5247.txt",
        "Le module spécifié est introuvable",
        "TORCH_DLL_LOAD_FAILED",
        "c10.dll",
    ),
    (
        "torch-dll-load-failed_fbgemm-german-locale-wrapped_kohya-sd-scripts-1597.txt",
        "Das angegebene Modul wurde nicht gefunden",
        "TORCH_DLL_LOAD_FAILED",
        "fbgemm.dll",
    ),
    (
        "windows-paging-file-too-small_chinese-cudnn_cnn_infer64_8-spawn_weclip-5.txt",
        "页面文件太小",
        "WINDOWS_PAGING_FILE_TOO_SMALL",
        "",
    ),
    (
        "windows-paging-file-too-small_chinese-caffe2-dll_pytorch-segmentation-118.txt",
        "页面文件太小",
        "WINDOWS_PAGING_FILE_TOO_SMALL",
        "",
    ),
)


@pytest.mark.parametrize(("name", "words", "code", "library"), LOCALISED, ids=[row[0] for row in LOCALISED])
def test_a_localised_windows_error_in_a_real_log_is_recognised(
    name: str, words: str, code: str, library: str
):
    log = read(name)
    assert words in log, f"{name} is not the localised log it claims to be"
    assert EXPECTED[name] == [code]
    [finding] = diagnose(log)
    assert finding.code == code
    if library:
        assert finding.params["library"] == library
