"""The host reading: a container's marker files count on Linux only (issue 37, point 8)."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from gpuwizard.adapters.host import in_container


def test_a_containers_marker_counts_on_linux_only():
    seen: list[PurePosixPath] = []

    def docker_marker(path: Path) -> bool:
        seen.append(PurePosixPath(path.as_posix()))
        return path.as_posix() == "/.dockerenv"

    assert in_container("linux", docker_marker)
    assert seen[0] == PurePosixPath("/.dockerenv")
    seen.clear()
    # On Windows "/.dockerenv" is C:\.dockerenv or D:\.dockerenv, whichever drive is current: a
    # folder of that name must not make one machine a container from one drive only.
    assert not in_container("win32", docker_marker)
    assert not in_container("darwin", docker_marker)
    assert seen == []


def test_podmans_marker_counts_too():
    assert in_container("linux", lambda path: path.as_posix() == "/run/.containerenv")
    assert not in_container("linux", lambda path: False)
