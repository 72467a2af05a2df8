"""The py-rattler engine's JSON lines as progress records and log sentences (core/envs/rattler_output.py).

The lines are the engine's own, as ``adapters/envs/rattler_engine.py`` prints them (its tests
run it for real against local channels); here each kind is read, and garbage never raises.
"""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.envs.rattler_output import rattler_json, rattler_message
from gpuwizard.core.envs.tool_output import parse_tool_line


def line(**fields: object) -> str:
    return json.dumps(fields)


def test_each_stage_is_the_progress_action_conda_gives() -> None:
    repodata = line(event="progress", stage="repodata", message="reading conda-forge for win-64")
    solved = line(event="progress", stage="solve", message="3 packages", count=3, bytes_total=900)
    download = line(event="progress", stage="download", message="downloading cudnn", package="cudnn",
                    bytes_done=300, bytes_total=1200)  # fmt: skip
    linked = line(event="progress", stage="link", message="linked pip", package="pip", version="24.2",
                  count=2, total=8)  # fmt: skip
    done = line(event="done", prefix="/envs/lab", packages=["pip==24.2", "python==3.10.14"])

    assert [(p.action, p.message) for p in parse_tool_line("rattler", repodata)] == [
        ("solve", "reading conda-forge for win-64")
    ]
    assert [(p.action, p.count, p.bytes_total) for p in rattler_json(solved)] == [("solve", 3, 900)]
    assert [(p.package, p.bytes_done, p.bytes_total, p.percent) for p in rattler_json(download)] == [
        ("cudnn", 300, 1200, 25.0)
    ]
    assert [(p.action, p.package, p.version, p.percent) for p in rattler_json(linked)] == [
        ("link", "pip", "24.2", 25.0)
    ]
    assert [(p.action, p.count) for p in rattler_json(done)] == [("installed", 2)]


def test_the_log_keeps_sentences_not_json() -> None:
    assert rattler_message(line(event="progress", stage="link", message="linked pip")) == "linked pip"
    assert rattler_message(line(event="error", message="cancelled", cancelled=True)) == "error: cancelled"
    assert rattler_message(line(event="done", packages=["pip==24.2"])) == "installed pip==24.2"
    assert rattler_message("Traceback (most recent call last):") == "Traceback (most recent call last):"


def test_odd_values_are_left_out_rather_than_trusted() -> None:
    odd = line(event="progress", stage="download", package=7, bytes_done=-1, bytes_total=True, count="3")
    (record,) = rattler_json(odd)
    assert (record.package, record.bytes_done, record.bytes_total, record.count, record.percent) == (
        None, None, None, None, None,
    )  # fmt: skip
    (huge,) = rattler_json(line(event="progress", stage="link", count=10**400, total=1))
    assert (huge.count, huge.percent) == (None, None)
    assert rattler_json(line(event="progress", stage="unpack")) == []
    assert rattler_json(line(event="error", message="x")) == []
    assert rattler_json("[1, 2]") == [] and rattler_json("{not json") == []


@given(st.text())
def test_no_line_makes_it_raise(text: str) -> None:
    parse_tool_line("rattler", text)
    rattler_message(text)


@given(
    st.dictionaries(
        st.sampled_from(
            [
                "event",
                "stage",
                "count",
                "total",
                "bytes_done",
                "bytes_total",
                "package",
                "message",
                "packages",
            ]
        ),
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(), st.lists(st.text())),
    )
)
def test_no_object_makes_it_raise(fields: dict[str, object]) -> None:  # fmt: skip
    text = json.dumps({"event": "progress", **fields})
    for record in rattler_json(text):
        assert record.percent is None or 0.0 <= record.percent <= 100.0
    rattler_message(text)
