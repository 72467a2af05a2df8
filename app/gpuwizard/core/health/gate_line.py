"""``verify --oneline``: a verification in one line, what a cluster scheduler shows as a drain reason.

Slurm runs ``gpuwizard verify --no-test --oneline`` as a prolog, a ``HealthCheckProgram`` or an
NHC check, and a failing node is drained with the line as its reason (``scontrol update
nodename=... state=drain reason="..."``), so the line says what broke in a few words and stays
short: at most :data:`MAX_LENGTH` characters, no control characters.

>>> from gpuwizard.core.health.checks import HealthCheck, HealthReport
>>> broken = HealthCheck("env:lab:import", "import", "lab", "broken", "import torch", "not installed")
>>> gate_line(VerifyResult.of(HealthReport((broken,)), "complete"), None)
'gpuwizard: broken: env:lab:import: import torch -> not installed'
"""

from __future__ import annotations

import unicodedata
from typing import Final

from gpuwizard.core.health.events import NOTHING_TO_VERIFY, VerifyResult
from gpuwizard.core.health.snapshot import snapshot_gpus
from gpuwizard.core.machine.system_report import SystemReport

#: The longest line: Slurm keeps a reason whole well beyond it, a terminal line barely.
MAX_LENGTH: Final = 200
_ELLIPSIS: Final = "..."


def gate_line(result: VerifyResult, machine: SystemReport | None) -> str:
    """The line for ``result``, the machine it ran on being ``machine`` (None: not detected).

    ``gpuwizard: healthy (1 environment, driver 570.86.15, 8 GPUs)``, ``gpuwizard: broken:
    CHECK: BEFORE -> AFTER`` (the first broken check; `` (+N more)`` when there are others),
    ``gpuwizard: nothing to verify (the wizard set nothing up here)``, or that the run was
    cancelled or could check nothing.
    """
    if result.status == NOTHING_TO_VERIFY:
        return "gpuwizard: nothing to verify (the wizard set nothing up here)"
    if result.status == "cancelled":
        return "gpuwizard: cancelled (not every check ran; nothing was recorded)"
    broken = result.report.broken
    if broken:
        first = broken[0]
        more = f" (+{len(broken) - 1} more)" if len(broken) > 1 else ""
        detail = f"{first.check_id}: {first.before or 'none'} -> {first.after or 'none'}"
        return _fitted("gpuwizard: broken: ", detail, more)
    if not result.report.checked_something:
        return "gpuwizard: nothing could be checked (every check was skipped; nothing was recorded)"
    return _fitted("gpuwizard: healthy ", f"({_setup_words(result, machine)})", "")


def _setup_words(result: VerifyResult, machine: SystemReport | None) -> str:
    """What was found working: environments, PATH folders, the driver and the GPUs; and what changed."""
    environments = {check.subject for check in result.checks if check.check_id.startswith("env:")}
    folders = sum(check.kind == "path" for check in result.checks)
    parts = []
    if environments:
        parts.append(_count(len(environments), "environment"))
    if folders:
        parts.append(_count(folders, "PATH folder"))
    if machine is not None:
        parts.append(f"driver {machine.driver.version}" if machine.driver else "no NVIDIA driver")
        parts.append(_count(len(snapshot_gpus(machine)), "GPU"))
    changed = sum(check.status == "changed" for check in result.checks)
    words = ", ".join(parts)
    return f"{words}; {changed} changed" if changed else words


def _count(number: int, thing: str) -> str:
    return f"{number} {thing}" if number == 1 else f"{number} {thing}s"


def _fitted(head: str, detail: str, tail: str) -> str:
    """``head + detail + tail`` on one line of at most :data:`MAX_LENGTH`, cutting ``detail`` if it must.

    >>> len(_fitted("gpuwizard: broken: ", "x" * 500, " (+2 more)"))
    200
    """
    detail = _printable(detail)
    room = MAX_LENGTH - len(head) - len(tail)
    if len(detail) > room:
        detail = detail[: room - len(_ELLIPSIS)] + _ELLIPSIS
    return f"{head}{detail}{tail}"


def _printable(text: str) -> str:
    r"""``text`` with control and format characters (a line feed in a path, a bidi override) as ``?``.

    >>> _printable("a\nb\u202ec")
    'a?b?c'
    """
    return "".join("?" if unicodedata.category(char) in ("Cc", "Cf", "Cs") else char for char in text)
