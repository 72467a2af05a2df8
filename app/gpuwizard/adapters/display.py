"""Whether a window can be shown at all, decided before Qt starts.

Without a display, Qt's default platform on Linux (``xcb``) aborts the process (exit 134) with
hints that send a newcomer the wrong way ("xcb-cursor0 is needed", "reinstalling may fix
this"; the libraries are installed). The wizard says instead, in one line, that no display
was found and what to do. The rule reads only the platform's name and the environment it is
handed, so it is the same on every machine that runs the tests.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The platforms Qt shows windows on through a display server, and the variable that names it.
_NEEDS = {"xcb": "DISPLAY", "wayland": "WAYLAND_DISPLAY"}

#: What to do instead, the same on every refusal.
_WAYS = (
    "start the wizard in a desktop session or under a virtual one (xvfb-run gpuwizard), set "
    "QT_QPA_PLATFORM=offscreen to run it unseen, or use the headless commands (gpuwizard --help)"
)


def no_display(platform: str, environ: Mapping[str, str]) -> str | None:
    """Why no window can be shown here, as one line with what to do; None when one can.

    ``platform`` is ``sys.platform``. Windows and macOS always have a display. Elsewhere (Linux,
    the BSDs) Qt needs ``DISPLAY`` (X11) or ``WAYLAND_DISPLAY``, unless ``QT_QPA_PLATFORM``
    names a platform that draws without one (``offscreen``, ``minimal``, ``eglfs``,
    ``linuxfb``, ``vnc``...). ``QT_QPA_PLATFORM`` may list fallbacks (``wayland;xcb``) and
    carry options after a colon (``xcb:nomitshm``); one usable entry is enough.
    """
    if platform.startswith(("win", "cygwin", "msys", "darwin")):
        return None
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if not chosen:
        if environ.get("DISPLAY") or environ.get("WAYLAND_DISPLAY"):
            return None
        return f"no display found (neither DISPLAY nor WAYLAND_DISPLAY is set): {_WAYS}"
    names = [entry.split(":", 1)[0].strip() for entry in chosen.split(";") if entry.strip()]
    missing = []
    for name in names:
        variable = _NEEDS.get(_family(name))
        if variable is None or environ.get(variable):
            return None
        missing.append(variable)
    unset = " and ".join(dict.fromkeys(missing))
    return f"no display found (QT_QPA_PLATFORM is {chosen!r} but {unset} is not set): {_WAYS}"


def _family(name: str) -> str:
    # Qt's Wayland platform plugins are named wayland, wayland-egl, wayland-brcm...
    return "wayland" if name.startswith("wayland") else name
