"""``diagnose [FILE|-] [--json]``: the recorded real logs, standard input, exit codes, bad input.

The command is built here with its own small parser (``add_parser``), the same call
``gpuwizard``'s parser makes.
"""

from __future__ import annotations

import argparse
import codecs
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from gpuwizard.cli import diagnose as diagnose_command
from gpuwizard.cli.common import UsageError
from gpuwizard.cli.diagnose import decode_log
from gpuwizard.cli.text.findings import render_diagnosis

DIAGNOSE = Path(__file__).parent.parent / "fixtures" / "recorded" / "diagnose"
EXPECTED: dict[str, list[str]] = json.loads((DIAGNOSE / "expected-codes.json").read_text(encoding="utf-8"))

TORCH_CPU = "AssertionError: Torch not compiled with CUDA enabled\n"


def run(*argv: str) -> tuple[int, str]:
    parser = argparse.ArgumentParser(prog="gpuwizard")
    diagnose_command.add_parser(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["diagnose", *argv])
    out: list[str] = []
    return diagnose_command.run(args, out.append), "".join(out)


def set_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_json_names_the_right_codes_for_each_recorded_log(name: str):
    code, out = run(str(DIAGNOSE / name), "--json")
    data = json.loads(out)
    assert data["schema"] == "gpuwizard.diagnosis/1"
    assert sorted(finding["code"] for finding in data["findings"]) == EXPECTED[name]
    # An error is quoted only when nothing explains it; a recorded log is either one or benign.
    assert data["unrecognised_error"] is None or not data["findings"]
    # Notes alone (severity info) are no problem: exit 0.
    problems = [f for f in data["findings"] if f["severity"] in {"error", "warning"}]
    assert code == (1 if problems else 0)
    for finding in data["findings"]:
        assert finding["severity"] in {"error", "warning", "info"}
        assert finding["message"] and finding["hint"] and isinstance(finding["params"], dict)


def test_text_output_has_one_block_per_finding_with_what_was_seen_and_the_fix():
    log = DIAGNOSE / "tf-cannot-dlopen_tf2.4-win-cusparse64_11_tensorflow-46086.txt"
    code, out = run(str(log))
    assert code == 1
    assert out.startswith("Recognised 2 known problems:\n")
    assert "ERROR    DLL_NOT_FOUND" in out and "ERROR    TF_CANNOT_DLOPEN_GPU_LIBS" in out
    assert "    seen: Could not load dynamic library 'cusparse64_11.dll'" in out
    assert out.count("\n    -> ") == 2


def test_unknown_text_gives_no_findings_and_exit_0(tmp_path: Path):
    log = tmp_path / "ok.log"
    log.write_text("Successfully installed numpy-2.1.3 six-1.16.0\n")
    assert run(str(log)) == (0, "No known problem recognised.\n")
    code, out = run(str(log), "--json")
    assert (code, json.loads(out)) == (
        0,
        {"schema": "gpuwizard.diagnosis/1", "findings": [], "unrecognised_error": None},
    )


# https://github.com/vllm-project/vllm/issues/2418 (shortened; the user's name replaced), its last line
# CONSTRUCTED from vLLM's own message (registry.py): the report's own error is now recognised.
VLLM_ERROR = """\
Traceback (most recent call last):
  File "load_llm.py", line 8, in <module>
    llm = LLM(model='/home/ana/models/alpaca-2')
  File "/home/ana/envs/llm/lib/python3.8/site-packages/vllm/entrypoints/llm.py", line 105, in __init__
    self.llm_engine = LLMEngine.from_engine_args(engine_args)
ValueError: Model architectures ['Gemma3ForCausalLM'] are not supported for now.
"""


def test_an_unrecognised_error_is_quoted_with_the_ways_forward(tmp_path: Path):
    log = tmp_path / "vllm.log"
    log.write_text(VLLM_ERROR, encoding="utf-8")
    code, out = run(str(log), "--log-only")
    assert code == 0  # nothing recognised: the contract's exit codes are about findings
    assert out.startswith("Not recognised: the log ends in an error the wizard does not know yet")
    assert "    ValueError: Model architectures ['Gemma3ForCausalLM'] are not supported for now." in out
    assert "from: vLLM" in out
    assert "gpuwizard report --out report.html" in out
    assert "https://github.com/vllm-project/vllm/issues?q=%22ValueError%3A%20Model%20architectures" in out
    code, out = run(str(log), "--log-only", "--json")
    data = json.loads(out)
    assert list(data) == ["schema", "findings", "unrecognised_error"]
    assert data["findings"] == []
    error = data["unrecognised_error"]
    assert error["lines"] == [VLLM_ERROR.splitlines()[-1]]
    assert (error["component"], error["project"]) == ("vLLM", "vllm-project/vllm")
    assert error["search_url"].startswith("https://github.com/vllm-project/vllm/issues?q=%22ValueError")


def test_a_recognised_log_has_no_unrecognised_error():
    log = DIAGNOSE / "tf-cannot-dlopen_tf2.4-win-cusparse64_11_tensorflow-46086.txt"
    _, out = run(str(log), "--json", "--log-only")
    data = json.loads(out)
    assert data["findings"] and data["unrecognised_error"] is None


@pytest.mark.parametrize("argv", [(), ("-",)], ids=["no-file", "dash"])
def test_standard_input_is_read_without_a_file_or_with_a_dash(
    monkeypatch: pytest.MonkeyPatch, argv: tuple[str, ...]
):
    set_stdin(monkeypatch, TORCH_CPU.encode())
    code, out = run(*argv, "--json")
    assert code == 1
    assert [finding["code"] for finding in json.loads(out)["findings"]] == ["CPU_ONLY_BUILD"]


def test_empty_standard_input_is_no_problem(monkeypatch: pytest.MonkeyPatch):
    set_stdin(monkeypatch, b"")
    assert run() == (0, "No known problem recognised.\n")


def test_powershell_utf16_logs_and_invalid_utf8_are_read(tmp_path: Path):
    # PowerShell 5's `python train.py > log.txt` writes UTF-16 LE with a byte order mark.
    utf16 = tmp_path / "powershell.log"
    utf16.write_bytes(codecs.BOM_UTF16_LE + ("Traceback...\r\n" + TORCH_CPU).encode("utf-16-le"))
    assert run(str(utf16))[0] == 1
    no_bom = tmp_path / "no-bom.log"
    no_bom.write_bytes(TORCH_CPU.encode("utf-16-le"))
    assert run(str(no_bom))[0] == 1
    latin1 = tmp_path / "latin1.log"
    latin1.write_bytes("Le module spécifié est introuvable.\n".encode("latin-1") + TORCH_CPU.encode())
    assert run(str(latin1))[0] == 1
    assert decode_log(codecs.BOM_UTF8 + b"abc") == "abc"


def test_warnings_alone_also_fail_the_check(tmp_path: Path):
    log = tmp_path / "store.log"
    log.write_text(
        "Requirement already satisfied: pip in c:\\program files\\windowsapps\\"
        "pythonsoftwarefoundation.python.3.12_3.12.2800.0_x64__qbz5n2kfra8p0\\lib\\site-packages (24.0)\n"
    )
    code, out = run(str(log), "--json")
    assert code == 1
    assert [(f["code"], f["severity"]) for f in json.loads(out)["findings"]] == [
        ("MS_STORE_PYTHON", "warning")
    ]


def test_a_file_that_cannot_be_read_is_bad_input_in_one_line(tmp_path: Path):
    with pytest.raises(UsageError) as missing:
        run(str(tmp_path / "missing.log"))
    assert "missing.log" in str(missing.value) and "\n" not in str(missing.value)
    with pytest.raises(UsageError):
        run(str(tmp_path))  # a folder


def test_rendering_wraps_to_the_width():
    from gpuwizard.core.findings.diagnosis import diagnose

    findings = diagnose((DIAGNOSE / "zlibwapi-missing_darknet-cudnn8.4.1_darknet-8551.txt").read_text())
    text = render_diagnosis(findings, width=60)
    assert all(len(line) <= 60 for line in text.splitlines())
    assert text.startswith("Recognised 1 known problem:\n")


def test_the_command_module_stays_headless():
    # `diagnose` must start fast and run anywhere: no Qt, no subprocess (docs/architecture.md, "The layers").
    code = (
        "import sys, gpuwizard.cli.diagnose; "
        "print(sorted(m for m in ('PySide6', 'subprocess', 'pynvml', 'requests') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]"


def test_the_issues_unreachable_index_log_is_recognised_through_the_command():
    # The log the wizard wrote when the newcomer's install failed on download.pytorch.org (issue
    # 20): before, "No known problem recognised." and exit 0.
    from harness.entry_point import gpuwizard

    log = (
        DIAGNOSE
        / "package-index-unreachable_gpuwizard-env-create-log-uv-dns-download.pytorch.org_recorded-here.txt"
    )
    done = gpuwizard("diagnose", str(log))
    assert done.returncode == 1, done.stdout + done.stderr
    text = " ".join(done.stdout.split())
    assert "PACKAGE_INDEX_UNREACHABLE" in text
    assert (
        "The package index https://download.pytorch.org/whl/cpu cannot be reached: the name download.pytorch.org cannot be looked up (DNS)."
        in text
    )
    assert "GPUWIZARD_PYTORCH_INDEX_URL" in text and "--find-links DIR --offline" in text
    as_json = json.loads(gpuwizard("diagnose", str(log), "--json").stdout)
    (finding,) = as_json["findings"]
    assert (finding["code"], finding["params"]["variant"], finding["params"]["host"]) == (
        "PACKAGE_INDEX_UNREACHABLE",
        "dns",
        "download.pytorch.org",
    )


@pytest.mark.parametrize(
    ("tool", "failure", "host"),
    [
        ("uv-0.13.9", "refused-closed-port", "127.0.0.1:9"),
        ("pip-26.3", "refused-closed-port", "127.0.0.1:9"),
        ("uv-0.13.9", "proxy-407", "pypi.org"),
        ("pip-23.2.1", "proxy-407", "pypi.org"),
        ("pip-23.2.1", "proxy-closed-port", "pypi.org"),
        ("uv-0.13.9", "tls-unknown-issuer", "127.0.0.1:36361"),
        ("pip-26.3", "timeout-silent-server", "127.0.0.1:45249"),
    ],
)
def test_each_way_an_index_fails_is_named(tool: str, failure: str, host: str):
    (log,) = DIAGNOSE.glob(f"package-index-unreachable_{tool}-{failure}_recorded-here.txt")
    code, out = run(str(log), "--json")
    (finding,) = json.loads(out)["findings"]
    variant = {"proxy-407": "proxy_auth", "proxy-closed-port": "proxy", "tls-unknown-issuer": "tls"}.get(
        failure, failure.split("-", maxsplit=1)[0]
    )
    assert (code, finding["params"]["variant"], finding["params"]["host"]) == (1, variant, host)
    # pip's "No matching distribution found" is the index never read, not a missing release.
    assert finding["code"] == "PACKAGE_INDEX_UNREACHABLE"


REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"
NO_KERNEL_LOG = DIAGNOSE / "no-kernel-image_torch2.7.1-cu128-rtx2060_comfyui-10326_partial.txt"


@pytest.mark.parametrize(
    ("report", "gpu", "variant"),
    [
        ("windows-gtx1080-531.79.json", "NVIDIA GeForce GTX 1080", "cu126"),
        ("windows-rtx5090-576.02.json", "NVIDIA GeForce RTX 5090", "cu128"),
    ],
)
def test_with_a_system_report_the_hint_names_the_build_for_that_machine(report: str, gpu: str, variant: str):
    # Issue 22's acceptance: the same "no kernel image" log, a Pascal card and an RTX 50-series
    # card: each gets the concrete build the recommender plans for it (command line and JSON).
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuwizard",
            "diagnose",
            str(NO_KERNEL_LOG),
            "--system",
            str(REPORTS / report),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 1, completed.stderr
    data = json.loads(completed.stdout)
    [finding] = data["findings"]
    assert finding["code"] == "NO_KERNEL_IMAGE"
    assert finding["hint"].startswith(f"For this machine ({gpu}, ")
    assert f"--index-url https://download.pytorch.org/whl/{variant}" in finding["hint"]
    build = data["machine"]["builds"]["pytorch"]
    assert build["build"].endswith(f"({variant})") and build["gpu_supported"] is True
    assert data["machine"]["report"] == str(REPORTS / report)
    code, text = run(str(NO_KERNEL_LOG), "--system", str(REPORTS / report))
    assert code == 1 and f"For this machine ({gpu}," in " ".join(text.split())


def test_log_only_keeps_to_the_log_and_a_bad_report_is_bad_input(tmp_path: Path):
    code, out = run(str(NO_KERNEL_LOG), "--log-only", "--json")
    data = json.loads(out)
    assert code == 1 and "machine" not in data
    assert not data["findings"][0]["hint"].startswith("For this machine")
    broken = tmp_path / "report.json"
    broken.write_text("{not json", encoding="utf-8")
    with pytest.raises(UsageError):
        run(str(NO_KERNEL_LOG), "--system", str(broken))
    with pytest.raises(SystemExit):  # argparse: the two are exclusive
        run(str(NO_KERNEL_LOG), "--system", str(REPORTS / "windows-gtx1080-531.79.json"), "--log-only")


def test_versions_in_the_log_choose_the_advice_without_a_report():
    # The GPU's architecture printed in a log puts the advice for that generation first: a
    # Pascal card (sm_61) with a cu128 build is told about cu126, not about RTX 50-series cards.
    log = (
        "torch 2.8.0+cu128\n"
        "NVIDIA GeForce GTX 1080 Ti with CUDA capability sm_61 is not compatible with the current PyTorch installation.\n"
        "RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
    )  # CONSTRUCTED from the two messages' fixed wording (torch/cuda/__init__.py), not a real log
    findings = json.loads(_run_stdin(log))["findings"]
    [arch] = findings
    assert arch["code"] == "GPU_ARCH_UNSUPPORTED" and arch["params"]["variant"] == "log_pre_turing"
    assert arch["hint"].startswith("GPUs older than Turing") and "whl/cu126" in arch["hint"]
    assert "RTX 50" not in arch["hint"]
    blackwell = json.loads(_run_stdin(log.replace("GTX 1080 Ti", "RTX 5080").replace("sm_61", "sm_120")))
    assert blackwell["findings"][0]["params"]["variant"] == "log_blackwell"
    assert "whl/cu128" in blackwell["findings"][0]["hint"]


def _run_stdin(text: str) -> str:
    completed = subprocess.run(
        [sys.executable, "-m", "gpuwizard", "diagnose", "-", "--log-only", "--json"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode == 1, completed.stderr
    return completed.stdout


# --- a machine without an NVIDIA GPU (issue 41, point 10) -------------------------------------------

NO_GPU = Path(__file__).parent.parent.parent / "resources" / "samples" / "no-gpu.json"
TORCH_CPU_LOG = DIAGNOSE / "cpu-only-build_torch-linux_torchchat-587.txt"
#: TensorFlow on Linux: the dlerror of libcudart, then "Ignore above cudart dlerror if you do not
#: have a GPU set up on your machine." (microsoft/DirectML#80).
TF_LINUX_DLERROR = (
    DIAGNOSE
    / "wsl-libcuda-not-found_tf-libcuda.so.1-directml-tensorflow-no-wsl-in-log_directml-80_partial.txt"
)
#: The same on Windows, with cudart64_110.dll (tensorflow/tensorflow#57103).
TF_WINDOWS_DLERROR = DIAGNOSE / "dll-not-found_tf2.9-win-cudart64_110_tensorflow-57103.txt"


def windows_without_gpu(tmp_path: Path) -> Path:
    """The no-GPU sample as a Windows machine's report (the 57103 log is a Windows one)."""
    data = json.loads(NO_GPU.read_text(encoding="utf-8"))
    data["os"] = {**data["os"], "family": "windows", "release": "10.0.22631", "distribution": None}
    path = tmp_path / "windows-no-gpu.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def only_finding(*argv: str) -> tuple[int, dict[str, object]]:
    code, out = run(*argv, "--json")
    [finding] = json.loads(out)["findings"]
    return code, finding


def finding_of(code_name: str, *argv: str) -> tuple[int, dict[str, object], list[dict[str, object]]]:
    """The exit code, the one finding of ``code_name`` and all the findings of ``diagnose ARGV --json``."""
    code, out = run(*argv, "--json")
    findings = json.loads(out)["findings"]
    [finding] = [f for f in findings if f["code"] == code_name]
    return code, finding, findings


def test_without_a_gpu_a_cpu_only_build_is_told_to_run_on_the_cpu_first():
    code, finding = only_finding(str(TORCH_CPU_LOG), "--system", str(NO_GPU))
    hint = str(finding["hint"])
    assert (code, finding["code"], finding["severity"]) == (1, "CPU_ONLY_BUILD", "error")  # it crashed
    assert hint.startswith("This machine has no NVIDIA GPU, so the CPU build is the one that runs here")
    assert "device 'cpu'" in hint and "cu126" not in hint
    # Without a machine, the GPU way (a CUDA build) comes first, as before.
    _, generic = only_finding(str(TORCH_CPU_LOG), "--log-only")
    assert str(generic["hint"]).startswith("Uninstall torch and install a CUDA build")


def test_tensorflows_own_reassurance_on_a_machine_without_a_gpu_is_a_note(tmp_path: Path):
    code, finding, findings = finding_of("DLL_NOT_FOUND", str(TF_LINUX_DLERROR), "--system", str(NO_GPU))
    assert (code, finding["severity"]) == (0, "info")
    assert str(finding["hint"]).startswith("This machine has no NVIDIA GPU, so TensorFlow runs on the CPU")
    # Its failed cuInit after it (libcuda.so.1 missing) is a note too.
    assert {f["code"]: f["severity"] for f in findings} == {
        "DLL_NOT_FOUND": "info",
        "TF_NO_GPU_FOUND": "info",
    }
    code, text = run(str(TF_WINDOWS_DLERROR), "--system", str(windows_without_gpu(tmp_path)))
    assert code == 0
    assert text.startswith("Recognised 1 note, no problem to fix:\n")
    assert "INFO     DLL_NOT_FOUND" in text and "nothing needs fixing" in " ".join(text.split())


def test_the_same_dlerror_is_an_error_with_a_gpu_and_a_warning_with_both_readings_without_a_machine():
    # A machine with an NVIDIA GPU: the missing CUDA runtime keeps TensorFlow off it.
    h200 = str(NO_GPU.with_name("linux-h200.json"))
    code, finding, _ = finding_of("DLL_NOT_FOUND", str(TF_LINUX_DLERROR), "--system", h200)
    assert (code, finding["severity"]) == (1, "error")
    assert "Ignore above cudart dlerror" not in str(finding["hint"])
    # The log alone does not say which machine it is: the log's own reassurance, then the fix for
    # a machine with a GPU (issue 41: "hints follow the machine (or the log's own reassurance)").
    code, finding, _ = finding_of("DLL_NOT_FOUND", str(TF_LINUX_DLERROR), "--log-only")
    assert (code, finding["severity"]) == (1, "warning")
    hint = str(finding["hint"])
    assert hint.startswith("The log itself says to ignore this where no GPU is set up")
    assert hint.index("On a machine with one:") < hint.index("LD_LIBRARY_PATH")


def test_a_windows_dlerror_diagnosed_on_a_linux_machine_without_a_gpu_is_a_warning_not_an_error(
    tmp_path: Path,
):
    # The outside check: the Windows log of tensorflow/tensorflow#57103 on a Linux machine without a
    # GPU was "ERROR DLL_NOT_FOUND", exit 1. The machine is not the log's: both readings, a warning.
    code, text = run(str(TF_WINDOWS_DLERROR), "--system", str(NO_GPU))
    assert code == 1 and "WARNING  DLL_NOT_FOUND" in text and "ERROR" not in text
    assert "-> The log itself says to ignore this where no GPU is set up" in text
    # On a Windows machine without a GPU it is the note; on one with a GPU the error with the build.
    assert run(str(TF_WINDOWS_DLERROR), "--system", str(windows_without_gpu(tmp_path)))[0] == 0
    windows_gpu = NO_GPU.with_name("windows-rtx2080super-two-cuda.json")
    code, finding = only_finding(str(TF_WINDOWS_DLERROR), "--system", str(windows_gpu))
    assert (code, finding["severity"], finding["params"]["context_hint"]) == (1, "error", "build")
    assert "Ignore above cudart dlerror" not in str(finding["hint"])


#: TensorFlow 2.16 and newer on Linux without a GPU or driver: the lines of the issue's outside
#: check (tsl/cuda/cudart_stub.cc:32, then XLA's cuda_driver.cc:152 with cuInit's CUresult).
TF_216_START = (
    "2024-05-10 12:31:17.224318: I external/local_xla/xla/tsl/cuda/cudart_stub.cc:32] Could not find "
    "cuda drivers on your machine, GPU will not be used.\n"
    "2024-05-10 12:31:19.110022: E external/local_xla/xla/stream_executor/cuda/cuda_driver.cc:152] "
    "failed call to cuInit: UNKNOWN ERROR (303)\n"
)


@pytest.mark.parametrize(
    "status",
    [
        "UNKNOWN ERROR (303)",
        "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected",
        "CUDA_ERROR_UNKNOWN: unknown error",
    ],
)
def test_tensorflows_start_without_a_gpu_follows_the_machine(tmp_path: Path, status: str):
    log = tmp_path / "tf.log"
    log.write_text(TF_216_START.replace("UNKNOWN ERROR (303)", status), encoding="utf-8")
    # This kind of machine (no GPU): a note with the CPU way forward, exit 0, as NO_NVIDIA_GPU.
    code, text = run(str(log), "--system", str(NO_GPU))
    assert code == 0 and text.startswith("Recognised 1 note, no problem to fix:\n")
    assert "INFO     TF_NO_GPU_FOUND" in text and "No known problem recognised" not in text
    assert "TensorFlow runs on the CPU here" in " ".join(text.split())
    # A machine with an NVIDIA GPU: the error with the fix.
    code, finding = only_finding(str(log), "--system", str(NO_GPU.with_name("linux-h200.json")))
    assert (code, finding["code"], finding["severity"]) == (1, "TF_NO_GPU_FOUND", "error")
    # The machine unknown: a warning that says both readings.
    code, finding = only_finding(str(log), "--log-only")
    assert (code, finding["severity"]) == (1, "warning")
    assert str(finding["hint"]).startswith("If the machine this log comes from has no NVIDIA GPU")


def test_a_reassured_dlerror_after_which_tensorflow_found_a_gpu_is_no_note(tmp_path: Path):
    # CONSTRUCTED in the shape of hearbenchmark/hear-eval-kit#247: the reassurance, then TensorFlow
    # finds a GPU and cannot open its libraries: the log is not a machine without a GPU's.
    log = tmp_path / "tf.log"
    log.write_text(
        "W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load dynamic library "
        "'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such file or directory\n"
        "I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart dlerror if you do not have "
        "a GPU set up on your machine.\n"
        "W tensorflow/core/common_runtime/gpu/gpu_device.cc:1766] Cannot dlopen some GPU libraries. Please make "
        "sure the missing libraries mentioned above are installed properly if you would like to use GPU.\n"
        "Skipping registering GPU devices...\n",
        encoding="utf-8",
    )
    code, out = run(str(log), "--system", str(NO_GPU), "--json")
    assert code == 1
    assert {f["severity"] for f in json.loads(out)["findings"]} == {"error"}


def test_the_seen_line_keeps_the_name_of_the_library_that_failed():
    # Before, the quote was cut to one line: "seen: 2022-08-11 14:21:29.345331: W …".
    code, text = run(str(TF_WINDOWS_DLERROR), "--log-only")
    assert code == 1
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("    seen: "))
    last = next(i for i in range(first, len(lines)) if lines[i].startswith("    -> "))
    seen = " ".join(line.strip() for line in lines[first:last])
    assert seen.endswith(
        "Could not load dynamic library 'cudart64_110.dll'; dlerror: cudart64_110.dll not found"
    )
    assert "…" not in seen
