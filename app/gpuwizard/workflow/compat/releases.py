"""What the package indexes have that the compatibility data does not know yet.

PyPI's JSON API names every release of torch and tensorflow; the PyTorch wheel index names the
variants (``cu126``, ``cpu``) of each. Asked by ``recommend --refresh`` (and when a wished version
is newer than the data); the answer is kept in the cache (``cache/compat/index.json``) so that
later recommendations plan newer patches and name newer minors without asking again. Every
failure is a note.
"""

from __future__ import annotations

import os
import re
from datetime import datetime, timezone
from typing import Final

from gpuwizard.adapters.http import HttpClient, HttpError
from gpuwizard.core.compat.index_view import IndexReleases, beyond_tables, final_versions, with_index
from gpuwizard.core.compat.tables import CompatData, version_key
from gpuwizard.core.json_input import parse_json
from gpuwizard.workflow.state.index_cache import load_index, store_index

DEFAULT_PYPI: Final = "https://pypi.org/pypi"
DEFAULT_TORCH_INDEX: Final = "https://download.pytorch.org/whl"
_TORCH_WHEEL: Final = re.compile(r"torch-(\d+\.\d+\.\d+)\+(cu\d+|cpu)-")
_PACKAGES: Final = (("pytorch", "torch"), ("tensorflow", "tensorflow"))
#: A wished version newer than the data is checked with a short wait: recommend must stay quick.
QUICK_TIMEOUT_S: Final = 5.0
#: The most one PyPI JSON answer may bring. Measured on 2026-11-25: https://pypi.org/pypi/torch/json
#: 841,683 bytes, https://pypi.org/pypi/tensorflow/json 1,575,636 bytes (every release, every file);
#: 16 MiB leaves the larger about 10 times its size to grow. The PyTorch wheel index page
#: (``_torch_index_variants``) keeps the client's default (``DEFAULT_MAX_BYTES``, 32 MiB): it
#: could not be measured from where this limit was set.
PYPI_MAX_BYTES: Final = 16 << 20


def pypi_url() -> str:
    """The PyPI JSON API asked (``GPUWIZARD_PYPI_URL`` for a mirror or a test server).

    Like every URL, it is fetched only when it is https (``adapters/http.py``): an http mirror
    gets a one-line note, "Could not ask PyPI about ...", and nothing is fetched.
    """
    return os.environ.get("GPUWIZARD_PYPI_URL", DEFAULT_PYPI).rstrip("/")


def fetch_index(client: HttpClient, timeout: float | None = None) -> tuple[IndexReleases, list[str]]:
    """Ask PyPI for every final release of torch and tensorflow; keep the answer in the cache.

    Returns the answer (frameworks that could not be asked are left out) and a note per failure.
    """
    pypi = pypi_url()
    versions: dict[str, tuple[str, ...]] = {}
    notes: list[str] = []
    for framework, package in _PACKAGES:
        try:
            answer = client.get(f"{pypi}/{package}/json", timeout=timeout, max_bytes=PYPI_MAX_BYTES)
            info = parse_json(answer.decode("utf-8", errors="replace"), source=f"{pypi}/{package}/json")
            published = [
                version
                for version, files in dict(info["releases"]).items()
                if files and not all(f.get("yanked") for f in files)
            ]
        except (HttpError, ValueError, KeyError, TypeError, AttributeError) as error:
            notes.append(f"Could not ask PyPI about {package} ({error}).")
            continue
        versions[framework] = final_versions(published)
    index = IndexReleases(
        versions=versions,
        checked_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        source=pypi,
    )
    if versions:
        store_index(index)
    return index, notes


def known_index() -> IndexReleases | None:
    """What PyPI said when last asked (from the cache), or None."""
    return load_index()


def index_for_wish(
    framework: str, version: str | None, compat: CompatData, client: HttpClient | None = None
) -> IndexReleases | None:
    """What PyPI publishes for a wish: the cached answer, asked again (briefly) when the wish is beyond it.

    A wished version newer than the data either exists (the newest verified plan is offered with
    a warning) or does not (exit 2): only the index can tell. Asked without an answer (offline)
    is not "not asked": the recommender then plans the newest verified release with a warning.
    """
    index = known_index()
    if not beyond_tables(framework, version, compat) or (
        index is not None and version is not None and index.has(framework, version)
    ):
        return index
    if client is None:
        from gpuwizard.adapters.http import RequestsClient  # noqa: PLC0415 - requests only here

        client = RequestsClient(retries=0, timeout=QUICK_TIMEOUT_S)
    asked, _ = fetch_index(client)
    return asked if asked.knows(framework) or index is None else index


def newer_releases(client: HttpClient, compat: CompatData) -> list[str]:
    """Notes on releases the package indexes have and the data does not know yet."""
    index, notes = fetch_index(client)
    _, news = with_index(compat, index)
    for framework, package in _PACKAGES:
        if framework not in index.versions:
            continue
        rows = compat.pytorch if framework == "pytorch" else compat.tensorflow
        known = rows[0].latest
        newer = [version for f, version in news.unverified if f == framework]
        if not newer:
            latest = index.versions[framework][0] if index.versions[framework] else known
            patches = [p for f, _, _, p in news.patches if f == framework]
            extra = f" (newer patches planned: {', '.join(patches)})" if patches else ""
            notes.append(f"PyPI's newest {package} is {latest}: the data knows its minor{extra}.")
            continue
        note = (
            f"PyPI has {package} {newer[0]}, newer than the {known} the data knows: its build matrix is "
            f"not verified yet, so it is not recommended."
        )
        if framework == "pytorch":
            variants = _torch_index_variants(client, newer[0])
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
    return sorted(found, key=lambda v: (v != "cpu", version_key(v[2:]) if v != "cpu" else 0))
