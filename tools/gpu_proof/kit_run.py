"""``kit.py run``: every step of the proof, offline, each output kept in one folder.

The layout of the folder (OUT) is the contract with tools/gpu_proof/to_fixtures.py: see
tools/gpu_proof/README.md. Each step runs even after an earlier one failed, where it still can,
so the folder holds as much as possible; the first failure names the step.
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import kit_env
import kit_figures
from kit_common import (
    EXIT_FAILED,
    EXIT_OK,
    KIT_DIR,
    MANIFEST_NAME,
    REQUIREMENTS_NAME,
    CommandLog,
    Finished,
    UsageError,
    now_iso,
    offline_pip_environment,
)

SUMMARY_SCHEMA: Final = "gpuwizard.gpu-proof/1"
#: Far above any step on a GPU machine (the live test takes about a minute there); only a hang reaches it.
STEP_TIMEOUT_S: Final = 600.0
MATMUL_SECONDS: Final = 3.0
#: The name the kit's venv is recorded under in the kit's own GPUWIZARD_HOME.
ENV_NAME: Final = "gpu-proof"
NVML_RECORD: Final = KIT_DIR / "nvml_record.py"
PASSING_VERDICT: Final = "gpu_ok"


@dataclass(frozen=True)
class RunRequest:
    """What ``run`` was asked for, checked."""

    wheels: Path
    out: Path
    python: str
    venv: Path | None
    timeout_s: float
    matmul_seconds: float


def checked_request(
    *, wheels: Path, out: Path, python: str, venv: Path | None, timeout_s: float, matmul_seconds: float
) -> RunRequest:
    """The arguments, or UsageError naming the first bad one (then nothing was changed)."""
    if not (wheels / MANIFEST_NAME).is_file() or not (wheels / REQUIREMENTS_NAME).is_file():
        raise UsageError(
            f"--wheels {wheels}: no {MANIFEST_NAME} there; make the folder with `kit.py prepare`"
        )
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise UsageError(f"--out {out}: exists and is not an empty folder; give a new one")
    found = shutil.which(python)
    if found is None or Path(found).is_dir():
        raise UsageError(f"--python {python}: no such program")
    if venv is not None and venv.exists() and any(venv.iterdir()):
        raise UsageError(f"--venv {venv}: exists and is not empty; give a new folder")
    if not timeout_s > 0 or not matmul_seconds > 0:
        raise UsageError("--timeout and --matmul-seconds must be positive numbers of seconds")
    return RunRequest(
        wheels.resolve(), out.resolve(), str(Path(found).absolute()), venv, timeout_s, matmul_seconds
    )


@dataclass
class Step:
    """One step as summary.json lists it."""

    name: str
    argv: list[str]
    exit_code: int | None
    seconds: float
    files: list[str]
    ok: bool
    skipped: bool = False
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        """As summary.json holds it."""
        return {
            "name": self.name,
            "argv": self.argv,
            "exit_code": self.exit_code,
            "seconds": self.seconds,
            "files": self.files,
            "ok": self.ok,
            "skipped": self.skipped,
            "note": self.note,
        }


@dataclass
class _Run:
    """One run: the folder, the log, the steps so far and the first failure."""

    request: RunRequest
    log: CommandLog
    venv: Path
    started: str = field(default_factory=now_iso)
    steps: list[Step] = field(default_factory=list)
    failure: str | None = None
    python_facts: dict[str, Any] = field(default_factory=dict)

    @property
    def out(self) -> Path:
        return self.request.out

    @property
    def venv_python(self) -> Path:
        return self.venv / "bin" / "python"

    @property
    def gpuwizard(self) -> str:
        return str(self.venv / "bin" / "gpuwizard")

    def environment(self) -> dict[str, str]:
        """Offline pip, and the wizard's state in the run's own folder (never the person's)."""
        environment = offline_pip_environment()
        environment["GPUWIZARD_HOME"] = str(self.out / "home")
        environment.pop("PYTHONPATH", None)
        environment.pop("PYTHONHOME", None)
        return environment

    def relative(self, path: Path) -> str:
        return str(path.relative_to(self.out)) if path.is_relative_to(self.out) else str(path)

    def command(
        self, name: str, argv: list[str], *, stdout: Path | None = None, files: tuple[Path, ...] = ()
    ) -> Finished:
        """Run one command step: its stdout to ``stdout`` (else logs/NAME.stdout), stderr to logs/."""
        logs = self.out / "logs"
        out_file = stdout or logs / f"{name}.stdout"
        err_file = logs / f"{name}.stderr"
        timeout = self.request.timeout_s + (60 if name == "test" else 0)
        done = self.log.run(
            argv, stdout=out_file, stderr=err_file, environment=self.environment(), timeout_s=timeout
        )
        kept = [self.relative(path) for path in (out_file, *files, err_file) if path.exists()]
        ok = done.exit_code == 0
        note = done.note or ("" if ok else f"exit code {done.exit_code} (see {self.relative(err_file)})")
        self.add(Step(name, argv, done.exit_code, done.seconds, kept, ok, note=note))
        return done

    def check(self, name: str, ok: bool, note: str, files: tuple[str, ...] = ()) -> None:
        """A step the kit decides itself (no command): the verdict, the budget."""
        self.log.line(f"check {name}: {'ok' if ok else 'FAILED'}: {note}")
        self.add(Step(name, [], 0 if ok else 1, 0.0, list(files), ok, note=note))

    def skip(self, name: str, why: str, *, ok: bool = False) -> None:
        """A step that could not run (``ok`` True: one that does not apply here)."""
        self.log.line(f"skip {name}: {why}")
        self.add(Step(name, [], None, 0.0, [], ok, skipped=True, note=why))

    def add(self, step: Step) -> None:
        self.steps.append(step)
        if not step.ok and self.failure is None:
            self.failure = f"gpu proof failed at step {step.name!r}: {step.note}"
        self.write_summary(finished=None)

    def amend(self, note: str) -> None:
        """Say better why the last step failed (and so the run, when it was the first failure)."""
        step = self.steps[-1]
        if self.failure == f"gpu proof failed at step {step.name!r}: {step.note}":
            self.failure = f"gpu proof failed at step {step.name!r}: {note}"
        step.note = note
        self.write_summary(finished=None)

    def passed(self, name: str) -> bool:
        return any(step.name == name and step.ok for step in self.steps)

    def write_summary(self, finished: str | None) -> dict[str, Any]:
        summary = {
            "schema": SUMMARY_SCHEMA,
            "ok": self.failure is None,
            "failed_step": next((step.name for step in self.steps if not step.ok), None),
            "failure": self.failure,
            "exit_code": EXIT_OK if self.failure is None else EXIT_FAILED,
            "steps": [step.to_json() for step in self.steps],
            "figures": kit_figures.figures(self.out),
            "python": self.python_facts,
            "torch": self.python_facts.get("torch"),
            "venv": str(self.venv),
            "wheels": str(self.request.wheels),
            "started": self.started,
            "finished": finished,
        }
        text = json.dumps(summary, indent=1) + "\n"
        (self.out / "summary.json").write_text(text, encoding="utf-8")
        return summary


def _python_step(run: _Run) -> None:
    info = run.out / "logs" / "python.json"
    done = run.command("python", [run.request.python, str(KIT_DIR / "python_info.py")], stdout=info)
    facts = kit_figures.read_json(info)
    run.python_facts = facts if isinstance(facts, dict) else {}
    if done.exit_code == 0 and not run.python_facts.get("torch"):
        run.steps[-1].ok = False
        run.failure = run.failure or "gpu proof failed at step 'python': "
        run.amend(f"{run.request.python} has no PyTorch: give --python the one with torch")


def _venv_step(run: _Run) -> bool:
    """A venv that sees the machine's packages (PyTorch above all); True when made."""
    argv = [run.request.python, "-m", "venv", "--system-site-packages", str(run.venv)]
    before = run.failure
    done = run.command("venv", argv)
    if done.exit_code != 0:
        # No ensurepip in this Python (Debian's without python3-venv): pip comes from the folder.
        shutil.rmtree(run.venv, ignore_errors=True)
        run.steps.pop()
        run.failure = before
        run.command("venv", [*argv[:-1], "--without-pip", str(run.venv)])
    if not run.steps[-1].ok:
        return False
    # --system-site-packages reaches the *base* installation's packages only; where the machine's
    # Python is itself a venv (or has a user site), its folders are added by a .pth file, after
    # the venv's own (https://docs.python.org/3/library/site.html: .pth lines are appended).
    folders = [str(folder) for folder in run.python_facts.get("site_dirs") or []]
    purelib = next(iter(run.venv.glob("lib/python3*/site-packages")), None)
    if purelib is not None and folders:
        (purelib / "gpu_proof_machine_packages.pth").write_text("\n".join(folders) + "\n", encoding="utf-8")
        run.steps[-1].note = f"sees the packages of {', '.join(folders)}"
    return True


def _install_steps(run: _Run) -> bool:
    """Install pip (from the folder where the venv has none), the headless dependencies, the wizard."""
    wheels = run.request.wheels
    python = str(run.venv_python)
    check = run.log.run(
        [python, "-m", "pip", "--version"],
        stdout=run.out / "logs" / "pip-version.stdout",
        stderr=run.out / "logs" / "pip-version.stderr",
        environment=run.environment(),
        timeout_s=run.request.timeout_s,
    )
    if check.exit_code != 0:
        pip_wheel = next(iter(sorted(wheels.glob("pip-*.whl"))), None)
        if pip_wheel is None:
            run.skip("pip", f"the venv has no pip and {wheels} holds no pip wheel")
            return False
        # pip runs from its own wheel: a wheel is a zip archive (PEP 427) that Python imports from
        # (zipimport), and pip's __main__ runs as `python pip-X.whl/pip install ...` (tried with
        # pip 26.3 on CPython 3.12, a venv made --without-pip).
        argv = [python, f"{pip_wheel}/pip", "install", "--no-index", "--find-links", str(wheels), "pip"]
        if run.command("pip", argv).exit_code != 0:
            return False
    offline = ["--no-index", "--find-links", str(wheels)]
    requirements = str(wheels / REQUIREMENTS_NAME)
    run.command("install_dependencies", [python, "-m", "pip", "install", *offline, "-r", requirements])
    run.command(
        "install_wizard",
        [python, "-m", "pip", "install", *offline, "--no-deps", "--force-reinstall", "gpuwizard"],
    )
    return run.passed("install_dependencies") and run.passed("install_wizard")


def _wizard_steps(run: _Run) -> None:
    """detect, the NVML record, recommend, the live test and its verdict."""
    out = run.out
    python = str(run.venv_python)
    run.command("register", [python, str(KIT_DIR / "register_env.py"), ENV_NAME])
    run.command("detect", [run.gpuwizard, "detect", "--json"], stdout=out / "detect.json")
    if NVML_RECORD.is_file():
        run.command(
            "nvml_record", [python, str(NVML_RECORD), str(out / "nvml.json")], files=(out / "nvml.json",)
        )
    else:
        run.check("nvml_record", False, f"{NVML_RECORD} is not there: this checkout has no NVML recorder yet")
    run.command(
        "recommend",
        [run.gpuwizard, "recommend", "--framework", "pytorch", "--json"],
        stdout=out / "recommend.json",
    )
    # --env, not --python: only a test of an environment the wizard knows records the last good
    # state that `verify` then checks (docs/architecture.md, "The verdict rule").
    target = ["--env", ENV_NAME] if run.passed("register") else ["--python", python]
    argv = [
        run.gpuwizard,
        "test",
        *target,
        "--framework",
        "pytorch",
        "--json",
        "--timeout",
        f"{run.request.timeout_s:g}",
    ]
    tested = run.command("test", argv, stdout=out / "test.jsonl")
    verdict = kit_figures.last_result(out / "test.jsonl")
    if tested.exit_code != 0 and verdict is not None:
        # Exit 1 is the wizard's own rule failing (`cpu_only` where a GPU is present, `broken`).
        run.amend(
            f"gpuwizard test exited {tested.exit_code}: the live test's verdict is {verdict.get('verdict')}"
        )
    if verdict is None:
        run.check("verdict", False, "the live test printed no result event (see test.jsonl)", ("test.jsonl",))
    else:
        said = verdict.get("verdict")
        good = said == PASSING_VERDICT
        note = f"the live test's verdict is {said}" + ("" if good else f", not {PASSING_VERDICT}")
        run.check("verdict", good, note, ("test.jsonl",))


def _budget_step(run: _Run) -> None:
    figures = kit_figures.figures(run.out)
    shares = figures["live_matmul_share_percent"]
    if figures["budget_ok"] is None:
        why = "no GPU matmul to compare: the live test measures its matmul burst on the GPU only"
        if figures["matmul_device"] == "cuda":
            why = "the live test reported no matmul rate of a dtype the peak measured"
        run.skip("budget", why, ok=figures["matmul_device"] != "cuda")
        return
    text = ", ".join(f"{dtype} {share:g} %" for dtype, share in shares.items())
    limit = kit_figures.BUDGET_PERCENT
    run.check(
        "budget",
        bool(figures["budget_ok"]),
        f"the live test's matmul burst reaches {text} of the measured peak (at least {limit:g} % wanted)",
        ("test.jsonl", "matmul.json"),
    )


def run(request: RunRequest) -> int:
    """Every step; 0 when all passed and the verdict is gpu_ok, else 1 with one line on stderr."""
    request.out.mkdir(parents=True, exist_ok=True)
    (request.out / "logs").mkdir(exist_ok=True)
    temporary = request.venv is None
    venv = Path(tempfile.mkdtemp(prefix="gpu-proof-venv-")) / "venv" if temporary else request.venv
    assert venv is not None  # noqa: S101 - for the type checker: one of the two is set
    with (request.out / "kit.log").open("w", encoding="utf-8") as stream:
        log = CommandLog(stream)
        log.line(f"kit run: python {request.python}, wheels {request.wheels}, out {request.out}, venv {venv}")
        state = _Run(request, log, venv.absolute())
        try:
            _steps(state)
        finally:
            summary = state.write_summary(finished=now_iso())
            log.line(f"done: exit {summary['exit_code']}" + (f": {state.failure}" if state.failure else ""))
            if temporary:
                shutil.rmtree(venv.parent, ignore_errors=True)
    _print_figures(summary)
    print(f"everything is in {request.out} (summary.json first)")
    if state.failure is not None:
        print(state.failure, file=sys.stderr)
        return EXIT_FAILED
    return EXIT_OK


def _steps(run: _Run) -> None:
    _python_step(run)
    made = _venv_step(run)
    installed = made and _install_steps(run)
    wizard_steps = ("register", "detect", "nvml_record", "recommend", "test", "verdict")
    if installed:
        _wizard_steps(run)
    else:
        for name in wizard_steps:
            run.skip(name, "the wizard could not be installed (see the install steps)")
    if made:
        argv = [str(run.venv_python), str(KIT_DIR / "matmul_peak.py"), str(run.out / "matmul.json")]
        run.command(
            "matmul",
            [*argv, "--seconds", f"{run.request.matmul_seconds:g}"],
            files=(run.out / "matmul.json",),
        )
    else:
        run.skip("matmul", "no venv")
    _budget_step(run)
    if installed:
        run.command("verify", [run.gpuwizard, "verify", "--json"], stdout=run.out / "verify.jsonl")
        report = run.out / "report.json"
        run.command("report", [run.gpuwizard, "report", "--out", str(report)], files=(report,))
    else:
        run.skip("verify", "the wizard could not be installed")
        run.skip("report", "the wizard could not be installed")
    kit_env.write_environment(
        run.out, run.log, run.venv_python if made else None, run.python_facts, run.environment()
    )
    run.add(
        Step(
            "environment", [], 0, 0.0, ["environment.json"], True, note="versions, nvidia-smi -q, pip freeze"
        )
    )


def _print_figures(summary: dict[str, Any]) -> None:
    figures = summary["figures"]
    gpus = ", ".join(str(gpu.get("name")) for gpu in figures.get("gpus") or []) or "none"
    print(f"GPUs: {gpus}; driver: {figures.get('driver') or 'none'}")
    print(
        f"verdict: {figures.get('verdict')}; samples/s GPU {figures.get('samples_per_s_gpu')} "
        f"vs CPU {figures.get('samples_per_s_cpu')}; speed-up {figures.get('speedup')}"
    )
    print(
        f"matmul peak ({figures.get('matmul_device')}): {figures.get('matmul_peak_tflops')} TFLOP/s; "
        f"live test: {figures.get('live_matmul_tflops')}; share: {figures.get('live_matmul_share_percent')} "
        f"(budget {figures.get('budget_percent'):g} %)"
    )
    states = ", ".join(f"{step['name']} {'ok' if step['ok'] else 'FAILED'}" for step in summary["steps"])
    print(f"steps: {states}")
