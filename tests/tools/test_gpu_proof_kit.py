"""``tools/gpu_proof/kit.py`` for real: the wheel folder from PyPI, then the whole run with no network.

The acceptance of issue 24 here: no GPU, so the real CPU torch 2.13.0 in a venv stands in for
the GPU machine's preinstalled PyTorch; the kit prepares its folder (PyPI), installs from it with
the network gone (``unshare -rn``: a user and network namespace with only a loopback that is
down), runs every step and fails at the verdict with ``cpu_only``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from harness.waits import EVENT_S

ROOT = Path(__file__).resolve().parents[2]
KIT = ROOT / "tools" / "gpu_proof" / "kit.py"
#: The dependency wheels, downloaded once per machine (the kit reuses a folder whose manifest
#: says the same requirements, so only the wizard's wheel is built again).
CACHE = Path.home() / ".cache" / "gpuwizard-tests" / "gpu-proof" / "wheels"
LIMIT_BYTES = 64 * 1024 * 1024
#: Every step of a run, in order (tools/gpu_proof/README.md).
STEPS = [
    "python", "venv", "install_dependencies", "install_wizard", "register", "detect", "nvml_record",
    "recommend", "test", "verdict", "matmul", "budget", "verify", "report", "environment",
]  # fmt: skip
#: A port nothing listens on (the discard port, RFC 863, is not served here).
CLOSED = "http://127.0.0.1:9"


def _kit(
    *args: str, wrap: list[str] | None = None, env: dict[str, str] | None = None, python: str = sys.executable
):
    return subprocess.run(
        [*(wrap or []), python, str(KIT), *args],
        capture_output=True,
        text=True,
        timeout=EVENT_S * 10,
        check=False,
        env=env,
    )


def _no_network() -> tuple[list[str], dict[str, str]]:
    """``unshare -rn`` where the kernel allows it, else proxies and an index that cannot answer."""
    environment = dict(os.environ)
    unshare = shutil.which("unshare")
    if (
        unshare is not None
        and subprocess.run([unshare, "-rn", "true"], capture_output=True, check=False).returncode == 0
    ):
        return [unshare, "-rn"], environment
    environment.update(
        {"HTTP_PROXY": CLOSED, "HTTPS_PROXY": CLOSED, "http_proxy": CLOSED, "https_proxy": CLOSED}
    )
    environment["PIP_INDEX_URL"] = f"{CLOSED}/simple"
    return [], environment


def _prepared(folder: Path) -> subprocess.CompletedProcess[str]:
    if (CACHE / "manifest.json").is_file():
        shutil.copytree(CACHE, folder)
    done = _kit("prepare", "--out", str(folder))
    if done.returncode == 0 and "downloaded" in done.stdout:
        # Refresh the cache whole: a copy beside it, then renamed into place.
        CACHE.parent.mkdir(parents=True, exist_ok=True)
        fresh = Path(tempfile.mkdtemp(prefix="wheels-", dir=CACHE.parent))
        shutil.copytree(folder, fresh, dirs_exist_ok=True)
        old = CACHE.with_name(f"{fresh.name}-old")
        if CACHE.exists():
            CACHE.rename(old)
        fresh.rename(CACHE)
        shutil.rmtree(old, ignore_errors=True)
    return done


@pytest.mark.slow
@pytest.mark.heavy  # the whole kit: a wheel folder for four Pythons, then every step
def test_the_kit_prepares_offline_and_fails_at_the_verdict_without_a_gpu(tmp_path: Path, torch_python: str):
    wheels = tmp_path / "wheels"
    prepared = _prepared(wheels)
    assert prepared.returncode == 0, prepared.stdout + prepared.stderr
    manifest = json.loads((wheels / "manifest.json").read_text(encoding="utf-8"))
    total = sum(path.stat().st_size for path in wheels.iterdir())
    assert total < LIMIT_BYTES, total
    print(f"wheel folder: {total / 1024 / 1024:.1f} MiB, {len(manifest['files'])} files")
    names = [item["file"].lower() for item in manifest["files"]]
    assert not any(
        name.startswith(("pyside6", "shiboken6", "uv-", "py_rattler", "cryptography")) for name in names
    )
    for version in ("cp310", "cp311", "cp312", "cp313"):
        assert any(name.startswith("rpds_py") and f"-{version}-" in name for name in names), version
    assert {item["kind"] for item in manifest["files"]} >= {"wizard", "dependency", "pip"}

    out = tmp_path / "out"
    wrap, environment = _no_network()
    done = _kit(
        "run", "--wheels", str(wheels), "--out", str(out), wrap=wrap, env=environment, python=torch_python
    )

    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "step 'verdict'" in lines[0] and "cpu_only" in lines[0], lines[0]
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["schema"] == "gpuwizard.gpu-proof/1"
    assert (summary["ok"], summary["failed_step"], summary["exit_code"]) == (False, "verdict", 1)
    steps = {step["name"]: step for step in summary["steps"]}
    assert [step["name"] for step in summary["steps"]] == STEPS
    failed = [name for name, step in steps.items() if not step["ok"]]
    assert failed == ["verdict"], {name: steps[name]["note"] for name in failed}
    for name in ("detect", "recommend", "test", "report", "verify"):
        assert steps[name]["exit_code"] == 0 and steps[name]["seconds"] > 0, steps[name]
    assert steps["budget"]["skipped"], steps["budget"]  # no GPU: nothing to compare
    assert summary["figures"]["verdict"] == "cpu_only" and summary["figures"]["gpus"] == []
    assert summary["torch"].startswith("2.13.0")

    result = json.loads((out / "test.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert (result["event"], result["verdict"]) == ("result", "cpu_only")
    matmul = json.loads((out / "matmul.json").read_text(encoding="utf-8"))
    assert matmul["device"] == "cpu" and matmul["peak_tflops"]["float32"] > 0
    verify = json.loads((out / "verify.jsonl").read_text(encoding="utf-8").splitlines()[-1])
    assert verify["status"] == "complete" and verify["saved"], verify  # the passed test left a good state
    report = json.loads((out / "report.json").read_text(encoding="utf-8"))
    assert report["schema"] == "gpuwizard.support/1"
    assert json.loads((out / "detect.json").read_text(encoding="utf-8"))["schema"] == "gpuwizard.system/1"
    assert json.loads((out / "nvml.json").read_text(encoding="utf-8"))["available"] is False
    environment_facts = json.loads((out / "environment.json").read_text(encoding="utf-8"))
    assert any(line.startswith("torch==2.13.0") for line in environment_facts["pip_freeze"])
    log = (out / "kit.log").read_text(encoding="utf-8")
    assert "--no-index" in log and "exit 0" in log
    # The wizard's state went to the run's own folder, never to the person's.
    assert (out / "home" / "last-good.json").is_file()
    assert not (Path(os.environ["GPUWIZARD_HOME"]) / "environments.json").exists()


@pytest.mark.slow
def test_prepare_refuses_a_folder_over_the_limit(tmp_path: Path):
    wheels = tmp_path / "wheels"
    done = _kit("prepare", "--out", str(wheels), "--limit-mib", "0.01")
    assert done.returncode == 1, done.stdout + done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "over the limit of 0.01 MiB" in lines[0], done.stderr
    assert not (wheels / "manifest.json").exists()  # `run` refuses the folder
    assert not list(wheels.glob("*.whl"))[1:], "nothing downloaded once the wizard's wheel alone is too big"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "said"),
    [
        ([], "required"),
        (["fly"], "invalid choice"),
        (["prepare", "--python-versions", "2.7"], "not a CPython version"),
        (["prepare", "--limit-mib", "-1"], "--limit-mib"),
        (["run", "--out", "OUT"], "--wheels"),
        (["run", "--wheels", "NOWHERE", "--out", "OUT"], "kit.py prepare"),
        (["run", "--wheels", "WHEELS", "--out", "OUT", "--python", "no-such-python-here"], "no such program"),
        (["run", "--wheels", "WHEELS", "--out", "OUT", "--timeout", "0"], "positive"),
        (["run", "--wheels", "WHEELS", "--out", "FULL"], "not an empty folder"),
    ],
)
def test_bad_arguments_are_one_line_and_exit_2(tmp_path: Path, args: list[str], said: str):
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    (wheels / "manifest.json").write_text("{}", encoding="utf-8")
    (wheels / "headless-requirements.txt").write_text("", encoding="utf-8")
    full = tmp_path / "full"
    full.mkdir()
    (full / "kept").write_text("mine", encoding="utf-8")
    places = {
        "OUT": str(tmp_path / "out"),
        "NOWHERE": str(tmp_path / "nowhere"),
        "WHEELS": str(wheels),
        "FULL": str(full),
    }
    done = _kit(*[places.get(arg, arg) for arg in args])
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and said in done.stderr, done.stderr
    assert not (tmp_path / "out").exists()
    assert [path.name for path in full.iterdir()] == ["kept"]
