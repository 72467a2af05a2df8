"""The install command shown for a folder of wheels with spaces in its path (issue 41).

The Choose page's "pip installs:" line (:meth:`PlanSources.install_line`), the ``install_command``
of ``env create --json``'s ``start`` event and ``recommend --json`` (:func:`sources_to_json`), and
the steps by hand of ``recommend`` (:func:`install_commands`) named ``--find-links /tmp/oc41
wheels 2.13 only torch``: a shell read four words. Each is read back here as a POSIX shell reads
it (:func:`shlex.split`); the Windows steps are checked as cmd and PowerShell take them.
"""

from __future__ import annotations

import shlex
from pathlib import Path

from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.presentation import install_commands
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.shell_commands import command_host
from gpuwizard.core.envs.package_sources import IndexSettings, PlanSources, plan_sources, sources_to_json
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.machine.system_file import load_system_report

SAMPLES = Path(__file__).parents[3] / "resources" / "samples"
FOLDER = "/tmp/oc41 wheels 2.13 only torch"
#: Two spaces in a row: a line that is split and joined again loses one.
TWO_SPACES = "/tmp/oc41  wheels ü"


def offline(folder: str, tool: str = "uv") -> PlanSources:
    return plan_sources(
        index_url="https://download.pytorch.org/whl/cpu",
        variant="cpu",
        tool=tool,
        settings=IndexSettings(),
        find_links=folder,
        offline=True,
    )


def after(words: list[str], option: str) -> str:
    return words[words.index(option) + 1]


def test_the_pip_installs_line_names_the_folder_as_one_word():
    line = offline(FOLDER).install_line(["torch==2.13.0"])
    assert line == f'uv pip install torch==2.13.0\n    --offline --no-index --find-links "{FOLDER}"'
    assert after(shlex.split(line), "--find-links") == FOLDER


def test_the_json_install_command_keeps_the_folder_whole():
    for folder in (FOLDER, TWO_SPACES):
        command = sources_to_json(offline(folder, "pip"), ["torch==2.13.0", "numpy<2"])["install_command"]
        assert "\n" not in command
        words = shlex.split(command)
        assert words[:4] == ["pip", "install", "torch==2.13.0", "numpy<2"]
        assert after(words, "--find-links") == folder


def test_a_folder_without_spaces_is_written_as_before():
    command = sources_to_json(offline("/tmp/wheels"), ["torch==2.13.0"])["install_command"]
    assert command == "uv pip install torch==2.13.0 --offline --no-index --find-links /tmp/wheels"


def steps(report: str, folder: str) -> list[str]:
    machine = load_system_report(SAMPLES / report)
    rec = recommend(machine, parse_wish("pytorch", "2.13", None, None), load_compat())
    options = offline(folder, "pip").index_options(shown=True)
    return install_commands(rec.plan, host=command_host(machine, rec.plan), index_options=options)


def test_the_steps_by_hand_quote_the_folder_for_a_posix_shell():
    pip = steps("linux-h200.json", FOLDER)[-1]
    assert pip.endswith(f"--no-index --find-links '{FOLDER}'")
    assert after(shlex.split(pip), "--find-links") == FOLDER


def test_the_steps_by_hand_quote_the_folder_for_cmd_and_powershell():
    folder = r"C:\Users\Zoë\oc41 wheels"
    pip = next(
        step for step in steps("windows-rtx2080super-two-cuda.json", folder) if step.startswith("pip ")
    )
    assert pip.endswith(f'--no-index --find-links "{folder}"')
    # A folder PowerShell would expand ($) gets its single quotes there, beside cmd's form.
    folder = r"C:\Users\Zoë\$wheels dir"
    pip = next(
        step for step in steps("windows-rtx2080super-two-cuda.json", folder) if step.startswith("pip ")
    )
    assert f'--find-links "{folder}"   (cmd; in PowerShell: ' in pip
    assert pip.endswith(f"--find-links '{folder}')")
