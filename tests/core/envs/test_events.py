"""The creation's typed events: their JSON as ``env create --json`` writes it, read back, and the phases' words."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest

from gpuwizard.core.envs.events import (
    ENV_CREATE_EVENTS,
    PHASE_WORDS,
    EnvLog,
    EnvPhase,
    EnvPhaseName,
    EnvProgress,
    EnvSources,
    EnvStart,
    phase_words,
)
from gpuwizard.core.envs.index_reach import IndexAnswer, IndexStatus, SourcesCheck, check_findings
from gpuwizard.core.envs.package_sources import PlanSources, SourceIndex
from gpuwizard.core.events import Other, to_json

RUNS = Path(__file__).parents[3] / "resources" / "samples" / "runs"


def test_every_phase_has_words_and_only_phases_do() -> None:
    assert set(typing.get_args(EnvPhaseName)) == set(PHASE_WORDS)
    assert all(words.endswith("…") for words in PHASE_WORDS.values())
    assert phase_words("dlls") == "Making the NVIDIA wheels' DLL folders visible…"
    assert phase_words("something newer") is None


@pytest.mark.parametrize("run", sorted(RUNS.glob("env-create-*.jsonl")), ids=lambda path: path.name)
def test_a_recorded_run_reads_back_typed_and_writes_the_same_lines(run: Path) -> None:
    for text in run.read_text(encoding="utf-8").splitlines():
        data = json.loads(text)
        event = ENV_CREATE_EVENTS.read(data)
        assert not isinstance(event, Other), data
        # The recording is older than some fields (a start's conda_channels): the rest is as it was.
        written = {key: value for key, value in to_json(event).items() if key in data}
        assert list(written) == list(data)
        assert written == data


def test_the_start_event_keeps_the_contracts_order_and_omits_unknown_sources() -> None:
    start = EnvStart(
        name="demo", path="/envs/demo", manager="venv", tool="uv", framework="pytorch",
        framework_version="2.13.0", python_version="3.11", requirements=("torch==2.13.0",),
        log="/logs/x.log",
    )  # fmt: skip
    assert list(to_json(start)) == [
        "event", "name", "path", "manager", "tool", "framework", "framework_version", "python_version",
        "requirements", "index_url", "find_links", "offline", "conda_channels", "log",
    ]  # fmt: skip
    with_sources = to_json(EnvStart(**{**vars(start), "package_sources": {"offline": False}}))
    assert list(with_sources)[-1] == "package_sources"


def test_a_log_line_says_details_and_report_only_when_it_has_them() -> None:
    plain = EnvLog(phase="install", tool="uv", line="Resolved 1 package")
    assert to_json(plain) == {"event": "log", "phase": "install", "tool": "uv", "line": "Resolved 1 package"}
    noted = EnvLog(phase="verify", tool="gpuwizard", line="note", details=("a", "b"), report={"ok": True})
    assert to_json(noted) == {
        "event": "log", "phase": "verify", "tool": "gpuwizard", "line": "note", "details": ["a", "b"],
        "report": {"ok": True},
    }  # fmt: skip
    assert ENV_CREATE_EVENTS.read(to_json(noted)) == noted


def test_phase_and_progress_read_back_as_they_were() -> None:
    for event in (
        EnvPhase(phase="install", message="installing torch"),
        EnvProgress(
            phase="install", action="download", package="torch", bytes_done=5, bytes_total=10, percent=50.0
        ),
    ):
        assert ENV_CREATE_EVENTS.read(json.loads(json.dumps(to_json(event)))) == event


def test_the_sources_event_carries_typed_findings() -> None:
    index = SourceIndex("https://download.pytorch.org/whl/cpu", "pytorch", "plan", variant="cpu")
    sources = PlanSources((index,))
    statuses = (IndexStatus(index, IndexAnswer(f"{index.url}/torch/", False, "dns", "no such host")),)
    check = SourcesCheck(sources, statuses, check_findings(sources, statuses, "torch", None), "torch")
    event = EnvSources.of(check)
    data = to_json(event)
    # The contract's keys in their order; ``hosts`` came after them (issue 37, point 6: fields are only added).
    assert list(data) == [
        "event", "ok", "checked", "offline", "find_links", "tool", "project", "indexes", "findings", "hosts"
    ]  # fmt: skip
    assert data["hosts"] == [
        {"host": "download.pytorch.org", "why": "PyTorch's own index, for its cpu build", "url": index.url}
    ]
    assert (data["ok"], data["indexes"][0]["failure"]) == (False, "dns")
    again = ENV_CREATE_EVENTS.read(json.loads(json.dumps(data)))
    assert isinstance(again, EnvSources)
    assert [finding.code for finding in again.findings] == ["PACKAGE_INDEX_UNREACHABLE"]
    assert again.findings[0].message == check.findings[0].message
