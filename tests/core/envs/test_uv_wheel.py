"""Which uv wheel PyPI's answer gives for a Linux architecture, who published it, and the binary in it.

The answer is the one recorded from https://pypi.org/pypi/uv/json (``fixtures/pypi``); the
wheels are made here (``builders/uv_wheels.py``), and one, when this machine's uv is 0.13.9's
x86_64 binary, with the RECORD recorded from PyPI's wheel.
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from builders.uv_wheels import (
    AARCH64,
    FIXTURES,
    SCRIPT,
    VERSION,
    X86_64,
    provenance,
    recorded_answer,
    uv_wheel,
)
from gpuwizard.core.envs.uv_wheel import (
    UvWheel,
    UvWheelRefused,
    choose_wheel,
    linux_arch,
    provenance_publisher,
    provenance_url,
    release_url,
    uv_from_wheel,
)

SOURCE = "https://pypi.org/pypi/uv/json"
#: The recorded x86_64 wheel, as the recorded answer gives it.
X86_64_SHA256 = "d7f459fe4fd247d830351c75686d3996ace3c6f3f728eb0e85a30b7ada0cef19"
REAL_UV_SHA256 = "b73acdf73b96c3ac9e56d2fa933427b3ee6a901e3cce6ba1e3ecb3f91ca0d86a"


def answer(change: Any = None) -> bytes:
    data = copy.deepcopy(recorded_answer())
    if change is not None:
        change(data)
    return json.dumps(data).encode()


def entry(data: dict[str, Any], filename: str) -> dict[str, Any]:
    return next(item for item in data["urls"] if item["filename"] == filename)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- choosing the wheel -------------------------------------------------------------------------


def test_the_x86_64_wheel_of_the_recorded_answer():
    wheel = choose_wheel(answer(), source=SOURCE, arch="x86_64", version=VERSION)
    assert wheel == UvWheel(
        version="0.13.9",
        arch="x86_64",
        filename=X86_64,
        # The recorded answer's URL is relative: read against the answer's own address.
        url="https://pypi.org/packages/packages/3d/aa/26d64642d808de4a652579ef950d7cd2d37f080a8babf9c67c6b75fc4c3f/"
        + X86_64,
        sha256=X86_64_SHA256,
        size=17606939,
    )


@pytest.mark.parametrize("arch", ["aarch64", "arm64", "ARM64"])
def test_arm_takes_the_wheel_that_asks_the_oldest_glibc(arch: str):
    # 0.13.9 has manylinux_2_17 (with musllinux_1_1) and manylinux_2_28 wheels for aarch64.
    assert choose_wheel(answer(), source=SOURCE, arch=arch).filename == AARCH64


@pytest.mark.parametrize("arch", ["x86_64", "AMD64", "amd64"])
def test_windows_names_for_x86_64(arch: str):
    assert choose_wheel(answer(), source=SOURCE, arch=arch).filename == X86_64


def test_an_absolute_url_is_taken_as_it_is():
    url = f"https://files.pythonhosted.org/packages/3d/aa/x/{X86_64}"
    changed = answer(lambda data: entry(data, X86_64).update(url=url))
    assert choose_wheel(changed, source=SOURCE, arch="x86_64").url == url


def test_musllinux_only_when_there_is_no_manylinux_wheel():
    def drop_manylinux(data: dict[str, Any]) -> None:
        data["urls"] = [item for item in data["urls"] if item["filename"] != X86_64]

    chosen = choose_wheel(answer(drop_manylinux), source=SOURCE, arch="x86_64")
    assert chosen.filename == "uv-0.13.9-py3-none-musllinux_1_1_x86_64.whl"


def test_a_yanked_wheel_is_never_taken():
    def yank(filename: str, reason: str | None) -> Any:
        return lambda data: entry(data, filename).update(yanked=True, yanked_reason=reason)

    skipped = choose_wheel(answer(yank(X86_64, "broken")), source=SOURCE, arch="x86_64")
    assert skipped.filename == "uv-0.13.9-py3-none-musllinux_1_1_x86_64.whl"

    def yank_all(data: dict[str, Any]) -> None:
        for item in data["urls"]:
            item.update(yanked=True, yanked_reason="broken")

    with pytest.raises(
        UvWheelRefused, match=r"uv 0\.13\.9's wheels for Linux x86_64 are yanked: .*\(broken\)"
    ):
        choose_wheel(answer(yank_all), source=SOURCE, arch="x86_64")


@pytest.mark.parametrize(
    "url",
    ["http://files.pythonhosted.org/packages/x/" + X86_64, "ftp://pypi.org/x.whl", "//:0/x.whl"],
)
def test_a_url_that_is_not_https_is_refused(url: str):
    changed = answer(lambda data: entry(data, X86_64).update(url=url))
    with pytest.raises(UvWheelRefused, match="not an https:// URL"):
        choose_wheel(changed, source=SOURCE, arch="x86_64")


def test_a_relative_url_in_an_answer_over_http_is_refused():
    with pytest.raises(UvWheelRefused, match="not an https:// URL"):
        choose_wheel(answer(), source="http://pypi.org/pypi/uv/json", arch="x86_64")


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda data: data["info"].update(name="uv-evil"), "an answer about 'uv-evil', not about uv"),
        (lambda data: data["info"].update(version="0.13.8"), "an answer about uv '0.13.8', not 0.13.9"),
        (lambda data: data.pop("urls"), "not an answer of PyPI's JSON API"),
        (lambda data: entry(data, X86_64)["digests"].update(sha256="abc"), "no sha256 for"),
        (lambda data: entry(data, X86_64).update(size=1 << 30), "has no size, or one past"),
        (lambda data: data.update(urls=[]), "uv 0.13.9 has no wheel for Linux x86_64 on PyPI"),
    ],
)
def test_answers_that_are_refused(change: Any, message: str):
    with pytest.raises(UvWheelRefused, match=re.escape(message)):
        choose_wheel(answer(change), source=SOURCE, arch="x86_64", version=VERSION)


def test_not_json_and_unknown_architectures_are_refused():
    with pytest.raises(UvWheelRefused, match="not valid JSON"):
        choose_wheel(b"<html>", source=SOURCE, arch="x86_64")
    with pytest.raises(UvWheelRefused, match="no uv for the architecture 'riscv64'"):
        linux_arch("riscv64")


def test_the_addresses_asked():
    assert release_url("https://pypi.org/", None) == "https://pypi.org/pypi/uv/json"
    assert release_url("https://pypi.org", "0.13.9") == "https://pypi.org/pypi/uv/0.13.9/json"
    with pytest.raises(UvWheelRefused):
        release_url("https://pypi.org", "../../x")
    wheel = choose_wheel(answer(), source=SOURCE, arch="x86_64")
    assert (
        provenance_url("https://pypi.org", wheel)
        == f"https://pypi.org/integrity/uv/0.13.9/{X86_64}/provenance"
    )


# --- who published it ---------------------------------------------------------------------------


def x86_wheel() -> UvWheel:
    return choose_wheel(answer(), source=SOURCE, arch="x86_64")


def test_a_provenance_from_uvs_repository_names_it():
    found = provenance_publisher(provenance(X86_64, X86_64_SHA256), x86_wheel(), source="p")
    assert found == "GitHub astral-sh/uv (release.yml)"


def test_the_repository_is_compared_without_case():
    found = provenance_publisher(
        provenance(X86_64, X86_64_SHA256, repository="Astral-SH/UV"), x86_wheel(), source="p"
    )
    assert found == "GitHub Astral-SH/UV (release.yml)"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"repository": "astral-sh/uv-fork"},
            "was published by GitHub astral-sh/uv-fork, not by GitHub astral-sh/uv",
        ),
        ({"repository": "evil/uv"}, "was published by GitHub evil/uv"),
        ({"kind": "GitLab"}, "was published by GitLab astral-sh/uv"),
        ({"repository": "evil/uv", "bundles": 2}, "was published by GitHub evil/uv"),
        ({"subject": "uv-0.13.9-py3-none-win_amd64.whl"}, "an attestation about another file"),
    ],
)
def test_a_provenance_from_anyone_else_is_refused(kwargs: dict[str, Any], message: str):
    with pytest.raises(UvWheelRefused, match=message):
        provenance_publisher(provenance(X86_64, X86_64_SHA256, **kwargs), x86_wheel(), source="p")


def test_a_provenance_about_other_bytes_is_refused():
    with pytest.raises(UvWheelRefused, match="an attestation about another file"):
        provenance_publisher(provenance(X86_64, "0" * 64), x86_wheel(), source="p")


@pytest.mark.parametrize(
    "body",
    [b"not json", b"{}", b'{"attestation_bundles": []}', b'{"attestation_bundles": [{"attestations": []}]}'],
)
def test_a_provenance_that_cannot_be_read_is_refused(body: bytes):
    with pytest.raises(UvWheelRefused):
        provenance_publisher(body, x86_wheel(), source="p")


# --- the binary in the wheel --------------------------------------------------------------------


def test_the_binary_comes_out_with_its_sha256():
    wheel = uv_wheel()
    binary = uv_from_wheel(wheel, sha(wheel), version=VERSION)
    assert (binary.data, binary.sha256, binary.version) == (SCRIPT, sha(SCRIPT), VERSION)


def test_a_wheel_that_is_not_the_published_one_is_refused():
    wheel = uv_wheel()
    with pytest.raises(UvWheelRefused, match=f"has sha256 {sha(wheel)}, not the published {'0' * 64}"):
        uv_from_wheel(wheel, "0" * 64)


def test_a_binary_record_does_not_vouch_for_is_refused():
    wheel = uv_wheel(listed=b"another binary")
    with pytest.raises(UvWheelRefused, match=r"is \d+ bytes, not the 14|does not match the sha256"):
        uv_from_wheel(wheel, sha(wheel))
    same_size = uv_wheel(listed=SCRIPT.replace(b"test", b"TEST"))
    with pytest.raises(
        UvWheelRefused,
        match=re.escape(
            "uv-0.13.9.data/scripts/uv does not match the sha256 uv-0.13.9.dist-info/RECORD gives it"
        ),
    ):
        uv_from_wheel(same_size, sha(same_size))


@pytest.mark.parametrize(
    ("record", "message"),
    [
        ("uv/__init__.py,,\n", "lists 0 uv-0.13.9.data/scripts/uv, not one"),
        ("uv-0.13.9.data/scripts/uv,,\n", "gives no sha256 for"),
        ("uv-0.13.9.data/scripts/uv,sha256=short,5\n", "a sha256 that is not one"),
        ("uv-0.13.9.data/scripts/uv,sha256=x,1\nuv-0.13.9.data/scripts/uv,sha256=x,1\n", "lists 2"),
    ],
)
def test_a_record_without_one_good_row_for_the_binary_is_refused(record: str, message: str):
    wheel = uv_wheel(record=record)
    with pytest.raises(UvWheelRefused, match=message):
        uv_from_wheel(wheel, sha(wheel))


def test_a_wheel_of_another_version_or_no_zip_is_refused():
    other = uv_wheel(version="0.13.8")
    with pytest.raises(UvWheelRefused, match=re.escape("the wheel is uv 0.13.8, not 0.13.9")):
        uv_from_wheel(other, sha(other), version=VERSION)
    with pytest.raises(UvWheelRefused, match="not a zip file"):
        uv_from_wheel(b"not a zip", sha(b"not a zip"))


REAL_UV = Path(sys.executable).with_name("uv")


@pytest.mark.skipif(
    not REAL_UV.is_file() or sha(REAL_UV.read_bytes()) != REAL_UV_SHA256,
    reason="this machine's uv is not uv 0.13.9's x86_64 binary, which the recorded RECORD lists",
)
def test_the_recorded_record_vouches_for_the_real_binary():
    # RECORD as PyPI's wheel has it (urlsafe base64: its digest has '-' in it).
    record = (FIXTURES / "uv-0.13.9-manylinux_2_17_x86_64_RECORD").read_text(encoding="utf-8")
    assert "uv-0.13.9.data/scripts/uv,sha256=tzrN9zuWw6yeVtL6kzQns-5qkB48zmuh4-yz-Ryg2Go,38409000" in record
    wheel = uv_wheel(REAL_UV.read_bytes(), record=record, stored=True)
    assert uv_from_wheel(wheel, sha(wheel), version=VERSION).sha256 == REAL_UV_SHA256
