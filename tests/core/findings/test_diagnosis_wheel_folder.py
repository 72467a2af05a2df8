"""A package missing from an offline folder of wheels is said as such, not blamed on a 32-bit Python.

Issue 20, point 6: an offline install from a folder holding torch's CPU wheel but not its
dependencies failed with uv's "filelock was not found in the provided package locations", and
the diagnosis gave the generic hint that names a 32-bit Python first. The logs here are real
outputs recorded on this project's machine (tests/fixtures/recorded/diagnose/SOURCES.md,
"Recorded here"; tests/fixtures/recorded/envtools/SOURCES.md) and a real report's log
(tensorflow/tensorflow#8251, a 32-bit Python on Windows).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.findings.diagnosis import diagnose
from gpuwizard.core.findings.model import Finding
from harness.recorded_logs import only, only_in

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded"
UV_OFFLINE = "diagnose/no-matching-distribution_uv-0.13.9-offline-find-links-torch-cpu-without-filelock_recorded-here.txt"
PIP_OFFLINE = "diagnose/no-matching-distribution_pip-23.0.1-offline-find-links-torch-cpu-without-filelock_recorded-here.txt"


def no_match(text: str) -> Finding:
    found = [finding for finding in diagnose(text) if finding.code == "NO_MATCHING_DISTRIBUTION"]
    assert len(found) == 1, diagnose(text)
    return found[0]


@pytest.mark.parametrize(
    ("name", "missing"),
    [
        (UV_OFFLINE, ["filelock"]),
        (PIP_OFFLINE, ["filelock"]),
        ("envtools/uv-0.13.9_pip-install_offline_no-solution.txt", ["torch"]),
        ("envtools/pip-23.2.1_install_offline_no-matching-distribution.txt", ["torch"]),
    ],
)
def test_an_offline_install_names_the_package_the_folder_lacks(name: str, missing: list[str]):
    finding = no_match((RECORDED / name).read_text(encoding="utf-8"))

    assert finding.params["variant"] == "wheel_folder"
    assert finding.params["packages"] == ", ".join(missing)
    assert finding.message.startswith(f"The folder of wheels has no installable {missing[0]}")
    assert "folder of wheels" in finding.hint and "pip download --dest FOLDER" in finding.hint
    assert "32-bit" not in finding.message + finding.hint


def test_the_wizards_own_log_of_an_offline_install_is_read_the_same_way():
    # What `gpuwizard diagnose LOG` reads: the environment log's JSON lines around uv's output.
    log = "\n".join(
        [
            '{"event": "start", "name": "t1", "find_links": "/tmp/w", "offline": true}',
            '{"event": "log", "phase": "install", "tool": "uv", "line": "error: No solution found when '
            'resolving dependencies"}',
            '{"event": "log", "phase": "install", "tool": "uv", "line": "  cause: Because sympy was not found '
            "in the provided package locations and all versions of torch depend on sympy, we can conclude "
            'that all versions of torch cannot be used."}',
        ]
    )
    finding = no_match(log)
    assert finding.params["variant"] == "wheel_folder" and finding.params["packages"] == "sympy"


def test_32_bit_advice_only_where_the_log_shows_a_32_bit_or_windows_python_that_found_nothing():
    on_windows = (
        RECORDED / "diagnose/no-matching-distribution_pip9-tensorflow-gpu-win-32bit_tensorflow-8251.txt"
    ).read_text(encoding="utf-8")
    assert no_match(on_windows).params["variant"] == "32bit"
    assert "32-bit" in no_match(on_windows).hint

    banner = "Python 3.11.4 (tags/v3.11.4:d2340ef, Jun  7 2023) [MSC v.1934 32 bit (Intel)] on win32\n"
    uv_index = (
        "error: Because there is no version of torch==2.13.0 and you require torch==2.13.0, we can conclude"
    )
    assert no_match(banner + uv_index).params["variant"] == "32bit"

    for linux in (
        uv_index,
        "Looking in indexes: https://download.pytorch.org/whl/cu126\n"
        "ERROR: Could not find a version that satisfies the requirement torch==9.9 (from versions: 2.5.1, 2.6.0)\n"
        "ERROR: No matching distribution found for torch==9.9\n",
    ):
        finding = no_match(linux)
        assert finding.params.get("variant") in (None, "versions", "newer")  # 9.9 is past 2.6.0
        assert "32-bit" not in finding.hint


def test_a_pin_past_every_listed_version_says_which_way_it_misses():
    # A URL after "Looking in links:" is an index page, not a folder of wheels.
    older = only_in(
        "no-matching-distribution_torch-2.1.0-cu121-older-than-listed_comic-translate-215.txt",
        "NO_MATCHING_DISTRIBUTION",
    )
    assert older.params["variant"] == "older" and older.params["oldest"] == "2.2.0"
    assert "2.2.0" in older.message and "Python" in older.hint
    newer = only_in(
        "no-matching-distribution_torch-2.7.0-newer-than-cu124-index_wan2gp-441.txt",
        "NO_MATCHING_DISTRIBUTION",
    )
    assert newer.params["variant"] == "newer" and newer.params["newest"] == "2.6.0"
    assert "cu128" in newer.hint
    # CONSTRUCTED: a pin between the versions listed is no nearer a cause than the list.
    between = only(
        "ERROR: Could not find a version that satisfies the requirement torch==2.5.0 (from versions: 2.4.0, 2.6.0)"
    )
    assert between.params["variant"] == "versions"
