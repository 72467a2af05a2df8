"""A GPU proof kit run becomes fixtures (tools/gpu_proof/to_fixtures.py, nvml_record.py, FIXTURES.md).

The run folders here are made the way the kit makes them, from real recorded material the
repository already has: ``nvml.json`` is what ``nvml_record.py`` records from a recorded NVML
scenario (the fake answering as ``pynvml``), ``detect.json`` is what the wizard's detection
reports over that scenario, ``test.jsonl`` is the live test recorded on 2026-11-24
(resources/samples/runs/test-torch-cpu.jsonl). ``to_fixtures.py`` writes into a copy of the
fixture folders (``--root``), never into this checkout. Fixtures the kit made on a real GPU and
that were committed are replayed by ``test_committed_kit_fixtures_replay``.
"""

from __future__ import annotations

import ctypes
import json
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from fakes.fake_pynvml import FIXTURES as NVML_FIXTURES
from fakes.fake_pynvml import FakePynvml, load_scenario, scenario_names
from fakes.machines import Machine
from gpuwizard.adapters.nvml import PynvmlSource
from gpuwizard.core.livetest.events import LiveTestEvent, LiveTestResult, event_from_json
from gpuwizard.core.livetest.judge import ProbeEnd, ProbeRun, judge
from gpuwizard.core.machine.system_report import PythonFacts, report_to_json
from gpuwizard.workflow.machine.detect import detect_system
from gpuwizard.workflow.wizard.replay import replay_test

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"
NVML_RECORD = ROOT / "tools" / "gpu_proof" / "nvml_record.py"
TO_FIXTURES = ROOT / "tools" / "gpu_proof" / "to_fixtures.py"
RECORDED_RUN = ROOT / "resources" / "samples" / "runs" / "test-torch-cpu.jsonl"
RECORDER = "tools/gpu_proof/nvml_record.py"
# The interpreter of the recorded run (resources/samples/runs/README.md: recorded with
# GPUWIZARD_HOME=/home/ana/.local/share/gpuwizard), as detection reports it.
RUN_PYTHON = PythonFacts("3.11.2", "/home/ana/.local/share/gpuwizard/envs/torch-cpu/bin/python", 64)
# A module named pynvml that is the fake, answering from the scenario file named in the environment.
PYNVML_SHIM = """\
import json, os, sys
sys.path.insert(0, os.environ["FAKE_PYNVML_TESTS"])
from fakes.fake_pynvml import FakePynvml
with open(os.environ["FAKE_PYNVML_SCENARIO"], encoding="utf-8") as file:
    sys.modules[__name__] = FakePynvml(json.load(file))
"""
GPU_SCENARIOS = [name for name in scenario_names() if not load_scenario(name).get("init_error")]
INIT_FAILURES = [name for name in scenario_names() if load_scenario(name).get("init_error")]


def nvml_library_loads() -> bool:
    try:
        ctypes.CDLL("libnvidia-ml.so.1")
    except OSError:
        return False
    return True


# --- nvml_record.py -------------------------------------------------------------------------------


def record(tmp_path: Path, scenario: dict[str, Any] | None) -> tuple[subprocess.CompletedProcess[str], Any]:
    """Run the recorder with the fake as ``pynvml`` (``scenario``), or with the real binding (None)."""
    env = {"PATH": "/usr/bin:/bin", "FAKE_PYNVML_TESTS": str(TESTS)}
    if scenario is not None:
        shim = tmp_path / "shim"
        shim.mkdir(exist_ok=True)
        (shim / "pynvml.py").write_text(PYNVML_SHIM, encoding="utf-8")
        (tmp_path / "scenario.json").write_text(json.dumps(scenario), encoding="utf-8")
        env |= {"PYTHONPATH": str(shim), "FAKE_PYNVML_SCENARIO": str(tmp_path / "scenario.json")}
    out = tmp_path / "nvml.json"
    done = subprocess.run(
        [sys.executable, str(NVML_RECORD), str(out)], capture_output=True, text=True, env=env, check=False
    )
    return done, json.loads(out.read_text(encoding="utf-8")) if out.exists() else None


@pytest.mark.skipif(nvml_library_loads(), reason="this machine has an NVIDIA driver")
def test_without_a_gpu_the_recorder_says_so_and_exits_0(tmp_path: Path):
    done, recorded = record(tmp_path, None)
    assert done.returncode == 0, done.stderr
    assert recorded["available"] is False
    assert recorded["error"]
    assert recorded["recorded"]["tool"] == RECORDER


def test_without_the_binding_the_recorder_says_so_and_exits_0(tmp_path: Path):
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "pynvml.py").write_text("raise ImportError('No module named pynvml')\n", encoding="utf-8")
    out = tmp_path / "nvml.json"
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(shim)}
    done = subprocess.run(
        [sys.executable, str(NVML_RECORD), str(out)], capture_output=True, text=True, env=env, check=False
    )
    assert done.returncode == 0, done.stderr
    recorded = json.loads(out.read_text(encoding="utf-8"))
    assert recorded["available"] is False
    assert "nvidia-ml-py is not installed" in recorded["error"]


@pytest.mark.parametrize("name", INIT_FAILURES)
def test_an_nvml_that_does_not_start_is_recorded_as_its_init_error(tmp_path: Path, name: str):
    done, recorded = record(tmp_path, load_scenario(name))
    assert done.returncode == 0, done.stderr
    assert recorded["available"] is False
    assert recorded["init_error"] == load_scenario(name)["init_error"]


@pytest.mark.parametrize("name", GPU_SCENARIOS)
def test_the_recorder_asks_every_call_the_adapter_asks(tmp_path: Path, name: str):
    """Recording the fake gives back its scenario: every answer and every error the adapter reads."""
    scenario = load_scenario(name)
    done, recorded = record(tmp_path, scenario)
    assert done.returncode == 0, done.stderr
    assert recorded["available"] is True
    assert recorded["system"] == scenario["system"]
    assert recorded["devices"] == scenario["devices"]
    assert recorded["source"].startswith("gpu proof kit run (tools/gpu_proof/nvml_record.py")


def test_the_recorder_asks_what_the_usage_sampler_asks(tmp_path: Path):
    # Values as tests/adapters/test_nvml_usage.py gives the sampler (`nvidia-smi dmon` during training).
    scenario = load_scenario("h200_linux_610")
    scenario["devices"][0] |= {
        "nvmlDeviceGetUtilizationRates.gpu": 97,
        "nvmlDeviceGetUtilizationRates.memory": 61,
        "nvmlDeviceGetMemoryInfo.used": 2048 * 1024 * 1024,
    }
    _, recorded = record(tmp_path, scenario)
    assert recorded["devices"] == scenario["devices"]


def test_a_failing_device_count_is_recorded_and_replayed(tmp_path: Path):
    scenario = load_scenario("h200_linux_610") | {"nvmlDeviceGetCount": {"error": "Unknown"}}
    _, recorded = record(tmp_path, scenario)
    assert recorded["nvmlDeviceGetCount"] == {"error": "Unknown"}
    assert recorded["devices"] == []
    reading = PynvmlSource(load_module=lambda: FakePynvml(recorded)).read()
    assert ("device_count", "Unknown") in reading.unavailable


# --- a kit run's folder ---------------------------------------------------------------------------


def detect_json(root: Path, scenario: dict[str, Any]) -> dict[str, Any]:
    """What the wizard's detection reports (``gpuwizard detect --json``) over ``scenario``."""
    fake = FakePynvml(scenario)
    sources = replace(Machine(root, python=RUN_PYTHON).sources(), nvml=PynvmlSource(load_module=lambda: fake))
    return report_to_json(detect_system(sources))


def kit_run(tmp_path: Path, scenario_name: str, *, hostname: str = "dgx-h200-07") -> Path:
    """A run folder as the kit writes it (the layout of tools/gpu_proof/README.md)."""
    run = tmp_path / "run"
    run.mkdir()
    recording = tmp_path / "recording"
    recording.mkdir()
    done, recorded = record(recording, load_scenario(scenario_name))
    assert done.returncode == 0, done.stderr
    (run / "nvml.json").write_text(json.dumps(recorded, indent=2), encoding="utf-8")
    (run / "detect.json").write_text(
        json.dumps(detect_json(tmp_path / "machine", load_scenario(scenario_name)), indent=2),
        encoding="utf-8",
    )
    shutil.copy(RECORDED_RUN, run / "test.jsonl")
    summary = {
        "schema": "gpuwizard.gpu-proof/1",
        "ok": False,
        "failed_step": "verdict",
        "exit_code": 1,
        "steps": [],
        "figures": {},
        "python": "3.11.2",
        "torch": "2.13.0+cpu",
        "started": "2026-11-24T10:00:00+00:00",
        "finished": "2026-11-24T10:04:00+00:00",
    }
    (run / "summary.json").write_text(json.dumps(summary), encoding="utf-8")
    environment = {"hostname": hostname, "python": {"executable": RUN_PYTHON.executable}}
    (run / "environment.json").write_text(json.dumps(environment), encoding="utf-8")
    return run


def repository_copy(tmp_path: Path) -> Path:
    """The fixture folders of a repository, with their READMEs, as ``--root`` for the script."""
    root = tmp_path / "repo"
    for folder in ("tests/fixtures/nvml", "tests/fixtures/reports", "resources/samples/runs"):
        (root / folder).mkdir(parents=True)
        if (ROOT / folder / "README.md").exists():
            shutil.copy(ROOT / folder / "README.md", root / folder / "README.md")
    return root


def to_fixtures(run: Path, root: Path, name: str, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TO_FIXTURES), str(run), "--name", name, "--root", str(root), *extra],
        capture_output=True,
        text=True,
        check=False,
    )


def written(root: Path, name: str) -> tuple[Path, Path, Path]:
    return (
        root / "tests/fixtures/nvml" / f"{name}.json",
        root / "tests/fixtures/reports" / f"{name}.json",
        root / "resources/samples/runs" / f"test-torch-{name}.jsonl",
    )


def nvidia_gpus(report: dict[str, Any]) -> list[dict[str, Any]]:
    """The GPUs NVML reported (a PCI device the driver does not drive is not NVML's)."""
    return [gpu for gpu in report["gpus"] if gpu["vendor"] == "nvidia" and gpu["status"] != "no-driver"]


def rejudged(events: list[LiveTestEvent], report: dict[str, Any]) -> str:
    """The verdict the wizard's judge gives the replayed events on the reported machine."""
    probe = ProbeRun()
    for event in events[:-1]:
        probe.add(event)
    verdict, _ = judge(probe, ProbeEnd(exit_code=0), machine_has_nvidia_gpu=bool(nvidia_gpus(report)))
    return verdict


def check_replays(
    scenario_path: Path, report_path: Path, events: list[LiveTestEvent], tmp_path: Path
) -> None:
    """The scenario detects as the report says, and the events judge to their recorded verdict."""
    scenario = json.loads(scenario_path.read_text(encoding="utf-8"))
    report = json.loads(report_path.read_text(encoding="utf-8"))
    detected = detect_json(tmp_path / "replayed-machine", scenario)
    assert detected["driver"] == report["driver"]
    assert nvidia_gpus(detected) == nvidia_gpus(report)
    result = events[-1]
    assert isinstance(result, LiveTestResult)
    assert rejudged(events, report) == result.verdict


def read_events(path: Path) -> list[LiveTestEvent]:
    """The events as the replay reads them (gpuwizard.workflow.wizard.replay: event_from_json)."""
    return [
        event_from_json(json.loads(line))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]


# --- to_fixtures.py -------------------------------------------------------------------------------


@pytest.mark.parametrize("scenario", ["h200_linux_610", "four_a100_one_lost", "windows_rtx2080super_610"])
def test_a_run_becomes_fixtures_that_replay_as_recorded(tmp_path: Path, scenario: str):
    run = kit_run(tmp_path, scenario)
    root = repository_copy(tmp_path)
    done = to_fixtures(run, root, "kit-test")
    assert done.returncode == 0, done.stderr
    nvml_path, report_path, run_path = written(root, "kit-test")
    # The scenario loads in the fake, and detection through it reports the run's GPUs and driver.
    check_replays(nvml_path, report_path, read_events(run_path), tmp_path)
    original = json.loads((run / "detect.json").read_text(encoding="utf-8"))
    assert nvidia_gpus(json.loads(report_path.read_text(encoding="utf-8"))) == nvidia_gpus(original)
    # The event stream replays to the recorded verdict, event for event.
    recorded = [json.loads(line) for line in RECORDED_RUN.read_text(encoding="utf-8").splitlines()]
    replayed = [json.loads(line) for line in run_path.read_text(encoding="utf-8").splitlines()]
    assert [event["event"] for event in replayed] == [event["event"] for event in recorded]
    assert replayed[-1]["verdict"] == recorded[-1]["verdict"] == "cpu_only"


def test_each_fixture_names_its_source(tmp_path: Path):
    root = repository_copy(tmp_path)
    assert to_fixtures(kit_run(tmp_path, "h200_linux_610"), root, "kit-test").returncode == 0
    nvml_path, _, _ = written(root, "kit-test")
    note = "gpu proof kit run on 2026-11-24, 1 x NVIDIA H200, driver 610.43.02 (CUDA 13.3), torch 2.13.0+cpu"
    scenario = json.loads(nvml_path.read_text(encoding="utf-8"))
    assert scenario["source"].startswith(note)
    assert scenario["recorded"]["tool"] == RECORDER
    assert scenario["recorded"]["fixture_name"] == "kit-test"
    runs_readme = (root / "resources/samples/runs/README.md").read_text(encoding="utf-8")
    reports_readme = (root / "tests/fixtures/reports/README.md").read_text(encoding="utf-8")
    for readme, file_name in ((runs_readme, "test-torch-kit-test.jsonl"), (reports_readme, "kit-test.json")):
        (row,) = [line for line in readme.splitlines() if line.startswith(f"| `{file_name}` |")]
        assert note in row
        assert readme.index("## Recorded by the GPU proof kit") < readme.index(row)
    # The rows the READMEs had are still there.
    assert (ROOT / "resources/samples/runs/README.md").read_text(encoding="utf-8").rstrip() in runs_readme


def test_user_names_host_names_and_gpu_uuids_are_masked(tmp_path: Path):
    run = kit_run(tmp_path, "windows_rtx2080super_610", hostname="dgx-h200-07")
    # The kit's Python where cluster machines keep it: the host's scratch disk, the user's folder.
    report = json.loads((run / "detect.json").read_text(encoding="utf-8"))
    report["python"]["executable"] = "/scratch/dgx-h200-07/ana/venv/bin/python"
    (run / "detect.json").write_text(json.dumps(report), encoding="utf-8")
    assert "GPU-1937b558-347d-0f30-105b-893b98985668" in (run / "nvml.json").read_text(encoding="utf-8")
    root = repository_copy(tmp_path)
    assert to_fixtures(run, root, "kit-test").returncode == 0
    nvml_text, report_text, run_text = (
        path.read_text(encoding="utf-8") for path in written(root, "kit-test")
    )
    everything = "\n".join((nvml_text, report_text, run_text))
    assert "1937b558" not in everything
    assert (
        json.loads(nvml_text)["devices"][0]["nvmlDeviceGetUUID"] == "GPU-00000000-0000-0000-0000-000000000000"
    )
    assert "dgx-h200-07" not in everything
    assert "/home/ana" not in everything and "/ana/" not in everything
    assert "/home/<user>/.local/share/gpuwizard/envs/torch-cpu/bin/python" in run_text
    report_out = json.loads(report_text)
    assert report_out["python"]["executable"] == "/scratch/<host>/<user>/venv/bin/python"


def test_a_short_host_name_leaves_the_gpu_names_alone(tmp_path: Path):
    run = kit_run(tmp_path, "h200_linux_610", hostname="h200")
    root = repository_copy(tmp_path)
    assert to_fixtures(run, root, "kit-test").returncode == 0
    nvml_path, report_path, _ = written(root, "kit-test")
    assert (
        json.loads(nvml_path.read_text(encoding="utf-8"))["devices"][0]["nvmlDeviceGetName"] == "NVIDIA H200"
    )
    assert [gpu["name"] for gpu in json.loads(report_path.read_text(encoding="utf-8"))["gpus"]] == [
        "NVIDIA H200"
    ]
    assert "1 x NVIDIA H200" in (root / "tests/fixtures/reports/README.md").read_text(encoding="utf-8")


def test_an_existing_fixture_is_replaced_only_when_asked(tmp_path: Path):
    run = kit_run(tmp_path, "h200_linux_610")
    root = repository_copy(tmp_path)
    assert to_fixtures(run, root, "kit-test").returncode == 0
    paths = [*written(root, "kit-test"), root / "resources/samples/runs/README.md"]
    before = [path.read_bytes() for path in paths]
    (run / "test.jsonl").write_text(RECORDED_RUN.read_text(encoding="utf-8").replace("AMD EPYC", "Other CPU"))
    refused = to_fixtures(run, root, "kit-test")
    assert refused.returncode == 2
    assert refused.stderr.count("\n") == 1 and "--replace" in refused.stderr
    assert [path.read_bytes() for path in paths] == before
    replaced = to_fixtures(run, root, "kit-test", "--replace")
    assert replaced.returncode == 0, replaced.stderr
    assert "Other CPU" in written(root, "kit-test")[2].read_text(encoding="utf-8")
    readme = (root / "resources/samples/runs/README.md").read_text(encoding="utf-8")
    assert readme.count("| `test-torch-kit-test.jsonl` |") == 1
    assert readme.count("## Recorded by the GPU proof kit") == 1


@pytest.mark.parametrize("scenario", ["no_gpu", "driver_library_mismatch"])
def test_a_run_without_nvml_is_refused(tmp_path: Path, scenario: str):
    run = kit_run(tmp_path, scenario)
    root = repository_copy(tmp_path)
    readmes = {path: path.read_bytes() for path in root.rglob("README.md")}
    done = to_fixtures(run, root, "kit-test")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "NVML was not available" in done.stderr
    assert not any(path.exists() for path in written(root, "kit-test"))
    assert {path: path.read_bytes() for path in root.rglob("README.md")} == readmes


@pytest.mark.parametrize(
    ("name", "damage"),
    [
        ("Bad Name", None),
        ("linux-h200", None),  # a shipped sample's name (resources/samples/linux-h200.json)
        ("kit-test", "test.jsonl"),
        ("kit-test", "detect.json"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(tmp_path: Path, name: str, damage: str | None):
    run = kit_run(tmp_path, "h200_linux_610")
    root = repository_copy(tmp_path)
    shutil.copy(ROOT / "resources/samples/linux-h200.json", root / "resources/samples/linux-h200.json")
    if damage == "test.jsonl":  # the live test never finished: no result event
        lines = (run / damage).read_text(encoding="utf-8").splitlines()[:-1]
        (run / damage).write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif damage is not None:
        (run / damage).unlink()
    done = to_fixtures(run, root, name)
    assert done.returncode == 2
    assert done.stderr.startswith("to_fixtures: error: ") and done.stderr.count("\n") == 1
    assert not any(path.exists() for path in written(root, name))


# --- the fixtures real kit runs left in this repository -------------------------------------------


def kit_fixture_names() -> list[str]:
    """The NVML scenarios the kit recorded (their ``recorded.tool``), named as their fixtures."""
    names = []
    for path in sorted(NVML_FIXTURES.glob("*.json")):
        recorded = json.loads(path.read_text(encoding="utf-8")).get("recorded") or {}
        if recorded.get("tool") == RECORDER:
            names.append(path.stem)
    return names


@pytest.mark.parametrize("name", kit_fixture_names())
def test_committed_kit_fixtures_replay(tmp_path: Path, name: str):
    """Each kit run committed (tools/gpu_proof/FIXTURES.md): NVML detects as on the GPU, the test replays."""
    nvml_path, report_path, _ = written(ROOT, name)
    events: list[LiveTestEvent] = []
    result = replay_test(f"test-torch-{name}")(None, None, events.append, None)  # type: ignore[arg-type]
    assert events[-1] == result
    check_replays(nvml_path, report_path, events, tmp_path)
