"""Run with the machine's Python: what the kit needs to know of it, as one JSON object on stdout.

Its version and prefixes, the folders its packages come from (so the kit's venv can see them
even where this Python is itself a venv, whose packages ``--system-site-packages`` does not
reach), and PyTorch's version and place, read from its metadata without importing it (an
import of torch takes seconds and may start CUDA).
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import platform
import site
import sys


def main() -> int:
    """Print the facts; exit 0 even without torch (the kit judges)."""
    folders = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
    if site.ENABLE_USER_SITE and site.getusersitepackages() not in folders:
        folders.append(site.getusersitepackages())
    spec = importlib.util.find_spec("torch")
    try:
        torch_version: str | None = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        torch_version = None
    facts = {
        "executable": sys.executable,
        "version": platform.python_version(),
        "implementation": platform.python_implementation(),
        "prefix": sys.prefix,
        "base_prefix": sys.base_prefix,
        "site_dirs": folders,
        "torch": torch_version,
        "torch_location": spec.origin if spec is not None else None,
        "platform": platform.platform(),
        "machine": platform.machine(),
    }
    print(json.dumps(facts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
