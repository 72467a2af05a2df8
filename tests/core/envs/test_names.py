"""Environment names: what is refused (exit 2 material) and what passes unchanged."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.envs.names import EnvNameError, check_env_name


@pytest.mark.parametrize(
    "name",
    [
        "",
        "   ",
        "../x",
        "..",
        ".hidden",
        "a/b",
        "a\\b",
        "/abs",
        "C:\\envs\\x",
        "con",
        "CON",
        "nul.txt",
        "Com1",
        "lpt9.env",
        "aux ",
        "demo.",
        "demo ",
        " demo",
        "a:b",
        "a|b",
        "a*b",
        'a"b',
        "a<b",
        "tab\tname",
        "x" * 65,
        "---",
    ],
)
def test_refused(name: str):
    with pytest.raises(EnvNameError):
        check_env_name(name)


@pytest.mark.parametrize(
    "name", ["demo", "torch-2.13", "tf_2.10", "my env", "Ünïcode", "console", "con2", "a" * 64]
)
def test_accepted_unchanged(name: str):
    assert check_env_name(name) == name


def test_conda_names_cannot_hold_spaces_but_venv_names_can():
    assert check_env_name("my env", manager="venv") == "my env"
    with pytest.raises(EnvNameError, match="spaces"):
        check_env_name("my env", manager="conda")


def test_messages_are_one_line():
    for bad in ("", "../x", "con", "a\nb"):
        with pytest.raises(EnvNameError) as caught:
            check_env_name(bad)
        assert "\n" not in str(caught.value)


@given(st.text(max_size=80))
def test_any_accepted_name_is_one_plain_folder_name(name: str):
    try:
        check_env_name(name)
    except EnvNameError:
        return
    assert "/" not in name and "\\" not in name and name not in {".", ".."}
    assert not name.startswith(".") and name == name.strip()
    assert name.split(".", maxsplit=1)[0].lower() not in {"con", "prn", "aux", "nul"}
