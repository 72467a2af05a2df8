"""Import the framework inside an environment and say what it is, as one JSON line.

Run by the environment's own interpreter (``python framework_import.py torch``): stdlib only,
Python 3.7 syntax, never imports gpuwizard. Prints one JSON object and exits 0 when the
import works, 1 (still with a JSON line saying why) when it does not.
"""

import json
import sys
import traceback

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


def main(argv: "list[str]") -> int:
    """Print the report for the module named in ``argv[1]``; 0 when it imports."""
    module = argv[1] if len(argv) > 1 else "torch"
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
