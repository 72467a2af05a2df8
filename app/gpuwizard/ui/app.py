"""The QApplication: high-DPI policy, icon, translations, and the wizard's main loop."""

from __future__ import annotations

import sys
from importlib import resources
from pathlib import Path

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, Qt, QTranslator
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QApplication

from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.icon import application_icon
from gpuwizard.ui.stop_signals import StopSignals
from gpuwizard.ui.theme import Theme, apply_theme
from gpuwizard.ui.wizard import SetupWizard
from gpuwizard.workflow.state.window_geometry import window_geometry_path
from gpuwizard.workflow.wizard.languages import SOURCE_LANGUAGE
from gpuwizard.workflow.wizard.session import session_for_this_machine


def make_application(lang: str | None = None, theme: Theme = "system") -> QApplication:
    """Return the QApplication, creating it with the wizard's settings if needed."""
    existing = QApplication.instance()
    if isinstance(existing, QApplication):
        return existing
    # Fractional scale factors (125 %, 150 %) stay exact instead of being rounded to 100/200 %,
    # so text and icons keep their intended size on laptops. Must be set before the app exists.
    QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
    app = QApplication(sys.argv[:1])
    app.setApplicationName("GPU Setup Wizard")
    app.setOrganizationName("gpuwizard")
    app.setWindowIcon(application_icon())
    apply_theme(app, theme)
    install_translator(app, lang)
    name_the_application(app)
    return app


def name_the_application(app: QApplication) -> None:
    """Give the application its display name in the wizard's language (after the translators).

    Qt appends the display name to every window title that does not end with it already
    (``QPlatformWindow::formatWindowTitle`` in qtbase, used by the xcb, Wayland and Windows
    platforms), dialogs and message boxes included; an English name there put
    "GPU Setup Wizard" after every Spanish and Chinese title. The wizard's own title is the
    same text, so its window shows the name once.
    """
    app.setApplicationDisplayName(QCoreApplication.translate("SetupWizard", "GPU Setup Wizard"))


def install_translator(app: QApplication, lang: str | None) -> bool:
    """Load the wizard's translation for ``lang`` (or the system locale), else its English one.

    English is the sources' language, but it has a translation too, holding only the texts with
    a count: Qt chooses between "1 thing" and "2 things" only from a loaded translation, and
    without one shows the source, "%n thing(s)" (Qt documentation, "Writing Source Code for
    Translation", "Handling Plurals"). So where no translation matches the locale, the English
    one is loaded, and the wizard speaks English with its plurals right.

    Qt's own texts (the wizard's Back, Next, Cancel and Finish buttons, standard dialogs) come
    from Qt's ``qtbase`` translation of the language that was loaded (PySide6 ships them), so
    buttons and pages always speak one language.
    Returns True when a translation for the locale was found, False when English stood in.
    """
    locale = QLocale(lang) if lang else QLocale.system()
    QLocale.setDefault(locale)  # numbers and dates in the same language as the words
    translator = QTranslator(app)
    folder = str(resources.files("gpuwizard.resources").joinpath("translations"))
    found = translator.load(locale, "gpuwizard", "_", folder)
    if not found and not translator.load(f"gpuwizard_{SOURCE_LANGUAGE}", folder):
        return False
    app.installTranslator(translator)
    qt_texts = QTranslator(app)
    qt_folder = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    if qt_texts.load(f"qtbase_{translator.language() or SOURCE_LANGUAGE}", qt_folder):
        app.installTranslator(qt_texts)
    return found


def run_wizard(
    report: SystemReport | None, system_file: Path | None, lang: str | None, theme: Theme = "system"
) -> int:
    """Open the wizard and run until it closes; returns the exit code.

    Raises:
        KeyboardInterrupt: Ctrl+C or SIGTERM closed the wizard (as its Close button does:
            ``ui/stop_signals.py``); the command line exits 130, cancelled.
    """
    # The signals are caught before Qt starts, so none that comes while the window is being
    # built is lost or kills the process.
    with StopSignals() as stops:
        app = make_application(lang, theme)
        session = session_for_this_machine(report, system_file)
        wizard = SetupWizard(session, geometry_file=window_geometry_path())
        return stops.run(app, wizard)
