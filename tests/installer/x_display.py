r"""An X screen (Xvfb) for the installer's Wine tests, and the X tools run against it.

Shared by the tests that show a Wine prefix's windows on a screen and use them as a person
would (test_windows_window.py: the installed wizard; test_windows_uninstall_questions.py: the
installer's and uninstaller's own windows): Xvfb with one screen of a given size and work area,
its pixels read from Xvfb's frame buffer, windows found by their title with ``xdotool``, and a
prefix switched to Wine's X11 driver at a given display scaling (``LogPixels``).
"""

from __future__ import annotations

import os
import select
import shutil
import struct
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.wine_python import unavailable

if TYPE_CHECKING:
    from conftest import WinePrefix  # tests/installer/conftest.py, which makes the fixtures

#: The X programs the test uses, and the Debian packages that have them (.ci/run installs them).
X_TOOLS = {"Xvfb": "xvfb", "xdotool": "xdotool", "xprop": "x11-utils", "xwininfo": "x11-utils"}
#: Windows 11's taskbar is 48 logical pixels high, at the bottom of the screen.
TASKBAR = 48
#: Windows' 100 % is 96 dots per inch (Microsoft Learn, "High DPI Desktop Application Development").
BASE_DPI = 96
#: How often the screen and the windows are looked at while waiting for something to happen.
POLL_S = 0.25


@dataclass(frozen=True)
class Rect:
    """A rectangle on the screen, in pixels; right and bottom are just outside it."""

    left: int
    top: int
    width: int
    height: int

    @property
    def right(self) -> int:
        return self.left + self.width

    @property
    def bottom(self) -> int:
        return self.top + self.height

    @property
    def center(self) -> tuple[int, int]:
        return self.left + self.width // 2, self.top + self.height // 2

    def inside(self, other: Rect) -> bool:
        return (
            other.left <= self.left
            and other.top <= self.top
            and self.right <= other.right
            and self.bottom <= other.bottom
        )

    def __str__(self) -> str:
        return f"{self.width}x{self.height} at ({self.left}, {self.top})"


@dataclass(frozen=True)
class Screen:
    """A Windows screen: its size in pixels and its display scaling (``LogPixels``)."""

    width: int
    height: int
    dpi: int

    @property
    def scale(self) -> float:
        return self.dpi / BASE_DPI

    @property
    def work_area(self) -> Rect:
        """The screen less the taskbar: where windows are placed, as Windows' work area."""
        return Rect(0, 0, self.width, self.height - round(TASKBAR * self.scale))

    def __str__(self) -> str:
        return f"{self.width}x{self.height} at {self.dpi * 100 // BASE_DPI} %"


@dataclass(frozen=True)
class Shot:
    """The X screen's pixels, read from Xvfb's frame buffer (an XWD image, updated live)."""

    width: int
    height: int
    stride: int
    pixel_bytes: int
    pixels: bytes

    @classmethod
    def read(cls, path: Path) -> Shot:
        data = path.read_bytes()
        # XWDFileHeader (X11's XWDFile.h): 25 big-endian 32-bit fields, then the colour map.
        header = struct.unpack(">25I", data[:100])
        size, width, height, bits_per_pixel, stride, colours = (header[i] for i in (0, 4, 5, 11, 12, 19))
        start = size + colours * 12
        return cls(width, height, stride, bits_per_pixel // 8, data[start : start + stride * height])

    def row(self, y: int, left: int, right: int) -> bytes:
        start = y * self.stride
        return self.pixels[start + left * self.pixel_bytes : start + right * self.pixel_bytes]


class XScreen:
    """An X server of one screen (Xvfb), with the X tools run against it."""

    def __init__(self, display: str, framebuffer: Path, keep: Path) -> None:
        self.display = display
        self.framebuffer = framebuffer
        self._keep = keep

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DISPLAY": self.display}

    def x(self, *argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            argv,
            env=self.env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def shot(self) -> Shot:
        return Shot.read(self.framebuffer)

    def kept(self) -> str:
        """A copy of the screen as it is now, for the failure message (any XWD viewer opens it)."""
        self._keep.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self.framebuffer, self._keep)
        return f"the screen is kept in {self._keep}"

    def windows_named(self, name: str) -> list[str]:
        found = self.x("xdotool", "search", "--onlyvisible", "--name", f"^{name}$")
        return found.stdout.split()

    def geometry(self, window: str) -> Rect:
        """The X window's place and size on the screen (``xwininfo``)."""
        done = self.x("xwininfo", "-id", window)
        assert done.returncode == 0, done.stderr
        fields = dict(line.strip().split(":", 1) for line in done.stdout.splitlines() if ":" in line)
        return Rect(
            int(fields["Absolute upper-left X"]),
            int(fields["Absolute upper-left Y"]),
            int(fields["Width"]),
            int(fields["Height"]),
        )

    def click(self, x: int, y: int) -> None:
        """Move the mouse pointer there (waiting until it has moved) and press the left button."""
        done = self.x("xdotool", "mousemove", "--sync", str(x), str(y), "click", "1")
        assert done.returncode == 0, done.stderr


@contextmanager
def x_screen(screen: Screen, folder: Path) -> Iterator[XScreen]:
    """Xvfb with one screen of ``screen``'s size, its work area set, until the block ends."""
    folder.mkdir(parents=True, exist_ok=True)
    ready, told = os.pipe()
    with (folder / "Xvfb.log").open("wb") as log:
        # -displayfd: Xvfb picks a free display and writes its number there once it accepts
        # clients. -noreset: without it the server resets whenever its last client leaves (as
        # xprop does below, before any Wine program connects), and the work area is lost with
        # the root window's properties. -fbdir: the screen's pixels, kept in a file as an XWD image.
        server = subprocess.Popen(
            ["Xvfb", "-displayfd", str(told), "-screen", "0", f"{screen.width}x{screen.height}x24",
             "-nolisten", "tcp", "-noreset", "-fbdir", str(folder)],
            pass_fds=(told,), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
        )  # fmt: skip
    os.close(told)
    try:
        number = b""
        while not number.endswith(b"\n"):
            readable, _, _ = select.select([ready], [], [], 60)
            chunk = os.read(ready, 64) if readable else b""
            assert chunk, f"Xvfb did not start: {(folder / 'Xvfb.log').read_text(errors='replace')}"
            number += chunk
        made = XScreen(f":{number.decode().strip()}", folder / "Xvfb_screen0", folder / "kept" / "screen.xwd")
        area = screen.work_area
        # Wine's X11 driver reads the work area from the root window's _NET_WORKAREA (as it
        # would from a Linux desktop's panel) and gives it to Windows programs as theirs.
        done = made.x("xprop", "-root", "-f", "_NET_WORKAREA", "32c", "-set", "_NET_WORKAREA",
                      f"{area.left}, {area.top}, {area.width}, {area.height}")  # fmt: skip
        assert done.returncode == 0, done.stderr
        yield made
    finally:
        os.close(ready)
        server.terminate()
        server.wait(timeout=60)


def show_on(prefix: WinePrefix, screen: Screen) -> None:
    r"""Show this prefix's programs on an X screen, at ``screen``'s display scaling.

    Wine 8 reads the scaling from ``HKCU\Control Panel\Desktop\LogPixels``, where Windows keeps
    the user's (and winecfg writes it); without it, from the ``LogPixels`` of
    ``HKLM\System\CurrentControlSet\Hardware Profiles\Current\Software\Fonts``. Tried here:
    either alone sets the system DPI that Windows programs see, and the user's wins over the other.
    """
    settings = (
        (r"HKCU\Software\Wine\Drivers", "Graphics", "REG_SZ", "x11"),
        # No window manager on the X screen: Wine draws the frame and title bar, as Windows does.
        (r"HKCU\Software\Wine\X11 Driver", "Decorated", "REG_SZ", "N"),
        (r"HKCU\Control Panel\Desktop", "LogPixels", "REG_DWORD", str(screen.dpi)),
    )
    for key, name, kind, data in settings:
        prefix.reg_add(key, name, kind, data)
    # The graphics driver is chosen when the prefix's desktop starts: stop this prefix's Wine
    # (its keeper too), so that the next program starts it anew, on the X screen.
    subprocess.run(["wineserver", "--kill"], env=prefix.env, stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=120, check=False)  # fmt: skip


def need_x_tools() -> None:
    """Skip (fail in CI) when an X program the tests use is not installed."""
    for tool, package in X_TOOLS.items():
        if shutil.which(tool) is None:
            unavailable(
                f"`{tool}` is not installed (Debian package `{package}`): no X screen to show the wizard on"
            )
