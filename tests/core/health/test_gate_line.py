"""``verify --oneline``: the line a scheduler puts in a drain reason, for each way a run ends."""

from __future__ import annotations

from builders.reports import machine
from gpuwizard.core.health.checks import HealthCheck, HealthReport
from gpuwizard.core.health.events import VerifyResult, VerifyStatus
from gpuwizard.core.health.gate_line import MAX_LENGTH, gate_line
from gpuwizard.core.machine.system_report import SystemReport

H200 = machine(gpus=[("NVIDIA H200", "9.0")] * 8, driver="570.86.15", cuda_max="12.8")
OK = (
    HealthCheck("driver", "driver", "", "ok", "570.86.15", "570.86.15"),
    HealthCheck("env:lab:import", "import", "lab", "ok", "import torch", "import torch"),
    HealthCheck("env:lab:build", "build", "lab", "ok", "2.13.0+cu126", "2.13.0+cu126"),
    HealthCheck("env:tf:import", "import", "tf", "ok", "import tensorflow", "import tensorflow"),
)


def line(
    checks: tuple[HealthCheck, ...], status: VerifyStatus = "complete", report: SystemReport | None = H200
) -> str:
    return gate_line(VerifyResult.of(HealthReport(checks), status), report)


def test_healthy_names_the_environments_the_driver_and_the_gpus():
    assert line(OK) == "gpuwizard: healthy (2 environments, driver 570.86.15, 8 GPUs)"
    changed = (HealthCheck("driver", "driver", "", "changed", "560.35.03", "570.86.15"), *OK[1:3])
    assert line(changed) == "gpuwizard: healthy (1 environment, driver 570.86.15, 8 GPUs; 1 changed)"
    path = (HealthCheck("path:user:C:\\CUDA\\bin", "path", "C:\\CUDA\\bin", "ok", "on PATH", "on PATH"),)
    assert (
        line(path, report=machine(gpus=[], driver=None))
        == "gpuwizard: healthy (1 PATH folder, no NVIDIA driver, 0 GPUs)"
    )


def test_broken_names_the_first_broken_check_before_and_after_and_how_many_more():
    one = (
        *OK[:1],
        HealthCheck(
            "env:lab:build", "build", "lab", "broken", "2.13.0+cu126 (CUDA 12.6)", "2.13.0+cpu (CPU)"
        ),
    )
    assert line(one) == "gpuwizard: broken: env:lab:build: 2.13.0+cu126 (CUDA 12.6) -> 2.13.0+cpu (CPU)"
    three = (
        HealthCheck("driver", "driver", "", "broken", "570.86.15", None),
        HealthCheck("gpus", "gpus", "8 GPUs", "broken", "8 GPUs", "none"),
        *OK[1:],
        HealthCheck("env:tf:devices", "devices", "tf", "broken", "8 GPUs", "0 GPUs"),
    )
    assert line(three) == "gpuwizard: broken: driver: 570.86.15 -> none (+2 more)"


def test_a_long_or_hostile_value_is_cut_to_one_printable_line_keeping_the_count():
    folder = "C:\\" + "very long folder\\" * 30 + "bin\n\u202eevil"
    checks = (
        HealthCheck(f"path:user:{folder}", "path", folder, "broken", "on PATH", "not on PATH"),
        HealthCheck("driver", "driver", "", "broken", "570.86.15", None),
    )
    text = line(checks)
    assert len(text) == MAX_LENGTH and text.isprintable()
    assert text.startswith("gpuwizard: broken: path:user:C:\\very long folder") and text.endswith(
        "... (+1 more)"
    )


def test_nothing_to_verify_cancelled_and_nothing_checked():
    assert (
        line((), "nothing_to_verify", None) == "gpuwizard: nothing to verify (the wizard set nothing up here)"
    )
    assert line(OK[:1], "cancelled") == "gpuwizard: cancelled (not every check ran; nothing was recorded)"
    skipped = (HealthCheck("env:lab:import", "import", "lab", "skipped", note="being made"),)
    assert line(skipped).startswith("gpuwizard: nothing could be checked")
