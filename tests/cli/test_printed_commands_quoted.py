"""Commands printed with a name or a path that holds spaces or letters outside ASCII run as printed (issue 41).

An outside check found them unquoted: ``gpuwizard env create ünï gpu --framework pytorch --version
2.13.0 --from-pypi.`` (a period glued on too), ``--find-links /tmp/oc41 wheels 2.13 only torch`` in
``env create --json``'s ``start`` event, and ``python -m pip install -r req ü.txt`` in an exported
requirements file. Here the real entry point prints them, and each is read as a POSIX shell
reads it (:func:`shlex.split`) or run by ``sh -c`` as printed; a Windows machine's exported file
is checked for cmd's and PowerShell's quoting.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from builders.wheels import build_wheel, bundled_pip_wheel, tiny_torch
from harness.entry_point import gpuwizard
from harness.http_server import asking, closed_port, serve
from harness.waits import EVENT_S

REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"
NO_GPU = Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))
WINDOWS = REPORTS / "windows-rtx3060-546.33.json"


@pytest.fixture
def home() -> Path:
    return Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)


def events_of(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def wizard_words(line: str) -> list[str]:
    """The words after the program (``gpuwizard``, its full path, or ``python -m gpuwizard``)."""
    words = shlex.split(line)
    return words[words.index("env") :]


def test_pypis_build_is_offered_with_the_name_as_one_word_and_no_period(home: Path):
    name = "ünï gpu"
    with serve(tls=True) as pypi:
        pypi.put("/simple/torch/", "<html></html>", content_type="text/html")
        pypi.put("/simple/pip/", "<html></html>", content_type="text/html")
        variables = asking(
            GPUWIZARD_PYTORCH_INDEX_URL=f"https://127.0.0.1:{closed_port()}/whl",
            UV_DEFAULT_INDEX=f"{pypi.url}/simple",
            PIP_INDEX_URL=f"{pypi.url}/simple",
        )
        wish = ("env", "create", name, "--framework", "pytorch", "--version", "2.13")
        text = gpuwizard(*wish, env=variables)
        as_json = gpuwizard(*wish, "--json", env=variables)
    assert text.returncode == 2, text.stdout + text.stderr
    lines = text.stdout.splitlines()
    at = next(number for number, line in enumerate(lines) if "Install it from PyPI instead" in line)
    # The hint's sentence, then the command on a line of its own, whole, with nothing glued on.
    assert lines[at].rstrip().endswith("Install it from PyPI instead of PyTorch's index:")
    command = lines[at + 1].strip()
    assert not command.endswith(".")
    expected = ["env", "create", name, "--framework", "pytorch", "--version", "2.13.0", "--from-pypi"]
    assert wizard_words(command) == expected

    (sources,) = events_of(as_json.stdout)
    route = next(finding for finding in sources["findings"] if finding["code"] == "PYPI_BUILD_AVAILABLE")
    assert route["params"]["command"] == command and route["params"]["name"] == name
    assert route["hint"] == f"Install it from PyPI instead of PyTorch's index: {command}"
    assert not (home / "envs").exists()


@pytest.mark.slow
def test_the_start_events_install_command_and_the_log_name_the_folders_as_one_word(
    tmp_path: Path, home: Path
):
    folder = tmp_path / "oc41 wheels 2.13 only torch"
    tiny_torch(folder, "2.13.0")
    build_wheel(folder, "tinyextra", "1.0")
    bundled = bundled_pip_wheel()
    (folder / bundled.name).write_bytes(bundled.read_bytes())
    done = gpuwizard(
        "env", "create", "mein Labor ü", "--framework", "pytorch", "--version", "2.13",
        "--find-links", str(folder), "--offline", "--with", "tinyextra<2", "--json", timeout=EVENT_S,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    start = next(event for event in events_of(done.stdout) if event["event"] == "start")
    command = start["package_sources"]["install_command"]
    words = shlex.split(command)
    assert words[words.index("--find-links") + 1] == str(folder)
    assert "tinyextra<2" in words  # a specifier is one word too, not a redirection
    assert start["package_sources"]["find_links"] == str(folder)
    # The log's commands too: the environment's folder, "mein Labor ü" and all, is one word.
    prefix = start["path"]
    logged = [
        shlex.split(line.removeprefix("$ "))
        for line in Path(start["log"]).read_text(encoding="utf-8").splitlines()
        if line.startswith("$ ")
    ]
    assert all("Labor" not in word or word.startswith(prefix) for words in logged for word in words), logged
    assert [f"{prefix}/bin/python", "-I"] in [words[:2] for words in logged]  # the import check


@pytest.mark.slow
def test_the_offered_release_runs_as_printed_for_a_name_a_shell_would_expand(tmp_path: Path, home: Path):
    # A folder of another release the wizard knows: the refusal offers the same command with
    # --version, which sh runs as printed (double quotes would have expanded $HOME).
    older = json.loads(gpuwizard("recommend", "--framework", "pytorch", "--version", "2.13", "--json").stdout)
    folder = tmp_path / "my wheels ü"
    build_wheel(folder, "torch", f"2.13.0+{older['plan']['torch_variant']}")
    name = "lab $HOME ü"
    done = gpuwizard(
        "env", "create", name, "--framework", "pytorch", "--find-links", str(folder), "--offline", timeout=300
    )
    assert done.returncode == 2, done.stdout[-2000:] + done.stderr
    offered = [line.strip() for line in done.stdout.splitlines() if " env create " in line]
    assert len(offered) == 1, done.stdout
    words = wizard_words(offered[0])
    assert words[2] == name and words[words.index("--find-links") + 1] == str(folder)

    ran = subprocess.run(["sh", "-c", offered[0]], capture_output=True, text=True, timeout=300, check=False)

    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr
    listed = json.loads(gpuwizard("env", "list", "--json").stdout)
    assert [entry["name"] for entry in listed] == [name]


def exported(out: Path, fmt: str, system: Path) -> str:
    done = gpuwizard("export", "--format", fmt, "--out", str(out), "--framework", "pytorch", "--version", "2.13",
                     "--system", str(system))  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out.read_text(encoding="utf-8")


def comment(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.startswith(f"# {start}")).removeprefix(
        f"# {start}"
    )


def test_the_requirements_files_install_command_runs_as_printed(tmp_path: Path):
    folder = tmp_path / "x dir"
    folder.mkdir()
    out = folder / "req ü.txt"
    text = exported(out, "requirements", NO_GPU)
    command = comment(text, "Install, with Python ").split(": ", 1)[1]
    assert shlex.split(command) == ["python", "-m", "pip", "install", "-r", "req ü.txt"]

    # Run in the file's folder by sh, as printed: pip reads the file (the local wheel, no index).
    wheels = tmp_path / "wheels"
    build_wheel(wheels, "torch", "2.13.0+cpu")
    variables = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    variables.update(
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.defpath]),
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheels),
        PIP_DRY_RUN="1",
        PIP_IGNORE_INSTALLED="1",
    )
    ran = subprocess.run(
        ["sh", "-c", command],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,
        env=variables,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-2000:] + ran.stderr[-2000:]
    assert "Would install torch-2.13.0+cpu" in ran.stdout


def test_the_environment_files_create_command_names_it_as_one_word(tmp_path: Path):
    text = exported(tmp_path / "env ü.yml", "environment.yml", NO_GPU)
    create = comment(text, "Create: ")
    command, alternative = create.split("  (or ", 1)
    assert shlex.split(command) == ["conda", "env", "create", "-f", "env ü.yml"]
    assert alternative == "mamba / micromamba create -f 'env ü.yml')"


def test_a_windows_machines_file_is_quoted_for_cmd_and_powershell(tmp_path: Path):
    text = exported(tmp_path / "req ü.txt", "requirements", WINDOWS)
    assert comment(text, "Install, with Python ").endswith(': python -m pip install -r "req ü.txt"')
    text = exported(tmp_path / "env ü.yml", "environment.yml", WINDOWS)
    assert (
        comment(text, "Create: ")
        == 'conda env create -f "env ü.yml"  (or mamba / micromamba create -f "env ü.yml")'
    )
