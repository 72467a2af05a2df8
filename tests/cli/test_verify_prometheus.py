"""``gpuwizard verify --prometheus FILE`` through the real entry point: the file a textfile collector reads.

The set-ups are cheap and real: a PATH folder the wizard added to a registry snapshot
(``gpuwizard path add --registry FILE``) is something to verify on any OS, and a saved
``--system`` report from ``resources/samples`` stands for the machine. The metrics file is read
back with ``prometheus_client``'s own parser, as Prometheus would read it, and its bytes are
checked for what the format and the collectors need (UTF-8 without a BOM, ``\\n`` line ends).
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from harness import faulty_home
from harness.entry_point import ENTRY_POINT, gpuwizard
from harness.path_states import CUDA_BIN, USER, registry_with_a_folder_the_wizard_added

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
H200 = SAMPLES / "linux-h200.json"  # driver 610.43.02 (CUDA 13.3), one NVIDIA H200
NO_GPU = SAMPLES / "no-gpu.json"


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def take_the_folder_away(registry: Path) -> None:
    """An installer rewrites the user PATH without the wizard's folder: the setup is broken."""
    data = json.loads(registry.read_text())
    data[USER]["Path"]["value"] = "%USERPROFILE%\\bin;C:\\SomeApp"
    registry.write_text(json.dumps(data))


def samples(path: Path) -> dict[str, list[tuple[dict[str, str], float]]]:
    """Every sample of the metrics file, by metric name, as Prometheus' parser reads them."""
    data = path.read_bytes()
    assert not data.startswith(b"\xef\xbb\xbf") and b"\r" not in data and data.endswith(b"\n")
    found: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in text_string_to_metric_families(data.decode("utf-8")):
        assert family.type == "gauge" and family.documentation, family
        for sample in family.samples:
            found.setdefault(sample.name, []).append((dict(sample.labels), sample.value))
    return found


def value(found: dict[str, list[tuple[dict[str, str], float]]], name: str, **labels: str) -> float:
    matching = [number for sample_labels, number in found[name] if sample_labels == labels]
    assert len(matching) == 1, (name, labels, found.get(name))
    return matching[0]


def verify(*args: str) -> subprocess.CompletedProcess[str]:
    return gpuwizard("verify", "--no-test", *args, timeout=120)


def result_of(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    assert result["event"] == "result", done.stdout[-2000:]
    return result


def test_a_healthy_setup_writes_healthy_1_with_its_checks_driver_gpus_and_times(tmp_path: Path):
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    metrics = tmp_path / "textfile" / "gpuwizard.prom"
    metrics.parent.mkdir()
    first = verify("--system", str(H200), "--registry", str(registry), "--prometheus", str(metrics), "--json")
    assert first.returncode == 0, first.stdout[-2000:] + first.stderr
    assert result_of(first)["prometheus_file"] == str(metrics)
    found = samples(metrics)
    assert value(found, "gpuwizard_healthy") == 1
    assert value(found, "gpuwizard_verify_status", status="complete") == 1
    assert value(found, "gpuwizard_verify_status", status="nothing_to_verify") == 0
    assert value(found, "gpuwizard_check_ok", check=f"path:user:{CUDA_BIN}", environment="") == 1
    assert (
        value(
            found,
            "gpuwizard_driver_info",
            driver_version="610.43.02",
            driver_cuda_max="13.3",
            vendor="nvidia",
        )
        == 1
    )
    assert value(found, "gpuwizard_gpus") == 1
    assert value(found, "gpuwizard_verify_duration_seconds") >= 0
    assert value(found, "gpuwizard_verify_timestamp_seconds") > 1.7e9
    # Recorded by this very run: its time is the last good state's.
    recorded = json.loads((home() / "last-good.json").read_text())["recorded"]
    assert value(found, "gpuwizard_last_good_timestamp_seconds") == pytest.approx(_epoch(recorded), abs=1)
    # The driver check had nothing to compare with (skipped): no sample, not a 0.
    assert all(labels.get("check") != "driver" for labels, _ in found["gpuwizard_check_ok"])
    assert "gpuwizard_live_test_speedup_ratio" not in found  # no live test here, none recorded

    again = verify("--system", str(H200), "--registry", str(registry), "--prometheus", str(metrics))
    assert again.returncode == 0, again.stderr
    assert value(samples(metrics), "gpuwizard_check_ok", check="driver", environment="") == 1


def test_a_broken_setup_writes_healthy_0_and_the_broken_check_and_still_exits_1(tmp_path: Path):
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    assert verify("--system", str(H200), "--registry", str(registry)).returncode == 0
    recorded = json.loads((home() / "last-good.json").read_text())["recorded"]
    take_the_folder_away(registry)
    metrics = tmp_path / "gpuwizard.prom"
    done = verify("--system", str(H200), "--registry", str(registry), "--prometheus", str(metrics))
    assert done.returncode == 1, done.stdout + done.stderr
    found = samples(metrics)
    assert value(found, "gpuwizard_healthy") == 0
    assert value(found, "gpuwizard_check_ok", check=f"path:user:{CUDA_BIN}", environment="") == 0
    assert value(found, "gpuwizard_check_ok", check="driver", environment="") == 1
    # Nothing was recorded: the last good state is still the one compared with.
    assert value(found, "gpuwizard_last_good_timestamp_seconds") == pytest.approx(_epoch(recorded), abs=1)


def test_the_last_good_states_speedup_per_environment_and_an_environment_label(tmp_path: Path):
    # An environment the wizard made whose interpreter is gone (broken), and the state its
    # passed GPU test recorded: 40000 samples/s on the GPU, 800 on the CPU.
    folder = tmp_path / "lab"
    home().mkdir(parents=True, exist_ok=True)
    (home() / "environments.json").write_text(
        json.dumps(
            {"schema": "gpuwizard.environments/1",
             "environments": [{"name": "lab", "path": str(folder), "python": str(folder / "bin" / "python"),
                               "manager": "venv", "framework": "pytorch", "framework_version": "2.13.0"}]}
        )
    )  # fmt: skip
    (home() / "last-good.json").write_text(
        json.dumps(
            {"schema": "gpuwizard.snapshot/1", "recorded": "2026-01-05T10:00:00+00:00",
             "driver_version": "610.43.02", "driver_cuda_max": "13.3", "gpus": [],
             "environments": [{"name": "lab", "path": str(folder), "python": str(folder / "bin" / "python"),
                               "manager": "venv", "framework": "pytorch", "framework_version": "2.13.0",
                               "test_verdict": "gpu_ok", "samples_per_s": {"gpu": 40000.0, "cpu": 800.0}}],
             "path_entries": []}
        )
    )  # fmt: skip
    metrics = tmp_path / "gpuwizard.prom"
    done = verify("--system", str(H200), "--prometheus", str(metrics))
    assert done.returncode == 1, done.stdout + done.stderr
    found = samples(metrics)
    assert value(found, "gpuwizard_live_test_speedup_ratio", environment="lab") == pytest.approx(50.0)
    assert value(found, "gpuwizard_check_ok", check="env:lab:interpreter", environment="lab") == 0
    assert value(found, "gpuwizard_last_good_timestamp_seconds") == _epoch("2026-01-05T10:00:00+00:00")


def test_nothing_to_verify_writes_healthy_0_and_its_status(tmp_path: Path):
    metrics = tmp_path / "gpuwizard.prom"
    done = verify("--system", str(NO_GPU), "--prometheus", str(metrics), "--json")
    assert done.returncode == 0, done.stderr
    assert result_of(done)["status"] == "nothing_to_verify"
    found = samples(metrics)
    assert value(found, "gpuwizard_healthy") == 0
    assert value(found, "gpuwizard_verify_status", status="nothing_to_verify") == 1
    assert value(found, "gpuwizard_verify_status", status="complete") == 0
    # Nothing was detected or checked, and there is no last good state: left out, never NaN.
    assert not {"gpuwizard_driver_info", "gpuwizard_gpus", "gpuwizard_last_good_timestamp_seconds"} & set(
        found
    )
    assert "NaN" not in metrics.read_text()


def test_the_file_is_replaced_in_one_step_and_no_temporary_file_is_left(tmp_path: Path):
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    folder = tmp_path / "textfile"
    folder.mkdir()
    metrics = folder / "gpuwizard.prom"
    metrics.write_text("# an older run's metrics\ngpuwizard_healthy 0\n")
    metrics.chmod(0o644)  # what a collector running as another user needs: kept by the new file
    old_inode = metrics.stat().st_ino
    done = verify("--system", str(H200), "--registry", str(registry), "--prometheus", str(metrics))
    assert done.returncode == 0, done.stderr
    assert value(samples(metrics), "gpuwizard_healthy") == 1
    assert metrics.stat().st_ino != old_inode  # a new file renamed over the old one, not rewritten in place
    assert sorted(path.name for path in folder.iterdir()) == ["gpuwizard.prom"]
    assert metrics.stat().st_mode & 0o777 == 0o644


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("metrics.txt", "must end in .prom"),
        ("metrics.prom.tmp", "must end in .prom"),
        ("missing-folder/metrics.prom", "does not exist"),
        ("a-folder.prom", "is a folder"),
    ],
)
def test_a_bad_file_exits_2_with_one_line_before_anything_is_checked(tmp_path: Path, name: str, why: str):
    (tmp_path / "a-folder.prom").mkdir()
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    before = sorted(path.name for path in tmp_path.iterdir())
    done = verify("--system", str(H200), "--registry", str(registry), "--prometheus", str(tmp_path / name))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("gpuwizard: error: ")
    assert why in done.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == before  # nothing written
    assert not (home() / "last-good.json").exists()  # nothing checked, nothing recorded


def test_a_folder_that_cannot_be_written_is_one_warning_and_the_exit_code_is_the_checks(tmp_path: Path):
    why = faulty_home.unavailable("read-only")
    if why is not None:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run this test: {why}")
        pytest.skip(why)
    registry = registry_with_a_folder_the_wizard_added(tmp_path)
    folder = tmp_path / "textfile"
    folder.mkdir()
    metrics = folder / "gpuwizard.prom"
    argv = [ENTRY_POINT, "verify", "--no-test", "--system", str(H200), "--registry", str(registry),
            "--prometheus", str(metrics), "--json"]  # fmt: skip
    with faulty_home.faulty("read-only", folder) as prefix:
        done = subprocess.run([*prefix, *argv], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr  # healthy: the checks decide
    result = result_of(done)
    assert result["healthy"] is True and "prometheus_file" not in result
    assert result["prometheus_error"].startswith(f"the metrics file {metrics} was not written: ")
    assert done.stderr.splitlines() == [f"gpuwizard: warning: {result['prometheus_error']}"]
    assert list(folder.iterdir()) == []


def _epoch(moment: str) -> float:
    from datetime import datetime

    return datetime.fromisoformat(moment).timestamp()
