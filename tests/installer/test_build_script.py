"""``installer/build.py`` without building: bad input, the Wine build's pins, the icon, the version.

The build itself (PyInstaller under Wine, makensis) is exercised by test_windows_installer.py.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import re
import struct
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

# With pytest-xdist (-n), the installer is built once, on one worker: its tests stay together.
pytestmark = pytest.mark.xdist_group("installer")

REPO = Path(__file__).resolve().parents[2]
BUILD = REPO / "installer" / "build.py"


@pytest.fixture(scope="module")
def build() -> ModuleType:
    """installer/build.py as a module (it is a script, not part of the package)."""
    spec = importlib.util.spec_from_file_location("gpuwizard_installer_build", BUILD)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_out_naming_a_file_is_bad_input_and_nothing_is_built(tmp_path: Path):
    out = tmp_path / "setup.exe"
    out.write_bytes(b"not a folder")
    work = tmp_path / "work"
    done = subprocess.run(
        [sys.executable, str(BUILD), "--out", str(out), "--work", str(work)],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [f"build.py: error: --out {out}: exists and is not a folder"]
    assert out.read_bytes() == b"not a folder"
    assert not work.exists()


def test_the_wine_pins_satisfy_every_windows_dependency_of_pyproject(build: ModuleType):
    build.check_wine_pins(build.WINE_REQUIREMENTS, REPO / "pyproject.toml")


def pyproject_with(tmp_path: Path, dependency: str) -> Path:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    changed = text.replace("dependencies = [\n", f"dependencies = [\n    {dependency!r},\n", 1)
    assert changed != text
    path = tmp_path / "pyproject.toml"
    path.write_text(changed, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("dependency", "problem"),
    [
        ("requests>=99", "pins 2."),  # pinned, but not a version pyproject accepts
        ("colorama>=0.4; sys_platform == 'win32'", "does not pin it"),  # missing, needed on Windows
    ],
)
def test_a_pyproject_dependency_the_pins_miss_is_refused(
    build: ModuleType, tmp_path: Path, dependency, problem
):
    with pytest.raises(build.UsageError, match=problem) as refused:
        build.check_wine_pins(build.WINE_REQUIREMENTS, pyproject_with(tmp_path, dependency))
    assert dependency in str(refused.value)


def test_a_dependency_for_other_systems_needs_no_pin(build: ModuleType, tmp_path: Path):
    build.check_wine_pins(
        build.WINE_REQUIREMENTS, pyproject_with(tmp_path, "pyudev>=0.24; sys_platform == 'linux'")
    )


@pytest.mark.parametrize(
    ("version", "quad"),
    [("0.1.0", "0.1.0.0"), ("2.10", "2.10.0.0"), ("1.2.3.4.5", "1.2.3.4"), ("0.2.0rc1", "0.2.0.0")],
)
def test_the_windows_version_resource_gets_four_numbers(build: ModuleType, version: str, quad: str):
    assert build.version_quad(version) == quad


def test_the_icon_holds_every_size_rendered_from_the_svg(build: ModuleType, tmp_path: Path, qapp):
    from PySide6.QtGui import QImageReader

    icon_sizes = sys.modules[build.write_icon.__module__].ICON_SIZES  # installer/icon.py
    ico = build.write_icon(build.SVG_ICON, tmp_path / "gpuwizard.ico")
    reader = QImageReader(str(ico))
    assert reader.format().data() == b"ico"
    sizes = []
    for index in range(reader.imageCount()):
        reader.jumpToImage(index)
        image = reader.read()
        assert not image.isNull(), reader.errorString()
        # Drawn, not blank: the SVG's board covers the middle of every size.
        assert image.pixelColor(image.width() // 2, image.height() // 2).alpha() > 0
        sizes.append(image.width())
    assert sorted(sizes) == sorted(icon_sizes)


@pytest.mark.parametrize(
    ("has", "missing"),
    [((), "packaging"), (("packaging",), "PySide6")],  # no project packages at all; all but Qt
)
def test_a_python_without_the_projects_packages_gets_one_line_and_exit_2(
    tmp_path: Path, has: tuple[str, ...], missing: str
):
    # -S: no site-packages, as in a Python outside the project's venv; PYTHONPATH brings `has` back.
    site = tmp_path / "site"
    site.mkdir()
    for name in has:
        (site / name).symlink_to(Path(importlib.import_module(name).__file__ or "").parent)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-S", str(BUILD), "--out", str(out), "--work", str(tmp_path / "work")],
        capture_output=True, text=True, timeout=120, check=False, env={**os.environ, "PYTHONPATH": str(site)},
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("build.py: error: ") and missing in line
    assert "`.venv/bin/python installer/build.py" in line  # what to do instead
    assert not out.exists()


def test_reuse_app_without_an_earlier_build_and_a_bad_version_are_bad_input(
    build: ModuleType, tmp_path: Path
):
    with pytest.raises(build.UsageError, match="holds no earlier build"):
        build.build(tmp_path / "out", tmp_path / "work", tmp_path / "cache", reuse_app=True)
    with pytest.raises(build.UsageError, match="not a version"):
        build.build(tmp_path / "out", tmp_path / "work", tmp_path / "cache", version="next")
    with pytest.raises(build.UsageError, match="give one of them"):
        build.build(tmp_path / "out", tmp_path / "work", tmp_path / "cache", reuse_app=True, app_only=True)
    assert not (tmp_path / "out").exists()


def test_a_sign_command_reaches_makensis_as_one_define(build: ModuleType, tmp_path: Path):
    # The release workflow signs the uninstaller and the installer through it (docs/signing.md).
    sign = 'pwsh -NoProfile -File "C:\\a b\\sign.ps1" "%1"'
    common = {"version": "0.1.0", "icon": tmp_path / "i.ico", "bitmap": tmp_path / "b.bmp"}
    argv = build.makensis_args(
        "makensis",
        tmp_path / "app",
        setup=tmp_path / "s.exe",
        compression="zlib",
        sign_command=sign,
        **common,
    )
    assert f"-DSIGN_COMMAND={sign}" in argv
    assert argv[-1] == str(build.NSIS_SCRIPT)
    unsigned = build.makensis_args(
        "makensis", tmp_path / "app", setup=tmp_path / "s.exe", compression="zlib", **common
    )
    assert not any(arg.startswith("-DSIGN_COMMAND") for arg in unsigned)


def test_a_version_stamped_on_the_staged_package_is_what_it_says(build: ModuleType, tmp_path: Path):
    init = tmp_path / "gpuwizard" / "__init__.py"
    init.parent.mkdir()
    init.write_text('"""The package."""\n\n__version__ = "0.1.0"\n', encoding="utf-8")
    build.stamp_version(init, "0.0.1")
    assert build.staged_version(tmp_path) == "0.0.1"
    assert init.read_text(encoding="utf-8") == '"""The package."""\n\n__version__ = \'0.0.1\'\n'


def test_the_welcome_and_finish_bitmap_is_the_projects_own(build: ModuleType, tmp_path: Path, qapp):
    from PySide6.QtGui import QColor, QImage

    bitmap = build.write_bitmap(build.SVG_ICON, tmp_path / "side.bmp")
    data = bitmap.read_bytes()
    # A BMP that Windows' LoadImage reads: BITMAPINFOHEADER, 164 x 314, 24 bits per pixel.
    assert data[:2] == b"BM"
    assert struct.unpack("<IiiHH", data[14:30]) == (40, 164, 314, 1, 24)
    image = QImage(str(bitmap))
    assert (image.width(), image.height()) == (164, 314)
    # The icon's board blue around it, and the icon drawn on its white tile (not NSIS's stock picture).
    assert image.pixelColor(2, 2).name() == QColor("#2f6f8f").name()
    assert image.pixelColor(82, 50) == QColor("#ffffff")
    assert len({image.pixelColor(x, 110).name() for x in range(30, 134, 4)}) > 3


def test_makensis_is_given_the_bitmap_and_the_compression(build: ModuleType, tmp_path: Path):
    paths = {name: tmp_path / name for name in ("app", "icon.ico", "side.bmp", "setup.exe")}
    argv = build.makensis_args(
        "makensis", paths["app"], version="0.1.0", icon=paths["icon.ico"], bitmap=paths["side.bmp"],
        setup=paths["setup.exe"], compression="zlib",
    )  # fmt: skip
    assert f"-DBITMAP={paths['side.bmp']}" in argv
    assert "-DCOMPRESSION=zlib" in argv
    stored = build.makensis_args(
        "makensis", paths["app"], version="0.1.0", icon=paths["icon.ico"], bitmap=paths["side.bmp"],
        setup=paths["setup.exe"], compression="none",
    )  # fmt: skip
    assert "-DCOMPRESSION=off" in stored  # gpuwizard.nsi: SetCompress off
    assert "-DCOMPRESSION=/SOLID lzma" in build.makensis_args(
        "makensis", paths["app"], version="0.1.0", icon=paths["icon.ico"], bitmap=paths["side.bmp"],
        setup=paths["setup.exe"], compression="lzma",
    )  # fmt: skip
    script = build.NSIS_SCRIPT.read_text(encoding="utf-8")
    assert '!define MUI_WELCOMEFINISHPAGE_BITMAP "${BITMAP}"' in script
    assert '!define MUI_UNWELCOMEFINISHPAGE_BITMAP "${BITMAP}"' in script


def test_removing_the_data_deletes_every_state_file_the_wizard_writes(build: ModuleType):
    """The uninstaller's list of the wizard's files (gpuwizard.nsi) against the modules that write them."""
    from gpuwizard.workflow.health.good_state import SNAPSHOT_NAME
    from gpuwizard.workflow.state import compat_cache, index_cache, resolution_cache
    from gpuwizard.workflow.state.env_registry import REGISTRY_NAME
    from gpuwizard.workflow.state.home import wizard_home
    from gpuwizard.workflow.state.last_tests import LAST_TESTS_NAME
    from gpuwizard.workflow.state.path_journal import JOURNAL_NAME
    from gpuwizard.workflow.state.window_geometry import WINDOW_NAME

    script = build.NSIS_SCRIPT.read_text(encoding="utf-8")
    listed = {
        (folder.replace("\\", "/"), f"{stem}.{ext}")
        for folder, stem, ext in re.findall(r'DELETE_STATE_FILE "\$Home([^"]*)" "([^"]+)" "([^"]+)"', script)
    }
    home = wizard_home()
    written = [
        home / name for name in (REGISTRY_NAME, SNAPSHOT_NAME, LAST_TESTS_NAME, JOURNAL_NAME, WINDOW_NAME)
    ] + [
        index_cache.index_path(),
        resolution_cache.cache_path(),
        compat_cache.cache_dir() / compat_cache.BUNDLE_FILE,
        compat_cache.cache_dir() / compat_cache.META_FILE,
    ]
    for path in written:
        relative = path.relative_to(home)
        folder = "" if relative.parent == Path() else "/" + relative.parent.as_posix()
        assert (folder, relative.name) in listed, f"the uninstaller does not remove {relative}"
    assert f'Delete "$Home\\cache\\compat\\{compat_cache.SIGNATURE_FILE}"' in script
