"""``adapters/input_files.py``: a named file is read whole, but never past its limit (issue 19)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gpuwizard.adapters.input_files import InputFileError, read_input


def test_a_file_within_its_limit_is_read_whole(tmp_path: Path):
    given = tmp_path / "report.json"
    given.write_bytes(b"x" * 100)
    assert read_input(given, limit=100, what="a report") == b"x" * 100


@pytest.mark.parametrize(
    ("make", "reason", "said"),
    [
        (lambda p: None, "missing", "no such file"),
        (lambda p: p.mkdir(), "folder", "is a folder, not a report"),
        (lambda p: p.write_bytes(b"x" * 101), "too_large", "too large (over 100 bytes)"),
    ],
    ids=["missing", "folder", "one-byte-over"],
)
def test_what_cannot_be_read_is_one_line_with_its_reason(tmp_path: Path, make, reason: str, said: str):
    given = tmp_path / "report.json"
    make(given)
    with pytest.raises(InputFileError) as refused:
        read_input(given, limit=100, what="a report")
    assert refused.value.reason == reason
    assert str(refused.value) == f"{given}: {said}"


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="POSIX devices")
def test_a_stream_that_never_ends_is_refused_after_the_limit():
    with pytest.raises(InputFileError) as refused:
        read_input(Path("/dev/zero"), limit=2**20, what="a report")
    assert refused.value.reason == "too_large"


@pytest.mark.skipif(os.name == "nt" or os.geteuid() == 0, reason="POSIX permissions (root reads everything)")
def test_an_unreadable_file_says_why(tmp_path: Path):
    given = tmp_path / "report.json"
    given.write_text("{}")
    given.chmod(0)
    with pytest.raises(InputFileError, match="cannot be read") as refused:
        read_input(given, limit=100, what="a report")
    assert refused.value.reason == "unreadable"
