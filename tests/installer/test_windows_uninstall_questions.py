r"""The uninstaller's two questions, answered on the screen as a person would (issue 37, point 4).

Run with a window (Add/Remove Programs' ``UninstallString``, not ``/S``), the uninstaller asks
whether to also undo the wizard's PATH changes (only when the wizard's PATH journal exists), and
whether to remove the environments the wizard made and its data, with their size (No, keep, is
the default button). The silent switches are tested in test_windows_installer.py; here the
questions themselves are looked at and answered:

* the installer is installed silently into a fresh Wine prefix, and the installed programs make
  the wizard's data as a user's runs would: a PATH change (``gpuwizard path add``, journaled),
  a good state (``verify``), and environments in its registry (one the wizard made inside the
  data folder, one it made elsewhere, one a person made), plus a person's own file;
* the prefix is then shown on an X screen (Xvfb, Wine's X11 driver; x_display.py), the uninstall
  string run, and each window found by its title with ``xdotool``; what a window says, and where
  its buttons are, is read by a Windows Python in the same prefix (``user32``: the controls'
  text and places, in the screen's pixels at 100 %);
* the answers are given with the keyboard (the mnemonic ``n`` for No, and Enter, which takes the
  default button, No, for the data) in one case and the mouse in the other; the uninstall
  confirmation and the Finish page are clicked;
* NSIS's uninstaller copies itself to the temporary folder and runs the copy, so the test waits
  on what the person would see: the program folder and the uninstall entry gone, the Finish page.

Then: "No" twice keeps PATH's C:\tools\cuda\bin (the installer's own entry is taken away either
way), the data and every environment; "Yes" twice restores PATH as it was before the install,
removes the wizard's files and the environments it marked as its own, and keeps the rest.

The installer's Finish page is checked too: its picture on the left is the project's bitmap
(installer/icon.py), not NSIS's stock one, compared by their colours on the screen.
"""

from __future__ import annotations

import json
import re
import struct
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

import pytest

from harness.wine_python import WineUnavailable, fetch_interpreter, to_windows, unavailable
from harness.wine_python import cache_folder as wine_python_cache
from installer.test_windows_installer import (
    CUDA_BIN,
    USER_UNINSTALL,
    entries,
    install,
    plant_environments,
    run_installed,
    user_path,
    verify_events,
)
from installer.x_display import POLL_S, Rect, Screen, XScreen, need_x_tools, show_on, x_screen

if TYPE_CHECKING:
    from conftest import WinePrefix  # tests/installer/conftest.py, which makes the fixtures

# With pytest-xdist (-n), the installer is built once, on one worker: its tests stay together.
pytestmark = [pytest.mark.slow, pytest.mark.heavy, pytest.mark.xdist_group("installer")]

APP = "GPU Setup Wizard"
#: NSIS's captions: the uninstaller's window and its message boxes share one, so do the
#: installer's; the window's ends with a space (NSIS's English caption), the message boxes' not.
UNINSTALL_TITLE = f"{APP} Uninstall"
SETUP_TITLE = f"{APP} Setup"
#: 100 %: the Windows Python that reads the windows then sees the X screen's own pixels.
SCREEN = Screen(1024, 768, 96)
#: NSIS's stock Welcome/Finish picture, which MUI2 shows unless told otherwise (Debian's nsis).
STOCK_BITMAP = Path("/usr/share/nsis/Contrib/Graphics/Wizard/win.bmp")
#: A cold prefix starts its desktop first; the uninstaller runs the frozen CLI three times.
WINDOW_LIMIT_S = 240
WORK_LIMIT_S = 300
#: What the environment the wizard made in its data folder weighs: the question says "3 MB".
ENV_PAYLOAD = 3 * 1024 * 1024 + 512 * 1024

T = TypeVar("T")

#: Run by the Windows Python: every visible top-level window titled argv[1] (trailing blanks
#: aside), with its controls
#: (all descendants: NSIS's pages are dialogs inside its window), as JSON.
READ_WINDOWS = r"""
import ctypes, json, sys
from ctypes import wintypes

user32 = ctypes.windll.user32
EnumProc = ctypes.WINFUNCTYPE(wintypes.BOOL, wintypes.HWND, wintypes.LPARAM)

def text(h):
    size = user32.GetWindowTextLengthW(h) + 1
    buffer = ctypes.create_unicode_buffer(size)
    user32.GetWindowTextW(h, buffer, size)
    return buffer.value

def kind(h):
    buffer = ctypes.create_unicode_buffer(256)
    user32.GetClassNameW(h, buffer, 256)
    return buffer.value

def rect(h):
    r = wintypes.RECT()
    user32.GetWindowRect(h, ctypes.byref(r))
    return [r.left, r.top, r.right - r.left, r.bottom - r.top]

found = []

def top(h, _):
    if user32.IsWindowVisible(h) and text(h).strip() == sys.argv[1]:
        controls = []
        def child(c, _):
            if user32.IsWindowVisible(c):
                controls.append({"class": kind(c), "text": text(c), "rect": rect(c)})
            return True
        user32.EnumChildWindows(h, EnumProc(child), 0)
        found.append({"class": kind(h), "rect": rect(h), "controls": controls})
    return True

user32.EnumWindows(EnumProc(top), 0)
print(json.dumps(found))
"""


@dataclass(frozen=True)
class Control:
    kind: str
    text: str
    rect: Rect

    @property
    def label(self) -> str:
        """The text as shown: without the ``&`` that marks the mnemonic."""
        return self.text.replace("&", "")


@dataclass(frozen=True)
class Window:
    """A top-level window as Windows sees it, with its controls."""

    kind: str
    rect: Rect
    controls: list[Control]

    @property
    def message(self) -> str:
        """The static texts, joined (a message box's question)."""
        return "\n".join(c.text for c in self.controls if c.kind.lower() == "static" and c.text)

    def button(self, label: str) -> Control | None:
        return next((c for c in self.controls if c.kind.lower() == "button" and c.label == label), None)

    def must(self, label: str) -> Control:
        found = self.button(label)
        assert found is not None, f"no button {label!r} in {self}"
        return found


class Desktop:
    """One Wine prefix's windows on the X screen, found with xdotool and read by a Windows Python."""

    def __init__(self, prefix: WinePrefix, x: XScreen, scripts: Path) -> None:
        try:
            self._python = to_windows(fetch_interpreter(wine_python_cache()) / "python.exe")
        except WineUnavailable as why:
            unavailable(str(why))
        scripts.mkdir(parents=True, exist_ok=True)
        (scripts / "read_windows.py").write_text(READ_WINDOWS, encoding="utf-8")
        self._script = to_windows(scripts / "read_windows.py")
        self.prefix = prefix
        self.x = x

    @property
    def env(self) -> dict[str, str]:
        return {**self.prefix.env, "DISPLAY": self.x.display}

    def start(self, program: str, *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            ["wine", program, *args], env=self.env,
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def read(self, title: str) -> list[Window]:
        """The visible windows titled ``title`` and their controls, as Windows sees them."""
        # The desktop runs already (the window was found on the X screen): nothing started
        # here outlives this program and holds its pipes.
        done = subprocess.run(
            ["wine", self._python, self._script, title], env=self.env, stdin=subprocess.DEVNULL,
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout + done.stderr
        return [
            Window(
                w["class"],
                Rect(*w["rect"]),
                [Control(c["class"], c["text"], Rect(*c["rect"])) for c in w["controls"]],
            )
            for w in json.loads(done.stdout)
        ]

    def until(self, what: str, found: Callable[[], T | None], limit_s: float) -> T:
        """Look again every POLL_S until ``found`` answers; fail (the screen kept) when time runs out."""
        deadline = time.monotonic() + limit_s
        while True:
            answer = found()
            if answer is not None:
                return answer
            if time.monotonic() > deadline:
                pytest.fail(f"{what}: not within {limit_s} s; {self.x.kept()}")
            time.sleep(POLL_S)

    def new_window(self, title: str, known: set[str]) -> str:
        """Wait for a visible X window titled ``title`` that is not one of ``known``; its id."""

        def fresh() -> str | None:
            shown = [w for w in self.x.windows_named(f"{title} ?") if w not in known]
            return shown[0] if shown else None

        return self.until(f"a new window titled {title!r}", fresh, WINDOW_LIMIT_S)

    def page_with(self, title: str, label: str) -> Control:
        """Wait until the window titled ``title`` shows a button ``label`` (a wizard page); that button."""

        def shown() -> Control | None:
            if not self.x.windows_named(f"{title} ?"):
                return None
            buttons = [w.button(label) for w in self.read(title)]
            return next((b for b in buttons if b is not None), None)

        return self.until(f"the {label!r} button of {title!r}", shown, WINDOW_LIMIT_S)

    def question(self, title: str, known: set[str], about: str) -> tuple[str, Window]:
        """Wait for a message box titled ``title`` whose text has ``about``; its X id and what it shows."""
        box = self.new_window(title, known)
        for window in self.read(title):
            if about in window.message and window.button("Yes") and window.button("No"):
                return box, window
        pytest.fail(f"no question about {about!r} in {self.read(title)}; {self.x.kept()}")

    def click(self, control: Control) -> None:
        self.x.click(*control.rect.center)

    def press(self, window: str, key: str) -> None:
        """Give ``window`` the keyboard (there is no window manager to do it) and press ``key``."""
        done = self.x.x("xdotool", "windowfocus", "--sync", window, "key", key)
        assert done.returncode == 0, done.stderr

    def gone(self, title: str, limit_s: float) -> None:
        def closed() -> bool | None:
            return None if self.x.windows_named(f"{title} ?") else True

        self.until(f"every window titled {title!r} closed", closed, limit_s)


@contextmanager
def on_screen(prefix: WinePrefix, tmp_path: Path) -> Iterator[Desktop]:
    """The prefix shown on an X screen at 100 %; its Wine stopped while the screen is still there."""
    show_on(prefix, SCREEN)
    with x_screen(SCREEN, tmp_path / "x") as x:
        try:
            yield Desktop(prefix, x, tmp_path / "scripts")
        finally:
            prefix.close()


def wizard_data(prefix: WinePrefix, folder: str, data: Path) -> dict[str, Path]:
    """The data a user's runs leave: a PATH change, a good state, environments, a file of their own."""
    run_installed(prefix, folder, "path", "add", CUDA_BIN)
    assert entries(user_path(prefix)) == [folder, CUDA_BIN]
    verify_events(prefix, folder)  # records the good state (last-good.json)
    envs = plant_environments(prefix, data)
    (envs["demo"] / "Lib").mkdir()
    (envs["demo"] / "Lib" / "torch_cuda.dll").write_bytes(b"\0" * ENV_PAYLOAD)
    (data / "my-notes.txt").write_text("mine", encoding="utf-8")
    assert {"path-journal.json", "last-good.json", "environments.json"} <= {p.name for p in data.iterdir()}
    return envs


def files_under(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def kib(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) // 1024


def uninstall_on_screen(
    desktop: Desktop, *, undo_path: bool, remove_data: bool, say: Callable[[str], None]
) -> dict[str, str]:
    """Run the uninstall string, answer the questions; what each question said."""
    prefix = desktop.prefix
    entry = prefix.reg_query(USER_UNINSTALL)
    assert entry is not None
    command = entry["UninstallString"][1]
    assert "/S" not in command.split()
    started = time.perf_counter()
    desktop.start(command.strip('"'))  # it ends at once, once its copy in %TEMP% runs
    main = desktop.new_window(UNINSTALL_TITLE, set())
    desktop.click(desktop.page_with(UNINSTALL_TITLE, "Uninstall"))
    said = {}

    box, path_question = desktop.question(UNINSTALL_TITLE, {main}, "PATH")
    said["path"] = path_question.message
    if undo_path:
        desktop.click(path_question.must("Yes"))
    else:
        desktop.press(box, "n")  # the mnemonic of No

    box, data_question = desktop.question(UNINSTALL_TITLE, {main, box}, "environments")
    said["data"] = data_question.message
    if remove_data:
        desktop.click(data_question.must("Yes"))
    else:
        desktop.press(box, "Return")  # the default button, No: Enter keeps

    folder = prefix.linux_path(entry["InstallLocation"][1])
    desktop.until(
        "the program folder and the uninstall entry gone",
        lambda: True if not folder.exists() and prefix.reg_query(USER_UNINSTALL) is None else None,
        WORK_LIMIT_S,
    )
    desktop.click(desktop.page_with(UNINSTALL_TITLE, "Finish"))
    desktop.gone(UNINSTALL_TITLE, WINDOW_LIMIT_S)
    say(f"\nuninstall with a window (undo PATH: {undo_path}, remove data: {remove_data}): "
        f"{time.perf_counter() - started:.1f} s")  # fmt: skip
    return said


def check_the_data_question(said: str, home: str, size_kib: int) -> None:
    """It names the data folder and its size, environments included (in MB here: over 3 MB)."""
    match = re.search(r"\((\d+(?:\.\d)?) (KB|MB|GB) in (.+?)\)\?", said)
    assert match, said
    assert match[3].lower() == home.lower(), said
    assert (match[1], match[2]) == (str(size_kib // 1024), "MB"), said


@pytest.fixture(scope="session")
def x_tools() -> None:
    """The X programs, checked before the installer is built (a session fixture, used first)."""
    need_x_tools()


@pytest.mark.usefixtures("x_tools")  # first, so that a missing tool skips before the build
@pytest.mark.parametrize("answer", ["no-and-no", "yes-and-yes"])
def test_the_uninstallers_questions_answered_on_the_screen(
    say: Callable[[str], None], setup_exe: Path, wine_prefix: WinePrefix, tmp_path: Path, answer: str
):
    prefix = wine_prefix
    yes = answer == "yes-and-yes"
    started = time.perf_counter()
    before = user_path(prefix)
    install(prefix, setup_exe)
    folder = prefix.expand(rf"%LOCALAPPDATA%\Programs\{APP}")
    data = prefix.linux_path(prefix.expand(r"%LOCALAPPDATA%\gpuwizard"))
    envs = wizard_data(prefix, folder, data)
    kept_data = files_under(data)
    size_kib = kib(data)
    theirs = files_under(envs["theirs"])
    home = prefix.expand(r"%LOCALAPPDATA%\gpuwizard")

    with on_screen(prefix, tmp_path) as desktop:
        said = uninstall_on_screen(desktop, undo_path=yes, remove_data=yes, say=say)
        path_after = user_path(prefix)

    assert "undo the changes" in said["path"], said
    check_the_data_question(said["data"], home, size_kib)
    if yes:
        assert path_after == before, path_after  # as before the install: no user PATH at all
        assert not envs["demo"].exists() and not envs["elsewhere"].exists()
        assert sorted(p.name for p in data.iterdir()) == ["my-notes.txt"]
    else:
        # The installer's own entry went; the wizard's change stayed, as did everything else.
        assert entries(path_after) == [CUDA_BIN]
        after = files_under(data)
        assert {k: v for k, v in after.items() if k != "path-journal.json"} == {
            k: v for k, v in kept_data.items() if k != "path-journal.json"
        }
        assert envs["demo"].is_dir() and envs["elsewhere"].is_dir()
    assert files_under(envs["theirs"]) == theirs
    say(f"  {time.perf_counter() - started:.1f} s in all, the install included")


Colour = tuple[float, float, float]


def bitmap_colour(path: Path) -> Colour:
    """The mean colour (blue, green, red) of an uncompressed BMP: 24 bits, or 1 to 8 with a palette."""
    data = path.read_bytes()
    (start,) = struct.unpack_from("<I", data, 10)
    header, width, height, _planes, bits, compression = struct.unpack_from("<IiiHHI", data, 14)
    assert compression == 0, f"{path}: compressed"
    stride = (width * bits + 31) // 32 * 4
    rows = [data[start + y * stride : start + (y + 1) * stride] for y in range(abs(height))]
    if bits == 24:
        return mean_colour([row[: width * 3] for row in rows], 3)
    (used,) = struct.unpack_from("<I", data, 46)
    table = 14 + header
    palette = [data[table + 4 * i : table + 4 * i + 3] for i in range(used or 1 << bits)]
    per_byte = 8 // bits
    mask = (1 << bits) - 1
    expanded = [
        b"".join(
            palette[(row[x // per_byte] >> (8 - bits * (x % per_byte + 1))) & mask] for x in range(width)
        )
        for row in rows
    ]
    return mean_colour(expanded, 3)


def mean_colour(rows: list[bytes], step: int) -> Colour:
    """The mean of the first three bytes of each pixel (blue, green, red in BMPs and Xvfb's screen)."""
    sums, count = [0, 0, 0], 0
    for row in rows:
        for i in range(0, len(row) - step + 1, step):
            for channel in range(3):
                sums[channel] += row[i + channel]
            count += 1
    b, g, r = (total / count for total in sums)
    return b, g, r


def rounded(colour: Colour) -> tuple[int, ...]:
    return tuple(round(c) for c in colour)


def distance(a: Colour, b: Colour) -> float:
    return max(abs(x - y) for x, y in zip(a, b, strict=True))


@pytest.mark.usefixtures("x_tools")
def test_the_installers_finish_page_shows_the_projects_picture(
    say: Callable[[str], None], setup_exe: Path, wine_prefix: WinePrefix, tmp_path: Path
):
    ours = bitmap_colour(setup_exe.parents[1] / "work" / "wizard-side.bmp")  # what build.py packed
    if not STOCK_BITMAP.is_file():
        unavailable(f"{STOCK_BITMAP} is missing (Debian package `nsis`): nothing to compare with")
    stock = bitmap_colour(STOCK_BITMAP)
    assert distance(ours, stock) > 30, (ours, stock)  # tell apart on the screen

    started = time.perf_counter()
    with on_screen(wine_prefix, tmp_path) as desktop:
        desktop.start(str(setup_exe))
        desktop.click(desktop.page_with(SETUP_TITLE, "Next >"))  # the folder
        desktop.click(desktop.page_with(SETUP_TITLE, "Install"))  # the components
        desktop.page_with(SETUP_TITLE, "Finish")  # the files copied, the Finish page shown
        (window,) = desktop.read(SETUP_TITLE)
        # The picture: the picture control at the page's left edge (Modern UI: 164 x 314 at 100 %).
        pictures = [
            c.rect for c in window.controls
            if c.kind.lower() == "static" and c.rect.width >= 100 and c.rect.height >= 250
            and c.rect.left - window.rect.left < 20
        ]  # fmt: skip
        assert pictures, f"no picture on the Finish page: {window}; {desktop.x.kept()}"
        picture = pictures[0]
        shot = desktop.x.shot()
        shown = mean_colour(
            [shot.row(y, picture.left, picture.right) for y in range(picture.top, picture.bottom)],
            shot.pixel_bytes,
        )
        kept = desktop.x.kept()
    say(f"\nFinish page: picture {picture}, mean colour (BGR) {rounded(shown)}, ours {rounded(ours)}, "
        f"stock {rounded(stock)}: {time.perf_counter() - started:.1f} s")  # fmt: skip
    assert distance(shown, ours) < distance(shown, stock), f"{kept}"
    assert distance(shown, ours) <= 12, f"{shown} against {ours}; {kept}"
