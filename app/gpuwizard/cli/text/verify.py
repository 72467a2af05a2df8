"""``gpuwizard verify`` as text: a line per check; for what drifted, before -> after and the fix."""

from __future__ import annotations

from typing import Final

from gpuwizard.cli.common import Write
from gpuwizard.core.events import Event
from gpuwizard.core.findings.fix_parts import fix_parts
from gpuwizard.core.health.checks import HealthCheck
from gpuwizard.core.health.events import NOTHING_TO_VERIFY, VerifyCheck, VerifyPhase, VerifyResult
from gpuwizard.core.wizard_command import BY_NAME, WizardCommand

_LABELS: Final = {"ok": "ok", "changed": "changed", "broken": "BROKEN", "skipped": "skipped"}
#: Where a check's message and fix start: under its identifier.
_INDENT: Final = " " * 11


class VerifyView:
    """A line per check; for what drifted, before -> after, what happened and the fix."""

    def __init__(self, write: Write, wizard: WizardCommand = BY_NAME) -> None:
        self.write = write
        # How the person starts the wizard here, for the advice to run verify again.
        self.wizard = wizard

    def __call__(self, event: Event) -> None:
        """Show one event of the verification.

        The short test's own events (wrapped) are not shown: its verdict arrives as the test check.
        """
        match event:
            case VerifyPhase(phase="environment", subject=subject):
                self.write(f"{subject}:\n")
            case VerifyPhase(phase="test"):
                self.write("  (running a short live test...)\n")
            case VerifyPhase(phase="path"):
                self.write("PATH:\n")
            case VerifyCheck():
                self.write(_check_text(event.check))
            case VerifyResult():
                self.write(_result_text(event, self.wizard))


def _check_text(check: HealthCheck) -> str:
    status, before, after = check.status, check.before, check.after
    if status in ("changed", "broken") and before != after:
        value = f"{before or 'none'} -> {after or 'none'}"
    elif status == "skipped":
        value = f"({check.note or 'skipped'})"
    else:
        value = str(after or before or (f"({check.note})" if check.note else ""))
    lines = [f"  {_LABELS[status]:<8} {check.check_id}  {value}".rstrip()]
    finding = check.finding
    if finding is not None:
        lines.append(f"{_INDENT}{finding.message}")
        prefix = "fix: " if status == "broken" else ""
        # Each command of the fix on a line of its own, further in, so it is copied whole
        # (run into one sentence, "…whl/cpu  Or recreate the environment: …" was not).
        for part in fix_parts(finding.hint, finding.params):
            lines.append(f"{_INDENT}    {part.text}" if part.command else f"{_INDENT}{prefix}{part.text}")
            prefix = ""
    return "\n".join(lines) + "\n"


def _result_text(result: VerifyResult, wizard: WizardCommand) -> str:
    if result.status == NOTHING_TO_VERIFY:
        # Nothing was checked or recorded: no "Healthy", no comparison to speak of.
        return f"{result.message or 'Nothing to verify.'}\n"
    since = result.snapshot_recorded
    compared = (
        f"Compared with the last good state of {since}."
        if since
        else "No last good state yet: environments were compared with how they were made."
    )
    if result.status == "cancelled":
        return f"\n{compared}\nCancelled: not every check ran, and nothing was recorded.\n"
    if not result.report.checked_something:
        # Every check was skipped: nothing was found working, so nothing is "Healthy" either.
        verdict = "Nothing could be checked this time (every check was skipped); nothing was recorded."
        return f"\n{compared}\n{verdict}\n"
    if result.healthy:
        changed = sum(check.status == "changed" for check in result.checks)
        verdict = "Healthy: nothing is broken" + (f" ({changed} changed)." if changed else ".")
    else:
        broken = len(result.report.broken)
        failed = "1 check failed; fix it" if broken == 1 else f"{broken} checks failed; fix them"
        verdict = f"Broken: {failed}, then run `{wizard.line('verify')}` again."
    lines = [f"\n{compared}", verdict]
    if result.saved:
        lines.append(f"Recorded as the last good state: {result.saved}")
    return "\n".join(lines) + "\n"
