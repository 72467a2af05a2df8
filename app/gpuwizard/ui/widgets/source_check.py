"""On the Choose page: where the plan's packages will come from, and whether each index answers.

Whenever the recommendation shown changes, the page hands the choice here; the indexes the
install will contact (PyTorch's, or the person's mirror of it; PyPI, or a PyPI mirror: decided by
:mod:`gpuwizard.core.envs.package_sources`, each with the setting it came from) are listed at
once, "Checking https://download.pytorch.org/whl/cpu …", and asked on a
:class:`~gpuwizard.ui.workers.FunctionWorker` (``ask_sources``: one short request each, in
parallel; the UI never waits). Then a green line per index that answers, or, for one that does
not, its explanation said once: which index, what failed (DNS, refused, timeout, proxy,
certificate), and the ways forward (a proxy setting, a mirror, a folder of wheels, PyPI's build of
the same release), with the buttons that take one, and that Install stays off until one works.
The view then moves to the top of the page's answer, so a small window (a laptop at 125 %) shows
the ways forward without scrolling. All of it shows before anything is downloaded.

Offline (a folder of wheels only) and in a preview of a saved report nothing is asked: nothing
will be downloaded here. :attr:`SourceCheckView.ok` is what the page exposes as ``sources_ok``.
"""

from __future__ import annotations

from PySide6.QtCore import Signal, SignalInstance, Slot
from PySide6.QtWidgets import QBoxLayout, QGroupBox, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from gpuwizard.adapters.index_check import IndexProbe, probe_from_environment
from gpuwizard.adapters.index_settings import read_index_settings
from gpuwizard.core.compat.plan import Recommendation
from gpuwizard.core.envs.index_reach import IndexStatus, SourcesCheck
from gpuwizard.core.envs.package_sources import MirrorRefused, PlanSources, SourceIndex, index_reason
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.ui.messages import display_text
from gpuwizard.ui.theme import Status, status_style
from gpuwizard.ui.widgets.finding_view import QtFindingView, replace_finding_views
from gpuwizard.ui.widgets.plan_panel import PlanPanel
from gpuwizard.ui.workers import FunctionWorker
from gpuwizard.workflow.envs.index_check import ask_sources, renamed, sources_for_request

_Key = tuple[object, ...]
#: Where the view sits in the answer while nothing stands in the way: after what will change.
_PLACE_IN_ANSWER = 2


class SourceCheckView(QGroupBox):
    """The plan's package indexes and their answers (object name ``choose_sources``).

    Signals:
        changed(): A check started or ended (``ok`` may have changed).
    """

    changed = Signal()
    #: The person asked for PyPI's build (True) or PyTorch's index again (False).
    use_pypi = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Where the packages come from"), parent)
        self.setObjectName("choose_sources")
        #: What asks an index (tests may hand in another; it asks nothing with GPUWIZARD_NO_INDEX_CHECK=1).
        self.probe: IndexProbe = probe_from_environment
        self.check: SourcesCheck | None = None
        self.sources: PlanSources | None = None
        self.refusal: str | None = None
        self._key: _Key | None = None
        self._checked_key: _Key | None = None
        self._checked_name = ""  # the environment name the shown check's commands give
        self._generation = 0
        self._workers: list[FunctionWorker] = []
        self._inputs: tuple[SystemReport, Recommendation, SetupRequest] | None = None

        self.status_label = QLabel(self)
        self.status_label.setObjectName("choose_sources_status")
        self.status_label.setWordWrap(True)
        self.lines_box = QWidget(self)
        self.lines_layout = QVBoxLayout(self.lines_box)
        self.lines_layout.setContentsMargins(0, 0, 0, 0)
        self.index_labels: list[QLabel] = []
        self.findings_box = QWidget(self)
        self.findings_box.setObjectName("choose_sources_findings")
        self.findings_layout = QVBoxLayout(self.findings_box)
        self.findings_layout.setContentsMargins(0, 0, 0, 0)
        self.finding_views: list[QtFindingView] = []
        self.again_button = QPushButton(self.tr("Ask the i&ndexes again"), self)
        self.again_button.setObjectName("choose_sources_again")
        self.again_button.setToolTip(
            self.tr(
                "Ask again, for example after changing the proxy or mirror settings and restarting the wizard."
            )
        )
        self.again_button.clicked.connect(self.check_again)
        # The way forward the wizard can take by itself: the same release as PyPI builds it,
        # offered only where that build is correct for this machine (core/compat/pypi_route.py).
        self.pypi_taken = False
        self.pypi_button = QPushButton(self.tr("&Switch to PyPI's build"), self)
        self.pypi_button.setObjectName("choose_sources_pypi")
        self.pypi_button.setToolTip(
            self.tr("Install the same release as PyPI builds it, instead of from PyTorch's own index.")
        )
        self.pypi_button.clicked.connect(lambda: self.use_pypi.emit(not self.pypi_taken))
        self.pypi_button.hide()
        # What an unreachable index means for the next step (the finding above says what failed).
        self.blocked_note = QLabel(
            self.tr("Install stays off until the packages can be fetched: take one of these ways forward."),
            self,
        )
        self.blocked_note.setObjectName("choose_sources_blocked")
        self.blocked_note.setWordWrap(True)
        self.blocked_note.hide()

        buttons = QHBoxLayout()
        buttons.addWidget(self.pypi_button)
        buttons.addWidget(self.again_button)
        buttons.addStretch(1)
        # The explanation and its ways forward first, the indexes that answer after them.
        layout = QVBoxLayout(self)
        layout.addWidget(self.status_label)
        layout.addWidget(self.findings_box)
        layout.addLayout(buttons)
        layout.addWidget(self.blocked_note)
        layout.addWidget(self.lines_box)
        self._answer_layout: QBoxLayout | None = None
        self._show_nothing()

    # --- what the page tells it -------------------------------------------------------------

    @classmethod
    def placed_in(cls, panel: PlanPanel, *, on_change: SignalInstance) -> SourceCheckView:
        """A view in the Choose page's answer, after what will change and before the findings.

        While an index the install needs does not answer, it is the answer's first part.
        """
        view = cls(panel.result_box)
        layout = panel.result_box.layout()
        if isinstance(layout, QBoxLayout):
            layout.insertWidget(_PLACE_IN_ANSWER, view)
            view._answer_layout = layout
        view.changed.connect(on_change)
        return view

    def _place(self, *, first: bool) -> None:
        """First in the page's answer (the install would fail), or in its place after the changes."""
        layout = self._answer_layout
        if layout is None:
            return
        wanted = 0 if first else _PLACE_IN_ANSWER
        if layout.indexOf(self) != wanted:
            layout.removeWidget(self)
            layout.insertWidget(wanted, self)

    def show_plan(
        self,
        panel: PlanPanel,
        report: SystemReport | None,
        rec: Recommendation,
        request: SetupRequest,
        *,
        preview: bool,
    ) -> None:
        """The plan's install command as it will run (mirror or folder), and the indexes asked."""
        sources = shown_sources(report, rec, request)
        if sources is not None:
            panel.plan_pip.setText(sources.install_line(rec.plan.requirements))
        self.set_choice(report, rec, request, preview=preview)

    def set_choice(
        self, report: SystemReport | None, rec: Recommendation | None, request: SetupRequest, *, preview: bool
    ) -> None:
        """The recommendation shown or the choice changed; check again when the indexes do."""
        if report is None or rec is None or preview or request.offline:
            # Nothing will be downloaded here: a saved report's machine, or a folder of wheels only.
            self._inputs, self._key = None, None
            self._show_nothing()
            self.changed.emit()
            return
        self._inputs = (report, rec, request)
        key: _Key = (rec.plan, request.wanted_manager, request.tool, id(report))
        if key == self._key:
            self._follow_name(request.name)
            return
        self._key = key
        self.check_now()

    def _follow_name(self, name: str) -> None:
        """A name typed after the check: the PyPI way forward's command names it (nothing asked again)."""
        check = self.check
        if check is None or self._checked_key != self._key or self._checked_name == name:
            return
        self._checked_name = name
        if any(finding.code == "PYPI_BUILD_AVAILABLE" for finding in check.findings):
            self.check = renamed(check, name=name)
            self._show_check(self.check)

    @property
    def ok(self) -> bool | None:
        """Whether the install can fetch its packages: None while the indexes are being asked.

        True when every index the packages need answers (or nothing needs asking); False when one
        does not, or a mirror setting cannot be used.
        """
        if self.refusal is not None:
            return False
        if self._key is None:
            return True
        if self._checked_key != self._key or self.check is None:
            return None
        return self.check.ok

    def is_checking(self) -> bool:
        """True while the indexes are being asked."""
        return self.ok is None

    def wait(self) -> None:
        """Block until running checks end (the wizard is closing)."""
        for worker in self._workers:
            worker.wait()

    # --- checking ---------------------------------------------------------------------------

    @Slot()
    def check_again(self) -> None:
        """Ask the same indexes again."""
        if self._inputs is not None:
            self.check_now()

    def check_now(self) -> None:
        """List the indexes at once and ask them on a worker."""
        if self._inputs is None:
            return
        report, rec, request = self._inputs
        key, probe = self._key, self.probe
        self.refusal, self.check, self._checked_key = None, None, None
        try:
            # Reading the settings is a few small files (pip's configuration): no wait to speak of.
            settings = read_index_settings()
            sources = sources_for_request(rec.plan, request, report.managers)
        except MirrorRefused as error:
            self.refusal, self.sources = str(error), None
            self._show_refusal(str(error))
            self.changed.emit()
            return
        self.sources = sources
        self._show_checking(sources)
        self._generation += 1
        generation = self._generation

        self._checked_name = request.name

        def ask() -> tuple[int, _Key | None, SourcesCheck]:
            check = ask_sources(report, rec, sources, name=request.name, probe=probe, settings=settings)
            return generation, key, check

        self._workers = [worker for worker in self._workers if worker.is_running()]
        worker = FunctionWorker(ask, self)
        worker.succeeded.connect(self._checked)
        worker.failed.connect(self._failed)
        self._workers.append(worker)
        worker.start()
        self.changed.emit()

    @Slot(object)
    def _checked(self, outcome: object) -> None:
        if not isinstance(outcome, tuple) or outcome[0] != self._generation or outcome[1] != self._key:
            return  # an answer about an earlier plan
        self._checked_key = self._key
        self.check = outcome[2]
        self._show_check(outcome[2])
        self.changed.emit()

    @Slot(str)
    def _failed(self, message: str) -> None:
        # A bug in the check must not stand in the way: the install itself will say what fails.
        self._checked_key = self._key
        self.check = None
        self.status_label.setText(
            self.tr(
                "The package indexes could not be asked (%1); the install will say if one fails."
            ).replace("%1", message)
        )
        self.status_label.setStyleSheet(status_style("warn", self))
        self.again_button.show()
        self.changed.emit()

    # --- showing ----------------------------------------------------------------------------

    def _show_nothing(self) -> None:
        self.check, self.sources, self.refusal, self._checked_key = None, None, None, None
        self._set_lines([])
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, []
        )
        self.again_button.hide()
        self._show_blocked(False)
        self.hide()

    def _show_blocked(self, blocked: bool) -> None:
        """Say that Install stays off (or not), and lead the page's answer while it does."""
        self.blocked_note.setVisible(blocked)
        self._place(first=blocked)

    def _show_refusal(self, error: str) -> None:
        self.show()
        self._set_lines([])
        self.status_label.setText(self.tr("This mirror setting cannot be used: %1").replace("%1", error))
        self.status_label.setStyleSheet(status_style("bad", self))
        self.status_label.show()
        self.again_button.hide()
        self._show_blocked(True)

    def _show_checking(self, sources: PlanSources) -> None:
        self.show()
        hosts = ", ".join(index.shown for index in sources.indexes)
        self.status_label.setText(self.tr("Checking %1 …").replace("%1", hosts))
        self.status_label.setStyleSheet(status_style("muted", self))
        self.status_label.show()
        self._set_lines([(self._index_line(index, None), "muted") for index in sources.indexes])
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, []
        )
        self.again_button.hide()
        self._show_blocked(False)

    def _show_check(self, check: SourcesCheck) -> None:
        # An index that did not answer is said once, by its finding (which index, what failed,
        # the ways forward): no line of its own, no headline repeating it.
        lines: list[tuple[str, Status]] = []
        for status in check.statuses:
            if status.answer is None:
                lines.append((self._index_line(status.index, None), "muted"))
            elif status.reached:
                lines.append((self._index_line(status.index, status), "good"))
        self._set_lines(lines)
        blocked = check.checked and not check.ok
        if check.checked and check.ok:
            self.status_label.setText(
                self.tr("The package indexes answer: the install can fetch its packages.")
            )
            self.status_label.setStyleSheet(status_style("good", self))
            self.status_label.show()
        else:
            self.status_label.hide()  # blocked: the finding says it; or asking is turned off
        self.finding_views = replace_finding_views(
            self.findings_box, self.findings_layout, self.finding_views, list(check.findings)
        )
        self.again_button.setVisible(blocked)
        offered = any(finding.code == "PYPI_BUILD_AVAILABLE" for finding in check.findings)
        self.pypi_button.setVisible(offered or self.pypi_taken)
        self._show_blocked(blocked)

    def set_pypi_taken(self, taken: bool) -> None:
        """The page installs PyPI's build (the button then goes back to PyTorch's index)."""
        self.pypi_taken = taken
        self.pypi_button.setText(
            self.tr("Switch back to PyTorch's inde&x") if taken else self.tr("&Switch to PyPI's build")
        )
        self.pypi_button.setVisible(taken)

    def _index_line(self, index: SourceIndex, status: IndexStatus | None) -> str:
        where = self.tr("%1 (%2)").replace("%1", index.shown).replace("%2", display_text(index_reason(index)))
        if status is None or status.answer is None:
            return where
        # An index that does not answer has no line: its finding says it, with the ways forward.
        return self.tr("✓ %1: answers").replace("%1", where)

    def _set_lines(self, lines: list[tuple[str, Status]]) -> None:
        for label in self.index_labels:
            self.lines_layout.removeWidget(label)
            label.deleteLater()
        self.index_labels = []
        for number, (text, status) in enumerate(lines):
            label = QLabel(text, self.lines_box)
            label.setObjectName(f"choose_source_{number}")
            label.setWordWrap(True)
            label.setStyleSheet(status_style(status, self))
            self.lines_layout.addWidget(label)
            self.index_labels.append(label)
        self.lines_box.setVisible(bool(lines))


def shown_sources(
    report: SystemReport | None, rec: Recommendation, request: SetupRequest
) -> PlanSources | None:
    """Where the install of ``rec`` for ``request`` takes its packages from, for the plan's lines.

    Offline, only the folder; else the indexes with the person's mirrors. None when a mirror
    setting cannot be used (the box says so) or there is no report yet.
    """
    if report is None:
        return None
    try:
        return sources_for_request(rec.plan, request, report.managers)
    except MirrorRefused:
        return None
