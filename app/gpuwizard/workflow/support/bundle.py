r"""Gather a support report: the machine, PATH, the wizard's environments and tests, redacted.

``gpuwizard report`` calls :func:`gather_support_document` (what was detected, the PATH of the
registry and of this process, every environment the wizard made with what its interpreter says
now, the last good state and the most recent live tests), then :func:`redact_document` with
the identities of the person running it (:func:`this_user`), and renders the one redacted
document as HTML, Markdown or JSON (:func:`render_support`). Redaction comes before rendering,
so no format can show what another hides.

The environments' interpreters are run (unless ``probe`` is off) with the same env probe as
``verify`` (``probes/env_report.py``) and a package list (``probes/package_versions.py``);
neither changes anything in the environment.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import platform
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any, Final

from gpuwizard import __version__, probes
from gpuwizard.adapters.executables import is_program
from gpuwizard.adapters.registry import EnvironmentStore, RegistryWriteError
from gpuwizard.adapters.runner import (
    CommandCancelled,
    CommandNotFound,
    CommandTimedOut,
    StreamingRunner,
    inherited_path,
)
from gpuwizard.core.exit_status import status_text
from gpuwizard.core.findings.model import finding_to_json
from gpuwizard.core.health.snapshot import Snapshot, snapshot_to_json
from gpuwizard.core.json_lines import last_json_object
from gpuwizard.core.machine.readiness import machine_has_nvidia_gpu
from gpuwizard.core.machine.system_report import SystemReport, report_to_json
from gpuwizard.core.pathedit.algebra import entry_of
from gpuwizard.core.pathedit.pathlist import split_segments
from gpuwizard.core.pathedit.review import review_to_json
from gpuwizard.core.support.document import (
    environment_findings,
    process_path_entries,
    relevant_packages,
    relevant_variables,
    support_document,
    with_redaction,
)
from gpuwizard.core.support.html import TEMPLATE_NAMES, render_html
from gpuwizard.core.support.markdown import render_markdown
from gpuwizard.core.support.redaction import Identities, identities_in, merged, redact
from gpuwizard.core.support.view import support_view
from gpuwizard.workflow.health.good_state import load_last_good
from gpuwizard.workflow.health.verify import ENV_PROBE
from gpuwizard.workflow.livetest.run import ProbeRunner
from gpuwizard.workflow.pathedit.changes import PathChangeError, history
from gpuwizard.workflow.pathedit.request import review_store
from gpuwizard.workflow.state.env_registry import EnvRecord, load_records
from gpuwizard.workflow.state.files import write_text_atomically
from gpuwizard.workflow.state.home import wizard_home
from gpuwizard.workflow.state.last_tests import load_last_tests
from gpuwizard.workflow.state.path_journal import JournalError, PathJournal, entry_to_json

#: The package list probe, run by path with the environment's interpreter.
PACKAGES_PROBE: Final = probes.script("package_versions")
# A first `import tensorflow` on a slow disk takes tens of seconds; a report should not wait
# for a hung interpreter as long as verify does (ENV_PROBE_TIMEOUT_S), but long enough for that.
PROBE_TIMEOUT_S: Final = 180.0


class SupportCancelled(Exception):
    """The user cancelled while an interpreter was being asked; nothing was written."""


def gather_support_document(
    *,
    report: SystemReport,
    system_source: str,
    path_store: EnvironmentStore | None,
    runner: StreamingRunner | None,
    cancel: threading.Event,
    environ: Mapping[str, str] | None = None,
    on_progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Everything a support report holds, before redaction (``gpuwizard.support/1``).

    Args:
        report: The machine (detected now, or a saved report).
        system_source: ``detected`` or ``file`` (said in the report).
        path_store: The registry whose PATH is shown (None: no registry, as on Linux).
        runner: Runs the environments' interpreters; None does not run them (``--no-probe``).
        cancel: Set it to stop asking interpreters (:class:`SupportCancelled` is raised).
        environ: The process environment (default: ``os.environ``).
        on_progress: Told what is being done, one line at a time.

    Raises:
        SupportCancelled: ``cancel`` was set.
    """
    env = dict(os.environ if environ is None else environ)
    say = on_progress or (lambda _line: None)
    has_gpu = machine_has_nvidia_gpu(report)
    snapshot = load_last_good()
    tests = load_last_tests()
    environments = []
    for record in load_records():
        if runner is not None and is_program(record.python):
            say(f"asking the interpreter of {record.name}")
        environments.append(
            _environment(
                record, runner=runner, cancel=cancel, has_gpu=has_gpu, snapshot=snapshot, tests=tests
            )
        )
    return support_document(
        generated=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        wizard_version=__version__,
        sources={
            "system": system_source,
            "registry": None if path_store is None else ("live" if path_store.identity == "live" else "file"),
            "probed": runner is not None,
        },
        system=report_to_json(report),
        variables=relevant_variables(env),
        path=_path(path_store, env),
        environments=environments,
        last_good=snapshot_to_json(snapshot) if snapshot is not None else None,
        tests=tests,
    )


# --- PATH ----------------------------------------------------------------------------------------


def _path(store: EnvironmentStore | None, environ: Mapping[str, str]) -> dict[str, Any]:
    windows = os.name == "nt"
    # The PATH a child of the wizard gets: a frozen build's own folders (its _internal, which
    # its Qt start-up put first) are neither the user's nor passed on (adapters/runner.py).
    value = inherited_path(environ.get("PATH", ""))
    raw = [entry_of(segment) for segment in split_segments(value)] if windows else value.split(os.pathsep)
    missing = [entry for entry in raw if entry and not Path(os.path.expandvars(entry)).is_dir()]
    process = {
        "separator": os.pathsep,
        "entries": process_path_entries(value, windows=windows, missing=missing),
    }
    if store is None:
        return {
            "registry": None,
            "note": "No Windows registry here: the PATH below is this process's, as the shell gave it.",
            "scopes": [],
            "findings": [],
            "journal": [],
            "process": process,
        }
    data: dict[str, Any] = {
        "registry": store.identity,
        "note": None,
        "scopes": [],
        "findings": [],
        "journal": [],
    }
    try:
        _values, reviews, findings = review_store(store)
    except (PathChangeError, RegistryWriteError) as error:
        data["note"] = f"The registry's PATH could not be read: {error}"
    else:
        data["scopes"] = [review_to_json(review) for review in reviews]
        data["findings"] = [finding_to_json(finding) for finding in findings]
    try:
        data["journal"] = [entry_to_json(entry) for entry in history(store, PathJournal(wizard_home()))]
    except JournalError as error:
        data["note"] = f"The PATH journal could not be read: {error}"
    if store.identity != "live":
        data["note"] = data["note"] or (
            "PATH from a registry snapshot file: its folders are on another machine, so whether "
            "they exist is not checked."
        )
    data["process"] = process
    return data


# --- environments --------------------------------------------------------------------------------


def _environment(
    record: EnvRecord,
    *,
    runner: ProbeRunner | None,
    cancel: threading.Event,
    has_gpu: bool,
    snapshot: Snapshot | None,
    tests: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    data = record.to_json()
    if record.manager == "wsl":
        # Inside a WSL distribution: its folder is not looked for here (looking starts its VM);
        # the probes run there when asked (livetest/in_wsl.py), and their answer says it exists.
        runner = _in_distro(record) if runner is not None else None
        data["folder_exists"] = data["interpreter_exists"] = None
        reachable = runner is not None
    else:
        data["folder_exists"] = Path(record.path).is_dir()
        data["interpreter_exists"] = is_program(record.python)
        reachable = data["interpreter_exists"]
    data["probed"] = runner is not None and reachable
    data["probe"] = None
    data["probe_error"] = None
    data["packages"] = None
    if runner is not None and reachable:
        framework = record.framework or "pytorch"
        probe, error = _run_probe(
            runner, [record.python, "-I", str(ENV_PROBE), "--framework", framework], "env_report", cancel
        )
        data["probe"], data["probe_error"] = probe, error
        if record.manager == "wsl" and probe is not None:
            data["folder_exists"] = data["interpreter_exists"] = True
        listing, _ = _run_probe(
            runner, [record.python, "-I", str(PACKAGES_PROBE)], "package_versions", cancel
        )
        if listing is not None and listing.get("ok"):
            data["packages"] = relevant_packages(listing.get("packages") or [])
    recorded = snapshot_to_json(snapshot)["environments"] if snapshot is not None else []
    data["last_good"] = next((env for env in recorded if env["name"] == record.name), None)
    data["last_test"] = next((dict(test) for test in reversed(tests) if test.get("env") == record.name), None)
    data["findings"] = environment_findings(data, machine_has_nvidia_gpu=has_gpu)
    return data


def _in_distro(record: EnvRecord) -> ProbeRunner | None:
    """What runs a WSL environment's probes in its distribution; None where ``wsl.exe`` is not there."""
    from gpuwizard.adapters.runner import CommandNotFound  # noqa: PLC0415
    from gpuwizard.adapters.wsl import distro_transport  # noqa: PLC0415 - WSL environments only
    from gpuwizard.workflow.livetest.in_wsl import DistroProbeRunner  # noqa: PLC0415

    try:
        return DistroProbeRunner(
            distro_transport(record.distro), python=record.python, wsl_home=record.wsl_home
        )
    except (CommandNotFound, ValueError):
        return None


def _run_probe(
    runner: ProbeRunner, argv: Sequence[str], name: str, cancel: threading.Event
) -> tuple[dict[str, Any] | None, str | None]:
    """The probe's JSON object, or None and why there is none."""
    lines: list[str] = []
    try:
        status = runner.stream(argv, lines.append, cancel=cancel, timeout=PROBE_TIMEOUT_S)
    except CommandCancelled:
        raise SupportCancelled from None
    except CommandNotFound as error:
        return None, error.reason
    except CommandTimedOut:
        return None, f"no answer within {PROBE_TIMEOUT_S:g} s"
    if cancel.is_set():
        raise SupportCancelled
    found = last_json_object(lines, lambda value: value.get("probe") == name)
    if found is not None:
        return found, None
    last = next((line.strip() for line in reversed(lines) if line.strip()), "")
    return None, f"exit {status_text(status, windows=sys.platform == 'win32')}" + (
        f": {last[:300]}" if last else ", printing nothing"
    )


# --- redaction and output ------------------------------------------------------------------------


def this_user(environ: Mapping[str, str] | None = None) -> Identities:
    """The user name, home folders and computer name of the person running the report."""
    env = dict(os.environ if environ is None else environ)
    names = [env.get(variable, "") for variable in ("USER", "USERNAME", "LOGNAME")]
    # getpass finds no name when neither the environment nor the password database has one.
    with contextlib.suppress(OSError, KeyError, ImportError):
        names.insert(0, getpass.getuser())
    homes = [env.get("HOME", ""), env.get("USERPROFILE", "")]
    with contextlib.suppress(RuntimeError):  # no home can be determined
        homes.insert(0, str(Path.home()))
    homes += [os.path.realpath(home) for home in homes if home]
    # The home folder's own name is the account's name as the file system spells it.
    names += [Path(home.replace("\\", "/")).name for home in homes if home]
    host = platform.node()
    hosts = [host, host.split(".")[0]] if host else []
    return Identities(
        user_names=tuple(dict.fromkeys(name for name in names if name)),
        home_folders=tuple(dict.fromkeys(home for home in homes if home)),
        host_names=tuple(dict.fromkeys(hosts)),
    )


def redact_document(document: Mapping[str, Any], identities: Identities) -> dict[str, Any]:
    """The document with every identity replaced, and a note at its top saying what and how.

    Besides ``identities`` (the person running the report), every home folder the document
    mentions is hidden too: a saved system report comes from another machine and user.
    """
    redacted = redact(dict(document), merged(identities, identities_in(document)))
    return with_redaction(redacted.data, redacted.rules, redacted.counts)


def report_templates() -> dict[str, str]:
    """The HTML templates shipped in the package (``resources/report/``)."""
    folder = resources.files("gpuwizard.resources").joinpath("report")
    return {name: folder.joinpath(name).read_text(encoding="utf-8") for name in TEMPLATE_NAMES}


def render_support(document: Mapping[str, Any], fmt: str) -> str:
    """The redacted document as ``html``, ``markdown`` or ``json`` text."""
    if fmt == "json":
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
    view = support_view(document)
    if fmt == "markdown":
        return render_markdown(view)
    return render_html(view, report_templates())


def write_support_report(
    out: Path,
    fmt: str,
    *,
    report: SystemReport,
    system_source: str,
    path_store: EnvironmentStore | None,
    runner: StreamingRunner | None,
    cancel: threading.Event,
    on_progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Gather, redact, render as ``fmt`` and write atomically to ``out``; returns what was written.

    The one path from the machine to a shared file, for ``gpuwizard report`` and the wizard's
    "Save a support report" alike: nothing unredacted is ever written.

    Raises:
        SupportCancelled: ``cancel`` was set; nothing was written.
        OSError: ``out`` cannot be written.
    """
    document = gather_support_document(
        report=report,
        system_source=system_source,
        path_store=path_store,
        runner=runner,
        cancel=cancel,
        on_progress=on_progress,
    )
    redacted = redact_document(document, this_user())
    # A PATH (the registry's or the process's) may hold a lone surrogate, which UTF-8 cannot
    # encode: it is written as its escape, \udc80, valid JSON for the same character (issue 33).
    write_text_atomically(out, render_support(redacted, fmt), errors="backslashreplace")
    return redacted
