"""Whether a window can be shown at all, decided before Qt starts.

Without a display, Qt's default platform on Linux (``xcb``) aborts the process (exit 134) with
hints that send a newcomer the wrong way ("xcb-cursor0 is needed", "reinstalling may fix
this"; the libraries are installed). The wizard says instead, in one line, that no display
was found and what to do. The rule reads only the platform's name and the environment it is
handed, so it is the same on every machine that runs the tests.

A display that is named but cannot be used ends in the same abort: ``DISPLAY`` naming no X
server, ``WAYLAND_DISPLAY`` naming no compositor's socket, or Qt's X11 plugin missing a system
library (Qt says "xcb-cursor0 is needed" whichever one is missing). ``display_unusable`` says
which, and what to do, from a few cheap probes handed to it (``DisplayProbes``; the real ones,
ctypes and a socket, are ``display_probe.SystemDisplay``), so the decision is tested with any
answers and the probes on this machine.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Protocol

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


class DisplayProbes(Protocol):
    """What ``display_unusable`` asks the machine; ``display_probe.SystemDisplay`` answers for real."""

    def xcb_plugin_error(self) -> str | None:
        """The loader's message when Qt's X11 platform plugin cannot load.

        None when it loads, or cannot be found (a build that keeps its plugins elsewhere).
        """

    def x_display_error(self, display: str) -> int | None:
        """``xcb_connection_has_error`` after connecting to ``display``: 0 when it answers.

        None when it cannot be asked (no libxcb).
        """

    def wayland_error(self, socket_path: str) -> str | None:
        """Why the Wayland socket at ``socket_path`` refuses a connection; None when it accepts one."""


# xcb_connection_has_error's codes that mean something other than "does not answer" (xcb.h).
_XCB_BAD_NAME = 5  # XCB_CONN_CLOSED_PARSE_ERR
_XCB_NO_SCREEN = 6  # XCB_CONN_CLOSED_INVALID_SCREEN

#: What Qt's X11 platform plugin needs beyond a minimal system, as Debian and Ubuntu name the
#: packages (the libraries are Qt's list: https://doc.qt.io/qt-6.9/linux-requirements.html,
#: "Platform Plugin Dependencies"; the README names the same packages). All of them in one
#: command, because the loader names only the first library it misses.
_X11_PACKAGES = (
    "libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1 libxcb-randr0 "
    "libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-xkb1"
)

#: What to do when the plugin cannot load (a desktop session or xvfb-run would not help).
_INSTALL_WAYS = (
    f"install Qt's X11 libraries (Debian/Ubuntu: sudo apt-get install {_X11_PACKAGES}), set "
    "QT_QPA_PLATFORM=offscreen to run it unseen, or use the headless commands (gpuwizard --help)"
)

# dlerror's text for a library the loader did not find: "libxcb-icccm.so.4: cannot open shared
# object file: No such file or directory" (possibly after the plugin's own path).
_MISSING_LIBRARY = re.compile(r"([^\s:/]+\.so[.\d]*): cannot open shared object file")

#: libwayland-client's socket when WAYLAND_DISPLAY is unset (wl_display_connect).
_DEFAULT_WAYLAND = "wayland-0"


def display_unusable(platform: str, environ: Mapping[str, str], probes: DisplayProbes) -> str | None:
    """Why the display Qt would use cannot show a window, as one line with what to do.

    None when one of the platforms Qt would try can, or when nothing here says otherwise.

    Asked after ``no_display`` found a display named. The platforms Qt tries, in order, are
    those ``QT_QPA_PLATFORM`` lists; without it, Qt 6.11 tries ``wayland`` then ``xcb`` when
    ``WAYLAND_DISPLAY`` is set or ``XDG_SESSION_TYPE`` is ``wayland``, and ``xcb`` alone
    otherwise (seen with ``QT_DEBUG_PLUGINS=1``; older Qt 6 tries a subset of these, so the
    wizard refuses only where every one of them fails). A platform without a display server
    (``offscreen``...) is always usable. ``xcb`` is usable when its plugin loads and ``DISPLAY``
    answers; ``wayland`` when the compositor's socket accepts a connection.
    """
    if platform.startswith(("win", "cygwin", "msys", "darwin")):
        return None
    causes: list[str] = []
    plugin_missing = False
    for family in dict.fromkeys(_family(name) for name in _platforms(environ)):
        if family == "xcb":
            display = environ.get("DISPLAY", "")
            if not display:
                continue  # Qt's xcb fails too; no_display has spoken for a display named nowhere
            why, plugin = _x11_unusable(display, environ, probes)
            plugin_missing = plugin_missing or plugin
        elif family == "wayland":
            why = _wayland_unusable(environ, probes)
        else:
            return None  # draws without a display server
        if why is None:
            return None
        if why:
            causes.append(why)
    if not causes:
        return None
    return f"{' and '.join(causes)}: {_INSTALL_WAYS if plugin_missing else _WAYS}"


def _platforms(environ: Mapping[str, str]) -> list[str]:
    chosen = environ.get("QT_QPA_PLATFORM", "").strip()
    if chosen:
        return [entry.split(":", 1)[0].strip() for entry in chosen.split(";") if entry.strip()]
    if environ.get("WAYLAND_DISPLAY") or environ.get("XDG_SESSION_TYPE") == "wayland":
        return ["wayland", "xcb"]
    return ["xcb"]


def _x11_unusable(display: str, environ: Mapping[str, str], probes: DisplayProbes) -> tuple[str | None, bool]:
    """Why ``xcb`` cannot show a window on ``display``, and whether it is for the plugin."""
    # A plugin path of the user's own may hold another xcb plugin than the one checked here.
    if not environ.get("QT_QPA_PLATFORM_PLUGIN_PATH"):
        error = probes.xcb_plugin_error()
        if error is not None:
            found = _MISSING_LIBRARY.search(error)
            cause = f"{found.group(1)} is missing" if found else error.strip()
            return f"Qt's X11 platform plugin cannot load: {cause} (DISPLAY={display})", True
    code = probes.x_display_error(display)
    if not code:
        return None, False
    if code == _XCB_BAD_NAME:
        return f"DISPLAY={display} does not name an X display", False
    if code == _XCB_NO_SCREEN:
        return f"the X display {display} has no such screen (DISPLAY={display})", False
    return f"the X display {display} does not answer or refused the connection (DISPLAY={display})", False


def _wayland_unusable(environ: Mapping[str, str], probes: DisplayProbes) -> str | None:
    """Why Wayland cannot show a window; "" when it fails unasked for (no WAYLAND_DISPLAY)."""
    named = environ.get("WAYLAND_DISPLAY", "")
    # Without WAYLAND_DISPLAY, Qt still tries libwayland's default socket: a quiet try, since
    # nothing the user set failed.
    display = named or _DEFAULT_WAYLAND
    if display.startswith("/"):
        path = display
    elif environ.get("XDG_RUNTIME_DIR"):
        path = f"{environ['XDG_RUNTIME_DIR'].rstrip('/')}/{display}"
    else:
        return f"the Wayland display {display} cannot be found (XDG_RUNTIME_DIR is not set)" if named else ""
    error = probes.wayland_error(path)
    if error is None:
        return None
    if not named:
        return ""
    return f"the Wayland display {display} does not answer (WAYLAND_DISPLAY={display}; {path}: {error})"
