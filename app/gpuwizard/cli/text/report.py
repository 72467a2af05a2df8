"""``gpuwizard report`` as text: what the written report holds, and what was redacted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

_KIND_WORDS: Final = {
    "gpu_uuid": "GPU UUID",
    "serial_number": "serial number",
    "home_folder": "home-folder path",
    "user_name": "user name",
    "host_name": "computer name",
    "url_credentials": "URL login",
    "credential_variable": "credential variable",
    "access_token": "access token",
}


def summary_line(document: Mapping[str, Any]) -> str:
    """One line: how many environments and tests the report holds, and what was redacted."""
    environments = document.get("environments") or []
    tests = document.get("tests") or []
    counts = (document.get("redaction") or {}).get("counts") or {}
    hidden = [
        f"{count} {_KIND_WORDS[kind]}{'' if count == 1 else 's'}"
        for kind, count in counts.items()
        if kind in _KIND_WORDS and count
    ]
    return (
        f"{len(environments)} environment{'' if len(environments) == 1 else 's'}, "
        f"{len(tests)} live test{'' if len(tests) == 1 else 's'}; redacted: "
        + (", ".join(hidden) if hidden else "nothing found to redact")
    )
