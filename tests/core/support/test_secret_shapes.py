"""A generated corpus of secrets as their owners document them, in the places they turn up.

Each shape of ``builders/secret_shapes.py`` is built by hypothesis, put where a machine holds
it (a variable's value, a URL, a command line, a config or YAML line, a JSON string, a
sentence), and redacted: no character run of the secret survives, and a second redaction
changes nothing and counts nothing. A shape is written from its documentation, not from the
redactor's patterns, so a format the redactor does not know fails here.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from builders.secret_shapes import CONTEXTS, SHAPES, Built, shape_strategy
from gpuwizard.core.support.redaction import Identities, redact, redact_text
from harness.hypothesis_examples import examples

TOKENS = [shape for shape in SHAPES if shape.token]
STRUCTURES = [shape for shape in SHAPES if not shape.token]
WHO = Identities(user_names=("ana",), home_folders=("/home/ana",), host_names=("ana-laptop",))


def _assert_hidden(text: str, secret: str) -> None:
    once = redact_text(text, WHO)
    assert secret not in once.text, (text, once.text)
    # Not a long run of it either (a format cut short would leave its tail).
    tail = secret[len(secret) // 2 :]
    assert len(tail) < 8 or tail not in once.text, (text, once.text)
    assert any(once.counts.values()), once.counts
    twice = redact_text(once.text, WHO)
    assert twice.text == once.text
    assert not any(twice.counts.values()), twice.counts


@pytest.mark.parametrize("shape", TOKENS, ids=[shape.name for shape in TOKENS])
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_every_token_shape_is_hidden_in_every_context(shape, data: st.DataObject):
    built: Built = data.draw(shape_strategy(shape))
    context = data.draw(st.sampled_from(sorted(CONTEXTS)))
    _assert_hidden(CONTEXTS[context](built.text), built.secret)


@pytest.mark.parametrize("shape", STRUCTURES, ids=[shape.name for shape in STRUCTURES])
@settings(max_examples=examples(25), deadline=None)
@given(data=st.data())
def test_every_structure_that_holds_a_secret_is_hidden(shape, data: st.DataObject):
    built: Built = data.draw(shape_strategy(shape))
    before = data.draw(st.sampled_from(["", "see: ", "PIP_FIND_LINKS=", "  ", "[global]\n"]))
    after = data.draw(st.sampled_from(["", "\n", " and more", "\nCollecting torch==2.13.0+cu126"]))
    _assert_hidden(before + built.text + after, built.secret)


@settings(max_examples=examples(50), deadline=None)
@given(st.lists(st.one_of(*(shape_strategy(shape) for shape in SHAPES)), min_size=1, max_size=6))
def test_several_secrets_in_one_log_and_in_data_are_all_hidden(found: list[Built]):
    log = "\n".join(built.text for built in found)
    data = {"log": log, "variables": {f"VAR_{n}": built.text for n, built in enumerate(found)}}
    result = redact(data, WHO)
    flat = repr(result.data)
    for built in found:
        assert built.secret not in flat, built
    again = redact(result.data, WHO)
    assert again.data == result.data and not any(again.counts.values())
