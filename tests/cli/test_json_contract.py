"""The ``--json`` output of every long command, field for field, against goldens of a known-good run.

Issue 34 moves the long operations (environment creation, verify, apply, the live test) from
hand-built dicts to typed events with a derived JSON codec. Its acceptance: "the ``--json`` output
of each command for the same run is identical before and after, field for field". This test runs
each command for real (``json_contract/scenarios.py`` says how: real uv environments from a
folder of small wheels, a stand-in ``torch`` that plays back a recorded CPU training run inside
the live test's probe, saved machine reports where a command takes ``--system``) and compares
its output with ``tests/fixtures/json_contract/NAME.jsonl``: the exit code, whether the output is
JSON lines or one document, the sequence of events (their kinds), and in each event or document
every field, its JSON type and value, and the order of every object's keys.

The commands: ``env create`` (made; failed and rolled back), ``env list``, ``test --env``,
``verify`` (healthy with the short test; broken; nothing to verify), ``env remove``, ``apply``
(a preview; a Windows plan failing part-way with PATH put back; a real run with its test),
``detect`` and ``recommend`` on a saved report.

What varies between two runs of the same command is replaced before comparing, and nothing else
(``json_contract/compare.py``, ``Placeholders``):

1. folders: the run's temporary folder -> ``<TMP>``, the test venv -> ``<VENV>``, the
   repository -> ``<REPO>``, the interpreter this machine made the environments from ->
   ``<BASE_PYTHON>`` and its full version -> ``<BASE_PYTHON_VERSION>`` (not in ``detect`` and
   ``recommend``, whose saved reports name interpreters of their own);
2. times: ISO 8601 date-times -> ``<TIME>``; an environment log's time stamp and random token
   (``env-create-demo-20261129-074142-46fd54c1.log``) -> ``<STAMP>``; uv's timings in its lines
   (``Resolved 1 package in 0.86ms``) -> ``in <DURATION>``;
3. by key: a number under ``seconds`` -> ``"<SECONDS>"``; 32 hex digits under ``id`` or a key
   ending in ``_id`` (a marker id from ``secrets``, a PATH journal entry's uuid4) -> ``"<ID>"``.

The goldens were captured from the code before issue 34's refactor, run from a separate git
worktree of that commit. To record them again (only when a change of the output is intended,
and said so in the commit)::

    GPUWIZARD_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -n 0 -p no:cacheprovider tests/cli/test_json_contract.py

which rewrites every golden file and then fails, so that a regeneration is never silent. The
runs need a machine without an NVIDIA GPU (``test`` and ``env create`` detect this one): the
developers' and CI's have none; elsewhere the test skips.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from cli.json_contract.compare import (
    Placeholders,
    comparable,
    differences,
    golden_lines,
    parse,
    read_golden,
    stream_differences,
)
from cli.json_contract.scenarios import REPO, Recording, has_an_nvidia_gpu, record_all

GOLDEN = Path(__file__).resolve().parents[1] / "fixtures" / "json_contract"
UPDATE = os.environ.get("GPUWIZARD_UPDATE_GOLDEN") == "1"
#: Every scenario of ``record_all``, in the order it runs them.
SCENARIOS = (
    "env-create-ok",
    "env-list",
    "test-env",
    "verify-healthy",
    "verify-broken",
    "env-remove",
    "env-create-rolled-back",
    "verify-nothing",
    "apply-preview",
    "apply-rolled-back",
    "apply-ok",
    "detect",
    "recommend",
)
#: Runs on saved reports of other machines: nothing in them is this machine's interpreter (the
#: reports name their own, which must stay as they are).
ON_SAVED_REPORTS = frozenset({"detect", "recommend"})
#: Differences shown in a failure's message (the first ones; the rest are counted).
SHOWN = 40

pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("json_contract")]


def placeholders(recording: Recording, name: str) -> Placeholders:
    folders = [
        (str(recording.root), "<TMP>"),
        (str(recording.root.resolve()), "<TMP>"),
        (sys.prefix, "<VENV>"),
        (os.path.realpath(sys.prefix), "<VENV>"),
        (str(REPO), "<REPO>"),
    ]
    if name in ON_SAVED_REPORTS:
        return Placeholders(folders)
    assert recording.base_python is not None
    folders.append((recording.base_python, "<BASE_PYTHON>"))
    return Placeholders(folders, recording.base_python_version)


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> Recording:
    root = tmp_path_factory.mktemp("json-contract")
    if has_an_nvidia_gpu(root):
        pytest.skip("the goldens were recorded on a machine without an NVIDIA GPU, as the developers' are")
    recorded = record_all(root)
    assert tuple(recorded.runs) == SCENARIOS
    return recorded


def actual_golden(name: str, recording: Recording) -> tuple[dict[str, object], list[object]]:
    """The run ``name`` as its golden file holds it: a header, then its events (or document)."""
    run = recording.runs[name]
    stand_ins = placeholders(recording, name)
    output, items = parse(run.stdout)
    header = {"command": ["gpuwizard", *(stand_ins.text(arg) for arg in run.argv)], "exit_code": run.exit_code, "output": output}  # fmt: skip
    return header, [stand_ins.value(item) for item in items]


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_json_output_is_the_golden_field_for_field(name: str, recording: Recording):
    header, items = actual_golden(name, recording)
    golden = GOLDEN / f"{name}.jsonl"
    if UPDATE:
        GOLDEN.mkdir(parents=True, exist_ok=True)
        golden.write_text(golden_lines(header, items), encoding="utf-8")
        pytest.fail(f"rewrote {golden.relative_to(REPO)}: unset GPUWIZARD_UPDATE_GOLDEN and run again")
    expected_header, expected_items = read_golden(golden.read_text(encoding="utf-8"))
    found = differences(expected_header, header, "command line") + stream_differences(expected_items, items)
    stderr = recording.runs[name].stderr
    assert not found, (
        f"{name}: the output differs from {golden.relative_to(REPO)} in {len(found)} place(s):\n  "
        + "\n  ".join(found[:SHOWN])
        + (f"\n  ... and {len(found) - SHOWN} more" if len(found) > SHOWN else "")
        + (f"\nstderr: {stderr[-2000:]}" if stderr else "")
    )
    # The comparison above is the readable one; the text is the final word (nothing it could miss),
    # with rule 4 applied to both sides.
    assert golden_lines(header, comparable(items)) == golden_lines(
        expected_header, comparable(expected_items)
    )


def test_every_golden_file_has_its_scenario():
    assert sorted(path.stem for path in GOLDEN.glob("*.jsonl")) == sorted(SCENARIOS)


# --- the comparison itself can fail -----------------------------------------------------------


def test_a_renamed_field_is_a_difference():
    old = [{"event": "phase", "phase": "create", "message": "m"}]
    new = [{"event": "phase", "step": "create", "message": "m"}]
    assert stream_differences(old, new) == [
        "the events ['phase create'] became ['phase']",
        "event 0 (phase create) (top): fields missing: ['phase']",
        "event 0 (phase create) (top): fields added: ['step']",
    ]


def test_another_programs_lines_are_compared_by_their_shape_and_the_wizards_own_in_full():
    def uv(line: str) -> dict[str, object]:
        return {"event": "log", "phase": "install", "tool": "uv", "line": line}

    own = {"event": "log", "phase": "install", "tool": "gpuwizard", "line": "wrote a file"}
    old = [uv("Resolved 1 package in <DURATION>"), uv(" + torch==2.13.0"), own]
    assert stream_differences(old, [uv("Resolved 1 package"), own]) == []  # a newer uv says less
    assert stream_differences(old, [uv("x"), {**own, "line": "wrote two files"}]) != []
    renamed = {"event": "log", "phase": "install", "tool": "uv", "text": "Resolved"}
    assert stream_differences(old, [renamed, own]) != []  # the tool's events keep their fields


def test_another_programs_lines_may_come_more_or_fewer_and_interleaved_but_not_lose_a_kind():
    def uv(line: str) -> dict[str, object]:
        return {"event": "log", "phase": "install", "tool": "uv", "line": line}

    def progress(message: str) -> dict[str, object]:
        return {"event": "progress", "phase": "install", "action": "resolve", "message": message}

    own = {"event": "phase", "phase": "check", "message": "checking"}
    old = [uv("Resolved 1 package"), progress("Resolved 1 package"), uv("Installed 1 package"), own]
    # A warning of uv's own (no progress in it) between two lines that are: the alternation breaks.
    warned = [uv("Resolved 1 package"), progress("Resolved 1 package"), uv("warning: Failed to hardlink"), uv("Installed 1 package"), own]  # fmt: skip
    assert stream_differences(old, warned) == []
    assert comparable(old) == comparable(warned)
    no_progress = [uv("Resolved 1 package"), uv("Installed 1 package"), own]
    assert stream_differences(old, no_progress) != []  # the progress events stopped coming
    assert stream_differences(old, [own, *old[:3]]) != []  # the wizard's own event moved


def test_two_keys_swapped_are_a_difference():
    old = {"event": "result", "status": "ok", "name": "demo"}
    new = {"event": "result", "name": "demo", "status": "ok"}
    assert old == new  # as dicts they are equal: the order is what differs
    assert differences(old, new) == [
        "(top): key order ['event', 'status', 'name'] became ['event', 'name', 'status']"
    ]


def test_a_type_change_is_a_difference_even_when_python_calls_the_values_equal():
    assert differences({"count": 1}, {"count": 1.0}) == [".count: integer 1 became number 1.0"]
    assert differences({"ok": True}, {"ok": 1}) == [".ok: boolean True became integer 1"]


def test_the_placeholders_replace_only_what_varies():
    stand_ins = Placeholders([("/tmp/run-1", "<TMP>")], "3.11.2")
    event = {
        "log": "/tmp/run-1/home/logs/env-create-demo-20261129-074142-46fd54c1.log",
        "line": "Resolved 10 packages in 2.39s",
        "message": "Python 3.11.2 at /usr/bin/python3; wanted 3.11; torch 3.11.20",
        "seconds": 0.37,
        "recorded": "2026-11-29T07:44:16+00:00",
        "journal_id": "22f8d70ea0d04bab988c21274ac2f23a",
        "check_id": "env:demo:test",
        "step": 3,
    }
    assert stand_ins.value(event) == {
        "log": "<TMP>/home/logs/env-create-demo-<STAMP>.log",
        "line": "Resolved 10 packages in <DURATION>",
        "message": "Python <BASE_PYTHON_VERSION> at /usr/bin/python3; wanted 3.11; torch 3.11.20",
        "seconds": "<SECONDS>",
        "recorded": "<TIME>",
        "journal_id": "<ID>",
        "check_id": "env:demo:test",
        "step": 3,
    }


def test_a_key_twice_in_one_object_is_refused():
    with pytest.raises(ValueError, match="twice"):
        parse('{"event": "result", "status": "ok", "status": "failed"}\n')


def test_an_added_field_is_allowed_only_where_asked():
    old = {"event": "start", "name": "demo", "path": "/p"}
    new = {"event": "start", "name": "demo", "conda_channels": [], "path": "/p"}
    assert differences(old, new) == ["(top): fields added: ['conda_channels']"]
    assert differences(old, new, added_ok=True) == []
    assert differences(old, {"event": "start", "path": "/p", "name": "demo"}, added_ok=True) != []
