"""The wizard's own files when they are damaged: read safely, said in one line, moved aside.

Anything can damage a file under GPUWIZARD_HOME: a disk error, a sync tool, an editor, another
program. A damaged file (not UTF-8, not JSON, nested absurdly deep, too large, of the wrong
shape) is moved aside as ``NAME.bad``, so the evidence is kept and the next write starts a new
file, and one line says so; the command goes on as if the file were empty
(docs/architecture.md, "State under GPUWIZARD_HOME"). The PATH journal is the exception: undo
depends on it, so its reader refuses instead (``path_journal.py``).

The line is a warning on the ``gpuwizard`` logger; the command line prints it on stderr as
``gpuwizard: warning: ...`` (``cli/main.py``).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any, Final

from gpuwizard.adapters.input_files import STATE_FILE_LIMIT, InputFileError, read_input
from gpuwizard.core.json_input import JsonInputError, decode_utf8, parse_json

#: Where the lines go; ``cli/main.py`` shows the ``gpuwizard`` logger's warnings on stderr.
LOGGER: Final = logging.getLogger("gpuwizard.state")


class DamagedFile(ValueError):
    """A state file's content cannot be used; the message says why (one line, without the name)."""


def read_state_json(path: Path) -> Any:  # noqa: ANN401 - any JSON value
    """The JSON value in the state file ``path``.

    Raises:
        FileNotFoundError: There is no such file (nothing recorded yet).
        OSError: It exists but cannot be read (no permission): not damaged, so not moved.
        DamagedFile: It is not UTF-8 JSON, is too deep, too large, or has a key twice.
    """
    if not path.parent.is_dir():
        # The home (or a folder in it) is missing or not a folder: nothing can be recorded
        # there, and nothing is damaged; a write says so in one line (cli/main.py).
        raise FileNotFoundError(f"{path.parent} is not a folder")
    try:
        data = read_input(path, limit=STATE_FILE_LIMIT, what="a file")
    except InputFileError as error:
        if error.reason == "missing":
            raise FileNotFoundError(str(error)) from None
        if error.reason == "unreadable":
            raise OSError(_why(error, path)) from None
        raise DamagedFile(_why(error, path)) from None
    try:
        return parse_json(decode_utf8(data, source=path.name), source=path.name)
    except JsonInputError as error:
        raise DamagedFile(_why(error, path)) from None


def set_aside(path: Path, why: str, *, counts_as: str = "empty") -> Path:
    """Move the damaged ``path`` aside as ``NAME.bad`` (replacing an older one) and say so, in one line.

    Returns the new name. A file that cannot even be moved is left where it is (and said).
    """
    target = path.with_name(path.name + ".bad")
    try:
        path.replace(target)
    except OSError as error:
        LOGGER.warning(
            "%s cannot be used: %s; it could not be moved aside either (%s), and counts as %s",
            path, why, error.strerror or error, counts_as,
        )  # fmt: skip
        return path
    LOGGER.warning(
        "%s cannot be used: %s; moved aside as %s, and counts as %s", path, why, target.name, counts_as
    )
    return target


def _why(error: ValueError, path: Path) -> str:
    # The messages name the file first ("NAME: why"); the warning names it already.
    text = str(error)
    for prefix in (f"{path}: ", f"{path.name}: "):
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text
