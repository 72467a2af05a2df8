r"""The elevated PATH helper takes only the request the user agreed to (issue 19, point 6).

The request travels in a file of the user's temporary folder, which another program of the same
user could rewrite between the UAC prompt and the write. Its sha256 goes on the helper's command
line (fixed at the prompt); the helper reads the file once and checks the hash before it parses
anything or opens the registry. The live ``winreg`` part cannot run on Linux, so a stand-in
registry records whether the helper got that far (the Wine tests run the real one).

Elevated, the helper writes nothing but the registry value: no answer file, which another
program of the user's could have swapped for a link to a system file. Its exit code is its only
answer; the unelevated wizard reads the value back itself.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, ClassVar

import pytest

from gpuwizard.adapters.registry import SYSTEM_ENVIRONMENT_KEY, RegistryWriteError, RegValue, ValueChanged
from gpuwizard.workflow.pathedit import machine
from gpuwizard.workflow.pathedit.changes import PathChange
from gpuwizard.workflow.pathedit.machine import elevated_write, serve_elevated_request

OLD = RegValue("REG_EXPAND_SZ", r"%SystemRoot%\system32")
NEW = RegValue("REG_EXPAND_SZ", r"%SystemRoot%\system32;C:\CUDA\v11.2\bin")
REQUEST = {
    "key": SYSTEM_ENVIRONMENT_KEY,
    "name": "Path",
    "expected": {"type": OLD.type, "value": OLD.value},
    "new": {"type": NEW.type, "value": NEW.value},
}


class StandInRegistry:
    """Takes the place of ``WinregEnvironment`` in the helper (and of the wizard's store).

    Records every write it is asked for; compares like the real one, and reads back.
    """

    identity = "live"
    values: ClassVar[dict[tuple[str, str], RegValue]] = {}
    writes: ClassVar[list[tuple[str, str, RegValue | None, RegValue | None]]] = []
    fail: ClassVar[bool] = False

    def read_value(self, key: str, name: str) -> RegValue | None:
        return self.values.get((key, name.casefold()))

    def replace_value(
        self, key: str, name: str, expected: RegValue | None, new: RegValue | None
    ) -> RegValue | None:
        current = self.read_value(key, name)
        if current != expected:
            raise ValueChanged(key, name, current)
        if self.fail:
            raise RegistryWriteError(f"no permission to write {key}")
        self.writes.append((key, name, expected, new))
        if new is None:
            self.values.pop((key, name.casefold()), None)
        else:
            self.values[(key, name.casefold())] = new
        return new


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch) -> type[StandInRegistry]:
    StandInRegistry.values = {(SYSTEM_ENVIRONMENT_KEY, "path"): OLD}
    StandInRegistry.writes = []
    StandInRegistry.fail = False
    monkeypatch.setattr(machine, "WinregEnvironment", StandInRegistry)
    return StandInRegistry


def serve(tmp_path: Path, body: bytes, sha256: str) -> int:
    request = tmp_path / "request.json"
    request.write_bytes(body)
    code = serve_elevated_request(request, sha256)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["request.json"]  # no answer file
    assert request.read_bytes() == body
    return code


def agreed(data: Any = REQUEST) -> tuple[bytes, str]:
    body = json.dumps(data).encode("utf-8")
    return body, hashlib.sha256(body).hexdigest()


def test_the_request_agreed_to_is_written(tmp_path: Path, registry: type[StandInRegistry]):
    assert serve(tmp_path, *agreed()) == machine.ELEVATED_WRITTEN == 0
    assert registry.writes == [(SYSTEM_ENVIRONMENT_KEY, "Path", OLD, NEW)]


def test_a_value_changed_since_it_was_read_is_exit_code_3_and_not_written(
    tmp_path: Path, registry: type[StandInRegistry]
):
    registry.values[(SYSTEM_ENVIRONMENT_KEY, "path")] = RegValue("REG_SZ", r"C:\other")
    assert serve(tmp_path, *agreed()) == machine.ELEVATED_VALUE_CHANGED == 3
    assert registry.writes == []


def test_a_failed_registry_write_is_exit_code_5(tmp_path: Path, registry: type[StandInRegistry]):
    registry.fail = True
    assert serve(tmp_path, *agreed()) == machine.ELEVATED_WRITE_FAILED == 5
    assert registry.writes == []


def test_a_request_changed_after_consent_is_refused_before_the_registry_is_touched(
    tmp_path: Path, registry: type[StandInRegistry]
):
    _body, agreed_hash = agreed()
    # Another program of the user's swaps in a different PATH after the prompt was accepted.
    swapped = dict(REQUEST, new={"type": "REG_EXPAND_SZ", "value": r"C:\Users\Public\evil"})
    assert serve(tmp_path, json.dumps(swapped).encode("utf-8"), agreed_hash) == machine.ELEVATED_REFUSED == 4
    assert registry.writes == []


@pytest.mark.parametrize("sha256", ["", "not-a-hash", "0" * 63, "g" * 64])
def test_a_missing_or_malformed_hash_is_refused(tmp_path: Path, registry: type[StandInRegistry], sha256: str):
    assert serve(tmp_path, json.dumps(REQUEST).encode("utf-8"), sha256) == machine.ELEVATED_REFUSED
    assert registry.writes == []


def test_the_hash_is_checked_on_the_bytes_not_on_what_they_parse_to(
    tmp_path: Path, registry: type[StandInRegistry]
):
    _body, agreed_hash = agreed()
    same_json_other_bytes = json.dumps(REQUEST, indent=1).encode("utf-8")
    assert serve(tmp_path, same_json_other_bytes, agreed_hash) == machine.ELEVATED_REFUSED
    assert registry.writes == []


@pytest.mark.parametrize(
    "data",
    [
        dict(REQUEST, key="HKLM\\SOFTWARE\\Evil"),
        dict(REQUEST, name="ComSpec"),
        dict(REQUEST, new={"type": "REG_SZ"}),
        {"nonsense": True},
        ["not", "an", "object"],
    ],
)
def test_a_request_for_anything_but_an_environment_path_is_refused(
    tmp_path: Path,
    registry: type[StandInRegistry],
    data: Any,
):
    assert serve(tmp_path, *agreed(data)) == machine.ELEVATED_REFUSED
    assert registry.writes == []


def test_not_json_is_refused(tmp_path: Path, registry: type[StandInRegistry]):
    body = b"\xff\xfe not json"
    assert serve(tmp_path, body, hashlib.sha256(body).hexdigest()) == machine.ELEVATED_REFUSED
    assert registry.writes == []


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a privilege on Windows")
@pytest.mark.parametrize("write_fails", [False, True])
def test_the_helper_never_opens_a_result_path_planted_in_its_folder(
    tmp_path: Path, registry: type[StandInRegistry], write_fails: bool
):
    # The old answer file's name, swapped for a link to a "system" file before the helper ran.
    system_file = tmp_path / "system" / "config.sys"
    system_file.parent.mkdir()
    system_file.write_bytes(b"precious")
    folder = tmp_path / "gpuwizard-elevated-x"
    folder.mkdir()
    (folder / "result.json").symlink_to(system_file)
    (folder / "request.json").write_bytes(agreed()[0])
    registry.fail = write_fails
    code = serve_elevated_request(folder / "request.json", agreed()[1])
    assert code == (machine.ELEVATED_WRITE_FAILED if write_fails else machine.ELEVATED_WRITTEN)
    assert system_file.read_bytes() == b"precious"
    assert (folder / "result.json").readlink() == system_file
    assert sorted(p.name for p in folder.iterdir()) == ["request.json", "result.json"]


def change() -> PathChange:
    return PathChange("system", SYSTEM_ENVIRONMENT_KEY, "add", (r"C:\CUDA\v11.2\bin",), OLD, NEW)


def helper_argv(argv: list[str]) -> tuple[Path, str]:
    """The request file and hash of the helper's command line: nothing else (no result path)."""
    at = argv.index("_elevated-write")
    request, flag, digest = argv[at + 1 :]
    assert flag == "--sha256"
    return Path(request), digest


def test_elevated_write_puts_the_requests_hash_on_the_command_line(
    monkeypatch: pytest.MonkeyPatch, registry: type[StandInRegistry]
):
    seen: list[list[str]] = []

    def run_elevated(argv: list[str], **_kwargs: Any) -> int:  # the user says yes at the prompt
        seen.append(list(argv))
        request, digest = helper_argv(argv)
        assert hashlib.sha256(request.read_bytes()).hexdigest() == digest
        code = serve_elevated_request(request, digest)
        assert sorted(p.name for p in request.parent.iterdir()) == ["request.json"]
        return code

    monkeypatch.setattr(machine, "run_elevated", run_elevated)
    assert elevated_write(StandInRegistry(), change()) == NEW  # read back by the wizard itself
    assert len(seen) == 1
    assert registry.writes == [(SYSTEM_ENVIRONMENT_KEY, "Path", OLD, NEW)]


def test_elevated_write_fails_when_the_request_is_swapped_between_consent_and_write(
    monkeypatch: pytest.MonkeyPatch, registry: type[StandInRegistry]
):
    def run_elevated(argv: list[str], **_kwargs: Any) -> int:
        request, digest = helper_argv(argv)
        data = json.loads(request.read_text("utf-8"))
        data["new"]["value"] = r"C:\Users\Public\evil"
        request.write_text(json.dumps(data), "utf-8")  # after the prompt, before the helper reads
        return serve_elevated_request(request, digest)

    monkeypatch.setattr(machine, "run_elevated", run_elevated)
    with pytest.raises(RegistryWriteError, match="sha256"):
        elevated_write(StandInRegistry(), change())
    assert registry.writes == []


def test_elevated_write_reads_the_current_value_itself_when_it_changed(
    monkeypatch: pytest.MonkeyPatch, registry: type[StandInRegistry]
):
    other = RegValue("REG_SZ", r"C:\changed")
    registry.values[(SYSTEM_ENVIRONMENT_KEY, "path")] = other

    def run_elevated(argv: list[str], **_kwargs: Any) -> int:
        return serve_elevated_request(*helper_argv(argv))

    monkeypatch.setattr(machine, "run_elevated", run_elevated)
    with pytest.raises(ValueChanged) as changed:
        elevated_write(StandInRegistry(), change())
    assert changed.value.current == other
    assert registry.writes == []


@pytest.mark.parametrize(
    ("code", "message"),
    [
        (4, "refused"),
        (5, "could not write"),
        (1, "exit code 1"),
        (2, "exit code 2"),
        # A crashed helper (issue 37): its NTSTATUS in words, not a bare number.
        (0xC0000135, "exit code 3221225781: 0xC0000135 STATUS_DLL_NOT_FOUND"),
    ],
)
def test_elevated_write_turns_the_helpers_other_exit_codes_into_errors(
    monkeypatch: pytest.MonkeyPatch, registry: type[StandInRegistry], code: int, message: str
):
    monkeypatch.setattr(machine, "run_elevated", lambda _argv, **_kwargs: code)
    with pytest.raises(RegistryWriteError, match=message):
        elevated_write(StandInRegistry(), change())
