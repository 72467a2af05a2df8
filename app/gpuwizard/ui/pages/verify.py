"""The Verify page: is the setup still as it was when it last worked, and if not, what drifted?

The wizard opens here when it set this machine up before. The session's ``verify`` step (the
same one ``gpuwizard verify`` runs) detects the machine again, checks every environment the
wizard made (interpreter, import, build, pinned build, GPUs seen, a short training test) and
PATH, and compares each with the last good state. It runs on a worker; its typed events
(:mod:`gpuwizard.core.health.events`) arrive through an
:class:`~gpuwizard.ui.event_bridge.EventBridge` and each check becomes a line:
green when as before, amber when changed but working, red when broken, with "before → after"
and the fix: its sentences, and each command on a line of its own, monospaced with a Copy button
(:mod:`gpuwizard.ui.widgets.fix_commands`). "Repair" sets the broken environment up again with
the same choices. "Save a support report…" sits with the page's buttons, above the checks, so a
small window never hides it below them.
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QProgressBar,
    QPushButton,
    QStyle,
    QVBoxLayout,
    QWidget,
    QWizard,
    QWizardPage,
)

from gpuwizard.core.events import Event
from gpuwizard.core.findings.fix_parts import fix_parts
from gpuwizard.core.health.checks import HealthCheck, HealthReport
from gpuwizard.core.health.events import (
    NOTHING_TO_VERIFY,
    VerifyCheck,
    VerifyPhase,
    VerifyResult,
    check_title,
    phase_line,
)
from gpuwizard.core.livetest import verdicts
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.messages import display_text, finding_texts
from gpuwizard.ui.theme import Status, status_style
from gpuwizard.ui.widgets.fix_commands import FixView
from gpuwizard.ui.widgets.labels import headline_label
from gpuwizard.ui.widgets.page_scroll import fill_with_scroll_area
from gpuwizard.ui.widgets.support_report import SupportReportControl
from gpuwizard.ui.workers import StreamedWork
from gpuwizard.workflow.wizard.session import WizardSession
from gpuwizard.workflow.wizard.steps import repair_choice

RUNNING, DONE, IDLE = "running", "done", "idle"

_STATUS_COLOURS: dict[str, Status] = {"ok": "good", "changed": "warn", "broken": "bad", "skipped": "muted"}
_STATUS_ICONS = {
    "ok": QStyle.StandardPixmap.SP_DialogApplyButton,
    "changed": QStyle.StandardPixmap.SP_MessageBoxWarning,
    "broken": QStyle.StandardPixmap.SP_MessageBoxCritical,
    "skipped": QStyle.StandardPixmap.SP_MessageBoxInformation,
}


class QtCheckRow(QFrame):
    """One check: an icon and word for its status, what was checked, before → after, the fix."""

    def __init__(self, check: HealthCheck, title: str, status_word: str, parent: QWidget) -> None:
        super().__init__(parent)
        self.check = check
        status = check.status
        self.setObjectName(f"check_{check.check_id}")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        icon = QLabel(self)
        size = self.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
        icon.setPixmap(
            self.style().standardIcon(_STATUS_ICONS.get(status, _STATUS_ICONS["skipped"])).pixmap(size, size)
        )
        icon.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.title_label = QLabel(f"<b>{escape(title)}</b>", self)
        self.status_label = QLabel(status_word, self)
        self.status_label.setObjectName("check_status")
        self.status_label.setStyleSheet(status_style(_STATUS_COLOURS.get(status, "muted"), self))
        self.change_label = QLabel(self)
        self.change_label.setObjectName("check_change")
        # What the finding means; what to do follows in self.fix, each command on its own line.
        self.fix_label = QLabel(self)
        self.fix_label.setObjectName("check_fix")
        self.fix_label.setTextFormat(Qt.TextFormat.PlainText)
        self.fix_label.hide()
        for label in (self.title_label, self.change_label, self.fix_label):
            label.setWordWrap(True)
            label.setTextInteractionFlags(
                Qt.TextInteractionFlag.TextSelectableByMouse | Qt.TextInteractionFlag.TextSelectableByKeyboard
            )
        self.fix = FixView((), self)
        head = QHBoxLayout()
        head.addWidget(self.title_label, 1)
        head.addWidget(self.status_label)
        text = QVBoxLayout()
        text.setSpacing(2)
        text.addLayout(head)
        text.addWidget(self.change_label)
        text.addWidget(self.fix_label)
        text.addWidget(self.fix)
        self._text_layout = text
        row = QHBoxLayout(self)
        row.addWidget(icon)
        row.addLayout(text, 1)
        self.setAccessibleName(f"{title}: {status_word}")

    def show_change(self, change: str) -> None:
        """Say what changed ("before → after"), or hide the line."""
        self.change_label.setText(change)
        self.change_label.setVisible(bool(change))
        if change:
            self.setAccessibleDescription(change)

    def show_fix(self, message: str, hint: str, params: Mapping[str, str] | None = None) -> None:
        """Say what the finding means and what to do; the commands among ``params`` on lines of their own."""
        self.fix_label.setText(message)
        self.fix_label.setVisible(bool(message))
        fix = FixView(fix_parts(hint, params or {}), self)
        self._text_layout.replaceWidget(self.fix, fix)
        self.fix.deleteLater()
        self.fix = fix
        if message or hint:
            self.setAccessibleDescription(f"{self.accessibleDescription()} {message} {hint}".strip())


class VerifyPage(QWizardPage):
    """Runs the checks on entry and shows a line per check; "Set up again" leads to Detect."""

    # The machine as the verification detected it (the wizard shows it on the Detect page).
    report_detected = Signal(object)
    # The person chose to set up again (from "Repair" or "Set up again").
    set_up_again = Signal()

    def __init__(self, session: WizardSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.setObjectName("verify_page")
        self.setTitle(self.tr("Verify your setup"))
        self.setSubTitle(
            self.tr("Is everything still as it was when it last worked? Driver, GPUs, environments, PATH.")
        )
        self.setFinalPage(True)
        self.setButtonText(QWizard.WizardButton.NextButton, self.tr("Set &up again >"))
        self.state = IDLE
        self.health: HealthReport | None = None
        # The result's status: complete, cancelled or nothing_to_verify (workflow/health/verify.py).
        self.outcome: str | None = None
        # The last good state the run wrote (None: it recorded none).
        self.saved: str | None = None
        self.checks: list[HealthCheck] = []
        self.rows: list[QtCheckRow] = []
        self.work = StreamedWork(self, self._take_events, self._finish, self._crashed)
        self.detected: SystemReport | None = None

        content = QWidget(self)
        self.headline = headline_label("verify_headline", content)
        self.headline.setText(self.tr("Checking…"))
        self.since_label = QLabel(content)
        self.since_label.setObjectName("verify_since")
        self.since_label.setWordWrap(True)
        self.phase_label = QLabel(content)
        self.phase_label.setObjectName("verify_phase")
        self.phase_label.setWordWrap(True)
        buttons = self._build_buttons(content)

        self.list_box = QWidget(content)
        self.list_layout = QVBoxLayout(self.list_box)
        self.list_layout.setContentsMargins(0, 0, 0, 0)
        self.list_box.setAccessibleName(self.tr("Checks"))

        layout = QVBoxLayout(content)
        layout.addWidget(self.headline)
        layout.addWidget(self.since_label)
        layout.addWidget(self.phase_label)
        layout.addLayout(buttons)
        # Above the checks, not after them: a long list in a small window hid it below the fold.
        layout.addWidget(self.support)
        layout.addWidget(self.list_box)
        layout.addStretch(1)
        self.scroll_area = fill_with_scroll_area(self, content, "verify_scroll")
        self.scroll_area.setFocusPolicy(Qt.FocusPolicy.StrongFocus)

    def _build_buttons(self, parent: QWidget) -> QHBoxLayout:
        self.progress = QProgressBar(parent)
        self.progress.setObjectName("verify_progress")
        self.progress.setRange(0, 0)
        self.progress.setAccessibleName(self.tr("Verification in progress"))
        self.again_button = QPushButton(self.tr("&Check again"), parent)
        self.again_button.setObjectName("verify_again")
        self.again_button.setAccessibleName(self.tr("Run the checks again"))
        self.again_button.clicked.connect(self.start)
        self.repair_button = QPushButton(self.tr("&Repair…"), parent)
        self.repair_button.setObjectName("verify_repair")
        self.repair_button.setAccessibleName(self.tr("Set the broken environment up again"))
        self.repair_button.setToolTip(
            self.tr(
                "Sets the broken environment up again with the same framework, version and name: "
                "the wizard shows the plan first, and puts the old one back if the new one fails."
            )
        )
        self.repair_button.clicked.connect(self.repair)
        self.repair_button.hide()
        # What verify detected (None until it ran: then the report detects afresh).
        self.support = SupportReportControl(self.session, lambda: self.detected, parent)
        buttons = QHBoxLayout()
        buttons.addWidget(self.progress, 1)
        buttons.addWidget(self.again_button)
        buttons.addWidget(self.repair_button)
        return buttons

    # --- the wizard's calls -----------------------------------------------------------------

    def initializePage(self) -> None:
        """Run the checks once, when the wizard opens here."""
        if self.state == IDLE:
            self.start()

    def isComplete(self) -> bool:
        """Finish and "Set up again" once the checks are done."""
        return self.state == DONE

    def wait_for_workers(self, milliseconds: int = 30_000) -> None:
        """Stop running checks and wait for them (when the wizard closes)."""
        self.work.wait(milliseconds)
        self.support.wait_for_worker(milliseconds)

    # --- actions ----------------------------------------------------------------------------

    def start(self) -> None:
        """Run the session's verify step on a worker."""
        if self.state == RUNNING:
            return
        self.state = RUNNING
        self.health = None
        self.outcome = None
        self.saved = None
        self.checks = []
        self._clear_rows()
        self.headline.setText(self.tr("Checking…"))
        self.headline.setStyleSheet("")
        self.since_label.clear()
        self.phase_label.setText(display_text(phase_line("detect", "")))
        self.progress.setRange(0, 0)
        self.progress.show()
        self.again_button.setEnabled(False)
        self.repair_button.hide()
        self.work.start(self.session.verify_and_detect)
        self.completeChanged.emit()

    def repair(self) -> None:
        """Set the first broken environment up again with the same choices."""
        names = self.broken_environments()
        if names:
            choice = repair_choice(names[0])
            if choice is not None:
                self.session.choice = choice
        self.set_up_again.emit()

    def broken_environments(self) -> list[str]:
        """The environments with a broken check, in the order checked."""
        names = [
            check.subject
            for check in self.checks
            if check.status == "broken" and check.check_id.startswith("env:")
        ]
        return list(dict.fromkeys(names))

    # --- events -----------------------------------------------------------------------------

    def _take_events(self, events: list[Event]) -> None:
        # The short test's own events (wrapped) are not shown: its phase was announced already.
        for event in events:
            if isinstance(event, VerifyPhase):
                self.phase_label.setText(display_text(phase_line(event.phase, event.subject)))
            elif isinstance(event, VerifyCheck):
                self._add_row(event.check)
            elif isinstance(event, VerifyResult):
                self.outcome = event.status
                self.saved = event.saved

    def _finish(self, outcome: object) -> None:
        health, report = outcome if isinstance(outcome, tuple) else (None, None)
        self.state = DONE
        self.again_button.setEnabled(True)
        self.progress.hide()
        self.phase_label.clear()
        if isinstance(report, SystemReport):
            self.detected = report
            self.report_detected.emit(report)
        if isinstance(health, HealthReport):
            self.health = health
            self.session.health = health
            self._show_health(health)
        self.completeChanged.emit()

    def _crashed(self, message: str) -> None:
        self.state = DONE
        self.again_button.setEnabled(True)
        self.progress.hide()
        self.phase_label.clear()
        self.headline.setText(self.tr("The checks could not run: %1").replace("%1", message))
        self.headline.setStyleSheet(status_style("bad", self))
        self.completeChanged.emit()

    # --- showing ----------------------------------------------------------------------------

    def _clear_rows(self) -> None:
        for row in self.rows:
            self.list_layout.removeWidget(row)
            row.deleteLater()
        self.rows = []

    def _add_row(self, check: HealthCheck) -> None:
        self.checks.append(check)
        title = display_text(check_title(check.kind, check.subject))
        row = QtCheckRow(check, title, self._status_word(check.status), self.list_box)
        row.show_change(self._change_text(check))
        if check.finding is not None and check.status != "ok":
            message, hint = finding_texts(check.finding)
            row.show_fix(message, hint, check.finding.params)
        else:
            row.show_fix("", "")
        self.rows.append(row)
        self.list_layout.addWidget(row)

    def nothing_to_verify(self) -> bool:
        """True when the last run found nothing of the wizard's to check on this machine."""
        return self.outcome == NOTHING_TO_VERIFY

    def _show_health(self, health: HealthReport) -> None:
        if self.nothing_to_verify():
            # Nothing was checked: no "Everything works", no green lines for things never set up.
            self.headline.setText(
                self.tr("Nothing to verify: the wizard has not set up anything on this machine yet.")
            )
            self.headline.setStyleSheet(status_style("info", self))
            self.since_label.setText(self.tr("Press Set up to start: nothing was checked or recorded."))
            self.setButtonText(QWizard.WizardButton.NextButton, self.tr("Set &up >"))
            self.repair_button.hide()
            return
        self.setButtonText(QWizard.WizardButton.NextButton, self.tr("Set &up again >"))
        broken = [check for check in health.checks if check.status == "broken"]
        changed = [check for check in health.checks if check.status == "changed"]
        if not health.checked_something:
            # Every line says "not checked": nothing was found working (issue 37, point 7).
            self.headline.setText(self.tr("Nothing could be checked this time, so nothing was recorded."))
            self.headline.setStyleSheet(status_style("info", self))
        elif broken:
            self.headline.setText(
                self.tr("%n check(s) failed: something broke since the setup last worked.", "", len(broken))
            )
            self.headline.setStyleSheet(status_style("bad", self))
        elif changed:
            self.headline.setText(
                self.tr("Everything works; %n thing(s) changed since the last good state.", "", len(changed))
            )
            self.headline.setStyleSheet(status_style("good", self))
        else:
            self.headline.setText(self.tr("Everything works as it did."))
            self.headline.setStyleSheet(status_style("good", self))
        if health.snapshot_recorded:
            since = self.tr("Compared with the last good state, recorded %1.").replace(
                "%1", health.snapshot_recorded.replace("T", " ").removesuffix("+00:00") + " UTC"
            )
        else:
            since = self.tr(
                "No good state was recorded yet: the environments were checked against what the wizard made."
            )
        if self.saved:
            since += " " + self.tr("This state is now the last good one.")
        self.since_label.setText(since)
        self.repair_button.setVisible(bool(self.broken_environments()))

    def _status_word(self, status: str) -> str:
        words = {
            "ok": self.tr("as before"),
            "changed": self.tr("changed"),
            "broken": self.tr("broken"),
            "skipped": self.tr("not checked"),
        }
        return words.get(status, status)

    def _change_text(self, check: HealthCheck) -> str:
        before, after = check.before, check.after
        if check.kind == "test":
            before, after = self._verdict_word(before), self._verdict_word(after)
        if check.status == "skipped":
            return ""  # the status word says it was not checked; a change would mislead
        before, after = self._value_word(before), self._value_word(after)
        if before == after or (before is None and after is None):
            return str(after) if after and check.status == "ok" else ""
        return (
            self.tr("%1 → %2")
            .replace("%1", str(before) if before is not None else self.tr("(none)"))
            .replace("%2", str(after) if after is not None else self.tr("(none)"))
        )

    def _value_word(self, value: str | None) -> str | None:
        """A check's value in words of the interface's language; data (versions, builds, commands) as it is.

        The checks (core/health) say what they found in English words, which ``--json`` keeps:
        a fixed word, or a value made from a template ("2 GPUs (…)").
        """
        if value is None:
            return None
        return self._value_words().get(value) or display_text(value)

    def _value_words(self) -> Mapping[str, str]:
        return {
            "not installed": self.tr("not installed", "a framework, as a check found it"),
            "fails": self.tr("fails", "importing a framework, as a check found it"),
            "does not run": self.tr("does not run", "an environment's Python, as a check found it"),
            "runs": self.tr("runs", "an environment's Python, as a check found it"),
            "on PATH": self.tr("on PATH", "a folder, as a check found it"),
            "not on PATH": self.tr("not on PATH", "a folder, as a check found it"),
            "missing": self.tr("missing", "a constraints file, as a check found it"),
            "no pin": self.tr("no pin", "a constraints file without the framework's line"),
        }

    def _verdict_word(self, verdict: object) -> str | None:
        """A live-test verdict in words (the check carries its code)."""
        return None if verdict is None else display_text(verdicts.phrase(str(verdict)))
