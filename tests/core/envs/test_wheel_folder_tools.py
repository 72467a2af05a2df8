"""Reading uv's and pip's answers about a folder of wheels, and the targets the check asks them for.

The failure texts are real outputs recorded on this project's machine
(tests/fixtures/recorded/diagnose/SOURCES.md, "Recorded here"; envtools/SOURCES.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpuwizard.core.envs.wheel_folder_tools import (
    pip_report_argv,
    read_pip_report,
    read_uv_compile,
    uv_compile_argv,
    uv_python_platform,
)
from gpuwizard.core.envs.wheel_tags import WheelTarget, generic_platforms, marker_environment

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded"
UV_OFFLINE = "diagnose/no-matching-distribution_uv-0.13.9-offline-find-links-torch-cpu-without-filelock_recorded-here.txt"
PIP_OFFLINE = "diagnose/no-matching-distribution_pip-23.0.1-offline-find-links-torch-cpu-without-filelock_recorded-here.txt"


@pytest.mark.parametrize(
    ("platforms", "expected"),
    [
        (("linux_x86_64", "manylinux_2_36_x86_64", "manylinux_2_35_x86_64"), "x86_64-manylinux_2_36"),
        (("manylinux_2_30_aarch64", "manylinux_2_29_aarch64"), "aarch64-manylinux_2_28"),
        (("manylinux_2_12_x86_64",), None),  # older than any level uv knows
        (("musllinux_1_2_x86_64",), "x86_64-unknown-linux-musl"),
        (("win_amd64",), "x86_64-pc-windows-msvc"),
        (("win32",), "i686-pc-windows-msvc"),
        (("macosx_14_0_arm64", "macosx_11_0_universal2"), "aarch64-apple-darwin"),
        (("linux_riscv64",), None),
    ],
)
def test_uv_targets_follow_the_platform_tags(platforms: tuple[str, ...], expected: str | None):
    assert uv_python_platform(platforms) == expected


def test_the_commands_resolve_against_the_folder_alone_for_the_target():
    target = WheelTarget("3.12", ("win_amd64",))
    uv = uv_compile_argv("uv", "/w", "/tmp/r.in", target, "/usr/bin/python3")
    assert uv[:3] == ["uv", "pip", "compile"]
    assert {"--offline", "--no-index", "--no-build", "--no-config"} <= set(uv)
    assert (
        uv[uv.index("--find-links") + 1] == "/w"
        and uv[uv.index("--python-platform") + 1] == "x86_64-pc-windows-msvc"
    )
    assert uv[uv.index("--python-version") + 1] == "3.12" and uv[-1] == "/tmp/r.in"
    pip = pip_report_argv("python", "/w", "/tmp/t", target, ["torch==2.13.0"])
    assert {"--dry-run", "--ignore-installed", "--no-index", "--only-binary=:all:"} <= set(pip)
    assert pip[pip.index("--abi") + 1] == "cp312" and pip[pip.index("--platform") + 1] == "win_amd64"
    assert pip[-3:] == ["--report", "-", "torch==2.13.0"]


def test_recorded_failures_name_the_missing_package():
    uv = (RECORDED / UV_OFFLINE).read_text(encoding="utf-8")
    answer = read_uv_compile(1, "", uv)
    assert (answer.failed, answer.unchecked, answer.missing) == (True, False, ("filelock",))
    assert answer.message.startswith("Because filelock was not found in the provided package locations")

    pip = (RECORDED / PIP_OFFLINE).read_text(encoding="utf-8")
    answer = read_pip_report(1, "", pip)
    assert (answer.failed, answer.missing) == (True, ("filelock",))

    versions = read_pip_report(
        1,
        "",
        "ERROR: Could not find a version that satisfies the requirement torch==2.13.0 (from versions: 2.12.0+cpu)",
    )
    assert versions.failed and versions.missing == ()  # torch is there, in another release


def test_a_tool_that_gives_no_answer_leaves_the_folder_unchecked():
    usage = "error: invalid value 'bogus' for '--python-platform <PYTHON_PLATFORM>'"
    assert read_uv_compile(2, "", usage).unchecked
    assert read_pip_report(1, "", "ERROR: Can not use any platform or abi specific options").unchecked
    assert read_pip_report(0, "not json", "").unchecked


def test_a_pip_report_lists_what_would_be_installed():
    report = {
        "install": [
            {"metadata": {"name": "torch", "version": "2.13.0+cpu"}},
            {"metadata": {"name": "filelock", "version": "3.16.1"}},
        ]
    }
    answer = read_pip_report(0, json.dumps(report), "")
    assert answer.resolved == (("torch", "2.13.0+cpu"), ("filelock", "3.16.1"))


def test_markers_are_evaluated_for_the_target_not_this_machine():
    windows = marker_environment(WheelTarget("3.12", generic_platforms("windows", "x86_64")))
    assert (windows["sys_platform"], windows["platform_system"], windows["python_version"]) == (
        "win32",
        "Windows",
        "3.12",
    )
    linux = marker_environment(WheelTarget("3.11", ("manylinux_2_28_aarch64",)))
    assert (linux["sys_platform"], linux["platform_machine"]) == ("linux", "aarch64")
