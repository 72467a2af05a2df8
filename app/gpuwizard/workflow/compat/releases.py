"""What the package indexes have that the compatibility data does not know yet.

PyPI's JSON API names every release of torch and tensorflow; the PyTorch wheel index names the
variants (``cu126``, ``cpu``) of each. Asked by ``recommend --refresh``; every failure is a note.
"""

from __future__ import annotations

import json
import os
import re
from typing import Final

from gpuwizard.adapters.http import HttpClient, HttpError
from gpuwizard.core.compat.tables import CompatData, version_key

DEFAULT_PYPI: Final = "https://pypi.org/pypi"
DEFAULT_TORCH_INDEX: Final = "https://download.pytorch.org/whl"
_TORCH_WHEEL: Final = re.compile(r"torch-(\d+\.\d+\.\d+)\+(cu\d+|cpu)-")
_PACKAGES: Final = (("pytorch", "torch"), ("tensorflow", "tensorflow"))


def newer_releases(client: HttpClient, compat: CompatData) -> list[str]:
    """Notes on releases the package indexes have and the data does not know yet."""
    notes = []
    pypi = os.environ.get("GPUWIZARD_PYPI_URL", DEFAULT_PYPI).rstrip("/")
    for framework, package in _PACKAGES:
        known = compat.pytorch[0].latest if framework == "pytorch" else compat.tensorflow[0].latest
        try:
            info = json.loads(client.get(f"{pypi}/{package}/json"))
            latest = str(info["info"]["version"])
        except (HttpError, ValueError, KeyError, TypeError) as error:
            notes.append(f"Could not ask PyPI about {package} ({error}).")
            continue
        if version_key(latest) <= version_key(known):
            notes.append(f"PyPI's newest {package} is {latest}: the data knows it.")
            continue
        note = (
            f"PyPI has {package} {latest}, newer than the {known} the data knows: its build matrix is not in "
            f"the tables yet, so it is not recommended."
        )
        if framework == "pytorch":
            variants = _torch_index_variants(client, latest)
            if variants:
                note += f" The PyTorch index offers it as {', '.join(variants)}."
        notes.append(note)
    return notes


def _torch_index_variants(client: HttpClient, version: str) -> list[str]:
    index = os.environ.get("GPUWIZARD_TORCH_INDEX_URL", DEFAULT_TORCH_INDEX).rstrip("/")
    try:
        page = client.get(f"{index}/torch/").decode("utf-8", errors="replace")
    except HttpError:
        return []
    found = {variant for wheel_version, variant in _TORCH_WHEEL.findall(page) if wheel_version == version}
    return sorted(found, key=lambda v: (v != "cpu", v))
