"""The two questions around the step that changes the machine (issue 20, point 2).

:class:`InstallQuestion` comes when the person presses Install (the Next button of the last page
before the Install page): what will be downloaded, from where, how much disk it takes and what
is written, from :class:`~gpuwizard.workflow.wizard.install_summary.InstallSummary`. Its default
button installs; Escape backs out and nothing happens.

:class:`StopQuestion` comes when the window would be closed while the install runs (Cancel,
Escape, the window's close button), and when the Install page's own "Cancel installation" is
pressed (:func:`ask_before_stopping`): stopping throws away what was downloaded and made, so the
default button keeps installing.

Both are window-modal message boxes opened with ``open()``, not ``exec()``: the wizard's event
loop keeps running (its workers report on), and the wizard acts on ``finished``.
"""

from __future__ import annotations

from collections.abc import Callable
from html import escape

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QMessageBox, QPushButton, QWidget

from gpuwizard.core.compat.wsl_route import WslRoute
from gpuwizard.core.envs.package_sources import display_url
from gpuwizard.ui.messages import change_html
from gpuwizard.workflow.wizard.install_summary import DEFAULT_INDEX, InstallSummary


def _size(size: int) -> str:
    """``1.9 GB`` in the interface's language (decimal units, as the disk-space check counts them)."""
    return QLocale().formattedDataSize(size, 1, QLocale.DataSizeFormat.DataSizeSIFormat)


class InstallQuestion(QMessageBox):
    """The question before installing, with what it downloads and writes; Install is the default."""

    def __init__(
        self, summary: InstallSummary, parent: QWidget | None = None, *, sources_ok: bool | None = True
    ) -> None:
        """``sources_ok``: what the Choose page's check of the indexes found (None: still asking)."""
        super().__init__(parent)
        self.summary = summary
        self.sources_ok = sources_ok
        self.setObjectName("install_question")
        self.setIcon(QMessageBox.Icon.Question)
        self.setWindowTitle(self.tr("Install"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        # Rich text: the format applies to the informative text too, which lists the details.
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setText(self.tr("Create the environment %1 now?").replace("%1", escape(summary.name)))
        # Wide enough that the folders and URLs are not broken onto many short lines.
        self.setStyleSheet("QLabel#qt_msgbox_informativelabel { min-width: 34em; }")
        self.setInformativeText(self.details_html())
        self.install_button: QPushButton = self.addButton(
            self.tr("&Install"), QMessageBox.ButtonRole.AcceptRole
        )
        self.install_button.setObjectName("install_question_install")
        self.back_button: QPushButton = self.addButton(self.tr("&Go back"), QMessageBox.ButtonRole.RejectRole)
        self.back_button.setObjectName("install_question_back")
        self.back_button.setToolTip(
            self.tr("Nothing is downloaded or written; the choices stay as they are.")
        )
        self.setDefaultButton(self.install_button)
        self.setEscapeButton(self.back_button)

    def agreed(self) -> bool:
        """True once the person pressed Install."""
        return self.clickedButton() is self.install_button

    def details_html(self) -> str:
        """The summary as HTML: the download and its sources, the disk, what is written."""
        summary = self.summary
        parts: list[str] = []
        if summary.wheel_folder is not None:
            nothing = (
                self.tr("Nothing is downloaded: the packages come only from %1 (%2 of wheels).")
                .replace("%1", f"<code>{escape(str(summary.wheel_folder))}</code>")
                .replace("%2", _size(summary.wheel_bytes or 0))
            )
            parts.append(f"<p>{nothing}</p>")
        elif summary.download_bytes is not None:
            sources = "".join(
                f"<li><code>{escape(self._source(source))}</code></li>" for source in summary.sources
            )
            download = self.tr("About %1 is downloaded (an estimate), from:").replace(
                "%1", _size(summary.download_bytes)
            )
            parts.append(f"<p>{download}</p><ul>{sources}</ul>")
            if self.sources_ok is False:
                warning = self.tr(
                    "An index did not answer when the Choose page checked it: the install will "
                    "probably fail. Go back to see why and the ways forward."
                )
                parts.append(f"<p><b>{warning}</b></p>")
            elif self.sources_ok is None:
                checking = self.tr("The indexes are still being checked.")
                parts.append(f"<p>{checking}</p>")
            parts += self._python_html()
        disk = self.tr("The environment needs about %1 of free disk.").replace(
            "%1", _size(summary.disk_bytes)
        )
        changes = "".join(f"<li>{change_html(change)}</li>" for change in summary.changes)
        what = self.tr("What changes on this machine:")
        parts.append(f"<p>{disk}</p><p>{what}</p><ul>{changes}</ul>")
        stop = self.tr("You can stop it while it runs: what was made is then removed.")
        parts.append(f"<p>{stop}</p>")
        return "".join(parts)

    def _python_html(self) -> list[str]:
        """The Python build uv downloads (none of the plan's is installed here), and from where."""
        download = self.summary.python_download
        if download is None or download.local:
            return []
        places = [f"<li><code>{escape(download.shown)}</code></li>"]
        if download.fallback_url:
            fallback = self.tr("%1 (GitHub's copy, if the first does not answer)").replace(
                "%1", f"<code>{escape(display_url(download.fallback_url))}</code>"
            )
            places.append(f"<li>{fallback}</li>")
        said = self.tr("No Python %1 is installed here, so uv downloads one too, from:").replace(
            "%1", escape(download.python)
        )
        asked = self.tr("It is asked first when the install starts: if it does not answer, nothing is made.")
        return [f"<p>{said}</p><ul>{''.join(places)}</ul><p>{asked}</p>"]

    def _source(self, source: str) -> str:
        if source == DEFAULT_INDEX:
            return self.tr("%1 (PyPI)").replace("%1", source)
        return source


class StopQuestion(QMessageBox):
    """The question before stopping a running install; Keep installing is the default and Escape's answer."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("stop_install_question")
        self.setIcon(QMessageBox.Icon.Warning)
        self.setWindowTitle(self.tr("Stop the install"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setText(self.tr("Stop the install?"))
        self.setInformativeText(self.tr("What was downloaded and made so far is removed."))
        self.stop_button: QPushButton = self.addButton(
            self.tr("&Stop"), QMessageBox.ButtonRole.DestructiveRole
        )
        self.stop_button.setObjectName("stop_install_stop")
        self.keep_button: QPushButton = self.addButton(
            self.tr("&Keep installing"), QMessageBox.ButtonRole.RejectRole
        )
        self.keep_button.setObjectName("stop_install_keep")
        self.setDefaultButton(self.keep_button)
        self.setEscapeButton(self.keep_button)

    def agreed(self) -> bool:
        """True once the person pressed Stop."""
        return self.clickedButton() is self.stop_button


def ask_before_stopping(parent: QWidget, answered: Callable[[bool], None]) -> StopQuestion:
    """Open the stop question over ``parent``; ``answered(True)`` once the person pressed Stop.

    Any other end (Keep installing, Escape, the question closed because the install ended
    meanwhile) answers False.
    """
    question = StopQuestion(parent)

    def finished(_result: int) -> None:
        question.deleteLater()
        answered(question.agreed())

    question.finished.connect(finished)
    question.open()
    return question


class WindowsStepQuestion(QMessageBox):
    """Before the WSL 2 route's Windows step: what runs, as whom, what it downloads; No is the default."""

    def __init__(self, route: WslRoute, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("wsl_step_question")
        self.setIcon(QMessageBox.Icon.Question)
        self.setWindowTitle(self.tr("Make WSL ready"))
        self.setWindowModality(Qt.WindowModality.WindowModal)
        command = " ; ".join(route.windows_commands)
        if route.administrator:
            self.setText(self.tr("Run %1 as administrator now?").replace("%1", command))
            self.setInformativeText(
                self.tr(
                    "Windows asks for the administrator first. It downloads WSL and %1; %1 then asks for a Linux "
                    "user name and password in its window, and Windows may ask to restart: then open the wizard "
                    "again and install the same plan."
                ).replace("%1", route.distro)
            )
        else:
            self.setText(self.tr("Run %1 now?").replace("%1", command))
            self.setInformativeText(
                self.tr(
                    "It runs in a window of its own: answer it there if it asks (a new distribution asks for a "
                    "Linux user name and password). Then the environment is made."
                )
            )
        self.run_button: QPushButton = self.addButton(self.tr("&Run it"), QMessageBox.ButtonRole.AcceptRole)
        self.run_button.setObjectName("wsl_step_run")
        self.not_now_button: QPushButton = self.addButton(
            self.tr("&Not now"), QMessageBox.ButtonRole.RejectRole
        )
        self.not_now_button.setObjectName("wsl_step_not_now")
        self.setDefaultButton(self.not_now_button)
        self.setEscapeButton(self.not_now_button)

    def agreed(self) -> bool:
        """True once the person pressed Run it."""
        return self.clickedButton() is self.run_button


def ask_windows_step(
    parent: QWidget, route: WslRoute, answered: Callable[[bool], None]
) -> WindowsStepQuestion:
    """Open the question over ``parent``; ``answered(True)`` once the person pressed Run it."""
    question = WindowsStepQuestion(route, parent)

    def finished(_result: int) -> None:
        question.deleteLater()
        answered(question.agreed())

    question.finished.connect(finished)
    question.open()
    return question
