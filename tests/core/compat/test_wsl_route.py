"""TensorFlow's WSL 2 route on Windows (issue 39, point 2): the real recommender over saved reports.

``windows-rtx4070-581.57-wsl-ubuntu2404.json`` is the acceptance machine (Windows 11, RTX 4070,
driver 581.57, an Ubuntu 24.04 WSL 2 distribution beside Docker Desktop's); ``…-no-wsl.json`` is
the same machine before WSL was installed. The others are made from it, one fact changed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.presentation import install_commands
from gpuwizard.core.compat.recommend import Recommendation, recommend
from gpuwizard.core.compat.shell_commands import command_host
from gpuwizard.core.machine.system_report import SystemReport, WslDistroFacts, WslFacts
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.machine.system_file import load_system_report

REPORTS = Path(__file__).parents[2] / "fixtures" / "reports"
WITH_WSL = REPORTS / "windows-rtx4070-581.57-wsl-ubuntu2404.json"
WITHOUT_WSL = REPORTS / "windows-rtx4070-581.57-no-wsl.json"
SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/recommendation-1.schema.json").read_text()
)


def tensorflow(report: SystemReport, version: str | None = None) -> Recommendation:
    return recommend(report, parse_wish("tensorflow", version), load_compat())


def with_wsl(report: SystemReport, **changes: object) -> SystemReport:
    assert report.wsl is not None
    return replace(report, wsl=replace(report.wsl, **changes))


def newest_tensorflow() -> str:
    return max((row.version for row in load_compat().tensorflow), key=lambda v: tuple(map(int, v.split("."))))


def test_a_wsl2_distribution_makes_current_tensorflow_the_plan_and_keeps_native_2_10_beside_it():
    rec = tensorflow(load_system_report(WITH_WSL))
    plan = rec.plan
    assert (plan.target, plan.device) == ("wsl2", "cuda")
    assert plan.framework_version.startswith(newest_tensorflow() + ".")
    assert rec.gpu_supported
    assert plan.requirements[0] == f"tensorflow[and-cuda]=={plan.framework_version}"
    assert plan.wsl is not None
    # Docker Desktop's distribution is listed by wsl.exe too, and is never chosen.
    assert (plan.wsl.distro, plan.wsl.state, plan.wsl.windows_commands) == ("Ubuntu-24.04", "ready", ())
    native = [p for p in rec.alternatives if p.target == "native" and not p.cpu_only]
    assert native and native[0].framework_version.startswith("2.10.")


def test_without_wsl_the_plan_says_what_installing_it_takes_before_anything_changes():
    rec = tensorflow(load_system_report(WITHOUT_WSL))
    plan = rec.plan
    assert plan.target == "wsl2" and plan.wsl is not None
    route = plan.wsl
    assert (route.state, route.administrator, route.download, route.restart) == (
        "install_wsl",
        True,
        True,
        True,
    )
    assert route.windows_commands == ("wsl --install -d Ubuntu-24.04",)
    assert any("administrator" in reason and "restart" in reason for reason in plan.reasons)
    steps = install_commands(plan, host=command_host(load_system_report(WITHOUT_WSL), plan))
    # Installing WSL comes first, then the distribution's shell; nothing inside it before.
    assert steps[0] == "(Windows, as administrator) wsl --install -d Ubuntu-24.04"
    assert steps.index("(Windows) restart Windows if asked to, then go on") < next(
        i for i, step in enumerate(steps) if step.startswith("(Ubuntu-24.04)")
    )


@pytest.mark.parametrize(
    ("distros", "state", "distro", "command"),
    [
        # The default one runs under WSL 1: converted (its files kept).
        ((WslDistroFacts("Debian", 1, True, "stopped"),), "convert", "Debian", "wsl --set-version Debian 2"),
        # Only another program's engine: a distribution is installed for the person.
        (
            (WslDistroFacts("docker-desktop", 2, True, "running"),),
            "install_distro",
            "Ubuntu-24.04",
            "wsl --install -d Ubuntu-24.04",
        ),
        # A WSL 2 one beats the default WSL 1 one.
        (
            (WslDistroFacts("Ubuntu", 1, True), WslDistroFacts("Ubuntu-22.04", 2, False)),
            "ready",
            "Ubuntu-22.04",
            None,
        ),
    ],
)
def test_the_route_starts_from_the_distributions_there(distros, state, distro, command):
    rec = tensorflow(with_wsl(load_system_report(WITH_WSL), distros=distros))
    route = rec.plan.wsl
    assert route is not None and rec.plan.target == "wsl2"
    assert (route.state, route.distro) == (state, distro)
    assert route.windows_commands == ((command,) if command else ())
    assert not route.administrator  # only installing WSL itself needs it


def test_a_pending_restart_and_virtualization_off_are_said():
    rec = tensorflow(with_wsl(load_system_report(WITHOUT_WSL), needs_restart=True, virtualization=False))
    route = rec.plan.wsl
    assert route is not None and (route.state, route.restart, route.virtualization_off) == (
        "restart",
        True,
        True,
    )
    assert any("firmware" in reason for reason in rec.plan.reasons)


def test_a_windows_build_without_cuda_in_wsl_has_no_route_and_says_what_would_give_it():
    rec = tensorflow(with_wsl(load_system_report(WITH_WSL), windows_build=19041))
    assert rec.plan.target == "native"
    assert not any(p.target == "wsl2" for p in rec.alternatives)
    assert any("build 19044" in note and "19041" in note for note in rec.notes)


def test_virtualization_off_is_a_windows_step_not_a_ready_route():
    rec = tensorflow(with_wsl(load_system_report(WITH_WSL), virtualization=False))
    route = rec.plan.wsl
    assert route is not None
    assert (route.state, route.administrator, route.restart) == ("virtualization", True, True)
    assert route.windows_commands == ("wsl --install --no-distribution",)
    assert any("firmware" in reason for reason in rec.plan.reasons)


def test_a_restart_pending_without_a_distribution_installs_one_after_it():
    rec = tensorflow(with_wsl(load_system_report(WITHOUT_WSL), installed=True, needs_restart=True))
    route = rec.plan.wsl
    assert route is not None and route.state == "restart"
    assert route.windows_commands == ("wsl --install -d Ubuntu-24.04",)
    steps = install_commands(rec.plan, host=command_host(load_system_report(WITHOUT_WSL), rec.plan))
    assert steps[:2] == [
        "(Windows) restart Windows: an installation of WSL waits for it",
        "(Windows) wsl --install -d Ubuntu-24.04",
    ]


def test_a_ptx_only_route_is_not_headlined_as_possible():
    from gpuwizard.core.compat.presentation import headline
    from gpuwizard.core.machine.system_report import GpuFacts

    report = load_system_report(WITH_WSL)
    report = replace(report, gpus=(GpuFacts(0, "nvidia", "NVIDIA GeForce RTX 5090", "12.0", 32607),))
    rec = tensorflow(report)
    assert rec.plan.target == "wsl2" and not rec.gpu_supported
    assert "only through PTX" in str(headline(rec, gpu_present=True))


def test_a_report_that_does_not_say_what_wsl_there_is_ranks_as_before():
    report = replace(load_system_report(WITH_WSL), wsl=None)
    rec = tensorflow(report)
    assert rec.plan.target == "native" and rec.plan.framework_version.startswith("2.10.")
    wsl2 = next(p for p in rec.alternatives if p.target == "wsl2")
    assert wsl2.wsl is not None and wsl2.wsl.state == "unknown"


def test_a_wish_for_2_10_stays_native_and_pytorch_is_untouched():
    report = load_system_report(WITH_WSL)
    assert tensorflow(report, "2.10").plan.target == "native"
    torch = recommend(report, parse_wish("pytorch", None), load_compat())
    assert torch.plan.target == "native" and torch.plan.wsl is None


def test_wsl_facts_round_trip_and_old_reports_load():
    report = load_system_report(WITH_WSL)
    assert isinstance(report.wsl, WslFacts) and report.wsl.default_distro is not None
    assert report.wsl.default_distro.name == "Ubuntu-24.04"
    assert load_system_report(REPORTS / "windows-rtx3060-546.33.json").wsl is None


@pytest.mark.parametrize("report", [WITH_WSL, WITHOUT_WSL])
def test_recommend_json_carries_the_route(report: Path):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuwizard",
            "recommend",
            "--framework",
            "tensorflow",
            "--system",
            str(report),
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    jsonschema.validate(data, SCHEMA)
    assert data["gpu_supported"] is True
    assert data["plan"]["target"] == "wsl2" and data["plan"]["wsl"]["distro"] == "Ubuntu-24.04"
    assert any(p["target"] == "native" and p["device"] == "cuda" for p in data["alternatives"])
