r"""The WSL adapter on Windows: a Windows CPython under Wine runs it against a stand-in ``wsl.exe``.

The stand-in is a real Windows console program (tests/fakes/wsl_exe_win.c, built here with
MinGW-w64): it replays the recorded outputs of tests/fixtures/wsl as their bytes (UTF-16, as
``wsl.exe`` writes them) with their exit status, records the command line it got, and for
``--distribution NAME --exec ARGV`` says what argv and standard input reached it. So what is
tested is the Windows half of the way: ``subprocess``'s command line (list2cmdline, then
CommandLineToArgvW in the program), the pipes and their bytes, the exit status as Windows gives
it (-1 is 4294967295), and the environment (``WSL_UTF8``).

Each listing case is compared with what the same adapter gives on Linux for the same bytes
(tests/fakes/wsl_exe.py, a ``#!`` stand-in), so only the Windows path can make them differ; a few
facts are also checked outright, so that both sides cannot be wrong together.

``wsl --install`` is not here: the wizard never runs it (the person does, as the plan says:
core/compat/wsl_route.py), so its recorded outputs reach the parser only in
tests/core/machine/test_wsl_listing.py. The listing states are: installed (with and without
distributions), and not installed, which is also what ``wsl.exe`` prints after ``wsl --install``
until the restart ("The system may need to be restarted").
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from fakes.wsl_exe import FIXTURES, INDEX, stand_in_wsl
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.adapters.wsl import WslSource, probe_command
from gpuwizard.core.machine.system_report import WslFacts
from harness.waits import EVENT_S
from harness.wine_python import WinePython, to_windows, unavailable

# With pytest-xdist (-n), Wine's Python is set up once, on one worker: its tests stay together.
pytestmark = [pytest.mark.slow, pytest.mark.xdist_group("wine")]

SOURCE = Path(__file__).resolve().parents[1] / "fakes" / "wsl_exe_win.c"
MINGW_GCC = "x86_64-w64-mingw32-gcc"

#: Each case: the fixtures answering ``--list --verbose``, ``--status`` and ``--version``, and
#: what ``facts()`` is given. The languages: every one tests/fixtures/wsl has.
RENDERED = ("de-DE", "es-ES", "fr-FR", "it-IT", "ja-JP", "ko-KR", "pt-BR", "ru-RU", "zh-CN")
GPU: dict[str, Any] = {"windows_build": 22631, "driver_version": "581.57", "has_nvidia_gpu": True}
CASES: dict[str, tuple[tuple[str, str, str], dict[str, Any]]] = {
    "en-installed": (("en-list-verbose", "en-status", "en-version"), GPU),
    "en-no-default": (("en-list-verbose-no-default", "en-status-no-default", "en-version-windows10"), {}),
    "en-inbox-wsl1": (("en-list-wsl1", "en-status-inbox", "en-install-old-wsl"), {}),
    "de-installed": (("en-list-verbose-docker", "de-status-invalid-option", "de-version"), {}),
    "ru-no-distros": (("ru-list-no-distros", "resw-ru-RU-status-no-virtualization", "ru-version"), {}),
    "en-not-installed": (("en-not-installed-component",) * 3, {"windows_build": 19045}),
    "en-not-installed-inbox": (("en-not-installed-inbox",) * 3, {}),
    **{
        f"{language}-no-distros": (
            (
                f"resw-{language}-list-no-distros",
                f"resw-{language}-status-no-virtualization",
                f"resw-{language}-version",
            ),
            {},
        )
        for language in RENDERED
    },
}
COMMANDS = (["--list", "--verbose"], ["--status"], ["--version"])

#: In the Windows Python: argv[1] is a JSON file {case: {"exe": path, "kwargs": {...}}}.
_FACTS = """\
import dataclasses, json, sys
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.adapters.wsl import WslSource
with open(sys.argv[1], encoding="utf-8") as stream:
    cases = json.load(stream)
found = {}
for name, case in cases.items():
    source = WslSource(SubprocessRunner(), case["exe"], deadline_s=float(sys.argv[2]))
    found[name] = dataclasses.asdict(source.facts(**case["kwargs"]))
print(json.dumps(found))
"""

#: In the Windows Python: argv = stand-in, JSON file with the argv to run, file with stdin bytes.
_DISTRO = """\
import json, sys, threading
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.adapters.wsl import WslDistro, WslProbeFailed, WslSource
exe, argv_file, stdin_file, limit = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
with open(argv_file, encoding="utf-8") as stream:
    argv = json.load(stream)
with open(stdin_file, "rb") as stream:
    data = stream.read()
lines = []
status = WslDistro(exe, "Ubuntu-24.04").run(
    argv, lines.append, cancel=threading.Event(), stdin=data, timeout=limit
)
try:
    WslSource(SubprocessRunner(), exe).distro_facts("Ubuntu-24.04", deadline_s=limit)
    probe = None
except WslProbeFailed as error:
    probe = error.detail
print(json.dumps({"status": status, "lines": lines, "probe": probe}))
"""

#: What crosses the command line: a space, quotes, what a shell would expand, non-ASCII, an
#: empty argument, backslashes before a quote and at the end of a quoted argument, a tab, a
#: line break, cmd's %VAR%, and ``--exec`` again (the stand-in splits at the first one).
ARGV = [
    "/usr/bin/env",
    "a b",
    'say "hi"',
    'echo "$(x)" > out; `y`',
    "Zoë 日本語",
    "",
    "C:\\dir with space\\",
    'back\\\\"slash',
    "tab\there",
    "two\nlines",
    "%PATH%",
    "--exec",
]
#: About 50 KB: every byte value (NUL, CR, LF, and 0x1A, which ends a text-mode read on Windows).
STDIN = bytes(range(256)) * 200 + "Zoë\r\n\x1a".encode()


def fnv1a64(data: bytes) -> str:
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return f"{value:016x}"


@pytest.fixture(scope="module")
def stand_in(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The stand-in ``wsl.exe``, built once for the module."""
    gcc = shutil.which(MINGW_GCC)
    if gcc is None:
        unavailable(f"{MINGW_GCC} is not installed (Debian package gcc-mingw-w64-x86-64-win32)")
    built = tmp_path_factory.mktemp("wsl-exe-win") / "wsl.exe"
    done = subprocess.run(
        [gcc, "-O2", "-Wall", "-Werror", "-s", "-o", str(built), str(SOURCE), "-lshell32"],
        stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=EVENT_S, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return built


def placed(stand_in: Path, folder: Path, answers: Mapping[str, str]) -> Path:
    """A copy of the stand-in in ``folder``, answering each argument string with a fixture."""
    folder.mkdir(parents=True)
    table = "".join(
        f"{INDEX[fixture]['returncode']}\t{to_windows(FIXTURES / f'{fixture}.out')}\t{args}\n"
        for args, fixture in answers.items()
    )
    (folder / "replies.tsv").write_text(table, encoding="utf-8")
    return Path(shutil.copy2(stand_in, folder / "wsl.exe"))


def calls(exe: Path) -> list[dict[str, Any]]:
    log = exe.parent / "calls.jsonl"
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def answers_of(fixtures: tuple[str, str, str]) -> dict[str, str]:
    return {" ".join(args): fixture for args, fixture in zip(COMMANDS, fixtures, strict=True)}


def as_json(facts: WslFacts) -> Any:
    """Facts as the JSON the Windows side printed (tuples become lists)."""
    return json.loads(json.dumps(dataclasses.asdict(facts)))


@pytest.fixture(scope="module")
def on_windows(
    wine_python: WinePython, stand_in: Path, tmp_path_factory: pytest.TempPathFactory
) -> tuple[dict[str, Any], dict[str, Path]]:
    """Every case's facts from the Windows Python (one run), and each case's stand-in."""
    root = tmp_path_factory.mktemp("wsl-cases")
    exes = {
        name: placed(stand_in, root / name, answers_of(fixtures)) for name, (fixtures, _) in CASES.items()
    }
    request = root / "cases.json"
    request.write_text(
        json.dumps(
            {name: {"exe": to_windows(exes[name]), "kwargs": kwargs} for name, (_, kwargs) in CASES.items()}
        ),
        encoding="utf-8",
    )
    done = wine_python.run(_FACTS, to_windows(request), str(EVENT_S), timeout=EVENT_S * 2)
    assert done.returncode == 0, done.stdout + done.stderr
    found: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return found, exes


def decoded_first_line(fixture: str) -> str:
    """The fixture's first line, decoded here as UTF-16LE (not by the parser under test)."""
    text = (FIXTURES / f"{fixture}.out").read_bytes().decode("utf-16-le")
    return next(line.strip() for line in text.splitlines() if line.strip())


@pytest.mark.parametrize("case", list(CASES))
def test_windows_reads_wsl_exe_as_linux_does(
    case: str, on_windows: tuple[dict[str, Any], dict[str, Path]], tmp_path: Path
):
    found, exes = on_windows
    fixtures, kwargs = CASES[case]
    linux = stand_in_wsl(tmp_path / "linux", answers_of(fixtures))
    expected = WslSource(SubprocessRunner(), linux.path, deadline_s=EVENT_S).facts(**kwargs)

    assert found[case] == as_json(expected)
    # Each command once, as its own arguments, with WSL_UTF8=1 in its environment.
    assert [call["argv"] for call in calls(exes[case])] == [list(args) for args in COMMANDS]
    assert all(call["WSL_UTF8"] == "1" for call in calls(exes[case]))


def test_the_facts_are_what_the_outputs_say(on_windows: tuple[dict[str, Any], dict[str, Path]]):
    """Outright, so that Windows and Linux cannot agree on a wrong reading."""
    found, _ = on_windows
    installed = found["en-installed"]
    assert [(d["name"], d["version"], d["default"], d["state"]) for d in installed["distros"]][:2] == [
        ("Ubuntu", 2, True, "running"),
        ("Legacy", 1, False, "stopped"),
    ]
    assert (installed["wsl_version"], installed["gpu_compute"]) == ("2.2.4.0", True)
    assert [d["name"] for d in found["de-installed"]["distros"]] == [
        "Ubuntu",
        "docker-desktop",
        "docker-desktop-data",
    ]
    assert found["de-installed"]["wsl_version"] == "1.0.3.0"
    for case in ("en-not-installed", "en-not-installed-inbox"):
        assert not found[case]["installed"]
        assert found[case]["detail"] == decoded_first_line(CASES[case][0][0])
    for language in RENDERED:
        facts = found[f"{language}-no-distros"]
        assert facts["installed"] and facts["distros"] == [] and facts["virtualization"] is False
        assert (facts["default_version"], facts["wsl_version"]) == (2, "2.3.26.0")
        assert facts["detail"] == decoded_first_line(f"resw-{language}-list-no-distros")
    assert found["ru-no-distros"]["detail"] == decoded_first_line("ru-list-no-distros")


def test_a_command_in_the_distribution_gets_its_argv_and_stdin_intact(
    wine_python: WinePython, stand_in: Path, tmp_path: Path
):
    exe = placed(stand_in, tmp_path / "distro", {})
    argv_file, stdin_file = tmp_path / "argv.json", tmp_path / "stdin.bin"
    argv_file.write_text(json.dumps(ARGV), encoding="utf-8")
    stdin_file.write_bytes(STDIN)

    done = wine_python.run(
        _DISTRO, to_windows(exe), to_windows(argv_file), to_windows(stdin_file), str(EVENT_S),
        timeout=EVENT_S * 2,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])

    # What wsl.exe got: the argv after --exec as given, and every byte of standard input.
    assert result["status"] == 0
    assert [json.loads(line) for line in result["lines"]] == [
        {"argv": ARGV, "stdin_bytes": len(STDIN), "stdin_fnv1a64": fnv1a64(STDIN)}
    ]
    recorded = calls(exe)
    assert recorded[0]["argv"] == ["--distribution", "Ubuntu-24.04", "--cd", "~", "--exec", *ARGV]
    # The probe's program (base64 inside one argument) arrives whole too; the stand-in gives
    # no probe answer, so the adapter says so.
    assert recorded[1]["argv"] == [
        "--distribution",
        "Ubuntu-24.04",
        "--exec",
        "/usr/bin/python3",
        "-I",
        "-c",
        probe_command(),
    ]
    assert result["probe"] is not None
    assert [call["WSL_UTF8"] for call in recorded] == ["1", "1"]
