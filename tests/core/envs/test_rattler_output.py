"""The py-rattler engine's JSON lines as progress records and log sentences (core/envs/rattler_output.py).

The lines are shaped as ``adapters/envs/rattler_engine.py`` prints them (its tests run it for
real against local channels, and check its lines read back as here): each carries its progress
record and its sentence; here each kind is read, and garbage never raises.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.envs.rattler_output import rattler_json, rattler_message
from gpuwizard.core.envs.tool_output import parse_tool_line
from gpuwizard.core.envs.tool_progress import ToolProgress


def line(**fields: object) -> str:
    return json.dumps(fields)


def test_each_line_carries_the_record_the_engine_worked_out() -> None:
    repodata = line(event="progress", stage="repodata", action="solve", message="reading conda-forge for win-64",
                    log="reading conda-forge for win-64", channels=["conda-forge"])  # fmt: skip
    download = line(event="progress", stage="download", action="download", message="downloading cudnn",
                    package="cudnn", bytes_done=300, bytes_total=1200, percent=25.0, log="downloading cudnn")  # fmt: skip
    linked = line(event="progress", stage="link", action="link", message="linked pip", package="pip",
                  version="24.2", count=2, total=8, percent=25.0, log="linked pip")  # fmt: skip
    done = line(event="done", prefix="/envs/lab", packages=["pip==24.2", "python==3.10.14"], action="installed",
                count=2, message="installed 2 packages", log="installed pip==24.2, python==3.10.14")  # fmt: skip

    assert parse_tool_line("rattler", repodata) == [
        ToolProgress("solve", message="reading conda-forge for win-64")
    ]
    assert rattler_json(download) == [
        ToolProgress(
            "download", "cudnn", bytes_done=300, bytes_total=1200, percent=25.0, message="downloading cudnn"
        )
    ]
    assert rattler_json(linked) == [
        ToolProgress("link", "pip", "24.2", count=2, percent=25.0, message="linked pip")
    ]
    assert rattler_json(done) == [ToolProgress("installed", count=2, message="installed 2 packages")]
    assert [rattler_message(text) for text in (repodata, linked, done)] == [
        "reading conda-forge for win-64",
        "linked pip",
        "installed pip==24.2, python==3.10.14",
    ]


def test_the_log_keeps_sentences_not_json() -> None:
    assert rattler_message(
        line(event="error", message="cancelled", cancelled=True, log="error: cancelled")
    ) == ("error: cancelled")
    assert rattler_json(line(event="error", message="x", log="error: x")) == []
    # Not the engine's: as printed.
    assert rattler_message("Traceback (most recent call last):") == "Traceback (most recent call last):"
    assert (
        rattler_message(line(event="progress", message="no sentence"))
        == '{"event": "progress", "message": "no sentence"}'
    )


def test_records_no_progress_takes_are_left_out() -> None:
    assert rattler_json(line(action="unpack", message="x")) == []
    assert rattler_json(line(action="download", percent=150.0)) == []
    assert rattler_json(line(action=3)) == []
    (odd,) = rattler_json(line(action="download", bytes_total=True, count="3", percent="25"))
    assert (odd.bytes_total, odd.count, odd.percent) == (None, None, None)
    assert rattler_json("[1, 2]") == [] and rattler_json("{not json") == []


@given(st.text())
def test_no_line_makes_it_raise(text: str) -> None:
    parse_tool_line("rattler", text)
    rattler_message(text)


@given(
    st.dictionaries(
        st.sampled_from(
            ["event", "action", "count", "percent", "bytes_done", "bytes_total", "package", "message", "log"]
        ),
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(), st.lists(st.text())),
    )
)
def test_no_object_makes_it_raise(fields: dict[str, object]) -> None:
    text = json.dumps({"action": "download", **fields})
    for record in parse_tool_line("rattler", text):
        assert record.percent is None or 0.0 <= record.percent <= 100.0
    rattler_message(text)
