"""What real logs say about the set-up they ran on (issue 22, point 2: versions in the log are read)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.findings.log_facts import LogFacts, read_log_facts

DIAGNOSE = Path(__file__).parents[2] / "fixtures" / "recorded" / "diagnose"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        (
            "no-kernel-image_win-python3.7_paper99-srfbn-47.txt",
            {"frameworks": ("pytorch",), "python": "3.7", "os_family": "windows"},
        ),
        (
            "gpu-arch-unsupported_rtx5090-sm_120-win-markdown-backticks_applio-1006.txt",
            {"gpu_capability": "12.0", "gpu": "NVIDIA GeForce RTX 5090", "os_family": "windows"},
        ),
        (
            "gpu-arch-unsupported_rtx3070-sm_86-plus-no-kernel-image_pytorch-52736_partial.txt",
            {"python": "3.6", "gpu_capability": "8.6", "gpu": "GeForce RTX 3070", "os_family": "linux"},
        ),
        (
            "dll-not-found_tf2.9-win-cudart64_110_tensorflow-57103.txt",
            {"frameworks": ("tensorflow",), "os_family": "windows"},
        ),
        (
            "cudnn-version-mismatch_torch-8.5.0-vs-8.4.1-ld-library-path_gladia-928.txt",
            {"python": "3.8", "os_family": "linux"},
        ),
    ],
)
def test_real_logs_give_their_python_gpu_and_os(name: str, expected: dict[str, object]):
    facts = read_log_facts((DIAGNOSE / name).read_text(encoding="utf-8"))
    assert {key: getattr(facts, key) for key in expected} == expected


def test_builds_versions_and_architectures_are_read_in_their_usual_spellings():
    # CONSTRUCTED lines in the spellings pip, torch and TensorFlow print.
    facts = read_log_facts(
        "Successfully installed torch-2.7.1+cu128 torchvision-0.22.1+cu128\n"
        "Created device /job:localhost/replica:0/task:0/device:GPU:0 with 9618 MB memory: "
        "-> device: 0, name: NVIDIA GeForce RTX 3080, pci bus id: 0000:01:00.0, compute capability: 8.6\n"
        "Loaded cuDNN version 8907 ... cuDNN: 9.1.0\n"
        "C:\\Python312\\Lib\\site-packages\\torch\\__init__.py\n"
    )
    assert facts.framework_version == "2.7.1" and facts.build_cuda == "12.8"
    assert facts.gpu_capability == "8.6" and facts.cudnn == "9.1.0"
    assert facts.python == "3.12" and facts.os_family == "windows"
    assert read_log_facts("ok") == LogFacts()
    assert read_log_facts("tensorflow==2.10.1 on /usr/lib/wsl/lib/libcuda.so.1").os_family == "wsl"
    assert read_log_facts("Python 3.13.1 (main)").python == "3.13"
    assert read_log_facts("kernel for sm_120 missing, torch 2.6.0+cu124").build_cuda == "12.4"
