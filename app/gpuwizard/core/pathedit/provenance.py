r"""Whether undoing a recorded PATH change takes away only what that change itself put there.

Undo writes a change's old value back over its new one (docs/architecture.md, "PATH journal").
Every segment the new value holds beyond the old one disappears with it, so the undo is only
the wizard's to make when each such segment is a folder the change was asked to add: an
``add`` inserts exactly the folders it names (:func:`~gpuwizard.core.pathedit.algebra.add_entries`
writes each as :func:`~gpuwizard.core.pathedit.algebra.check_folder_text` gives it, never
rewriting another segment), a ``remove`` and a ``repair`` add nothing. A journal entry that
says otherwise was edited by hand or planted, and its undo would take away what another
program put there; the wizard keeps it instead (issue 33).

>>> unowned_removals("add", ["C:\\CUDA\\v12.4\\bin"], "C:\\a", "C:\\a;C:\\CUDA\\v12.4\\bin")
[]
>>> unowned_removals("add", ["C:\\mine"], "C:\\a", "C:\\a;C:\\mine;C:\\theirs")
['C:\\theirs']
>>> unowned_removals("remove", ["C:\\gone"], "C:\\a;C:\\gone", "C:\\a")
[]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from gpuwizard.core.pathedit.algebra import entry_key
from gpuwizard.core.pathedit.pathlist import split_segments

#: The actions whose new value may hold segments the old one did not: only an add puts any in.
_ADDING_ACTIONS = frozenset({"add"})


def removed_by_undo(old_value: str | None, new_value: str | None) -> list[str]:
    r"""The segments of ``new_value`` that writing ``old_value`` back would take away (each once).

    Counted as a multiset of exact segments, so a second copy of a folder counts too; None (no
    value) has no segments.

    >>> removed_by_undo("C:\\a;C:\\b", "C:\\a;C:\\b;C:\\b;C:\\c")
    ['C:\\b', 'C:\\c']
    """
    old = Counter(split_segments(old_value) if old_value else [])
    new = split_segments(new_value) if new_value else []
    left: list[str] = []
    for segment in new:
        if old[segment] > 0:
            old[segment] -= 1
        else:
            left.append(segment)
    return left


def unowned_removals(
    action: str, folders: Sequence[str], old_value: str | None, new_value: str | None
) -> list[str]:
    """The segments an undo of this change would take away that the change did not put there.

    Empty: the undo takes away only folders the change named (compared as Windows compares
    folders, without ``%VARS%`` expanded: the wizard writes a folder as it was named).
    """
    named = {entry_key(folder) for folder in folders} if action in _ADDING_ACTIONS else set()
    return [s for s in removed_by_undo(old_value, new_value) if not entry_key(s) or entry_key(s) not in named]
