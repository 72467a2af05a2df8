"""Environment names are limited in bytes, so that every file name the wizard makes from one fits.

Issue 33: a name of 64 characters passed the check of 64 characters, but at 4 bytes each it is
256 bytes, and a file name holds 255 (ext4, APFS; NTFS and HFS+ 255 UTF-16 units): ``env create``
ended in a traceback (``OSError: [Errno 36] File name too long``) and left a record whose settling
failed again, with a warning, at every later command. A name of 237 bytes could be made but never
replaced, while the copy moved aside meanwhile was ``.NAME.gpuwizard-replaced-XXXXXXXX``, 29 bytes
longer. Names are now limited in bytes to what their folder can hold, and every other file name
made from one is shorter (``core/envs/names.py``, ``NAME_MAX_BYTES`` says which): names up to the
limit are made and replaced.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from builders.wheels import bundled_pip_wheel, tiny_torch
from gpuwizard.core.envs.names import NAME_MAX_BYTES, NAME_MAX_CHARS
from harness.entry_point import gpuwizard
from harness.waits import EVENT_S

#: Letters (\w) of 4, 3, 2 and 1 bytes in UTF-8: MATHEMATICAL BOLD CAPITAL A, a CJK ideograph,
#: LATIN SMALL LETTER E WITH ACUTE, a.
LETTERS = ("\U0001d400", "训", "é", "a")
#: GREEK SMALL LETTER ALPHA WITH PSILI AND VARIA AND YPOGEGRAMMENI: 3 bytes in UTF-8, but four
#: code points (4 UTF-16 units) decomposed, as macOS's HFS+ stores a file name.
DECOMPOSES_TO_FOUR = "\u1f82"


def name_of(size: int) -> str:
    """A name of ``size`` UTF-8 bytes in as few characters as it takes (the widest letters first)."""
    name = ""
    for letter in LETTERS:
        while len((name + letter).encode("utf-8")) <= size:
            name += letter
    assert len(name.encode("utf-8")) == size and len(name) <= NAME_MAX_CHARS, (size, len(name))
    return name


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    folder = tmp_path / "wheels"
    tiny_torch(folder, "2.13.0")
    shutil.copy(bundled_pip_wheel(), folder)
    return folder


def create(name: str, wheels: Path, *extra: str) -> tuple[int, str]:
    done = gpuwizard(
        "env", "create", name, "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(wheels), "--offline", *extra, timeout=EVENT_S,
    )  # fmt: skip
    return done.returncode, done.stderr


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "said"),
    [
        (LETTERS[0] * NAME_MAX_CHARS, f"is 256 bytes long in UTF-8; at most {NAME_MAX_BYTES} fit"),
        (DECOMPOSES_TO_FOUR * NAME_MAX_CHARS, f"is 256 UTF-16 units long decomposed, as macOS stores file names; at most {NAME_MAX_BYTES} fit"),
    ],
    ids=["64-letters-of-4-bytes", "64-letters-of-4-units-decomposed"],
)  # fmt: skip
def test_a_name_too_long_for_a_folder_is_bad_input_and_leaves_nothing(wheels: Path, name: str, said: str):
    code, stderr = create(name, wheels)
    assert code == 2, stderr
    assert stderr.count("\n") == 1 and stderr.startswith("gpuwizard: error: "), stderr
    assert said in stderr
    assert list(home().iterdir()) == []
    listed = gpuwizard("env", "list", timeout=EVENT_S)
    assert (listed.returncode, listed.stderr) == (0, "")


@pytest.mark.slow
@pytest.mark.parametrize("size", [237, NAME_MAX_BYTES], ids=["237-bytes", "the-limit"])
def test_a_name_up_to_the_limit_is_made_and_replaced(wheels: Path, size: int):
    name = name_of(size)
    code, stderr = create(name, wheels, "--json")
    assert code == 0, stderr
    code, stderr = create(name, wheels, "--json", "--replace")
    assert code == 0, stderr
    assert (home() / "envs" / name / "bin").is_dir() or (home() / "envs" / name / "Scripts").is_dir()
    listed = gpuwizard("env", "list", timeout=EVENT_S)
    assert (listed.returncode, listed.stderr) == (0, "")
    assert name in listed.stdout
