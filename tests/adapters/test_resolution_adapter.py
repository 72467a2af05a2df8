"""Asking pip what an install would bring: real pip against a folder of wheels made here, offline.

The wheels are minimal but real (``NAME-VER.dist-info`` with METADATA, WHEEL and RECORD,
PEP 427), so pip reads their metadata as it reads PyPI's. pip's own configuration (the
developer's mirrors, ``PIP_FIND_LINKS``...) is kept out, so only the folder answers.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import sys
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from gpuwizard.adapters.resolution import DEFAULT_GLIBC, dry_resolve, platform_tags
from gpuwizard.adapters.runner import CommandNotFound, CommandTimedOut, CompletedRun, SubprocessRunner
from gpuwizard.core.compat.resolution import ResolutionFailed
from harness.waits import EVENT_S

TODAY = "2026-05-09"


def make_wheel(
    folder: Path, name: str, version: str, *, requires: Sequence[str] = (), tag: str = "py3-none-any"
) -> Path:
    """A wheel of ``name`` ``version`` with one empty module, requiring ``requires``."""
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "",
        f"{info}/METADATA": "".join(
            [f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"]
            + [f"Requires-Dist: {requirement}\n" for requirement in requires]
        ),
        f"{info}/WHEEL": f"Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: {tag}\n",
    }
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text.encode())}")
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    wheel = folder / f"{name}-{version}-{tag}.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


@pytest.fixture
def wheels(tmp_path: Path) -> Path:
    """fakeframework 1.0 (needs fakelib>=1.0,<2) and fakelib 1.0, 1.5 and 2.0."""
    folder = tmp_path / "wheels"
    folder.mkdir()
    make_wheel(folder, "fakeframework", "1.0", requires=["fakelib>=1.0,<2"])
    for version in ("1.0", "1.5", "2.0"):
        make_wheel(folder, "fakelib", version)
    return folder


@pytest.fixture(autouse=True)
def _pip_configured_by_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # pip reads its configuration files and PIP_* variables (pip.pypa.io/en/stable/topics/
    # configuration/); a developer's mirror or find-links must not answer in place of the folder.
    for name in list(os.environ):
        if name.startswith("PIP_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_CACHE_DIR", str(tmp_path / "pip-cache"))


def resolve(folder: Path, requirements: Sequence[str], platform: str = "linux") -> dict[str, str]:
    resolution = dry_resolve(
        requirements,
        python="3.12",
        platform=platform,
        find_links=[str(folder)],
        no_index=True,
        runner=SubprocessRunner(),
        timeout_s=EVENT_S,
        today=TODAY,
    )
    assert resolution.resolved_on == TODAY
    assert resolution.source == "pip"
    assert resolution.requirements == tuple(requirements)
    return dict(resolution.versions)


# --- real pip ------------------------------------------------------------------------------------


def test_pip_picks_the_newest_release_in_the_frameworks_range(wheels: Path):
    assert resolve(wheels, ["fakeframework==1.0"]) == {"fakeframework": "1.0", "fakelib": "1.5"}


def test_a_pin_beside_the_framework_narrows_the_pick(wheels: Path):
    assert resolve(wheels, ["fakeframework==1.0", "fakelib<1.5"]) == {
        "fakeframework": "1.0",
        "fakelib": "1.0",
    }


def test_a_requirement_nothing_satisfies_fails_with_pips_words(wheels: Path):
    with pytest.raises(ResolutionFailed) as caught:
        resolve(wheels, ["fakelib>=3"])
    said = str(caught.value)
    assert "Could not find a version that satisfies the requirement fakelib>=3" in said
    assert "(from versions: 1.0, 1.5, 2.0)" in said
    assert "\n" not in said


def test_conflicting_requirements_fail_with_what_conflicts(wheels: Path):
    with pytest.raises(ResolutionFailed) as caught:
        resolve(wheels, ["fakeframework==1.0", "fakelib>=2"])
    assert "Cannot install fakeframework==1.0 and fakelib>=2" in str(caught.value)


def test_linux_sees_wheels_of_every_glibc_level_up_to_its_own(wheels: Path):
    # nvidia-cudnn-cu12 after 9.5 ships manylinux_2_27_x86_64 wheels only: pip given just
    # manylinux_2_28 would skip them and answer an older release than an install gets.
    make_wheel(wheels, "fakelib", "1.6", tag="py3-none-manylinux_2_27_x86_64")
    make_wheel(wheels, "fakelib", "1.7", tag="py3-none-manylinux_2_34_x86_64")  # too new a glibc
    assert resolve(wheels, ["fakeframework==1.0"], "linux")["fakelib"] == "1.6"
    assert resolve(wheels, ["fakeframework==1.0"], "windows")["fakelib"] == "1.5"


# --- what pip is asked, and how its failures read ------------------------------------------------


class ScriptedPip:
    """Stands in for pip: records the command, writes ``report`` where asked, answers ``returncode``."""

    def __init__(
        self, report: object = None, returncode: int = 0, stderr: str = "", raises: Exception | None = None
    ):
        self.report, self.returncode, self.stderr, self.raises = report, returncode, stderr, raises
        self.argv: list[str] = []
        self.env: dict[str, str] = {}
        self.timeout = 0.0

    def run(
        self, argv: Sequence[str], *, timeout: float, env_overrides: Mapping[str, str] | None = None
    ) -> CompletedRun:
        self.argv, self.env, self.timeout = list(argv), dict(env_overrides or {}), timeout
        if self.raises is not None:
            raise self.raises
        if self.report is not None:
            target = Path(argv[argv.index("--report") + 1])
            text = self.report if isinstance(self.report, str) else json.dumps(self.report)
            target.write_text(text, encoding="utf-8")
        return CompletedRun(tuple(argv), self.returncode, "", self.stderr, 0.1)


GOOD = {"version": "1", "install": [{"metadata": {"name": "tensorflow", "version": "2.21.0"}}]}


def ask(runner: ScriptedPip, **options: object) -> dict[str, str]:
    settings: dict[str, object] = {"python": "3.12", "platform": "linux", "timeout_s": 300.0, "today": TODAY}
    settings.update(options)
    return dict(dry_resolve(["tensorflow[and-cuda]==2.21.0"], runner=runner, **settings).versions)  # type: ignore[arg-type]


def test_pip_is_asked_for_a_dry_run_for_the_target_with_its_report_in_a_scratch_folder():
    pip = ScriptedPip(GOOD)
    assert ask(
        pip, index_url="https://pypi.org/simple", extra_index_urls=["https://download.pytorch.org/whl/cu126"]
    ) == {"tensorflow": "2.21.0"}
    argv = pip.argv
    assert argv[:4] == [sys.executable, "-m", "pip", "install"]
    for option in ("--dry-run", "--quiet", "--ignore-installed", "--only-binary=:all:"):
        assert option in argv
    assert argv[argv.index("--python-version") + 1] == "3.12"
    platforms = [argv[i + 1] for i, part in enumerate(argv) if part == "--platform"]
    assert platforms == list(platform_tags("linux"))
    assert argv[argv.index("--index-url") + 1] == "https://pypi.org/simple"
    assert argv[argv.index("--extra-index-url") + 1] == "https://download.pytorch.org/whl/cu126"
    assert argv[-1] == "tensorflow[and-cuda]==2.21.0"
    assert pip.env == {"PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_INPUT": "1"}
    assert pip.timeout == 300.0
    scratch = Path(argv[argv.index("--report") + 1]).parent
    assert Path(argv[argv.index("--target") + 1]).parent == scratch
    assert not scratch.exists()  # gone with the answer


def test_an_index_with_a_login_goes_to_pip_in_its_variable_never_on_the_command_line():
    pip = ScriptedPip(GOOD)
    ask(
        pip,
        index_url="https://ana:s3cret@mirror.example/simple",
        extra_index_urls=["https://download.pytorch.org/whl/cu126", "https://tok@extra.example/simple"],
        find_links=["https://mirror.example/links?sig=AbC"],
    )
    assert not any("s3cret" in part or "tok@" in part or "AbC" in part for part in pip.argv)
    assert "--index-url" not in pip.argv
    assert "--extra-index-url" not in pip.argv  # all extras together, in their order
    assert "--find-links" not in pip.argv
    assert pip.env["PIP_INDEX_URL"] == "https://ana:s3cret@mirror.example/simple"
    assert (
        pip.env["PIP_EXTRA_INDEX_URL"]
        == "https://download.pytorch.org/whl/cu126 https://tok@extra.example/simple"
    )
    assert pip.env["PIP_FIND_LINKS"] == "https://mirror.example/links?sig=AbC"


@pytest.mark.parametrize(
    ("platform", "expected"),
    [("windows", ["win_amd64"]), ("darwin", ["macosx_14_0_arm64"])],
)
def test_windows_and_mac_targets_have_their_tags(platform: str, expected: list[str]):
    pip = ScriptedPip(GOOD)
    ask(pip, platform=platform)
    assert [pip.argv[i + 1] for i, part in enumerate(pip.argv) if part == "--platform"] == expected


def test_linux_tags_run_from_the_glibc_down_to_manylinux1_with_the_legacy_names():
    tags = platform_tags("linux", glibc="2.28")
    assert tags[0] == "manylinux_2_28_x86_64"
    assert {
        "manylinux_2_27_x86_64",
        "manylinux_2_17_x86_64",
        "manylinux2014_x86_64",
        "manylinux1_x86_64",
    } <= set(tags)
    assert "manylinux_2_29_x86_64" not in tags
    assert platform_tags("linux") == platform_tags("linux", glibc=DEFAULT_GLIBC)
    with pytest.raises(ValueError, match="glibc"):
        platform_tags("linux", glibc="2.x")
    with pytest.raises(ValueError, match="unknown platform"):
        platform_tags("freebsd")


def test_a_failure_says_pips_first_error_with_logins_masked():
    stderr = (
        "WARNING: Retrying after connection broken\n"
        "ERROR: Could not find a version that satisfies the requirement tensorflow==2.21.0 "
        "(from versions: none) at https://ana:s3cret@mirror.example/simple\n"
        "ERROR: No matching distribution found for tensorflow==2.21.0\n"
    )
    with pytest.raises(ResolutionFailed) as caught:
        ask(ScriptedPip(returncode=1, stderr=stderr))
    said = str(caught.value)
    assert said.startswith("pip exited with status 1: Could not find a version")
    assert "https://***@mirror.example/simple" in said
    assert "s3cret" not in said


def test_a_long_error_line_is_cut():
    stderr = (
        "ERROR: Could not find a version (from versions: " + ", ".join(f"1.{n}" for n in range(500)) + ")\n"
    )
    with pytest.raises(ResolutionFailed) as caught:
        ask(ScriptedPip(returncode=1, stderr=stderr))
    assert str(caught.value).endswith("…")
    assert len(str(caught.value)) < 500


@pytest.mark.parametrize(
    ("raises", "said"),
    [
        (CommandTimedOut(["python"], "no answer within 300 s"), "did not finish resolving within 300 s"),
        (
            CommandNotFound(["python"], "No such file or directory"),
            "could not be run: No such file or directory",
        ),
    ],
)
def test_a_pip_that_cannot_answer_is_a_failed_resolution(raises: Exception, said: str):
    with pytest.raises(ResolutionFailed, match=said):
        ask(ScriptedPip(raises=raises))


@pytest.mark.parametrize(
    ("report", "said"),
    [
        (None, "report cannot be read"),
        ("{not json", "report is not JSON"),
        ("[]", "report is not a JSON object"),
        (json.dumps({"install": "tensorflow"}), 'no "install" list'),
    ],
)
def test_a_missing_or_broken_report_is_a_failed_resolution(report: str | None, said: str):
    with pytest.raises(ResolutionFailed, match=said):
        ask(ScriptedPip(report))
