"""The verdicts: the pass rule against the module's table, the level, and the words."""

from __future__ import annotations

import ast
import inspect
from types import ModuleType

import pytest

from gpuwizard.core.livetest import verdicts
from gpuwizard.core.livetest.verdicts import (
    CANCELLED,
    VERDICTS,
    WORDS,
    headline,
    level,
    on_gpu,
    passed,
    phrase,
)
from gpuwizard.core.texts import TranslatableText

# The module docstring's rule: on the GPU passes, slow or not; the CPU only where no NVIDIA GPU a
# driver serves is in the machine (unknown counts as one); broken never.
#: (verdict, machine has an NVIDIA GPU) -> (passed, level)
TABLE = {
    ("gpu_ok", True): (True, "ok"),
    ("gpu_ok", False): (True, "ok"),
    ("gpu_ok", None): (True, "ok"),
    ("gpu_slow", True): (True, "warning"),
    ("gpu_slow", False): (True, "warning"),
    ("gpu_slow", None): (True, "warning"),
    ("cpu_only", True): (False, "warning"),
    ("cpu_only", False): (True, "ok"),
    ("cpu_only", None): (False, "warning"),
    ("broken", True): (False, "error"),
    ("broken", False): (False, "error"),
    ("broken", None): (False, "error"),
    ("from_a_newer_wizard", True): (False, "warning"),
    ("from_a_newer_wizard", False): (False, "warning"),
    ("from_a_newer_wizard", None): (False, "warning"),
}


def test_the_table_covers_every_verdict_and_every_answer_about_the_gpu():
    assert {verdict for verdict, _ in TABLE} == {*VERDICTS, "from_a_newer_wizard"}
    assert len(TABLE) == (len(VERDICTS) + 1) * 3


@pytest.mark.parametrize(("verdict", "has_gpu"), TABLE, ids=str)
def test_the_pass_rule(verdict: str, has_gpu: bool | None):
    assert passed(verdict, has_gpu) is TABLE[verdict, has_gpu][0]


@pytest.mark.parametrize(("verdict", "has_gpu"), TABLE, ids=str)
def test_the_level(verdict: str, has_gpu: bool | None):
    assert level(verdict, has_gpu) == TABLE[verdict, has_gpu][1]


def test_on_gpu():
    assert [on_gpu(verdict) for verdict in VERDICTS] == [True, True, False, False]
    assert on_gpu("from_a_newer_wizard") is False


def test_the_verdicts_in_order():
    assert VERDICTS == ("gpu_ok", "gpu_slow", "cpu_only", "broken")
    assert set(WORDS) == {*VERDICTS, CANCELLED}


def test_a_cancelled_test_has_no_verdict_and_never_passes():
    # Issue 20: a stopped test is not "broken"; it says nothing about the environment.
    assert CANCELLED == "cancelled" and CANCELLED not in VERDICTS
    assert [passed(CANCELLED, gpu) for gpu in (True, False, None)] == [False, False, False]
    assert level(CANCELLED, True) == "warning" and not on_gpu(CANCELLED)
    assert headline(CANCELLED) == "The test was stopped before it finished: no verdict."
    assert "broken" not in phrase(CANCELLED) and "does not work" not in headline(CANCELLED)


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ("gpu_ok", "the GPU trains, clearly faster than the CPU"),
        ("gpu_slow", "the GPU trains, but not clearly faster than the CPU"),
        ("cpu_only", "training works on the CPU only"),
        ("broken", "training does not work in this environment"),
    ],
)
def test_phrase(verdict: str, expected: str):
    words = phrase(verdict)
    assert words == expected
    assert isinstance(words, TranslatableText)
    assert (words.context, words.template, dict(words.params)) == ("verdicts", expected, {})


def test_an_unknown_verdicts_phrase_is_the_verdict_itself():
    words = phrase("from_a_newer_wizard")
    assert words == "from_a_newer_wizard"
    assert words.context == "verdicts"
    assert (words.template, dict(words.params)) == ("{v}", {"v": "from_a_newer_wizard"})


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ("gpu_ok", "Your GPU trains."),
        ("gpu_slow", "Your GPU trains, but not clearly faster than the CPU."),
        ("cpu_only", "Training works on the CPU only."),
        ("broken", "Training does not work in this environment."),
    ],
)
def test_headline_without_a_speedup(verdict: str, expected: str):
    words = headline(verdict)
    assert words == expected
    assert (words.context, words.template, dict(words.params)) == ("verdicts", expected, {})


@pytest.mark.parametrize(
    ("verdict", "expected"),
    [
        ("gpu_ok", "Your GPU trains, 54.7× faster than the CPU."),
        ("gpu_slow", "Your GPU trains, but only 1.8× faster than the CPU."),
    ],
)
def test_headline_with_a_speedup(verdict: str, expected: str):
    speedup = "54.7" if verdict == "gpu_ok" else "1.8"
    words = headline(verdict, speedup)
    assert words == expected
    assert words.context == "verdicts"
    assert "{speedup}" in words.template
    assert dict(words.params) == {"speedup": speedup}


@pytest.mark.parametrize("verdict", ["cpu_only", "broken"])
def test_a_speedup_is_not_said_where_the_gpu_did_not_train(verdict: str):
    assert headline(verdict, "12.0") == headline(verdict)
    assert "12.0" not in headline(verdict, "12.0")


def test_an_unknown_verdicts_headline_says_it_does_not_work():
    assert headline("from_a_newer_wizard") == "Training does not work in this environment."
    assert headline("from_a_newer_wizard", "9.9") == "Training does not work in this environment."


def _marked_templates(module: ModuleType, context: str) -> set[str]:
    """The literal texts of ``QT_TRANSLATE_NOOP(context, "...")`` calls in ``module``'s source."""
    found = set()
    for node in ast.walk(ast.parse(inspect.getsource(module))):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "QT_TRANSLATE_NOOP":
            where, text = node.args
            assert isinstance(where, ast.Constant) and isinstance(text, ast.Constant)
            if where.value == context:
                found.add(text.value)
    return found


def test_every_template_is_marked_in_the_verdicts_context():
    marked = _marked_templates(verdicts, "verdicts")
    templates = {
        template
        for words in WORDS.values()
        for template in (words.phrase, words.headline, words.headline_speedup)
        if template is not None
    }
    assert templates == marked
    assert len(marked) == 12
    shown = [phrase(verdict) for verdict in VERDICTS]
    shown += [headline(verdict) for verdict in VERDICTS]
    shown += [headline(verdict, "5.0") for verdict in VERDICTS]
    for text in shown:
        assert isinstance(text, TranslatableText)
        assert text.context == "verdicts"
        assert text.template in marked
        assert text.template.format(**text.params) == text
