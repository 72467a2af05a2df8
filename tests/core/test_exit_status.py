"""A child's exit status in words (issue 37, point 5): Windows' crash numbers, POSIX signals.

The numbers are the Windows vocabularies ``gpuwizard diagnose`` reads; each spelling a tool may
print (unsigned, signed, hexadecimal) must give the same words, and the words a message carries
must still be recognised by ``diagnose`` when a person pastes that message.
"""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest

from gpuwizard.core.exit_status import describe_exit, status_text
from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge

DLL_NOT_FOUND = "0xC0000135 STATUS_DLL_NOT_FOUND: a DLL the program needs was not found"


@pytest.mark.parametrize("status", [3221225781, -1073741515, int("0xC0000135", 16)])
def test_a_missing_dll_reads_the_same_in_every_spelling_with_what_to_do(status: int):
    said = describe_exit(status, windows=True)
    assert said is not None and said.startswith(DLL_NOT_FOUND)
    assert "Visual C++ Redistributable" in said and "reinstall the program" in said


@pytest.mark.parametrize(
    ("status", "name", "words"),
    [
        (0xC0000005, "STATUS_ACCESS_VIOLATION", "crashed"),
        (0xC000001D, "STATUS_ILLEGAL_INSTRUCTION", "AVX"),
        (0xC0000409, "STATUS_STACK_BUFFER_OVERRUN", "fail-fast"),
        (0xC00000FD, "STATUS_STACK_OVERFLOW", "stack"),
        (-1073741819, "STATUS_ACCESS_VIOLATION", "crashed"),
    ],
)
def test_the_common_crashes_are_named_and_explained(status: int, name: str, words: str):
    said = describe_exit(status, windows=True)
    assert said is not None and f"0x{status & 0xFFFFFFFF:08X} {name}: " in said and words in said


def test_a_win32_error_number_the_vocabulary_knows_is_named():
    said = describe_exit(126, windows=True)
    assert said is not None and said.startswith("0x0000007E ERROR_MOD_NOT_FOUND: ")


def test_an_ntstatus_the_vocabulary_does_not_know_is_still_said_to_be_a_crash():
    said = describe_exit(0xC000013A, windows=True)  # STATUS_CONTROL_C_EXIT: not in the vocabulary
    assert said is not None and said.startswith("0xC000013A: a Windows error status")


@pytest.mark.parametrize("status", [0, 1, 2, 5, 3, 4, 99])
def test_ordinary_statuses_say_nothing(status: int):
    # A tool's own small codes: 2 is bad usage, not ERROR_FILE_NOT_FOUND; 5 is not access denied.
    assert describe_exit(status, windows=True) is None
    assert describe_exit(status, windows=False) is None
    assert status_text(status, windows=True) == f"status {status}"


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize(
    ("status", "name", "words"),
    [
        (-signal.SIGKILL, "SIGKILL", "memory"),
        (-signal.SIGSEGV, "SIGSEGV", "crashed"),
        (-signal.SIGABRT, "SIGABRT", ""),
    ],
)
def test_a_negative_status_on_posix_is_the_signal_that_ended_the_child(status: int, name: str, words: str):
    said = describe_exit(status, windows=False)
    assert said is not None and said.startswith(f"{name} (") and words in said


def test_a_windows_number_means_nothing_on_posix_and_a_signal_nothing_on_windows():
    assert describe_exit(3221225781, windows=False) is None  # POSIX statuses stop at 255
    assert describe_exit(-9, windows=True) is None  # -9 is 0xFFFFFFF7: no status Windows sets
    assert describe_exit(0xFFFFFFFF, windows=True) is None  # exit(-1), a program's own choice


def test_the_message_with_the_decoded_status_is_still_recognised_by_diagnose():
    line = f"install: uv.exe exited with {status_text(3221225781, windows=True)}, printing nothing"
    assert line.startswith(f"install: uv.exe exited with status 3221225781 ({DLL_NOT_FOUND}")
    [finding] = diagnose(line)
    assert finding.code == "WINDOWS_ERROR_CODE" and finding.params["name"] == "STATUS_DLL_NOT_FOUND"


@pytest.mark.parametrize(
    "line",
    [
        # CONSTRUCTED: the three spellings issue 37 names; a recorded one, "returned exit code:
        # -1073741515", is tests/fixtures/recorded/diagnose/windows-error-code_winget-*.txt.
        "install: uv.exe exited with status 3221225781:",
        "error: process exit status -1073741515",
        "Process finished with exit code 0xC0000135",
    ],
)
def test_diagnose_recognises_a_missing_dll_in_each_spelling_of_an_exit(line: str):
    assert [finding.params["hex"] for finding in diagnose(line)] == ["0xC0000135"]


START = {"event": "start", "framework": "pytorch", "framework_version": "2.13.0", "built_with_cuda": False}


@pytest.mark.parametrize(
    ("end", "said"),
    [
        # The probe crashed on Windows without a word: the status in words, not "exit status 3221225781".
        (ProbeEnd(3221225781, windows=True), f"exit status 3221225781 ({DLL_NOT_FOUND}"),
        # The OOM killer's SIGKILL after a line that does not say so: the line, then the signal.
        (ProbeEnd(-9, tail=("Epoch 1/3",), windows=False), "Epoch 1/3 (exit status -9 (SIGKILL ("),
        # An ordinary failure's last line stands alone.
        (ProbeEnd(1, tail=("Segfault? no: a plain error",)), "Segfault? no: a plain error"),
    ],
)
def test_the_live_tests_failure_says_how_the_probe_ended(end: ProbeEnd, said: str):
    run = ProbeRun()
    run.add(LIVE_TEST_EVENTS.read(START))
    verdict, findings = judge(run, end, machine_has_nvidia_gpu=False)
    [failed] = [finding for finding in findings if finding.code == "TEST_PROBE_FAILED"]
    assert verdict == "broken" and str(failed.params["error"]).startswith(said)
    if end.exit_code == 1:
        assert failed.params["error"] == said


def test_the_modules_that_report_exits_load_no_diagnosis_machinery():
    # The PATH commands, the elevated helper and the DLL check import little (the Wine tests run
    # them in a Windows Python given only their pure-Python dependencies, harness/wine_python.py):
    # decoding an exit status must not import the signatures and pyahocorasick (the five Wine
    # failures of 6dc634c).
    code = (
        "import sys\n"
        "import gpuwizard.core.exit_status, gpuwizard.workflow.pathedit.machine, gpuwizard.workflow.pathedit.dll_check\n"
        "print(sorted(m for m in ('ahocorasick', 'gpuwizard.core.findings.signature') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]", done.stderr
