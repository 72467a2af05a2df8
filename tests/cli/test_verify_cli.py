"""``gpuwizard verify`` through the real entry point, as a user (or IT staff's script) runs it.

The acceptance: after an environment is created and its live test passed, ``verify --json``
exits 0; then what drifts is named with its fix: the framework removed by hand, a CPU wheel
swapped in for the CUDA one, a driver upgraded (fine) or gone (``--system FILE`` stands for
the machine), and a PATH folder the wizard added that something else took away
(``--registry FILE``). Environments are real: the real CPU build of torch 2.13.0 for the
passing test, stand-in ``+cu126``/``+cpu`` wheels (``builders.torch_builds``) for the swap.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from builders.reports import machine
from builders.torch_builds import torch_build
from builders.wheels import bundled_pip_wheel
from gpuwizard.cli.main import build_parser
from gpuwizard.core.machine.system_report import report_to_json
from harness.entry_point import ENTRY_POINT, gpuwizard
from harness.proc import wait_for_children
from harness.waits import EVENT_S

UV = shutil.which("uv", path=str(Path(sys.executable).parent))
USER = "HKCU\\Environment"
CUDA_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.6\\bin"
RTX = ("NVIDIA GeForce RTX 3060", "8.6")


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def events_of(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events and events[-1]["event"] == "result", done.stdout[-2000:] + done.stderr[-2000:]
    assert [event["event"] for event in events if "source" not in event].count("result") == 1
    return events


def checks(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    found = {event["check_id"]: event for event in events if event["event"] == "check"}
    assert list(found) == [check["check_id"] for check in events[-1]["checks"]]
    return found


def statuses(events: list[dict[str, Any]]) -> dict[str, tuple[str, str | None]]:
    return {
        check_id: (check["status"], check["finding"]["code"] if check["finding"] else None)
        for check_id, check in checks(events).items()
    }


def site_packages(env_path: str) -> Path:
    found = [*Path(env_path).glob("lib/python*/site-packages"), *Path(env_path).glob("Lib/site-packages")]
    assert found, env_path
    return found[0]


@pytest.mark.slow
def test_acceptance_a_passed_test_verifies_then_the_framework_removed_by_hand_is_named(torch_folder: Path):
    made = gpuwizard(
        "env", "create", "torchcpu", "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(torch_folder), "--offline", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr
    env = json.loads(made.stdout.splitlines()[-1])
    assert not (home() / "last-good.json").exists()

    tested = gpuwizard("test", "--env", "torchcpu", "--json")
    assert tested.returncode == 0, tested.stdout[-2000:] + tested.stderr
    assert json.loads(tested.stdout.splitlines()[-1])["event"] == "result"  # still the last line
    snapshot = json.loads((home() / "last-good.json").read_text())
    assert snapshot["schema"] == "gpuwizard.snapshot/1"
    assert [(e["name"], e["test_verdict"]) for e in snapshot["environments"]] == [("torchcpu", "cpu_only")]

    started = time.monotonic()
    verified = gpuwizard("verify", "--json")
    print(f"verify with the short test: {time.monotonic() - started:.1f} s")
    assert verified.returncode == 0, verified.stdout[-3000:] + verified.stderr
    events = events_of(verified)
    result = events[-1]
    assert (result["schema"], result["healthy"], result["status"]) == ("gpuwizard.health/1", True, "complete")
    assert result["snapshot_recorded"] == snapshot["recorded"]
    found = statuses(events)
    assert found["env:torchcpu:test"] == ("ok", None)
    assert {status for status, _ in found.values()} <= {"ok", "skipped"}
    assert checks(events)["env:torchcpu:build"]["after"] == "2.13.0+cpu (CPU)"

    shutil.rmtree(site_packages(env["path"]) / "torch")  # "I deleted torch to save space"
    broken = gpuwizard("verify", "--json")
    assert broken.returncode == 1, broken.stdout[-3000:] + broken.stderr
    events = events_of(broken)
    assert events[-1]["healthy"] is False
    found = statuses(events)
    assert found["env:torchcpu:import"] == ("broken", "DRIFT_FRAMEWORK_MISSING")
    assert found["env:torchcpu:test"][0] == "skipped"
    finding = checks(events)["env:torchcpu:import"]["finding"]
    # Made by uv, offline from the folder: uv reinstalls (the environment need not hold pip),
    # from that folder alone; the recreate command makes it from there again.
    folder = shlex.quote(str(torch_folder))
    reinstall, recreate = finding["params"]["reinstall"], finding["params"]["recreate"]
    uv = shlex.split(reinstall)[0]
    assert Path(uv).name == "uv" and Path(uv).is_file()
    assert reinstall == (
        f"{shlex.quote(uv)} pip install --python {shlex.quote(env['python'])} torch==2.13.0+cpu "
        f"--reinstall-package torch --find-links {folder} --offline --no-index"
    )
    assert recreate == (
        f"gpuwizard env create torchcpu --framework pytorch --version 2.13.0 --find-links {folder} --offline --replace"
    )
    assert reinstall in finding["hint"] and recreate in finding["hint"]
    assert "download.pytorch.org" not in finding["hint"]
    assert events[-1]["saved"] is None

    text = gpuwizard("verify", "--no-test")
    assert text.returncode == 1
    assert "BROKEN   env:torchcpu:import  import torch -> not installed" in text.stdout
    # Each command of the fix on a line of its own, copied whole (issue 41, point 5).
    lines = text.stdout.splitlines()
    assert "           fix: Reinstall the recorded build:" in lines
    assert [line.strip() for line in lines if "pip install --python" in line] == [reinstall]
    assert "           Or recreate the environment:" in lines
    assert f"               {recreate}" in lines
    assert "Broken: 1 check failed" in text.stdout


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="the printed commands are split as a POSIX shell does")
def test_the_fixes_for_an_environment_made_offline_without_pip_run_as_printed(
    torch_folder: Path, tmp_path: Path
):
    # The folder without pip's wheel: uv then makes the environment without pip, as it did for
    # the person who found `python -m pip` offered there ("No module named pip"). A space in
    # its name proves the commands quote it.
    folder = tmp_path / "my wheels"
    folder.mkdir()
    for wheel in torch_folder.glob("*.whl"):
        if not wheel.name.startswith("pip-"):
            (folder / wheel.name).symlink_to(wheel)
    made = gpuwizard(
        "env", "create", "offline", "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(folder), "--offline", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr
    env = json.loads(made.stdout.splitlines()[-1])
    no_pip = subprocess.run(
        [env["python"], "-m", "pip", "--version"], capture_output=True, text=True, check=False
    )
    assert no_pip.returncode != 0 and "No module named pip" in no_pip.stderr

    shutil.rmtree(site_packages(env["path"]) / "torch")
    broken = gpuwizard("verify", "--json", "--no-test")
    assert broken.returncode == 1, broken.stdout[-3000:] + broken.stderr
    finding = checks(events_of(broken))["env:offline:import"]["finding"]
    assert finding["code"] == "DRIFT_FRAMEWORK_MISSING"
    reinstall, recreate = finding["params"]["reinstall"], finding["params"]["recreate"]

    # Run as printed, in a shell's words: it installs from the folder, with networking not needed.
    fixed = subprocess.run(shlex.split(reinstall), capture_output=True, text=True, timeout=600, check=False)
    assert fixed.returncode == 0, f"{reinstall}\n{fixed.stdout[-2000:]}{fixed.stderr[-2000:]}"
    healthy = gpuwizard("verify", "--json")
    assert healthy.returncode == 0, healthy.stdout[-3000:] + healthy.stderr
    events = events_of(healthy)
    assert events[-1]["healthy"] is True
    assert statuses(events)["env:offline:import"] == ("ok", None)
    assert checks(events)["env:offline:build"]["after"] == "2.13.0+cpu (CPU)"

    # The recreate command is the wizard's own, and makes it from the same folder, offline.
    words = shlex.split(recreate)
    assert words[0] == "gpuwizard"
    args = build_parser().parse_args(words[1:])
    assert (args.name, args.framework, args.framework_version) == ("offline", "pytorch", "2.13.0")
    assert (args.find_links, args.offline, args.replace) == (folder, True, True)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="the printed commands are split as a POSIX shell does")
def test_the_reinstall_for_an_environment_made_with_pip_offline_runs_as_printed(tmp_path: Path):
    folder = tmp_path / "pip wheels"
    torch_build(folder, "2.13.0+cpu", None)
    made = gpuwizard(
        "env", "create", "pipenv", "--framework", "pytorch", "--version", "2.13", "--tool", "pip",
        "--find-links", str(folder), "--offline", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr
    env = json.loads(made.stdout.splitlines()[-1])
    shutil.rmtree(site_packages(env["path"]) / "torch")
    broken = gpuwizard("verify", "--json", "--no-test")
    assert broken.returncode == 1, broken.stdout[-3000:] + broken.stderr
    reinstall = checks(events_of(broken))["env:pipenv:import"]["finding"]["params"]["reinstall"]
    # Its own pip, from the folder alone, reinstalling what its metadata says is still there.
    assert reinstall == (
        f"{env['python']} -m pip install torch==2.13.0+cpu --force-reinstall "
        f"--find-links {shlex.quote(str(folder))} --no-index"
    )
    # As on a machine whose pip settings name no other folder of wheels (this one's name a
    # folder with the real torch, whose dependencies the stand-in's folder lacks).
    home_dir = tmp_path / "home"
    bare = {key: value for key, value in os.environ.items() if key != "PIP_FIND_LINKS"}
    bare.update(HOME=str(home_dir), XDG_CONFIG_HOME=str(home_dir / ".config"))
    fixed = subprocess.run(
        shlex.split(reinstall), capture_output=True, text=True, timeout=300, check=False, env=bare
    )
    assert fixed.returncode == 0, fixed.stdout[-2000:] + fixed.stderr[-2000:]
    again = gpuwizard("verify", "--json", "--no-test")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr
    assert statuses(events_of(again))["env:pipenv:import"] == ("ok", None)


@pytest.fixture
def cuda_env(tmp_path: Path) -> dict[str, Any]:
    """An environment the wizard made with a ``torch 2.13.0+cu126`` (a stand-in: no GPU here)."""
    wheels = tmp_path / "cu126"
    torch_build(wheels, "2.13.0+cu126", "12.6")
    shutil.copy(bundled_pip_wheel(), wheels)
    made = gpuwizard(
        "env", "create", "gpu", "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", "--json",
    )  # fmt: skip
    assert made.returncode == 0, made.stdout[-2000:] + made.stderr
    result: dict[str, Any] = json.loads(made.stdout.splitlines()[-1])
    assert result["framework_build"] == "2.13.0+cu126"
    return result


@pytest.mark.slow
@pytest.mark.skipif(UV is None, reason="uv is a project dependency")
def test_a_cpu_wheel_swapped_in_for_the_cuda_one_is_broken_with_the_pinned_reinstall(
    cuda_env: dict[str, Any], tmp_path: Path
):
    first = gpuwizard("verify", "--json", "--no-test")
    assert first.returncode == 0, first.stdout[-3000:]
    assert statuses(events_of(first))["env:gpu:build"] == ("ok", None)
    # uv does not read pip's configuration, so outside the activated environment nothing
    # stops it from replacing the build (what a careless `uv pip install --python` does).
    cpu = tmp_path / "cpu"
    torch_build(cpu, "2.13.0+cpu", None)
    assert UV is not None
    subprocess.run(
        [UV, "pip", "install", "--python", cuda_env["python"], "--offline", "--no-index", "--find-links", str(cpu),
         "--reinstall", "torch==2.13.0+cpu"],
        check=True, capture_output=True, timeout=120,
    )  # fmt: skip
    done = gpuwizard("verify", "--json", "--no-test")
    assert done.returncode == 1
    events = events_of(done)
    found = statuses(events)
    assert found["env:gpu:build"] == ("broken", "DRIFT_CPU_BUILD_SWAPPED")
    assert found["env:gpu:constraints"] == ("broken", "DRIFT_CONSTRAINTS_MISMATCH")
    build = checks(events)["env:gpu:build"]
    assert (build["before"], build["after"]) == ("2.13.0+cu126 (CUDA 12.6)", "2.13.0+cpu (CPU)")
    assert "swapped in" in build["finding"]["message"]
    # Made by uv offline from its folder: uv puts the recorded build back from there.
    reinstall = build["finding"]["params"]["reinstall"]
    assert reinstall in build["finding"]["hint"]
    assert shlex.split(reinstall)[1:] == [
        "pip", "install", "--python", cuda_env["python"], "torch==2.13.0+cu126", "--reinstall-package", "torch",
        "--find-links", str(tmp_path / "cu126"), "--offline", "--no-index",
    ]  # fmt: skip
    assert events[-1]["drifted"] == ["env:gpu:build", "env:gpu:constraints"]
    fixed = subprocess.run(shlex.split(reinstall), capture_output=True, text=True, timeout=120, check=False)
    assert fixed.returncode == 0, fixed.stderr[-2000:]
    again = gpuwizard("verify", "--json", "--no-test")
    assert again.returncode == 0, again.stdout[-3000:]
    assert statuses(events_of(again))["env:gpu:build"] == ("ok", None)


def write_report(path: Path, **facts: Any) -> Path:
    path.write_text(json.dumps(report_to_json(machine(**facts))))
    return path


def registry_with_a_folder_the_wizard_added(tmp_path: Path) -> Path:
    """A registry snapshot whose user PATH got ``CUDA_BIN`` from ``gpuwizard path add``: something to verify."""
    registry = tmp_path / "registry.json"
    registry.write_text(
        json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin"}}})
    )
    added = gpuwizard("path", "add", CUDA_BIN, "--scope", "user", "--registry", str(registry), timeout=60)
    assert added.returncode == 0, added.stderr
    return registry


def test_a_driver_upgrade_is_a_change_and_a_lost_driver_is_broken(tmp_path: Path):
    old = write_report(tmp_path / "old.json", gpus=[RTX], driver="550.54.14", cuda_max="12.4")
    new = write_report(tmp_path / "new.json", gpus=[RTX], driver="560.35.03", cuda_max="12.6")
    gone = write_report(tmp_path / "gone.json", gpus=[RTX], driver=None)
    registry = ("--registry", str(registry_with_a_folder_the_wizard_added(tmp_path)))
    first = gpuwizard("verify", "--system", str(old), *registry, "--json", timeout=60)
    assert first.returncode == 0, first.stderr
    assert statuses(events_of(first))["driver"] == ("skipped", None)
    upgraded = gpuwizard("verify", "--system", str(new), *registry, "--json", timeout=60)
    assert upgraded.returncode == 0, upgraded.stderr
    events = events_of(upgraded)
    driver = checks(events)["driver"]
    assert (driver["status"], driver["finding"]["code"]) == ("changed", "DRIFT_DRIVER_CHANGED")
    assert (driver["before"], driver["after"]) == ("550.54.14", "560.35.03")
    assert events[-1]["healthy"] is True and events[-1]["drifted"] == ["driver"]
    lost = gpuwizard("verify", "--system", str(gone), *registry, timeout=60)
    assert lost.returncode == 1
    assert "BROKEN   driver  560.35.03 -> none" in lost.stdout
    assert "fix: Reinstall the NVIDIA driver" in lost.stdout
    again = gpuwizard("verify", "--system", str(new), *registry, timeout=60)
    assert again.returncode == 0
    assert "  ok       driver  560.35.03" in again.stdout
    assert "Healthy: nothing is broken." in again.stdout


def test_a_path_folder_removed_by_another_program_is_broken_and_its_fix_works(tmp_path: Path):
    registry = tmp_path / "registry.json"
    registry.write_text(
        json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin"}}})
    )
    assert (
        gpuwizard(
            "path", "add", CUDA_BIN, "--scope", "user", "--registry", str(registry), timeout=60
        ).returncode
        == 0
    )
    recorded = gpuwizard("verify", "--registry", str(registry), "--json", timeout=60)
    assert recorded.returncode == 0, recorded.stderr
    snapshot = json.loads((home() / "last-good.json").read_text())
    assert snapshot["path_entries"] == [{"registry": f"file:{registry}", "scope": "user", "folder": CUDA_BIN}]

    # An installer rewrites the user PATH without the folder.
    data = json.loads(registry.read_text())
    data[USER]["Path"]["value"] = "%USERPROFILE%\\bin;C:\\SomeApp"
    registry.write_text(json.dumps(data))
    done = gpuwizard("verify", "--registry", str(registry), "--json", timeout=60)
    assert done.returncode == 1
    events = events_of(done)
    check = checks(events)[f"path:user:{CUDA_BIN}"]
    assert (check["status"], check["finding"]["code"]) == ("broken", "DRIFT_PATH_ENTRY_REMOVED")
    assert (check["before"], check["after"]) == ("on PATH", "not on PATH")
    command = check["finding"]["params"]["command"]
    assert command in check["finding"]["hint"]
    assert command == f'gpuwizard path add "{CUDA_BIN}" --scope user --registry {registry}'
    fixed = gpuwizard(*shlex.split(command)[1:], timeout=60)
    assert fixed.returncode == 0, fixed.stderr
    assert gpuwizard("verify", "--registry", str(registry), timeout=60).returncode == 0


NOTHING = (
    "Nothing to verify: the wizard has not set up anything on this machine yet (no environment it made, "
    "no PATH folder it added, no last good state). Run `gpuwizard` to set up."
)


def test_with_nothing_set_up_it_says_there_is_nothing_to_verify_exits_0_and_records_nothing(tmp_path: Path):
    # A machine with no driver, where the wizard made nothing: no "Healthy", no "as before".
    no_driver = write_report(tmp_path / "no-driver.json", gpus=[], driver=None)
    done = gpuwizard("verify", "--system", str(no_driver), timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout == NOTHING + "\n"
    assert "Healthy" not in done.stdout and "driver" not in done.stdout
    assert not (home() / "last-good.json").exists()

    json_done = gpuwizard("verify", "--system", str(no_driver), "--json", timeout=60)
    assert json_done.returncode == 0, json_done.stderr
    events = events_of(json_done)
    assert len(events) == 1  # nothing detected, nothing checked
    result = events[0]
    assert (result["schema"], result["status"], result["healthy"]) == (
        "gpuwizard.health/1", "nothing_to_verify", False,
    )  # fmt: skip
    assert (result["checks"], result["drifted"], result["saved"], result["message"]) == (
        [],
        [],
        None,
        NOTHING,
    )
    assert result["counts"] == {"ok": 0, "changed": 0, "broken": 0, "skipped": 0}
    assert not (home() / "last-good.json").exists()
    # A registry snapshot the wizard never changed holds nothing of the wizard's either.
    registry = tmp_path / "registry.json"
    registry.write_text(json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": "C:\\tools"}}}))
    with_registry = gpuwizard("verify", "--system", str(no_driver), "--registry", str(registry), timeout=60)
    assert (with_registry.returncode, with_registry.stdout) == (0, NOTHING + "\n")
    assert not any(home().glob("*.json"))  # no last good state, no journal, no registry of environments


def test_an_empty_last_good_state_left_by_an_older_version_is_nothing_to_verify(tmp_path: Path):
    # What the older version recorded after verifying a machine it had not set up.
    old = {"schema": "gpuwizard.snapshot/1", "recorded": "2026-01-05T10:00:00+00:00", "driver_version": None,
           "driver_cuda_max": None, "gpus": [], "environments": [], "path_entries": []}  # fmt: skip
    home().mkdir(parents=True, exist_ok=True)
    (home() / "last-good.json").write_text(json.dumps(old))
    before = (home() / "last-good.json").read_bytes()
    no_driver = write_report(tmp_path / "no-driver.json", gpus=[], driver=None)
    done = gpuwizard("verify", "--system", str(no_driver), timeout=60)
    assert (done.returncode, done.stdout) == (0, NOTHING + "\n")
    assert (home() / "last-good.json").read_bytes() == before


@pytest.mark.parametrize(
    "args",
    [
        ("verify", "--system", "/no/such/report.json"),
        ("verify", "--env", "never-made"),
        ("verify", "--registry", "/no/such/registry.json"),
        ("verify", "--bogus"),
    ],
)
def test_bad_input_exits_2_with_one_line_and_records_nothing(args: tuple[str, ...]):
    done = gpuwizard(*args, timeout=60)
    assert done.returncode == 2, done.stdout + done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (home() / "last-good.json").exists()


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_while_an_environment_is_probed_exits_130_and_records_nothing(cuda_env: dict[str, Any]):
    init = site_packages(cuda_env["path"]) / "torch" / "__init__.py"
    init.write_text(init.read_text() + "\nimport time\ntime.sleep(60)\n")  # an import that hangs
    process = subprocess.Popen(
        [ENTRY_POINT, "verify", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    lines = []
    for line in process.stdout:
        lines.append(json.loads(line))
        if lines[-1].get("phase") == "environment":
            wait_for_children(process.pid)  # the probe, importing the torch that hangs
            process.send_signal(signal.SIGINT)
    assert process.wait(EVENT_S) == 130
    assert (lines[-1]["event"], lines[-1]["status"], lines[-1]["healthy"]) == ("result", "cancelled", False)
    assert not (home() / "last-good.json").exists()


@pytest.mark.slow
def test_an_environment_another_gpuwizard_is_replacing_is_skipped_not_broken(tmp_path: Path):
    from gpuwizard.workflow.state.env_pending import PendingEnv, drop_pending, hold_creation, save_pending

    # `env create lab --replace` runs in another gpuwizard (this test's process holds its locks
    # and has written its record): the old environment was moved aside, its interpreter is gone.
    folder = tmp_path / "lab"
    home().mkdir(parents=True, exist_ok=True)
    (home() / "environments.json").write_text(
        json.dumps(
            {"schema": "gpuwizard.environments/1",
             "environments": [{"name": "lab", "path": str(folder), "python": str(folder / "bin" / "python"),
                               "manager": "venv", "framework": "pytorch", "framework_version": "2.13.0"}]}
        )
    )  # fmt: skip
    no_driver = write_report(tmp_path / "no-driver.json", gpus=[], driver=None)
    locks = hold_creation("lab", folder)
    save_pending(PendingEnv("lab", str(folder), False, str(tmp_path / "lab.old"), str(tmp_path / "lab.log")))
    try:
        done = gpuwizard("verify", "--system", str(no_driver), "--no-test", "--json", timeout=60)
        text = gpuwizard("verify", "--system", str(no_driver), "--no-test", "--no-record", timeout=60)
    finally:
        drop_pending("lab")
        locks.release()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    events = events_of(done)
    lab = {check_id: check for check_id, check in checks(events).items() if check_id.startswith("env:lab:")}
    assert {check["status"] for check in lab.values()} == {"skipped"} and len(lab) == 6
    assert all("being made by another gpuwizard" in check["note"] for check in lab.values())
    assert (events[-1]["healthy"], events[-1]["counts"]["broken"]) == (True, 0)
    assert text.returncode == 0, text.stdout + text.stderr
    assert "BROKEN" not in text.stdout
    assert (
        "skipped  env:lab:interpreter  (being made by another gpuwizard (env create); checked next time)"
        in text.stdout
    )

    # Nobody is making it any more: the next run checks it, and its interpreter is missing.
    after = gpuwizard("verify", "--system", str(no_driver), "--no-test", "--json", timeout=60)
    assert after.returncode == 1, after.stdout[-2000:] + after.stderr
    assert statuses(events_of(after))["env:lab:interpreter"] == ("broken", "DRIFT_ENV_INTERPRETER_BROKEN")
