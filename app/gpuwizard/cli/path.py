r"""``gpuwizard path show | add | remove | repair | undo [--all] | history``.

Every change is planned first and printed as a diff; ``--dry-run`` stops there. Otherwise it
is journaled under ``GPUWIZARD_HOME``, written only if the value is still the one read, read
back, and broadcast. ``--registry FILE`` works on a registry snapshot (docs/architecture.md,
"The command-line and JSON contract") instead of the live registry, on any OS.

Exit codes: 0 done (or nothing to change); 1 the change could not be made as the registry now
stands (undo after a later change, a write refused or failed, another gpuwizard holding the
PATH lock for a minute; nothing was changed); 2 bad input (one line on stderr, nothing changed),
a folder holding ``"`` included: cmd's reading of ``"C:\Some Folder\"`` (the trailing ``\"``
keeps the quote open), answered with how to type it. A folder to add that does not exist on
this machine (live registry only) is added all the same, with a warning on stderr and in
``missing_folders``.

Changes of one home take turns (docs/architecture.md, "The command-line and JSON contract",
"PATH journal"): each holds the change lock from reading the value it is planned from to the
journal's last update. Every action first settles what a killed one left (the journal's pending
entries, temporary copies; ``show`` and ``history`` only when no other holds the lock) and says
so on stderr; undo keeps, and says, what the wizard cannot prove it added.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from contextlib import nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from gpuwizard.cli import common

if TYPE_CHECKING:
    from gpuwizard.adapters.registry import EnvironmentStore, RegValue
    from gpuwizard.core.findings.model import Finding
    from gpuwizard.workflow.pathedit.changes import AppliedChange, PathChange

CHANGE_SCHEMA: Final = "gpuwizard.path-change/1"
SHOW_SCHEMA: Final = "gpuwizard.path/1"
UNDO_ALL_SCHEMA: Final = "gpuwizard.path-undo-all/1"


def add_parser(commands: common.Subcommands) -> None:
    """Add ``path`` and its actions."""
    path = commands.add_parser(
        "path",
        help="show and edit the Windows PATH (diff, journal, undo)",
        description="Show and edit the Windows PATH of the user or the system. Every change is shown "
        "as a diff, journaled and can be undone exactly; --registry FILE works on a snapshot file "
        "instead, on any OS.",
        epilog=common.examples(
            "gpuwizard path show",
            "gpuwizard path add C:\\CUDA\\v12.6\\bin --dry-run",
            "gpuwizard path undo",
        ),
    )
    actions = path.add_subparsers(dest="path_command", metavar="ACTION", required=True)

    def options(parser: argparse.ArgumentParser, *, scope: bool = True, dry_run: bool = True) -> None:
        if scope:
            parser.add_argument(
                "--scope", choices=["user", "system"], default="user", help="whose PATH (default: user)"
            )
        if dry_run:
            parser.add_argument("--dry-run", action="store_true", help="print the diff and change nothing")
        common.add_registry_option(parser, "registry", "work on a registry snapshot file")
        common.add_json_option(parser)

    def action(name: str, summary: str, description: str, *examples: str) -> argparse.ArgumentParser:
        return actions.add_parser(
            name, help=summary, description=description, epilog=common.examples(*examples)
        )

    show = action(
        "show",
        "the PATH entries, with problems marked",
        "Show the PATH entries in order, with problems marked: folders that do not exist, "
        "duplicates, another CUDA version's folder first.",
        "gpuwizard path show",
        "gpuwizard path show --scope user --json",
    )
    show.add_argument(
        "--scope", choices=["user", "system", "all"], default="all", help="whose PATH (default: all)"
    )
    options(show, scope=False, dry_run=False)

    add = action(
        "add",
        "add folders (CUDA-aware: before other CUDA versions)",
        "Add folders to PATH, ahead of other CUDA versions' folders (--other-cuda says what becomes "
        "of those). Shows the diff, then writes and journals the change.",
        "gpuwizard path add C:\\CUDA\\v12.6\\bin --dry-run",
        "gpuwizard path add C:\\CUDA\\v12.6\\bin --other-cuda end",
    )
    add.add_argument("folders", nargs="+", metavar="DIR", help="a folder to add (several: in this order)")
    add.add_argument(
        "--other-cuda",
        choices=["keep", "end", "remove"],
        default="keep",
        help="other CUDA versions' entries: keep them after ours (default), move them to the end, or remove them",
    )
    options(add)

    remove = action(
        "remove",
        "remove folders (every spelling and duplicate)",
        "Remove folders from PATH, however each is spelt (case, slashes, %VARIABLES%) and every duplicate.",
        "gpuwizard path remove C:\\CUDA\\v11.8\\bin --dry-run",
    )
    remove.add_argument("folders", nargs="+", metavar="DIR", help="a folder to remove")
    options(remove)

    repair = action(
        "repair",
        "rewrite a REG_SZ PATH holding %%VARS%% as REG_EXPAND_SZ",
        "Rewrite a PATH stored as REG_SZ that holds %VARIABLES% as REG_EXPAND_SZ, so Windows "
        "expands them again.",
        "gpuwizard path repair --scope user --dry-run",
    )
    options(repair)

    undo = action(
        "undo",
        "revert the most recent PATH change, exactly",
        "Revert the most recent PATH change the wizard made, exactly; refused when a later change "
        "would be lost.",
        "gpuwizard path undo --dry-run",
        "gpuwizard path undo --all",
    )
    undo.add_argument(
        "--all",
        action="store_true",
        help="revert every PATH change the wizard made, newest first (checked as a whole first)",
    )
    options(undo, scope=False)

    history = action(
        "history",
        "the PATH changes the wizard made",
        "List the PATH changes the wizard made, newest first, from its journal.",
        "gpuwizard path history",
        "gpuwizard path history --json",
    )
    options(history, scope=False, dry_run=False)

    # The elevated helper's own entry point (started through UAC by the system-scope write).
    helper = actions.add_parser("_elevated-write")
    helper.add_argument("request", type=Path)
    # No result file: the exit code is the helper's only answer (elevated, it writes only Path).
    # The request's sha256, fixed at the UAC prompt: a request file changed after it is refused.
    helper.add_argument("--sha256", required=True, metavar="HEX")
    # Started with the PATH rebuilt from the registry, to see which DLLs a new program finds.
    resolver = actions.add_parser("_resolve-dlls")
    resolver.add_argument("dlls", nargs="+")


def run(args: argparse.Namespace, write: common.Write) -> int:
    """Run ``gpuwizard path ...``; returns the exit code."""
    from gpuwizard.adapters.file_locks import StateBusy  # noqa: PLC0415
    from gpuwizard.adapters.registry import RegistryWriteError, ValueChanged  # noqa: PLC0415
    from gpuwizard.core.pathedit.algebra import PathEditError  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.changes import PathChangeError, UndoConflict  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.machine import open_store, serve_elevated_request  # noqa: PLC0415
    from gpuwizard.workflow.state.path_journal import JournalError  # noqa: PLC0415

    if args.path_command == "_elevated-write":
        return serve_elevated_request(args.request, args.sha256)
    if args.path_command == "_resolve-dlls":
        from gpuwizard.probes.dll_resolve import main as resolve_main  # noqa: PLC0415

        return resolve_main(["dll_resolve", *args.dlls])
    _refuse_quotes(getattr(args, "folders", None) or ())
    try:
        store = open_store(args.registry)
        if args.path_command in ("show", "history"):
            _recover_without_waiting(store)
        handler = {"show": _show, "history": _history}.get(args.path_command, _change)
        if args.path_command == "undo" and args.all:
            handler = _undo_all
        return handler(args, store, write)
    except UndoConflict as conflict:
        common.say(str(conflict))
        return common.EXIT_PROBLEM
    except (PathEditError, PathChangeError, JournalError) as error:
        raise common.UsageError(str(error)) from None
    except ValueChanged:
        common.say("PATH kept changing while it was being written; nothing was changed")
        return common.EXIT_PROBLEM
    except (RegistryWriteError, StateBusy) as error:
        common.say(f"{error}; nothing was changed")
        return common.EXIT_PROBLEM


def _refuse_quotes(folders: Sequence[str]) -> None:
    """A folder holding ``"``, which no Windows folder can, is a command line cut wrongly: say how to type it.

    Raises:
        common.UsageError: One of ``folders`` holds a quote.
    """
    from gpuwizard.cli.text.path import quote_in_folder  # noqa: PLC0415

    for folder in folders:
        if '"' in folder:
            raise common.UsageError(quote_in_folder(folder))


def _missing_folders(folders: Sequence[str], env: dict[str, str] | None) -> list[str] | None:
    """The folders to add that do not exist on this machine; None where that cannot be known.

    Only the live registry's folders are on this machine (``env`` is its variables); a
    snapshot's belong to another. A ``%VARIABLE%`` unknown here cannot be looked for.
    """
    from gpuwizard.workflow.pathedit.machine import missing_folder_keys  # noqa: PLC0415

    if env is None:
        return None
    return [folder.strip() for folder in folders if missing_folder_keys([folder.strip()], env)]


def _wizard_line(arguments: str, store: EnvironmentStore) -> str:
    """``gpuwizard ARGUMENTS`` on ``store``'s registry, as the person starts the wizard here (issue 37, point 2)."""
    from gpuwizard.adapters.wizard_program import wizard_command  # noqa: PLC0415
    from gpuwizard.core.wizard_command import registry_option  # noqa: PLC0415

    return wizard_command().line(arguments + registry_option(store.identity))


def _recover_without_waiting(store: EnvironmentStore) -> None:
    """Settle what a killed change left, unless another process holds the journal (it never waits).

    ``show`` reads no journal otherwise, so a damaged one does not stop it here (``history``
    says so itself).
    """
    from gpuwizard.workflow.pathedit.changes import recover  # noqa: PLC0415
    from gpuwizard.workflow.state.home import wizard_home  # noqa: PLC0415
    from gpuwizard.workflow.state.path_journal import JournalError, PathJournal  # noqa: PLC0415

    try:
        _say_notes(recover(store, PathJournal(wizard_home()), wait_s=0).notes())
    except JournalError:
        return


def _say_notes(notes: Sequence[str]) -> None:
    for note in notes:
        common.say(f"note: {note}")


def _json_safe(write: common.Write) -> common.Write:
    r"""``write`` for JSON text that may hold a lone surrogate (a registry value can).

    UTF-8 has no bytes for one, so a console writes ``?`` or a stray byte instead; as its JSON
    escape (``\udc80``, inside the string it belongs to) it is valid JSON for the same character.
    """
    return lambda text: write(text.encode("utf-8", "backslashreplace").decode("utf-8"))


def _value_json(value: RegValue | None) -> dict[str, Any] | None:
    return None if value is None else {"type": value.type, "value": value.value}


def _show(args: argparse.Namespace, store: EnvironmentStore, write: common.Write) -> int:
    from gpuwizard.cli.text.path import write_review  # noqa: PLC0415
    from gpuwizard.core.findings.model import finding_to_json  # noqa: PLC0415
    from gpuwizard.core.pathedit.review import first_cuda_version, review_to_json  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.request import review_store  # noqa: PLC0415

    # Both scopes are always read: the user entries are judged after the system ones, as Windows
    # joins them; --scope only chooses what is printed.
    _values, reviews, findings = review_store(store)
    first_cuda = first_cuda_version(reviews)  # of both scopes, whichever is printed
    reviews = [r for r in reviews if args.scope in ("all", r.scope)]
    if args.json:
        common.write_json(
            _json_safe(write),
            {
                "schema": SHOW_SCHEMA,
                "registry": store.identity,
                "scopes": {review.scope: review_to_json(review) for review in reviews},
                "findings": [finding_to_json(f) for f in findings],
            },
        )
    else:
        write_review(reviews, findings, write, first_cuda=first_cuda)
    return common.EXIT_OK


def _history(args: argparse.Namespace, store: EnvironmentStore, write: common.Write) -> int:
    from gpuwizard.cli.text.path import write_history  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.changes import history  # noqa: PLC0415
    from gpuwizard.workflow.state.home import wizard_home  # noqa: PLC0415
    from gpuwizard.workflow.state.path_journal import PathJournal, entry_to_json  # noqa: PLC0415

    entries = history(store, PathJournal(wizard_home()), with_unproven=True)
    if args.json:
        common.write_json(_json_safe(write), [entry_to_json(e) for e in entries])
        return common.EXIT_OK
    write_history(entries, write)
    return common.EXIT_OK


def _change(args: argparse.Namespace, store: EnvironmentStore, write: common.Write) -> int:
    from gpuwizard.adapters.runner import SubprocessRunner  # noqa: PLC0415
    from gpuwizard.cli.text.path import missing_folder_warning, write_change, write_findings  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.changes import (  # noqa: PLC0415
        apply_change,
        change_lock,
        plan_add,
        plan_remove,
        plan_repair,
        plan_undo,
    )
    from gpuwizard.workflow.pathedit.machine import elevated_write, needs_elevation  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.request import (  # noqa: PLC0415
        change_findings_of,
        comparison_env,
        restart_finding,
    )
    from gpuwizard.workflow.state.home import wizard_home  # noqa: PLC0415
    from gpuwizard.workflow.state.path_journal import PathJournal  # noqa: PLC0415

    journal = PathJournal(wizard_home())
    env = comparison_env(store)

    def plan() -> PathChange:
        if args.path_command == "add":
            return plan_add(store, args.scope, args.folders, other_cuda=args.other_cuda, env=env)
        if args.path_command == "remove":
            return plan_remove(store, args.scope, args.folders, env=env)
        if args.path_command == "repair":
            return plan_repair(store, args.scope)
        return plan_undo(store, journal)

    applied = None
    # One change at a time per home (and per snapshot file), from reading the value to the
    # journal's last word; a dry run changes nothing and waits for nobody.
    with nullcontext(None) if args.dry_run else change_lock(store, journal) as recovery:
        if recovery is not None:
            _say_notes(recovery.notes())
        change = plan()
        _say_notes(change.notes)
        # A folder that is not there yet is still added, as Windows' own editors do: it may be
        # made later (a toolkit installed after, a drive or share not connected now), and PATH
        # naming it does no harm; but a typo would otherwise pass unseen, so it is said.
        missing = _missing_folders(change.folders, env) if change.action == "add" else None
        for folder in missing or ():
            common.say(missing_folder_warning(folder))
        findings = change_findings_of(store, change)
        if change.changed and not args.dry_run:
            writer = elevated_write if needs_elevation(store, change) else None
            replan = None if change.action == "undo" else plan
            applied = apply_change(store, journal, change, replan=replan, write=writer)
            change = applied.change
    if applied is not None:
        restart = restart_finding(store, SubprocessRunner())
        if restart is not None:
            findings.append(restart)
    if args.json:
        common.write_json(
            _json_safe(write),
            _change_json(change, store, args.dry_run, applied, findings, missing_folders=missing),
        )
    else:
        write_change(change, args.dry_run, applied is not None, write, undo=_wizard_line("path undo", store))
        write_findings(findings, write)
    return common.EXIT_OK


def _undo_all(args: argparse.Namespace, store: EnvironmentStore, write: common.Write) -> int:
    """``path undo --all``: every undo planned and checked first, then made one by one, each journaled.

    Nothing to undo is not an error here (exit 0): the uninstaller runs it whatever the journal holds.
    """
    from gpuwizard.adapters.registry import RegistryWriteError, ValueChanged  # noqa: PLC0415
    from gpuwizard.cli.text.path import write_change  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.changes import apply_change, change_lock, plan_undo_all  # noqa: PLC0415
    from gpuwizard.workflow.pathedit.machine import elevated_write, needs_elevation  # noqa: PLC0415
    from gpuwizard.workflow.state.home import wizard_home  # noqa: PLC0415
    from gpuwizard.workflow.state.path_journal import PathJournal  # noqa: PLC0415

    journal = PathJournal(wizard_home())
    done: list[tuple[PathChange, AppliedChange | None]] = []
    # Planned and made under one hold of the lock: no other change can slip in between.
    with nullcontext(None) if args.dry_run else change_lock(store, journal) as recovery:
        if recovery is not None:
            _say_notes(recovery.notes())
        plan = plan_undo_all(store, journal)
        _say_notes(plan.notes())
        planned = plan.changes
        for change in planned:
            applied = None
            if change.changed and not args.dry_run:
                writer = elevated_write if needs_elevation(store, change) else None
                try:
                    applied = apply_change(store, journal, change, write=writer)
                except (ValueChanged, RegistryWriteError) as error:
                    # The undos made so far stay made, each journaled; say how far it got.
                    what = (
                        "the value changed while it was being written"
                        if isinstance(error, ValueChanged)
                        else error
                    )
                    common.say(
                        f"{what}; {len(done)} of {len(planned)} undos were made "
                        f"('{_wizard_line('path history', store)}' lists them)"
                    )
                    return common.EXIT_PROBLEM
            done.append((change, applied))
    if any(applied is not None for _change, applied in done):
        _forget_undone(store)
    if args.json:
        data = {
            "schema": UNDO_ALL_SCHEMA,
            "registry": store.identity,
            "dry_run": args.dry_run,
            "changes": [_change_json(change, store, args.dry_run, applied, []) for change, applied in done],
            # Recorded changes left alone: the wizard cannot prove it made them (issue 33).
            "kept": [{"journal_id": k.entry.id, "reason": k.reason} for k in plan.kept],
        }
        common.write_json(_json_safe(write), data)
        return common.EXIT_OK
    if not done and plan.kept:
        write("Nothing to undo but what the wizard cannot prove it made, which it keeps (said above).\n")
    elif not done:
        write("Nothing to undo: every PATH change the wizard made is undone already.\n")
    for change, applied in done:
        write_change(change, args.dry_run, applied is not None, write, undo=_wizard_line("path undo", store))
    return common.EXIT_OK


def _forget_undone(store: EnvironmentStore) -> None:
    """After ``undo --all``, the last good state forgets the folders undone (issue 37, point 4).

    PATH is then as it was before the wizard (the uninstaller's undo); a later ``verify``, after a
    reinstall say, must not report it as drift. Only where a last good state exists: the PATH
    commands import little otherwise (the Wine tests' Windows Python has only their dependencies).
    """
    from gpuwizard.workflow.state.home import SNAPSHOT_NAME, wizard_home  # noqa: PLC0415

    if not (wizard_home() / SNAPSHOT_NAME).is_file():
        return
    from gpuwizard.workflow.health.good_state import forget_undone_path_entries  # noqa: PLC0415

    try:
        forget_undone_path_entries(store)
    except OSError as error:  # the undo is made; only the record of the good state is behind
        common.say(f"warning: the last good state still lists the folders undone ({error})")


def _change_json(
    change: PathChange,
    store: EnvironmentStore,
    dry_run: bool,
    applied: AppliedChange | None,
    findings: Sequence[Finding],
    *,
    missing_folders: Sequence[str] | None = None,
) -> dict[str, Any]:
    from gpuwizard.core.findings.model import finding_to_json  # noqa: PLC0415

    edit = change.edit
    return {
        "schema": CHANGE_SCHEMA,
        "action": change.action,
        "scope": change.scope,
        "key": change.key,
        "registry": store.identity,
        "dry_run": dry_run,
        "changed": change.changed,
        "written": applied is not None,
        "old": _value_json(change.old),
        "new": _value_json(change.new),
        "diff": [{"op": d.op, "entry": d.entry} for d in change.diff()],
        "added": list(edit.added) if edit else [],
        "removed": list(edit.removed) if edit else [],
        "moved": list(edit.moved) if edit else [],
        "unchanged": list(edit.unchanged) if edit else [],
        "journal_id": applied.entry.id if applied and applied.entry else None,
        "reverts": change.reverts.id if change.reverts else None,
        "broadcast": bool(applied and applied.broadcast),
        "findings": [finding_to_json(f) for f in findings],
        "notes": list(change.notes),
        # The folders of an add that do not exist on this machine (added all the same); null
        # where not looked for: another action, or a snapshot's folders, which are elsewhere.
        "missing_folders": None if missing_folders is None else list(missing_folders),
    }
