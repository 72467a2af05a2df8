"""List the distributions installed in an environment, as one JSON object.

Run by the environment's own interpreter (``python -I package_versions.py``): stdlib only, Python
3.7 syntax, never imports gpuwizard, never imports the packages it lists (a broken CUDA wheel
must not stop the list). Prints ``{"probe": "package_versions", "python": ..., "packages":
[{"name", "version"}, ...]}`` and exits 0; ``"ok": false`` with the reason when it cannot.

Python 3.8+ answers through ``importlib.metadata``; on 3.7 the ``*.dist-info`` / ``*.egg-info``
folders on ``sys.path`` are read directly (their ``METADATA``/``PKG-INFO`` headers ``Name`` and
``Version``, packaging.python.org "Core metadata specifications").
"""

import json
import sys
from pathlib import Path


def from_metadata() -> "list":
    """Every distribution ``importlib.metadata`` finds (Python 3.8+)."""
    from importlib import metadata  # noqa: PLC0415 - Python 3.8+ only

    found = []
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            found.append({"name": str(name), "version": str(dist.version)})
    return found


def from_folders() -> "list":
    """Every distribution whose ``*.dist-info`` or ``*.egg-info`` folder is on ``sys.path`` (Python 3.7)."""
    found = []
    for folder in map(Path, sys.path):
        if not folder.is_dir():
            continue
        for entry in folder.iterdir():
            if entry.name.endswith(".dist-info"):
                header = entry / "METADATA"
            elif entry.name.endswith(".egg-info"):
                header = entry / "PKG-INFO"
            else:
                continue
            fields = _headers(header)
            if fields.get("name"):
                found.append({"name": fields["name"], "version": fields.get("version", "")})
    return found


def installed() -> "list":
    """Every distribution on ``sys.path``, ``[{"name", "version"}]`` (a name may come twice)."""
    return from_metadata() if sys.version_info >= (3, 8) else from_folders()


def _headers(path: Path) -> "dict":
    fields = {}  # type: dict
    try:
        with path.open(encoding="utf-8", errors="replace") as stream:
            for line in stream:
                if not line.strip():
                    break  # the headers end at the first empty line
                key, _, value = line.partition(":")
                if key.lower() in ("name", "version") and key.lower() not in fields:
                    fields[key.lower()] = value.strip()
    except OSError:
        pass
    return fields


def main() -> int:
    """Print the list; 0 when it could be made."""
    report = {"probe": "package_versions", "python": "%d.%d.%d" % sys.version_info[:3]}  # type: dict
    try:
        packages = installed()
    except Exception as error:  # noqa: BLE001 - any failure is reported, never a bare crash
        report.update(ok=False, error="%s: %s" % (type(error).__name__, error))
        sys.stdout.write(json.dumps(report) + "\n")
        return 1
    unique = {}  # type: dict
    for item in packages:
        unique.setdefault(item["name"].lower(), item)
    report["packages"] = sorted(unique.values(), key=lambda item: item["name"].lower())
    report["ok"] = True
    sys.stdout.write(json.dumps(report) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
