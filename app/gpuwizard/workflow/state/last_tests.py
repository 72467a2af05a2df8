"""The most recent live test of each environment, kept in ``GPUWIZARD_HOME/last-tests.json``.

The last good state (``last-good.json``) keeps only tests that passed; a support report also
needs the ones that failed, with their findings. So every live test that ends (not cancelled)
replaces the record of its environment here: one record per environment the wizard made (by
name), and one per interpreter tested with ``--python``. The file is written atomically; a
damaged one is moved aside and counts as empty, and a write that fails never fails the test.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.file_locks import StateBusy, locked
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import wizard_home

LAST_TESTS_NAME: Final = "last-tests.json"
LAST_TESTS_SCHEMA: Final = "gpuwizard.last-tests/1"


def last_tests_path() -> Path:
    """Where the records live."""
    return wizard_home() / LAST_TESTS_NAME


def load_last_tests() -> list[dict[str, Any]]:
    """The records, oldest first: ``{"env", "python", "framework", "recorded", "short", "result"}``.

    A damaged file (not JSON, nested too deep, a key twice, not a list of tests) is moved aside
    as ``last-tests.json.bad`` with one line saying so (``damaged.py``); a record of the wrong
    shape is left out.
    """
    path = last_tests_path()
    try:
        data = read_state_json(path)
    except FileNotFoundError:
        return []
    except (OSError, DamagedFile) as error:
        set_aside(path, str(error), counts_as="no tests")
        return []
    tests = data.get("tests") if isinstance(data, dict) else None
    if not isinstance(tests, list):
        set_aside(path, 'expected {"tests": [...]}', counts_as="no tests")
        return []
    return [item for item in tests if _is_record(item)]


def _is_record(item: object) -> bool:
    return (
        isinstance(item, dict)
        and isinstance(item.get("result"), dict)
        and all(
            isinstance(item.get(key), (str, type(None))) for key in ("env", "python", "framework", "recorded")
        )
    )


def remember_test(result: LiveTestResult, *, probe_args: Sequence[str] = ()) -> None:
    """Keep ``result`` as the latest test of its environment.

    ``probe_args`` are the probe's extra arguments: a test run with fewer steps (verify's
    short test) is marked ``short``.
    """
    env, python = result.env, result.python
    record = {
        "env": env,
        "python": python,
        "framework": result.framework,
        "recorded": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "short": bool(probe_args),
        "result": result.to_json(),
    }
    # The report must never cost the test: a full disk, a read-only home or a lock held too long
    # only loses the record. The lock spans read and write: two tests at once both stay.
    with contextlib.suppress(OSError, StateBusy), locked(last_tests_path()):
        kept = [item for item in load_last_tests() if not _same_target(item, env, python)]
        write_json_atomically(last_tests_path(), {"schema": LAST_TESTS_SCHEMA, "tests": [*kept, record]})


def _same_target(item: Mapping[str, Any], env: object, python: object) -> bool:
    if env is not None:
        return bool(item.get("env") == env)
    return item.get("env") is None and item.get("python") == python
