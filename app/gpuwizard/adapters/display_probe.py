"""The real answers to ``display.DisplayProbes``: Qt's X11 plugin, the X server, the Wayland socket.

Each is asked without starting Qt, in a few milliseconds: loading the plugin is what Qt does
first on X11 (and the Qt libraries it pulls in are the ones the wizard loads next anyway);
``xcb_connect`` is what the plugin does next; a Wayland client's first step is to connect to
the compositor's socket. None of them shows anything or changes anything.
"""

from __future__ import annotations

import ctypes
import os
import socket
from importlib.util import find_spec
from pathlib import Path

#: A compositor accepts at once; the limit only stops a socket nobody serves from holding the start.
_CONNECT_S = 2.0
#: xcb.h's XCB_CONN_CLOSED_INVALID_SCREEN.
_XCB_INVALID_SCREEN = 6
#: The X connection of the last probe that answered (see ``x_display_error``).
_KEPT: list[int] = []


class SystemDisplay:
    """``display.DisplayProbes`` for this machine.

    ``xcb_plugin`` is the X11 platform plugin to load; by default PySide6's own. Where there is
    no such file (a frozen build lays its plugins out otherwise), the plugin is not checked.
    """

    def __init__(self, xcb_plugin: Path | None = None) -> None:
        self._xcb_plugin = xcb_plugin

    def xcb_plugin_error(self) -> str | None:
        """Load the X11 platform plugin as Qt would; dlerror's text when it cannot."""
        plugin = self._xcb_plugin or _pyside_xcb_plugin()
        if plugin is None or not plugin.is_file():
            return None
        try:
            ctypes.CDLL(str(plugin))
        except OSError as error:
            return str(error)
        return None

    def x_display_error(self, display: str) -> int | None:
        """Connect to ``display`` through libxcb, as the plugin does; a connection that answers is kept."""
        try:
            xcb = ctypes.CDLL("libxcb.so.1")
        except OSError:
            return None  # the plugin's check names the missing library, where it can be found
        xcb.xcb_connect.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_int)]
        xcb.xcb_connect.restype = ctypes.c_void_p
        xcb.xcb_connection_has_error.argtypes = [ctypes.c_void_p]
        xcb.xcb_connection_has_error.restype = ctypes.c_int
        xcb.xcb_disconnect.argtypes = [ctypes.c_void_p]
        xcb.xcb_disconnect.restype = None
        xcb.xcb_get_setup.argtypes = [ctypes.c_void_p]
        xcb.xcb_get_setup.restype = ctypes.c_void_p
        xcb.xcb_setup_roots_length.argtypes = [ctypes.c_void_p]
        xcb.xcb_setup_roots_length.restype = ctypes.c_int
        screen = ctypes.c_int(0)
        # xcb_connect never returns NULL: a failed connection is an object carrying the error,
        # and xcb_disconnect leaves that one alone (libxcb's xcb_conn.c).
        connection = xcb.xcb_connect(os.fsencode(display), ctypes.byref(screen))
        error = int(xcb.xcb_connection_has_error(connection))
        # libxcb connects to ":0.5" on a server with one screen; Qt then refuses it.
        if not error and screen.value >= xcb.xcb_setup_roots_length(xcb.xcb_get_setup(connection)):
            error = _XCB_INVALID_SCREEN
        if error:
            xcb.xcb_disconnect(connection)
            return error
        # Kept open until the process ends: an X server whose last client leaves resets itself
        # (Xvfb under xvfb-run, where this would be the only client), and while it does, Qt's
        # own connection, made next, waits or fails. Measured: 0.2 ms a probe with a client
        # still connected, 25-40 ms and now and then a refusal without. At most one is kept.
        for earlier in _KEPT:
            xcb.xcb_disconnect(earlier)
        _KEPT[:] = [connection]
        return 0

    def wayland_error(self, socket_path: str) -> str | None:
        """Connect to the compositor's socket and hang up; the refusal's reason when it refuses."""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(_CONNECT_S)
            try:
                client.connect(socket_path)
            except OSError as error:
                return error.strerror or str(error)
        return None


def _pyside_xcb_plugin() -> Path | None:
    """PySide6's X11 platform plugin, found without importing PySide6; None when it is not there."""
    try:
        spec = find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        plugin = Path(folder, "Qt", "plugins", "platforms", "libqxcb.so")
        if plugin.is_file():
            return plugin
    return None
