"""The PATH algebra: examples for every rule, and properties checked by hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from gpuwizard.core.pathedit.algebra import (
    DUPLICATE,
    EMPTY,
    ENV_VALUE_MAX_CHARS,
    OTHER_CUDA_FIRST,
    JoinedPathTooLong,
    PathEditError,
    PathTooLong,
    UnbalancedQuote,
    add_entries,
    check_joined_length,
    check_quotes,
    cuda_version_of,
    diff_entries,
    entry_key,
    entry_problems,
    has_variable_references,
    joined_length,
    move_entry,
    remove_entries,
    split_segments,
)
from harness.hypothesis_examples import examples

CUDA = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA"
V112_BIN, V112_NVVP = rf"{CUDA}\v11.2\bin", rf"{CUDA}\v11.2\libnvvp"
V121_BIN, V121_NVVP = rf"{CUDA}\v12.1\bin", rf"{CUDA}\v12.1\libnvvp"
CUDNN_TOOLS = r"C:\tools\cuda\bin"

# --- strategies -----------------------------------------------------------------------------

_names = st.sampled_from(
    ["bin", "Tools", "python311", "Scripts", "x y", "ünï", "CUDA", "v11.2", "v12.1", "libnvvp"]
)
_roots = st.sampled_from(["C:\\", "c:/", "D:\\", "%USERPROFILE%\\", "%SystemRoot%\\", "\\\\srv\\share\\"])
_folders = st.builds(
    lambda root, parts, slash: root + "\\".join(parts) + slash,
    _roots,
    st.lists(_names, min_size=0, max_size=3),
    st.sampled_from(["", "\\", "/"]),
).filter(lambda f: f.strip() not in {"", "%USERPROFILE%\\", "%SystemRoot%\\"} or True)
_cuda_folders = st.builds(
    lambda version, sub: rf"{CUDA}\v{version}\{sub}",
    st.sampled_from(["10.2", "11.2", "11.8", "12.1"]),
    st.sampled_from(["bin", "libnvvp"]),
)
_segment = st.one_of(
    _folders,
    _cuda_folders,
    st.just(""),
    st.just(" "),
    _folders.map(lambda f: f'"{f}"'),
    st.just('"C:\\odd;name"'),
)
_values = st.lists(_segment, max_size=12).map(";".join)
_wanted = st.lists(st.one_of(_folders, _cuda_folders), min_size=1, max_size=3)
_other_cuda = st.sampled_from(["keep", "end", "remove"])


def _segments(value: str) -> list[str]:
    # An empty PATH has no entries (not one empty one).
    return split_segments(value) if value else []


def _keys(value: str) -> list[str]:
    return [k for k in (entry_key(s) for s in split_segments(value)) if k]


# --- parsing --------------------------------------------------------------------------------


@given(st.text(alphabet='ab;"% \\:C', max_size=40))
def test_segments_join_back_to_the_value_byte_for_byte(value: str):
    assert ";".join(split_segments(value)) == value


def test_a_semicolon_inside_quotes_stays_in_its_entry():
    assert split_segments(r'C:\a;"C:\b;c";%X%\d\;;') == [r"C:\a", r'"C:\b;c"', r"%X%\d\\"[:-1], "", ""]


@pytest.mark.parametrize(
    ("entry", "version"),
    [
        (V112_BIN, "11.2"),
        (r"c:/program files/nvidia gpu computing toolkit/cuda/v12.1/libnvvp/", "12.1"),
        (r"%CUDA_PATH_V11_8%\bin", "11.8"),
        (r"C:\Program Files\NVIDIA\CUDNN\v9.7\bin\12.8", "12.8"),
        (r"D:\cuda-11.2\bin", "11.2"),
        (r"C:\tools\cuda\bin", None),
        (r"%CUDA_PATH%\bin", None),
        (r"C:\Windows\System32", None),
    ],
)
def test_cuda_versions_of_entries(entry: str, version: str | None):
    assert cuda_version_of(entry) == version


def test_an_expanded_variable_gives_the_version_when_the_environment_is_known():
    assert cuda_version_of(r"%CUDA_PATH%\bin", {"CUDA_PATH": rf"{CUDA}\v12.1"}) == "12.1"


# --- add ------------------------------------------------------------------------------------


def test_add_keeps_variables_quotes_and_empty_segments_of_other_entries():
    value = r'%USERPROFILE%\bin;;"C:\My Tools";C:\x\\'
    edit = add_entries(value, [V112_BIN])
    assert edit.value == value + ";" + V112_BIN
    assert edit.added == (V112_BIN,)


def test_add_goes_before_a_trailing_separator():
    assert add_entries(r"C:\a;", [r"C:\b"]).value == r"C:\a;C:\b;"


def test_add_to_an_empty_path():
    assert add_entries("", [r"C:\b"]).value == r"C:\b"


def test_cuda_entries_go_before_another_versions_entries():
    value = rf"C:\Windows;{V121_BIN};{V121_NVVP};C:\tools"
    edit = add_entries(value, [V112_BIN, V112_NVVP, CUDNN_TOOLS])
    assert split_segments(edit.value) == [
        r"C:\Windows",
        V112_BIN,
        V112_NVVP,
        CUDNN_TOOLS,
        V121_BIN,
        V121_NVVP,
        r"C:\tools",
    ]


def test_cuda_entries_already_present_after_another_version_move_in_front_of_it():
    value = rf"{V121_BIN};C:\a;{V112_BIN};{CUDNN_TOOLS}"
    edit = add_entries(value, [V112_BIN, CUDNN_TOOLS])
    assert split_segments(edit.value) == [V112_BIN, CUDNN_TOOLS, V121_BIN, r"C:\a"]
    assert edit.moved == (V112_BIN, CUDNN_TOOLS)
    assert edit.added == ()


def test_other_cuda_versions_can_be_moved_to_the_end_or_removed():
    value = rf"{V121_BIN};C:\a;{V121_NVVP};C:\b;"
    assert split_segments(add_entries(value, [V112_BIN], other_cuda="end").value) == [
        r"C:\a",
        r"C:\b",
        V112_BIN,
        V121_BIN,
        V121_NVVP,
        "",
    ]
    removed = add_entries(value, [V112_BIN], other_cuda="remove")
    assert split_segments(removed.value) == [r"C:\a", r"C:\b", V112_BIN, ""]
    assert removed.removed == (V121_BIN, V121_NVVP)


def test_non_cuda_adds_never_move_cuda_entries():
    value = rf"{V121_BIN};C:\a"
    assert add_entries(value, [r"C:\b"], other_cuda="remove").value == rf"{V121_BIN};C:\a;C:\b"


@pytest.mark.parametrize("bad", ["", "  ", "relative\\dir", r"C:\a;C:\b", 'C:\\"q"', "C:\\a\nb", "bin"])
def test_bad_folders_are_refused(bad: str):
    with pytest.raises(PathEditError):
        add_entries(r"C:\a", [bad])


def test_a_value_over_the_limit_is_refused_not_cut():
    long_value = "C:\\" + "x" * (ENV_VALUE_MAX_CHARS - 10)
    with pytest.raises(PathTooLong) as raised:
        add_entries(long_value, [r"C:\another\folder"])
    assert raised.value.length > ENV_VALUE_MAX_CHARS
    assert "nothing was changed" in str(raised.value)


def test_an_add_that_changes_nothing_is_allowed_on_a_value_already_over_the_limit():
    long_value = "C:\\" + "x" * ENV_VALUE_MAX_CHARS
    assert not add_entries(long_value, [long_value]).changed


def _over_the_limit() -> str:
    return ";".join(rf"C:\folder{i:05d}\{'x' * 40}" for i in range(800))  # 40,000 characters


def test_a_value_over_the_limit_can_always_be_shrunk():
    # issue 19, point 9: "remove entries first" must be possible.
    value = _over_the_limit()
    assert len(value) > ENV_VALUE_MAX_CHARS
    first = value.split(";")[0]
    removed = remove_entries(value, [first])
    assert removed.changed and len(removed.value) < len(value)
    moved = move_entry(value + ";" + first, first, -1)  # a move that drops a duplicate
    assert len(moved.value) < len(value) + len(first) + 1
    with pytest.raises(PathTooLong):
        add_entries(value, [r"C:\one\more"])


@settings(max_examples=examples(100))
@given(_values, _wanted, st.integers(min_value=0, max_value=40_000))
def test_a_remove_never_fails_for_length(value: str, wanted: list[str], padding: int):
    padded = value + ";C:\\" + "p" * padding
    edit = remove_entries(padded, wanted)
    assert len(edit.value) <= len(padded)


@pytest.mark.parametrize(
    ("value", "index"), [(r'C:\a;"C:\b', 1), (r'"C:\a;C:\b', 0), (r'C:\a;C:\b";C:\c;C:\d', 1)]
)
def test_a_quote_never_closed_is_refused_for_every_edit(value: str, index: int):
    # issue 19, point 8: after it, an added entry would land inside the quote.
    with pytest.raises(UnbalancedQuote) as raised:
        check_quotes(value)
    assert raised.value.index == index
    assert "\n" not in str(raised.value)
    for edit in (
        lambda: add_entries(value, [r"C:\new"]),
        lambda: remove_entries(value, [r"C:\a"]),
        lambda: move_entry(value, r"C:\a", -1),
    ):
        with pytest.raises(UnbalancedQuote):
            edit()


def test_closed_quotes_are_fine():
    check_quotes(r'C:\a;"C:\b;c";"C:\d"')
    assert add_entries(r'"C:\b;c"', [r"C:\new"]).value == r'"C:\b;c";C:\new'


def test_the_joined_length_is_system_then_user():
    assert joined_length(r"C:\s", r"C:\u") == len(r"C:\s;C:\u")
    assert joined_length("", r"C:\u") == len(r"C:\u")
    assert joined_length(r"C:\s", "") == len(r"C:\s")


def test_the_joined_limit_refuses_growth_past_it_and_never_shrinking():
    # issue 19, point 11: a user PATH of 30,007 and a system PATH of 30,000 characters each fit;
    # joined into the one PATH variable a program gets, they do not.
    system, user = "s" * 30_000, "u" * 30_007
    check_joined_length("s" * 1_000, "u" * 1_000, before=0)
    with pytest.raises(JoinedPathTooLong) as raised:
        check_joined_length(system, user + ";C:\\x", before=joined_length(system, user))
    assert raised.value.length == 30_000 + 1 + 30_007 + 5
    assert isinstance(raised.value, PathTooLong)
    check_joined_length(system, user[:-10], before=joined_length(system, user))  # shorter: allowed
    check_joined_length(system, user, before=joined_length(system, user))  # unchanged: allowed


@settings(max_examples=examples(300))
@given(_values, _wanted, _other_cuda)
@example(rf"{V121_BIN};{V112_BIN};{V112_BIN}", [V112_BIN], "keep")
def test_add_is_idempotent(value: str, wanted: list[str], other_cuda):
    once = add_entries(value, wanted, other_cuda=other_cuda)
    twice = add_entries(once.value, wanted, other_cuda=other_cuda)
    assert twice.value == once.value
    assert not twice.changed


@settings(max_examples=examples(300))
@given(_values, _wanted)
def test_add_loses_no_entry_and_keeps_every_segment_text(value: str, wanted: list[str]):
    edit = add_entries(value, wanted)
    old, new = _segments(value), _segments(edit.value)
    # Every segment of the old value is still there, letter for letter, as often as before.
    for segment in set(old):
        assert new.count(segment) >= old.count(segment)
    # And every wanted folder is there exactly in the requested spelling or an existing one.
    for folder in wanted:
        assert entry_key(folder.strip()) in _keys(edit.value)


@settings(max_examples=examples(200))
@given(_values, _wanted)
def test_cuda_adds_put_the_wanted_version_first(value: str, wanted: list[str]):
    edit = add_entries(value, wanted)
    versions = {cuda_version_of(w) for w in wanted} - {None}
    keys = _keys(edit.value)
    wanted_positions = [keys.index(entry_key(w.strip())) for w in wanted]
    others = [i for i, k in enumerate(keys) if cuda_version_of(k) not in versions | {None}]
    if versions and others:
        assert max(wanted_positions) < min(others)


@settings(max_examples=examples(200))
@given(_values, _wanted, st.integers(min_value=0, max_value=40_000))
def test_results_never_exceed_the_limit(value: str, wanted: list[str], padding: int):
    padded = value + ";C:\\" + "p" * padding
    assume(len(padded) <= ENV_VALUE_MAX_CHARS)
    try:
        edit = add_entries(padded, wanted)
    except PathTooLong:
        return
    assert len(edit.value) <= ENV_VALUE_MAX_CHARS


# --- remove and move ------------------------------------------------------------------------


def test_remove_takes_every_spelling_and_duplicate_and_nothing_else():
    value = rf'C:\a;{V112_BIN};"c:/program files/nvidia gpu computing toolkit/cuda/v11.2/bin/";;C:\b'
    edit = remove_entries(value, [V112_BIN])
    assert edit.value == r"C:\a;;C:\b"
    assert len(edit.removed) == 2


def test_removing_what_is_not_there_changes_nothing():
    edit = remove_entries(r"C:\a", [r"C:\b"])
    assert not edit.changed
    assert edit.unchanged == (r"C:\b",)


@settings(max_examples=examples(200))
@given(_values, _wanted)
def test_remove_after_add_of_new_folders_gives_the_value_back(value: str, wanted: list[str]):
    assume(not set(map(entry_key, wanted)) & set(_keys(value)))
    assume(not any(cuda_version_of(w) for w in wanted))
    added = add_entries(value, wanted)
    assert remove_entries(added.value, wanted).value == value


def test_move_to_the_front_and_drop_later_duplicates():
    edit = move_entry(r"C:\a;C:\b;c:/B/;C:\c", r"C:\b", 0)
    assert edit.value == r"C:\b;C:\a;C:\c"
    assert edit.removed == ("c:/B/",)


def test_move_to_the_end_keeps_a_trailing_separator():
    assert move_entry(r"C:\a;C:\b;", r"C:\a", -1).value == r"C:\b;C:\a;"


def test_moving_a_folder_that_is_not_there_is_an_error():
    with pytest.raises(PathEditError, match="not on PATH"):
        move_entry(r"C:\a", r"C:\b", 0)


# --- diff and problems ----------------------------------------------------------------------


def test_diff_of_a_cuda_add():
    value = rf"C:\Windows;{V121_BIN}"
    new = add_entries(value, [V112_BIN]).value
    assert [(d.op, d.entry) for d in diff_entries(value, new)] == [
        (" ", r"C:\Windows"),
        ("+", V112_BIN),
        (" ", V121_BIN),
    ]


@given(_values, _values)
def test_the_diff_holds_both_values(old: str, new: str):
    lines = diff_entries(old, new)
    assert [d.entry for d in lines if d.op != "+"] == (split_segments(old) if old else [])
    assert [d.entry for d in lines if d.op != "-"] == (split_segments(new) if new else [])


def test_problems_of_entries():
    value = rf"{V121_BIN};C:\a;;c:/A/;{V112_BIN}"
    problems = entry_problems(value, earlier_keys=[entry_key(r"C:\Windows")], missing=[entry_key(r"C:\a")])
    assert [p.problems for p in problems] == [
        (),
        ("missing",),
        (EMPTY,),
        (DUPLICATE, "missing"),
        (OTHER_CUDA_FIRST,),
    ]
    assert problems[4].cuda_version == "11.2"


def test_a_user_entry_repeating_a_system_one_is_a_duplicate():
    problems = entry_problems(r"C:\Windows;C:\mine", earlier_keys=[entry_key(r"c:\windows\\")])
    assert problems[0].problems == (DUPLICATE,)


def test_variable_references():
    assert has_variable_references(r"%SystemRoot%\system32")
    assert not has_variable_references(r"C:\100% sure;C:\x")
