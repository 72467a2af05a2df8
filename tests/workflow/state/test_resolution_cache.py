"""The installer's answers of the day: kept under a key, read back the same day only, never a login."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from gpuwizard.core.compat.resolution import Resolution
from gpuwizard.workflow.state.resolution_cache import (
    MAX_ENTRIES,
    cache_path,
    load_resolution,
    resolution_key,
    store_resolution,
)

TODAY = "2026-05-09"


def answer(requirement: str = "tensorflow[and-cuda]==2.21.0", day: str = TODAY) -> Resolution:
    return Resolution(
        requirements=(requirement,),
        platform="linux",
        python="3.12",
        versions={"tensorflow": "2.21.0", "nvidia-cudnn-cu12": "9.28.0.42"},
        resolved_on=day,
        source="pip",
    )


def key_of(requirement: str = "tensorflow[and-cuda]==2.21.0", index_url: str | None = None) -> str:
    return resolution_key([requirement], "3.12", "linux", index_url, [])


def test_an_answer_is_read_back_the_same_day_as_from_the_cache():
    store_resolution(key_of(), answer())
    back = load_resolution(key_of(), TODAY)
    assert back is not None
    assert back.source == "cache"
    assert back.versions == answer().versions
    assert (back.requirements, back.platform, back.python, back.resolved_on) == (
        ("tensorflow[and-cuda]==2.21.0",), "linux", "3.12", TODAY,
    )  # fmt: skip
    assert json.loads(cache_path().read_text(encoding="utf-8"))["schema"] == "gpuwizard.resolution/1"


def test_yesterdays_answer_is_no_answer_today():
    store_resolution(key_of(), answer(day="2026-05-08"))
    assert load_resolution(key_of(), TODAY) is None
    assert load_resolution(key_of(), "2026-05-08") is not None


def test_another_question_has_no_answer():
    store_resolution(key_of(), answer())
    assert load_resolution(key_of("torch==2.9.0"), TODAY) is None


def test_no_file_is_no_answer():
    assert not cache_path().exists()
    assert load_resolution(key_of(), TODAY) is None


def test_every_part_of_the_question_changes_the_key():
    base = resolution_key(["tensorflow==2.21.0"], "3.12", "linux", None, [])
    assert base == resolution_key(["tensorflow==2.21.0"], "3.12", "linux", None, ())
    others = {
        resolution_key(["tensorflow==2.20.0"], "3.12", "linux", None, []),
        resolution_key(["tensorflow==2.21.0"], "3.11", "linux", None, []),
        resolution_key(["tensorflow==2.21.0"], "3.12", "windows", None, []),
        resolution_key(["tensorflow==2.21.0"], "3.12", "linux", "https://mirror.example/simple", []),
        resolution_key(
            ["tensorflow==2.21.0"], "3.12", "linux", None, ["https://download.pytorch.org/whl/cu126"]
        ),
        resolution_key(["tensorflow==2.21.0"], "3.12", "linux", None, [], find_links=["/wheels"]),
        resolution_key(["tensorflow==2.21.0"], "3.12", "linux", None, [], no_index=True),
        resolution_key(["tensorflow==2.21.0"], "3.12", "linux", None, [], glibc="2.35"),
    }
    assert base not in others
    assert len(others) == 8


def test_a_damaged_file_is_set_aside_and_counts_as_empty(caplog: pytest.LogCaptureFixture):
    path = cache_path()
    path.parent.mkdir(parents=True)
    path.write_text("{not json", encoding="utf-8")
    with caplog.at_level(logging.WARNING):
        assert load_resolution(key_of(), TODAY) is None
    assert path.with_name("resolutions.json.bad").read_text(encoding="utf-8") == "{not json"
    assert not path.exists()
    assert "moved aside as resolutions.json.bad" in caplog.text
    store_resolution(key_of(), answer())  # and the next answer starts a new file
    assert load_resolution(key_of(), TODAY) is not None


def test_a_file_of_the_wrong_shape_is_set_aside_too():
    path = cache_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"schema": "gpuwizard.resolution/1", "entries": ["x"]}), encoding="utf-8")
    assert load_resolution(key_of(), TODAY) is None
    assert path.with_name("resolutions.json.bad").exists()


def test_a_bad_entry_is_no_answer_and_spares_the_others():
    store_resolution(key_of("a"), answer("a"))
    data = json.loads(cache_path().read_text(encoding="utf-8"))
    data["entries"][key_of("b")] = {"versions": "broken"}
    cache_path().write_text(json.dumps(data), encoding="utf-8")
    assert load_resolution(key_of("b"), TODAY) is None
    assert load_resolution(key_of("a"), TODAY) is not None


def test_at_most_64_answers_are_kept_the_oldest_dropped_first():
    store_resolution(key_of("old"), answer("old", day="2026-05-01"))
    for n in range(MAX_ENTRIES):
        store_resolution(key_of(f"pkg{n}"), answer(f"pkg{n}"))
    entries = json.loads(cache_path().read_text(encoding="utf-8"))["entries"]
    assert len(entries) == MAX_ENTRIES == 64
    assert key_of("old") not in entries
    assert load_resolution(key_of("pkg0"), TODAY) is not None
    store_resolution(key_of("one more"), answer("one more"))
    assert load_resolution(key_of("pkg0"), TODAY) is None  # the oldest of the day went next
    assert load_resolution(key_of("pkg1"), TODAY) is not None
    assert load_resolution(key_of("one more"), TODAY) is not None


def test_storing_an_answer_again_makes_it_the_newest():
    for n in range(MAX_ENTRIES):
        store_resolution(key_of(f"pkg{n}"), answer(f"pkg{n}"))
    store_resolution(key_of("pkg0"), answer("pkg0"))
    store_resolution(key_of("new"), answer("new"))
    assert load_resolution(key_of("pkg0"), TODAY) is not None
    assert load_resolution(key_of("pkg1"), TODAY) is None


def test_no_login_reaches_the_file():
    login = "https://ana:s3cret-pw@mirror.example/simple"
    key = resolution_key(
        ["tensorflow==2.21.0"], "3.12", "linux", login, ["https://tok-9f8e@extra.example/simple"]
    )
    store_resolution(key, answer())
    text = cache_path().read_text(encoding="utf-8")
    assert "s3cret-pw" not in text
    assert "tok-9f8e" not in text
    # The key is of the masked URL: another login to the same index asks the same question.
    assert key == resolution_key(
        ["tensorflow==2.21.0"],
        "3.12",
        "linux",
        "https://bob:other@mirror.example/simple",
        ["https://x@extra.example/simple"],
    )
    assert load_resolution(key, TODAY) is not None


def test_another_versions_file_is_left_as_it_is():
    path: Path = cache_path()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"schema": "gpuwizard.resolution/2", "entries": {}}), encoding="utf-8")
    assert load_resolution(key_of(), TODAY) is None
    assert path.exists()
    assert not path.with_name("resolutions.json.bad").exists()
