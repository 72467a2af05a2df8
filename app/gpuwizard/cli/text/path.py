"""``gpuwizard path`` as text: the entries with their problems, the history, a change as a diff."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from gpuwizard.cli.common import Write
from gpuwizard.cli.text.findings import bracketed
from gpuwizard.core.findings.model import Finding
from gpuwizard.core.pathedit.review import problem_text

if TYPE_CHECKING:
    from gpuwizard.core.pathedit.review import ScopeReview
    from gpuwizard.workflow.pathedit.changes import PathChange
    from gpuwizard.workflow.state.path_journal import JournalEntry


def write_review(
    reviews: Sequence[ScopeReview],
    findings: Sequence[Finding],
    write: Write,
    *,
    first_cuda: str | None = None,
) -> None:
    """Each scope's entries, numbered, with their problems said in words; then the findings.

    ``first_cuda``: the CUDA version that comes first on PATH (named where another one is
    shadowed by it); ``--json`` keeps the problems' codes.
    """
    for review in reviews:
        kind = review.type or "no value"
        write(f"{review.scope} PATH ({kind}, {len(review.value)} characters):\n")
        for entry in review.entries:
            words = [problem_text(problem, first_cuda=first_cuda) for problem in entry.problems]
            marks = f"   <- {'; '.join(words)}" if words else ""
            write(f"  {entry.index:>3}  {entry.segment}{marks}\n")
    write_findings(findings, write)


def write_history(entries: Sequence[JournalEntry], write: Write) -> None:
    """The PATH journal of this registry, a line per change, undone and unproven ones marked."""
    if not entries:
        write("No PATH changes recorded for this registry.\n")
    reverted = {e.reverts for e in entries if e.reverts and e.status == "applied"}
    for entry in entries:
        what = f"reverts {entry.reverts[:8]}" if entry.reverts else ", ".join(entry.folders)
        mark = "  (undone)" if entry.id in reverted else ""
        if entry.status == "unproven":
            mark = "  (interrupted: whether it was written cannot be proven; undo leaves it)"
        write(f"{entry.time}  {entry.id[:8]}  {entry.scope:<6}  {entry.action:<6}  {what}{mark}\n")


def write_change(
    change: PathChange, dry_run: bool, written: bool, write: Write, *, undo: str = "gpuwizard path undo"
) -> None:
    """A planned or made change as a diff, and what became of it (``undo``: the command that reverts it)."""
    where = f"{change.scope} PATH ({change.key})"
    if not change.changed:
        write(f"Nothing to change in the {where}.\n")
        if change.edit is not None and change.edit.unchanged:
            verb = "already on PATH" if change.action == "add" else "not on PATH"
            write("".join(f"  {folder}: {verb}\n" for folder in change.edit.unchanged))
        return
    write(f"{'Would change' if dry_run else 'Changed'} the {where}:\n")
    for line in change.diff():
        if line.op != " ":
            write(f"  {line.op} {line.entry}\n")
    if change.old is not None and change.new is not None and change.old.type != change.new.type:
        write(f"  type {change.old.type} -> {change.new.type}\n")
    if dry_run:
        write("(dry run: nothing was written)\n")
    elif written and change.reverts is not None:
        write(f"Reverted the {change.reverts.action} of {change.reverts.time}.\n")
    elif written:
        write(f"Recorded in the PATH journal; '{undo}' reverts it.\n")


def write_findings(findings: Sequence[Finding], write: Write) -> None:
    """The findings of a PATH command, each said in passing."""
    for finding in findings:
        write(bracketed(finding.severity, finding.message, finding.hint))


def quote_in_folder(folder: str) -> str:
    r"""Why a folder argument holding ``"`` is refused, and how to type it, in one line.

    No Windows folder name can hold ``"``: one in an argument means the command line was cut
    where the person did not mean it. In cmd (and any program that reads its command line as
    the Microsoft C runtime does) a quoted folder ending in a backslash, ``"C:\Some Folder\"``,
    does it: ``\"`` is a literal quote, so the quoted part goes on and takes in the rest of the
    line (Microsoft Learn, "Parsing C command-line arguments"). The folder is shown as it
    arrived, not as a Python string (whose backslashes would be doubled).

    >>> line = quote_in_folder('C:\\Some Folder" --scope user')
    >>> print(line[:line.index(":", 20)])
    the folder C:\Some Folder" --scope user holds a quote ("), which no Windows folder can
    >>> print(line[line.index("write"):])
    write "C:\Some Folder" (no backslash at the end) or "C:\Some Folder\\"
    """
    typed, _, rest = folder.partition('"')
    meant = typed.rstrip("\\/ ")
    said = f'the folder {folder} holds a quote ("), which no Windows folder can'
    if not meant:
        return said
    took = f"the rest of the line ({rest.strip()}) became" if rest.strip() else "the quote became"
    return (
        f'{said}: in cmd a backslash just before the closing quote (\\") keeps the quote open, so '
        f'{took} part of the folder; write "{meant}" (no backslash at the end) or "{meant}\\\\"'
    )


def missing_folder_warning(folder: str) -> str:
    """The warning for a folder added to PATH that does not exist here (it is added all the same)."""
    return (
        f"warning: {folder} does not exist on this machine; PATH can name it, but programs find "
        "nothing there until it does"
    )
