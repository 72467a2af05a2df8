"""``gpuwizard verify`` as text: a line per check; for what drifted, before -> after and the fix."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gpuwizard.cli.common import Write

_LABELS: Final = {"ok": "ok", "changed": "changed", "broken": "BROKEN", "skipped": "skipped"}


class VerifyView:
    """A line per check; for what drifted, before -> after, what happened and the fix."""

    def __init__(self, write: Write) -> None:
        self.write = write

    def __call__(self, event: Mapping[str, Any]) -> None:
        """Show one event of the verification."""
        if event.get("source") == "test":
            return  # the short test's own progress; its verdict arrives as the test check
        kind = event.get("event")
        if kind == "phase":
            if event.get("phase") == "environment":
                self.write(f"{event['subject']}:\n")
            elif event.get("phase") == "test":
                self.write("  (running a short live test...)\n")
            elif event.get("phase") == "path":
                self.write("PATH:\n")
        elif kind == "check":
            self.write(_check_text(event))
        elif kind == "result":
            self.write(_result_text(event))


def _check_text(check: Mapping[str, Any]) -> str:
    status = str(check["status"])
    before, after = check.get("before"), check.get("after")
    if status in ("changed", "broken") and before != after:
        value = f"{before or 'none'} -> {after or 'none'}"
    elif status == "skipped":
        value = f"({check.get('note') or 'skipped'})"
    else:
        value = str(after or before or (f"({check['note']})" if check.get("note") else ""))
    lines = [f"  {_LABELS[status]:<8} {check['check_id']}  {value}".rstrip()]
    finding = check.get("finding")
    if finding:
        lines.append(f"           {finding['message']}")
        prefix = "fix: " if status == "broken" else ""
        lines.append(f"           {prefix}{finding['hint']}")
    return "\n".join(lines) + "\n"


def _result_text(result: Mapping[str, Any]) -> str:
    if result.get("status") == "nothing_to_verify":
        # Nothing was checked or recorded: no "Healthy", no comparison to speak of.
        return f"{result.get('message') or 'Nothing to verify.'}\n"
    counts = result.get("counts") or {}
    since = result.get("snapshot_recorded")
    compared = (
        f"Compared with the last good state of {since}."
        if since
        else "No last good state yet: environments were compared with how they were made."
    )
    if result.get("status") == "cancelled":
        return f"\n{compared}\nCancelled: not every check ran, and nothing was recorded.\n"
    if result.get("healthy"):
        changed = counts.get("changed", 0)
        verdict = "Healthy: nothing is broken" + (f" ({changed} changed)." if changed else ".")
    else:
        broken = counts.get("broken", 0)
        failed = "1 check failed; fix it" if broken == 1 else f"{broken} checks failed; fix them"
        verdict = f"Broken: {failed}, then run `gpuwizard verify` again."
    lines = [f"\n{compared}", verdict]
    if result.get("saved"):
        lines.append(f"Recorded as the last good state: {result['saved']}")
    return "\n".join(lines) + "\n"
