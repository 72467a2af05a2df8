"""Shared test set-up: Qt offscreen, state in a temporary home, fakes importable."""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Final

import pytest
from filelock import FileLock
from hypothesis import settings as _hypothesis_settings

# Before anything imports Qt: render offscreen, so the suite needs no display.
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

TESTS = Path(__file__).parent
FIXTURES = TESTS / "fixtures"
sys.path.insert(0, str(TESTS))  # `import fakes...` from any test module

from harness.hypothesis_examples import QUICK_EXAMPLES  # noqa: E402 - needs the line above
from harness.wine_python import WinePython, WineUnavailable, unavailable  # noqa: E402 - needs the line above

# Hypothesis profiles (hypothesis.readthedocs.io, "Settings profiles"), by HYPOTHESIS_PROFILE:
# - "default" (Hypothesis' own, when nothing is set outside CI): every test's full number of
#   examples, new ones each run; a failure it finds becomes an @example.
# - "ci" (when CI=true and nothing is set): the full number, and the same examples on every run
#   (a run decides whether work lands, so it must not turn red by the luck of the draw; the
#   settings derandomize and database).
# - "dev": the inner loop, `HYPOTHESIS_PROFILE=dev pytest tests/core`: at most QUICK_EXAMPLES a
#   test (harness/hypothesis_examples.py caps the tests that ask for more) and no deadline.
_hypothesis_settings.register_profile("ci", derandomize=True, database=None)
_hypothesis_settings.register_profile("dev", max_examples=QUICK_EXAMPLES, deadline=None)
_hypothesis_profile = os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") == "true" else "")
if _hypothesis_profile:
    _hypothesis_settings.load_profile(_hypothesis_profile)  # an unknown name fails loudly here


def pytest_configure(config: pytest.Config) -> None:
    """The wizard's own modules compiled once, before the tests start hundreds of ``gpuwizard``.

    A person's first run writes ``__pycache__`` beside each module and later runs read it. A
    machine that exports ``PYTHONDONTWRITEBYTECODE=1`` (this sandbox does, for every process)
    never writes it, so each ``gpuwizard`` a test starts would compile what it imports again:
    about 0.15 CPU-s a start. Compiled here once (by the controller, before xdist's workers
    start; ``compileall`` writes each file atomically and skips what is up to date), the tests
    run the wizard as a person's machine does from its second start on.
    """
    if hasattr(config, "workerinput"):
        return
    import compileall

    import gpuwizard

    compileall.compile_dir(Path(gpuwizard.__file__).parent, quiet=2, workers=0)


#: Why a plain run leaves out the tests marked ``heavy`` (pyproject's markers say which).
HEAVY_SKIPPED: Final = "heavy: runs in CI (CI=true) and with --heavy"


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--heavy``: also run the tests marked ``heavy``, as CI does."""
    parser.addoption(
        "--heavy",
        action="store_true",
        help="also run the tests marked heavy (the installer and TensorFlow 2.10 under Wine, ansible-test, "
        "the torch benchmarks, the GPU proof kit), as CI (CI=true) does",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A plain run skips the tests marked ``heavy``; CI (``CI=true``) and ``--heavy`` run them.

    Each drives a whole outside toolchain end to end: the Windows installer built by PyInstaller
    and NSIS and installed under Wine, TensorFlow 2.10's CUDA wheels under Wine (2.1 GB),
    ``ansible-test``, the benchmarks that train or install torch, the GPU proof kit. Together they
    cost about 250 of the suite's 1,460 CPU-seconds and, on the installer's one worker, its
    longest chain (about 400 s); what each reaches in the wizard is tested without the toolchain
    too. CI runs the README's command with ``CI=true``, so nothing lands without them.
    """
    if config.getoption("--heavy") or os.environ.get("CI") == "true":
        return
    skip = pytest.mark.skip(reason=HEAVY_SKIPPED)
    for item in items:
        if item.get_closest_marker("heavy") is not None:
            item.add_marker(skip)


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """``-n auto`` (pyproject's addopts): a worker per core and one more; pyproject caps it at four.

    A test spends about a quarter of its time waiting rather than computing: on the programs it
    starts (Wine's server and desktop, the installer, uv's downloads), on deadlines it tests,
    and on a session fixture another worker is making. With a worker per core the two cores of
    the machine this was measured on were 86 % busy and the suite took 1,068 s; with one more,
    96 % and 968 s (the same clone, run after run). ``PYTEST_XDIST_AUTO_NUM_WORKERS`` still
    decides when it is set (None: pytest-xdist's own hook reads it). A run of ``app`` alone (its
    doctests) does not load this file, and has a worker per core.
    """
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return cores + 1


@pytest.fixture(scope="session", autouse=True)
def _uv_cache_of_the_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """uv's cache in the run's temporary folder, never the developer's ``~/.cache/uv``.

    Every run unpacks the real CPU torch and tensorflow-cpu from freshly made wheel folders; uv
    caches each by its path, so a shared cache grew by about 10 GB a run on a developer's machine
    until the disk filled. pytest keeps the last three runs' folders (docs.astral.sh/uv/concepts/cache/,
    UV_CACHE_DIR).
    """
    previous = os.environ.get("UV_CACHE_DIR")
    os.environ["UV_CACHE_DIR"] = str(tmp_path_factory.mktemp("uv-cache"))
    yield
    if previous is None:
        os.environ.pop("UV_CACHE_DIR", None)
    else:
        os.environ["UV_CACHE_DIR"] = previous


@pytest.fixture(scope="session", autouse=True)
def _wizard_on_path(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """``gpuwizard`` on PATH, as an installed wizard is, whatever the PATH the suite was started with.

    Advice names the wizard's command by its name only where PATH finds this very program, and
    by its full path otherwise (adapters/wizard_program.py, issue 37, point 2): without this, the
    commands every test reads would depend on whether the venv was activated. A folder holding
    only a link to the venv's script goes first, so no other name is found differently; the
    tests of the full path give a PATH without it.
    """
    script = shutil.which("gpuwizard", path=str(Path(sys.executable).parent))
    if script is None:
        yield
        return
    folder = tmp_path_factory.mktemp("wizard-on-path")
    (folder / Path(script).name).symlink_to(script)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PATH", os.pathsep.join([str(folder), os.environ.get("PATH", os.defpath)]))
        yield


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """State never goes to the developer's real GPUWIZARD_HOME (docs/architecture.md, "State under GPUWIZARD_HOME")."""
    home = tmp_path_factory.mktemp("gpuwizard-home")
    monkeypatch.setenv("GPUWIZARD_HOME", str(home))
    # The Choose page refreshes the data from the network when a day old: never in tests
    # (tests of the refresh itself unset it).
    monkeypatch.setenv("GPUWIZARD_NO_REFRESH", "1")
    # Nor do `env create`, `apply` and the Choose page ask the package indexes whether they
    # answer (adapters/index_check.py): tests of the check unset it and ask servers on 127.0.0.1.
    monkeypatch.setenv("GPUWIZARD_NO_INDEX_CHECK", "1")
    return home


def _need(condition: bool, why: str) -> None:
    """Skip here when a heavy real part cannot be had; in CI it must be had (fail instead)."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(why)
        pytest.skip(why)


def _venv_python(prefix: Path) -> Path:
    return prefix / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


@pytest.fixture(scope="session")
def torch_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder with the real CPU torch 2.13.0 wheel, its dependencies and pip, for offline installs.

    Its wheels carry their bytecode (builders/precompiled_wheels.py): each environment made from
    it skips compiling torch, 5 to 6 s of CPU. Tests of what compiling costs use
    ``real_cpu_torch_folder`` as PyPI ships the wheels.
    """
    from builders.precompiled_wheels import precompiled_folder
    from builders.wheelhouses import real_cpu_torch_folder

    folder = real_cpu_torch_folder(tmp_path_factory.mktemp("torch-wheels-as-shipped"))
    _need(folder is not None, "the CPU torch 2.13.0 wheel and its dependencies could not be gathered")
    assert folder is not None
    return precompiled_folder(folder, tmp_path_factory.mktemp("torch-wheels"))


@pytest.fixture(scope="session")
def torch_python(tmp_path_factory: pytest.TempPathFactory, torch_folder: Path) -> str:
    """An environment with the real CPU build of torch 2.13.0, installed offline with uv."""
    import shutil
    import subprocess

    uv = shutil.which("uv", path=str(Path(sys.executable).parent))
    folder = torch_folder
    _need(uv is not None, "uv is not available here")
    assert uv is not None
    prefix = tmp_path_factory.mktemp("torch-env") / "env"
    subprocess.run([uv, "venv", "--python", sys.executable, str(prefix)], capture_output=True, check=True)
    subprocess.run(
        [uv, "pip", "install", "--python", str(_venv_python(prefix)), "--offline", "--no-index",
         "--find-links", str(folder), "torch==2.13.0"],
        capture_output=True, check=True, timeout=600,
    )  # fmt: skip
    return str(_venv_python(prefix))


def _run_root(config: pytest.Config, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The folder this whole run's temporary folders are under: shared by all its xdist workers.

    Each worker has its own base temporary folder, ``ROOT/popen-gwN`` (pytest-xdist's
    "Making session-scoped fixtures execute only once"); without workers it is the base itself.
    A worker is known by its ``workerinput``, not by an environment variable: a pytest started
    from inside a worker's test inherits those.
    """
    base = tmp_path_factory.getbasetemp()
    return base.parent if hasattr(config, "workerinput") else base


@pytest.fixture(scope="session")
def tensorflow_python(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """An environment with tensorflow-cpu from the package registry (GPUWIZARD_TEST_TF_PYTHON reuses one).

    One for the whole run, whichever worker needs it first makes it (the others wait on a file
    lock): installing it is about 15 s and a 250 MB download, and the tests only run it. When it
    cannot be made, the reason is kept beside it, so that the other workers skip (or, in CI,
    fail) with it at once instead of trying again one after another.
    """
    given = os.environ.get("GPUWIZARD_TEST_TF_PYTHON")
    if given:
        return given
    folder = _run_root(request.config, tmp_path_factory) / "tensorflow-env"
    folder.mkdir(exist_ok=True)
    made, failed = folder / "python", folder / "failed"
    with FileLock(folder / "lock"):
        if not made.is_file() and not failed.is_file():
            python, why = _tensorflow_environment(folder / "env")
            if python is None:
                failed.write_text(why, encoding="utf-8")
            else:
                made.write_text(python, encoding="utf-8")  # last: the environment is whole
    _need(made.is_file(), failed.read_text(encoding="utf-8") if failed.is_file() else "")
    return made.read_text(encoding="utf-8")


def _tensorflow_environment(prefix: Path) -> tuple[str | None, str]:
    """tensorflow-cpu installed into a new environment at ``prefix`` and warmed: its interpreter.

    Or None, and why it could not be made.
    """
    import subprocess

    uv = shutil.which("uv", path=str(Path(sys.executable).parent))
    if uv is None:
        return None, "uv is not installed"
    shutil.rmtree(prefix, ignore_errors=True)  # what a worker killed here left
    made = subprocess.run(
        [uv, "venv", "--python", sys.executable, str(prefix)], capture_output=True, text=True, check=False
    )
    if made.returncode != 0:
        return None, f"no environment for tensorflow-cpu: {made.stderr[-300:]}"
    installed = subprocess.run(
        [uv, "pip", "install", "--python", str(_venv_python(prefix)), "tensorflow-cpu"],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    if installed.returncode != 0:
        return None, f"tensorflow-cpu could not be installed: {installed.stderr[-300:]}"
    python = str(_venv_python(prefix))
    # The wizard's own warm start (`env create` runs it in each environment it makes): the live
    # test in miniature, writing the bytecode of what a run imports. The tests then start
    # TensorFlow in 3 s instead of 8 on a machine that sets PYTHONDONTWRITEBYTECODE (see
    # pytest_configure), as on a person's machine after a first run.
    from gpuwizard import probes

    warm = probes.script("framework_import")
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([python, str(warm), "tensorflow", "--warm", "tensorflow"], env=env,
                   capture_output=True, timeout=600, check=False)  # fmt: skip
    return python, ""


@pytest.fixture(scope="session")
def wine_python(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WinePython]:
    """A Windows CPython under Wine with ``gpuwizard`` importable, one prefix for the session.

    Skipped where Wine or the interpreter cannot be had; in CI that fails instead.
    """
    try:
        wine = WinePython.provision(tmp_path_factory.mktemp("wine-python"))
    except WineUnavailable as why:
        unavailable(str(why))
    yield wine
    wine.close()
    # The prefix is the bulk of it (Wine's own files); pytest keeps the rest of the folder.
    shutil.rmtree(wine.prefix, ignore_errors=True)
