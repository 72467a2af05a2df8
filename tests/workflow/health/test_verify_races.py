"""Verify while another gpuwizard works on the same home: a test recorded, an environment replaced.

The environments are registry entries whose interpreter is this Python, and the env probe is
a stand-in runner that answers as ``probes/env_report.py`` does; the other writer is the public
function every live test records through (``record_good_state``), run on another thread while
the stand-in probe waits for it: verify is then between reading the last good state and
writing the new one, every time, without a sleep.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from builders.reports import machine
from gpuwizard.core.events import Event
from gpuwizard.core.health.checks import HealthReport
from gpuwizard.core.health.events import VerifyResult
from gpuwizard.core.livetest.events import result_from_json
from gpuwizard.workflow.health.good_state import load_last_good, record_good_state
from gpuwizard.workflow.health.verify import verify_setup
from gpuwizard.workflow.state.env_pending import PendingEnv, drop_pending, hold_creation, save_pending
from gpuwizard.workflow.state.env_registry import EnvRecord, save_record
from harness.waits import EVENT_S

NO_GPU = machine(gpus=[], driver=None)
#: What probes/env_report.py prints for the CPU build of torch 2.13.0.
PROBE = {
    "probe": "env_report", "ok": True, "python": "3.11.7", "framework_version": "2.13.0+cpu",
    "built_with_cuda": False, "cuda_build": None, "gpus": [], "cuda_wheels": None, "dll_hook": None,
}  # fmt: skip


def passed_test(samples_cpu: float) -> Any:
    return result_from_json(
        {"event": "result", "verdict": "cpu_only", "framework_version": "2.13.0+cpu",
         "built_with_cuda": False, "samples_per_s": {"gpu": None, "cpu": samples_cpu}}
    )  # fmt: skip


def register(name: str, folder: Path) -> EnvRecord:
    record = EnvRecord(
        name, str(folder / name), sys.executable, "venv", "pytorch", "2.13.0", framework_build="2.13.0+cpu"
    )
    save_record(record)
    return record


class StandInProbe:
    """Answers each env probe as env_report does; the n-th probe first runs ``during[n]``, if any."""

    def __init__(self, *during: Callable[[], None]) -> None:
        self.during = during
        self.probes = 0

    def stream(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        timeout: float | None = None,
        env_overrides: Mapping[str, str] | None = None,
        cwd: Path | None = None,
    ) -> int:
        del cancel, timeout, env_overrides, cwd
        assert Path(argv[2]).name == "env_report.py", argv
        if self.probes < len(self.during):
            self.during[self.probes]()
        self.probes += 1
        on_line(json.dumps(PROBE))
        return 0


def on_another_thread(action: Callable[[], None]) -> Callable[[], None]:
    """``action`` run by another thread while the probe waits for it to finish (as another wizard)."""

    def run() -> None:
        done = threading.Event()
        failure: list[BaseException] = []

        def body() -> None:
            try:
                action()
            except BaseException as error:  # noqa: BLE001 - handed to the test's thread
                failure.append(error)
            finally:
                done.set()

        threading.Thread(target=body, daemon=True).start()
        assert done.wait(EVENT_S), "the other writer did not finish"
        if failure:
            raise failure[0]

    return run


def verify(runner: StandInProbe, events: list[Event] | None = None) -> HealthReport:
    return verify_setup(
        detect=lambda: NO_GPU,
        runner=runner,  # type: ignore[arg-type] - only stream() is used by the env probe
        on_event=(events if events is not None else []).append,
        cancel=threading.Event(),
        short_test=False,
    )


def test_a_test_recorded_while_verify_runs_is_not_overwritten_by_its_stale_copy(tmp_path: Path):
    register("demo", tmp_path)
    assert record_good_state(NO_GPU, "demo", passed_test(100.0)) is not None
    before = load_last_good()
    assert before is not None

    def another_wizard_records() -> None:
        # `gpuwizard test demo` passes meanwhile, and a new environment is made and tested.
        assert record_good_state(NO_GPU, "demo", passed_test(999.0)) is not None
        register("other", tmp_path)
        assert record_good_state(NO_GPU, "other", passed_test(555.0)) is not None

    health = verify(StandInProbe(on_another_thread(another_wizard_records)))
    assert health.healthy
    after = load_last_good()
    assert after is not None and after.recorded != ""
    demo, other = after.environment("demo"), after.environment("other")
    assert demo is not None and demo.samples_per_s == {"gpu": None, "cpu": 999.0}
    assert other is not None and other.samples_per_s == {"gpu": None, "cpu": 555.0}
    assert [env.name for env in after.environments] == ["demo", "other"]


def test_verify_alone_still_records_its_own_findings(tmp_path: Path):
    register("demo", tmp_path)
    assert record_good_state(NO_GPU, "demo", passed_test(100.0)) is not None
    assert verify(StandInProbe()).healthy
    after = load_last_good()
    assert after is not None
    demo = after.environment("demo")
    assert demo is not None
    assert (demo.python_version, demo.gpus_visible, demo.test_verdict) == ("3.11.7", 0, "cpu_only")


def test_an_environment_being_replaced_is_skipped_not_broken_and_checked_next_time(tmp_path: Path):
    record = register("demo", tmp_path)
    assert record_good_state(NO_GPU, "demo", passed_test(100.0)) is not None
    recorded = load_last_good()
    assert recorded is not None
    # `env create demo --replace` in another gpuwizard: it holds the name's lock, has written its
    # record and moved the old environment aside, so its interpreter is gone for now.
    locks = hold_creation("demo", Path(record.path))
    save_pending(PendingEnv("demo", record.path, False, str(tmp_path / "demo.old"), str(tmp_path / "log")))
    missing = EnvRecord(
        "demo", record.path, str(tmp_path / "demo" / "bin" / "python"), "venv", "pytorch", "2.13.0"
    )
    save_record(missing)
    events: list[Event] = []
    runner = StandInProbe()
    try:
        health = verify(runner, events)
    finally:
        drop_pending("demo")
        locks.release()
    assert runner.probes == 0  # not probed at all
    env_checks = [check for check in health.checks if check.subject == "demo"]
    assert [check.kind for check in env_checks] == [
        "interpreter", "import", "build", "constraints", "devices", "test",
    ]  # fmt: skip
    assert {check.status for check in env_checks} == {"skipped"}
    assert all("being made by another gpuwizard" in (check.note or "") for check in env_checks)
    assert health.healthy and not health.broken
    result = events[-1]
    assert isinstance(result, VerifyResult)
    assert (result.status, result.healthy, result.counts["broken"]) == ("complete", True, 0)
    after = load_last_good()
    assert after is not None and after.environment("demo") == recorded.environment("demo")  # kept as it was

    # Next time, with nobody making it, it is checked: still without its interpreter, broken.
    again = verify(StandInProbe())
    statuses = {check.check_id: check.status for check in again.checks}
    assert statuses["env:demo:interpreter"] == "broken"
