"""Import the framework inside an environment and say what it is, as one JSON line.

Run by the environment's own interpreter (``python framework_import.py torch``): stdlib only,
Python 3.7 syntax, never imports gpuwizard. Prints one JSON object and exits 0 when the
import works, 1 (still with a JSON line saying why) when it does not.

``--warm FRAMEWORK`` (``pytorch``, ``tensorflow``; what ``env create`` asks of an environment
uv made): once the answer is printed, the live test runs in miniature in this same process
(``train_test.py`` beside this file: one step of batch 2 on the CPU, its events discarded), so
that everything the first real run imports is imported once here, with bytecode written. uv
installs sources only (docs.astral.sh/uv/reference/settings/#compile-bytecode): without this
the first test compiles ~1,900 modules of a CPU torch environment as it imports them (4-5 s on
2 cores) and a run that cannot write ``__pycache__`` compiles them at every start (issue 41,
point 13). One process: what the check imported is not imported twice. A second JSON line
says how it went: ``{"probe": "warm_start", "ok", "modules", "seconds"[, "error"]}``; its
failure never changes the exit status (the framework imports: that was the question).
"""

import contextlib
import io
import json
import sys
import time
import traceback
from pathlib import Path

try:
    from importlib import metadata as _metadata
except ImportError:  # Python 3.7
    _metadata = None  # type: ignore[assignment]

# The import name and the distributions that may provide it.
_DISTRIBUTIONS = {
    "torch": ("torch",),
    "tensorflow": ("tensorflow", "tensorflow-cpu", "tensorflow-gpu", "tensorflow-intel", "tensorflow-macos"),
}


def _installed(names: "tuple[str, ...]") -> "tuple[str | None, str | None]":
    for name in names:
        try:
            return name, _metadata.version(name) if _metadata else None
        except Exception:  # noqa: BLE001, S112 - PackageNotFoundError, or a broken record
            continue
    return None, None


# The live test in miniature: the same code path (model, Adam, a warm-up and a measured step on
# the CPU), at a size that costs milliseconds once the framework is imported.
_WARM_ARGS = ("--cpu-only", "--cpu-warmup", "1", "--cpu-steps", "1", "--cpu-batch", "2", "--seed", "0")


def warm(framework: str) -> "dict[str, object]":
    """Run the live test in miniature here (``--warm``); what happened, as the second JSON line."""
    started = time.perf_counter()
    before = len(sys.modules)
    report = {"probe": "warm_start", "framework": framework}  # type: dict[str, object]
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    try:
        import train_test  # type: ignore[import-not-found]  # noqa: PLC0415 - only when asked: the check alone stays as small

        with contextlib.redirect_stdout(io.StringIO()) as said:
            status = train_test.main(["--framework", framework, *_WARM_ARGS])
        report["ok"] = status == 0
        if status != 0:
            report["error"] = _last_error(said.getvalue())
    except BaseException as error:  # noqa: BLE001 - the check's answer stands whatever happens here
        report["ok"] = False
        report["error"] = "%s: %s" % (type(error).__name__, error)
    report["modules"] = len(sys.modules) - before
    report["seconds"] = round(time.perf_counter() - started, 2)
    return report


def _last_error(events: str) -> str:
    """The message of the test's ``error`` event, from its JSON lines."""
    for line in reversed(events.splitlines()):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("event") == "error":
            return "%s: %s" % (event.get("type"), event.get("message"))
    return "no error event"


def main(argv: "list[str]") -> int:
    """Print the report for the module named in ``argv[1]``; 0 when it imports.

    ``--warm FRAMEWORK`` after it: then run the live test in miniature (:func:`warm`).
    """
    words = list(argv[1:])
    framework = None
    if "--warm" in words[:-1]:
        at = words.index("--warm")
        framework = words[at + 1]
        del words[at : at + 2]
    module = words[0] if words else "torch"
    report = {  # type: dict[str, object]
        "probe": "framework_import",
        "module": module,
        "python": sys.executable,
        "python_version": "%d.%d.%d" % sys.version_info[:3],
    }
    distribution, version = _installed(_DISTRIBUTIONS.get(module, (module,)))
    report["distribution"] = distribution
    report["distribution_version"] = version
    try:
        imported = __import__(module)
    except BaseException as error:  # noqa: BLE001 - any failure must be reported, not crash
        report["ok"] = False
        report["error"] = "%s: %s" % (type(error).__name__, error)
        report["traceback"] = traceback.format_exc()[-4000:]
        print(json.dumps(report))
        return 1
    report["ok"] = True
    report["framework_version"] = getattr(imported, "__version__", None)
    version_module = getattr(imported, "version", None)
    report["cuda_build"] = getattr(version_module, "cuda", None) if module == "torch" else None
    print(json.dumps(report))
    if framework is not None:
        sys.stdout.flush()  # the answer is read before the warm-up begins
        print(json.dumps(warm(framework)))
    return 0


if __name__ == "__main__":
    _status = main(sys.argv)
    sys.path.insert(0, str(Path(__file__).resolve().parent))  # run with -I: the folder is not on it
    from process_end import exit_now  # type: ignore[import-not-found]

    exit_now(_status)
