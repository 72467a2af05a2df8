"""A local conda channel served by the real HTTP server on 127.0.0.1, whole or with archives held back.

Tests of cancel need a download that is still running when the signal lands: :func:`held_channel`
serves a channel made by ``builders/conda_channels.py`` and answers the archives of the packages
it names only once the test releases them (or the context ends), so the test waits for the
engine's ``download`` event of such a package (or the ``link`` event of another) and stops it
there. Served paths are ``/ch/SUBDIR/FILE`` for every file of every subdir (``noarch/``,
``linux-64/``); a subdir the channel lacks answers 404, which rattler reads as empty.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from harness.http_server import Site, serve

#: How long a held archive waits at most when nobody releases it: longer than any test.
HOLD_BOUND_S = 120.0


def archives(root: Path) -> dict[str, str]:
    """Each package name in the channel at ``root`` and its archive's path, ``SUBDIR/FILE``."""
    found: dict[str, str] = {}
    for repodata in sorted(root.glob("*/repodata.json")):
        records = json.loads(repodata.read_text(encoding="utf-8"))
        for key in ("packages", "packages.conda"):
            for file_name, record in records.get(key, {}).items():
                found[record["name"]] = f"{repodata.parent.name}/{file_name}"
    return found


def serve_channel(
    site: Site,
    root: Path,
    prefix: str = "",
    slow: Mapping[str, float] | None = None,
    hold: threading.Event | None = None,
) -> str:
    """Put the channel's files on ``site`` under ``prefix``; the channel's URL.

    Args:
        site: The server (:func:`harness.http_server.serve`).
        root: The channel's folder.
        prefix: Put before the paths: ``http://host.invalid`` makes them the absolute URLs a
            proxy is asked for; empty, the site's own URL.
        slow: Archive file names answered that many seconds late (held until ``hold`` is set,
            at most that long, when ``hold`` is given).
        hold: The event that releases the ``slow`` archives.
    """
    for path in sorted(root.glob("*/*")):
        if path.is_file() and path.parent.name != ".tmp":
            delay = (slow or {}).get(path.name, 0.0)
            answer_hold = hold if path.name in (slow or {}) else None
            site.put(
                f"{prefix}/ch/{path.parent.name}/{path.name}",
                path.read_bytes(),
                delay_s=delay,
                hold=answer_hold,
            )
    return f"{prefix or site.url}/ch"


@dataclass
class HeldChannel:
    """A served channel: its ``url``, the ``site`` (requests seen) and ``release`` for the held archives."""

    url: str
    site: Site
    release: threading.Event
    #: The held archives, ``SUBDIR/FILE``.
    held: tuple[str, ...]


@contextmanager
def held_channel(root: Path, hold: Iterable[str], bound_s: float = HOLD_BOUND_S) -> Iterator[HeldChannel]:
    """Serve the channel at ``root`` on 127.0.0.1 with the archives of the packages ``hold`` held back.

    A held archive is answered when ``release`` is set, or after ``bound_s`` seconds, and
    released when the context ends, so no server thread outlives the test by long. Other
    files are answered at once. Pass the URL to the engine without ``--offline`` (offline,
    only ``file://`` channels are accepted), with ``NO_PROXY=127.0.0.1`` so a developer's proxy
    does not take the requests.

    Raises:
        KeyError: When a name in ``hold`` is no package of the channel.
    """
    by_name = archives(root)
    held = tuple(by_name[name] for name in hold)
    release = threading.Event()
    with serve() as site:
        slow = {Path(path).name: bound_s for path in held}
        try:
            yield HeldChannel(serve_channel(site, root, slow=slow, hold=release), site, release, held)
        finally:
            release.set()
