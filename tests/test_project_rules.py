"""Project rules that are checked, not hoped for: import layering, lint, types, README and CI."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).parent.parent
TESTS = ROOT / "tests"
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def run_tool(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=cwd, capture_output=True, text=True, timeout=600, check=False
    )


def test_import_rules_of_design_section_2_hold():
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports, "import-linter is a test dependency"
    done = subprocess.run(
        [lint_imports, "--no-cache"], cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "BROKEN" not in done.stdout and "KEPT" in done.stdout


def test_the_import_contracts_catch_a_violation(tmp_path: Path):
    """The same contracts, over a copy of the package with one forbidden import added, fail."""
    package = tmp_path / "gpuwizard"
    shutil.copytree(ROOT / "app" / "gpuwizard", package, ignore=shutil.ignore_patterns("__pycache__"))
    (package / "core" / "sneaky.py").write_text("import subprocess\nfrom gpuwizard.ui import wizard\n")
    (tmp_path / "pyproject.toml").write_text((ROOT / "pyproject.toml").read_text())
    lint_imports = shutil.which("lint-imports", path=str(Path(sys.executable).parent))
    assert lint_imports
    done = subprocess.run(
        [lint_imports, "--no-cache"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
        env={"PYTHONPATH": str(tmp_path), "PATH": str(Path(sys.executable).parent)},
    )
    assert done.returncode != 0
    assert "gpuwizard.core.sneaky -> subprocess" in done.stdout
    assert "gpuwizard.core.sneaky -> gpuwizard.ui" in done.stdout


def test_ruff_is_clean():
    done = run_tool("ruff", "check", "--no-cache", ".")
    assert done.returncode == 0, done.stdout + done.stderr


def test_mypy_is_clean(tmp_path: Path):
    # The plain configured command, as a maintainer runs it from the repository root.
    done = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / ".mypy_cache")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Success" in done.stdout and "gpuwizard" not in done.stderr


def test_the_package_imports_from_its_source_root_alone():
    """``PYTHONPATH=app python -c 'import gpuwizard.core'``: no install and no import hook needed."""
    done = subprocess.run(
        # -S: no site-packages, so not the editable install's import hook either.
        [sys.executable, "-S", "-c", "import gpuwizard.core; print(gpuwizard.core.__file__)"],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "PYTHONPATH": "app"},
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert (
        Path(done.stdout.strip()).resolve() == (ROOT / "app" / "gpuwizard" / "core" / "__init__.py").resolve()
    )


def test_every_package_is_listed_for_the_wheel():
    """pyproject lists the packages (``gpuwizard.resources`` lives apart): the list is the folders on disk."""
    on_disk = {
        ".".join(init.parent.relative_to(ROOT / "app").parts) for init in (ROOT / "app").rglob("__init__.py")
    }
    listed = set(PYPROJECT["tool"]["setuptools"]["packages"])
    assert listed == {*on_disk, "gpuwizard.resources"}
    assert PYPROJECT["tool"]["setuptools"]["package-dir"] == {"": "app", "gpuwizard.resources": "resources"}


def test_readme_has_the_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    setup = readme.split("## Set up", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```\n(.+?)\n```", setup)
    assert len(commands) == 2, commands
    start, test = commands
    assert start.endswith("gpuwizard") and test.endswith("pytest")
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- test-command -->" in readme and "test-command" in ci and 'eval "$test_command"' in ci


def test_the_version_is_defined_once():
    from gpuwizard import __version__

    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "gpuwizard.__version__"}
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


@pytest.mark.parametrize(
    "path", sorted((ROOT / "app" / "gpuwizard" / "probes").glob("*.py")), ids=lambda p: p.name
)
def test_probes_compile_as_python_37(path: Path):
    # Probes run inside the target environment, which may be Python 3.7 (TensorFlow 2.10 on Windows).
    import ast

    ast.parse(path.read_text(), feature_version=(3, 7))


def test_tests_grouped_for_a_shared_fixture_run_on_one_worker(tmp_path: Path):
    """``--dist loadgroup`` keeps an xdist_group on one worker (pytest 9.2 broke it: pyproject pins below)."""
    (tmp_path / "test_grouped.py").write_text(
        "import os, pytest\n"
        "pytestmark = pytest.mark.xdist_group('shared')\n"
        "@pytest.mark.parametrize('n', range(8))\n"
        "def test_grouped(n):\n"
        "    with open(f'worker-{n}', 'w') as out:\n"
        "        out.write(os.environ['PYTEST_XDIST_WORKER'])\n"
    )
    (tmp_path / "test_other.py").write_text(
        "import pytest\n@pytest.mark.parametrize('n', range(8))\ndef test_other(n):\n    pass\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    workers = {(tmp_path / f"worker-{n}").read_text() for n in range(8)}
    assert len(workers) == 1, workers


def test_a_plain_run_skips_the_heavy_tests_and_ci_or_heavy_runs_them(tmp_path: Path):
    """tests/conftest.py: a test marked ``heavy`` is skipped, with why, unless CI=true or --heavy."""
    (tmp_path / "test_marked.py").write_text(
        "import pytest\n"
        "@pytest.mark.heavy\n"
        "def test_heavy():\n"
        "    open('heavy-ran', 'w').close()\n"
        "def test_plain():\n"
        "    pass\n"
    )
    plain = {name: value for name, value in os.environ.items() if name != "CI"}
    # The suite's own conftest as a plugin, in a folder of its own (no pyproject, no xdist).
    argv = [sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "-p", "conftest"]
    runs = {
        "plain": (argv, plain),
        "--heavy": ([*argv, "--heavy"], plain),
        "CI=true": (argv, {**plain, "CI": "true"}),
    }
    for how, (command, env) in runs.items():
        (tmp_path / "heavy-ran").unlink(missing_ok=True)
        done = subprocess.run(
            command, cwd=tmp_path, env={**env, "PYTHONPATH": str(TESTS)},
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        assert done.returncode == 0, (how, done.stdout + done.stderr)
        if how == "plain":
            assert "1 passed, 1 skipped" in done.stdout, done.stdout
            assert "heavy: runs in CI (CI=true) and with --heavy" in done.stdout, done.stdout
            assert not (tmp_path / "heavy-ran").exists()
        else:
            assert "2 passed" in done.stdout, (how, done.stdout)
            assert (tmp_path / "heavy-ran").exists(), how


# --- tests wait on events, not on the clock -----------------------------------------------------

#: Calls whose limit, when it runs out, fails a test: Qt waits in milliseconds, the rest in seconds.
_QT_WAITS = frozenset({"waitUntil", "waitSignal", "waitSignals", "waitCallback"})
_LIMITED_CALLS = frozenset({"wait", "communicate", "join", "run", "check_output"})


def _short_limits(source: str) -> list[tuple[int, str]]:
    """Where ``source`` waits with a literal limit under a minute (or Qt's 5 s default)."""
    lines = source.splitlines()
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        keywords = {keyword.arg: keyword.value for keyword in node.keywords}
        limit = keywords.get("timeout")
        if node.func.attr in _QT_WAITS:
            seconds = 5.0 if limit is None else _literal(limit, scale=1000)
        elif node.func.attr in _LIMITED_CALLS:
            if limit is None and node.func.attr in ("wait", "join") and node.args:
                limit = node.args[0]
            seconds = None if limit is None else _literal(limit, scale=1)
        else:
            continue
        said = " ".join(lines[node.lineno - 1 : node.end_lineno or node.lineno])
        if seconds is not None and seconds < 60 and "# not a guess" not in said:
            found.append((node.lineno, node.func.attr))
    return found


def _literal(node: ast.expr, scale: float) -> float | None:
    if (
        isinstance(node, ast.Constant)
        and isinstance(node.value, int | float)
        and not isinstance(node.value, bool)
    ):
        return node.value / scale
    return None


def test_tests_wait_on_events_with_limits_that_are_not_guesses():
    # A limit close to the usual time turns a loaded 2-core machine's slow run into a red one
    # (issue: a 20 s wait for an interrupted probe failed once in two runs). Tests wait on
    # events; their limits are harness.waits' long guards, or say why a short one is no guess.
    offenders = [
        f"{path.relative_to(TESTS)}:{line} {call}"
        for path in sorted(TESTS.rglob("*.py"))
        if "bench" not in path.parts
        for line, call in _short_limits(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_wait_rule_sees_a_short_limit():
    planted = "qtbot.waitUntil(lambda: done, timeout=10_000)\nprocess.wait(20)\nevent.wait(timeout=5)\n"
    assert [call for _line, call in _short_limits(planted)] == ["waitUntil", "wait", "wait"]
    allowed = "qtbot.waitUntil(ready, timeout=EVENT_MS)\nprocess.wait()\nrun(argv, timeout=0.5)  # not a guess: the limit under test\n"
    assert _short_limits(allowed) == []


#: Clock readings (``time.monotonic()``) and the names durations go by (``result.seconds``).
_CLOCKS = frozenset({"monotonic", "monotonic_ns", "perf_counter", "perf_counter_ns", "time", "time_ns"})
_DURATIONS = frozenset({"seconds", "elapsed", "elapsed_s", "elapsed_ms", "duration"})


def _duration_asserts(source: str) -> list[int]:
    """Where ``source`` asserts on a duration: a clock read in the assert, or ``seconds < 20``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Assert):
            continue
        for inner in ast.walk(node.test):
            clock = (
                isinstance(inner, ast.Call)
                and isinstance(inner.func, ast.Attribute)
                and isinstance(inner.func.value, ast.Name)
                and (inner.func.value.id, inner.func.attr) in {("time", name) for name in _CLOCKS}
            )
            bound = (
                isinstance(inner, ast.Compare)
                and _duration_named(inner.left)
                and any(isinstance(op, ast.Lt | ast.LtE) for op in inner.ops)
                and any(_literal(value, scale=1) is not None for value in inner.comparators)
            )
            if clock or bound:
                found.append(node.lineno)
                break
    return found


def _duration_named(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in _DURATIONS
    if isinstance(node, ast.Attribute):
        return node.attr in _DURATIONS
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value in _DURATIONS
    return False


def test_tests_assert_what_happened_not_how_long_it_took():
    # On a loaded machine any bound on a duration turns a slow run red, and a generous one lets
    # a wrong result through: a test checks the event (the process is gone, the result came
    # while the work still hung), with a per-test limit (@pytest.mark.timeout) against hangs.
    offenders = [
        f"{path.relative_to(TESTS)}:{line}"
        for path in sorted(TESTS.rglob("*.py"))
        if "bench" not in path.parts
        for line in _duration_asserts(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []


def test_the_duration_rule_sees_an_assert_on_the_clock():
    planted = (
        "assert time.monotonic() - started < 5\n"
        "assert time.perf_counter() < deadline\n"
        "assert result.seconds < 20\n"
        "assert seconds <= 1.5\n"
        'assert summary["elapsed_s"] < 3\n'
    )
    assert _duration_asserts(planted) == [1, 2, 3, 4, 5]
    allowed = (
        'assert summary["seconds"] <= wall  # what the probe says against what the test saw\n'
        "assert result.seconds == 4.93\n"
        "assert done.seconds >= 0\n"
        "seconds = time.monotonic() - started\n"
    )
    assert _duration_asserts(allowed) == []
