"""Verify's metrics in Prometheus' text format, on data: read back with ``prometheus_client``'s parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

from builders.reports import machine
from gpuwizard.core.health.checks import HealthCheck, HealthReport
from gpuwizard.core.health.events import VerifyResult
from gpuwizard.core.health.prometheus import exposition, verify_metrics
from gpuwizard.core.health.snapshot import Snapshot, SnapshotEnv
from gpuwizard.core.livetest.events import LiveTestResult

RTX = ("NVIDIA GeForce RTX 3060", "8.6")
FOLDER = 'C:\\Program Files\\CUDA "12.6"\\bin\nx'  # a backslash, quotes and a line feed
CHECKS = (
    HealthCheck("driver", "driver", "", "changed", "560.35.03", "565.57.01"),
    HealthCheck("gpus", "gpus", "1 GPU", "ok", "1 GPU", "1 GPU"),
    HealthCheck("env:lab:import", "import", "lab", "broken", "import torch", "not installed"),
    HealthCheck("env:lab:test", "test", "lab", "skipped", note="not run"),
    HealthCheck(f"path:user:{FOLDER}", "path", FOLDER, "ok", "on PATH", "on PATH"),
)
LAST_GOOD = Snapshot(
    recorded="2026-01-05T10:00:00+00:00",
    environments=(
        SnapshotEnv("lab", "/e/lab", "/e/lab/bin/python", "venv", "pytorch", "2.13.0",
                    samples_per_s={"gpu": 40000.0, "cpu": 800.0}),
        SnapshotEnv("cpu", "/e/cpu", "/e/cpu/bin/python", "venv", "pytorch", "2.13.0",
                    samples_per_s={"gpu": None, "cpu": 800.0}),
    ),
)  # fmt: skip


def parsed(text: str) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    families = {}
    for family in text_string_to_metric_families(text):
        assert family.type == "gauge" and family.documentation
        families[family.name] = {
            tuple(sorted(sample.labels.items())): sample.value for sample in family.samples
        }
    return families


def metrics_of(
    result: VerifyResult, **options: object
) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    arguments: dict[str, object] = {
        "machine": machine(gpus=[RTX], driver="565.57.01", cuda_max="12.7"),
        "last_good": LAST_GOOD,
        "tests": {},
        "finished_s": 1767607200.5,
        "duration_s": 0.25,
        **options,
    }
    return parsed(exposition(verify_metrics(result, **arguments)))  # type: ignore[arg-type]


def test_a_broken_run_every_metric_its_labels_escaped_and_read_back():
    found = metrics_of(VerifyResult.of(HealthReport(CHECKS, LAST_GOOD.recorded), "complete"))
    assert found["gpuwizard_healthy"] == {(): 0}
    assert found["gpuwizard_verify_status"] == {
        (("status", "complete"),): 1, (("status", "cancelled"),): 0, (("status", "nothing_to_verify"),): 0,
    }  # fmt: skip
    assert found["gpuwizard_check_ok"] == {
        (("check", "driver"), ("environment", "")): 1,  # changed is fine
        (("check", "gpus"), ("environment", "")): 1,
        (("check", "env:lab:import"), ("environment", "lab")): 0,
        (("check", f"path:user:{FOLDER}"), ("environment", "")): 1,  # the parser unescapes it whole
    }  # the skipped test compared nothing: no sample
    assert found["gpuwizard_driver_info"] == {
        (("driver_cuda_max", "12.7"), ("driver_version", "565.57.01"), ("vendor", "nvidia")): 1
    }
    assert found["gpuwizard_gpus"] == {(): 1}
    assert found["gpuwizard_last_good_timestamp_seconds"] == {(): 1767607200}
    assert found["gpuwizard_verify_timestamp_seconds"] == {(): 1767607200.5}
    assert found["gpuwizard_verify_duration_seconds"] == {(): 0.25}
    # The recorded test of lab: 40000 / 800; the CPU-only one has no speed-up to give.
    assert found["gpuwizard_live_test_speedup_ratio"] == {(("environment", "lab"),): 50}


def test_a_healthy_run_is_1_and_this_runs_short_test_is_the_last_speedup():
    ok = tuple(check for check in CHECKS if check.status != "broken")
    now = LiveTestResult(verdict="gpu_ok", speedup=12.5)
    cpu = LiveTestResult(verdict="cpu_only", speedup=None)
    found = metrics_of(VerifyResult.of(HealthReport(ok), "complete"), tests={"lab": now, "cpu": cpu})
    assert found["gpuwizard_healthy"] == {(): 1}
    assert found["gpuwizard_live_test_speedup_ratio"] == {(("environment", "lab"),): 12.5}


def test_cancelled_and_nothing_to_verify_are_0_and_unknowns_are_left_out_never_nan():
    cancelled = metrics_of(VerifyResult.of(HealthReport(CHECKS[:2]), "cancelled"))
    assert cancelled["gpuwizard_healthy"] == {(): 0}
    assert cancelled["gpuwizard_verify_status"][(("status", "cancelled"),)] == 1
    nothing = VerifyResult.of(HealthReport(()), "nothing_to_verify")
    text = exposition(
        verify_metrics(
            nothing, machine=None, last_good=None, tests={}, finished_s=1.0, duration_s=float("nan")
        )
    )
    found = parsed(text)
    assert found["gpuwizard_healthy"] == {(): 0}
    assert found["gpuwizard_verify_status"][(("status", "nothing_to_verify"),)] == 1
    assert set(found) == {
        "gpuwizard_healthy",
        "gpuwizard_verify_status",
        "gpuwizard_verify_timestamp_seconds",
    }
    assert (
        "NaN" not in text
        and "gpuwizard_verify_duration_seconds" not in text
        and "# TYPE gpuwizard_check_ok" not in text
    )


def test_a_machine_without_a_driver_has_no_driver_info_and_counts_its_usable_gpus():
    lost = machine(gpus=[RTX, RTX, RTX], driver="555.42.02", lost=[1])
    found = metrics_of(VerifyResult.of(HealthReport(CHECKS[:1]), "complete"), machine=lost)
    assert found["gpuwizard_gpus"] == {(): 2}  # the GPU that fell off the bus is not usable
    no_driver = metrics_of(
        VerifyResult.of(HealthReport(CHECKS[:1]), "complete"), machine=machine(gpus=[], driver=None)
    )
    assert "gpuwizard_driver_info" not in no_driver and no_driver["gpuwizard_gpus"] == {(): 0}


def test_the_text_is_the_format_help_and_type_before_each_family_one_line_each():
    text = exposition(
        verify_metrics(
            VerifyResult.of(HealthReport(CHECKS), "complete"),
            machine=None, last_good=None, tests={}, finished_s=2.0, duration_s=1.0,
        )
    )  # fmt: skip
    lines = text.splitlines()
    assert text.endswith("\n") and "\r" not in text
    names = [line.split()[2] for line in lines if line.startswith("# TYPE ")]
    assert len(names) == len(set(names))  # each family once
    for name in names:
        at = lines.index(f"# TYPE {name} gauge")
        assert lines[at - 1].startswith(f"# HELP {name} ")
    assert 'check="path:user:C:\\\\Program Files\\\\CUDA \\"12.6\\"\\\\bin\\nx"' in text
