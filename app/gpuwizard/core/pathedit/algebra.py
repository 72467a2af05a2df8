r"""Windows PATH edits as pure functions: parse without loss, add, remove, move, diff, limits.

A PATH value is kept as its *segments*, the text between unquoted ``;``, exactly as written:
``";".join(segments)`` is the value again, byte for byte. Edits insert or drop whole segments
and never rewrite one, so quotes, ``%VARIABLES%``, empty segments, odd spacing and trailing
backslashes of entries the user did not ask about stay as they were (writing PATH back
expanded "froze references like %SystemRoot%": laurentiu021/SystemManager, CHANGELOG 1.33.3).
Entries are compared by :func:`gpuwizard.core.pathedit.pathlist.comparison_key` only, which is
never written.

CUDA awareness: the CUDA installer puts ``<toolkit>\bin`` and ``<toolkit>\libnvvp`` on PATH
(NVIDIA CUDA Installation Guide for Microsoft Windows, "Environment Setup"), and TensorFlow
2.10 and older load ``cudart64_110.dll`` and cuDNN's DLLs from PATH (tensorflow.org/install/pip,
Windows native, "GPU setup"), so with two toolkits on PATH the first wins
(microsoft/onnxruntime#6433).
Entries the plan adds for one CUDA version therefore go before every entry of another version.

>>> value = "%USERPROFILE%\\bin;C:\\CUDA\\v12.1\\bin;C:\\tools"
>>> edit = add_entries(value, ["C:\\CUDA\\v11.2\\bin"])
>>> edit.value
'%USERPROFILE%\\bin;C:\\CUDA\\v11.2\\bin;C:\\CUDA\\v12.1\\bin;C:\\tools'
>>> add_entries(edit.value, ["c:/cuda/v11.2/bin/"]).changed
False
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from gpuwizard.core.pathedit.pathlist import comparison_key, entry_of, split_segments

#: The longest value an environment variable can hold: 32,767 characters including the
#: terminating null (Microsoft Learn, SetEnvironmentVariableW: "The maximum size of a
#: user-defined environment variable is 32,767 characters"). Windows joins the system and the
#: user PATH into one process variable, so a longer registry value cannot reach any program.
ENV_VALUE_MAX_CHARS: Final = 32_766

#: What to do with another CUDA version's entries when one version's entries are added:
#: ``keep`` them where they are (ours go first), move them to the ``end``, or ``remove`` them.
OtherCuda = Literal["keep", "end", "remove"]
OTHER_CUDA_CHOICES: Final = ("keep", "end", "remove")

# A toolkit folder: ...\CUDA\v11.2 (the installer's default, "NVIDIA GPU Computing Toolkit\CUDA"),
# or /usr/local/cuda-11.2 style names; and the installer's per-version variable CUDA_PATH_V11_2.
_CUDA_FOLDER: Final = re.compile(r"(?:^|\\)cuda\\v(\d+)\.(\d+)(?:\\|$)|(?:^|\\)cuda-(\d+)\.(\d+)(?:\\|$)")
_CUDA_VERSION_VAR: Final = re.compile(r"%cuda_path_v(\d+)_(\d+)%")
# cuDNN 9's installer: C:\Program Files\NVIDIA\CUDNN\v9.7\bin\12.8 (the CUDA it was built for).
_CUDNN_FOR_CUDA: Final = re.compile(r"\\cudnn\\v[\d.]+\\bin\\(\d+)\.(\d+)(?:\\|$)")
_WINDOWS_ABSOLUTE: Final = re.compile(r'^(?:[A-Za-z]:\\|\\\\[^\\]+\\[^\\]+|%[^%;"]+%)')


class PathEditError(ValueError):
    """An edit that cannot be made (bad folder text, a value too long); nothing changes."""


class PathTooLong(PathEditError):
    """The edited value would not fit in an environment variable; it is refused, never cut."""

    def __init__(self, length: int) -> None:
        super().__init__(
            f"the new PATH would be {length} characters, more than the {ENV_VALUE_MAX_CHARS} "
            "an environment variable can hold; remove entries first (nothing was changed)"
        )
        self.length = length


class JoinedPathTooLong(PathTooLong):
    """The system and the user PATH together would not fit in the one variable Windows makes of them."""

    def __init__(self, length: int) -> None:
        PathEditError.__init__(
            self,
            f"the system and the user PATH together would be {length} characters, more than the "
            f"{ENV_VALUE_MAX_CHARS} of the one PATH variable Windows joins them into; remove entries "
            "first (nothing was changed)",
        )
        self.length = length


class UnbalancedQuote(PathEditError):
    """A ``"`` without its closing one: every later entry would read as part of one folder."""

    def __init__(self, index: int, segment: str) -> None:
        shown = segment if len(segment) <= 60 else segment[:57] + "..."
        super().__init__(
            f"PATH has a '\"' that is never closed (entry {index}: {shown}), so every entry after it "
            "reads as part of one folder; fix that entry by hand first (nothing was changed)"
        )
        self.index = index


def check_quotes(value: str) -> None:
    r"""Raise :class:`UnbalancedQuote` when a ``"`` in ``value`` is never closed.

    :func:`split_segments` keeps a ``;`` inside quotes in its entry, so after an unclosed quote
    the rest of the value is one segment: an entry added there would land inside the quote.

    >>> check_quotes('C:\\a;"C:\\b;c";C:\\d')
    >>> check_quotes('C:\\a;"C:\\b;C:\\c')
    Traceback (most recent call last):
    ...
    gpuwizard.core.pathedit.algebra.UnbalancedQuote: PATH has a '"' that is never closed (entry 1: "C:\b;C:\c), so every entry after it reads as part of one folder; fix that entry by hand first (nothing was changed)
    """
    if value.count('"') % 2 == 0:
        return
    segments = split_segments(value)
    index = len(segments) - 1  # the unclosed quote swallows the rest: it opens the last segment
    raise UnbalancedQuote(index, segments[index])


def joined_length(system_value: str, user_value: str) -> int:
    r"""The length of the PATH a program gets: the system value, ``;``, then the user value.

    Windows builds a new process's PATH from the registry as the system value followed by the
    user value (the user part was long limited to what the system part left over: Microsoft
    KB 180410, "The maximum length of the combined system and user-defined path"), and the
    result is one variable, held to :data:`ENV_VALUE_MAX_CHARS`. ``%VARS%`` are counted as
    written; expanded, the value may be a little longer or shorter.

    >>> joined_length("C:\\a", "C:\\bb"), joined_length("", "C:\\bb")
    (10, 5)
    """
    return len(";".join(value for value in (system_value, user_value) if value))


def check_joined_length(system_value: str, user_value: str, *, before: int) -> None:
    """Raise :class:`JoinedPathTooLong` when the joined PATH grows past the limit.

    ``before`` is the joined length as it is now: an edit that does not make it longer (any
    removal) is always allowed, so a PATH over the limit can be shrunk.
    """
    length = joined_length(system_value, user_value)
    if length > ENV_VALUE_MAX_CHARS and length > before:
        raise JoinedPathTooLong(length)


def entry_key(segment: str, env: Mapping[str, str] | None = None) -> str:
    """The comparison key of a segment (empty for an empty segment)."""
    entry = entry_of(segment)
    return comparison_key(entry, windows=True, env=env) if entry else ""


def cuda_version_of(entry: str, env: Mapping[str, str] | None = None) -> str | None:
    r"""The CUDA version a PATH entry belongs to, or None when it is not a CUDA folder.

    >>> cuda_version_of("C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin")
    '11.2'
    >>> cuda_version_of("%CUDA_PATH_V12_4%\\libnvvp"), cuda_version_of("C:\\Windows")
    ('12.4', None)
    >>> cuda_version_of("C:\\Program Files\\NVIDIA\\CUDNN\\v9.7\\bin\\12.8")
    '12.8'
    """
    key = entry_key(entry, env)
    for pattern in (_CUDA_FOLDER, _CUDA_VERSION_VAR, _CUDNN_FOR_CUDA):
        match = pattern.search(key)
        if match:
            major, minor = (group for group in match.groups() if group is not None)
            return f"{int(major)}.{int(minor)}"
    return None


def check_folder_text(folder: str) -> str:
    r"""The folder as it will be written, or :class:`PathEditError` saying what is wrong with it.

    A PATH entry must be an absolute Windows folder (``C:\...``, ``\\server\share\...``, or
    starting with a ``%VARIABLE%``), without ``;``, quotes or control characters: a ``;`` would
    split it into two entries for every program that reads PATH.

    >>> check_folder_text("  C:\\CUDA\\v11.2\\bin ")
    'C:\\CUDA\\v11.2\\bin'
    """
    text = folder.strip()
    if not text:
        raise PathEditError("an empty folder cannot be a PATH entry")
    if ";" in text or '"' in text:
        raise PathEditError(f"{text!r}: a PATH entry cannot contain ';' or '\"'")
    if any(ord(char) < 32 for char in text):
        raise PathEditError(f"{text!r}: a PATH entry cannot contain control characters")
    if not _WINDOWS_ABSOLUTE.match(text.replace("/", "\\")):
        raise PathEditError(
            f"{text!r}: not an absolute Windows folder (C:\\..., \\\\server\\share\\..., or %VAR%\\...)"
        )
    return text


@dataclass(frozen=True)
class PathEdit:
    """The result of an edit: the new value and what happened to each requested folder."""

    old_value: str
    value: str
    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = field(default=())

    @property
    def changed(self) -> bool:
        """Whether the value differs from the old one."""
        return self.value != self.old_value


def _join_checked(old_value: str, segments: Sequence[str]) -> str:
    value = ";".join(segments)
    # Only growing past the limit is refused: a shorter value always fits better (issue 19).
    if len(value) > ENV_VALUE_MAX_CHARS and len(value) > len(old_value):
        raise PathTooLong(len(value))
    return value


def _trailing_start(segments: Sequence[str]) -> int:
    """Where the run of empty segments at the end begins (new entries go before it)."""
    end = len(segments)
    while end > 0 and not segments[end - 1].strip():
        end -= 1
    return end


def add_entries(
    value: str,
    folders: Iterable[str],
    *,
    other_cuda: OtherCuda = "keep",
    env: Mapping[str, str] | None = None,
) -> PathEdit:
    r"""Add ``folders`` to a PATH value, each once, keeping every other segment as it is.

    When the folders include a CUDA version's folders, all of them (the toolkit's ``bin`` and
    ``libnvvp``, and cuDNN's ``bin`` beside them) must come before every entry of another CUDA
    version: new ones are inserted in front of the first such entry, and ones already on PATH
    after it move there. Otherwise folders already on PATH stay where they are and new ones go
    at the end. ``other_cuda`` says what happens to the other versions' entries.

    Raises:
        PathEditError: A folder is not a usable PATH entry.
        UnbalancedQuote: The value has a ``"`` that is never closed.
        PathTooLong: The new value would not fit; nothing is cut.
    """
    wanted: list[str] = []
    for folder in folders:
        text = check_folder_text(folder)
        if entry_key(text, env) not in {entry_key(w, env) for w in wanted}:
            wanted.append(text)
    versions = {v for v in (cuda_version_of(w, env) for w in wanted) if v is not None}
    check_quotes(value)
    segments = split_segments(value) if value else []

    def is_other_cuda(segment: str) -> bool:
        version = cuda_version_of(segment, env)
        return bool(versions) and version is not None and version not in versions

    wanted_keys = {entry_key(w, env): w for w in wanted}
    first_other = next((i for i, s in enumerate(segments) if is_other_cuda(s)), None)
    kept: list[str] = []
    moving: list[str] = []
    present: set[str] = set()
    for index, segment in enumerate(segments):
        key = entry_key(segment, env)
        if key in wanted_keys:
            if key in present:
                kept.append(segment)  # a duplicate the user already had: not ours to drop
                continue
            present.add(key)
            if first_other is not None and index > first_other:
                moving.append(segment)
                continue
        kept.append(segment)
    new = [w for w in wanted if entry_key(w, env) not in present]
    inserted = moving + new
    others: list[str] = []
    if other_cuda != "keep":
        others = [s for s in kept if is_other_cuda(s)]
        kept = [s for s in kept if not is_other_cuda(s)]
    anchor = next((i for i, s in enumerate(kept) if is_other_cuda(s)), None)
    if anchor is None:
        anchor = _trailing_start(kept)
    result = kept[:anchor] + inserted + kept[anchor:]
    if other_cuda == "end":
        tail = _trailing_start(result)
        result = result[:tail] + others + result[tail:]
    moved_keys = {entry_key(s, env) for s in moving}
    return PathEdit(
        old_value=value,
        value=_join_checked(value, result),
        added=tuple(new),
        moved=tuple(entry_of(s) for s in moving)
        + (tuple(entry_of(s) for s in others) if other_cuda == "end" else ()),
        removed=tuple(entry_of(s) for s in others) if other_cuda == "remove" else (),
        unchanged=tuple(
            w for w in wanted if entry_key(w, env) in present and entry_key(w, env) not in moved_keys
        ),
    )


def remove_entries(value: str, folders: Iterable[str], *, env: Mapping[str, str] | None = None) -> PathEdit:
    """Remove every segment that names one of ``folders`` (all spellings, all duplicates).

    Allowed however long the value is: the result is never longer.

    Raises:
        PathEditError: A folder is not a usable PATH entry.
        UnbalancedQuote: The value has a ``"`` that is never closed.
    """
    wanted = [check_folder_text(folder) for folder in folders]
    keys = {entry_key(w, env) for w in wanted}
    check_quotes(value)
    segments = split_segments(value) if value else []
    kept = [s for s in segments if entry_key(s, env) not in keys or not entry_key(s, env)]
    gone = [s for s in segments if s not in kept]
    found = {entry_key(s, env) for s in gone}
    # Removing the only entry leaves "" rather than a lone separator.
    return PathEdit(
        old_value=value,
        value=_join_checked(value, kept),
        removed=tuple(entry_of(s) for s in gone),
        unchanged=tuple(w for w in wanted if entry_key(w, env) not in found),
    )


def move_entry(value: str, folder: str, position: int, *, env: Mapping[str, str] | None = None) -> PathEdit:
    """Move the first segment naming ``folder`` to entry ``position`` (0 is first; -1 the end).

    Later duplicates of the folder are dropped, since only the first one ever counts.

    Raises:
        PathEditError: The folder is not on PATH, or not a usable PATH entry, or the value has
            a ``"`` that is never closed.
    """
    key = entry_key(check_folder_text(folder), env)
    check_quotes(value)
    segments = split_segments(value) if value else []
    matching = [i for i, s in enumerate(segments) if entry_key(s, env) == key]
    if not matching:
        raise PathEditError(f"{folder!r} is not on PATH")
    segment = segments[matching[0]]
    rest = [s for i, s in enumerate(segments) if i not in matching]
    end = _trailing_start(rest)
    target = end if position < 0 or position > end else position
    result = [*rest[:target], segment, *rest[target:]]
    return PathEdit(
        old_value=value,
        value=_join_checked(value, result),
        moved=(entry_of(segment),) if result != segments else (),
        removed=tuple(entry_of(segments[i]) for i in matching[1:]),
    )


@dataclass(frozen=True)
class DiffLine:
    """One line of a PATH diff: ``+`` added, ``-`` removed, `` `` kept, with the segment's text."""

    op: Literal["+", "-", " "]
    entry: str


def diff_entries(old_value: str, new_value: str) -> list[DiffLine]:
    r"""The entries of two PATH values, lined up as a diff (segments compared exactly).

    >>> [f"{d.op}{d.entry}" for d in diff_entries("C:\\a;C:\\b", "C:\\a;C:\\n;C:\\b")]
    [' C:\\a', '+C:\\n', ' C:\\b']
    """
    old = split_segments(old_value) if old_value else []
    new = split_segments(new_value) if new_value else []
    lines: list[DiffLine] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag == "equal":
            lines.extend(DiffLine(" ", s) for s in old[i1:i2])
            continue
        lines.extend(DiffLine("-", s) for s in old[i1:i2])
        lines.extend(DiffLine("+", s) for s in new[j1:j2])
    return lines


_VARIABLE_REFERENCE: Final = re.compile(r"%[^%;\s]+%")


def has_variable_references(value: str) -> bool:
    """Whether a value holds ``%NAME%`` references (which only ``REG_EXPAND_SZ`` expands)."""
    return bool(_VARIABLE_REFERENCE.search(value))


@dataclass(frozen=True)
class EntryProblems:
    """What is wrong with one PATH entry (an empty tuple of problems: nothing)."""

    index: int
    segment: str
    problems: tuple[str, ...]
    cuda_version: str | None = None


#: Problem names of :func:`entry_problems`, stable for the JSON output.
DUPLICATE: Final = "duplicate"
MISSING: Final = "missing"
OTHER_CUDA_FIRST: Final = "other_cuda_first"
EMPTY: Final = "empty"


def entry_problems(
    value: str,
    *,
    earlier_keys: Iterable[str] = (),
    missing: Iterable[str] = (),
    env: Mapping[str, str] | None = None,
) -> list[EntryProblems]:
    """Each segment of ``value`` with its problems.

    ``earlier_keys`` are the keys of entries that come before this value in the process PATH
    (the system PATH, for the user's), so a user entry that repeats a system one counts as a
    duplicate. ``missing`` are keys of folders known not to exist (the caller looked).
    ``other_cuda_first`` marks a CUDA entry after an entry of a different CUDA version.
    """
    seen = set(earlier_keys)
    missing_keys = set(missing)
    first_cuda: str | None = next(
        (v for v in (cuda_version_of(k, env) for k in earlier_keys) if v is not None), None
    )
    result: list[EntryProblems] = []
    for index, segment in enumerate(split_segments(value) if value else []):
        key = entry_key(segment, env)
        problems: list[str] = []
        version = cuda_version_of(segment, env) if key else None
        if not key:
            problems.append(EMPTY)
        else:
            if key in seen:
                problems.append(DUPLICATE)
            if key in missing_keys:
                problems.append(MISSING)
            if version is not None:
                if first_cuda is None:
                    first_cuda = version
                elif version != first_cuda:
                    problems.append(OTHER_CUDA_FIRST)
            seen.add(key)
        result.append(EntryProblems(index, segment, tuple(problems), version))
    return result
