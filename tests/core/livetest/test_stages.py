"""The probe's ``prepare`` events: read as typed events, and said in words (issue 20, point 8)."""

from __future__ import annotations

import ast
import inspect

import pytest

from gpuwizard.core.livetest import stages
from gpuwizard.core.livetest.events import Other, Prepare, event_from_json
from gpuwizard.core.livetest.stages import stage_line, stage_why


def prepare(**fields: object) -> Prepare:
    event = event_from_json({"event": "prepare", **fields})
    assert isinstance(event, Prepare)
    return event


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        ({"stage": "import", "framework": "pytorch"}, "Importing PyTorch…"),
        ({"stage": "import", "framework": "tensorflow"}, "Importing TensorFlow…"),
        ({"stage": "cuda_context", "device": "gpu"}, "Starting CUDA on the GPU…"),
        ({"stage": "compile", "device": "gpu", "warmup_steps": 5}, "Compiling the model for the GPU…"),
        ({"stage": "compile", "device": "cpu", "warmup_steps": 2}, "Compiling the model for the CPU…"),
        ({"stage": "compile"}, "Compiling the model…"),
        ({"stage": "from_a_newer_probe"}, "from_a_newer_probe…"),
    ],
)
def test_each_stage_in_words(fields: dict[str, object], line: str):
    event = prepare(**fields)
    assert stage_line(event) == line
    assert stage_line(event).context == "stages"
    why = stage_why(event)
    assert (why is None) == (event.stage == "from_a_newer_probe")


def test_a_stage_keeps_every_field_it_came_with():
    data = {"event": "prepare", "stage": "compile", "device": "cpu", "warmup_steps": 2, "new": [1]}
    event = event_from_json(data)
    assert isinstance(event, Prepare) and (event.stage, event.device) == ("compile", "cpu")
    assert event.to_json() == data


def test_a_malformed_stage_is_read_without_raising():
    event = prepare(stage=None, device=3, framework=["x"])
    assert (event.stage, event.device, event.framework) == ("", "3", "['x']")
    assert stage_line(event) == "…"


def test_an_older_wizard_would_have_passed_it_on_as_unknown():
    # The kind is new: readers before it keep unknown kinds as Other and ignore them.
    assert isinstance(event_from_json({"event": "prepare_something_else", "stage": "x"}), Other)


def test_every_template_is_marked_in_the_stages_context():
    marked = set()
    for node in ast.walk(ast.parse(inspect.getsource(stages))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "QT_TRANSLATE_NOOP":
            where, text = node.args
            assert isinstance(where, ast.Constant) and where.value == "stages"
            marked.add(text.value)
    assert marked == {*stages._LINES.values(), *stages._WHY.values()}
