"""A stand-in ``wsl.exe``: a real executable that replays recorded outputs and records its calls.

It is a small Python script (``#!`` the test's interpreter) in a temporary folder. For
``--list --verbose``, ``--status`` and ``--version`` it writes a recorded output's bytes
(tests/fixtures/wsl, UTF-16 as ``wsl.exe`` writes them) and exits with its status (-1 as 255,
as a POSIX exit status holds it). For ``--distribution NAME --exec /usr/bin/python3 ...`` it runs
the command for real with the test's interpreter in place of the distribution's Python, so the
probe's source really travels the way the adapter sends it. Each call appends its arguments
and its ``WSL_UTF8`` to ``calls.jsonl`` beside it.
"""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "wsl"
INDEX: dict[str, dict[str, object]] = json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))

_SCRIPT = textwrap.dedent(
    """\
    #!{python}
    import json, os, subprocess, sys, time
    here = os.path.dirname(os.path.abspath(__file__))
    args = sys.argv[1:]
    with open(os.path.join(here, "calls.jsonl"), "a", encoding="utf-8") as log:
        log.write(json.dumps({{"argv": args, "WSL_UTF8": os.environ.get("WSL_UTF8")}}) + "\\n")
    with open(os.path.join(here, "replies.json"), encoding="utf-8") as stream:
        replies = json.load(stream)
    if "--exec" in args:
        if "--cd" in args[: args.index("--exec")]:
            os.chdir(os.path.expanduser(args[args.index("--cd") + 1]))  # "~": the user's home, as WSL
        command = args[args.index("--exec") + 1 :]
        if command[:1] == ["/usr/bin/python3"]:
            command[0] = sys.executable
        sys.exit(subprocess.call(command))
    reply = replies.get(" ".join(args))
    if reply is None:
        sys.stderr.buffer.write("Invalid command line option: {{}}\\r\\n".format(" ".join(args)).encode("utf-16-le"))
        sys.exit(255)
    if reply.get("hang"):
        while True:
            time.sleep(60)
    with open(reply["file"], "rb") as stream:
        sys.stdout.buffer.write(stream.read())
    sys.exit(reply["code"] & 0xFF)
    """
)


@dataclass(frozen=True)
class StandInWsl:
    """A stand-in ``wsl.exe`` at ``path``; :meth:`calls` says how it was run."""

    path: Path

    def calls(self) -> list[dict[str, object]]:
        """Each call's ``argv`` (without the program) and ``WSL_UTF8``, in order."""
        log = self.path.parent / "calls.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]


def stand_in_wsl(folder: Path, answers: Mapping[str, str | None]) -> StandInWsl:
    """A stand-in in ``folder`` answering each argument string with a fixture (None: it hangs).

    ``answers`` maps ``"--list --verbose"``, ``"--status"``, ``"--version"`` to a fixture name of
    tests/fixtures/wsl; arguments not named get "Invalid command line option" and exit 255.
    """
    folder.mkdir(parents=True, exist_ok=True)
    replies: dict[str, dict[str, object]] = {}
    for args, fixture in answers.items():
        if fixture is None:
            replies[args] = {"hang": True}
        else:
            replies[args] = {
                "file": str(FIXTURES / f"{fixture}.out"),
                "code": int(str(INDEX[fixture]["returncode"])),
            }
    (folder / "replies.json").write_text(json.dumps(replies), encoding="utf-8")
    path = folder / "wsl.exe"
    path.write_text(_SCRIPT.format(python=sys.executable), encoding="utf-8")
    path.chmod(0o755)
    return StandInWsl(path)
