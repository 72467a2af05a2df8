"""Answer files are checked as a whole before ``gpuwizard apply`` changes anything."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.fleet.answers import KNOWN_KEYS, AnswersError, parse_answers


def test_a_full_answer_file_is_read_as_written() -> None:
    answers = parse_answers(
        {
            "schema": "gpuwizard.answers/1",
            "framework": "tensorflow-gpu",
            "version": "2.10",
            "python": "3.10",
            "manager": "venv",
            "tool": "pip",
            "environment": "lab tf",
            "prefix": "D:/envs/lab",
            "gpus": [0, 2],
            "path_scope": "system",
            "other_cuda": "end",
            "find_links": "/srv/wheels",
            "offline": True,
            "jupyter": True,
            "replace": True,
            "test": False,
            "require_gpu": True,
        }
    )
    request = answers.request
    assert request.wish.framework == "tensorflow"  # the legacy name is mapped, as recommend does
    assert (request.wish.version, request.wish.python, request.wanted_manager) == ("2.10", "3.10", "venv")
    assert (request.name, request.tool, request.prefix) == ("lab tf", "pip", Path("D:/envs/lab"))
    assert (request.gpus, answers.path_scope, answers.other_cuda) == ("0,2", "system", "end")
    assert (request.find_links, request.offline, request.jupyter, request.replace) == (
        Path("/srv/wheels"),
        True,
        True,
        True,
    )
    assert (answers.test, answers.require_gpu) == (False, True)


def test_defaults_are_the_wizards() -> None:
    answers = parse_answers({"framework": "pytorch"})
    assert answers.request.name == "gpu"
    assert answers.request.wanted_manager is None  # the plan's
    assert (answers.path_scope, answers.other_cuda, answers.request.gpus) == ("user", "keep", None)
    assert answers.test is True
    assert answers.require_gpu is False


@pytest.mark.parametrize(
    ("gpus", "expected"),
    [
        ("all", None),
        ("0,1", "0,1"),
        ([1], "1"),
        (["GPU-8f6c1a2b-0000-1111-2222-333344445555"], "GPU-8f6c1a2b-0000-1111-2222-333344445555"),
    ],
)
def test_gpus_take_the_forms_admins_write(gpus: Any, expected: str | None) -> None:
    assert parse_answers({"framework": "pytorch", "gpus": gpus}).request.gpus == expected


def test_a_conda_tool_implies_a_conda_environment() -> None:
    assert parse_answers({"framework": "pytorch", "tool": "micromamba"}).request.wanted_manager == "conda"


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "one table of keys"),
        ({}, "'framework' is missing"),
        ({"framework": "caffe"}, "unknown framework 'caffe'"),
        ({"framework": "pytorch", "framwork": "x"}, "did you mean 'framework'"),
        ({"framework": "pytorch", "zzz": 1}, "known keys:"),
        ({"framework": "tensorflow", "version": 2.10}, "must be text in quotes"),
        ({"framework": "pytorch", "python": 3.11}, "must be text in quotes"),
        ({"framework": "pytorch", "version": "two"}, "not a framework version"),
        ({"framework": "pytorch", "manager": "pipenv"}, "unknown environment manager"),
        ({"framework": "pytorch", "tool": "poetry"}, "tool 'poetry' is not one of"),
        ({"framework": "pytorch", "manager": "venv", "tool": "conda"}, "does not make venv"),
        ({"framework": "pytorch", "environment": "../x"}, ""),
        ({"framework": "pytorch", "environment": "my env", "manager": "conda"}, ""),
        ({"framework": "pytorch", "gpus": "first"}, "not a GPU selection"),
        ({"framework": "pytorch", "gpus": [0, 0]}, "names a GPU twice"),
        ({"framework": "pytorch", "gpus": True}, "'gpus' must be"),
        (
            {"framework": "pytorch", "path_scope": "machine"},
            "path_scope 'machine' is not one of user, system, none",
        ),
        ({"framework": "pytorch", "other_cuda": "drop"}, "other_cuda 'drop'"),
        ({"framework": "pytorch", "offline": True}, "needs 'find_links'"),
        ({"framework": "pytorch", "offline": "yes"}, "must be true or false"),
        ({"framework": "pytorch", "schema": "gpuwizard.answers/2"}, "is not 'gpuwizard.answers/1'"),
        ({"framework": "pytorch", "environment": ""}, "must be non-empty text"),
    ],
)
def test_each_problem_is_named_in_one_line(data: Any, message: str) -> None:
    with pytest.raises(AnswersError) as raised:
        parse_answers(data)
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


@given(st.text(min_size=1, max_size=20).filter(lambda key: key not in KNOWN_KEYS))
def test_any_unknown_key_is_refused(key: str) -> None:
    with pytest.raises(AnswersError, match="unknown key"):
        parse_answers({"framework": "pytorch", key: "x"})
