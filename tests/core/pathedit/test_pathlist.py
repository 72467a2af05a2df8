"""PATH splitting and comparison keys, with properties checked by hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.machine.cuda_on_path import toolkit_path_ranks
from gpuwizard.core.pathedit.pathlist import comparison_key, expand_windows_vars, split_path_value

windows_entry = st.text(
    alphabet=st.characters(blacklist_characters=';"\0', blacklist_categories=("Cs",)), min_size=1
).filter(str.strip)
posix_entry = st.text(
    alphabet=st.characters(blacklist_characters=":\0", blacklist_categories=("Cs",)), min_size=1
)


@given(st.lists(windows_entry, max_size=8))
def test_windows_split_inverts_join(entries: list[str]):
    assert split_path_value(";".join(entries), windows=True) == [e.strip() for e in entries]


@given(st.lists(posix_entry, max_size=8))
def test_posix_split_inverts_join(entries: list[str]):
    assert split_path_value(":".join(entries), windows=False) == entries


@given(st.lists(windows_entry, max_size=5))
def test_quoted_entries_may_hold_semicolons(entries: list[str]):
    value = ";".join(f'"{entry};x"' for entry in entries)
    assert split_path_value(value, windows=True) == [f"{entry};x".strip() for entry in entries]


def test_empty_segments_are_dropped():
    assert split_path_value(";;C:\\a;; ;", windows=True) == ["C:\\a"]
    assert split_path_value("::/usr/bin::", windows=False) == ["/usr/bin"]


@given(windows_entry)
def test_comparison_key_is_idempotent(entry: str):
    key = comparison_key(entry, windows=True)
    assert comparison_key(key, windows=True) == key


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("C:\\Program Files\\CUDA\\v11.2\\bin", "c:/program files/cuda/v11.2/bin/"),
        ("C:\\a\\..\\b", "C:\\b"),
        ("C:\\", "c:"),
        ("%SystemRoot%\\system32", "C:\\Windows\\System32"),
    ],
)
def test_windows_spellings_of_one_folder_compare_equal(first: str, second: str):
    env = {"SystemRoot": "C:\\Windows"}
    assert comparison_key(first, windows=True, env=env) == comparison_key(second, windows=True, env=env)


def test_posix_keys_keep_case():
    assert comparison_key("/usr/local/cuda/bin/", windows=False) == "/usr/local/cuda/bin"
    assert comparison_key("/Usr", windows=False) != comparison_key("/usr", windows=False)
    assert comparison_key("/", windows=False) == "/"


def test_unknown_variables_stay_as_windows_leaves_them():
    assert expand_windows_vars("%NOPE%\\bin", {}) == "%NOPE%\\bin"


def test_path_ranks_follow_the_first_appearance_of_bin_or_libnvvp():
    roots = ["/opt/cuda-11.8", "/opt/cuda-12.4", "/opt/cuda-10.2"]
    path = ["/usr/bin", "/opt/cuda-12.4/libnvvp", "/opt/cuda-11.8/bin", "/opt/cuda-12.4/bin"]
    assert toolkit_path_ranks(roots, path, windows=False) == {"/opt/cuda-12.4": 0, "/opt/cuda-11.8": 1}


def test_a_toolkit_root_itself_on_path_does_not_count():
    assert toolkit_path_ranks(["/usr"], ["/usr", "/usr/local/bin"], windows=False) == {}
