"""Redaction of support reports: examples for every rule, and properties checked by hypothesis."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gpuwizard.core.support.redaction import (
    GENERIC_ACCOUNTS,
    Identities,
    identities_in,
    merged,
    redact,
    redact_text,
)

ANA = Identities(
    user_names=("ana",),
    home_folders=("/home/ana", "C:\\Users\\Ana"),
    host_names=("ana-laptop", "ana-laptop.example.org"),
)
UUID = "GPU-8f6c1a2b-4d3e-11ee-be56-0242ac120002"
OTHER_UUID = "GPU-00000000-1111-2222-3333-444455556666"
UUID_PATTERN = re.compile(r"(?:GPU|MIG)-[0-9a-f]{8}", re.IGNORECASE)


def text(value: str, who: Identities = ANA) -> str:
    return redact_text(value, who).text


# --- home folders ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("/home/ana/envs/demo/bin/python", "~/envs/demo/bin/python"),
        ("/home/ana", "~"),
        ("PATH=/usr/bin:/home/ana/.local/bin:/bin", "PATH=/usr/bin:~/.local/bin:/bin"),
        ("file:///home/ana/report.html", "file://~/report.html"),
        ("'/home/ana/x'", "'~/x'"),
        ("C:\\Users\\Ana\\envs\\demo", "%USERPROFILE%\\envs\\demo"),
        ("c:\\users\\ANA\\x", "%USERPROFILE%\\x"),  # Windows compares paths without case
        ("C:/Users/Ana/x", "%USERPROFILE%/x"),
        ("C:\\\\Users\\\\Ana\\\\x", "%USERPROFILE%\\\\x"),  # a Python repr doubles backslashes
        ("file:///C:/Users/Ana/x", "file:///%USERPROFILE%/x"),
        ("%SystemRoot%;C:\\Users\\Ana;D:\\tools", "%SystemRoot%;%USERPROFILE%;D:\\tools"),
    ],
)
def test_home_folders_become_tilde_or_userprofile(before: str, after: str):
    assert text(before) == after


def test_a_home_with_a_space_is_hidden_whole_also_percent_encoded_in_a_url():
    who = Identities(user_names=("Ana Maria",), home_folders=("C:\\Users\\Ana Maria",))
    assert text("C:\\Users\\Ana Maria\\x", who) == "%USERPROFILE%\\x"
    assert text("file:///C:/Users/Ana%20Maria/x", who) == "file:///%USERPROFILE%/x"
    assert text("D:\\Backup\\Ana Maria\\x", who) == "D:\\Backup\\<user>\\x"


def test_a_longer_folder_that_starts_like_the_home_is_not_the_home():
    assert text("/home/anabel/x") == "/home/anabel/x"
    assert text("C:\\Users\\Anabel\\x") == "C:\\Users\\Anabel\\x"
    # Not at the start of a path: not the home, but the user's name is still a folder name there.
    assert text("/srv/home/ana/x") == "/srv/home/<user>/x"


# --- user and host names --------------------------------------------------------------------


def test_the_user_name_goes_as_a_folder_name_and_as_a_word():
    assert text("/mnt/c/Users/ana/x") == "/mnt/c/Users/<user>/x"
    assert text("D:\\data\\ANA\\x") == "D:\\data\\<user>\\x"
    assert text("made by ana on monday") == "made by <user> on monday"
    assert text("USER=ana") == "USER=<user>"
    # inside another word it stays: "banana", "analysis"
    assert text("banana analysis") == "banana analysis"


@pytest.mark.parametrize("short", ["a", "Al"])
def test_a_short_user_name_is_hidden_only_as_a_folder_name(short: str):
    who = Identities(user_names=(short,))
    sentence = f"{short} GPU named data, a cat and Al's laptop"
    assert text(sentence, who) == sentence
    assert text(f"/tmp/{short}/x and C:\\{short}\\y", who) == "/tmp/<user>/x and C:\\<user>\\y"


def test_a_generic_account_name_is_not_hidden_in_sentences():
    who = Identities(user_names=("root",), home_folders=("/root",))
    assert "root" in GENERIC_ACCOUNTS
    assert text("the root of the toolkit; /root/envs/x", who) == "the root of the toolkit; ~/envs/x"


def test_the_host_name_is_hidden_before_the_user_name_inside_it():
    assert text("ssh ana-laptop") == "ssh <host>"
    assert text("ANA-LAPTOP.example.org") == "<host>"


# --- UUIDs, serial numbers, URL credentials -------------------------------------------------


def test_gpu_uuids_are_numbered_the_same_uuid_alike():
    redacted = text(f"{UUID},{OTHER_UUID} and again {UUID.upper()}")
    assert redacted == "GPU-<uuid-1>,GPU-<uuid-2> and again GPU-<uuid-1>"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("CUDA_VISIBLE_DEVICES=GPU-8f6c1a2b", "CUDA_VISIBLE_DEVICES=GPU-<uuid-1>"),  # a leading part
        ("MIG-8f6c1a2b-4d3e-11ee-be56-0242ac120002", "MIG-<uuid-1>"),  # R470 and later
        ("MIG-GPU-8f6c1a2b-4d3e-11ee-be56-0242ac120002/1/0", "MIG-<uuid-1>"),  # before R470
        ("GPU-accelerated GPU-decade GPU-deadbeef1", "GPU-accelerated GPU-decade GPU-deadbeef1"),
    ],
)
def test_uuid_forms(before: str, after: str):
    assert text(before) == after


def test_serial_numbers_in_fields_and_in_text():
    data = {"gpus": [{"name": "A100", "serial": "1324020012345", "board_serial_number": 77}]}
    result = redact(data, ANA)
    assert result.data == {
        "gpus": [{"name": "A100", "serial": "<serial>", "board_serial_number": "<serial>"}]
    }
    assert result.counts["serial_number"] == 2
    assert text("    Serial Number                         : 1324020012345") == (
        "    Serial Number                         : <serial>"
    )
    assert text("serial: N/A") == "serial: N/A"


def test_uuid_fields_lose_their_value_whatever_it_looks_like():
    result = redact({"uuid": "not-a-uuid", "gpu_uuid": UUID}, Identities())
    assert result.data == {"uuid": "GPU-<uuid-1>", "gpu_uuid": "GPU-<uuid-2>"}


def test_logins_in_urls():
    assert text("--index-url https://ana:s3cret@pypi.example/simple") == (
        "--index-url https://<credentials>@pypi.example/simple"
    )
    assert text("https://pypi.org/simple") == "https://pypi.org/simple"


# --- whole values -----------------------------------------------------------------------------


def test_every_string_and_key_of_a_value_is_redacted_and_the_input_is_kept():
    data = {
        "/home/ana/envs/x": {"python": "/home/ana/envs/x/bin/python", "n": 3, "ok": True, "none": None},
        "list": ["C:\\Users\\Ana\\y", UUID, 1.5],
    }
    before = copy.deepcopy(data)
    result = redact(data, ANA)
    assert data == before
    assert result.data == {
        "~/envs/x": {"python": "~/envs/x/bin/python", "n": 3, "ok": True, "none": None},
        "list": ["%USERPROFILE%\\y", "GPU-<uuid-1>", 1.5],
    }
    assert result.counts == {
        "gpu_uuid": 1,
        "serial_number": 0,
        "home_folder": 3,
        "user_name": 0,
        "host_name": 0,
        "url_credentials": 0,
    }
    assert any("%USERPROFILE%" in rule for rule in result.rules)


def test_identities_in_finds_any_accounts_home():
    found = identities_in(
        {
            "python": "C:\\Users\\Bo Li\\AppData\\python.exe",
            "public": "C:\\Users\\Public\\x",
            "env": ["/home/cy/envs/x", "/Users/dee/x", "/mnt/c/Users/eve/x", "/srv/home/nope/x"],
        }
    )
    assert found.user_names == ("Bo Li", "cy", "dee", "eve")
    assert found.home_folders == ("C:\\Users\\Bo Li", "/home/cy", "/Users/dee", "/mnt/c/Users/eve")
    both = merged(ANA, found)
    assert both.user_names[:2] == ("ana", "Bo Li") and both.host_names == ANA.host_names


# --- properties -------------------------------------------------------------------------------

_PLACEHOLDER_WORDS = "<user> <host> <serial> <credentials> GPU-<uuid-1> MIG- %USERPROFILE% ~"
_names = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", min_size=3, max_size=12
)
_filler = st.sampled_from(
    ["envs", "bin", "python.exe", "x y", "ünï", "data", "CUDA", "v12.1", "a", ";", ":", " ", "\\", "/", "'"]
)
_hex = st.text(alphabet="0123456789abcdef", min_size=1, max_size=1)


@st.composite
def _identity_and_text(draw: st.DrawFn) -> tuple[str, Identities, str]:
    name = draw(_names)
    assume(name[0].isalnum() and name[-1].isalnum())
    assume(name.casefold() not in _PLACEHOLDER_WORDS.casefold() and name.casefold() not in GENERIC_ACCOUNTS)
    uuid = "GPU-" + "-".join("".join(draw(_hex) for _ in range(n)) for n in (8, 4, 4, 4, 12))
    homes = (f"/home/{name}", f"C:\\Users\\{name}")
    spellings = [
        f"/home/{name}", f"/home/{name}/envs/x", f"C:\\Users\\{name}", f"C:\\Users\\{name}\\AppData",
        f"c:/users/{name.upper()}/x", f"C:\\\\Users\\\\{name}\\\\x", f"file:///home/{name}/r.html",
        f"file:///C:/Users/{name}/r.html", f"/mnt/d/{name}", f"D:\\{name.lower()}\\x", f"by {name}.",
        uuid, uuid[:12],
    ]  # fmt: skip
    parts = draw(st.lists(st.one_of(st.sampled_from(spellings), _filler), min_size=1, max_size=14))
    separators = draw(
        st.lists(
            st.sampled_from([";", " ", ":", "\n", "'", '"', ","]), min_size=len(parts), max_size=len(parts)
        )
    )
    joined = "".join(part + separator for part, separator in zip(parts, separators, strict=True))
    return name, Identities(user_names=(name,), home_folders=homes), joined


@settings(max_examples=300, deadline=None)
@given(_identity_and_text())
def test_nothing_identifying_survives(case: tuple[str, Identities, str]):
    name, who, original = case
    redacted = text(original, who)
    # nowhere as a folder name or a word of its own (inside a longer word it may stay)
    word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", re.IGNORECASE)
    folder = re.compile(rf"[\\/]{re.escape(name)}(?=[\\/\s;:'\"]|$)", re.IGNORECASE)
    assert not word.search(redacted.replace("<user>", "")), redacted
    assert not folder.search(redacted), redacted
    assert not re.search(r"GPU-[0-9a-f]{8}", redacted), redacted


@settings(max_examples=300, deadline=None)
@given(_identity_and_text(), st.text(max_size=40))
def test_redacting_twice_changes_nothing_more(case: tuple[str, Identities, str], noise: str):
    _name, who, original = case
    once = text(original + noise, who)
    assert text(once, who) == once


@settings(max_examples=300, deadline=None)
@given(
    st.text(alphabet="abcdefgh", min_size=3, max_size=8),
    st.text(alphabet="xyz0123456789 /\\.;-_", max_size=60),
)
def test_text_without_any_identity_is_unchanged(name: str, original: str):
    # The text cannot hold the name (no letter of it), "GPU-", "serial", nor "scheme://".
    who = Identities(
        user_names=(name,), home_folders=(f"/home/{name}", f"C:\\Users\\{name}"), host_names=(name,)
    )
    result = redact_text(original, who)
    assert result.text == original
    assert not any(result.counts.values())


@settings(max_examples=200, deadline=None)
@given(
    st.text(alphabet="ab", min_size=1, max_size=2),
    st.lists(st.sampled_from(["a", "b", "ab", "ba", "cab"]), max_size=8),
)
def test_a_short_name_never_changes_words(name: str, words: list[str]):
    sentence = " ".join(words)
    assert text(sentence, Identities(user_names=(name,))) == sentence
