"""Every command the wizard prints runs as printed, on or off PATH (issue 37, point 2).

The Windows installer need not put ``gpuwizard`` on PATH, and a name PATH does not reach is
"not recognized". So the advice names the program by its full path wherever PATH does not find
this very one: the wizard is started here through the real entry point, with a PATH that has no
``gpuwizard`` (``/usr/bin:/bin``), once as the venv's script and once through a link in a folder
with a space; what it prints is read as a POSIX shell reads it (:func:`shlex.split`) and run.
With the program on PATH the advice says plain ``gpuwizard``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from harness.entry_point import ENTRY_POINT

USER = "HKCU\\Environment"
CUDA_BIN = "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v12.6\\bin"
#: A PATH without any ``gpuwizard``.
NO_WIZARD = os.pathsep.join(["/usr/bin", "/bin"])
NO_GPU = str(resources.files("gpuwizard.resources").joinpath("samples/no-gpu.json"))


def run(argv: list[str], path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        argv, capture_output=True, text=True, timeout=120, check=False, env={**os.environ, "PATH": path}
    )


@pytest.fixture(params=["venv-script", "folder-with-a-space"])
def program(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The wizard as the person starts it: the venv's script, or a link to it under ``my tools``."""
    if request.param == "venv-script":
        return ENTRY_POINT
    folder = tmp_path / "my tools"
    folder.mkdir()
    (folder / "gpuwizard").symlink_to(ENTRY_POINT)
    return str(folder / "gpuwizard")


def registry(tmp_path: Path) -> Path:
    file = tmp_path / "registry.json"
    file.write_text(json.dumps({USER: {"Path": {"type": "REG_EXPAND_SZ", "value": "%USERPROFILE%\\bin"}}}))
    return file


def user_path(file: Path) -> str:
    return str(json.loads(file.read_text())[USER]["Path"]["value"])


def check_event(done: subprocess.CompletedProcess[str], check_id: str) -> dict[str, Any]:
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    return next(event for event in events if event.get("check_id") == check_id)


def test_off_path_each_printed_command_names_the_program_and_runs(program: str, tmp_path: Path):
    file = registry(tmp_path)
    quoted = shlex.quote(program)
    added = run([program, "path", "add", CUDA_BIN, "--scope", "user", "--registry", str(file)], NO_WIZARD)
    assert added.returncode == 0, added.stderr
    undo = re.search(r"Recorded in the PATH journal; '(.*)' reverts it\.", added.stdout)
    assert undo is not None, added.stdout
    assert undo[1] == f"{quoted} path undo --registry {file}"

    # The first verify records the folder; then an installer rewrites PATH without it.
    assert (
        run([program, "verify", "--system", NO_GPU, "--registry", str(file), "--json"], NO_WIZARD).returncode
        == 0
    )
    data = json.loads(file.read_text())
    data[USER]["Path"]["value"] = "%USERPROFILE%\\bin;C:\\SomeApp"
    file.write_text(json.dumps(data))
    broken = run([program, "verify", "--system", NO_GPU, "--registry", str(file), "--json"], NO_WIZARD)
    assert broken.returncode == 1, broken.stderr
    finding = check_event(broken, f"path:user:{CUDA_BIN}")["finding"]
    fix = finding["params"]["command"]
    assert fix == f'{quoted} path add "{CUDA_BIN}" --scope user --registry {file}'
    assert f"Add it back: {fix}" in finding["hint"]
    assert f"({quoted} path history --registry {file} shows" in finding["hint"]
    text = run([program, "verify", "--system", NO_GPU, "--registry", str(file)], NO_WIZARD)
    assert f"then run `{quoted} verify` again." in text.stdout

    # What was printed runs as printed, on that same PATH.
    fixed = run(shlex.split(fix), NO_WIZARD)
    assert fixed.returncode == 0, fixed.stderr
    assert CUDA_BIN in user_path(file)
    assert run([program, "verify", "--system", NO_GPU, "--registry", str(file)], NO_WIZARD).returncode == 0
    history = run(shlex.split(f"{quoted} path history --registry {file}"), NO_WIZARD)
    assert history.returncode == 0, history.stderr

    reverted = run(shlex.split(undo[1]), NO_WIZARD)
    assert reverted.returncode == 0, reverted.stderr
    assert CUDA_BIN not in user_path(file)


def test_off_path_the_hints_without_a_change_name_the_program_too(program: str):
    quoted = shlex.quote(program)
    listed = run([program, "env", "list"], NO_WIZARD)
    assert listed.returncode == 0, listed.stderr
    assert f"(create one with `{quoted} env create NAME --framework F`)" in listed.stdout
    nothing = run([program, "verify", "--system", NO_GPU], NO_WIZARD)
    assert nothing.returncode == 0, nothing.stderr
    assert f"Run `{quoted}` to set up." in nothing.stdout
    unknown = run([program, "test", "--env", "nope"], NO_WIZARD)
    assert f"(see `{quoted} env list`)" in unknown.stderr
    # Each runs as printed.
    assert run([*shlex.split(quoted), "env", "list"], NO_WIZARD).returncode == 0


def test_on_path_the_advice_says_gpuwizard(tmp_path: Path):
    file = registry(tmp_path)
    on_path = os.pathsep.join([str(Path(ENTRY_POINT).parent), NO_WIZARD])
    added = run([ENTRY_POINT, "path", "add", CUDA_BIN, "--scope", "user", "--registry", str(file)], on_path)
    assert added.returncode == 0, added.stderr
    assert (
        f"Recorded in the PATH journal; 'gpuwizard path undo --registry {file}' reverts it." in added.stdout
    )
    assert run([ENTRY_POINT, "verify", "--system", NO_GPU, "--registry", str(file)], on_path).returncode == 0
    data = json.loads(file.read_text())
    data[USER]["Path"]["value"] = "%USERPROFILE%\\bin"
    file.write_text(json.dumps(data))
    broken = run([ENTRY_POINT, "verify", "--system", NO_GPU, "--registry", str(file), "--json"], on_path)
    fix = check_event(broken, f"path:user:{CUDA_BIN}")["finding"]["params"]["command"]
    assert fix == f'gpuwizard path add "{CUDA_BIN}" --scope user --registry {file}'
    assert run(shlex.split(fix), on_path).returncode == 0
