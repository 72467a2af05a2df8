"""``installer/build.py`` without building: bad input, the Wine build's pins, the icon, the version.

The build itself (PyInstaller under Wine, makensis) is exercised by test_windows_installer.py.
"""

from __future__ import annotations

import importlib.util
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
