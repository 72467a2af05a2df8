"""``gpuwizard test`` says where each CUDA library was loaded from (issue 21, point 4).

The text renderer lists each library the probe's ``libraries`` event names with its file, and
what the DLL start-up hook did; with the real CPU build of torch, the real command says that no
CUDA library was used, and its ``--json`` result carries the (empty) list.
"""

from __future__ import annotations

import json

import pytest

from gpuwizard.cli.text.live_test import LiveTestProgress
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS
from harness.entry_point import gpuwizard

SITE = r"C:\Users\Ana\envs\tf210\Lib\site-packages\nvidia"


def shown(data: dict) -> str:
    out: list[str] = []
    view = LiveTestProgress(out.append)
    view(LIVE_TEST_EVENTS.read(data))
    view.stop()
    return "".join(out)


def test_each_library_is_printed_with_the_file_it_was_loaded_from():
    text = shown(
        {
            "event": "libraries",
            "cuda_libraries": [
                {"name": "cudart64_110.dll", "path": SITE + r"\cuda_runtime\bin\cudart64_110.dll"},
                {"name": "cudnn_ops_infer64_8.dll", "path": SITE + r"\cudnn\bin\cudnn_ops_infer64_8.dll"},
                {"name": "nvcuda.dll", "path": r"C:\Windows\system32\nvcuda.dll"},
            ],
            "cuda_wheels": [{"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"}],
            "dll_hook": {"active": True, "folders": [SITE + r"\cuda_runtime\bin", SITE + r"\cudnn\bin"]},
        }
    )
    assert text.splitlines() == [
        "  CUDA libraries loaded, and where from:",
        rf"    cudart64_110.dll         {SITE}\cuda_runtime\bin\cudart64_110.dll",
        rf"    cudnn_ops_infer64_8.dll  {SITE}\cudnn\bin\cudnn_ops_infer64_8.dll",
        r"    nvcuda.dll               C:\Windows\system32\nvcuda.dll",
        "  DLL hook: 2 NVIDIA wheel folders on the DLL search path",
    ]


def test_none_loaded_and_a_hook_that_added_nothing_are_said():
    text = shown(
        {
            "event": "libraries",
            "cuda_libraries": [],
            "cuda_wheels": [],
            "dll_hook": {"active": False, "folders": [], "problem": "OSError: [WinError 206] name too long"},
        }
    )
    assert text.splitlines() == [
        "  CUDA libraries loaded: none (no CUDA library was used)",
        "  DLL hook: added no folder (OSError: [WinError 206] name too long)",
    ]
    assert "DLL hook" not in shown({"event": "libraries", "cuda_libraries": [], "dll_hook": None})


def test_a_list_the_probe_could_not_read_says_why():
    text = shown(
        {
            "event": "libraries",
            "cuda_libraries": [],
            "cuda_libraries_error": "PermissionError: [Errno 13] Permission denied: '/proc/self/maps'",
            "cuda_wheels": [],
            "dll_hook": None,
        }
    )
    assert text.splitlines() == [
        "  CUDA libraries loaded: none (no CUDA library was used)",
        "    (the list could not be read: PermissionError: [Errno 13] Permission denied: '/proc/self/maps')",
    ]


@pytest.mark.slow
def test_the_real_command_names_the_libraries_after_the_training(torch_python: str):
    done = gpuwizard("test", "--python", torch_python, "--framework", "pytorch")
    assert done.returncode in (0, 1), done.stderr  # cpu_only passes only where no NVIDIA GPU is seen
    lines = done.stdout.splitlines()
    said = lines.index("  CUDA libraries loaded: none (no CUDA library was used)")
    assert said > max(index for index, line in enumerate(lines) if line.startswith("    step"))
    assert said < next(index for index, line in enumerate(lines) if line.startswith("Verdict:"))

    done = gpuwizard("test", "--python", torch_python, "--framework", "pytorch", "--json")
    events = [json.loads(line) for line in done.stdout.splitlines()]
    (libraries,) = [event for event in events if event["event"] == "libraries"]
    assert libraries == {"event": "libraries", "cuda_libraries": [], "cuda_wheels": [], "dll_hook": None}
    result = events[-1]
    assert (result["event"], result["cuda_libraries"], result["cuda_wheels"]) == ("result", [], [])
