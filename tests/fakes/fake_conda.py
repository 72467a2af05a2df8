"""A fake ``conda``, ``mamba`` or ``micromamba`` executable that replays recorded real output.

The wizard drives the conda family as programs (argv lists through the streaming runner), so the
fake is a program too: a Python script named like the tool, with a shebang to this interpreter.
Each run appends its argv as one JSON line to a calls file, then answers the way the real tool
does, with the recorded outputs in ``tests/fixtures/recorded/conda`` (sources in its SOURCES.md):

- ``info --json``: the flavor's real document (conda says ``envs_dirs``; mamba 2 and micromamba
  say ``envs directories``), its paths pointed into ``FOLDER/envs``.
- ``create ... -p PREFIX ...``: the scenario's recorded output, and for ``ok`` a real environment
  at PREFIX (``python -m venv``, which brings pip offline through ensurepip, plus
  ``conda-meta/history``), so the steps after it (pip inside, the import probe) run for real.
- ``env config vars set -p PREFIX K=V...``: conda stores the variables in ``PREFIX/conda-meta/state``
  as ``{"env_vars": {...}}`` (conda's ``PrefixData.set_environment_env_vars``); mamba 2 and
  micromamba have no such command (mamba-org/mamba#3683) and fail the way their CLI11 parser does.

Scenarios: ``ok``, ``packages-not-found`` and ``http-error`` (exit 1, nothing made), ``partial``
(makes part of PREFIX, then fails with exit 1), ``slow`` (makes part of PREFIX, prints one progress
record, starts a child process, then sleeps 60 s: for cancel tests; both pids are written down,
and again by each process that slept to the end, ``slow_finished``).
"""

from __future__ import annotations

import json
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Final

RECORDED: Final = Path(__file__).resolve().parent.parent / "fixtures" / "recorded" / "conda"
FLAVORS: Final = ("conda", "mamba", "micromamba")
SCENARIOS: Final = ("ok", "packages-not-found", "http-error", "partial", "slow")

# What each flavor answers, by recorded file; the exit status is the real tool's.
_OUTPUTS: Final = {
    "conda": {
        "info": "conda_info--json.json",
        "ok": "conda_create--json_ok.out",
        "packages-not-found": "conda_create--json_packages-not-found.json",
        "http-error": "conda_create_http-error.txt",
        "partial": "mamba_create_partial_link-failed.txt",
    },
    "mamba": {
        "info": "mamba2_info--json.json",
        "ok": "mamba2_create_ok.txt",
        "packages-not-found": "micromamba2_create_packages-not-found.txt",
        "http-error": "micromamba_create_http-error.txt",
        "partial": "mamba_create_partial_link-failed.txt",
    },
    "micromamba": {
        "info": "mamba2_info--json.json",
        "ok": "micromamba2_create_ok.txt",
        "packages-not-found": "micromamba2_create_packages-not-found.txt",
        "http-error": "micromamba_create_http-error.txt",
        "partial": "mamba_create_partial_link-failed.txt",
    },
}
# The folders the recorded info documents name, replaced by the fake's own.
_INFO_ROOTS: Final = {
    "conda": {"/home/miniconda3/envs": "{envs}", "/home/miniconda3": "{root}"},
    "mamba": {"/usr/local/conda/envs": "{envs}", "/usr/local/Caskroom/miniforge/base": "{root}"},
}

_SCRIPT: Final = """#!{python}
# A fake {flavor} written by tests/fakes/fake_conda.py; it replays recorded output.
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

CONFIG = json.loads({config!r})
STATE = Path(CONFIG["state"])
FLAVOR = CONFIG["flavor"]
RECORDED = Path(CONFIG["recorded"])


def emit(name, stream=sys.stdout):
    stream.buffer.write((RECORDED / name).read_bytes())
    stream.flush()


def option(args, *names):
    for index, arg in enumerate(args[:-1]):
        if arg in names:
            return args[index + 1]
    return None


def info(args):
    text = (RECORDED / CONFIG["outputs"]["info"]).read_text(encoding="utf-8")
    for old, new in CONFIG["info_roots"].items():
        text = text.replace(old, json.dumps(new)[1:-1])
    sys.stdout.write(text)
    return 0


def start_prefix(prefix, args):
    (prefix / "conda-meta").mkdir(parents=True, exist_ok=True)
    # conda-meta/history as conda starts it: a header line, then the command.
    (prefix / "conda-meta" / "history").write_text(
        "==> " + time.strftime("%Y-%m-%d %H:%M:%S") + " <==\\n# cmd: " + " ".join(sys.argv) + "\\n",
        encoding="utf-8",
    )
    with (STATE / "made.txt").open("a", encoding="utf-8") as made:
        made.write(str(prefix) + "\\n")


def create(args):
    scenario = (STATE / "scenario").read_text(encoding="utf-8").strip()
    prefix = option(args, "-p", "--prefix")
    if prefix is None:
        sys.stderr.write("fake " + FLAVOR + ": create needs -p PREFIX\\n")
        return 2
    prefix = Path(prefix)
    outputs = CONFIG["outputs"]
    if scenario == "ok":
        # A real interpreter with pip where conda would link python and pip: a venv made once
        # (ensurepip installs pip offline) and copied, links kept, for every later create.
        template = Path(CONFIG["template"])
        if not template.is_dir():
            staging = template.with_name(template.name + "." + str(os.getpid()))
            done = subprocess.run([sys.executable, "-m", "venv", str(staging)], capture_output=True, text=True)
            if done.returncode != 0:
                sys.stderr.write(done.stdout + done.stderr)
                return done.returncode
            try:
                staging.rename(template)
            except OSError:
                shutil.rmtree(staging, ignore_errors=True)  # another run made it first
        shutil.copytree(template, prefix, symlinks=True, dirs_exist_ok=True)
        start_prefix(prefix, args)
        emit(outputs["ok"])
        return 0
    if scenario in ("packages-not-found", "http-error"):
        # conda --json reports errors as JSON on stdout; the text forms go to stderr.
        name = outputs[scenario]
        emit(name, sys.stdout if name.endswith(".json") else sys.stderr)
        return 1
    if scenario == "partial":
        start_prefix(prefix, args)
        (prefix / "conda-meta" / "asn1crypto-0.24.0-py37_1003.json").write_text("{{}}", encoding="utf-8")
        (prefix / "lib").mkdir(exist_ok=True)
        emit(outputs["partial"], sys.stderr)
        return 1
    if scenario == "slow":
        start_prefix(prefix, args)
        first = (RECORDED / outputs["ok"]).read_bytes().replace(b"\\0", b"\\n").splitlines(keepends=True)[0]
        sys.stdout.buffer.write(first)
        sys.stdout.flush()
        pids = STATE / "slow_pids.txt"
        with pids.open("a", encoding="utf-8") as handle:
            handle.write(str(os.getpid()) + "\\n")
        # Each writes its pid again once its sleep is over: a cancel that waited for them, rather
        # than ending them, leaves that trace (slow_finished).
        finished = STATE / "slow_finished.txt"
        code = (
            "import os, sys, time; open(sys.argv[1], 'a').write(str(os.getpid()) + '\\\\n'); time.sleep(60); "
            "open(sys.argv[2], 'a').write(str(os.getpid()) + '\\\\n')"
        )
        subprocess.Popen([sys.executable, "-c", code, str(pids), str(finished)])
        time.sleep(60)
        with finished.open("a", encoding="utf-8") as handle:
            handle.write(str(os.getpid()) + "\\n")
        return 0
    sys.stderr.write("fake " + FLAVOR + ": unknown scenario " + scenario + "\\n")
    return 2


def config_vars_set(args):
    rest = args[4:]
    prefix = option(rest, "-p", "--prefix")
    if prefix is None or not Path(prefix).is_dir():
        sys.stderr.write("EnvironmentLocationNotFound: Not a conda environment: " + str(prefix) + "\\n")
        return 1
    pairs = [arg for arg in rest if "=" in arg and not arg.startswith("-")]
    state_file = Path(prefix) / "conda-meta" / "state"
    state = json.loads(state_file.read_text(encoding="utf-8")) if state_file.is_file() else {{}}
    env_vars = state.get("env_vars") or {{}}
    for pair in pairs:
        # conda's main_env_vars.execute_set: split at "=", strip both sides.
        name, _, value = pair.partition("=")
        env_vars[name.strip()] = value.strip()
    state["env_vars"] = env_vars
    state_file.write_text(json.dumps(state, ensure_ascii=False), encoding="utf-8")
    # conda says "To make your changes take effect..." only for the active prefix: silent here.
    return 0


def not_expected(args):
    # CLI11 (mamba 2, micromamba) names the arguments it could not place, last one first,
    # on stderr, and micromamba's main returns the parse error's exit code (ExtrasError, 109).
    template = (RECORDED / CONFIG["not_expected"]).read_text(encoding="utf-8")
    sys.stderr.write(template.replace("{{ARGUMENTS}}", " ".join(reversed(args))))
    return 109


def main(args):
    with (STATE / "calls.jsonl").open("a", encoding="utf-8") as calls:
        calls.write(json.dumps([sys.argv[0], *args]) + "\\n")
    if args[:1] == ["info"] and "--json" in args:
        return info(args)
    if args[:1] == ["create"]:
        return create(args)
    if args[:4] == ["env", "config", "vars", "set"]:
        if FLAVOR == "conda":
            return config_vars_set(args)
        return not_expected(args[1:])
    sys.stderr.write("fake " + FLAVOR + ": not a recorded command: " + " ".join(args) + "\\n")
    return 2


sys.exit(main(sys.argv[1:]))
"""


@dataclass(frozen=True)
class FakeConda:
    """An installed fake tool: where it is, and what it was asked."""

    executable: str
    flavor: str
    folder: Path
    state: Path

    @property
    def envs(self) -> Path:
        """The envs folder its ``info --json`` names first."""
        return self.folder / "envs"

    def calls(self) -> list[list[str]]:
        """Every argv it was run with (the executable as invoked first), oldest first."""
        path = self.state / "calls.jsonl"
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]

    def set_scenario(self, name: str) -> None:
        """How the next ``create`` behaves (one of :data:`SCENARIOS`)."""
        if name not in SCENARIOS:
            raise ValueError(f"unknown scenario {name!r} (one of {', '.join(SCENARIOS)})")
        (self.state / "scenario").write_text(name, encoding="utf-8")

    def slow_pids(self) -> list[int]:
        """The pids the ``slow`` scenario wrote: the fake tool's own, then its child's."""
        path = self.state / "slow_pids.txt"
        if not path.is_file():
            return []
        return [int(line) for line in path.read_text(encoding="utf-8").split() if line.strip()]

    def slow_finished(self) -> list[int]:
        """The pids of the ``slow`` scenario's processes that slept to the end (were not killed)."""
        path = self.state / "slow_finished.txt"
        if not path.is_file():
            return []
        return [int(line) for line in path.read_text(encoding="utf-8").split() if line.strip()]

    def made(self) -> list[Path]:
        """The prefixes a ``create`` started to fill (before any rollback by the caller)."""
        path = self.state / "made.txt"
        if not path.is_file():
            return []
        return [Path(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def install_fake_conda(
    folder: Path, flavor: str = "conda", scenario: str = "ok", *, venv_template: Path | None = None
) -> FakeConda:
    """Write the fake ``flavor`` executable into ``folder/bin`` and return a handle on it.

    ``folder/envs`` is the envs folder it reports; its state (calls, scenario, pids) lives in
    ``folder/.fake-{flavor}``. POSIX only: the executable is a script run through its shebang.

    Args:
        folder: Where the fake lives.
        flavor: ``conda``, ``mamba`` or ``micromamba``.
        scenario: How ``create`` behaves (see :data:`SCENARIOS`); change it with ``set_scenario``.
        venv_template: Where the venv copied into each new environment is made on first use;
            share one between tests (a session folder) to make it once. Default: inside ``folder``.
    """
    if flavor not in FLAVORS:
        raise ValueError(f"unknown flavor {flavor!r} (one of {', '.join(FLAVORS)})")
    folder = folder.resolve()
    bindir = folder / "bin"
    state = folder / f".fake-{flavor}"
    for path in (bindir, state, folder / "envs"):
        path.mkdir(parents=True, exist_ok=True)
    outputs = _OUTPUTS[flavor]
    roots = _INFO_ROOTS["conda" if flavor == "conda" else "mamba"]
    config = {
        "state": str(state),
        "flavor": flavor,
        "recorded": str(RECORDED),
        "outputs": outputs,
        "not_expected": "mamba2_env-config-vars_not-expected.template",
        "template": str((venv_template or folder / ".venv-template").resolve()),
        "info_roots": {old: new.format(envs=folder / "envs", root=folder) for old, new in roots.items()},
    }
    script = bindir / flavor
    script.write_text(
        _SCRIPT.format(python=sys.executable, flavor=flavor, config=json.dumps(config)), encoding="utf-8"
    )
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    fake = FakeConda(executable=str(script), flavor=flavor, folder=folder, state=state)
    fake.set_scenario(scenario)
    return fake


def process_gone(pid: int) -> bool:
    """True when ``pid`` no longer runs: no such process, or a zombie waiting for a parent to reap it."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    status = Path(f"/proc/{pid}/status")
    try:
        for line in status.read_text(encoding="utf-8").splitlines():
            if line.startswith("State:"):
                return line.split()[1] == "Z"
    except OSError:
        return True
    return False
