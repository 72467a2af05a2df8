"""What the wizard can prove it made: a marker in each environment and kernel, matching its own id.

The wizard deletes, moves or replaces a folder only when the folder holds the wizard's marker
(``gpuwizard-env.json`` in an environment, ``gpuwizard-kernel.json`` in a Jupyter kernel spec)
and the marker's id is the one the wizard's own record names: the entry in
``environments.json`` for ``env remove`` and ``env create --replace``, the creation's pending
record for recovery. A ``pyvenv.cfg`` or ``conda-meta`` proves only that a folder is *an*
environment, not that the wizard made it: a user's own venv, a conda base installation with its
``envs/`` and a restored backup all have them. Anything unproven is kept, and the person is
told what to do by hand (docs/architecture.md, "Crashes and races").

The marker is written before anything else is put in a venv (uv with ``--allow-existing``, the
standard library's venv take a folder that holds it), and right after the tool made a conda
environment or ipykernel wrote a kernel spec. When a folder is removed its marker goes last, so
a removal killed half-way still proves, at the next run, whose remains they are.
"""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from gpuwizard.workflow.envs.trees import remove_tree
from gpuwizard.workflow.state.files import write_json_atomically

MARKER_SCHEMA: Final = "gpuwizard.owner-marker/1"
ENV_MARKER: Final = "gpuwizard-env.json"
KERNEL_MARKER: Final = "gpuwizard-kernel.json"
# A marker is a few hundred bytes; anything larger is not one (read no more than this).
_MARKER_LIMIT: Final = 64 * 1024

Kind = Literal["environment", "kernel"]
_FILE: Final[dict[str, str]] = {"environment": ENV_MARKER, "kernel": KERNEL_MARKER}


@dataclass(frozen=True)
class Marker:
    """What a marker says.

    Attributes:
        id: The id of the environment that owns the folder.
        name: The environment's name.
        kind: An environment's folder, or a kernel spec's.
        place: Where the folder was made to live (it may be moved aside or to the trash since):
            a marker copied into another folder names the wrong place.
        given: The folder was an empty one the person gave (``--prefix``): it stays, emptied.
    """

    id: str
    name: str
    kind: Kind
    place: str
    given: bool = False


def new_id() -> str:
    """A fresh id for an environment (128 random bits: no two wizards ever pick the same)."""
    return secrets.token_hex(16)


def marker_file(folder: Path, kind: Kind) -> Path:
    """Where ``folder``'s marker of ``kind`` lives."""
    return folder / _FILE[kind]


def _marker_json(kind: Kind, owner_id: str, name: str, place: Path, given: bool) -> dict[str, object]:
    return {
        "schema": MARKER_SCHEMA,
        "kind": kind,
        "id": owner_id,
        "name": name,
        "place": str(place),
        "given": given,
    }


def write_marker(
    folder: Path, kind: Kind, owner_id: str, name: str, *, place: Path | None = None, given: bool = False
) -> None:
    """Mark ``folder`` as the wizard's (atomically: a half-written marker never exists).

    ``place`` is where the folder lives (``folder`` unless it is made elsewhere and moved).

    Raises:
        OSError: The folder cannot be written.
    """
    write_json_atomically(
        marker_file(folder, kind), _marker_json(kind, owner_id, name, place or folder, given)
    )


def make_marked_folder(
    folder: Path, kind: Kind, owner_id: str, name: str, *, place: Path | None = None
) -> None:
    """Make ``folder`` (a name of this run's that does not exist yet) holding its whole marker.

    The marker is written beside it first (:func:`loose_marker`) and moved in, so at no
    instant does the folder hold a part of one: a kill leaves it absent, empty, or marked.

    Raises:
        OSError: The folder or its marker cannot be written.
    """
    loose = loose_marker(folder)
    # Not through the atomic writer: its temporary file would be litter in a person's folder
    # after a kill. A half-written loose marker is never moved in (the folder does not exist
    # yet), and recovery deletes the loose file by its name, which is this run's.
    with loose.open("xb") as file:
        file.write(json.dumps(_marker_json(kind, owner_id, name, place or folder, False)).encode())
        file.flush()
        os.fsync(file.fileno())
    folder.mkdir()
    loose.replace(marker_file(folder, kind))


def loose_marker(folder: Path) -> Path:
    """Where :func:`make_marked_folder` writes the marker before the folder exists."""
    return folder.with_name(f"{folder.name}.marker")


def read_marker(folder: Path, kind: Kind) -> Marker | None:
    """The marker in ``folder`` (a real folder, not a link to one), or None when there is none to trust."""
    if not folder.is_dir() or folder.is_symlink():
        return None
    path = marker_file(folder, kind)
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with path.open("rb") as file:
            data = json.loads(file.read(_MARKER_LIMIT + 1)[:_MARKER_LIMIT].decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("schema") != MARKER_SCHEMA or data.get("kind") != kind:
        return None
    owner, name, place, given = data.get("id"), data.get("name"), data.get("place"), data.get("given", False)
    if (
        not isinstance(owner, str)
        or len(owner) < 16
        or not isinstance(name, str)
        or not isinstance(place, str)
    ):
        return None
    return Marker(owner, name, kind, place, given is True)


def owned_by(folder: Path, kind: Kind, owner_id: str | None, *, place: Path | None = None) -> bool:
    """Whether ``folder`` holds the wizard's marker with exactly ``owner_id``, made for ``place``.

    ``place`` is where the folder was made (``folder`` itself unless it was moved aside or to
    the trash under a name of the run's). Never for no id.
    """
    if not owner_id:
        return False
    marker = read_marker(folder, kind)
    return (
        marker is not None
        and secrets.compare_digest(marker.id, owner_id)
        and same_folder(marker.place, place or folder)
    )


def remove_owned(
    folder: Path, kind: Kind, owner_id: str | None, *, place: Path | None = None, keep_folder: bool = False
) -> list[str]:
    """Remove ``folder`` if it is ``owner_id``'s, marker last; returns what could not be removed.

    A folder that is not there is nothing to remove. One that is not provably ``owner_id``'s is
    kept and said (the caller tells the person what to do). With ``keep_folder`` only what is
    in it goes: the empty folder the person gave (which may be a mount point) stays theirs.
    """
    if not folder.exists() and not folder.is_symlink():
        return []
    if not owned_by(folder, kind, owner_id, place=place):
        return [f"{folder} is kept: it does not carry the wizard's marker for this environment"]
    marker = marker_file(folder, kind)
    problems: list[str] = []
    for child in sorted(folder.iterdir()):
        if child.name != marker.name:
            problems += remove_tree(child)
    if problems:
        return problems
    try:
        marker.unlink()
        if not keep_folder:
            folder.rmdir()
    except OSError as error:
        return [f"could not remove {folder}: {error}"]
    return []


def same_folder(first: Path | str, second: Path | str) -> bool:
    """Whether two paths name one folder, compared as the system would (case on Windows)."""
    return os.path.normcase(Path(first).absolute()) == os.path.normcase(Path(second).absolute())
