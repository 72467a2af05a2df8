"""Stdlib-only scripts run inside a target environment with its own interpreter.

They never import gpuwizard and keep to Python 3.7 syntax; they talk back in JSON lines.
The wizard starts them by path (:func:`script`), never imports them.
"""

from pathlib import Path

FOLDER = Path(__file__).resolve().parent


def script(name: str) -> Path:
    """The probe ``name`` (``train_test``) as a file to hand another interpreter."""
    return FOLDER / (name + ".py")
