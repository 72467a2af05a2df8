"""A machine without an NVIDIA GPU says the same thing in every command (issue 41, point 3).

Before, ``verify`` said "Healthy", ``report`` opened with "Something is broken: 1 error below"
(``NO_NVIDIA_GPU``) and ``detect`` printed ``ERROR NO_NVIDIA_GPU`` and exited 0. The rule
(``core/findings/no_gpu.py``): no NVIDIA GPU is a fact with a way forward, a note, unless the
person asked for the GPU. Run through the command line's own ``main``, on the saved reports.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.cli.main import main

NO_GPU = Path(str(resources.files("gpuwizard.resources").joinpath("samples/no-gpu.json")))
NOUVEAU = NO_GPU.with_name("linux-gtx970-nouveau.json")


def gpuwizard(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def older_report(tmp_path: Path) -> Path:
    """The no-GPU sample as a version before issue 41 wrote it: NO_NVIDIA_GPU an error."""
    data = json.loads(NO_GPU.read_text(encoding="utf-8"))
    [finding] = data["findings"]
    finding.update(
        severity="error", hint="GPU training with PyTorch or TensorFlow needs an NVIDIA GPU (CUDA)."
    )
    path = tmp_path / "older.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_detect_lists_no_gpu_as_a_note_with_the_cpu_way_first(capsys: pytest.CaptureFixture[str]):
    code, text = gpuwizard(capsys, "detect", "--system", str(NO_GPU))
    assert code == 0
    assert "INFO    NO_NVIDIA_GPU" in text and "ERROR" not in text
    assert "-> PyTorch and TensorFlow run on the CPU here" in text
    code, out = gpuwizard(capsys, "detect", "--system", str(NO_GPU), "--json")
    [finding] = json.loads(out)["findings"]
    assert (code, finding["code"], finding["severity"]) == (0, "NO_NVIDIA_GPU", "info")


def test_the_report_finds_no_problem_on_a_machine_without_a_gpu(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    out = tmp_path / "report.md"
    code, _ = gpuwizard(capsys, "report", "--system", str(NO_GPU), "--out", str(out))
    text = out.read_text(encoding="utf-8")
    assert code == 0
    assert "Something is broken" not in text
    assert "**✅ No problems found.** No NVIDIA GPU was found: frameworks run on the CPU here." in text
    assert "0 errors · 0 warnings · 1 note" in text
    assert "- **NOTE** `NO_NVIDIA_GPU` (detection)" in text
    assert "- **GPU:** none found" in text  # a fact, without a warning sign


def test_a_gpu_the_driver_does_not_serve_is_still_broken(capsys: pytest.CaptureFixture[str], tmp_path: Path):
    # The rule is about no NVIDIA GPU, not about no working one: nouveau has a fix.
    out = tmp_path / "report.md"
    gpuwizard(capsys, "report", "--system", str(NOUVEAU), "--out", str(out))
    assert "Something is broken: 1 error below" in out.read_text(encoding="utf-8")


def test_a_report_an_older_version_saved_is_read_by_todays_rule(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    saved = older_report(tmp_path)
    code, out = gpuwizard(capsys, "detect", "--system", str(saved), "--json")
    [finding] = json.loads(out)["findings"]
    assert (code, finding["severity"]) == (0, "info")
    assert finding["hint"].startswith("PyTorch and TensorFlow run on the CPU here")
    report = tmp_path / "report.md"
    gpuwizard(capsys, "report", "--system", str(saved), "--out", str(report))
    assert "No problems found" in report.read_text(encoding="utf-8")


def test_verify_and_report_agree_on_a_machine_without_a_gpu(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
):
    # Nothing set up: verify checks nothing and exits 0; the report, on the same machine, finds
    # no problem either (before: "Something is broken").
    code, text = gpuwizard(capsys, "verify", "--system", str(NO_GPU))
    assert code == 0 and "Nothing to verify" in text
    out = tmp_path / "report.json"
    gpuwizard(capsys, "report", "--system", str(NO_GPU), "--out", str(out))
    findings = json.loads(out.read_text(encoding="utf-8"))["system"]["findings"]
    assert [(f["code"], f["severity"]) for f in findings if f["code"] == "NO_NVIDIA_GPU"] == [
        ("NO_NVIDIA_GPU", "info")
    ]
