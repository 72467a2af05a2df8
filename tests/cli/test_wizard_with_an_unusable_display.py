"""A display that is named but cannot be used is one line and exit 2, before Qt starts (issue 41, point 2).

Before, ``DISPLAY=:99 gpuwizard`` with no X server there, ``WAYLAND_DISPLAY`` naming no
compositor, and ``xvfb-run gpuwizard`` where Qt's X11 plugin misses a system library all ended
in Qt's abort (exit 134) with hints that name none of these ("xcb-cursor0 is needed",
"reinstalling may fix this"). The decision is pure and driven here with any probe answers; the
real probes are run against what this machine has (no server, a bad name, a Wayland socket of the
test's own, an Xvfb where it is installed, a plugin that is no library or misses one); and the
command is run for real.
"""

from __future__ import annotations

import os
import select
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.adapters.display import display_unusable
from gpuwizard.adapters.display_probe import SystemDisplay
from harness.entry_point import ENTRY_POINT
from harness.waits import EVENT_S

SAMPLE = str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json"))
DISPLAY_VARIABLES = (
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "QT_QPA_PLATFORM",
    "XDG_SESSION_TYPE",
    "QT_QPA_PLATFORM_PLUGIN_PATH",
)
WAYS = ("desktop session", "xvfb-run", "QT_QPA_PLATFORM=offscreen", "headless commands")
DLERROR = (
    "/venv/PySide6/Qt/plugins/platforms/libqxcb.so: libxcb-icccm.so.4: cannot open shared object "
    "file: No such file or directory"
)
linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="X11 and Wayland are Linux's")


class Answers:
    """Probe answers chosen by the test; records what was asked."""

    def __init__(
        self, plugin: str | None = None, x: int | None = 0, wayland: dict[str, str | None] | None = None
    ) -> None:
        self.plugin = plugin
        self.x = x
        self.wayland = wayland or {}
        self.asked: list[str] = []

    def xcb_plugin_error(self) -> str | None:
        self.asked.append("plugin")
        return self.plugin

    def x_display_error(self, display: str) -> int | None:
        self.asked.append(f"x {display}")
        return self.x

    def wayland_error(self, socket_path: str) -> str | None:
        self.asked.append(f"wayland {socket_path}")
        return self.wayland.get(socket_path, "No such file or directory")


# --- the decision, from chosen answers -------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "cause"),
    [
        (1, "the X display :99 does not answer or refused the connection (DISPLAY=:99)"),
        (5, "DISPLAY=:99 does not name an X display"),
        (6, "the X display :99 has no such screen (DISPLAY=:99)"),
    ],
)
def test_an_x_display_that_does_not_answer(code: int, cause: str):
    why = display_unusable("linux", {"DISPLAY": ":99"}, Answers(x=code))
    assert why is not None and why.startswith(f"{cause}: ")
    for way in WAYS:
        assert way in why


@pytest.mark.parametrize(
    ("error", "cause"),
    [
        (DLERROR, "libxcb-icccm.so.4 is missing"),
        (
            "libxkbcommon-x11.so.0: cannot open shared object file: No such file",
            "libxkbcommon-x11.so.0 is missing",
        ),
        ("/p/libqxcb.so: undefined symbol: xcb_foo", "/p/libqxcb.so: undefined symbol: xcb_foo"),
    ],
)
def test_a_plugin_that_cannot_load_names_the_library_and_the_packages(error: str, cause: str):
    answers = Answers(plugin=error)
    why = display_unusable("linux", {"DISPLAY": ":0"}, answers)
    assert why is not None
    assert why.startswith(
        f"Qt's X11 platform plugin cannot load: {cause} (DISPLAY=:0): install Qt's X11 libraries"
    )
    assert "sudo apt-get install " in why and "libxcb-icccm4" in why and "libxcb-cursor0" in why
    assert "QT_QPA_PLATFORM=offscreen" in why and "headless commands" in why
    assert "xvfb-run" not in why  # a virtual display would fail the same way
    assert answers.asked == ["plugin"]  # the display is not asked about what cannot use it


def test_a_display_that_answers_through_a_plugin_that_loads():
    answers = Answers()
    assert display_unusable("linux", {"DISPLAY": ":0"}, answers) is None
    assert answers.asked == ["plugin", "x :0"]


def test_what_cannot_be_asked_is_not_held_against_the_display():
    # No libxcb to ask with (the plugin's check speaks for it where there is one).
    assert display_unusable("linux", {"DISPLAY": ":0"}, Answers(x=None)) is None


def test_a_plugin_path_of_the_users_own_is_not_second_guessed():
    answers = Answers(plugin=DLERROR)
    assert (
        display_unusable("linux", {"DISPLAY": ":0", "QT_QPA_PLATFORM_PLUGIN_PATH": "/opt/qt"}, answers)
        is None
    )
    assert answers.asked == ["x :0"]


RUN = "/run/user/1000"


@pytest.mark.parametrize(
    ("environ", "asked"),
    [
        # Qt 6.11 without QT_QPA_PLATFORM: xcb alone, unless Wayland is named or the session's.
        ({"DISPLAY": ":0"}, ["plugin", "x :0"]),
        ({"DISPLAY": ":0", "XDG_SESSION_TYPE": "x11"}, ["plugin", "x :0"]),
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1"}, [f"wayland {RUN}/wayland-1", "plugin", "x :0"]),
        ({"DISPLAY": ":0", "XDG_SESSION_TYPE": "wayland"}, [f"wayland {RUN}/wayland-0", "plugin", "x :0"]),
        # QT_QPA_PLATFORM decides, in its order, options and variants aside.
        ({"DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1", "QT_QPA_PLATFORM": "xcb"}, ["plugin", "x :0"]),
        (
            {"DISPLAY": ":0", "WAYLAND_DISPLAY": "w", "QT_QPA_PLATFORM": "xcb:nomitshm;wayland-egl"},
            ["plugin", "x :0", f"wayland {RUN}/w"],
        ),
        ({"WAYLAND_DISPLAY": "/tmp/compositor", "QT_QPA_PLATFORM": "wayland"}, ["wayland /tmp/compositor"]),
    ],
)
def test_the_platforms_qt_would_try_are_asked_in_its_order(environ: dict[str, str], asked: list[str]):
    answers = Answers(x=1)
    display_unusable("linux", {"XDG_RUNTIME_DIR": RUN, **environ}, answers)
    assert answers.asked == asked


def test_one_platform_that_works_is_enough():
    environ = {"XDG_RUNTIME_DIR": RUN, "DISPLAY": ":0", "WAYLAND_DISPLAY": "wayland-1"}
    # Wayland answers: X is not asked.
    answers = Answers(x=1, wayland={f"{RUN}/wayland-1": None})
    assert display_unusable("linux", environ, answers) is None
    assert answers.asked == [f"wayland {RUN}/wayland-1"]
    # Wayland does not, X does: Qt falls back to it.
    assert display_unusable("linux", environ, Answers(x=0)) is None
    # A platform that needs no display server comes after a failing one.
    assert (
        display_unusable("linux", {"DISPLAY": ":0", "QT_QPA_PLATFORM": "xcb;offscreen"}, Answers(x=1)) is None
    )


def test_both_failing_are_both_named_in_one_line():
    environ = {"XDG_RUNTIME_DIR": RUN, "DISPLAY": ":99", "WAYLAND_DISPLAY": "wayland-9"}
    why = display_unusable("linux", environ, Answers(x=1))
    assert why == (
        f"the Wayland display wayland-9 does not answer (WAYLAND_DISPLAY=wayland-9; {RUN}/wayland-9: "
        "No such file or directory) and the X display :99 does not answer or refused the connection "
        "(DISPLAY=:99): start the wizard in a desktop session or under a virtual one (xvfb-run "
        "gpuwizard), set QT_QPA_PLATFORM=offscreen to run it unseen, or use the headless commands "
        "(gpuwizard --help)"
    )


def test_wayland_tried_without_being_named_is_not_blamed():
    # XDG_SESSION_TYPE=wayland makes Qt try libwayland's default socket first; it failing is
    # no news to the user, who set only DISPLAY.
    why = display_unusable(
        "linux", {"XDG_RUNTIME_DIR": RUN, "DISPLAY": ":99", "XDG_SESSION_TYPE": "wayland"}, Answers(x=1)
    )
    assert why is not None and why.startswith("the X display :99 does not answer") and "Wayland" not in why


def test_a_wayland_display_named_without_a_runtime_folder():
    answers = Answers()
    why = display_unusable("linux", {"WAYLAND_DISPLAY": "wayland-0"}, answers)
    assert why is not None
    assert why.startswith("the Wayland display wayland-0 cannot be found (XDG_RUNTIME_DIR is not set): ")
    assert answers.asked == []


@pytest.mark.parametrize(
    "environ",
    [
        {"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":99"},
        {"QT_QPA_PLATFORM": "minimal"},
        {},  # no display named: no_display's to say
        {"QT_QPA_PLATFORM": "xcb"},
    ],
)
def test_nothing_to_probe(environ: dict[str, str]):
    answers = Answers(plugin=DLERROR, x=1)
    assert display_unusable("linux", environ, answers) is None
    assert answers.asked == []


@pytest.mark.parametrize("platform", ["win32", "darwin", "cygwin"])
def test_windows_and_macos_are_not_probed(platform: str):
    answers = Answers(plugin=DLERROR, x=1)
    assert display_unusable(platform, {"DISPLAY": ":99"}, answers) is None
    assert answers.asked == []


# --- the real probes, on this machine ---------------------------------------------------------


def unused_display() -> str:
    """An X display number no server has here (neither its socket file nor an abstract socket)."""
    sockets = Path("/proc/net/unix").read_text(errors="replace") if Path("/proc/net/unix").exists() else ""
    for number in range(4711, 4811):
        if f"X11-unix/X{number}" not in sockets and not Path(f"/tmp/.X11-unix/X{number}").exists():
            return f":{number}"
    pytest.fail("no unused X display number in 4711-4810")


NO_PLUGIN_CHECK = Path("/nonexistent/libqxcb.so")


@linux_only
def test_an_x_display_with_no_server_does_not_answer_for_real():
    display = unused_display()
    probes = SystemDisplay(NO_PLUGIN_CHECK)
    assert probes.x_display_error(display) == 1  # XCB_CONN_ERROR
    why = display_unusable("linux", {"DISPLAY": display}, probes)
    assert why is not None
    assert why.startswith(
        f"the X display {display} does not answer or refused the connection (DISPLAY={display}): "
    )


@linux_only
def test_a_display_name_libxcb_cannot_read_for_real():
    assert SystemDisplay(NO_PLUGIN_CHECK).x_display_error("no-colon-here") == 5  # XCB_CONN_CLOSED_PARSE_ERR


@pytest.fixture
def xvfb(tmp_path: Path) -> Iterator[str]:
    """An Xvfb of its own, resetting whenever its last client leaves as xvfb-run's does."""
    if shutil.which("Xvfb") is None:
        pytest.skip("Xvfb is not installed (Debian package xvfb)")
    ready, told = os.pipe()
    with (tmp_path / "Xvfb.log").open("wb") as log:
        # -displayfd: Xvfb picks a free display and writes its number there once it accepts clients.
        server = subprocess.Popen(
            ["Xvfb", "-displayfd", str(told), "-screen", "0", "640x480x24", "-nolisten", "tcp"],
            pass_fds=(told,), stdin=subprocess.DEVNULL, stdout=log, stderr=log,
        )  # fmt: skip
    os.close(told)
    try:
        number = b""
        while not number.endswith(b"\n"):
            readable, _, _ = select.select([ready], [], [], EVENT_S)
            chunk = os.read(ready, 64) if readable else b""
            assert chunk, f"Xvfb did not start: {(tmp_path / 'Xvfb.log').read_text(errors='replace')}"
            number += chunk
        yield f":{number.decode().strip()}"
    finally:
        os.close(ready)
        server.terminate()
        server.wait(timeout=EVENT_S)


@linux_only
def test_a_real_x_server_answers_and_its_screens_are_counted(xvfb: str):
    probes = SystemDisplay(NO_PLUGIN_CHECK)
    assert probes.x_display_error(xvfb) == 0
    assert probes.x_display_error(f"{xvfb}.0") == 0
    assert probes.x_display_error(f"{xvfb}.5") == 6  # libxcb connects; Qt would refuse the screen
    assert display_unusable("linux", {"DISPLAY": xvfb}, probes) is None


@linux_only
def test_the_check_does_not_leave_the_x_server_to_reset(xvfb: str):
    # An X server resets when its last client leaves, and Qt's connection, made next, would wait
    # out the reset or be refused. A root window property is lost in a reset: it survives only
    # if the check's own connection is still there when xprop leaves.
    if shutil.which("xprop") is None:
        pytest.skip("xprop is not installed (Debian package x11-utils)")
    env = {**os.environ, "DISPLAY": xvfb}

    def xprop(*args: str) -> str:
        done = subprocess.run(
            ["xprop", "-root", *args], env=env, capture_output=True, text=True, timeout=EVENT_S, check=False
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    probes = SystemDisplay(NO_PLUGIN_CHECK)
    assert probes.x_display_error(xvfb) == 0
    xprop("-f", "GPUWIZARD_TEST", "8s", "-set", "GPUWIZARD_TEST", "kept")
    assert probes.x_display_error(xvfb) == 0  # a second check replaces the first connection
    assert '"kept"' in xprop("GPUWIZARD_TEST")


@linux_only
def test_a_plugin_that_is_no_library_for_real(tmp_path: Path):
    plugin = tmp_path / "libqxcb.so"
    plugin.write_text("not a shared library\n")
    probes = SystemDisplay(plugin)
    error = probes.xcb_plugin_error()
    assert error is not None and str(plugin) in error
    why = display_unusable("linux", {"DISPLAY": ":0"}, probes)
    assert why is not None and why.startswith(f"Qt's X11 platform plugin cannot load: {error}")


@linux_only
def test_a_plugin_that_misses_a_library_for_real(tmp_path: Path):
    # A plugin linked against a library that is then taken away: what the loader says for
    # libxcb-icccm.so.4 on a machine without it, made real on any machine with a C compiler.
    compiler = shutil.which("cc") or shutil.which("gcc")
    if compiler is None:
        pytest.skip("no C compiler to build a plugin with a missing library")
    (tmp_path / "gone.c").write_text("int gone(void) { return 1; }\n")
    (tmp_path / "plugin.c").write_text("int gone(void);\nint plugin(void) { return gone(); }\n")
    gone = tmp_path / "libgpuwizard-gone.so.7"

    def cc(*args: str) -> None:
        done = subprocess.run(
            [compiler, *args], cwd=tmp_path, capture_output=True, text=True, timeout=EVENT_S, check=False
        )
        assert done.returncode == 0, done.stderr

    cc("-shared", "-fPIC", "-Wl,-soname,libgpuwizard-gone.so.7", "-o", gone.name, "gone.c")
    cc("-shared", "-fPIC", "-o", "libqxcb.so", "plugin.c", gone.name)
    gone.unlink()
    why = display_unusable("linux", {"DISPLAY": ":0"}, SystemDisplay(tmp_path / "libqxcb.so"))
    assert why is not None
    assert why.startswith(
        "Qt's X11 platform plugin cannot load: libgpuwizard-gone.so.7 is missing (DISPLAY=:0): "
    )


@linux_only
def test_no_plugin_file_is_no_plugin_check(tmp_path: Path):
    assert SystemDisplay(tmp_path / "libqxcb.so").xcb_plugin_error() is None


@linux_only
def test_pysides_own_plugin_loads_or_names_what_it_misses():
    # Whichever this machine has: the real plugin of the test venv, found without importing Qt.
    error = SystemDisplay().xcb_plugin_error()
    if error is not None:
        why = display_unusable("linux", {"DISPLAY": ":0"}, SystemDisplay())
        assert why is not None and why.startswith("Qt's X11 platform plugin cannot load: ")
        assert "cannot open shared object file" in error, error


@pytest.fixture
def compositor(tmp_path: Path) -> Iterator[Path]:
    """A Unix socket that accepts connections, where a Wayland compositor's would be."""
    path = tmp_path / "wayland-test"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(path))
        server.listen(4)
        yield path


@linux_only
def test_a_wayland_socket_that_accepts_for_real(compositor: Path):
    probes = SystemDisplay(NO_PLUGIN_CHECK)
    assert probes.wayland_error(str(compositor)) is None
    environ = {"XDG_RUNTIME_DIR": str(compositor.parent), "WAYLAND_DISPLAY": compositor.name}
    assert display_unusable("linux", environ, probes) is None
    assert display_unusable("linux", {"WAYLAND_DISPLAY": str(compositor)}, probes) is None


@linux_only
def test_a_wayland_socket_nobody_serves_for_real(tmp_path: Path):
    probes = SystemDisplay(NO_PLUGIN_CHECK)
    assert probes.wayland_error(str(tmp_path / "wayland-9")) == "No such file or directory"
    left = tmp_path / "wayland-left"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(left))  # a compositor gone, its socket file left behind
    assert probes.wayland_error(str(left)) == "Connection refused"
    why = display_unusable(
        "linux", {"XDG_RUNTIME_DIR": str(tmp_path), "WAYLAND_DISPLAY": "wayland-left"}, probes
    )
    assert why is not None
    assert why.startswith(
        f"the Wayland display wayland-left does not answer (WAYLAND_DISPLAY=wayland-left; {left}: Connection refused): "
    )


# --- the command, end to end ------------------------------------------------------------------


def run_wizard(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {name: value for name, value in os.environ.items() if name not in DISPLAY_VARIABLES}
    return subprocess.run(
        [ENTRY_POINT, "--system", SAMPLE],
        capture_output=True,
        text=True,
        env={**base, **env},
        timeout=EVENT_S,
        check=False,
    )


def one_line_exit_2(done: subprocess.CompletedProcess[str]) -> str:
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr  # nothing from Qt: it never started
    assert lines[0].startswith("gpuwizard: error: ")
    return lines[0]


@pytest.mark.slow
@linux_only
def test_the_wizard_on_an_x_display_with_no_server_says_so_in_one_line_and_exits_2():
    display = unused_display()
    line = one_line_exit_2(run_wizard({"DISPLAY": display}))
    # Where Qt's X11 plugin loads, the display is the cause; where it does not (this project's
    # test machine), the missing library is, as it would be on any display.
    causes = (f"the X display {display} does not answer", "Qt's X11 platform plugin cannot load: ")
    assert line.startswith(tuple(f"gpuwizard: error: {cause}" for cause in causes)), line
    assert f"(DISPLAY={display})" in line


@pytest.mark.slow
@linux_only
def test_the_wizard_on_a_wayland_display_with_no_compositor_says_so_in_one_line_and_exits_2(tmp_path: Path):
    line = one_line_exit_2(run_wizard({"XDG_RUNTIME_DIR": str(tmp_path), "WAYLAND_DISPLAY": "wayland-9"}))
    assert line.startswith(
        f"gpuwizard: error: the Wayland display wayland-9 does not answer (WAYLAND_DISPLAY=wayland-9; "
        f"{tmp_path}/wayland-9: No such file or directory): "
    ), line


@pytest.mark.slow
@linux_only
def test_the_wizard_under_xvfb_without_qts_x11_libraries(xvfb: str):
    # The outside check's `xvfb-run gpuwizard`: a real X server, a plugin that cannot load.
    if SystemDisplay().xcb_plugin_error() is None:
        pytest.skip("Qt's X11 plugin loads here: the wizard would open")
    line = one_line_exit_2(run_wizard({"DISPLAY": xvfb}))
    assert line.startswith("gpuwizard: error: Qt's X11 platform plugin cannot load: "), line
    assert " is missing " in line and "sudo apt-get install " in line


@pytest.mark.slow
@linux_only
def test_qt_is_never_loaded_for_a_display_that_does_not_answer():
    probe = (
        "import sys\n"
        "from gpuwizard.cli.main import main\n"
        "code = main(['--system', sys.argv[1]])\n"
        "print('PySide6' in sys.modules)\n"
        "sys.exit(code)\n"
    )
    base = {name: value for name, value in os.environ.items() if name not in DISPLAY_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-c", probe, SAMPLE],
        capture_output=True,
        text=True,
        env={**base, "DISPLAY": unused_display()},
        timeout=EVENT_S,
        check=False,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout.strip() == "False"
