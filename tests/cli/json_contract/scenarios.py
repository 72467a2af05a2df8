"""The recorded runs of the JSON contract test: each long command, run for real, in a fixed order.

Every run is the real ``gpuwizard`` entry point in a child process (``harness.entry_point``), in
its own wizard home under one temporary folder, with package settings that could differ between
machines taken out of its environment (the index variables, pip's configuration files) and its
own empty uv cache (uv prints "Prepared N packages" only for wheels its cache does not hold yet).

No GPU and no network are needed, and nothing waits on the clock:

- the environments are real (uv, offline, from a folder of small real wheels); the ``torch`` in
  them is a stand-in (:func:`playback_torch`) that imports as itself everywhere but in the
  training probe, where its import plays back a recorded CPU training run
  (``probe_cpu_run.jsonl`` beside this file, the recorded run of
  ``resources/samples/runs/test-torch-cpu.jsonl`` with the probe's ``prepare compile`` and
  ``libraries`` events added) and ends the probe: the wizard's live test, with its verdict
  rule, recording and ``verify``'s short test, runs for real on a probe output that never varies;
- the failing environment's ``torch`` raises on import (:func:`broken_torch`), so ``env create``
  fails in its ``verify`` step and rolls back;
- ``verify``, ``apply``, ``detect`` and ``recommend`` read saved machine reports
  (``resources/samples``) where they take ``--system``; ``test`` and ``env create`` detect this
  machine, which must have no NVIDIA GPU (the developers' and CI's machines have none: the test
  skips elsewhere).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from builders.wheels import build_wheel
from harness.entry_point import ENTRY_POINT
from harness.waits import EVENT_S

HERE = Path(__file__).parent
REPO = Path(__file__).resolve().parents[3]
SAMPLES = REPO / "resources" / "samples"
NO_GPU = SAMPLES / "no-gpu.json"
WINDOWS_REPORT = SAMPLES / "windows-rtx2080super-two-cuda.json"
WINDOWS_REGISTRY = SAMPLES / "registry" / "windows-cuda12.json"
H200 = SAMPLES / "linux-h200.json"

#: Settings that choose package indexes: a developer's own would show in ``package_sources``.
_INDEX_VARIABLES = (
    "GPUWIZARD_PYTORCH_INDEX_URL",
    "GPUWIZARD_TORCH_INDEX_URL",
    "GPUWIZARD_PYPI_URL",
    "UV_DEFAULT_INDEX",
    "UV_INDEX_URL",
    "UV_INDEX",
    "UV_EXTRA_INDEX_URL",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
)
#: What uv reads to name the user's shell (uv's ``Shell::from_env``), besides ``SHELL``.
_SHELL_VARIABLES = ("NU_VERSION", "FISH_VERSION", "BASH_VERSION", "ZSH_VERSION", "KSH_VERSION")


@dataclass(frozen=True)
class Run:
    """One command as it ran: its arguments, exit code and output."""

    name: str
    argv: tuple[str, ...]
    exit_code: int
    stdout: str
    stderr: str


@dataclass
class Recording:
    """The runs, in order, and what varies between machines that the comparison stands in for."""

    root: Path
    runs: dict[str, Run] = field(default_factory=dict)
    #: The interpreter the new environments were made from (this machine's), and its version.
    base_python: str | None = None
    base_python_version: str | None = None


def playback_torch(folder: Path) -> Path:
    """A ``torch`` 2.13.0+cpu wheel whose import, in the training probe alone, plays back a CPU run.

    The version is the recorded run's, so ``verify`` finds the build the test recorded.
    """
    run = (HERE / "probe_cpu_run.jsonl").read_text(encoding="utf-8")
    init = (
        '__version__ = "2.13.0+cpu"\n\n'
        "from torch import version as version\n\n"
        "import os as _os\nimport sys as _sys\n\n"
        "# The training probe imports torch after its `prepare import` event: what a real CPU run\n"
        "# printed from there on is printed, and the probe ends as a finished run does.\n"
        '_RUN = """' + run.replace("\\", "\\\\") + '"""\n'
        'if _os.path.basename(_sys.argv[0]) == "train_test.py":\n'
        "    _sys.stdout.write(_RUN)\n"
        "    _sys.stdout.flush()\n"
        "    _os._exit(0)\n"
    )
    version = '__version__ = "2.13.0+cpu"\ncuda = None\n'
    return build_wheel(
        folder, "torch", "2.13.0+cpu", files={"torch/__init__.py": init, "torch/version.py": version}
    )


def broken_torch(folder: Path) -> Path:
    """A ``torch`` 2.13.0 wheel whose import fails: ``env create`` fails at its verify step."""
    init = '__version__ = "2.13.0"\n\nraise ImportError("this stand-in torch cannot be imported")\n'
    return build_wheel(folder, "torch", "2.13.0", files={"torch/__init__.py": init})


def isolated_environment(home: Path, uv_cache: Path) -> dict[str, str]:
    """This process's environment for a run: its own wizard home and uv cache, no index settings."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in _INDEX_VARIABLES and key not in _SHELL_VARIABLES
    }
    env.update(
        # uv prints its "Activate with: ..." line only for a shell it can name (from these
        # variables, else from the parent process): CI runs without SHELL, so the golden's uv
        # lines would differ by where the suite runs. Name one shell for every run.
        SHELL="/bin/bash",
        GPUWIZARD_HOME=str(home),
        GPUWIZARD_NO_REFRESH="1",
        GPUWIZARD_NO_INDEX_CHECK="1",
        PIP_CONFIG_FILE=os.devnull,
        UV_CACHE_DIR=str(uv_cache),
    )
    return env


def has_an_nvidia_gpu(root: Path) -> bool:
    """Whether this machine has an NVIDIA GPU or driver (``gpuwizard detect``, as the runs detect it)."""
    done = subprocess.run(
        [ENTRY_POINT, "detect", "--json"],
        capture_output=True, text=True, check=True, timeout=EVENT_S,
        env=isolated_environment(root / "home-machine", root / "uv-cache" / "machine"),
    )  # fmt: skip
    machine = json.loads(done.stdout)
    return machine["driver"] is not None or any(gpu.get("vendor") == "nvidia" for gpu in machine["gpus"])


class Recorder:
    """Runs ``gpuwizard`` commands, each with a home and a uv cache of its own, and keeps them."""

    def __init__(self, root: Path) -> None:
        self.recording = Recording(root)
        self.root = root

    def run(self, name: str, *args: str, home: Path) -> Run:
        env = isolated_environment(home, self.root / "uv-cache" / name)
        done = subprocess.run(
            [ENTRY_POINT, *args], capture_output=True, text=True, env=env, timeout=EVENT_S, check=False
        )
        run = Run(name, tuple(args), done.returncode, done.stdout, done.stderr)
        assert name not in self.recording.runs, name
        self.recording.runs[name] = run
        return run


def record_all(root: Path) -> Recording:
    """Run every scenario under ``root`` (an empty temporary folder); the runs in their order."""
    recorder = Recorder(root)
    run = recorder.run
    wheels = root / "wheels"
    playback_torch(wheels)
    broken = root / "broken-wheels"
    broken_torch(broken)

    # env create, test, verify, env list and remove: one home, one environment, as a person goes.
    home = root / "home"
    create = ("env", "create", "demo", "--framework", "pytorch", "--version", "2.13")
    made = run("env-create-ok", *create, "--find-links", str(wheels), "--offline", "--json", home=home)
    assert made.exit_code == 0, made.stdout[-3000:] + made.stderr
    python = home / "envs" / "demo" / "bin" / "python"
    recorder.recording.base_python = str(python.readlink())
    recorder.recording.base_python_version = _pyvenv_cfg(python.parent.parent)["version_info"]
    run("env-list", "env", "list", "--json", home=home)
    run("test-env", "test", "--env", "demo", "--json", home=home)
    run("verify-healthy", "verify", "--json", "--system", str(NO_GPU), home=home)
    site = next((home / "envs" / "demo").glob("lib/python*/site-packages"))
    shutil.rmtree(site / "torch")  # "I deleted torch to save space"
    run("verify-broken", "verify", "--json", "--no-test", "--system", str(NO_GPU), home=home)
    run("env-remove", "env", "remove", "demo", "--json", home=home)

    # env create that fails part-way and rolls back.
    failed = root / "home-failed"
    run("env-create-rolled-back", *create, "--find-links", str(broken), "--offline", "--json", home=failed)

    # verify where the wizard set nothing up (the machine report has no driver, no GPU).
    run("verify-nothing", "verify", "--json", "--system", str(NO_GPU), home=root / "home-empty")

    # apply: a preview of a Windows plan; the same plan failing part-way (PATH put back); a real run.
    tf_wheels = root / "tf-wheels"
    tf_wheels.mkdir()
    tf = _answers(
        root / "tf.toml",
        f'framework = "tensorflow"\nversion = "2.10"\nmanager = "venv"\nenvironment = "tf"\n'
        f'find_links = "{tf_wheels.as_posix()}"\noffline = true\n',
    )
    registry = root / "registry.json"
    shutil.copy(WINDOWS_REGISTRY, registry)
    windows = ("--system", str(WINDOWS_REPORT), "--registry", str(registry))
    run("apply-preview", "apply", "--answers", str(tf), "--json", *windows, home=root / "home-preview")
    run(
        "apply-rolled-back",
        "apply",
        "--answers",
        str(tf),
        "--yes",
        "--json",
        *windows,
        home=root / "home-undone",
    )
    lab = _answers(
        root / "lab.toml",
        f'framework = "pytorch"\nversion = "2.13"\nenvironment = "lab"\nfind_links = "{wheels.as_posix()}"\n'
        "offline = true\n",
    )
    run("apply-ok", "apply", "--answers", str(lab), "--yes", "--json", home=root / "home-apply")

    # The one-document commands, on a saved report of another machine.
    run("detect", "detect", "--json", "--system", str(H200), home=root / "home-detect")
    run(
        "recommend",
        "recommend", "--framework", "pytorch", "--version", "2.13", "--system", str(H200), "--json",
        home=root / "home-recommend",
    )  # fmt: skip
    return recorder.recording


def _answers(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _pyvenv_cfg(prefix: Path) -> Mapping[str, str]:
    pairs = (line.partition("=") for line in (prefix / "pyvenv.cfg").read_text(encoding="utf-8").splitlines())
    return {key.strip(): value.strip() for key, _, value in pairs}
