"""Gathering a support report: real interpreters probed, the PATH of a registry snapshot, the tests
kept by the live test, the three renderings, and the schema.

Environments are real where it matters: the real CPU build of torch 2.13.0 (``torch_python``)
for a working one, this test run's own interpreter for one without the framework, and a
record whose folder is gone.
"""

from __future__ import annotations

import json
import os
import re
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from builders.reports import machine
from gpuwizard.adapters.registry import SnapshotFileEnvironment
from gpuwizard.adapters.runner import CommandCancelled, StreamingSubprocessRunner
from gpuwizard.core.livetest.events import LiveTestResult, result_from_json
from gpuwizard.core.support.document import SUPPORT_SCHEMA
from gpuwizard.core.support.redaction import Identities
from gpuwizard.workflow.livetest.run import LiveTestTarget, run_live_test
from gpuwizard.workflow.pathedit.changes import apply_change, plan_add
from gpuwizard.workflow.state.env_registry import EnvRecord, save_record
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.last_tests import last_tests_path, load_last_tests, remember_test
from gpuwizard.workflow.state.path_journal import PathJournal
from gpuwizard.workflow.support.bundle import (
    gather_support_document,
    redact_document,
    render_support,
    this_user,
)

UUID = "GPU-8f6c1a2b-4d3e-11ee-be56-0242ac120002"
SAMPLE_REGISTRY = Path(
    str(resources.files("gpuwizard.resources").joinpath("samples/registry/windows-cuda12.json"))
)


def schema(name: str) -> dict[str, Any]:
    return json.loads(resources.files("gpuwizard.resources").joinpath(f"schemas/{name}").read_text("utf-8"))


def result_event(verdict: str, **extra: Any) -> LiveTestResult:
    return result_from_json(
        {"event": "result", "verdict": verdict, "framework": "pytorch", "samples_per_s": {"gpu": None, "cpu": 900.0},
         "speedup": None, "seconds": 5.0, "findings": [], **extra}
    )  # fmt: skip


# --- the most recent live tests ---------------------------------------------------------------


def test_each_environment_keeps_its_latest_test_and_an_interpreter_its_own():
    remember_test(result_event("cpu_only", env="demo", python="/e/demo/bin/python"))
    remember_test(result_event("gpu_ok", env="other", python="/e/other/bin/python"))
    remember_test(
        result_event("broken", env="demo", python="/e/demo/bin/python"), probe_args=("--steps", "5")
    )
    remember_test(result_event("broken", env=None, python="/x/python"))
    tests = load_last_tests()
    assert [(t["env"], t["python"], t["result"]["verdict"], t["short"]) for t in tests] == [
        ("other", "/e/other/bin/python", "gpu_ok", False),
        ("demo", "/e/demo/bin/python", "broken", True),
        (None, "/x/python", "broken", False),
    ]
    assert json.loads(last_tests_path().read_text())["schema"] == "gpuwizard.last-tests/1"


def test_an_unreadable_file_counts_as_no_tests_and_is_replaced_by_the_next_one():
    last_tests_path().write_text("{not json")
    assert load_last_tests() == []
    remember_test(result_event("gpu_ok", env="demo", python="p"))
    assert [t["env"] for t in load_last_tests()] == ["demo"]


def test_a_home_that_cannot_be_written_does_not_fail_the_test(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    monkeypatch.setenv("GPUWIZARD_HOME", str(blocker / "home"))  # a folder under a file: cannot be made
    remember_test(result_event("gpu_ok", env="demo", python="p"))
    assert load_last_tests() == []


def test_the_live_test_records_a_failed_run_with_its_findings(tmp_path: Path):
    missing = str(tmp_path / "gone" / "bin" / "python")
    result = run_live_test(
        LiveTestTarget(python=missing, framework="pytorch", env_name="gone"),
        runner=StreamingSubprocessRunner(),
        on_event=lambda _event: None,
        cancel=threading.Event(),
    )
    [record] = load_last_tests()
    assert record["env"] == "gone" and record["python"] == missing
    assert record["result"] == result.to_json()
    assert [f["code"] for f in record["result"]["findings"]] == ["PYTHON_NOT_FOUND"]


class _CancelledRunner:
    """The user pressed Cancel while the probe ran: the runner says so, as the real one does."""

    def __init__(self, cancel: threading.Event) -> None:
        self.cancel = cancel

    def stream(self, argv: Sequence[str], on_line: Callable[[str], None], **_kwargs: Any) -> int:
        self.cancel.set()
        raise CommandCancelled(argv, "cancelled")


def test_a_cancelled_live_test_is_not_recorded():
    cancel = threading.Event()
    result = run_live_test(
        LiveTestTarget(python=sys.executable, framework="pytorch", env_name="demo"),
        runner=_CancelledRunner(cancel),  # type: ignore[arg-type]
        on_event=lambda _event: None,
        cancel=cancel,
    )
    assert result.verdict == "cancelled"
    assert not last_tests_path().exists()


# --- gathering ----------------------------------------------------------------------------------


def _record(name: str, python: str, path: str, **extra: Any) -> EnvRecord:
    return EnvRecord(name=name, path=path, python=python, manager="venv", framework="pytorch",
                     framework_version="2.13.0", **extra)  # fmt: skip


@pytest.fixture
def three_environments(torch_python: str, tmp_path: Path) -> dict[str, str]:
    """``torch`` (real torch 2.13.0 CPU), ``plain`` (no torch) and ``gone`` (its folder removed)."""
    torch_env = str(Path(torch_python).parent.parent)
    save_record(_record("torch", torch_python, torch_env, variables={"CUDA_VISIBLE_DEVICES": UUID}))
    save_record(_record("plain", sys.executable, str(Path(sys.executable).parent.parent)))
    save_record(_record("gone", str(tmp_path / "gone" / "bin" / "python"), str(tmp_path / "gone")))
    return {"torch": torch_python, "plain": sys.executable}


def _gather(probe: bool = True, **kwargs: Any) -> dict[str, Any]:
    return gather_support_document(
        report=kwargs.pop("report", machine(os="linux", driver="560.94", cuda_max="12.6")),
        system_source="file",
        path_store=kwargs.pop("path_store", None),
        runner=StreamingSubprocessRunner() if probe else None,
        cancel=threading.Event(),
        **kwargs,
    )


def test_each_environment_is_asked_what_it_is_now(three_environments: dict[str, str]):
    remember_test(result_event("cpu_only", env="torch", python=three_environments["torch"]))
    document = _gather(environ={"CUDA_VISIBLE_DEVICES": UUID, "HOME": "/home/x", "PATH": "/usr/bin"})
    envs = {env["name"]: env for env in document["environments"]}

    torch_env = envs["torch"]
    assert torch_env["probe"]["ok"] is True and torch_env["probe"]["framework_version"] == "2.13.0+cpu"
    assert {"name": "torch", "version": "2.13.0+cpu"} in torch_env["packages"]
    assert all(p["name"] != "pip" for p in torch_env["packages"])  # only what matters for GPU work
    # The machine has an NVIDIA GPU, the environment a CPU build: said as a finding.
    assert [f["code"] for f in torch_env["findings"]] == ["CPU_ONLY_BUILD"]
    assert torch_env["last_test"]["result"]["verdict"] == "cpu_only"

    assert envs["plain"]["probe"]["ok"] is False
    assert [f["code"] for f in envs["plain"]["findings"]] == ["FRAMEWORK_NOT_IMPORTABLE"]
    assert "No module named 'torch'" in envs["plain"]["findings"][0]["message"]

    gone = envs["gone"]
    assert (gone["folder_exists"], gone["interpreter_exists"], gone["probe"]) == (False, False, None)
    assert [f["code"] for f in gone["findings"]] == ["PYTHON_NOT_FOUND"]

    assert document["variables"] == {"CUDA_VISIBLE_DEVICES": UUID}
    jsonschema.validate(
        document | {"redaction": {"rules": [], "counts": {}}}, schema("support-1.schema.json")
    )


def test_without_probing_no_interpreter_is_run(three_environments: dict[str, str]):
    document = _gather(probe=False)
    for env in document["environments"]:
        assert env["probe"] is None and env["packages"] is None and env["probed"] is False
    assert document["sources"]["probed"] is False


def test_the_path_of_a_registry_snapshot_with_types_marks_and_journal(tmp_path: Path):
    registry = tmp_path / "registry.json"
    registry.write_text(SAMPLE_REGISTRY.read_text())
    store = SnapshotFileEnvironment(registry)
    cuda = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin"
    apply_change(store, PathJournal(wizard_home()), plan_add(store, "user", [cuda]))

    path = _gather(
        probe=False, path_store=store, environ={"PATH": os.pathsep.join(["/usr/bin", "/nope", "/usr/bin"])}
    )["path"]
    assert path["registry"] == store.identity
    scopes = {scope["scope"]: scope for scope in path["scopes"]}
    assert (scopes["system"]["type"], scopes["user"]["type"]) == ("REG_EXPAND_SZ", "REG_EXPAND_SZ")
    user = {entry["segment"]: entry for entry in scopes["user"]["entries"]}
    assert user[cuda]["cuda_version"] == "11.2"
    assert "other_cuda_first" in user[cuda]["problems"]  # the system PATH's CUDA 12.1 comes first
    assert user["C:\\Program Files\\Git\\cmd"]["problems"] == ["duplicate"]
    assert {f["code"] for f in path["findings"]} >= {"MULTIPLE_CUDA_ON_PATH", "PATH_DUPLICATE_ENTRY"}
    [entry] = path["journal"]
    assert (entry["action"], entry["folders"], entry["status"]) == ("add", [cuda], "applied")
    process = [(e["entry"], e["exists"], e["duplicate"]) for e in path["process"]["entries"]]
    assert process == [("/usr/bin", True, False), ("/nope", False, False), ("/usr/bin", True, True)]


def test_a_frozen_builds_own_folders_are_not_shown_as_the_path_programs_see(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
):
    # The installed wizard: its Qt start-up put _internal and _internal/PySide6 first on PATH
    # (issue 37, point 8); its children never get them, so the report does not show them.
    bundle = tmp_path / "gpuwizard" / "_internal"
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "_MEIPASS", str(bundle), raising=False)
    monkeypatch.setenv("PATH", os.pathsep.join([str(bundle / "PySide6"), str(bundle), str(bundle.parent), "/usr/bin"]))  # fmt: skip
    process = _gather(probe=False)["path"]["process"]
    assert [e["entry"] for e in process["entries"]] == [str(bundle.parent), "/usr/bin"]


# --- redaction and rendering -----------------------------------------------------------------------


def test_this_user_from_the_environment():
    who = this_user({"USER": "zed", "HOME": "/home/zed", "USERPROFILE": "C:\\Users\\Zed"})
    assert "zed" in who.user_names and "Zed" in who.user_names
    assert {"/home/zed", "C:\\Users\\Zed"} <= set(who.home_folders)


def test_a_saved_report_from_another_user_is_redacted_too():
    report = machine(os="windows", python_extra={"executable": "C:\\Users\\ana\\AppData\\python.exe"})
    document = redact_document(_gather(probe=False, report=report), Identities())
    assert document["system"]["python"]["executable"] == "%USERPROFILE%\\AppData\\python.exe"
    assert document["redaction"]["counts"]["home_folder"] >= 1


def test_every_format_renders_the_same_redacted_document_and_escapes_what_it_shows(tmp_path: Path):
    evil = "<script>alert('x')</script> | *bold*"
    save_record(_record("demo", str(tmp_path / "zed" / "bin" / "python"), str(tmp_path / "zed")))
    remember_test(
        result_event(
            "broken",
            env="demo",
            python=str(tmp_path / "zed" / "bin" / "python"),
            findings=[
                {"code": "TEST_PROBE_FAILED", "severity": "error", "message": evil, "hint": "look at it"}
            ],
        )
    )
    document = redact_document(_gather(probe=False), Identities(user_names=("zed",)))
    html = render_support(document, "html")
    markdown = render_support(document, "markdown")
    data = json.loads(render_support(document, "json"))
    assert data == document and data["schema"] == SUPPORT_SCHEMA
    for text in (html, markdown, json.dumps(data)):
        assert "zed" not in text.replace("<user>", "").replace("&lt;user&gt;", "")
    # HTML: escaped, self-contained, no script and nothing fetched from elsewhere
    assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html and "<script" not in html
    assert not any(token in html for token in ("src=", "<link", "@import", "url("))
    assert all(href.startswith("#") for href in re.findall(r'href="([^"]*)"', html))
    assert (
        html.startswith("<!DOCTYPE html>") and "prefers-color-scheme: dark" in html and "@media print" in html
    )
    assert "<details>" in html and "TEST_PROBE_FAILED" in html
    # Markdown: the same finding, escaped for a line (| and * would make a table or emphasis)
    assert r"&lt;script&gt;alert('x')&lt;/script&gt; \| \*bold\*" in markdown
    assert "## Findings" in markdown and "## Live tests" in markdown


def _glance(markdown: str) -> Mapping[str, str]:
    """The facts of the "At a glance" box: ``- **Label:** value`` lines."""
    box = markdown.split("## At a glance", 1)[1].split("\n## ", 1)[0]
    return dict(line[4:].split(":** ", 1) for line in box.splitlines() if line.startswith("- **"))


def test_the_summary_says_what_is_broken_at_a_glance(tmp_path: Path):
    save_record(_record("gone", str(tmp_path / "gone" / "bin" / "python"), str(tmp_path / "gone")))
    report = machine(os="linux", gpus=(("NVIDIA GeForce RTX 3060", "8.6"),), driver="560.94", cuda_max="12.6")
    markdown = render_support(redact_document(_gather(probe=False, report=report), Identities()), "markdown")
    assert "Something is broken: 1 error below" in markdown
    facts = _glance(markdown)
    assert facts["GPU"] == "✅ NVIDIA GeForce RTX 3060, compute 8.6"
    assert facts["Driver"] == "✅ 560.94, supports CUDA up to 12.6"
    assert facts["Environments"] == r"❌ 1: gone (not tested; PYTHON\_NOT\_FOUND)"


def test_without_a_recorded_live_test_the_glance_falls_back_to_the_last_good_state(tmp_path: Path):
    from gpuwizard.core.health.snapshot import Snapshot, SnapshotEnv
    from gpuwizard.workflow.health.good_state import save_last_good

    record = _record("lab", sys.executable, str(tmp_path / "lab"))
    save_record(record)
    save_last_good(
        Snapshot(
            recorded="2026-11-20T10:00:00+00:00",
            environments=(
                SnapshotEnv(
                    name="lab", path=record.path, python=record.python, manager="venv", framework="pytorch",
                    framework_version="2.13.0", test_verdict="gpu_ok", tested="2026-11-20T10:00:00+00:00",
                ),
            ),
        )
    )  # fmt: skip
    report = machine(os="linux", gpus=(("NVIDIA GeForce RTX 3060", "8.6"),), driver="560.94", cuda_max="12.6")
    markdown = render_support(redact_document(_gather(probe=False, report=report), Identities()), "markdown")
    assert r"1: lab (gpu\_ok in the last good state)" in _glance(markdown)["Environments"]


def test_an_environment_inside_wsl_is_not_called_missing_where_wsl_exe_is_not():
    # Its folder and interpreter are paths inside the distribution: not looked for here, and
    # without wsl.exe (this machine) not probed either; nothing says they are missing.
    save_record(
        EnvRecord(
            name="tf", path="/home/zoe/.local/share/gpuwizard/envs/tf",
            python="/home/zoe/.local/share/gpuwizard/envs/tf/bin/python", manager="wsl",
            framework="tensorflow", framework_version="2.21.0", id="e1", distro="Ubuntu-24.04",
            wsl_home="/home/zoe/.local/share/gpuwizard", wsl_home_id="h1",
        )
    )  # fmt: skip
    document = _gather()
    (env,) = document["environments"]
    assert (env["manager"], env["distro"]) == ("wsl", "Ubuntu-24.04")
    assert env["folder_exists"] is None and env["interpreter_exists"] is None and env["probed"] is False
    assert not [f for f in env["findings"] if "NOT_FOUND" in f["code"] or "MISSING" in f["code"]]
    jsonschema.validate(
        document | {"redaction": {"rules": [], "counts": {}}}, schema("support-1.schema.json")
    )
