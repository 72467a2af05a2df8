"""Diagnosis of platform errors: containers, Windows' paging file, XLA's ptxas (issue 22).

The real logs are in tests/fixtures/recorded/diagnose (SOURCES.md says where each was posted);
test_diagnosis.py checks that each names exactly its codes. These tests check what the findings
say and how they are matched.
"""

from __future__ import annotations

from gpuwizard.core.findings.diagnosis import diagnose
from harness.recorded_logs import recorded


def test_paging_file_error_is_matched_by_its_number_in_any_language():
    chinese = recorded("windows-paging-file-too-small_chinese-caffe2-dll_pytorch-segmentation-118.txt")
    [finding] = diagnose(chinese)
    assert finding.code == "WINDOWS_PAGING_FILE_TOO_SMALL"
    assert "num_workers" in finding.hint and "page file" in finding.hint
    assert "Visual C++" not in finding.hint
    # CONSTRUCTED line, not a real log: the same error with German words around the number.
    german = "OSError: [WinError 1455] Die Auslagerungsdatei ist zu klein, um diesen Vorgang durchzuführen"
    assert [f.code for f in diagnose(german)] == ["WINDOWS_PAGING_FILE_TOO_SMALL"]
    # CONSTRUCTED line: Rust's io::Error form ("os error 1455"), as ComfyUI users quote it.
    assert [f.code for f in diagnose("The paging file is too small (os error 1455)")] == [
        "WINDOWS_PAGING_FILE_TOO_SMALL"
    ]
    # Other Windows error numbers are not this error.
    assert diagnose("OSError: [WinError 14550] something else") == []


def test_paging_file_error_suppresses_the_visual_cpp_advice():
    english = recorded("windows-paging-file-too-small_english-cudnn_adv_infer64_8_diff-svc-24.txt")
    assert [f.code for f in diagnose(english)] == ["WINDOWS_PAGING_FILE_TOO_SMALL"]
    # Without the error number, the same torch line still gets the DLL advice.
    other = english.replace(
        "[WinError 1455] The paging file is too small for this operation to complete", "[WinError 126]"
    )
    assert [f.code for f in diagnose(other)] == ["TORCH_DLL_LOAD_FAILED"]


def test_container_findings_give_the_container_fixes():
    [nvml] = diagnose(
        recorded(
            "container-nvml-unknown-error_nvidia-smi-L-in-container-host-ok_nvidia-container-toolkit-1227.txt"
        )
    )
    assert nvml.code == "CONTAINER_NVML_UNKNOWN_ERROR"
    assert "daemon-reload" in nvml.hint and "nvidia-ctk cdi generate" in nvml.hint
    for name in (
        "docker-no-gpu-runtime_compose-rocky8.7_sd-webui-docker-423.txt",
        "docker-no-gpu-runtime_empty-driver-chinese_chinese-llama-2-7b-32.txt",
    ):
        [docker] = diagnose(recorded(name))
        assert docker.code == "DOCKER_NO_GPU_RUNTIME"
        assert "nvidia-ctk runtime configure --runtime=docker" in docker.hint
        assert "restart docker" in docker.hint
    # The driver/library mismatch is another NVML error, with its own finding.
    assert [f.code for f in diagnose("Failed to initialize NVML: Driver/library version mismatch")] == [
        "NVML_DRIVER_LIBRARY_MISMATCH"
    ]


def test_missing_and_old_ptxas_get_their_own_texts():
    for name in (
        "xla-ptxas-missing_tf2.20-rtx5060ti-no-ptx-provider_tensorflow-5090-3_partial.txt",
        "xla-ptxas-missing_jax-nix-no-suitable-ptxas_nixpkgs-375186_partial.txt",
    ):
        [missing] = diagnose(recorded(name))
        assert missing.code == "XLA_PTXAS_MISSING" and "variant" not in missing.params
        assert "nvidia-cuda-nvcc-cu12" in missing.hint
    [old] = diagnose(recorded("xla-ptxas-missing_jaxlib0.1.67-ptxas-8-too-old_jax-6799.txt"))
    assert old.code == "XLA_PTXAS_MISSING"
    assert old.params["variant"] == "too_old" and old.params["ptxas"] == "8.x"
    assert "nvidia-cuda-nvcc-cu12" in old.hint and "PATH" in old.hint
