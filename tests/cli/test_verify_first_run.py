"""The first ``verify`` after a command-line ``path add`` checks that folder (issue 37, point 7).

It used to say "Everything works as it did" with only "not checked" rows (no last good state
yet: no driver or GPUs to compare), record that as the good state, and show the PATH row only
from the second run on: the folders to check came from the last good state alone, and the
journal that says what the wizard added was read only once one existed. Now the journal's
folders are checked from the first run, and a run in which every check was skipped is never
recorded. Through the real entry point, on registry snapshot files and a saved machine report.
"""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

from harness.entry_point import gpuwizard

USER = "HKCU\\Environment"
CUDA_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.6\\bin"
NO_GPU = str(resources.files("gpuwizard.resources").joinpath("samples/no-gpu.json"))


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def registry_after_path_add(tmp_path: Path) -> Path:
    file = tmp_path / "registry.json"
    file.write_text(json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin"}}}))
    added = gpuwizard("path", "add", CUDA_BIN, "--scope", "user", "--registry", str(file), timeout=60)
    assert added.returncode == 0, added.stderr
    return file


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def statuses(events: list[dict[str, Any]]) -> dict[str, str]:
    return {event["check_id"]: event["status"] for event in events if event["event"] == "check"}


def test_the_first_verify_after_path_add_checks_the_folder_and_records_it(tmp_path: Path):
    file = registry_after_path_add(tmp_path)
    assert not (home() / "last-good.json").exists()
    done = gpuwizard("verify", "--system", NO_GPU, "--registry", str(file), "--json", timeout=60)
    assert done.returncode == 0, done.stderr
    events = events_of(done.stdout)
    assert statuses(events) == {"driver": "skipped", "gpus": "skipped", f"path:user:{CUDA_BIN}": "ok"}
    assert [e["phase"] for e in events if e["event"] == "phase"] == ["detect", "path"]
    result = events[-1]
    assert (result["status"], result["healthy"], result["counts"]["ok"]) == ("complete", True, 1)
    assert result["saved"] == str(home() / "last-good.json")
    recorded = json.loads((home() / "last-good.json").read_text())
    assert recorded["path_entries"] == [{"registry": f"file:{file}", "scope": "user", "folder": CUDA_BIN}]

    text = gpuwizard("verify", "--system", NO_GPU, "--registry", str(file), "--no-record", timeout=60)
    assert f"  ok       path:user:{CUDA_BIN}  on PATH" in text.stdout


def test_a_folder_taken_away_before_the_first_verify_is_broken_and_nothing_is_recorded(tmp_path: Path):
    file = registry_after_path_add(tmp_path)
    data = json.loads(file.read_text())
    data[USER]["Path"]["value"] = "%USERPROFILE%\\bin;C:\\SomeApp"  # an installer rewrote it
    file.write_text(json.dumps(data))
    done = gpuwizard("verify", "--system", NO_GPU, "--registry", str(file), "--json", timeout=60)
    assert done.returncode == 1, done.stderr
    events = events_of(done.stdout)
    check = next(e for e in events if e.get("check_id") == f"path:user:{CUDA_BIN}")
    assert (check["status"], check["finding"]["code"]) == ("broken", "DRIFT_PATH_ENTRY_REMOVED")
    assert (check["before"], check["after"]) == ("on PATH", "not on PATH")
    assert events[-1]["saved"] is None
    assert not (home() / "last-good.json").exists()


def test_a_run_where_every_check_was_skipped_is_not_recorded_nor_called_healthy(tmp_path: Path):
    from gpuwizard.workflow.state.env_pending import PendingEnv, drop_pending, hold_creation, save_pending

    # The only environment is being replaced by another gpuwizard (this process holds its
    # locks), and there is no last good state: not one check can compare anything.
    folder = tmp_path / "lab"
    home().mkdir(parents=True, exist_ok=True)
    (home() / "environments.json").write_text(
        json.dumps(
            {"schema": "gpuwizard.environments/1",
             "environments": [{"name": "lab", "path": str(folder), "python": str(folder / "bin" / "python"),
                               "manager": "venv", "framework": "pytorch", "framework_version": "2.13.0"}]}
        )
    )  # fmt: skip
    locks = hold_creation("lab", folder)
    save_pending(PendingEnv("lab", str(folder), False, str(tmp_path / "lab.old"), str(tmp_path / "lab.log")))
    try:
        done = gpuwizard("verify", "--system", NO_GPU, "--no-test", "--json", timeout=60)
        text = gpuwizard("verify", "--system", NO_GPU, "--no-test", timeout=60)
    finally:
        drop_pending("lab")
        locks.release()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    events = events_of(done.stdout)
    assert set(statuses(events).values()) == {"skipped"}
    assert events[-1]["saved"] is None
    assert not (home() / "last-good.json").exists()
    assert "Healthy" not in text.stdout
    assert (
        "Nothing could be checked this time (every check was skipped); nothing was recorded." in text.stdout
    )
