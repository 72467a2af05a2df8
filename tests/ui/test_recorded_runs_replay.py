"""Every recorded run in ``resources/samples/runs/`` parses, replays, and shows the same pages.

Issue 34's acceptance: "the recorded runs in ``resources/samples/runs/`` replay to the same
pages". Three checks, each against goldens captured from the code before the refactor
(``tests/fixtures/json_contract/replay/`` and ``pages/``):

- every file there is one of the runs the wizard replays (``gpuwizard screenshots``);
- each replays through its step (``workflow/wizard/replay.py``): what the step hands the page,
  event by event, and the result it returns, as JSON (a typed event as its own codec writes it),
  field for field with every object's keys in their order; a field the reader adds to an older
  recording (with its default) is allowed, as the contract allows added fields;
- the Install, Test and Verify pages of a wizard whose steps replay them (the session of
  ``gpuwizard screenshots``) show the same texts: every visible label, button, log and progress
  bar, in the order the page made them, and the loss chart's points.

Nothing varies between two replays, so nothing is normalised. To record the goldens again (only
for an intended change, said in the commit)::

    GPUWIZARD_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -n 0 -p no:cacheprovider tests/ui/test_recorded_runs_replay.py

which rewrites them and fails, so that a regeneration is never silent.
"""

from __future__ import annotations

import difflib
import json
import os
import shutil
import threading
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QTextEdit,
    QWidget,
    QWizardPage,
)
from pytestqt.qtbot import QtBot

from cli.json_contract.compare import golden_lines, read_golden, stream_differences
from gpuwizard.core.events import to_json as event_to_json
from gpuwizard.ui.screenshots import RUN_ENV_CREATE, RUN_TEST, RUN_VERIFY, screenshot_session
from gpuwizard.ui.wizard import PageId, SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.replay import recorded_events, replay_env_create, replay_test, replay_verify
from harness.kept_wizards import keep
from harness.waits import EVENT_MS

SAMPLES = resources.files("gpuwizard.resources").joinpath("samples")
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "json_contract"
UPDATE = os.environ.get("GPUWIZARD_UPDATE_GOLDEN") == "1"
RUNS = (RUN_ENV_CREATE, RUN_TEST, RUN_VERIFY)
#: The pages that show a replayed run, in the wizard's order.
PAGES = {"install": PageId.INSTALL, "test": PageId.TEST, "verify": PageId.VERIFY}


def as_json(value: Any) -> Any:
    """A dict as it is; a typed event as the JSON its own codec writes.

    Before issue 34 a typed event has a ``to_json()`` method; after it, the events' one codec
    (``gpuwizard.core.events.to_json``) writes it. Either way the JSON is the contract.
    """
    if isinstance(value, dict):
        return value
    if callable(getattr(value, "to_json", None)):
        return value.to_json()
    return event_to_json(value)


def replayed(name: str) -> list[Any]:
    """What the replay step of ``name`` hands on, event by event, then what it returns, as JSON.

    ``verify``'s step returns a HealthReport, which has no JSON of its own: it is read from the
    recorded result (the last event, compared here) and shown by the Verify page (compared by
    :func:`test_the_pages_show_the_same_after_their_replays`).
    """
    sent: list[Any] = []
    cancel = threading.Event()
    returned: list[Any] = []
    if name == RUN_ENV_CREATE:
        returned.append(replay_env_create(name)(None, None, None, sent.append, cancel))  # type: ignore[arg-type]
    elif name == RUN_TEST:
        returned.append(replay_test(name)(None, None, sent.append, cancel))  # type: ignore[arg-type]
    else:
        replay_verify(name)(lambda: None, None, sent.append, cancel)  # type: ignore[arg-type,return-value]
    return [as_json(payload) for payload in sent] + [{"returned": as_json(result)} for result in returned]


def text_differences(golden: Path, text: str) -> str:
    """How ``text`` differs from the golden file (a unified diff; empty when the same).

    With GPUWIZARD_UPDATE_GOLDEN=1 the golden is rewritten instead (the test then fails).
    """
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(text, encoding="utf-8")
        return ""
    expected = golden.read_text(encoding="utf-8")
    if text == expected:
        return ""
    diff = difflib.unified_diff(expected.splitlines(), text.splitlines(), golden.name, "now", lineterm="")
    return "\n".join(diff)


def fail_when_rewritten() -> None:
    if UPDATE:
        pytest.fail("rewrote the goldens: unset GPUWIZARD_UPDATE_GOLDEN and run again")


def test_every_recorded_run_is_one_the_wizard_replays():
    shipped = sorted(path.name for path in SAMPLES.joinpath("runs").iterdir() if path.name.endswith(".jsonl"))
    assert shipped == sorted(f"{name}.jsonl" for name in RUNS)


@pytest.mark.parametrize("name", RUNS)
def test_a_recorded_run_replays_to_the_same_events_and_result(name: str):
    recorded = recorded_events(name)  # every line JSON, the last a result (or ReplayError)
    assert all(isinstance(event, dict) and isinstance(event.get("event"), str) for event in recorded)
    items = replayed(name)
    golden = FIXTURES / "replay" / f"{name}.jsonl"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_text(golden_lines({"run": name}, items), encoding="utf-8")
        fail_when_rewritten()
    _header, expected = read_golden(golden.read_text(encoding="utf-8"))
    # A field the reader fills in that the (older) recording lacks is allowed: fields may be
    # added, never renamed or dropped (docs/architecture.md, "The command-line and JSON contract").
    found = stream_differences(expected, items, added_ok=True)
    assert not found, f"{name}: the replay differs from {golden.name}:\n  " + "\n  ".join(found[:40])


def page_texts(page: QWizardPage) -> str:
    """What the page shows: each visible text widget's text, in the order the page made them."""
    lines = []
    for widget in page.findChildren(QWidget):
        if not widget.isVisibleTo(page):
            continue
        kind = type(widget).__name__
        if isinstance(widget, QLabel) and widget.text():
            lines.append(f"{kind}: {widget.text()}")
        elif isinstance(widget, QAbstractButton) and widget.text():
            lines.append(f"{kind}: {widget.text()} (enabled: {widget.isEnabled()})")
        elif isinstance(widget, QPlainTextEdit | QTextEdit):
            lines.append(f"{kind}: {widget.toPlainText()}")
        elif isinstance(widget, QProgressBar):
            lines.append(f"{kind}: {widget.value()} of {widget.maximum()}, {widget.text()}")
    chart = getattr(page, "chart", None)
    if chart is not None:
        lines.append(f"chart points: cpu {chart.point_count('cpu')}, gpu {chart.point_count('gpu')}")
    return "\n".join(lines) + "\n"


@pytest.fixture
def replaying_wizard(qtbot: QtBot, tmp_path: Path) -> SetupWizard:
    """The wizard of ``gpuwizard screenshots`` on the sample machine without a GPU: its steps replay the runs."""
    registry = tmp_path / "registry.json"
    with resources.as_file(SAMPLES.joinpath("registry/windows-cuda12.json")) as sample:
        shutil.copyfile(sample, registry)
    with resources.as_file(SAMPLES.joinpath("no-gpu.json")) as report:
        session = screenshot_session(load_system_report(report), registry)
    wizard = keep(SetupWizard(session, start_detection=False))
    qtbot.addWidget(wizard)
    wizard.show()
    assert isinstance(wizard, SetupWizard)
    return wizard


def test_the_pages_show_the_same_after_their_replays(qtbot: QtBot, replaying_wizard: SetupWizard):
    # In page order on one session, as `gpuwizard screenshots` shows them: the Test page tests
    # the environment the Install page's replay made.
    diffs = []
    for page, page_id in PAGES.items():
        replaying_wizard.setStartId(page_id)
        replaying_wizard.restart()
        shown = replaying_wizard.currentPage()
        qtbot.waitUntil(shown.isComplete, timeout=EVENT_MS)
        # A widget a layout takes while the page is on screen is shown by a queued call (Qt's
        # QLayout::addChildWidget): deliver what is queued already, so each row the last events
        # added counts as shown whatever the machine's speed.
        QApplication.sendPostedEvents()
        diffs.append(text_differences(FIXTURES / "pages" / f"{page}.txt", page_texts(shown)))
    fail_when_rewritten()
    assert not any(diffs), "\n".join(diffs)


def test_a_changed_event_is_a_difference_in_the_replay():
    items = replayed(RUN_TEST)
    moved = [dict(reversed(list(items[0].items()))), *items[1:]]
    golden = FIXTURES / "replay" / f"{RUN_TEST}.jsonl"
    _header, expected = read_golden(golden.read_text(encoding="utf-8"))
    assert json.dumps(expected[0]) != json.dumps(moved[0])
    assert any("key order" in said for said in stream_differences(expected, moved))
