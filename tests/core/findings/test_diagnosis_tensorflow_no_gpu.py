"""TensorFlow's start without a usable GPU, read for the machine (issue 41, point 10).

TensorFlow prints the same lines on a machine without an NVIDIA GPU, where they mean nothing, and
on one whose GPU it could not use: its runtime stub's "Could not find cuda drivers on your
machine, GPU will not be used" (tsl/cuda/cudart_stub.cc), its failed cuInit with the CUresult
(stream_executor/cuda/cuda_driver.cc, XLA's cuda_platform.cc), before 2.14 the dlerror of cudart
and "Ignore above cudart dlerror if you do not have a GPU set up on your machine". The log alone
gives a warning that says both readings; a machine without a GPU a note, one with a GPU the error
with its fix. The CUresult is read through cuda.h's enumeration, never from hand-picked strings.

Real logs are in tests/fixtures/recorded/diagnose (SOURCES.md, "Issue 41's outside check"); the
texts here marked CONSTRUCTED are TensorFlow's and XLA's own wording in the forms their releases
print, for the releases and platforms no recorded log shows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.gpu_readings import as_on_gpu_machine, follows_machine
from gpuwizard.core.findings.model import Finding, template_for
from gpuwizard.core.findings.vocabularies import entries
from gpuwizard.workflow.compat.diagnosis import diagnose_on_machine
from gpuwizard.workflow.machine.system_file import load_system_report
from harness.recorded_logs import codes, only, only_in

SAMPLES = Path(__file__).parents[3] / "resources" / "samples"
CUDA_DRIVER = {entry.number: entry for entry in entries("cuda-driver")}
BOTH_READINGS = "If the machine this log comes from has no NVIDIA GPU, this is expected"

#: TensorFlow 2.18 to 2.20 on Linux without a GPU (the forms of the issue's outside check):
#: the runtime stub's line, then XLA's cuInit status. CONSTRUCTED from cudart_stub.cc:32 and
#: cuda_platform.cc's wording, with the external/local_xla paths of those releases.
TF_218_LINUX = (
    "2025-03-02 10:11:12.345678: I external/local_xla/xla/tsl/cuda/cudart_stub.cc:32] Could not find "
    "cuda drivers on your machine, GPU will not be used.\n"
    "2025-03-02 10:11:12.401234: I external/local_xla/xla/tsl/cuda/cudart_stub.cc:32] Could not find "
    "cuda drivers on your machine, GPU will not be used.\n"
    "2025-03-02 10:11:13.556677: I tensorflow/core/platform/cpu_feature_guard.cc:210] This TensorFlow "
    "binary is optimized to use available CPU instructions in performance-critical operations.\n"
    "2025-03-02 10:11:15.010203: E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] "
    "failed call to cuInit: INTERNAL: CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n"
)


def tf_start(status: str) -> str:
    """A TensorFlow 2.16 start whose cuInit returned ``status`` (CONSTRUCTED, the issue's form)."""
    return (
        "I external/local_xla/xla/tsl/cuda/cudart_stub.cc:32] Could not find cuda drivers on your "
        "machine, GPU will not be used.\n"
        f"E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: {status}\n"
    )


@pytest.mark.parametrize(
    ("log", "variant", "number"),
    [
        # The issue's own lines: TensorFlow 2.16 without a driver.
        (tf_start("UNKNOWN ERROR (303)"), "no_driver", 303),
        (TF_218_LINUX, "no_driver", 303),
        # TensorFlow 2.18 and newer in absl's log format (the "E0000 00:00:..." prefix of their
        # cuDNN-factory lines). CONSTRUCTED.
        (
            "E0000 00:00:1749933980.869296 1397280 cuda_driver.cc:152] failed call to cuInit: INTERNAL: "
            "CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n",
            "no_driver",
            303,
        ),
        # A driver library that loaded and found no device: by name, as TensorFlow 2.x printed it
        # (google/deepvariant#761, a real line) and in XLA's status form (CONSTRUCTED).
        (
            "2024-01-05 16:01:06.236791: E tensorflow/compiler/xla/stream_executor/cuda/cuda_driver.cc:267] "
            "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n",
            "no_device",
            100,
        ),
        (
            tf_start(
                "INTERNAL: CUDA error: Failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"
            ),
            "no_device",
            100,
        ),
        # The same number without its name (cuGetErrorName itself failed): read from cuda.h's list.
        (tf_start("UNKNOWN ERROR (100)"), "no_device", 100),
        # The CUDA toolkit's stub libcuda instead of a driver (cuda.h, CUDA_ERROR_STUB_LIBRARY).
        (tf_start("UNKNOWN ERROR (34)"), "no_driver", 34),
        # CUDA_ERROR_UNKNOWN, with TensorFlow 1.x's two spaces (tensorflow/tensorflow#394, real
        # line) and 2.x's text (tensorflow/tensorflow#53229, real line).
        (
            "E tensorflow/stream_executor/cuda/cuda_driver.cc:466] failed call to cuInit:  CUDA_ERROR_UNKNOWN\n",
            None,
            999,
        ),
        (tf_start("CUDA_ERROR_UNKNOWN: unknown error"), None, 999),
    ],
)
def test_tensorflows_failed_cuinit_alone_says_both_readings(log: str, variant: str | None, number: int):
    finding = only(log)
    entry = CUDA_DRIVER[number]
    assert (finding.code, finding.severity) == ("TF_NO_GPU_FOUND", "warning")
    assert finding.params.get("variant") == variant
    assert finding.params["status"] == f"{entry.name} ({number})"
    assert finding.params["meaning"] == entry.message  # NVIDIA's words, from the enumeration
    assert finding.hint.startswith(BOTH_READINGS)
    # ... and then the fix for a machine with a GPU, the catalog's own hint.
    assert finding.hint.endswith(template_for("TF_NO_GPU_FOUND", variant).hint.format(**finding.params))


def test_a_missing_driver_is_said_in_the_words_of_the_logs_os():
    linux = only(tf_start("UNKNOWN ERROR (303)"))
    assert "libcuda.so.1" in linux.message and "docker run --gpus all" in linux.hint
    # TensorFlow 2.10 on native Windows without an NVIDIA driver. CONSTRUCTED in the shape of
    # tensorflow/tensorflow#57103 (the recorded log), with the driver's DLL after cudart's.
    windows = diagnose(
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
        "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not "
        "have a GPU set up on your machine.\n"
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:64] Could not load dynamic library "
        "'nvcuda.dll'; dlerror: nvcuda.dll not found\n"
        "W tensorflow/stream_executor/cuda/cuda_driver.cc:263] failed call to cuInit: UNKNOWN ERROR (303)\n"
        "I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:169] retrieving CUDA diagnostic information "
        "for host: DESKTOP-ABC123\n"
    )
    dll, tensorflow = sorted(windows, key=lambda f: f.code)
    assert (dll.code, dll.severity, dll.params["libraries"]) == (
        "DLL_NOT_FOUND",
        "warning",
        "cudart64_110.dll",
    )
    assert (tensorflow.code, tensorflow.params["variant"]) == ("TF_NO_GPU_FOUND", "no_driver")
    assert "(nvcuda.dll)" in tensorflow.message


def test_the_runtime_stub_alone_is_tensorflows_missing_cuda_libraries():
    finding = only_in(
        "tf-no-gpu-found_tf-local-tsl-cudart-stub-could-not-find-cuda-drivers-cpu-image_deepvariant-1076_partial.txt",
        "TF_NO_GPU_FOUND",
    )
    assert (finding.severity, finding.params["variant"]) == ("warning", "runtime")
    assert "tensorflow[and-cuda]" in finding.hint and finding.hint.startswith(BOTH_READINGS)


def test_the_lines_tensorflow_prints_around_its_failed_start_are_one_finding():
    # Its loader's dlerror of libcuda before cuInit's 303 (haotianteng/Chiron#99): the same fact.
    finding = only_in("tf-no-gpu-found_tf-libcuda-dlerror-cuinit-303-basecaller_chiron-99.txt")
    assert (finding.code, finding.params["variant"]) == ("TF_NO_GPU_FOUND", "no_driver")
    # Its diagnostics after CUDA_ERROR_NO_DEVICE: no kernel module (tensorflow/tensorflow#255).
    finding = only_in("tf-no-gpu-found_tf0.5-cuinit-no-device-kernel-driver-not-running_tensorflow-255.txt")
    assert (finding.code, finding.params["variant"]) == ("TF_NO_GPU_FOUND", "no_module")
    assert finding.hint.startswith(BOTH_READINGS) and "dkms autoinstall" in finding.hint
    # A CPU-only node (nanoporetech/medaka#214): cuInit's 303 alone.
    finding = only_in("tf-no-gpu-found_tf-cuinit-unknown-error-303-cpu-only-node_medaka-214.txt")
    assert finding.params["status"] == "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED (303)"


def test_a_log_that_shows_a_running_driver_is_a_gpu_machines_and_stays_an_error():
    # An RTX 3090 whose kernel module TensorFlow's diagnostics read (google/deepvariant#619).
    finding = only_in(
        "tf-no-gpu-found_tf-cuinit-cuda-error-unknown-kernel-reported-version-rtx3090_deepvariant-619.txt",
        "TF_NO_GPU_FOUND",
    )
    assert finding.severity == "error" and "variant" not in finding.params
    assert "context_hint" not in finding.params and "nvidia_uvm" in finding.hint
    # With a running driver, CUDA's "no device" is the device list's: the cluster node of
    # tensorflow/tensorflow#62494 keeps its finding.
    only_in(
        "cuda-device-not-visible_tf-cuinit-no-device-cluster-node-driver-matches_tensorflow-62494_partial.txt",
        "CUDA_DEVICE_NOT_VISIBLE",
    )


def test_what_names_the_cause_better_keeps_its_finding():
    # The log hides the GPUs itself (a real Windows session of 2018: "set CUDA_VISIBLE_DEVICES=-1").
    hidden = (
        "(dlwin36) $ set CUDA_VISIBLE_DEVICES=-1\n"
        "2018-06-15 11:59:58.152643: E T:\\src\\github\\tensorflow\\tensorflow\\stream_executor\\cuda\\"
        "cuda_driver.cc:406] failed call to cuInit: CUDA_ERROR_NO_DEVICE\n"
    )
    finding = only(hidden)
    assert (finding.code, finding.params["variant"]) == ("CUDA_DEVICE_NOT_VISIBLE", "hidden")
    # CUresults that have findings of their own: 3 (CUDA_INIT_FAILED), 802 (CUDA_SYSTEM_NOT_READY).
    assert codes(tf_start("CUDA_ERROR_NOT_INITIALIZED: initialization error")) == ["CUDA_INIT_FAILED"]
    assert codes(tf_start("CUDA_ERROR_SYSTEM_NOT_READY: system not yet initialized")) == [
        "CUDA_SYSTEM_NOT_READY"
    ]
    # TensorFlow found a GPU and could not open its libraries: its start did not fail.
    assert "TF_NO_GPU_FOUND" not in codes(
        tf_start("UNKNOWN ERROR (303)") + "W gpu_device.cc:2256] Cannot dlopen some GPU libraries.\n"
    )


def test_xlas_same_line_in_a_jax_log_is_left_to_jax():
    # XLA is JAX's too; its paths are external/xla, not TensorFlow's external/local_xla. CONSTRUCTED.
    jax = (
        ">>> import jax\n"
        "E external/xla/xla/stream_executor/cuda/cuda_driver.cc:152] failed call to cuInit: INTERNAL: "
        "CUDA error: Failed call to cuInit: UNKNOWN ERROR (303)\n"
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: no supported devices found for platform CUDA\n"
    )
    assert "TF_NO_GPU_FOUND" not in codes(jax)


def test_the_reading_for_a_gpu_machine_is_the_catalogs_error():
    finding = only(TF_218_LINUX)
    assert follows_machine(finding)
    on_gpu = as_on_gpu_machine(finding)
    template = template_for("TF_NO_GPU_FOUND", "no_driver")
    assert (on_gpu.severity, on_gpu.hint) == ("error", template.hint)
    assert "context_hint" not in on_gpu.params and not follows_machine(on_gpu)
    assert as_on_gpu_machine(on_gpu) == on_gpu
    # Other findings do not depend on the machine's GPU.
    out_of_memory = only("torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB")
    assert not follows_machine(out_of_memory) and as_on_gpu_machine(out_of_memory) == out_of_memory


# --- the machine decides ---------------------------------------------------------------------

WSL_LOG = (
    # TensorFlow 2.17 in WSL 2 without the Windows driver's libcuda. CONSTRUCTED: the WSL kernel's
    # name (uname -a) and TensorFlow's lines.
    "Linux DESKTOP-ABC123 5.15.167.4-microsoft-standard-WSL2 #1 SMP x86_64 GNU/Linux\n"
    + tf_start("UNKNOWN ERROR (303)")
)


def on(sample: str, text: str) -> list[Finding]:
    machine = load_system_report(SAMPLES / sample)
    return diagnose_on_machine(text, lambda: machine)[0]


@pytest.mark.parametrize("log", [TF_218_LINUX, tf_start("CUDA_ERROR_UNKNOWN: unknown error"), WSL_LOG])
def test_on_a_machine_without_a_gpu_tensorflows_start_is_a_note(log: str):
    [finding] = on("no-gpu.json", log)
    assert (finding.code, finding.severity) == ("TF_NO_GPU_FOUND", "info")
    assert finding.hint.startswith("This machine has no NVIDIA GPU, so TensorFlow runs on the CPU here")
    assert finding.hint.endswith("with a CUDA build of the framework.")


@pytest.mark.parametrize(
    ("sample", "log", "fix"),
    [
        ("linux-h200.json", TF_218_LINUX, "Install the NVIDIA driver"),
        # A GPU that nouveau drives: no NVIDIA driver, the same fix.
        ("linux-gtx970-nouveau.json", TF_218_LINUX, "Install the NVIDIA driver"),
        ("wsl2-rtx4070-laptop.json", WSL_LOG, "in WSL 2, install the driver on Windows"),
        (
            "linux-h200.json",
            tf_start("CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected"),
            "CUDA_VISIBLE_DEVICES",
        ),
    ],
)
def test_on_a_machine_with_a_gpu_it_is_the_error_with_its_fix(sample: str, log: str, fix: str):
    [finding] = on(sample, log)
    assert (finding.code, finding.severity) == ("TF_NO_GPU_FOUND", "error")
    assert BOTH_READINGS not in finding.hint and fix in finding.hint


def test_a_log_of_another_os_keeps_both_readings():
    windows_log = (
        tf_start("UNKNOWN ERROR (303)") + "C:\\Users\\<user>\\venv\\Lib\\site-packages\\tensorflow\n"
    )
    for sample in ("no-gpu.json", "linux-h200.json"):
        [finding] = on(sample, windows_log)
        assert finding.severity == "warning" and finding.hint.startswith(BOTH_READINGS)


def test_the_machine_is_learnt_for_a_finding_that_follows_it():
    asked: list[str] = []

    def machine():
        asked.append("machine")

    findings, builds = diagnose_on_machine(TF_218_LINUX, machine)
    assert asked == ["machine"] and builds == {} and [f.severity for f in findings] == ["warning"]


def test_a_quoted_long_line_starts_at_a_field_not_inside_a_time_stamp():
    # A journal's prefix puts TensorFlow's line past the room before the match (CONSTRUCTED prefix,
    # the line of tensorflow/tensorflow#57103).
    prefix = "Nov 22 10:11:12 build-node-07 python3[123456]: worker=3 job=nightly-tf-check step=7 " * 2
    line = (
        "2022-08-11 14:21:29.345331: W tensorflow/stream_executor/platform/default/dso_loader.cc:64] "
        "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    )
    [finding] = diagnose(prefix + line)
    evidence = finding.params["evidence"]
    assert evidence.startswith("…") and evidence.endswith("dlerror: cudart64_110.dll not found")
    kept = evidence[1:]
    at = (prefix + line).index(kept)
    assert (prefix + line)[at - 1] == " ", evidence  # the first kept word is whole
