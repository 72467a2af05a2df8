"""Three languages and two palettes: translations complete and current, pages rendered in each.

The pages are rendered by the real ``gpuwizard screenshots`` in a child process per language
(a translator is process-wide), from one saved report, so the pictures differ only by language.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path

import pytest
from PySide6.QtGui import QColor, QFont, QFontDatabase, QFontMetrics, QGuiApplication, QImage, QPalette
from PySide6.QtWidgets import QApplication, QLabel

from gpuwizard.ui.theme import dark_palette, status_color
from harness.contrast import contrast

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))
import translations  # noqa: E402 - the repository's own tool, beside the sources

SAMPLE = str(resources.files("gpuwizard.resources").joinpath("samples/linux-h200.json"))
PAGES = ["welcome", "verify", "detect", "choose", "path", "install", "test", "summary"]
PLACEHOLDER = re.compile(r"%\d+|%[nvmp]|\{[a-z_]+\}")
MNEMONIC = re.compile(r"&(?![a-zA-Z]+;)[^\s&]")


def render(folder: Path, *extra: str) -> dict[str, QImage]:
    done = subprocess.run(
        [sys.executable, "-m", "gpuwizard", "screenshots", str(folder), "--system", SAMPLE, *extra],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    images = {path.stem.split("-", 1)[1]: QImage(str(path)) for path in sorted(folder.glob("*.png"))}
    assert list(images) == PAGES
    return images


@pytest.fixture(scope="module")
def shots(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, QImage]]:
    folder = Path(os.environ.get("GPUWIZARD_TEST_SHOTS", str(tmp_path_factory.mktemp("shots"))))
    return {lang: render(folder / lang, "--lang", lang) for lang in ("en", "es", "zh_CN")}


def test_every_page_renders_in_every_language_and_differs_between_them(shots: dict[str, dict[str, QImage]]):
    for page in PAGES:
        english, spanish, chinese = (shots[lang][page] for lang in ("en", "es", "zh_CN"))
        assert english.size() == spanish.size() == chinese.size()
        assert english != spanish, f"{page}: the Spanish page looks like the English one"
        assert english != chinese, f"{page}: the Chinese page looks like the English one"
        assert spanish != chinese


def test_a_chinese_font_covers_every_character_of_the_translation(qapp: QApplication):
    # Without a CJK font, Qt draws every Chinese character as an empty box.
    families = QFontDatabase.families(QFontDatabase.WritingSystem.SimplifiedChinese)
    if not families:
        if os.environ.get("CI") == "true":
            pytest.fail("no font for Simplified Chinese: install fonts-noto-cjk")
        pytest.skip("no font for Simplified Chinese here (fonts-noto-cjk)")
    used = {
        char
        for _context, message in translations.messages(translations.ts_path("zh_CN"))
        for text in [
            message.findtext("translation") or "",
            *(f.text or "" for f in message.iter("numerusform")),
        ]
        for char in text
        if "\u3000" <= char <= "\u9fff" or "\uff00" <= char <= "\uffef"
    }
    assert len(used) > 300
    metrics = QFontMetrics(QFont(families[0]))
    assert sorted(char for char in used if not metrics.inFontUcs4(ord(char))) == []


@pytest.mark.parametrize("lang", translations.LANGUAGES)
def test_the_translation_is_complete_and_current_with_the_sources(lang: str):
    assert translations.problems(lang) == []


@pytest.mark.parametrize("lang", translations.LANGUAGES)
def test_the_compiled_translation_is_the_one_its_source_gives(lang: str, tmp_path: Path):
    translations.release(out=tmp_path)
    shipped = translations.TRANSLATIONS / f"gpuwizard_{lang}.qm"
    assert (tmp_path / shipped.name).read_bytes() == shipped.read_bytes(), (
        "run: python tools/translations.py release"
    )


@pytest.mark.parametrize("lang", translations.LANGUAGES)
def test_translations_keep_placeholders_markup_and_mnemonics(lang: str):
    for context, message in translations.messages(translations.ts_path(lang)):
        source = message.findtext("source", "")
        translation = message.find("translation")
        assert translation is not None
        forms = [form.text or "" for form in translation.iter("numerusform")] or [translation.text or ""]
        for text in forms:
            where = f"{lang} [{context}] {source!r} -> {text!r}"
            assert sorted(PLACEHOLDER.findall(text)) == sorted(PLACEHOLDER.findall(source)), where
            assert sorted(re.findall(r"</?[a-z]+", text)) == sorted(re.findall(r"</?[a-z]+", source)), where
            assert len(MNEMONIC.findall(text)) == len(MNEMONIC.findall(source)), where


def test_the_translations_are_shipped_as_package_data():
    folder = resources.files("gpuwizard.resources").joinpath("translations")
    names = {entry.name for entry in folder.iterdir()}
    assert {"gpuwizard_es.qm", "gpuwizard_zh_CN.qm", "gpuwizard_es.ts", "gpuwizard_zh_CN.ts"} <= names
    root = ET.parse(str(folder.joinpath("gpuwizard_zh_CN.ts"))).getroot()  # noqa: S314 - our file
    assert root.get("language") == "zh_CN"


def test_the_wizard_follows_lang_and_qt_buttons_are_translated_too():
    code = """
import sys
from gpuwizard.ui.app import make_application
app = make_application(sys.argv[1])
from gpuwizard.ui.wizard import SetupWizard
from gpuwizard.workflow.wizard.session import WizardSession
from gpuwizard.workflow.machine.system_file import load_system_report
from pathlib import Path
from PySide6.QtWidgets import QWizard
wizard = SetupWizard(WizardSession(report=load_system_report(Path(sys.argv[2]))))
print(wizard.windowTitle())
print(wizard.welcome_page.title())
print(wizard.buttonText(QWizard.WizardButton.CancelButton))
"""
    seen = {}
    for lang in ("en", "es", "zh_CN"):
        done = subprocess.run(
            [sys.executable, "-c", code, lang, SAMPLE],
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
            check=False,
        )
        assert done.returncode == 0, done.stderr
        seen[lang] = done.stdout.splitlines()
    assert seen["en"] == ["GPU Setup Wizard", "Set up your GPU for deep learning", "Cancel"]
    assert seen["es"][0] != seen["en"][0] and seen["es"][2] == "Cancelar"
    assert seen["zh_CN"][2] == "取消"
    assert re.search(r"[\u4e00-\u9fff]", seen["zh_CN"][1])


# --- palettes --------------------------------------------------------------------------------


@pytest.mark.parametrize("dark", [False, True], ids=["light", "dark"])
def test_status_colours_read_on_their_palette(qapp: QApplication, dark: bool):
    label = QLabel()
    palette = dark_palette() if dark else QGuiApplication.palette()
    if not dark:
        palette.setColor(QPalette.ColorRole.Base, QColor("#ffffff"))
        palette.setColor(QPalette.ColorRole.Window, QColor("#efefef"))
    label.setPalette(palette)
    background = palette.color(QPalette.ColorRole.Window)
    for status in ("good", "warn", "bad", "info", "muted"):
        assert contrast(status_color(status, label), background) >= 4.5, status  # WCAG 2.1 AA


def test_the_dark_theme_renders_dark_pages(tmp_path: Path):
    images = render(tmp_path, "--theme", "dark")
    for page, image in images.items():
        corner = image.pixelColor(image.width() // 2, image.height() - 5)  # the button row
        assert corner.lightnessF() < 0.3, page
    light = render(tmp_path / "light", "--theme", "light")
    assert light["welcome"].pixelColor(10, light["welcome"].height() - 5).lightnessF() > 0.7
