"""The wizard window's size and place as the person left it, in ``GPUWIZARD_HOME/window.json``.

The window opens at that size next time, made to fit the screen it opens on
(:mod:`gpuwizard.ui.window_fit`). Nothing here knows Qt: a rectangle is four integers in
logical pixels (Qt's device-independent pixels). A damaged file is moved aside and counts as
nothing remembered; losing the size never stops the wizard.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.workflow.state.damaged import DamagedFile, read_state_json, set_aside
from gpuwizard.workflow.state.files import write_json_atomically
from gpuwizard.workflow.state.home import wizard_home

WINDOW_NAME: Final = "window.json"
WINDOW_SCHEMA: Final = "gpuwizard.window/1"
#: No screen is this far from the origin or this large (in logical pixels): a value beyond it
#: was not written by the wizard.
_LIMIT: Final = 1_000_000


@dataclass(frozen=True)
class WindowGeometry:
    """The window's rectangle inside its frame, in logical pixels, as Qt's ``QWidget.geometry``."""

    x: int
    y: int
    width: int
    height: int


def window_geometry_path() -> Path:
    """Where the window's geometry is kept."""
    return wizard_home() / WINDOW_NAME


def load_window_geometry(path: Path) -> WindowGeometry | None:
    """The geometry kept in ``path``; None when there is none or it cannot be read.

    A damaged file (not JSON, or not four whole numbers with a positive width and height) is
    moved aside as ``window.json.bad`` with one line saying so.
    """
    try:
        data = read_state_json(path)
    except (FileNotFoundError, OSError):
        return None
    except DamagedFile as error:
        set_aside(path, str(error), counts_as="no size remembered")
        return None
    geometry = _geometry(data)
    if geometry is None:
        set_aside(path, 'expected {"x", "y", "width", "height"} in pixels', counts_as="no size remembered")
    return geometry


def save_window_geometry(path: Path, geometry: WindowGeometry) -> None:
    """Keep ``geometry`` in ``path`` (written atomically).

    Raises:
        OSError: It could not be written (a full or read-only home); the caller decides.
    """
    write_json_atomically(
        path,
        {
            "schema": WINDOW_SCHEMA,
            "x": geometry.x,
            "y": geometry.y,
            "width": geometry.width,
            "height": geometry.height,
        },
    )


def _geometry(data: object) -> WindowGeometry | None:
    if not isinstance(data, dict):
        return None
    values = [data.get(key) for key in ("x", "y", "width", "height")]
    numbers = [value for value in values if isinstance(value, int) and not isinstance(value, bool)]
    if len(numbers) != len(values) or any(abs(number) > _LIMIT for number in numbers):
        return None
    x, y, width, height = numbers
    if width <= 0 or height <= 0:
        return None
    return WindowGeometry(x, y, width, height)
