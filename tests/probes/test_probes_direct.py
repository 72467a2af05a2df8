"""The probes run directly with a real interpreter, as the wizard runs them (docs/architecture.md, "The layers").

PyTorch (the CPU build, from the local wheel) and tensorflow-cpu (from the registry) are installed
into environments the suite makes (``torch_python``, ``tensorflow_python`` in tests/conftest.py);
the probes run there for real, as the wizard runs them. The GPU path (matmul, GPU-CPU
comparison) is exercised with the CPU standing in for the GPU.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from harness.gpu_stand_in import SMALL_GPU_RUN, STAND_IN_GPU, stand_in_argv

PROBES = Path(__file__).resolve().parents[2] / "app" / "gpuwizard" / "probes"
TRAIN = PROBES / "train_test.py"
#: The modules beside train_test.py that it imports when run by path.
TRAIN_PARTS = [
    PROBES / "train_task.py", PROBES / "train_torch.py", PROBES / "train_tensorflow.py", PROBES / "process_end.py"
]  # fmt: skip
ENV_REPORT = PROBES / "env_report.py"


def run_probe(python: str, script: Path, *args: str, timeout: float = 180) -> tuple[int, list[dict], str]:
    """Run a probe; its exit status, the JSON lines it printed (each must be one), its stderr."""
    done = subprocess.run(
        [python, str(script), *args], capture_output=True, text=True, timeout=timeout, check=False
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def start_of(events: list[dict]) -> dict:
    """The ``start`` event (``prepare`` events come before it)."""
    return next(event for event in events if event["event"] == "start")


def without_stages(events: list[dict]) -> list[dict]:
    """The events but ``prepare`` (what the probe prepares, checked on its own)."""
    return [event for event in events if event["event"] != "prepare"]


def check_cpu_run(events: list[dict], framework: str, cpu_steps: int) -> dict:
    """The events of a CPU-only run are complete and in order; returns the summary."""
    assert all(isinstance(event.get("event"), str) for event in events)
    stages = [(event["stage"], event.get("device")) for event in events if event["event"] == "prepare"]
    assert stages == [("import", None), ("compile", "cpu")]
    events = without_stages(events)
    kinds = [event["event"] for event in events]
    assert kinds[0] == "start"
    assert kinds[-1] == "summary"
    assert "error" not in kinds

    start = events[0]
    assert start["probe"] == "train_test"
    assert start["framework"] == framework
    assert start["built_with_cuda"] is False
    assert start["cuda_build"] is None
    assert start["arch_list"] == []
    assert start["config"]["image"] == [32, 32, 3]
    assert start["config"]["classes"] == 10
    assert start["python_executable"]

    devices = [event for event in events if event["event"] == "device"]
    assert [device["kind"] for device in devices] == ["cpu"]
    assert devices[0]["threads"] >= 1
    (device_summary,) = [event for event in events if event["event"] == "device_summary"]
    assert device_summary["gpu_count"] == 0
    assert device_summary["gpu_available"] is False
    assert kinds.index("device") < kinds.index("device_summary") < kinds.index("phase")

    phases = [(event["phase"], event["device"]) for event in events if event["event"] == "phase"]
    assert phases == [("data", None), ("warmup", "cpu"), ("train", "cpu")]
    assert "matmul" not in kinds
    assert "compare" not in kinds

    steps = [event for event in events if event["event"] == "step"]
    assert [step["step"] for step in steps] == list(range(1, cpu_steps + 1))
    assert all(step["device"] == "cpu" and step["samples_per_s"] > 0 for step in steps)
    assert kinds.index("step") > max(i for i, kind in enumerate(kinds) if kind == "phase")

    summary = events[-1]
    assert summary["gpu_used"] is False
    assert summary["loss_first"] == steps[0]["loss"]
    assert summary["loss_last"] < summary["loss_first"]
    assert summary["samples_per_s"]["gpu"] is None
    assert summary["samples_per_s"]["cpu"] > 0
    assert summary["seconds"] > 0
    return summary


@pytest.fixture(scope="module")
def torch_run(torch_python: str) -> tuple[int, list[dict], str, float]:
    began = time.perf_counter()
    code, events, stderr = run_probe(torch_python, TRAIN, "--framework", "pytorch")
    return code, events, stderr, time.perf_counter() - began


@pytest.mark.slow
def test_the_torch_probe_trains_on_the_cpu_with_its_defaults(torch_run):
    code, events, stderr, wall = torch_run
    assert code == 0, stderr
    assert "Traceback" not in stderr
    summary = check_cpu_run(events, "pytorch", cpu_steps=start_of(events)["config"]["cpu_steps"])
    assert summary["seconds"] <= wall
    assert start_of(events)["framework_version"] == "2.13.0+cpu"


@pytest.mark.slow
def test_the_probe_says_what_it_prepares_before_the_first_step(torch_run):
    # Issue 20: the test sat for seconds on "Warming up, step 0 of 20" with nothing moving. Each
    # slow preparation is announced before it starts: the import before `start`, the model's
    # compile stage inside the warm-up, before the first measured step.
    code, events, stderr, _wall = torch_run
    assert code == 0, stderr
    order = [
        (event["event"], event.get("stage") or event.get("phase"))
        for event in events
        if event["event"] in ("prepare", "start", "phase")
        or (event["event"] == "step" and event["step"] == 1)
    ]
    assert order == [
        ("prepare", "import"),
        ("start", None),
        ("phase", "data"),
        ("phase", "warmup"),
        ("prepare", "compile"),
        ("phase", "train"),
        ("step", None),
    ]
    assert events[0] == {"event": "prepare", "stage": "import", "framework": "pytorch"}
    (compile_stage,) = [event for event in events if event.get("stage") == "compile"]
    assert compile_stage == {"event": "prepare", "stage": "compile", "device": "cpu", "warmup_steps": 2}


@pytest.mark.slow
def test_the_torch_environment_report(torch_python: str):
    code, events, stderr = run_probe(torch_python, ENV_REPORT, "--framework", "pytorch")
    assert code == 0, stderr
    (report,) = events
    assert report["probe"] == "env_report"
    assert report["ok"] is True
    assert report["built_with_cuda"] is False
    assert report["cuda_build"] is None
    assert report["gpus"] == []
    assert report["gpu_available"] is False
    assert report["python_executable"] == torch_python


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("tensorflow") is not None, reason="TensorFlow is installed here")
def test_a_framework_that_is_not_installed_is_an_import_error_event():
    code, events, stderr = run_probe(sys.executable, TRAIN, "--framework", "tensorflow")
    assert code == 1
    stage, error = events
    assert stage == {"event": "prepare", "stage": "import", "framework": "tensorflow"}
    assert error["event"] == "error"
    assert error["phase"] == "import"
    assert error["type"] == "ModuleNotFoundError"
    assert "tensorflow" in error["message"]
    assert "Traceback" in error["traceback"]
    assert not stderr

    code, (report,), stderr = run_probe(sys.executable, ENV_REPORT, "--framework", "tensorflow")
    assert code == 1
    assert report["ok"] is False
    assert report["phase"] == "import"
    assert "No module named 'tensorflow'" in report["error"]
    assert "Traceback" not in stderr


@pytest.mark.parametrize(
    "args", [["--framework", "jax"], ["--framework", "pytorch", "--steps", "0"], ["--bogus"]]
)
def test_bad_arguments_are_a_usage_error_event(args):
    code, events, stderr = run_probe(sys.executable, TRAIN, *args, timeout=60)
    assert code == 2
    (error,) = events
    assert error["event"] == "error"
    assert error["phase"] == "usage"
    assert not stderr


def _start_probe(python: str, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [python, str(TRAIN), "--framework", "pytorch", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )


def _read_until_a_step(process: subprocess.Popen) -> list[dict]:
    events = []
    assert process.stdout is not None
    for line in process.stdout:
        events.append(json.loads(line))
        if events[-1]["event"] == "step":
            break
    return events


@pytest.mark.slow
def test_a_probe_killed_part_way_ends_at_once(torch_python: str):
    process = _start_probe(torch_python, "--cpu-steps", "500")
    try:
        events = _read_until_a_step(process)
        assert events[-1]["event"] == "step"
        process.kill()
        assert process.wait() != 0
        assert process.stdout is not None
        rest = process.stdout.read()  # the pipe closes: a reader never hangs
        assert all(json.loads(line)["event"] for line in rest.splitlines())
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.slow
@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
def test_an_interrupted_probe_says_so_and_exits(torch_python: str):
    process = _start_probe(torch_python, "--cpu-steps", "500")
    try:
        _read_until_a_step(process)
        process.send_signal(signal.SIGINT)
        # Waits on the probe's own output, not on a clock: on a loaded machine the steps in
        # flight and the interpreter's teardown can take many seconds (the suite's timeout
        # still ends a probe that never stops).
        assert process.stdout is not None
        last = [json.loads(line) for line in process.stdout.read().splitlines()][-1]
        assert process.wait() == 1
        assert last["event"] == "error"
        assert last["type"] == "KeyboardInterrupt"
        assert last["phase"] == "train"
        assert last["device"] == "cpu"
    finally:
        process.kill()
        process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.parametrize("path", [TRAIN, *TRAIN_PARTS, ENV_REPORT], ids=lambda path: path.name)
def test_the_probes_keep_to_python_37(path: Path):
    ast.parse(path.read_text(), feature_version=(3, 7))


def test_the_probes_import_nothing_of_the_wizard():
    for path in (TRAIN, *TRAIN_PARTS, ENV_REPORT):
        tree = ast.parse(path.read_text())
        imported = {
            alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
        }
        imported |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not {name for name in imported if name.startswith("gpuwizard")}


@pytest.mark.parametrize(
    ("capability", "arch_list", "expected"),
    [
        ("8.6", ["sm_80", "sm_90"], (True, False, "sm_80")),  # SASS 8.0 runs on 8.x, x >= 0
        ("8.0", ["sm_86"], (False, False, None)),
        ("8.9", ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"], (True, False, "sm_86")),
        ("9.0", ["sm_90a"], (True, False, "sm_90a")),
        ("10.0", ["sm_90a", "compute_90a"], (False, False, None)),  # arch-specific: 9.0 only
        ("12.0", ["sm_80", "sm_90", "compute_90"], (True, True, "compute_90")),
        ("7.5", ["sm_80", "compute_80"], (False, False, None)),
        ("12.0", ["sm_100", "sm_120"], (True, False, "sm_120")),
        ("7.5", ["7.0", "7.5"], (True, False, "7.5")),
        ("8.6", [], (None, None, None)),
        (None, ["sm_80"], (None, None, None)),
    ],
)
def test_arch_coverage(capability, arch_list, expected):
    from gpuwizard.probes import env_report

    assert env_report.arch_coverage(capability, arch_list) == expected


def stand_in_module(name: str, **attributes: object) -> ModuleType:
    """A framework module with only what ``env_report.framework_report`` asks of it."""
    module = ModuleType(name)
    module.__dict__.update(attributes)
    return module


@pytest.mark.parametrize(
    ("raw", "expected"), [("12.5.1", "12.5.1"), ("64_112", "11.2"), ("64_8", "8"), (None, None), ("", None)]
)
def test_tensorflow_build_versions_read_the_same_on_windows(raw, expected):
    from gpuwizard.probes import env_report

    # tf.sysconfig.get_build_info() as a Linux ("12.5.1") or a Windows ("64_112") build says it.
    info = {"is_cuda_build": True, "cuda_version": raw, "cudnn_version": raw}
    tensorflow = stand_in_module(
        "tensorflow",
        __version__="2.10.1",
        sysconfig=SimpleNamespace(get_build_info=lambda: info),
        test=SimpleNamespace(is_built_with_cuda=lambda: True),
        config=SimpleNamespace(list_physical_devices=lambda _kind: []),
        keras=SimpleNamespace(__version__="2.10.0"),
    )
    report = env_report.framework_report("tensorflow", tensorflow)
    assert (report["cuda_build"], report["cudnn_build"]) == (expected, expected)


@pytest.mark.parametrize(
    ("number", "text"), [(90100, "9.1.0"), (8902, "8.9.2"), (7605, "7.6.5"), (None, None)]
)
def test_torch_cudnn_versions(number, text):
    from gpuwizard.probes import env_report

    # torch.backends.cudnn.version() of a CUDA build on a machine without a usable GPU.
    torch = stand_in_module(
        "torch",
        __version__="2.13.0+cu126",
        version=SimpleNamespace(cuda="12.6", hip=None),
        cuda=SimpleNamespace(is_available=lambda: False, get_arch_list=lambda: ["sm_90"]),
        backends=SimpleNamespace(cudnn=SimpleNamespace(version=lambda: number)),
    )
    assert env_report.framework_report("pytorch", torch)["cudnn_build"] == text


FAKE_GPU = STAND_IN_GPU


def check_gpu_run(events: list[dict], framework: str) -> None:
    """The GPU path's events, with the CPU standing in for the GPU."""
    stages = [(event["stage"], event.get("device")) for event in events if event["event"] == "prepare"]
    assert stages == [("cuda_context", "gpu"), ("compile", "gpu"), ("compile", "cpu")]
    events = without_stages(events)
    kinds = [event["event"] for event in events]
    assert kinds[0] == "start"
    assert kinds[-1] == "summary"
    assert [event["kind"] for event in events if event["event"] == "device"] == ["gpu", "cpu"]
    phases = [(event["phase"], event["device"]) for event in events if event["event"] == "phase"]
    assert phases == [
        ("data", None),
        ("warmup", "gpu"),
        ("train", "gpu"),
        ("matmul", "gpu"),
        ("warmup", "cpu"),
        ("train", "cpu"),
        ("compare", None),
    ]
    matmuls = [event for event in events if event["event"] == "matmul"]
    float32 = "tf32" if framework == "tensorflow" else "float32"
    assert [event["dtype"] for event in matmuls] == [float32, "float16", "bfloat16"]
    assert all(event["tflops"] > 0 and event["repeats"] >= 3 and event["size"] == 128 for event in matmuls)
    (compare,) = [event for event in events if event["event"] == "compare"]
    assert compare["ok"] is True
    assert compare["max_abs_diff"] <= compare["tolerance"]
    gpu_steps = [event for event in events if event["event"] == "step" and event["device"] == "gpu"]
    assert [step["step"] for step in gpu_steps] == list(range(1, 7))
    summary = events[-1]
    assert summary["gpu_used"] is True
    assert summary["loss_first"] == gpu_steps[0]["loss"]
    assert summary["samples_per_s"]["gpu"] > 0
    assert summary["samples_per_s"]["cpu"] > 0
    assert summary["steps"] == {"gpu": 6, "cpu": 4}


@pytest.mark.slow
def test_the_gpu_path_with_the_cpu_standing_in_for_the_gpu(torch_python: str):
    done = subprocess.run(
        stand_in_argv(torch_python, "--framework", "pytorch", *SMALL_GPU_RUN),
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    check_gpu_run([json.loads(line) for line in done.stdout.splitlines()], "pytorch")


#: The probe's own main() with a stand-in framework whose training swallows a Ctrl+C, as a
#: finalizer or a framework may ("Exception ignored in ..."): argv[1] is the probes' folder.
SWALLOWED_CTRL_C = textwrap.dedent(
    """
    import contextlib, signal, sys, types
    sys.path.insert(0, sys.argv[1])
    import train_test

    torch = types.ModuleType("torch")  # a CPU build: env_report asks for nothing more
    torch.__version__ = "2.13.0+cpu"
    torch.version = types.SimpleNamespace(cuda=None, hip=None)
    sys.modules["torch"] = torch

    class Trainer:
        calls = 0

        def steps(self, count):
            Trainer.calls += 1
            if Trainer.calls == 3:  # the warm-up step, one measured step, then Ctrl+C
                with contextlib.suppress(KeyboardInterrupt):  # lost on the way
                    signal.raise_signal(signal.SIGINT)
            return [1.0] * count

        def reset(self):
            pass

    class Backend:
        def cpu_threads(self):
            return 1

        def make_data(self, count):
            pass

        def trainer(self, device, batch):
            return Trainer()

    train_test.make_backend = lambda framework, module, config: Backend()
    sys.exit(train_test.main(sys.argv[2:]))
    """
)


def test_a_ctrl_c_swallowed_on_the_way_still_ends_the_training_at_the_next_step():
    # A real SIGINT to the probe's own process, through the handler main() installs.
    done = subprocess.run(
        [sys.executable, "-c", SWALLOWED_CTRL_C, str(PROBES), "--framework", "pytorch", "--cpu-only",
         "--cpu-steps", "50", "--cpu-batch", "8", "--cpu-warmup", "1"],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert done.returncode == 1, done.stderr
    steps = [event for event in events if event["event"] == "step"]
    assert len(steps) == 2  # the steps before the lost Ctrl+C, and no more
    assert (events[-1]["event"], events[-1]["type"]) == ("error", "KeyboardInterrupt")


def test_output_writes_strict_json_and_holds_warnings_back_until_start():
    from gpuwizard.probes import train_test

    stream = io.StringIO()
    out = train_test.Output(stream)
    out.warning("early", UserWarning)
    out.warning("early", UserWarning)
    out.emit("start", loss=float("nan"))
    out.release_warnings()
    out.warning("late", RuntimeWarning)
    events = [json.loads(line) for line in stream.getvalue().splitlines()]
    assert events == [
        {"event": "start", "loss": None},
        {"event": "warning", "phase": "setup", "category": "UserWarning", "message": "early"},
        {"event": "warning", "phase": "setup", "category": "RuntimeWarning", "message": "late"},
    ]


# --- TensorFlow, in the environment the suite makes ---------------------------


@pytest.mark.slow
def test_the_tensorflow_probe_trains_on_the_cpu_with_its_defaults(tensorflow_python: str):
    code, events, stderr = run_probe(tensorflow_python, TRAIN, "--framework", "tensorflow")
    assert code == 0, stderr
    check_cpu_run(events, "tensorflow", cpu_steps=start_of(events)["config"]["cpu_steps"])


@pytest.mark.slow
def test_the_tensorflow_environment_report(tensorflow_python: str):
    code, (report,), stderr = run_probe(tensorflow_python, ENV_REPORT, "--framework", "tensorflow")
    assert code == 0, stderr
    assert report["ok"] is True
    assert report["framework"] == "tensorflow"
    assert report["built_with_cuda"] is False
    assert report["gpus"] == []


@pytest.mark.slow
def test_the_tensorflow_gpu_path_with_the_cpu_standing_in_for_the_gpu(tensorflow_python: str):
    script = textwrap.dedent(
        """
        import sys, time
        sys.path.insert(0, sys.argv[1])
        import env_report, train_test, train_tensorflow
        config = train_test.parse_args(sys.argv[3:])
        tf = env_report.import_framework("tensorflow")
        report = env_report.framework_report("tensorflow", tf)
        report["gpus"] = [__import__("json").loads(sys.argv[2])]
        backend = train_tensorflow.TensorflowBackend(tf, config, gpu_device="/CPU:0")
        sys.exit(train_test.run_backend(config, train_test.Output(), report, backend, started=time.perf_counter()))
        """
    )
    done = subprocess.run(
        [
            tensorflow_python,
            "-c",
            script,
            str(PROBES),
            json.dumps(FAKE_GPU),
            "--framework",
            "tensorflow",
            *SMALL_GPU_RUN,
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert done.returncode == 0, done.stderr + done.stdout
    check_gpu_run([json.loads(line) for line in done.stdout.splitlines()], "tensorflow")
