"""The live test's ``libraries`` event, typed, and what the result keeps of it (issue 21, point 4).

The probe says, after the GPU work, where each CUDA library was loaded from, which NVIDIA wheels
are installed and what the DLL start-up hook did. The event is read once, tolerantly; the result
(``gpuwizard test --json``, ``last-tests.json``) keeps ``cuda_libraries``, ``cuda_wheels`` and
``dll_hook``; a result saved before them still reads; an event kind the wizard does not know is
still passed on.
"""

from __future__ import annotations

import json

from gpuwizard.core.events import Other, to_json
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, Libraries, result_from_json
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge, result_of
from gpuwizard.core.livetest.libraries import CudaLibrary, CudaWheel, DllHook

BIN = r"C:\Users\Ana\envs\tf210\Lib\site-packages\nvidia"
#: A ``libraries`` event as the probe prints it for TensorFlow 2.10 on Windows with the wheel route.
LIBRARIES = {
    "event": "libraries",
    "cuda_libraries": [
        {"name": "cudart64_110.dll", "path": BIN + r"\cuda_runtime\bin\cudart64_110.dll"},
        {"name": "cudnn64_8.dll", "path": BIN + r"\cudnn\bin\cudnn64_8.dll"},
        {"name": "nvcuda.dll", "path": r"C:\Windows\system32\nvcuda.dll"},
    ],
    "cuda_wheels": [
        {"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"},
        {"name": "nvidia-cuda-runtime-cu11", "version": "11.8.89"},
    ],
    "dll_hook": {
        "active": True,
        "folders": [BIN + r"\cuda_runtime\bin", BIN + r"\cudnn\bin"],
        "problem": None,
    },
}


def test_the_libraries_event_is_typed_and_keeps_every_field():
    event = LIVE_TEST_EVENTS.read({**LIBRARIES, "something_later": 1})
    assert isinstance(event, Libraries) and event.kind == "libraries"
    assert event.cuda_libraries[0] == CudaLibrary(
        "cudart64_110.dll", BIN + r"\cuda_runtime\bin\cudart64_110.dll"
    )
    assert [wheel.name for wheel in event.cuda_wheels or ()] == [
        "nvidia-cuda-runtime-cu11",
        "nvidia-cudnn-cu11",
    ]
    assert event.dll_hook == DllHook(True, (BIN + r"\cuda_runtime\bin", BIN + r"\cudnn\bin"), None)
    assert to_json(event)["something_later"] == 1


def test_a_libraries_event_of_odd_shape_reads_as_unknown():
    event = LIVE_TEST_EVENTS.read(
        {"event": "libraries", "cuda_libraries": [3, {"name": "x"}], "cuda_wheels": "?"}
    )
    assert isinstance(event, Libraries)
    assert (event.cuda_libraries, event.cuda_wheels, event.dll_hook) == ((), None, None)
    assert isinstance(LIVE_TEST_EVENTS.read({"event": "libraries_v2"}), Other)  # unknown kinds pass on


def test_the_result_keeps_the_libraries_and_reads_them_back():
    run = ProbeRun()
    for data in (
        {"event": "start", "framework": "tensorflow", "framework_version": "2.10.1", "built_with_cuda": True},
        {"event": "device", "kind": "gpu", "name": "NVIDIA GeForce GTX 1060 6GB"},
        {"event": "device_summary", "gpu_count": 1, "gpu_used": True},
        LIBRARIES,
        {"event": "summary", "loss_first": 2.3, "loss_last": 0.4, "samples_per_s": {"gpu": 9e3, "cpu": 500.0},
         "gpu_used": True},
    ):  # fmt: skip
        run.add(LIVE_TEST_EVENTS.read(data))
    verdict, findings = judge(run, ProbeEnd(0), machine_has_nvidia_gpu=True)
    result = result_of(run, verdict, findings, framework="tensorflow", seconds=20.0, python=None, env="tf210")
    assert [library.name for library in result.cuda_libraries] == [
        "cudart64_110.dll",
        "cudnn64_8.dll",
        "nvcuda.dll",
    ]
    assert result.cuda_wheels == (
        CudaWheel("nvidia-cuda-runtime-cu11", "11.8.89"),
        CudaWheel("nvidia-cudnn-cu11", "8.9.5.29"),
    )
    data = json.loads(json.dumps(to_json(result)))
    assert data["cuda_libraries"] == LIBRARIES["cuda_libraries"]
    assert data["dll_hook"] == LIBRARIES["dll_hook"]
    again = result_from_json(data)
    assert (again.cuda_libraries, again.cuda_wheels, again.dll_hook) == (
        result.cuda_libraries, result.cuda_wheels, result.dll_hook,
    )  # fmt: skip


def test_a_run_without_the_event_and_an_older_saved_result_know_nothing_of_it():
    result = result_of(ProbeRun(), "broken", [], framework="pytorch", seconds=1.0, python=None, env=None)
    assert (result.cuda_libraries, result.cuda_wheels, result.dll_hook) == ((), None, None)
    assert to_json(result)["cuda_libraries"] == [] and to_json(result)["cuda_wheels"] is None
    older = result_from_json({"verdict": "cpu_only", "framework": "pytorch"})
    assert (older.cuda_libraries, older.cuda_wheels, older.dll_hook) == ((), None, None)
