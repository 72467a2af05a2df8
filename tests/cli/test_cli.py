"""The command line through its real entry point, as a user or a fleet script runs it."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from harness.entry_point import gpuwizard as run

SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/system-1.schema.json").read_text()
)


@pytest.fixture(scope="module")
def detected() -> dict[str, object]:
    done = run("detect", "--json")
    assert done.returncode == 0, done.stderr
    data: dict[str, object] = json.loads(done.stdout)
    return data


def test_detect_json_on_this_machine_is_a_valid_report(detected: dict[str, object]):
    jsonschema.validate(detected, SCHEMA)
    assert detected["schema"] == "gpuwizard.system/1"


@pytest.mark.skipif(
    Path("/dev/nvidia0").exists() or Path("/dev/dxg").exists(), reason="a machine with an NVIDIA GPU"
)
def test_detect_json_without_a_gpu_explains_what_to_do(detected: dict[str, object]):
    assert detected["gpus"] == [] or all(g["vendor"] != "nvidia" for g in detected["gpus"])  # type: ignore[union-attr]
    assert detected["driver"] is None
    findings = {f["code"]: f for f in detected["findings"]}  # type: ignore[union-attr]
    found = findings.get("NO_NVIDIA_GPU") or findings.get("NO_NVIDIA_DRIVER")
    # No GPU is a note with the CPU way forward; a GPU without its driver is an error (issue 41).
    assert found is not None and found["severity"] == (
        "info" if found["code"] == "NO_NVIDIA_GPU" else "error"
    )
    assert len(found["hint"]) > 40  # a real instruction, not a label


def test_headless_detect_imports_neither_qt_nor_requests():
    code = (
        "import sys, io, contextlib\nfrom gpuwizard.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n    code = main(['detect', '--json'])\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'shiboken6', 'requests')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "0 []"


def test_detect_table_is_readable():
    done = run("detect")
    assert done.returncode == 0
    for heading in ("Driver", "GPUs", "CUDA toolkits on disk", "cuDNN", "Python", "Findings"):
        assert heading in done.stdout


def test_version_through_both_entry_points():
    from gpuwizard import __version__

    assert run("--version").stdout.strip() == f"gpuwizard {__version__}"
    module = subprocess.run(
        [sys.executable, "-m", "gpuwizard", "--version"], capture_output=True, text=True, check=True
    )
    assert module.stdout.strip() == f"gpuwizard {__version__}"


MALFORMED = {
    "not-json.json": "{ this is not json",
    "not-an-object.json": "[1, 2, 3]",
    "wrong-schema.json": json.dumps({"schema": "gpuwizard.recommendation/1"}),
    "bad-field.json": json.dumps({"schema": "gpuwizard.system/1", "gpus": [{"compute_capability": 8.6}]}),
    "empty.json": "",
    "binary.json": "\udcff",
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_a_malformed_system_file_is_one_line_and_exit_2_before_any_window(tmp_path: Path, name: str):
    path = tmp_path / name
    path.write_bytes(MALFORMED[name].encode("utf-8", "surrogateescape"))
    # No display and no offscreen platform: if a window were attempted, Qt would abort instead.
    env = {"QT_QPA_PLATFORM": "", "DISPLAY": "", "WAYLAND_DISPLAY": ""}
    done = run("--system", str(path), env=env)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gpuwizard: error: ") and str(path) in lines[0]


def test_a_missing_system_file(tmp_path: Path):
    done = run("--system", str(tmp_path / "nope.json"), env={"QT_QPA_PLATFORM": ""})
    assert (done.returncode, done.stderr.strip()) == (
        2,
        f"gpuwizard: error: {tmp_path / 'nope.json'}: no such file",
    )


def test_bad_usage_is_one_line_and_exit_2():
    for args in (["--no-such-option"], ["detect", "--jsn"], ["no-such-command"]):
        done = run(*args)
        assert done.returncode == 2, args
        assert len(done.stderr.splitlines()) == 1, done.stderr


def test_detect_of_a_saved_report(tmp_path: Path, detected: dict[str, object]):
    saved = tmp_path / "saved.json"
    saved.write_text(json.dumps(detected))
    done = run("detect", "--json", "--system", str(saved))
    assert done.returncode == 0
    assert json.loads(done.stdout)["findings"] == detected["findings"]


def test_screenshots_of_every_page(tmp_path: Path):
    sample = resources.files("gpuwizard.resources").joinpath("samples/windows-rtx2080super-two-cuda.json")
    done = run(
        "screenshots",
        str(tmp_path / "shots"),
        "--system",
        str(sample),
        env={"QT_QPA_PLATFORM": "offscreen"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    written = [Path(line) for line in done.stdout.splitlines()]
    assert [p.name for p in written] == [
        "01-welcome.png", "02-verify.png", "03-detect.png", "04-choose.png",
        "05-path.png", "06-install.png", "07-test.png", "08-summary.png",
    ]  # fmt: skip
    assert all(p.stat().st_size > 10_000 for p in written)


def test_screenshots_refuse_an_unknown_language(tmp_path: Path):
    done = run("screenshots", str(tmp_path / "shots"), "--lang", "fr", env={"QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 2
    assert done.stderr.strip() == "gpuwizard: error: no translation for 'fr' (available: en, es, zh_CN)"
    assert not (tmp_path / "shots").exists()


def test_screenshots_refuse_a_file_as_folder(tmp_path: Path):
    target = tmp_path / "file"
    target.write_text("x")
    done = run("screenshots", str(target), env={"QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 2 and "not a folder" in done.stderr
