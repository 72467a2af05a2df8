r"""Verify's fixes name the wizard as the person starts it (issue 37, point 2), and which PATH folders are checked (point 7).

The judging is pure: the workflow passes in how the wizard starts here (a
:class:`~gpuwizard.core.wizard_command.WizardCommand`), and each finding's command is written
with it, for cmd and PowerShell where a Windows path needs quotes.
"""

from __future__ import annotations

from builders.reports import machine
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.health.env_drift import EnvObservation, compare_environment, compare_test, env_fixes
from gpuwizard.core.health.machine_drift import compare_driver, compare_gpus
from gpuwizard.core.health.path_drift import compare_path, path_entries_to_check
from gpuwizard.core.health.snapshot import Snapshot, SnapshotEnv, SnapshotGpu, SnapshotPathEntry
from gpuwizard.core.livetest.events import result_from_json
from gpuwizard.core.wizard_command import WizardCommand

INSTALLED = r"C:\Program Files\gpuwizard\gpuwizard.exe"
WINDOWS = WizardCommand.of(INSTALLED, windows=True)
CMD = f'"{INSTALLED}"'
POWERSHELL = f"& '{INSTALLED}'"
CUDA_BIN = r"C:\Program Files\NVIDIA GPU Computing Toolkit\CUDA\v12.6\bin"
RTX = ("NVIDIA GeForce RTX 3060", "8.6")


def both(arguments: str) -> str:
    return f"{CMD} {arguments}   (cmd; in PowerShell: {POWERSHELL} {arguments})"


def hint(finding: Finding | None) -> str:
    assert finding is not None
    return finding.hint


def test_the_path_fix_and_history_name_the_program_for_both_shells():
    entry = SnapshotPathEntry("live", "user", CUDA_BIN)
    check = compare_path(entry, present=False, wizard=WINDOWS)
    assert check.finding is not None
    add = both(f'path add "{CUDA_BIN}" --scope user')
    assert check.finding.params["command"] == add
    assert f"Add it back: {add}" in check.finding.hint
    assert f"({both('path history')} shows what the wizard changed.)" in check.finding.hint
    in_file = compare_path(SnapshotPathEntry("file:/tmp/my reg.json", "user", "C:\\cuda"), present=False)
    assert in_file.finding is not None
    assert (
        in_file.finding.params["command"]
        == 'gpuwizard path add C:\\cuda --scope user --registry "/tmp/my reg.json"'
    )


def test_the_environment_fixes_name_the_program():
    env = SnapshotEnv(
        "my env", "/e/my env", "/e/my env/bin/python", "venv", "pytorch", "2.13.0", gpus_visible=1
    )
    fixes = env_fixes(env, windows=True, wizard=WINDOWS)
    assert fixes.recreate == both('env create "my env" --framework pytorch --version 2.13.0 --replace')
    assert fixes.verify == both("verify")
    lost = EnvObservation("my env", "pytorch", env.python, framework_build="2.13.0", gpus_visible=0)
    devices = next(c for c in compare_environment(env, lost, fixes=fixes) if c.kind == "devices")
    assert devices.status == "broken" and f"then run {both('verify')} again." in hint(devices.finding)
    worse = compare_test(
        "my env",
        "gpu_ok",
        result_from_json({"verdict": "broken"}),
        machine_has_nvidia_gpu=True,
        wizard=WINDOWS,
    )
    full_test = both('test --env "my env"')
    assert f"then run {full_test} for the full test." in hint(worse.finding)


def test_the_machine_findings_name_the_program():
    recorded = Snapshot(
        recorded="2026-01-05T10:00:00+00:00",
        driver_version="550.54.14",
        gpus=(SnapshotGpu(0, RTX[0], RTX[1]), SnapshotGpu(1, RTX[0], RTX[1])),
    )
    gone = compare_driver(recorded, machine(gpus=[RTX], driver=None), wizard=WINDOWS)
    assert f"run {both('verify')} again." in hint(gone.finding)
    fewer = compare_gpus(recorded, machine(gpus=[RTX], driver="550.54.14", cuda_max="12.4"), wizard=WINDOWS)
    assert f"Then run {both('verify')} again." in hint(fewer.finding)


def test_the_journal_folders_are_checked_beside_the_recorded_ones():
    recorded = [
        SnapshotPathEntry("live", "user", "C:\\CUDA\\bin"),
        SnapshotPathEntry("file:x", "user", "D:\\x"),
    ]
    owned = {("user", "c:\\cuda\\bin"): "C:\\CUDA\\bin", ("system", "c:\\tools"): "C:\\Tools"}
    assert path_entries_to_check(recorded, owned, "live") == [
        SnapshotPathEntry("live", "user", "C:\\CUDA\\bin"),
        SnapshotPathEntry("live", "system", "C:\\Tools"),
    ]
    # No last good state yet: the journal's folders alone.
    assert path_entries_to_check((), owned, "file:x") == [
        SnapshotPathEntry("file:x", "user", "C:\\CUDA\\bin"),
        SnapshotPathEntry("file:x", "system", "C:\\Tools"),
    ]
