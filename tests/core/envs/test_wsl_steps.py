"""The steps sent into a WSL 2 distro, as data: argv lists, what they read, make and undo.

What they do when run is tests/workflow/envs/test_wsl_create.py's; here, what they are: no
shell anywhere (a name is one argument, whatever it holds), a login never on a command line,
uv downloading a Python only in the step that says so, and every step that makes part of the
environment undone by the marker of this run's id. (uv's binary out of its wheel is
tests/core/envs/test_uv_wheel.py's.)
"""

from __future__ import annotations

import hashlib
import json

import pytest

from gpuwizard.core.envs.uv_wheel import UvBinary
from gpuwizard.core.envs.wsl_steps import (
    DISTRO_PYTHON,
    HELPER_BOOT,
    WslEnvRequest,
    WslHome,
    WslPayloads,
    creation_steps,
    framed,
    home_step,
    live_test_step,
    removal_steps,
    stop_step,
)

HELPER = b"print('the helper')\n"
UV = UvBinary.of(b"\x7fELF uv stand-in", "0.13.9")
PROBES = {"env_report.py": "print('report')\n", "cuda_libraries.py": "\n"}
SENT = WslPayloads(helper=HELPER, uv=UV, probes=PROBES)
HOME = WslHome("/home/ana/.local/share/gpuwizard", "a" * 32, made=True)
ENV_ID = "b" * 32
# Quotes, a dollar sign and a semicolon: each would mean something to a shell.
NAME = "ana's tf $(x);y"
ENV = f"{HOME.path}/envs/{NAME}"


def request(**changes: object) -> WslEnvRequest:
    values: dict[str, object] = {
        "name": NAME,
        "framework": "tensorflow",
        "framework_version": "2.21.0",
        "python": "3.12",
        "requirements": ("tensorflow[and-cuda]==2.21.0",),
    }
    values.update(changes)
    return WslEnvRequest(**values)  # type: ignore[arg-type]


def steps_of(**changes: object) -> dict[str, object]:
    return {step.key: step for step in creation_steps(request(**changes), HOME, SENT, env_id=ENV_ID)}


def tool_argv(step: object) -> list[str]:
    argv = list(step.argv)  # type: ignore[attr-defined]
    return argv[argv.index("--") + 1 :]


def test_the_steps_come_in_order_and_each_runs_the_distros_own_python():
    steps = creation_steps(request(), HOME, SENT, env_id=ENV_ID)
    assert [step.key for step in steps] == ["uv", "env", "venv", "install", "probes", "verify"]
    for step in steps:
        assert all(isinstance(part, str) for part in step.argv)
        # By full path: a bare python3 could find the Microsoft Store's python3.exe through
        # the Windows folders WSL appends to PATH.
        assert step.argv[:4] == (DISTRO_PYTHON, "-I", "-c", HELPER_BOOT)
        assert step.stdin is not None and step.stdin.startswith(framed(HELPER))


def test_a_name_a_shell_would_read_is_one_argument_everywhere():
    for step in creation_steps(request(), HOME, SENT, env_id=ENV_ID):
        for part in step.argv:
            # The name is the whole argument, or the last part of a path: never cut or quoted.
            assert NAME not in part or part in {NAME, ENV, f"{ENV}/bin/python"}, part
    steps = steps_of()
    assert tuple(steps["env"].argv[-4:-2]) == ("--name", NAME)  # type: ignore[attr-defined]
    assert tool_argv(steps["venv"])[-1] == ENV
    assert tool_argv(steps["install"])[4:6] == ["--python", f"{ENV}/bin/python"]


def test_online_uv_installs_from_pypi_and_downloads_no_python_unless_asked():
    steps = steps_of()
    venv, install = tool_argv(steps["venv"]), tool_argv(steps["install"])
    assert venv[:5] == [
        f"{HOME.path}/bin/uv",
        "venv",
        "--no-config",
        "--allow-existing",
        "--no-python-downloads",
    ]
    assert "--offline" not in venv and venv[-3:] == ["--python", "3.12", ENV]
    assert install == [
        f"{HOME.path}/bin/uv",
        "pip",
        "install",
        "--no-config",
        "--python",
        f"{ENV}/bin/python",
        "tensorflow[and-cuda]==2.21.0",
        "pip",
    ]
    for key in ("venv", "install"):
        variables = steps[key].variables  # type: ignore[attr-defined]
        assert variables["UV_PYTHON_DOWNLOADS"] == "never"
        # uv's Pythons and cache stay in the wizard's folder: removing it removes them.
        assert variables["UV_PYTHON_INSTALL_DIR"] == f"{HOME.path}/python"
        assert variables["UV_CACHE_DIR"] == f"{HOME.path}/cache"
    assert "python" not in steps


def test_a_python_the_distro_lacks_is_installed_by_uv_in_a_step_of_its_own():
    steps = steps_of(python_download=True)
    assert list(steps)[:3] == ["uv", "env", "python"]
    python = steps["python"]
    assert tool_argv(python) == [f"{HOME.path}/bin/uv", "python", "install", "--no-config", "3.12"]
    assert python.variables["UV_PYTHON_DOWNLOADS"] == "automatic"  # type: ignore[attr-defined]
    assert steps["venv"].variables["UV_PYTHON_DOWNLOADS"] == "never"  # type: ignore[attr-defined]


def test_offline_installs_only_from_the_folder_in_the_distro():
    steps = steps_of(offline=True, find_links="/mnt/c/Users/ana/wheels", seed_pip=False)
    assert "--offline" in tool_argv(steps["venv"])
    install = tool_argv(steps["install"])
    assert install[6:] == [
        "--offline",
        "--no-index",
        "--find-links",
        "/mnt/c/Users/ana/wheels",
        "tensorflow[and-cuda]==2.21.0",
    ]


def test_a_mirrors_login_is_sent_on_standard_input_never_on_a_command_line():
    mirror = "https://ana:s3cret@mirror.example/simple"
    steps = creation_steps(request(index_url=mirror), HOME, SENT, env_id=ENV_ID)
    assert all("s3cret" not in part for step in steps for part in step.argv)
    install = {step.key: step for step in steps}["install"]
    assert install.variables["UV_DEFAULT_INDEX"] == mirror
    sent = json.loads(install.stdin.removeprefix(framed(HELPER)))  # type: ignore[union-attr]
    assert sent["env"]["UV_DEFAULT_INDEX"] == mirror
    assert "s3cret" not in install.command_line()
    assert "UV_DEFAULT_INDEX=https://***@mirror.example/simple" in install.command_line()
    plain = steps_of(index_url="https://mirror.example/simple")["install"]
    assert tool_argv(plain)[6:8] == ["--index-url", "https://mirror.example/simple"]


def test_uv_is_sent_with_its_sha256_for_the_distro_to_check():
    step = steps_of()["uv"]
    assert step.argv[4:] == ("install-uv", "--sha256", UV.sha256)  # type: ignore[attr-defined]
    assert step.stdin == framed(HELPER, UV.data)  # type: ignore[attr-defined]
    assert UV.sha256 == hashlib.sha256(UV.data).hexdigest()
    assert step.creates == (f"{HOME.path}/bin/uv",)  # type: ignore[attr-defined]
    # The bytes go in the log as what they are, never as themselves.
    assert UV.sha256 in step.command_line() and "ELF" not in step.command_line()  # type: ignore[attr-defined]


def test_the_probes_are_sent_as_files_and_the_report_probe_runs_with_the_environments_python():
    steps = steps_of()
    probes = steps["probes"]
    assert json.loads(probes.stdin.removeprefix(framed(HELPER))) == {"files": PROBES}  # type: ignore[attr-defined]
    assert tool_argv(steps["verify"]) == [
        f"{ENV}/bin/python",
        "-I",
        f"{HOME.path}/probes/env_report.py",
        "--framework",
        "tensorflow",
    ]
    assert steps["verify"].output == "report"  # type: ignore[attr-defined]


def test_what_makes_the_environment_is_undone_by_the_marker_of_this_runs_id_only():
    steps = steps_of()
    removal = ("remove-env", "--name", NAME, "--id", ENV_ID)
    for key in ("env", "venv", "install"):
        undo = steps[key].undo  # type: ignore[attr-defined]
        assert undo is not None and undo.argv[4:] == removal
    # A name refused because it is taken is not the run's to remove.
    assert steps["env"].undo_only_if_made  # type: ignore[attr-defined]
    # uv and the probes are the wizard's folder's: they go with it.
    assert steps["uv"].undo is None and steps["probes"].undo is None  # type: ignore[attr-defined]
    home = home_step(HELPER, "c" * 32, wsl_lib="/recorded/wsl/lib")
    assert home.argv[4:] == ("home", "--home-id", "c" * 32, "--wsl-lib", "/recorded/wsl/lib")
    assert home.undo is not None and home.undo.argv[4:] == ("remove-home", "--id", "c" * 32)
    assert home.undo_only_if_made


def test_tools_run_under_an_id_a_stop_step_can_end():
    steps = [step for step in creation_steps(request(), HOME, SENT, env_id=ENV_ID) if step.run_id]
    assert [step.key for step in steps] == ["venv", "install", "verify"]
    assert len({step.run_id for step in steps}) == 3
    for step in steps:
        assert step.argv[4:7] == ("run", "--run-id", step.run_id)
        assert stop_step(HELPER, step.run_id).argv[4:] == ("stop", "--run-id", step.run_id)  # type: ignore[arg-type]


def test_the_live_test_and_the_removal_steps():
    test = live_test_step(HELPER, HOME.path, NAME, "tensorflow", run_id="d" * 32, probe_args=("--cpu-only",))
    assert tool_argv(test) == [
        f"{ENV}/bin/python",
        "-I",
        f"{HOME.path}/probes/train_test.py",
        "--framework",
        "tensorflow",
        "--cpu-only",
    ]
    assert test.output == "live_test"
    only_env = removal_steps(HELPER, NAME, ENV_ID, None)
    assert [step.argv[4] for step in only_env] == ["remove-env"]
    with_home = removal_steps(HELPER, NAME, ENV_ID, "c" * 32)
    assert [step.argv[4:] for step in with_home][1] == ("remove-home", "--id", "c" * 32)


def test_requests_that_cannot_be_carried_out_are_refused():
    with pytest.raises(ValueError, match="offline needs find_links"):
        request(offline=True)
    with pytest.raises(ValueError, match="downloads no Python"):
        request(offline=True, find_links="/mnt/c/w", python_download=True)
    with pytest.raises(ValueError, match="not a plain name"):
        request(name="../etc")
