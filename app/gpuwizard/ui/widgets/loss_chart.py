"""A small live line chart of the training loss per step, one series per device, drawn with QPainter.

PySide6-Essentials has no QtCharts, and two series of a few hundred points need no more than
this. Each series differs in three ways, so it reads without colour too (printed, colour
blind, high contrast): colour, line style (GPU solid, CPU dashed) and marker (GPU circles,
CPU squares); the legend repeats all three with the series' name. Sizes come from the font,
so the chart stays readable at 200 % and in larger fonts. Adding points does not repaint by
itself more than once per call: the page adds a batch and the chart repaints once.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Final

from PySide6.QtCore import QPointF, QRectF, QSize, Qt
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPalette, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from gpuwizard.ui.theme import is_dark

# Marker shapes; besides the line style they tell the series apart without colour.
CIRCLE: Final = "circle"
SQUARE: Final = "square"
# At most about this many markers per series, so a 200-step line does not turn into a bead chain.
_MAX_MARKERS: Final = 24


@dataclass
class Series:
    """One line: its name in the legend, how it is drawn, and its ``(step, loss)`` points."""

    key: str
    label: str
    color: QColor
    pen_style: Qt.PenStyle
    marker: str
    points: list[tuple[float, float]] = field(default_factory=list)


class LossChart(QWidget):
    """Loss per training step for the GPU and the CPU (keys ``gpu`` and ``cpu``)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("loss_chart")
        self.setAccessibleName(self.tr("Training loss per step"))
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        dark = is_dark(self.palette())
        # Dark text-grade colours on light backgrounds (contrast above 4.5:1 on white), light
        # ones on dark backgrounds.
        gpu = QColor("#6aaef0" if dark else "#1f5fa8")
        cpu = QColor("#f0a050" if dark else "#b04a00")
        self.series: dict[str, Series] = {
            "gpu": Series("gpu", self.tr("GPU"), gpu, Qt.PenStyle.SolidLine, CIRCLE),
            "cpu": Series("cpu", self.tr("CPU"), cpu, Qt.PenStyle.DashLine, SQUARE),
        }
        self.empty_text = self.tr("The loss appears here as the network trains.")

    def set_empty_text(self, text: str) -> None:
        """What the chart says while it has no points."""
        self.empty_text = text
        self.update()

    # --- data ---------------------------------------------------------------------------------

    def add_points(self, key: str, points: Iterable[tuple[float, float]]) -> None:
        """Append ``(step, loss)`` points to series ``key`` (non-finite values are skipped)."""
        series = self.series.get(key)
        if series is None:
            return
        added = [
            (float(step), float(loss))
            for step, loss in points
            if math.isfinite(float(step)) and math.isfinite(float(loss))
        ]
        if not added:
            return
        series.points.extend(added)
        self.setAccessibleDescription(self.describe())
        self.update()

    def clear(self) -> None:
        """Remove every point."""
        for series in self.series.values():
            series.points.clear()
        self.setAccessibleDescription("")
        self.update()

    def point_count(self, key: str | None = None) -> int:
        """The number of points of series ``key``, or of all series."""
        if key is not None:
            return len(self.series[key].points) if key in self.series else 0
        return sum(len(series.points) for series in self.series.values())

    def describe(self) -> str:
        """The chart in words, for screen readers: each series' steps and first and last loss."""
        parts = []
        for series in self.series.values():
            if series.points:
                parts.append(
                    self.tr("%1: %2 steps, loss from %3 to %4")
                    .replace("%1", series.label)
                    .replace("%2", str(len(series.points)))
                    .replace("%3", f"{series.points[0][1]:.3g}")
                    .replace("%4", f"{series.points[-1][1]:.3g}")
                )
        return "; ".join(parts)

    # --- size ---------------------------------------------------------------------------------

    def sizeHint(self) -> QSize:
        """About 40 by 14 lines of text."""
        metrics = self.fontMetrics()
        return QSize(metrics.averageCharWidth() * 60, metrics.height() * 14)

    def minimumSizeHint(self) -> QSize:
        """Small enough for a narrow window, large enough to read."""
        metrics = self.fontMetrics()
        return QSize(metrics.averageCharWidth() * 30, metrics.height() * 9)

    # --- drawing ------------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:
        """Axes, grid, the series and the legend."""
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        drawn = [series for series in self.series.values() if series.points]
        frame = self._frame(drawn)
        painter.fillRect(frame.plot, self.palette().color(QPalette.ColorRole.Base))
        self._draw_grid(painter, frame)
        self._draw_axes(painter, frame)
        if drawn:
            self._draw_series(painter, frame, drawn)
        else:
            painter.setPen(self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.WindowText))
            painter.drawText(
                frame.plot, Qt.AlignmentFlag.AlignCenter | Qt.TextFlag.TextWordWrap, self.empty_text
            )
        painter.end()

    def _frame(self, drawn: list[Series]) -> _Frame:
        metrics = self.fontMetrics()
        line = metrics.height()
        max_step = max((p[0] for s in drawn for p in s.points), default=1.0)
        max_loss = max((p[1] for s in drawn for p in s.points), default=1.0)
        x_ticks = nice_ticks(0.0, max(max_step, 1.0), 6)
        y_ticks = nice_ticks(0.0, max(max_loss, 1e-6), 6)
        left = max(metrics.horizontalAdvance(_tick_text(value)) for value in y_ticks) + line * 2
        plot = QRectF(
            left,
            line * 2.0,
            max(10.0, self.width() - left - metrics.averageCharWidth() * 3),
            max(10.0, self.height() - line * 4.6),
        )
        return _Frame(plot, x_ticks, y_ticks, line)

    def _draw_grid(self, painter: QPainter, frame: _Frame) -> None:
        text = self.palette().color(QPalette.ColorRole.WindowText)
        grid = QColor(text)
        grid.setAlphaF(0.15)
        plot, line = frame.plot, frame.line
        for value in frame.y_ticks:
            y = frame.point(0, value).y()
            painter.setPen(QPen(grid, 1))
            painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y))
            painter.setPen(text)
            painter.drawText(
                QRectF(0, y - line / 2, plot.left() - line * 0.4, line),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                _tick_text(value),
            )
        for value in frame.x_ticks:
            x = frame.point(value, 0).x()
            painter.setPen(QPen(grid, 1))
            painter.drawLine(QPointF(x, plot.top()), QPointF(x, plot.bottom()))
            painter.setPen(text)
            label = _tick_text(value)
            width = self.fontMetrics().horizontalAdvance(label) + line
            painter.drawText(
                QRectF(x - width / 2, plot.bottom() + line * 0.2, width, line),
                Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
                label,
            )

    def _draw_axes(self, painter: QPainter, frame: _Frame) -> None:
        plot, line = frame.plot, frame.line
        painter.setPen(QPen(self.palette().color(QPalette.ColorRole.WindowText), 1.2))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        painter.drawLine(plot.bottomLeft(), plot.topLeft())
        painter.drawText(
            QRectF(plot.left(), plot.bottom() + line * 1.3, plot.width(), line * 1.2),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            self.tr("training step"),
        )
        painter.save()
        painter.translate(line * 0.1, plot.center().y())
        painter.rotate(-90)
        painter.drawText(
            QRectF(-plot.height() / 2, 0, plot.height(), line * 1.2),
            Qt.AlignmentFlag.AlignHCenter | Qt.AlignmentFlag.AlignTop,
            self.tr("loss"),
        )
        painter.restore()

    def _draw_series(self, painter: QPainter, frame: _Frame, drawn: list[Series]) -> None:
        line = frame.line
        painter.save()
        painter.setClipRect(frame.plot.adjusted(-line, -line, line, line))
        marker = max(2.5, line * 0.2)
        for series in drawn:
            painter.setPen(_line_pen(series, line))
            painter.setBrush(Qt.BrushStyle.NoBrush)
            points = [frame.point(step, loss) for step, loss in series.points]
            painter.drawPolyline(QPolygonF(points))
            for point in _marker_points(points, max(marker * 5, frame.plot.width() / _MAX_MARKERS)):
                _draw_marker(painter, series, point, marker)
        painter.restore()
        self._draw_legend(painter, drawn, frame.plot, marker)

    def _draw_legend(self, painter: QPainter, drawn: list[Series], plot: QRectF, marker: float) -> None:
        metrics = self.fontMetrics()
        line = metrics.height()
        sample = line * 2.2
        gap = line * 0.4
        widths = [sample + gap + metrics.horizontalAdvance(s.label) for s in drawn]
        x = plot.right() - sum(widths) - line * (len(drawn) - 1)
        y = line * 0.9
        text = self.palette().color(QPalette.ColorRole.WindowText)
        for series, width in zip(drawn, widths, strict=True):
            painter.setPen(_line_pen(series, line))
            painter.drawLine(QPointF(x, y), QPointF(x + sample, y))
            _draw_marker(painter, series, QPointF(x + sample / 2, y), marker)
            painter.setPen(text)
            painter.drawText(
                QRectF(x + sample + gap, y - line / 2, width, line),
                Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                series.label,
            )
            x += width + line


@dataclass(frozen=True)
class _Frame:
    """Where the plot area is and what its axes span; maps ``(step, loss)`` to widget coordinates."""

    plot: QRectF
    x_ticks: list[float]
    y_ticks: list[float]
    line: float

    def point(self, step: float, loss: float) -> QPointF:
        return QPointF(
            self.plot.left() + self.plot.width() * step / self.x_ticks[-1],
            self.plot.bottom() - self.plot.height() * loss / self.y_ticks[-1],
        )


def _line_pen(series: Series, line: float) -> QPen:
    pen = QPen(series.color, max(1.5, line * 0.12), series.pen_style)
    pen.setCapStyle(Qt.PenCapStyle.FlatCap)
    return pen


def _marker_points(points: list[QPointF], spacing: float) -> list[QPointF]:
    """Every point at least ``spacing`` to the right of the last one marked, so markers never pile up."""
    marked: list[QPointF] = []
    for point in points:
        if not marked or point.x() - marked[-1].x() >= spacing:
            marked.append(point)
    if points and marked[-1] is not points[-1] and points[-1].x() - marked[-1].x() >= spacing / 2:
        marked.append(points[-1])  # the end of the line, where the eye looks for the last loss
    return marked


def _draw_marker(painter: QPainter, series: Series, at: QPointF, size: float) -> None:
    painter.save()
    painter.setPen(QPen(series.color, max(1.0, size * 0.35)))
    painter.setBrush(series.color)
    if series.marker == SQUARE:
        painter.drawRect(QRectF(at.x() - size, at.y() - size, size * 2, size * 2))
    else:
        painter.drawEllipse(at, size * 1.1, size * 1.1)
    painter.restore()


def nice_ticks(low: float, high: float, count: int) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 times a power of ten) covering ``[low, high]``.

    >>> nice_ticks(0, 200, 6)
    [0.0, 50.0, 100.0, 150.0, 200.0]
    >>> nice_ticks(0, 2.31, 6)
    [0.0, 0.5, 1.0, 1.5, 2.0, 2.5]
    >>> nice_ticks(0, 20, 6)
    [0.0, 5.0, 10.0, 15.0, 20.0]
    """
    span = max(high - low, 1e-12)
    raw = span / max(count - 1, 1)
    power = 10 ** math.floor(math.log10(raw))
    step = next(factor * power for factor in (1, 2, 2.5, 5, 10) if factor * power >= raw)
    first = math.floor(low / step) * step
    ticks = []
    value = first
    while value < high + step * 0.999:
        ticks.append(round(value, 10))
        if value >= high - step * 1e-9:
            break
        value += step
    return [float(tick) for tick in ticks]


def _tick_text(value: float) -> str:
    if value == int(value) and abs(value) < 1e6:
        return str(int(value))
    return f"{value:.3g}"
