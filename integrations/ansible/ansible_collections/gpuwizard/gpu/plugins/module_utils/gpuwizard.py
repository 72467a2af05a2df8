# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""The code every gpuwizard.gpu module and action plugin shares.

The collection never re-implements the wizard: it runs the ``gpuwizard`` program with an argv
list (never through a shell), reads its ``--json`` output (docs/architecture.md, "The
command-line and JSON contract": JSON lines, the last ``result`` is the outcome) and turns it
into Ansible's return values. The same functions serve a Linux target (the modules, which run
there) and a Windows one (the action plugins, which run ``gpuwizard.exe`` through
``ansible.windows.win_command`` and parse its output on the controller), so both give the same
shape. Everything here is pure: text in, dictionaries out; no process is started here.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import os
import shutil

ANSWERS_SCHEMA = "gpuwizard.answers/1"

#: The answer file's keys (app/gpuwizard/core/fleet/answers.py, docs/fleet/answers.toml), each
#: a module option of gpuwizard.gpu.setup with the same name and meaning.
ANSWER_TEXT_KEYS = (
    "framework", "version", "python", "manager", "tool", "environment", "prefix",
    "path_scope", "other_cuda", "find_links", "channel",
)
ANSWER_BOOL_KEYS = ("offline", "jupyter", "replace", "test", "require_gpu")
ANSWER_KEYS = ANSWER_TEXT_KEYS + ANSWER_BOOL_KEYS + ("gpus",)

#: Where the install role puts the program on Linux (roles/install: gpuwizard_venv and the link).
LINUX_INSTALL_LOCATIONS = ("/opt/gpuwizard/bin/gpuwizard", "/usr/local/bin/gpuwizard")

#: Where the Windows installer puts it: per user (the default) and for all users (/ALLUSERS);
#: installer/gpuwizard.nsi. Expanded on the host (ansible.windows.win_stat expands its path).
WINDOWS_INSTALL_LOCATIONS = (
    "%LOCALAPPDATA%\\Programs\\GPU Setup Wizard\\gpuwizard.exe",
    "%ProgramFiles%\\GPU Setup Wizard\\gpuwizard.exe",
)

#: The options every module has (the program and its state).
COMMON_SPEC = dict(
    executable=dict(type="str"),
    home=dict(type="str"),
    system=dict(type="str"),
    registry=dict(type="str"),
)

FACTS_SPEC = dict(
    COMMON_SPEC,
    verify=dict(type="bool", default=False),
    test=dict(type="bool", default=True),
    env=dict(type="list", elements="str"),
)

SETUP_SPEC = dict(
    COMMON_SPEC,
    answers=dict(type="str"),
    framework=dict(type="str", choices=["pytorch", "tensorflow", "tensorflow-gpu"]),
    version=dict(type="str"),
    python=dict(type="str"),
    manager=dict(type="str", choices=["venv", "conda"]),
    tool=dict(type="str", choices=["uv", "pip", "conda", "mamba", "micromamba", "rattler"]),
    environment=dict(type="str", aliases=["name"]),
    prefix=dict(type="str"),
    gpus=dict(type="raw"),
    path_scope=dict(type="str", choices=["user", "system", "none"]),
    other_cuda=dict(type="str", choices=["keep", "end", "remove"]),
    find_links=dict(type="str"),
    channel=dict(type="str"),
    offline=dict(type="bool"),
    jupyter=dict(type="bool"),
    replace=dict(type="bool"),
    test=dict(type="bool"),
    require_gpu=dict(type="bool"),
)

#: ``answers`` is a file; the other answer keys build one. Never both.
SETUP_MUTUALLY_EXCLUSIVE = [["answers", key] for key in ANSWER_KEYS]
SETUP_REQUIRED_ONE_OF = [["answers", "framework"]]

VERIFY_SPEC = dict(
    COMMON_SPEC,
    env=dict(type="list", elements="str"),
    test=dict(type="bool", default=True),
    record=dict(type="bool", default=True),
    prometheus=dict(type="str"),
)


class GpuwizardError(Exception):
    """The program's output cannot be read (not the wizard's JSON, or no result in it)."""


# --- running it -----------------------------------------------------------------------------


def find_executable(explicit, which, exists=os.path.exists, locations=LINUX_INSTALL_LOCATIONS):
    """The program to run: the ``executable`` option, else ``gpuwizard`` on PATH, else the role's.

    ``which`` looks a name up on PATH (shutil.which); None when nothing is found anywhere.
    """
    if explicit:
        return explicit
    found = which("gpuwizard")
    if found:
        return found
    for candidate in locations:
        if exists(candidate):
            return candidate
    return None


def command_env(home):
    """The variables to add for the program: GPUWIZARD_HOME when the ``home`` option is given."""
    return {"GPUWIZARD_HOME": home} if home else {}


def detect_argv(executable, system=None):
    """``gpuwizard detect --json [--system FILE]``."""
    argv = [executable, "detect", "--json"]
    if system:
        argv += ["--system", system]
    return argv


def verify_argv(executable, env=None, test=True, record=True, prometheus=None, system=None, registry=None):
    """``gpuwizard verify --json [--env NAME]... [--no-test] [--no-record] [--prometheus FILE] ...``.

    ``--prometheus`` is passed only when asked for, so an older wizard without it still runs.
    """
    argv = [executable, "verify", "--json"]
    for name in env or ():
        argv += ["--env", name]
    if not test:
        argv.append("--no-test")
    if not record:
        argv.append("--no-record")
    if prometheus:
        argv += ["--prometheus", prometheus]
    if system:
        argv += ["--system", system]
    if registry:
        argv += ["--registry", registry]
    return argv


def apply_argv(executable, answers_path, confirmed, system=None, registry=None):
    """``gpuwizard apply --answers FILE [--yes] --json [--system FILE] [--registry FILE]``.

    Without ``confirmed`` it is apply's preview: nothing changes (check mode).
    """
    argv = [executable, "apply", "--answers", answers_path]
    if confirmed:
        argv.append("--yes")
    argv.append("--json")
    if system:
        argv += ["--system", system]
    if registry:
        argv += ["--registry", registry]
    return argv


def build_answers(params):
    """The answer file (a JSON table) from the module's options; only the options given.

    ``gpus`` is passed as given ("all", "0,1" or a list); the wizard checks every value and
    refuses a bad one with exit 2 before anything changes.
    """
    answers = {"schema": ANSWERS_SCHEMA}
    for key in ANSWER_TEXT_KEYS:
        value = params.get(key)
        if value is not None:
            answers[key] = str(value)
    for key in ANSWER_BOOL_KEYS:
        value = params.get(key)
        if value is not None:
            answers[key] = bool(value)
    gpus = params.get("gpus")
    if gpus is not None:
        answers["gpus"] = _gpus_value(gpus)
    return answers


def _gpus_value(gpus):
    if isinstance(gpus, (list, tuple)):
        # YAML gives [0, 1] as numbers, and "0" as text: the wizard takes both.
        return [item if isinstance(item, int) and not isinstance(item, bool) else str(item) for item in gpus]
    return str(gpus)


def answers_text(params):
    """The answer file's text, as written for ``apply --answers FILE.json``."""
    return json.dumps(build_answers(params), indent=2, sort_keys=True) + "\n"


# --- reading its output ---------------------------------------------------------------------


def parse_json_lines(text):
    """The JSON objects of a ``--json`` stream, one a line; other lines (none expected) skipped."""
    events = []
    for line in (text or "").splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events


def parse_document(text, what):
    """One JSON document (``detect --json``)."""
    try:
        document = json.loads(text or "")
    except ValueError:
        raise GpuwizardError("%s did not print JSON: %s" % (what, _first_line(text)))
    if not isinstance(document, dict):
        raise GpuwizardError("%s did not print a JSON object" % what)
    return document


def result_event(events):
    """The run's own ``result``: the last one not carried from a nested step (``source``).

    apply and verify forward the environment's and the live test's events, their own
    ``result`` among them, with ``"source"``; only the outer one is the run's outcome.
    """
    for event in reversed(events):
        if event.get("event") == "result" and "source" not in event:
            return event
    return None


def stage_events(events):
    """apply's ``stage`` events, in order."""
    return [event for event in events if event.get("event") == "stage" and "source" not in event]


def stderr_line(stderr):
    """The one line a refused command prints (``gpuwizard: error: ...``), or the last one."""
    lines = [line.strip() for line in (stderr or "").splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("gpuwizard: error:")]
    if errors:
        return errors[-1]
    return lines[-1] if lines else ""


def _first_line(text):
    for line in (text or "").splitlines():
        if line.strip():
            return line.strip()[:300]
    return "(nothing)"


# --- apply: check mode, diff, outcome -------------------------------------------------------


def _last_stage(events, stage, statuses):
    found = None
    for event in stage_events(events):
        if event.get("stage") == stage and event.get("status") in statuses:
            found = event
    return found


def would_change(events):
    """Whether apply's preview would change this machine: a PATH change, or an environment to make.

    The preview's ``result`` always says ``changed: false`` (it changed nothing); what it
    would do is in its stages: ``path`` ``planned`` with ``changed``, and ``environment``
    ``planned`` (an environment of the plan that exists is ``kept`` instead).
    """
    path = _last_stage(events, "path", ("planned",))
    environment = _last_stage(events, "environment", ("planned",))
    return bool((path is not None and path.get("changed")) or environment is not None)


def _variables(environment, events):
    """The environment's variables as ``NAME=value``: the stage's ``variables`` field.

    A wizard older than that field said them only in the plan stage's English sentence
    "Settings that apply only while the environment is active: ..." (core/envs/changes.py).
    """
    variables = environment.get("variables")
    if isinstance(variables, dict):
        return ["%s=%s" % (key, value) for key, value in variables.items()]
    plan = _last_stage(events, "plan", ("done",))
    line = "Settings that apply only while the environment is active: "
    for change in (plan or {}).get("changes") or ():
        if isinstance(change, str) and change.startswith(line):
            settings = change[len(line):].rstrip(".")
            return [item.strip() for item in settings.split(", ") if item.strip()]
    return []


def apply_diff(events):
    """What apply would change (its preview) or changed (a real run), as Ansible diffs.

    One diff per thing: PATH (the folders added, in the scope and registry named), the
    environment (its folder, tool, interpreter and variables) and its packages (what the
    environment is made with, as the plan names them: ``torch==2.13.0``; the constraints file
    the wizard writes afterwards pins the build installed, ``torch==2.13.0+cpu``, so it is not
    named here). PATH's ``before`` is the scope's value now, entry by entry; the environment's
    and the packages' ``before`` is empty, the wizard makes them, or, where the environment
    stage has a ``note`` (an environment of this plan, damaged, made again), that note as a
    comment. An environment kept as it is and a PATH that already holds the folders give no diff.
    """
    diffs = []
    path = _last_stage(events, "path", ("planned", "done"))
    if path is not None and path.get("changed") and path.get("folders"):
        header = "PATH (%s scope, %s)" % (path.get("scope") or "user", path.get("registry") or "registry")
        if isinstance(path.get("entries_after"), list):
            # The whole value, entry by entry, before and after: moves made by other_cuda show too.
            before = "".join("%s\n" % entry for entry in path.get("entries_before") or [])
            after = "".join("%s\n" % entry for entry in path["entries_after"])
        else:  # a wizard older than entries_before/entries_after names only the folders added
            before, after = "", "".join("%s\n" % folder for folder in path["folders"])
        diffs.append(dict(before_header=header, after_header=header, before=before, after=after))
    environment = None
    for event in stage_events(events):
        if event.get("stage") == "environment" and event.get("status") in ("planned", "started"):
            environment = event
            break
    if environment is not None:
        name = environment.get("name") or ""
        lines = ["environment: %s" % name]
        for key in ("path", "tool", "python"):
            if environment.get(key):
                lines.append("%s: %s" % (key, environment[key]))
        for variable in _variables(environment, events):
            lines.append("variable: %s" % variable)
        header = "environment %s" % name
        before = "# %s\n" % environment["note"] if environment.get("note") else ""
        diffs.append(dict(before_header=header, after_header=header, before=before, after="\n".join(lines) + "\n"))
        requirements = environment.get("requirements") or []
        if requirements:
            packages = "packages of %s" % name
            diffs.append(
                dict(
                    before_header=packages,
                    after_header=packages,
                    before=before,
                    after="".join("%s\n" % requirement for requirement in requirements),
                )
            )
    return diffs


#: What a refusal calls the answer file the module (or the action) wrote from the task's options.
TASK_OPTIONS = "the task's options"


def apply_outcome(rc, stdout, stderr, check_mode, want_diff, answers_written=None):
    """Ansible's return values for one ``gpuwizard apply --json`` run.

    Returns a dict with ``failed`` and ``msg`` besides ``changed``, ``result`` (the
    ``gpuwizard.apply/1`` result, as the wizard gave it), ``stages``, ``findings``, ``rc`` and,
    when asked for (``--diff``) and something changes, ``diff``. Exit 0 succeeds (in check mode
    ``msg`` says so in Ansible's words: the wizard's preview message tells a command-line user
    to add ``--yes``); 1 (a problem), 2 (refused: its one line on stderr), 3 (rolled back) and
    130 (cancelled) fail with the result's message and its findings (for 2, the findings of a
    ``sources`` stage that explains it). ``answers_written``: the answer file the module wrote
    from the task's options, a temporary path the person never saw: a refusal names
    :data:`TASK_OPTIONS` instead.
    """
    events = parse_json_lines(stdout)
    result = result_event(events)
    stages = stage_events(events)
    outcome = dict(rc=rc, result=result, stages=stages, findings=[], changed=False, failed=False)
    if result is not None:
        outcome["findings"] = result.get("findings") or []
    if rc == 0 and result is not None:
        if check_mode:
            outcome["changed"] = would_change(events)
            outcome["msg"] = "check mode: nothing was changed" + (
                "; the setup would change this machine" if outcome["changed"] else "; there is nothing to change"
            )
        else:
            outcome["changed"] = bool(result.get("changed"))
            outcome["msg"] = result.get("message") or result.get("status") or "done"
        if want_diff and outcome["changed"]:
            outcome["diff"] = apply_diff(events)
        return outcome
    outcome["failed"] = True
    if result is not None:
        # A run that changed something and then failed its test keeps the setup (exit 1).
        outcome["changed"] = bool(result.get("changed")) and not check_mode
        outcome["msg"] = result.get("message") or "gpuwizard apply ended with %s" % result.get("status")
        return outcome
    sources = _last_stage(events, "sources", ("unreachable",))
    if sources is not None:
        outcome["findings"] = sources.get("findings") or []
    line = stderr_line(stderr)
    if line and answers_written:
        line = line.replace(answers_written, TASK_OPTIONS)
    outcome["msg"] = line or "gpuwizard apply exited with %s and printed no result" % rc
    return outcome


# --- verify ---------------------------------------------------------------------------------


def drifts(health):
    """Each check that moved since the last good state: its before -> after and the fix.

    A ``broken`` check fails verify; a ``changed`` one (an upgrade that still works) is listed
    too, so a playbook can report it. ``fix`` is the finding's hint, ``message`` what it says.
    """
    found = []
    for check in (health or {}).get("checks") or ():
        if check.get("status") not in ("broken", "changed"):
            continue
        finding = check.get("finding") or {}
        found.append(
            dict(
                check_id=check.get("check_id"),
                kind=check.get("kind"),
                subject=check.get("subject"),
                status=check.get("status"),
                before=check.get("before"),
                after=check.get("after"),
                code=finding.get("code"),
                message=finding.get("message"),
                fix=finding.get("hint"),
            )
        )
    return found


def _drift_line(drift):
    line = "%s: %s -> %s" % (drift["check_id"], drift["before"], drift["after"])
    if drift.get("fix"):
        line += " (fix: %s)" % drift["fix"]
    return line


def verify_outcome(rc, stdout, stderr):
    """Ansible's return values for one ``gpuwizard verify --json`` run.

    It fails when the setup is not healthy (exit 1, or a run that did not complete), naming
    each broken check's before -> after and fix; ``nothing_to_verify`` (the wizard set nothing
    up here) does not fail, and says so. It never reports ``changed``: recording the new last
    good state (and writing ``prometheus``) is the wizard's own bookkeeping, not a change to
    the setup.
    """
    events = parse_json_lines(stdout)
    result = result_event(events)
    outcome = dict(rc=rc, changed=False, failed=False, result=result, drifts=[], healthy=False, status=None)
    if result is None:
        outcome["failed"] = True
        outcome["msg"] = stderr_line(stderr) or "gpuwizard verify exited with %s and printed no result" % rc
        return outcome
    outcome["drifts"] = drifts(result)
    outcome["healthy"] = bool(result.get("healthy"))
    outcome["status"] = result.get("status")
    if outcome["status"] == "nothing_to_verify":
        outcome["msg"] = result.get("message") or "nothing to verify: the wizard has set nothing up here"
        return outcome
    if rc == 0 and outcome["healthy"]:
        outcome["msg"] = "healthy"
        if outcome["drifts"]:
            outcome["msg"] += "; changed since the last good state: " + "; ".join(
                _drift_line(drift) for drift in outcome["drifts"]
            )
        return outcome
    outcome["failed"] = True
    broken = [drift for drift in outcome["drifts"] if drift["status"] == "broken"]
    if broken:
        outcome["msg"] = "the setup is broken: " + "; ".join(_drift_line(drift) for drift in broken)
    else:
        outcome["msg"] = "gpuwizard verify ended %s (exit %s)" % (outcome["status"], rc)
    return outcome


# --- facts ----------------------------------------------------------------------------------


def facts_outcome(detect, verify=None):
    """``ansible_facts.gpuwizard``: the report of ``detect --json``, plus ``verify``'s result.

    ``detect`` and ``verify`` are (rc, stdout, stderr). A broken setup is a fact like any other
    (verify's exit 1 does not fail fact gathering); the program failing does.
    """
    rc, stdout, stderr = detect
    if rc != 0:
        return dict(failed=True, changed=False, rc=rc, msg=stderr_line(stderr) or "gpuwizard detect exited with %s" % rc)
    try:
        report = parse_document(stdout, "gpuwizard detect --json")
    except GpuwizardError as error:
        return dict(failed=True, changed=False, rc=rc, msg=str(error))
    facts = dict(report)
    if verify is not None:
        checked = verify_outcome(*verify)
        if checked["result"] is None:
            return dict(failed=True, changed=False, rc=checked["rc"], msg=checked["msg"])
        facts["verify"] = checked["result"]
    return dict(changed=False, failed=False, ansible_facts=dict(gpuwizard=facts))


# --- on the target (the modules) ------------------------------------------------------------


def run_on_target(module, argv, home):
    """Run ``argv`` (a list: no shell) with the module's run_command; (rc, stdout, stderr)."""
    return module.run_command(argv, environ_update=command_env(home), check_rc=False)


def executable_on_target(module):
    """The ``gpuwizard`` program on this (Linux) target, or fail naming where it was looked for."""
    found = find_executable(module.params.get("executable"), shutil.which)
    if found is None:
        module.fail_json(
            msg="gpuwizard was not found on PATH nor in %s; install it (the gpuwizard.gpu.install role) "
            "or give the executable option" % ", ".join(LINUX_INSTALL_LOCATIONS)
        )
    return found
