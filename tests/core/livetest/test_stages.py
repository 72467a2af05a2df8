"""The probe's ``phase`` and ``prepare`` events: read as typed events, and said in words (issues 20, 34)."""

from __future__ import annotations

import ast
import inspect
import typing

import pytest

from gpuwizard.core.events import Other, to_json
from gpuwizard.core.livetest import stages
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, LiveTestPhase, Phase, Prepare, PrepareStage
from gpuwizard.core.livetest.stages import (
    DEVICE_WORDS,
    PHASE_WORDS,
    STAGE_WORDS,
    phase_line,
    stage_line,
    stage_why,
)


def prepare(**fields: object) -> Prepare:
    event = LIVE_TEST_EVENTS.read({"event": "prepare", **fields})
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
    event = LIVE_TEST_EVENTS.read(data)
    assert isinstance(event, Prepare) and (event.stage, event.device) == ("compile", "cpu")
    assert to_json(event) == data


def test_a_malformed_stage_is_read_without_raising():
    event = prepare(stage=None, device=3, framework=["x"])
    assert (event.stage, event.device, event.framework) == ("", "3", "['x']")
    assert stage_line(event) == "…"


def test_an_older_wizard_would_have_passed_it_on_as_unknown():
    # The kind is new: readers before it keep unknown kinds as Other and ignore them.
    assert isinstance(LIVE_TEST_EVENTS.read({"event": "prepare_something_else", "stage": "x"}), Other)


def test_every_template_is_marked_in_the_stages_context():
    marked = set()
    for node in ast.walk(ast.parse(inspect.getsource(stages))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "QT_TRANSLATE_NOOP":
            where, text = node.args
            assert isinstance(where, ast.Constant) and where.value == "stages"
            marked.add(text.value)
    assert marked == {
        *PHASE_WORDS.values(),
        *DEVICE_WORDS.values(),
        stages._ANY_DEVICE,
        *STAGE_WORDS.values(),
        *stages._STAGE_ON_DEVICE.values(),
        *stages._WHY.values(),
    }


def test_every_phase_and_stage_has_its_words():
    assert set(typing.get_args(LiveTestPhase)) == set(PHASE_WORDS)
    assert set(typing.get_args(PrepareStage)) == set(STAGE_WORDS) == set(stages._WHY)


@pytest.mark.parametrize(
    ("fields", "line"),
    [
        ({"phase": "data", "device": None}, "Making the training data…"),
        ({"phase": "warmup", "device": "gpu"}, "Warming up on the GPU…"),
        ({"phase": "warmup", "device": "cpu"}, "Warming up on the CPU…"),
        ({"phase": "train", "device": "gpu"}, "Training on the GPU…"),
        ({"phase": "train", "device": "tpu"}, "Training on the device…"),
        ({"phase": "matmul", "device": "gpu"}, "Measuring the GPU's matrix multiply rate…"),
        ({"phase": "compare", "device": None}, "Checking that the GPU and the CPU compute the same…"),
        ({"phase": "from_a_newer_probe", "device": "gpu"}, "from_a_newer_probe…"),
    ],
)
def test_each_phase_in_words(fields: dict[str, object], line: str):
    event = LIVE_TEST_EVENTS.read({"event": "phase", **fields})
    assert isinstance(event, Phase)
    words = phase_line(event)
    assert (words, words.context) == (line, "stages")
    if event.device in DEVICE_WORDS and "{device}" in words.template:
        # The device is a sentence of its own: the Test page translates it too.
        assert words.params["device"] == {"gpu": "the GPU", "cpu": "the CPU"}[event.device]
        assert getattr(words.params["device"], "template", None) == DEVICE_WORDS[event.device]
