"""``gpuwizard apply --answers FILE`` through the real entry point, as a fleet's script runs it.

The acceptance: an invalid answer file exits 2 and changes nothing. Beyond it: without
``--yes`` only a preview; with it a real environment from the local torch wheel folder, the
live test, a last good state that ``verify`` accepts, and a second run that changes nothing;
``require_gpu`` on a machine without one exits 1 before anything changes; and a Windows plan
(a saved report, a registry snapshot file) whose environment fails part-way puts PATH back
exactly as it was and exits 3.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from harness.entry_point import gpuwizard

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"
WINDOWS_REPORT = SAMPLES / "windows-rtx2080super-two-cuda.json"
WINDOWS_REGISTRY = SAMPLES / "registry" / "windows-cuda12.json"


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def events_of(done: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert events, done.stderr
    assert events[-1]["event"] == "result", done.stdout[-2000:]
    assert events[-1]["schema"] == "gpuwizard.apply/1"
    return events


def stages(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(event["stage"], event["status"]) for event in events if event["event"] == "stage"]


def everything_under(folder: Path) -> dict[str, bytes]:
    return {
        str(path.relative_to(folder)): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def tf_answers(folder: Path) -> Path:
    """TensorFlow 2.10 in a venv: on native Windows its plan puts CUDA 11.2 on PATH.

    The wheels come from an empty local folder, so the free-space check counts its (no) wheels
    rather than a GPU TensorFlow's 9 GB: the test needs no free disk to speak of.
    """
    wheels = folder / "wheels"
    wheels.mkdir()
    answers = folder / "tf.toml"
    answers.write_text(
        'framework = "tensorflow"\nversion = "2.10"\nmanager = "venv"\nenvironment = "tf"\n'
        f'find_links = "{wheels.as_posix()}"\noffline = true\n',
        encoding="utf-8",
    )
    return answers


@pytest.fixture
def registry(tmp_path: Path) -> Path:
    copy = tmp_path / "registry.json"
    shutil.copy(WINDOWS_REGISTRY, copy)
    return copy


INVALID = {
    "not-toml.toml": 'framework = "pytorch\n',
    "not-json.json": '{"framework": "pytorch",}',
    "typo.toml": 'framwork = "pytorch"\n',
    "number-version.toml": 'framework = "tensorflow"\nversion = 2.10\n',
    "no-framework.json": '{"version": "2.13"}',
    "bad-name.toml": 'framework = "pytorch"\nenvironment = "../../etc"\n',
    "no-such-release.toml": 'framework = "pytorch"\nversion = "1.99"\n',
    "bad-scope.toml": 'framework = "tensorflow"\nversion = "2.10"\nmanager = "venv"\npath_scope = "machine"\n',
    "offline-without-wheels.toml": 'framework = "pytorch"\noffline = true\n',
    "missing-wheel-folder.toml": 'framework = "pytorch"\nfind_links = "/nonexistent/wheels"\n',
}


@pytest.mark.parametrize("name", sorted(INVALID))
def test_acceptance_an_invalid_answer_file_exits_2_and_changes_nothing(
    name: str, tmp_path: Path, registry: Path
):
    answers = tmp_path / name
    answers.write_text(INVALID[name], encoding="utf-8")
    before = registry.read_bytes()
    done = gpuwizard(
        "apply", "--answers", str(answers), "--yes", "--json", "--system", str(WINDOWS_REPORT), "--registry", str(registry)
    )  # fmt: skip
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    error_lines = done.stderr.strip().splitlines()
    assert len(error_lines) == 1, done.stderr
    assert error_lines[0].startswith("gpuwizard: error: ")
    assert registry.read_bytes() == before
    assert not (home() / "path-journal.json").exists()
    assert not (home() / "envs").exists()
    assert not (home() / "environments.json").exists()


def test_a_missing_answer_file_or_a_folder_exits_2(tmp_path: Path):
    for answers, said in ((tmp_path / "absent.toml", "no such answer file"), (tmp_path, "is a folder")):
        done = gpuwizard("apply", "--answers", str(answers), "--yes")
        assert done.returncode == 2
        assert said in done.stderr
    assert everything_under(home()) == {}


def test_an_environment_of_another_plan_is_not_replaced_unless_asked(tmp_path: Path):
    (home() / "environments.json").write_text(
        json.dumps(
            {
                "schema": "gpuwizard.environments/1",
                "environments": [
                    {"name": "lab", "path": str(tmp_path / "lab"), "python": sys.executable, "manager": "venv",
                     "framework": "pytorch", "framework_version": "2.5.1+cu124"}
                ],
            }
        ),
        encoding="utf-8",
    )  # fmt: skip
    before = everything_under(home())
    answers = tmp_path / "lab.toml"
    answers.write_text('framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\n', encoding="utf-8")
    done = gpuwizard("apply", "--answers", str(answers), "--yes", "--system", str(SAMPLES / "no-gpu.json"))
    assert done.returncode == 2
    assert "made with pytorch 2.5.1+cu124 exists" in done.stderr
    assert "replace = true" in done.stderr
    assert everything_under(home()) == before


@pytest.mark.slow
def test_a_changed_gpus_answer_is_not_reported_ok_with_the_old_value_kept(tmp_path: Path):
    # The environment this answer file made last time, intact, seeing GPU 0 only.
    folder = tmp_path / "lab"
    (folder / "lib" / "python3.11" / "site-packages" / "torch-2.13.0.dist-info").mkdir(parents=True)
    (home() / "environments.json").write_text(
        json.dumps(
            {
                "schema": "gpuwizard.environments/1",
                "environments": [
                    {"name": "lab", "path": str(folder), "python": sys.executable, "manager": "venv",
                     "framework": "pytorch", "framework_version": "2.13.0",
                     "variables": {"CUDA_VISIBLE_DEVICES": "0"}}
                ],
            }
        ),
        encoding="utf-8",
    )  # fmt: skip
    before = everything_under(home())
    answers = tmp_path / "lab.toml"
    text = 'framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\ntest = false\n'
    answers.write_text(text + "gpus = [0]\n", encoding="utf-8")
    system = ("--system", str(SAMPLES / "linux-4xa100-one-lost.json"))
    same = gpuwizard("apply", "--answers", str(answers), "--yes", "--json", *system)
    assert same.returncode == 0, same.stdout[-2000:] + same.stderr
    assert (events_of(same)[-1]["status"], events_of(same)[-1]["changed"]) == ("ok", False)

    answers.write_text(text + "gpus = [0, 1]\n", encoding="utf-8")
    changed = gpuwizard("apply", "--answers", str(answers), "--yes", "--json", *system)
    assert changed.returncode == 2, changed.stdout[-2000:] + changed.stderr
    assert changed.stderr.startswith("gpuwizard: error: ") and len(changed.stderr.strip().splitlines()) == 1
    assert "gpus: it sees GPUs 0, the answers ask for GPUs 0,1" in changed.stderr
    assert "replace = true" in changed.stderr
    assert everything_under(home()) == before


def test_without_yes_it_only_previews(tmp_path: Path, registry: Path):
    answers = tf_answers(tmp_path)
    before = registry.read_bytes()
    done = gpuwizard(
        "apply", "--answers", str(answers), "--json", "--system", str(WINDOWS_REPORT), "--registry", str(registry)
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = events_of(done)
    assert stages(events) == [
        ("detect", "done"),
        ("plan", "done"),
        ("path", "planned"),
        ("environment", "planned"),
    ]
    path = next(event for event in events if event.get("stage") == "path")
    assert path["scope"] == "user"
    assert "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin" in path["folders"]
    result = events[-1]
    assert (result["status"], result["exit_code"], result["changed"]) == ("preview", 0, False)
    assert (result["framework"], result["framework_version"]) == ("tensorflow", "2.10.1")
    assert registry.read_bytes() == before
    assert everything_under(home()) == {}

    text = gpuwizard(
        "apply", "--answers", str(answers), "--system", str(WINDOWS_REPORT), "--registry", str(registry)
    )
    assert text.returncode == 0
    assert (
        "path (planned): user PATH: C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin"
        in text.stdout
    )
    assert "Preview: nothing was changed; add --yes to carry it out" in text.stdout


def test_require_gpu_on_a_machine_without_one_exits_1_before_anything_changes(tmp_path: Path):
    answers = tmp_path / "fleet.json"
    answers.write_text(json.dumps({"framework": "pytorch", "require_gpu": True}), encoding="utf-8")
    done = gpuwizard(
        "apply", "--answers", str(answers), "--yes", "--json", "--system", str(SAMPLES / "no-gpu.json")
    )
    assert done.returncode == 1, done.stderr
    result = events_of(done)[-1]
    assert (result["status"], result["exit_code"], result["changed"]) == ("problem", 1, False)
    assert result["message"].startswith("require_gpu: pytorch cannot use a GPU on this machine")
    # Asked for the GPU: no GPU is then an error, where it is a note elsewhere (issue 41).
    assert {"code": "NO_NVIDIA_GPU", "severity": "error"}.items() <= next(
        finding for finding in result["findings"] if finding["code"] == "NO_NVIDIA_GPU"
    ).items()
    assert "(No NVIDIA GPU was found on this machine.)" in result["message"]
    assert everything_under(home()) == {}


def test_a_failure_part_way_puts_path_back_exactly(tmp_path: Path, registry: Path):
    # The saved Windows machine's Python 3.10 is not on this one, so the environment fails
    # after PATH was changed: the run must undo its own PATH change.
    answers = tf_answers(tmp_path)
    before = registry.read_bytes()
    done = gpuwizard(
        "apply", "--answers", str(answers), "--yes", "--json", "--system", str(WINDOWS_REPORT), "--registry", str(registry)
    )  # fmt: skip
    assert done.returncode == 3, done.stdout[-3000:] + done.stderr
    events = events_of(done)
    assert stages(events) == [
        ("detect", "done"), ("plan", "done"), ("path", "done"), ("environment", "started"),
        ("environment", "failed"), ("path", "undone"),
    ]  # fmt: skip
    assert any(event.get("source") == "environment" and event["event"] == "result" for event in events)
    result = events[-1]
    assert (result["status"], result["exit_code"], result["changed"]) == ("rolled_back", 3, False)
    assert "the PATH change was undone" in result["message"]
    assert registry.read_bytes() == before
    journal = json.loads((home() / "path-journal.json").read_text(encoding="utf-8"))
    assert [entry["action"] for entry in journal["entries"]] == ["add", "undo"]
    assert not (home() / "envs" / "tf").exists()
    assert not (home() / "environments.json").exists()


@pytest.mark.slow
def test_a_real_setup_passes_its_test_verifies_and_a_second_run_changes_nothing(
    torch_folder: Path, tmp_path: Path
):
    answers = tmp_path / "lab.toml"
    answers.write_text(
        f'framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\nfind_links = "{torch_folder.as_posix()}"\n'
        "offline = true\n",
        encoding="utf-8",
    )
    done = gpuwizard("apply", "--answers", str(answers), "--yes", "--json")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    events = events_of(done)
    assert stages(events) == [
        ("detect", "done"), ("plan", "done"), ("path", "skipped"), ("environment", "started"),
        ("environment", "done"), ("test", "started"), ("test", "done"),
    ]  # fmt: skip
    assert next(event for event in events if event.get("stage") == "path")["note"] == (
        "no registry: PATH is edited only on Windows"
    )
    result = events[-1]
    assert (result["status"], result["exit_code"], result["changed"]) == ("ok", 0, True)
    assert result["test"]["verdict"] == "cpu_only"
    assert result["environment"]["name"] == "lab"
    assert Path(result["environment"]["python"]).exists()
    listed = json.loads(gpuwizard("env", "list", "--json").stdout)
    assert [(env["name"], env["framework_version"]) for env in listed] == [("lab", "2.13.0")]
    snapshot = json.loads((home() / "last-good.json").read_text(encoding="utf-8"))
    assert [(env["name"], env["test_verdict"]) for env in snapshot["environments"]] == [("lab", "cpu_only")]

    verified = gpuwizard("verify", "--json", "--no-test")
    assert verified.returncode == 0, verified.stdout[-2000:]

    again = gpuwizard("apply", "--answers", str(answers), "--yes", "--json")
    assert again.returncode == 0, again.stdout[-3000:] + again.stderr
    events = events_of(again)
    assert ("environment", "kept") in stages(events)
    assert not any(event.get("source") == "environment" for event in events)
    assert (events[-1]["status"], events[-1]["changed"]) == ("ok", False)

    # "I uninstalled torch to save space": the next run makes this plan's environment again.
    site = next(Path(result["environment"]["path"]).glob("lib/python*/site-packages"))
    for installed in site.glob("torch*"):
        shutil.rmtree(installed)
    mended = gpuwizard("apply", "--answers", str(answers), "--yes", "--json")
    assert mended.returncode == 0, mended.stdout[-3000:] + mended.stderr
    events = events_of(mended)
    started = next(event for event in events if event.get("stage") == "environment")
    assert (started["status"], started["note"]) == (
        "started",
        "this plan's environment was damaged: it is made again",
    )
    assert (events[-1]["status"], events[-1]["changed"], events[-1]["test"]["verdict"]) == (
        "ok",
        True,
        "cpu_only",
    )


def test_the_documented_answer_file_previews_a_gpu_plan():
    documented = Path(__file__).resolve().parents[2] / "docs" / "fleet" / "answers.toml"
    done = gpuwizard(
        "apply", "--answers", str(documented), "--json", "--system", str(SAMPLES / "linux-h200.json")
    )
    assert done.returncode == 0, done.stderr
    result = events_of(done)[-1]
    assert (result["status"], result["framework"], result["cpu_only"]) == ("preview", "pytorch", False)
    assert everything_under(home()) == {}


def test_an_unreachable_package_index_exits_2_with_the_ways_forward_and_changes_nothing(tmp_path: Path):
    import socket

    from harness.http_server import trust_test_ca

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]  # released: nothing listens there
    answers = tmp_path / "lab.toml"
    answers.write_text('framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\n', encoding="utf-8")
    variables = {
        "GPUWIZARD_NO_INDEX_CHECK": "",
        "GPUWIZARD_PYTORCH_INDEX_URL": f"https://127.0.0.1:{port}/whl",
        "PIP_INDEX_URL": f"https://127.0.0.1:{port}/simple",  # PyPI's build is looked for here, not beyond
        "HTTPS_PROXY": "",
        "https_proxy": "",
        **trust_test_ca(),
    }
    done = gpuwizard(
        "apply",
        "--answers",
        str(answers),
        "--yes",
        "--json",
        "--system",
        str(SAMPLES / "no-gpu.json"),
        env=variables,
    )
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    assert done.stderr.splitlines() == [
        f"gpuwizard: error: your mirror of PyTorch's index https://127.0.0.1:{port}/whl/cpu cannot be reached: "
        f"127.0.0.1:{port} refused the connection"
    ]
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    plan = next(event for event in events if event.get("stage") == "plan")
    assert plan["package_sources"]["indexes"][0]["origin"] == "GPUWIZARD_PYTORCH_INDEX_URL"
    sources = next(event for event in events if event.get("stage") == "sources")
    assert (sources["status"], sources["ok"]) == ("unreachable", False)
    assert sources["findings"][0]["code"] == "PACKAGE_INDEX_UNREACHABLE"
    assert "--find-links DIR --offline" in sources["findings"][0]["hint"]
    assert not (home() / "envs").exists() and not (home() / "environments.json").exists()
