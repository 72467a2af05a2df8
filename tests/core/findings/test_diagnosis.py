"""Diagnosis of logs: every recorded real log names exactly its codes, and other text none.

The logs in tests/fixtures/recorded/diagnose were posted by users in public issue trackers
(SOURCES.md says where); expected-codes.json lists the codes each one must give.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gpuwizard.core.findings.catalog import CATALOG
from gpuwizard.core.findings.diagnosis import (
    DIAGNOSIS_CODES,
    DIAGNOSIS_SCHEMA,
    SIGNATURES,
    diagnose,
    diagnosis_to_json,
)
from gpuwizard.core.findings.model import SEVERITY_ORDER, Finding
from harness.hypothesis_examples import examples

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded"
DIAGNOSE = RECORDED / "diagnose"
EXPECTED: dict[str, list[str]] = json.loads((DIAGNOSE / "expected-codes.json").read_text(encoding="utf-8"))

#: Real outputs recorded for other parts of the wizard that carry a known error.
OTHER_RECORDINGS: dict[str, set[str]] = {
    "cudnn9_error_could-not-locate-cudnn_ops64_9.dll_win.txt": {"DLL_NOT_FOUND"},
    "nvml_error_driver-library-mismatch_550.144.txt": {"NVML_DRIVER_LIBRARY_MISMATCH"},
    "nvml_error_driver-library-mismatch_570.124.txt": {"NVML_DRIVER_LIBRARY_MISMATCH"},
    "nvml_error_driver-library-mismatch_no-version-line.txt": {"NVML_DRIVER_LIBRARY_MISMATCH"},
    "envtools/pip-23.2.1_install_offline_no-matching-distribution.txt": {"NO_MATCHING_DISTRIBUTION"},
    "envtools/uv-0.13.9_pip-install_offline_no-solution.txt": {"NO_MATCHING_DISTRIBUTION"},
    "conda/conda_create--json_packages-not-found.json": {"NO_MATCHING_DISTRIBUTION"},
    "conda/micromamba2_create_packages-not-found.txt": {"NO_MATCHING_DISTRIBUTION"},
    # nvidia-smi when the driver's kernel module is not running (no WSL shows in the text).
    "nvidia-smi_error_couldnt-communicate_linux.txt": {"KERNEL_MODULE_MISMATCH"},
    "nvidia-smi_wsl2_error_couldnt-communicate_driver-not-loaded.txt": {"KERNEL_MODULE_MISMATCH"},
}

#: The diagnosis codes the contract names (docs/architecture.md, "The command-line and JSON contract") ("and for diagnosis of logs and test failures",
#: with the three that "serve diagnosis too"), plus the two Windows settings the issue adds.
CONTRACT_DIAGNOSIS_CODES = [
    "DLL_NOT_FOUND",
    "CUDNN_INTERNAL_ERROR",
    "NO_KERNEL_IMAGE",
    "GPU_OUT_OF_MEMORY",
    "CPU_ONLY_BUILD",
    "ZLIBWAPI_MISSING",
    "TORCH_DLL_LOAD_FAILED",
    "NO_MATCHING_DISTRIBUTION",
    "TF_CANNOT_DLOPEN_GPU_LIBS",
    "NVML_DRIVER_LIBRARY_MISMATCH",
    "DRIVER_TOO_OLD",
    "GPU_ARCH_UNSUPPORTED",
    "TENSORFLOW_GPU_PACKAGE_REMOVED",
    "LONG_PATHS_DISABLED",
    "MS_STORE_PYTHON",
]


def read(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="replace")


def codes(findings: list[Finding]) -> set[str]:
    return {finding.code for finding in findings}


def test_every_recording_has_its_expected_codes_and_a_source():
    recordings = {path.name for path in DIAGNOSE.glob("*.txt")}
    assert recordings == set(EXPECTED)
    sources = (DIAGNOSE / "SOURCES.md").read_text(encoding="utf-8")
    assert [name for name in sorted(recordings) if name not in sources] == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_recorded_log_names_exactly_its_codes(name: str):
    findings = diagnose(read(DIAGNOSE / name))
    assert codes(findings) == set(EXPECTED[name])
    assert len(findings) == len(codes(findings)), "one finding per code"


@pytest.mark.parametrize("name", sorted(OTHER_RECORDINGS))
def test_known_errors_in_other_recordings_are_recognised(name: str):
    assert codes(diagnose(read(RECORDED / name))) == OTHER_RECORDINGS[name]


def tool_outputs_without_errors() -> list[Path]:
    paths = [*RECORDED.glob("envtools/*"), *RECORDED.glob("conda/*")]
    paths += [*RECORDED.glob("nvidia-smi*"), *RECORDED.glob("lspci*"), *RECORDED.glob("nvcc*")]
    return sorted(
        path
        for path in paths
        if path.is_file()
        and path.name != "SOURCES.md"
        and str(path.relative_to(RECORDED)) not in OTHER_RECORDINGS
    )


@pytest.mark.parametrize("path", tool_outputs_without_errors(), ids=lambda path: path.name)
def test_real_outputs_without_errors_give_no_findings(path: Path):
    # Successful pip/uv/conda runs, nvidia-smi, lspci and nvcc output: real text, no known error.
    assert diagnose(read(path)) == []


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Successfully installed numpy-2.1.3 six-1.16.0",
        "Requirement already satisfied: torch in ./venv/lib/python3.12/site-packages (2.9.1)",
        "TensorFlow version: 2.16.1\n[PhysicalDevice(name='/physical_device:GPU:0', device_type='GPU')]",
        "ImportError: libGL.so.1: cannot open shared object file: No such file or directory",
        "The quick brown fox jumps over the lazy dog.",
    ],
)
def test_unrelated_and_successful_text_gives_no_findings(text: str):
    assert diagnose(text) == []


def test_design_codes_have_templates_signatures_and_recordings():
    recorded = {code for names in EXPECTED.values() for code in names}
    signed = {signature.code for signature in SIGNATURES}
    for code in CONTRACT_DIAGNOSIS_CODES:
        assert code in DIAGNOSIS_CODES
        assert any(key.partition(":")[0] == code for key in CATALOG), code
        assert code in recorded, f"no recorded log names {code}"
        assert code in signed
    assert set(DIAGNOSIS_CODES) <= recorded


def test_every_signature_cites_a_report_and_matches_a_recorded_log():
    logs = [read(DIAGNOSE / name) for name in EXPECTED] + [read(RECORDED / name) for name in OTHER_RECORDINGS]
    for signature in SIGNATURES:
        assert signature.source.startswith("https://"), signature
        assert signature.code in CATALOG
        if signature.variant:
            assert f"{signature.code}:{signature.variant}" in CATALOG
        assert any(signature.pattern.search(log) for log in logs), signature.pattern.pattern


def test_values_read_from_real_logs():
    def finding(name: str, code: str) -> Finding:
        return next(f for f in diagnose(read(DIAGNOSE / name)) if f.code == code)

    dll = finding("dll-not-found_tf2.9-win-cudart64_110_tensorflow-57103.txt", "DLL_NOT_FOUND")
    assert dll.params["libraries"] == "cudart64_110.dll" and dll.params["components"] == "CUDA 11"
    assert "cudart64_110.dll (part of CUDA 11)" in dll.message
    assert "Could not load dynamic library 'cudart64_110.dll'" in dll.params["evidence"]

    linux = finding(
        "tf-cannot-dlopen_linux-libcusolver-nvjitlink_nvidia-tensorflow-110_partial.txt", "DLL_NOT_FOUND"
    )
    assert linux.params["libraries"] == "libcusolver.so.11, libnvJitLink.so.12"

    arch = finding(
        "gpu-arch-unsupported_rtx5090-sm_120-win-markdown-backticks_applio-1006.txt", "GPU_ARCH_UNSUPPORTED"
    )
    assert (arch.params["gpu"], arch.params["capability"]) == ("NVIDIA GeForce RTX 5090", "sm_120")
    assert arch.params["supported"] == "sm_50 sm_60 sm_61 sm_70 sm_75 sm_80 sm_86 sm_90"
    assert "cu128" in arch.hint

    old = finding(
        "gpu-arch-unsupported_gtx660ti-cc3.0-too-old-plus-no-kernel-image_avatarify-58.txt",
        "GPU_ARCH_UNSUPPORTED",
    )
    assert (old.params["gpu"], old.params["capability"], old.params["minimum"]) == (
        "GeForce GTX 660 Ti",
        "3.0",
        "3.5",
    )

    driver = finding("driver-too-old_torch-found-11000-userwarning_yuan2-65.txt", "DRIVER_TOO_OLD")
    assert driver.params["driver_cuda"] == "11.0" and "CUDA up to 11.0" in driver.message

    pip = finding(
        "no-matching-distribution_pip-tensorflow-gpu-2.5.0-macos_ml-privacy-meter-41.txt",
        "NO_MATCHING_DISTRIBUTION",
    )
    assert pip.params["requirements"] == "tensorflow-gpu==2.5.0"
    assert pip.params["versions"] == "0.12.1, 1.0.0, 1.0.1, 1.1.0"

    conda = finding(
        "no-matching-distribution_conda-tensorflow-gpu-osx_fast-style-transfer-266.txt",
        "NO_MATCHING_DISTRIBUTION",
    )
    assert conda.params["packages"] == "tensorflow-gpu"

    torch_dll = finding(
        "torch-dll-load-failed_fbgemm-torch2.4-jupyter-json-escaped_pytorch-131662.txt",
        "TORCH_DLL_LOAD_FAILED",
    )
    assert torch_dll.params["library"] == "fbgemm.dll"
    assert (
        torch_dll.params["path"]
        == "c:\\Users\\<user>\\anaconda3\\envs\\DL\\Lib\\site-packages\\torch\\lib\\fbgemm.dll"
    )

    store = finding(
        "ms-store-python_windowsapps-lowercase-paths_tensorflow-90245_partial.txt", "MS_STORE_PYTHON"
    )
    assert store.params["python"] == "3.9, 3.10"

    long_path = finding(
        "long-paths_pip-oserror-266-chars-no-hint_tensorflow-51841.txt", "LONG_PATHS_DISABLED"
    )
    assert long_path.params["length"] == "266"

    cudnn = finding("cudnn-version-mismatch_tf-8.0.4-vs-8.1.0_deeplab2-66.txt", "CUDNN_VERSION_MISMATCH")
    assert "built with cuDNN 8.1.0, but cuDNN 8.0.4 was loaded" in cudnn.message and "8.x" in cudnn.hint

    oom = finding("gpu-oom_torch-old-format-backticks_pytorch-59778.txt", "GPU_OUT_OF_MEMORY")
    assert oom.params["size"] == "2.26 GiB"

    nvml = finding(
        "nvml-mismatch_nvidia-smi-550.144-ci-log_mozilla-translations-1167.txt",
        "NVML_DRIVER_LIBRARY_MISMATCH",
    )
    assert nvml.params["nvml_version"] == "550.144"


def test_tensorflow_hints_fit_windows_and_linux():
    windows = diagnose(read(DIAGNOSE / "tf-cannot-dlopen_tf2.4-win-cusparse64_11_tensorflow-46086.txt"))
    linux = diagnose(read(DIAGNOSE / "tf-cannot-dlopen_tf2.16-linux_tensorflow-65035.txt"))
    [windows_tf] = [f for f in windows if f.code == "TF_CANNOT_DLOPEN_GPU_LIBS"]
    [linux_tf] = linux
    assert windows_tf.params["variant"] == "windows" and "WSL 2" in windows_tf.hint
    assert "TensorFlow 2.10" in windows_tf.hint
    assert "variant" not in linux_tf.params and "tensorflow[and-cuda]" in linux_tf.hint


def test_errors_come_first_then_the_order_of_appearance():
    text = (
        "Requirement already satisfied: pip in c:\\program files\\windowsapps\\"
        "pythonsoftwarefoundation.python.3.12_3.12.2800.0_x64__qbz5n2kfra8p0\\lib\\site-packages\n"
        "AssertionError: Torch not compiled with CUDA enabled\n"
        "ERROR: No matching distribution found for torch==9.9\n"
    )
    assert [f.code for f in diagnose(text)] == [
        "CPU_ONLY_BUILD",
        "NO_MATCHING_DISTRIBUTION",
        "MS_STORE_PYTHON",
    ]
    assert [SEVERITY_ORDER[f.severity] for f in diagnose(text)] == [0, 0, 1]


def test_matches_of_one_code_merge_into_one_finding():
    text = (
        "W dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
        "W dso_loader.cc:64] Could not load dynamic library 'cudnn64_8.dll'; dlerror: cudnn64_8.dll not found\n"
        "W dso_loader.cc:64] Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found\n"
    )
    [finding] = diagnose(text)
    assert finding.params["libraries"] == "cudart64_110.dll, cudnn64_8.dll"
    assert finding.params["components"] == "CUDA 11, cuDNN 8"
    assert finding.params["evidence"].endswith("dlerror: cudart64_110.dll not found")


@pytest.mark.parametrize(
    ("library", "component"),
    [
        ("cudart64_101.dll", "CUDA 10.1"),
        ("cudart64_12.dll", "CUDA 12"),
        ("cublas64_11.dll", "CUDA 11"),
        ("cusparse64_12.dll", "CUDA 12"),
        ("libcudart.so.11.0", "CUDA 11"),
        ("libcudart.so.10.1", "CUDA 10.1"),
        ("cudnn_ops64_9.dll", "cuDNN 9"),
        ("libcudnn_cnn_infer.so.8", "cuDNN 8"),
        ("cufft64_10.dll", None),  # cuFFT 10 ships with CUDA 11: its number says nothing
    ],
)
def test_the_cuda_release_of_a_library_is_named_where_its_file_name_tells(
    library: str, component: str | None
):
    [finding] = diagnose(f"Could not load dynamic library '{library}'; dlerror: {library} not found")
    assert finding.params.get("components") == component


def test_a_missing_driver_library_means_no_driver():
    text = (
        "Could not load dynamic library 'libcuda.so.1'; dlerror: libcuda.so.1: cannot open shared object file"
    )
    [finding] = diagnose(text)
    assert finding.params["variant"] == "driver" and "--gpus all" in finding.hint


def test_a_module_built_for_another_cuda_is_named_as_the_fix():
    # mmcv's extension built for CUDA 10.2 (open-mmlab/mmcv#1224): its build, not CUDA 10.2, is the fix.
    text = (DIAGNOSE / "dll-not-found_mmcv-ops-built-for-cuda10.2-on-cu111_mmcv-1224_partial.txt").read_text()
    [finding] = diagnose(text)
    assert finding.params["variant"] == "import_package" and finding.params["package"] == "mmcv"
    assert "mmcv could not be imported" in finding.message and "pip uninstall mmcv" in finding.hint
    # CONSTRUCTED: the framework itself missing its CUDA runtime is a broken install of it.
    torch_import = (
        '  File "/venv/lib/python3.11/site-packages/torch/__init__.py", line 237, in <module>\n'
        "    from torch._C import *  # noqa: F403\n"
        "ImportError: libcudart.so.12: cannot open shared object file: No such file or directory\n"
    )
    [finding] = diagnose(torch_import)
    assert finding.params["variant"] == "cuda"
    # CONSTRUCTED: the loader's words alone, not raised by an import, keep the plain reading.
    [finding] = diagnose("libcudart.so.10.1: cannot open shared object file: No such file or directory\n")
    assert finding.params["variant"] == "cuda"


def test_the_quoted_line_shows_the_message_where_a_long_line_holds_it_late():
    # Ollama's journal: the refusal stands 300 characters into its line (ollama/ollama#12692).
    text = (DIAGNOSE / "ollama-system-memory_granite4-hybrid-estimate_ollama-12692.txt").read_text()
    [finding] = diagnose(text)
    evidence = str(finding.params["evidence"])
    assert evidence.startswith("…") and "model requires more system memory (5.5 GiB)" in evidence
    assert len(evidence) <= 240


def test_specific_findings_suppress_the_generic_ones_they_explain():
    arch = (
        "UserWarning:\nNVIDIA GeForce RTX 5080 with CUDA capability sm_120 is not compatible with the current "
        "PyTorch installation.\nRuntimeError: CUDA error: no kernel image is available for execution on the device"
    )
    assert codes(diagnose(arch)) == {"GPU_ARCH_UNSUPPORTED"}
    assert codes(diagnose(arch.split("\n", 2)[2])) == {"NO_KERNEL_IMAGE"}
    cudnn = (
        "Loaded runtime CuDNN library: 8.0.4 but source was compiled with: 8.1.0.\n"
        "Could not create cudnn handle: CUDNN_STATUS_INTERNAL_ERROR"
    )
    assert codes(diagnose(cudnn)) == {"CUDNN_VERSION_MISMATCH"}


def test_optional_and_host_side_messages_are_not_gpu_problems():
    assert (
        diagnose("Could not load dynamic library 'libnvinfer.so.7'; dlerror: libnvinfer.so.7: not found")
        == []
    )
    assert diagnose("Could not locate zlibwapi.dll. Please make sure it is in your library path!")[
        0
    ].code == ("ZLIBWAPI_MISSING")
    cpu_oom = "OOM when allocating tensor with shape[8,3] and type float on /job:localhost/replica:0/task:0/device:CPU:0"
    assert diagnose(cpu_oom) == []


def test_only_paths_beyond_the_windows_limit_count_as_long():
    def pip_error(length: int) -> str:
        path = "C:\\\\" + "a" * (length - 3)  # printed as repr(): backslashes doubled
        return f"ERROR: Could not install packages due to an OSError: [Errno 2] No such file or directory: '{path}'"

    assert diagnose(pip_error(259)) == []
    [finding] = diagnose(pip_error(260))
    assert finding.code == "LONG_PATHS_DISABLED" and finding.params["length"] == "260"


def test_logs_quoted_in_json_are_read_too():
    # conda --json prints its error inside a JSON string: the newlines are escapes.
    report = json.dumps(
        {
            "exception_name": "PackagesNotFoundError",
            "error": "PackagesNotFoundError: The following packages are not available from current channels:"
            "\n\n  - pytorch-cuda=99.1\n  - tensorflow-gpu\n\nCurrent channels:\n\n  - https://conda.anaconda.org/",
        }
    )
    findings = diagnose(report)
    assert codes(findings) == {"NO_MATCHING_DISTRIBUTION", "TENSORFLOW_GPU_PACKAGE_REMOVED"}
    assert findings[0].params["requirements"] == "pytorch-cuda=99.1, tensorflow-gpu"


def test_tensorflow_gpu_is_named_whichever_installer_missed_it():
    uv = (
        "  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because tensorflow-gpu was not found in the package registry and you require tensorflow-gpu, "
        "we can conclude that your requirements are unsatisfiable."
    )
    assert codes(diagnose(uv)) == {"NO_MATCHING_DISTRIBUTION", "TENSORFLOW_GPU_PACKAGE_REMOVED"}
    assert codes(diagnose("ERROR: No matching distribution found for tensorflow_gpu==2.10.0")) == {
        "NO_MATCHING_DISTRIBUTION",
        "TENSORFLOW_GPU_PACKAGE_REMOVED",
    }


def test_json_form():
    findings = diagnose(read(DIAGNOSE / "long-paths_pip-hint-ms-store-py3.10_vulncheck-sdk-python-1.txt"))
    data = diagnosis_to_json(findings)
    assert data["schema"] == DIAGNOSIS_SCHEMA == "gpuwizard.diagnosis/1"
    entries = data["findings"]
    assert isinstance(entries, list) and len(entries) == 2
    for entry in entries:
        assert {"code", "severity", "message", "hint", "params"} <= set(entry)
    json.dumps(data)


#: Pieces of the known messages, so that generated text often comes close to a signature.
FRAGMENTS = [
    "Could not load dynamic library '",
    "cudart64_110.dll",
    "libcudnn.so.8: cannot open shared object file",
    "' dlerror",
    "Cannot dlopen some GPU libraries",
    " with CUDA capability sm_",
    " is not compatible with the current PyTorch installation",
    "supports CUDA capabilities sm_50 ",
    "Found GPU0 ",
    " which is of cuda capability 3.0",
    "The NVIDIA driver on your system is too old (found version ",
    "CUDA out of memory. Tried to allocate ",
    "OOM when allocating tensor with shape[",
    "device:CPU:0",
    'Error loading "',
    "\\torch\\lib\\",
    ".dll",
    "No matching distribution found for ",
    "Could not find a version that satisfies the requirement ",
    "(from versions: ",
    "Because there is no version of ",
    "PackagesNotFoundError: The following packages are not available from current channels:",
    "\n  - ",
    "└─ ",
    " does not exist (perhaps a typo or a missing channel)",
    "Loaded runtime CuDNN library: 8.0.4 but source was compiled with: ",
    "Could not install packages due to an OSError: [Errno 2] No such file or directory: '",
    "PythonSoftwareFoundation.Python.3.",
    "\\n",
    '\\"',
    "\\\\",
    "\n",
    "'",
    '"',
    "9",
]


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=40)), max_size=30).map("".join))
def test_any_text_gives_well_formed_findings_and_never_raises(text: str):
    findings = diagnose(text)
    assert len({f.code for f in findings}) == len(findings)
    assert [SEVERITY_ORDER[f.severity] for f in findings] == sorted(
        SEVERITY_ORDER[f.severity] for f in findings
    )
    for finding in findings:
        assert finding.code in DIAGNOSIS_CODES
        assert finding.message and finding.hint
        assert isinstance(finding.params["evidence"], str) and finding.params["evidence"]


@settings(max_examples=examples(200), deadline=None)
@given(st.text())
def test_arbitrary_unicode_never_raises(text: str):
    assert all(isinstance(finding, Finding) for finding in diagnose(text))


@pytest.mark.parametrize(
    "text",
    [
        "Error loading " + "\\" * 200_000,
        "Found GPU0 " + "x" * 200_000,
        "lib" * 100_000,
        "Because " + "a" * 200_000,
        "PackagesNotFoundError: The following packages are not available from current channels:"
        + "\n  - x" * 20_000,
        "x with CUDA capability sm_1" * 20_000,
    ],
)
@pytest.mark.timeout(60, method="thread")  # a regular expression stuck in C is stopped only by a thread
def test_long_adversarial_lines_are_read_in_reasonable_time(text: str):
    # Bounded patterns: these finish in well under a second (a backtracking pattern would hang here).
    diagnose(text)
