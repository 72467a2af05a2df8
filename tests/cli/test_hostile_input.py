"""Hostile input (issue 19): every command that reads a file or a name, fed a generated corpus.

Each command that reads a file the person names (``--system``, ``--registry``, ``apply
--answers``, ``diagnose FILE``), an interpreter (``test --python``) or a name (``env create
NAME``, ``env remove NAME``, ``test --env NAME``) gets every entry of a corpus made here:
empty, binary noise (the same on every run), invalid UTF-8, over the size limit (sparse files,
so nothing big is written), nested 100,000 levels deep, the wrong types, a key twice, NaN,
control and bidirectional characters. Every run must exit 2 with exactly one line on stderr and no
traceback, and leave GPUWIZARD_HOME and the input file byte for byte as they were
(docs/architecture.md, "The command-line and JSON contract").

The wizard's own damaged files are the other half: each is moved aside as ``NAME.bad`` with one
line naming it, and the command goes on; a damaged PATH journal stops PATH commands instead
(exit 2, one line, the journal left in place).

The commands run in this process (``gpuwizard.cli.main.main``), which keeps the few hundred
runs to seconds; invalid UTF-8 in argv needs a real process and gets a few. The counts tried
and failed are printed by the last test (``-s`` shows them).
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from gpuwizard.cli.main import main
from gpuwizard.core.envs.names import EnvNameError, check_env_name
from harness.entry_point import ENTRY_POINT

pytestmark = pytest.mark.xdist_group("hostile-input")  # one worker: the counts below add up

ROOT = Path(__file__).resolve().parents[2]
REPORT = ROOT / "tests" / "fixtures" / "reports" / "windows-rtx3060-546.33.json"
REGISTRY = ROOT / "resources" / "samples" / "registry" / "windows-cuda12.json"
MiB = 2**20
DEEP = 100_000

#: Every case run, and the ones that failed: printed by the last test of this module.
COUNTS = {"tried": 0, "failed": 0}


# --- the corpus ------------------------------------------------------------------------------


def sparse(path: Path, size: int) -> None:
    """A file of ``size`` bytes that takes no room: a hole and one byte at the end."""
    with path.open("wb") as file:
        file.seek(size - 1)
        file.write(b"}")


def put(path: Path, content: bytes | int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, int):
        sparse(path, content)
    else:
        path.write_bytes(content)


def noise(seed: bytes, size: int) -> bytes:
    """``size`` bytes that look random and are the same on every run (SHAKE-256 of ``seed``)."""
    return hashlib.shake_256(seed).digest(size)


def json_bytes(data: object) -> bytes:
    return json.dumps(data, indent=1).encode()


GENERIC_JSON: dict[str, bytes | int] = {
    "empty": b"",
    "whitespace": b"  \n\t",
    "binary": noise(b"19", 4096),
    "invalid-utf8": b'{"schema": "gpuwizard.system/1", "x": "caf\xe9 \xff\xfe"}',
    "utf16": '{"schema": "gpuwizard.system/1"}'.encode("utf-16"),
    "nul-bytes": b"\x00" * 64,
    "deep-open": b"[" * DEEP,
    "deep-balanced": b"[" * DEEP + b"]" * DEEP,
    "deep-objects": b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    "deep-inside": b'{"schema": "x", "gpus": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    "a-list": b"[]",
    "a-string": b'"text"',
    "a-number": b"42",
    "null": b"null",
    "nan": b"NaN",
    "huge-integer": b"1" * 5000,
    "trailing-garbage": b"{} {}",
    "raw-control-in-string": b'{"schema": "gpuwizard\x01system/1"}',
}
#: Over the kind's limit: the size in bytes (a sparse file).
OVER = {"system": 16 * MiB + 1, "registry": 16 * MiB + 1, "answers": MiB + 1, "log": 64 * MiB + 1}


def report_variant(change: Callable[[dict], None]) -> bytes:
    data = json.loads(REPORT.read_text(encoding="utf-8"))
    change(data)
    return json_bytes(data)


def registry_variant(change: Callable[[dict], None]) -> bytes:
    data = json.loads(REGISTRY.read_text(encoding="utf-8"))
    change(data)
    return json_bytes(data)


def _set(path: tuple, value: object) -> Callable[[dict], None]:
    def change(data: dict) -> None:
        target = data
        for part in path[:-1]:
            target = target[part]
        target[path[-1]] = value

    return change


def duplicated(text: bytes, key: bytes, value: bytes) -> bytes:
    """``text`` (a JSON object) with ``"key": value`` put first, so ``key`` appears twice."""
    return b"{" + b'"' + key + b'": ' + value + b", " + text.strip()[1:]


USER = "HKCU\\Environment"
SYSTEM_SPECIFIC: dict[str, bytes | int] = {
    "memory-as-text": report_variant(lambda d: d["gpus"][0].update(memory_total_mib="lots")),
    "gpus-as-object": report_variant(_set(("gpus",), {})),
    "driver-as-list": report_variant(_set(("driver",), [])),
    "schema-as-number": report_variant(_set(("schema",), 1)),
    "duplicate-key": duplicated(REPORT.read_bytes(), b"driver", b"null"),
    "duplicate-schema": duplicated(REPORT.read_bytes(), b"schema", b'"gpuwizard.system/1"'),
    "nan-number": REPORT.read_bytes().replace(b'"memory_total_mib": 12288', b'"memory_total_mib": NaN'),
    "infinity": REPORT.read_bytes().replace(b'"memory_total_mib": 12288', b'"memory_total_mib": -Infinity'),
}
REGISTRY_SPECIFIC: dict[str, bytes | int] = {
    "value-as-list": registry_variant(lambda d: d[USER]["Path"].update(value=["C:\\x"])),
    "value-as-number": registry_variant(lambda d: d[USER]["Path"].update(value=7)),
    "value-as-object": registry_variant(lambda d: d[USER]["Path"].update(value={"a": 1})),
    "type-as-number": registry_variant(lambda d: d[USER]["Path"].update(type=2)),
    "key-as-list": registry_variant(_set((USER,), [])),
    "value-missing": registry_variant(lambda d: d[USER]["Path"].pop("value")),
    "duplicate-key": duplicated(REGISTRY.read_bytes(), USER.replace("\\", "\\\\").encode(), b"{}"),
    "duplicate-value-name": registry_variant(lambda d: None).replace(
        b'"Path": {', b'"Path": {"type": "REG_SZ", "value": "C:\\\\evil"}, "Path": {', 1
    ),
    "nan": registry_variant(lambda d: None).replace(b'"type": "REG_SZ"', b'"type": NaN', 1),
    "control-in-value": registry_variant(lambda d: d[USER]["Path"].update(value="C:\\x\x00;C:\\y")),
}
GOOD_ANSWERS = {"framework": "pytorch", "version": "2.13", "environment": "lab", "test": False}
ANSWERS_JSON_SPECIFIC: dict[str, bytes | int] = {
    "duplicate-framework": b'{"framework": "tensorflow", "framework": "pytorch"}',
    "duplicate-environment": b'{"framework": "pytorch", "environment": "a", "environment": "b"}',
    "version-as-number": json_bytes({**GOOD_ANSWERS, "version": 2.1}),
    "gpus-as-object": json_bytes({**GOOD_ANSWERS, "gpus": {}}),
    "offline-as-text": json_bytes({**GOOD_ANSWERS, "offline": "yes"}),
    "nan-flag": b'{"framework": "pytorch", "test": NaN}',
    "name-bidi-override": json_bytes({**GOOD_ANSWERS, "environment": "lab\u202etxt.exe"}),
    "name-zero-width": json_bytes({**GOOD_ANSWERS, "environment": "la\u200bb"}),
    "name-isolate": json_bytes({**GOOD_ANSWERS, "environment": "la\u2066b"}),
    "name-lone-surrogate": b'{"framework": "pytorch", "environment": "lab\\udcff"}',
    "name-nul": json_bytes({**GOOD_ANSWERS, "environment": "la\x00b"}),
    "name-escape-sequence": json_bytes({**GOOD_ANSWERS, "environment": "\x1b[31mlab"}),
    "prefix-nul": json_bytes({**GOOD_ANSWERS, "prefix": "/tmp/a\x00b"}),
    "find-links-nul": json_bytes({**GOOD_ANSWERS, "find_links": "/tmp/a\x00b", "offline": True}),
}
ANSWERS_TOML: dict[str, bytes | int] = {
    "binary": noise(b"20", 4096),
    "invalid-utf8": b'framework = "pytorch"\nenvironment = "caf\xe9"\n',
    "nul-bytes": b"\x00" * 64,
    "deep-arrays": b"gpus = " + b"[" * DEEP + b"]" * DEEP + b"\n",
    "deep-open": b"gpus = " + b"[" * DEEP,
    "deep-inline-tables": b"gpus = " + b"{a = " * DEEP + b"1" + b"}" * DEEP + b"\n",
    "deep-dotted-key": b".".join([b"a"] * DEEP) + b" = 1\n",
    "deep-table-header": b"[" + b".".join([b"a"] * DEEP) + b"]\n",
    "duplicate-key": b'framework = "tensorflow"\nframework = "pytorch"\n',
    "a-table-of-tables": b'[framework]\nname = "pytorch"\n',
    "name-bidi-override": 'framework = "pytorch"\nenvironment = "lab\u202etxt"\n'.encode(),
    "name-bidi-escape": b'framework = "pytorch"\nenvironment = "lab\\u202Etxt"\n',
    "name-zero-width-joiner": 'framework = "pytorch"\nenvironment = "la\u200db"\n'.encode(),
    "name-escape-sequence": b'framework = "pytorch"\nenvironment = "\\u001b[31mlab"\n',
    "version-as-float": b'framework = "pytorch"\nversion = 2.10\n',
}


# --- the commands ----------------------------------------------------------------------------

Argv = Callable[[Path, Path], list[str]]  # (the input, a work folder) -> argv

EXPORT = ["export", "--format", "requirements", "--framework", "pytorch"]
SYSTEM_COMMANDS: dict[str, Argv] = {
    "detect": lambda f, w: ["detect", "--system", str(f)],
    "detect --json": lambda f, w: ["detect", "--json", "--system", str(f)],
    "recommend": lambda f, w: ["recommend", "--framework", "pytorch", "--system", str(f)],
    "verify": lambda f, w: ["verify", "--no-test", "--no-record", "--system", str(f)],
    "report": lambda f, w: ["report", "--out", str(w / "out.json"), "--no-probe", "--system", str(f)],
    "export": lambda f, w: [*EXPORT, "--out", str(w / "req.txt"), "--system", str(f)],
    "apply": lambda f, w: ["apply", "--answers", str(w / "good.json"), "--system", str(f)],
    "wizard": lambda f, w: ["--system", str(f)],
    "screenshots": lambda f, w: ["screenshots", str(w / "shots"), "--system", str(f)],
}
ON_A_REPORT = ["--system", str(REPORT)]
REGISTRY_COMMANDS: dict[str, Argv] = {
    "path show": lambda f, w: ["path", "show", "--registry", str(f)],
    "path add": lambda f, w: ["path", "add", "C:\\CUDA\\v12.1\\bin", "--registry", str(f)],
    "path undo --all": lambda f, w: ["path", "undo", "--all", "--registry", str(f)],
    "path history": lambda f, w: ["path", "history", "--json", "--registry", str(f)],
    "verify": lambda f, w: ["verify", "--no-test", "--no-record", *ON_A_REPORT, "--registry", str(f)],
    "report": lambda f, w: [
        "report",
        "--out",
        str(w / "out.md"),
        "--no-probe",
        *ON_A_REPORT,
        "--registry",
        str(f),
    ],
    "apply": lambda f, w: ["apply", "--answers", str(w / "good.json"), *ON_A_REPORT, "--registry", str(f)],
}
ANSWERS_COMMAND: Argv = lambda f, w: ["apply", "--answers", str(f), "--system", str(REPORT)]  # noqa: E731
LOG_COMMAND: Argv = lambda f, w: ["diagnose", str(f)]  # noqa: E731


@dataclass(frozen=True)
class BadFile:
    """One run: a corpus entry of a kind of file, given to one command."""

    content: bytes | int  # the bytes, or the size of a sparse file
    argv: Argv
    suffix: str


def cases() -> Iterator[pytest.param]:
    """A :class:`BadFile` for every corpus entry and every command that reads its kind."""
    answers_json = {**GENERIC_JSON, "over-limit": OVER["answers"], **ANSWERS_JSON_SPECIFIC}
    logs = {"binary": GENERIC_JSON["binary"], "nul-bytes": b"\x00" * 64, "over-limit": OVER["log"]}
    tables = [
        (
            "system",
            {**GENERIC_JSON, "over-limit": OVER["system"], **SYSTEM_SPECIFIC},
            SYSTEM_COMMANDS,
            ".json",
        ),
        (
            "registry",
            {**GENERIC_JSON, "over-limit": OVER["registry"], **REGISTRY_SPECIFIC},
            REGISTRY_COMMANDS,
            ".json",
        ),
        ("answers", answers_json, {"apply": ANSWERS_COMMAND}, ".json"),
        ("answers", {"over-limit": OVER["answers"], **ANSWERS_TOML}, {"apply": ANSWERS_COMMAND}, ".toml"),
        ("log", logs, {"diagnose": LOG_COMMAND}, ".log"),
    ]
    for kind, corpus, commands, suffix in tables:
        for entry, content in corpus.items():
            for command, argv in commands.items():
                yield pytest.param(BadFile(content, argv, suffix), id=f"{kind}{suffix}-{entry}-{command}")


# --- running and checking --------------------------------------------------------------------


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file and folder under ``folder``, with a digest of each file's bytes.

    Lock files are left out: they hold nothing, and ``adapters/file_locks.py`` keeps them in
    place once made (a PATH command takes the journal's lock before it reads the journal).
    """
    found: dict[str, str] = {}
    for path in sorted(folder.rglob("*")):
        if path.name.endswith(".lock"):
            continue
        name = path.relative_to(folder).as_posix()
        found[name] = file_digest(path) if path.is_file() else "folder"
    return found


def file_digest(path: Path) -> str:
    """The file's bytes, digested; past 4 MiB (the sparse files), its size, time and both ends.

    A command that wrote to such a file would change its modification time; reading hundreds of
    megabytes of holes for every case would make this module slow.
    """
    digest = hashlib.blake2b()
    with path.open("rb") as file:
        info = os.fstat(file.fileno())
        if info.st_size <= 4 * MiB:
            digest.update(file.read())
        else:
            digest.update(f"{info.st_size} {info.st_mtime_ns}".encode())
            digest.update(file.read(MiB))
            file.seek(-MiB, os.SEEK_END)
            digest.update(file.read())
    return digest.hexdigest()


def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


@pytest.fixture(autouse=True)
def _no_windows(monkeypatch: pytest.MonkeyPatch) -> None:
    """The wizard and ``screenshots`` must refuse before Qt: a window opened here is a failure."""

    def refuse(**_kwargs: object) -> int:
        pytest.fail("a bad input reached the wizard's windows")

    def render(*_args: object, **_kwargs: object) -> list[Path]:
        pytest.fail("a bad input reached the screenshots")

    monkeypatch.setitem(sys.modules, "gpuwizard.ui.app", types.SimpleNamespace(run_wizard=refuse))
    monkeypatch.setitem(
        sys.modules, "gpuwizard.ui.screenshots", types.SimpleNamespace(render_screenshots=render)
    )


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as exit_:  # argparse's own refusals
        code = exit_.code if isinstance(exit_.code, int) else 1
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code: int, out: str, err: str) -> None:
    """Exit 2, exactly one line on stderr, no traceback."""
    assert "Traceback" not in err + out
    assert code == 2, f"exit {code}; stderr: {err[-600:]!r}; stdout: {out[-300:]!r}"
    assert len(err.splitlines()) == 1 and err.endswith("\n"), err[-2000:]
    assert err.startswith("gpuwizard"), err


def counted(check: Callable[[], None]) -> None:
    COUNTS["tried"] += 1
    try:
        check()
    except BaseException:
        COUNTS["failed"] += 1
        raise


@pytest.fixture
def work(tmp_path: Path) -> Path:
    (tmp_path / "good.json").write_text(json.dumps(GOOD_ANSWERS), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("case", list(cases()))
def test_a_bad_file_is_refused_in_one_line_and_nothing_changes(
    case: BadFile, work: Path, capsys: pytest.CaptureFixture[str]
):
    def check() -> None:
        given = work / f"input{case.suffix}"
        put(given, case.content)
        before = tree_digest(home()), file_digest(given), tree_digest(work)
        code, out, err = run_cli(case.argv(given, work), capsys)
        assert_refused(code, out, err)
        assert (tree_digest(home()), file_digest(given), tree_digest(work)) == before

    counted(check)


# --- files that are not there, folders, interpreters -----------------------------------------


def missing_and_folders() -> Iterator[pytest.param]:
    for name, argv in [
        *(("--system " + n, a) for n, a in SYSTEM_COMMANDS.items()),
        *(("--registry " + n, a) for n, a in REGISTRY_COMMANDS.items()),
        ("apply --answers", ANSWERS_COMMAND),
        ("diagnose", LOG_COMMAND),
    ]:
        # (No NUL in a name: a command line cannot hold one, execve takes C strings.)
        for what in ("missing", "folder"):
            yield pytest.param(argv, what, id=f"{name}-{what}")


@pytest.mark.parametrize(("argv", "what"), list(missing_and_folders()))
def test_a_missing_file_or_a_folder_is_refused_in_one_line(
    argv: Argv, what: str, work: Path, capsys: pytest.CaptureFixture[str]
):
    def check() -> None:
        given = {"missing": work / "none" / "x.json", "folder": work}[what]
        before = tree_digest(home()), tree_digest(work)
        code, out, err = run_cli(argv(given, work), capsys)
        assert_refused(code, out, err)
        assert (tree_digest(home()), tree_digest(work)) == before

    counted(check)


def interpreters(work: Path) -> dict[str, str]:
    plain = work / "not-a-program"
    plain.write_text("print('hi')\n", encoding="utf-8")
    plain.chmod(0o644)
    return {
        "missing": str(work / "no" / "python"),
        "folder": str(work),
        "empty": "",
        "not-executable": str(plain),
        "blank": "  ",
    }


@pytest.mark.parametrize("what", ["missing", "folder", "empty", "not-executable", "blank"])
def test_test_python_refuses_what_is_no_interpreter_and_writes_nothing(
    what: str, work: Path, capsys: pytest.CaptureFixture[str]
):
    if what == "not-executable" and os.name == "nt":
        pytest.skip("Windows has no executable bit")

    def check() -> None:
        python = interpreters(work)[what]
        before = tree_digest(home())
        code, out, err = run_cli(["test", "--python", python, "--json"], capsys)
        assert_refused(code, out, err)
        assert tree_digest(home()) == before  # no last-tests.json

    counted(check)


# --- names -----------------------------------------------------------------------------------

BAD_NAMES = {
    "empty": "",
    "space": " ",
    "slash": "a/b",
    "dot-dot": "..",
    "device": "con",
    "too-long": "x" * 65,
    "newline": "de\nmo",
    "escape-sequence": "\x1b[31mdemo",
    "del": "de\x7fmo",
    "bidi-override": "demo\u202etxt.exe",
    "bidi-embedding": "de\u202amo",
    "left-to-right-mark": "de\u200emo",
    "right-to-left-mark": "de\u200fmo",
    "isolate": "de\u2066mo\u2069",
    "first-strong-isolate": "de\u2068mo",
    "zero-width-space": "de\u200bmo",
    "zero-width-joiner": "de\u200dmo",
    "zero-width-non-joiner": "de\u200cmo",
    "byte-order-mark": "\ufeffdemo",
    "soft-hyphen": "de\u00admo",
    "lone-surrogate": "demo\udcff",
    "surrogate-escaped-bytes": os.fsdecode(b"demo\xff\xfe"),
}


def name_commands(empty: Path) -> dict[str, Callable[[str], list[str]]]:
    offline = ["--framework", "pytorch", "--offline", "--find-links", str(empty)]
    return {
        "env create": lambda n: ["env", "create", n, *offline],
        "env remove": lambda n: ["env", "remove", n],
        "test --env": lambda n: ["test", "--env", n],
    }


@pytest.mark.parametrize("command", ["env create", "env remove", "test --env"])
@pytest.mark.parametrize("name", list(BAD_NAMES), ids=list(BAD_NAMES))
def test_a_bad_name_is_refused_before_anything(
    name: str, command: str, work: Path, capsys: pytest.CaptureFixture[str]
):
    def check() -> None:
        empty = work / "wheels"
        empty.mkdir()
        before = tree_digest(home()), tree_digest(work)
        code, out, err = run_cli(name_commands(empty)[command](BAD_NAMES[name]), capsys)
        assert_refused(code, out, err)
        assert (tree_digest(home()), tree_digest(work)) == before

    counted(check)


@pytest.mark.parametrize(
    "name",
    ["demo\u202etxt", "de\u200bmo", "de\u2066mo", "de\u200dmo", "demo\udcff", "de\u200emo", "\ufeffdemo"],
)
def test_check_env_name_refuses_format_characters_and_lone_surrogates(name: str):
    with pytest.raises(EnvNameError) as refused:
        check_env_name(name)
    message = str(refused.value)
    assert message.isprintable() and "\n" not in message
    message.encode("utf-8")  # no lone surrogate left in the message


@pytest.mark.parametrize("name", ["torch-2.13 cu126", "实验", "café", "Lab_1", "naïve-env"])
def test_ordinary_names_are_still_accepted(name: str):
    assert check_env_name(name) == name


@pytest.mark.skipif(os.name == "nt", reason="argv bytes that are not UTF-8 exist on POSIX only")
@pytest.mark.parametrize(
    "argv",
    [
        [b"env", b"create", b"demo\xff", b"--framework", b"pytorch", b"--offline"],
        [b"env", b"remove", b"\xc3\x28"],
        [b"test", b"--env", b"\xed\xa0\x80"],
        [b"detect", b"--system", b"/nonexistent/\xff.json"],
    ],
    ids=["env-create", "env-remove", "test-env", "system-file-name"],
)
def test_argv_that_is_not_utf8_is_refused_in_one_line(argv: list[bytes], tmp_path: Path):
    def check() -> None:
        before = tree_digest(home())
        done = subprocess.run(
            [os.fsencode(ENTRY_POINT), *argv],
            capture_output=True,
            timeout=120,
            env={**os.environ, "PYTHONIOENCODING": "utf-8", "LC_ALL": "C.UTF-8"},
            check=False,
        )
        err = done.stderr.decode("utf-8", errors="replace")
        assert_refused(done.returncode, done.stdout.decode("utf-8", errors="replace"), err)
        assert tree_digest(home()) == before

    counted(check)


# --- the wizard's own damaged files ----------------------------------------------------------

DAMAGE: dict[str, bytes | int] = {
    "deep": b"[" * DEEP,
    "deep-balanced": b'{"schema": ' + b"[" * DEEP + b"]" * DEEP + b"}",
    "binary": noise(b"21", 2048),
    "not-utf8": b'{"schema": "\xff"}',
    "a-list": b"[]",
    "duplicate-key": b'{"schema": "x", "schema": "y"}',
    "over-limit": 256 * MiB + 1,
}
ENVIRONMENTS_WRONG_TYPES = {
    "environments-as-object": {"schema": "gpuwizard.environments/1", "environments": {}},
    "name-as-list": {"schema": "gpuwizard.environments/1", "environments": [{"name": [], "path": "/x"}]},
    "variables-as-list": {
        "schema": "gpuwizard.environments/1",
        "environments": [{"name": "a", "path": "/x", "variables": ["ab", "c"]}],
    },
}


def journal_entry(**changed: object) -> dict[str, object]:
    entry = {"id": "1", "time": "t", "registry": "live", "scope": "user", "key": "HKCU\\Environment",
             "name": "Path", "action": "add", "folders": [], "old": None, "new": None}  # fmt: skip
    return {**entry, **changed}


JOURNAL_WRONG_TYPES = {
    "entries-as-text": {"schema": "gpuwizard.path-journal/1", "entries": "abc"},
    "entry-as-number": {"schema": "gpuwizard.path-journal/1", "entries": [1]},
    "extra-as-list": {"schema": "gpuwizard.path-journal/1", "entries": [journal_entry(extra=["abc"])]},
    "old-as-text": {"schema": "gpuwizard.path-journal/1", "entries": [journal_entry(old="C:\\")]},
    "folders-as-text": {"schema": "gpuwizard.path-journal/1", "entries": [journal_entry(folders="C:\\x")]},
    "id-missing": {"schema": "gpuwizard.path-journal/1", "entries": [journal_entry(id=None)]},
}


@dataclass(frozen=True)
class DamagedState:
    """A state file damaged one way, the command that reads it, and what that command still prints."""

    name: str
    content: bytes | int
    argv: Callable[[Path], list[str]]
    says: str


def state_cases() -> Iterator[pytest.param]:
    recommend = ["recommend", "--framework", "pytorch", *ON_A_REPORT]
    readers: dict[str, tuple[Callable[[Path], list[str]], str]] = {
        "environments.json": (lambda w: ["env", "list", "--json"], "[]"),
        # Nothing else set up: the damaged state moved aside, there is nothing to verify (issue 20).
        "last-good.json": (
            lambda w: ["verify", "--no-test", "--no-record", *ON_A_REPORT],
            "Nothing to verify",
        ),
        "last-tests.json": (
            lambda w: ["report", "--out", str(w / "r.json"), "--no-probe", *ON_A_REPORT],
            "0 live tests",
        ),
        "cache/compat/index.json": (lambda w: recommend, "PyTorch"),
        "cache/compat/meta.json": (lambda w: recommend, "PyTorch"),
    }
    for name, (argv, says) in readers.items():
        damages = dict(DAMAGE)
        if name == "environments.json":
            damages.update({key: json_bytes(value) for key, value in ENVIRONMENTS_WRONG_TYPES.items()})
        for damage, content in damages.items():
            yield pytest.param(DamagedState(name, content, argv, says), id=f"{name}-{damage}")


@pytest.mark.parametrize("case", list(state_cases()))
def test_a_damaged_state_file_is_named_moved_aside_and_the_command_goes_on(
    case: DamagedState, tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    def check() -> None:
        damaged = home() / case.name
        if case.name == "cache/compat/meta.json":  # the cached copy is read only when complete
            put(home() / "cache/compat/bundle.json", b"{}")
            put(home() / "cache/compat/bundle.json.sig", b"c2ln")
        put(damaged, case.content)
        kept = file_digest(damaged)
        code, out, err = run_cli(case.argv(tmp_path), capsys)
        assert "Traceback" not in out + err
        assert code == 0, err[-2000:]
        assert case.says in out
        warnings = [line for line in err.splitlines() if damaged.name in line]
        assert len(warnings) == 1, err[-2000:]
        assert warnings[0].startswith("gpuwizard: warning: ") and ".bad" in warnings[0]
        assert not damaged.exists()
        assert file_digest(damaged.with_name(damaged.name + ".bad")) == kept

    counted(check)


def journal_cases() -> Iterator[pytest.param]:
    damages = {**DAMAGE, **{key: json_bytes(value) for key, value in JOURNAL_WRONG_TYPES.items()}}
    commands = {
        "history": ["path", "history"],
        "add": ["path", "add", "C:\\CUDA\\v12.1\\bin"],
        "undo": ["path", "undo"],
    }
    for damage, content in damages.items():
        for command, argv in commands.items():
            yield pytest.param(content, argv, id=f"{damage}-{command}")


@pytest.mark.parametrize(("content", "argv"), list(journal_cases()))
def test_a_damaged_path_journal_stops_path_commands_in_one_line(
    content: bytes | int, argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
):
    def check() -> None:
        registry = tmp_path / "registry.json"
        registry.write_bytes(REGISTRY.read_bytes())
        journal = home() / "path-journal.json"
        put(journal, content)
        before = tree_digest(home()), file_digest(registry)
        code, out, err = run_cli([*argv, "--registry", str(registry)], capsys)
        assert_refused(code, out, err)
        assert "path-journal.json" in err
        assert (tree_digest(home()), file_digest(registry)) == before

    counted(check)


def test_a_signed_bundle_nested_too_deep_is_refused_not_a_traceback(tmp_path: Path):
    from gpuwizard.workflow.compat.bundle import BundleRefused, sha256_line, verify_bundle
    from gpuwizard.workflow.compat.signing import decode_base64, new_key_pair, sign

    def check() -> None:
        private, public = new_key_pair()
        keys = {"test.pub": decode_base64(public, 32, "test key")}
        for raw in (
            b"[" * DEEP + b"]" * DEEP,
            b'{"schema": "gpuwizard.compat-bundle/1", "files": {}, "files": {}, "generated": "9999"}',
            b'{"schema": "gpuwizard.compat-bundle/1", "generated": NaN, "files": {}}',
        ):
            with pytest.raises(BundleRefused, match=r"not (valid )?JSON"):
                verify_bundle(raw, sha256_line(raw).encode(), sign(raw, private).encode(), keys)

    counted(check)


def test_zz_counts(capsys: pytest.CaptureFixture[str]):
    """The last test of the module: how many hostile cases ran here, and how many failed."""
    with capsys.disabled():
        print(f"\nhostile input: {COUNTS['tried']} cases tried, {COUNTS['failed']} failed")
    assert COUNTS["tried"] > 0
