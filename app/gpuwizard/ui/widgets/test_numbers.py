"""The Test page's measurements: framework build, devices, speeds, speed-up, matmul rate, GPU use.

Presentation only: it takes the live test's typed events (:mod:`gpuwizard.core.livetest.events`)
as they come and its result at the end, and shows the latest numbers in a form.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QLocale, Qt
from PySide6.QtWidgets import QFormLayout, QGroupBox, QLabel, QSizePolicy, QWidget

from gpuwizard.core.events import Event
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.gpu_kinds import NON_CUDA_KINDS
from gpuwizard.core.livetest.events import (
    Device,
    DeviceSummary,
    GpuUsage,
    LiveTestResult,
    Matmul,
    Start,
    Step,
)


class TestNumbers(QGroupBox):
    """The form of measurements, updated from a test's events (object name ``test_numbers``).

    ``has_nvidia_gpu`` says whether the machine has an NVIDIA GPU a driver serves (asked when
    shown: the machine may be detected after the page is made).
    """

    __test__ = False  # a widget, not a test class, whatever pytest makes of its name

    def __init__(self, has_nvidia_gpu: Callable[[], bool], parent: QWidget | None = None) -> None:
        super().__init__(self.tr("Measurements"), parent)
        self.setObjectName("test_numbers")
        self.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Preferred)
        self.has_nvidia_gpu = has_nvidia_gpu
        self.form = QFormLayout(self)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        rows = (
            ("framework", self.tr("Framework:"), self.tr("Framework build")),
            ("gpu", self.tr("GPU:"), self.tr("The GPU the framework sees")),
            ("cpu", self.tr("CPU:"), self.tr("The CPU")),
            ("gpu_rate", self.tr("GPU samples/s:"), self.tr("Training samples per second on the GPU")),
            ("cpu_rate", self.tr("CPU samples/s:"), self.tr("Training samples per second on the CPU")),
            ("speedup", self.tr("Speed-up:"), self.tr("How many times faster the GPU trains than the CPU")),
            ("matmul", self.tr("Matrix multiply:"), self.tr("Matrix multiply rate on the GPU")),
            ("utilisation", self.tr("GPU utilisation:"), self.tr("GPU utilisation during the test")),
            ("memory", self.tr("GPU memory:"), self.tr("GPU memory in use during the test")),
        )
        self.values: dict[str, QLabel] = {}
        for key, label_text, accessible in rows:
            value = QLabel("—", self)
            value.setObjectName(f"test_{key}")
            value.setWordWrap(True)
            value.setTextFormat(Qt.TextFormat.PlainText)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            value.setAccessibleName(accessible)
            label = QLabel(label_text, self)
            label.setBuddy(value)
            self.form.addRow(label, value)
            self.values[key] = value
        self.values["speedup"].setToolTip(
            self.tr("GPU samples per second divided by CPU samples per second, same network and data.")
        )
        self.values["matmul"].setToolTip(
            self.tr("TFLOP/s: trillions of floating-point operations per second on large matrix multiplies.")
        )
        self.values["utilisation"].setToolTip(
            self.tr("Share of time the GPU was running work, as the NVIDIA driver reports it (NVML).")
        )
        self.reset()

    # --- taking events ----------------------------------------------------------------------

    def reset(self) -> None:
        """Back to dashes, before a run."""
        self.gpu_used: bool | None = None
        self._rates: dict[str, float] = {}
        self._matmul: dict[str, float] = {}
        self._usage: dict[int, tuple[int | None, int | None]] = {}
        self._usage_max: tuple[int | None, int | None] = (None, None)
        self._gpus: list[str] = []
        self._cpu = ""
        self._gpu_kind: str | None = None
        for key, value in self.values.items():
            value.setText("—")
            self.form.setRowVisible(value, key != "matmul")
        self.show_gpu_usage()

    def take(self, events: Iterable[Event]) -> None:
        """Take a batch of events; show what changed."""
        changed: set[str] = set()
        for event in events:
            if isinstance(event, Step):
                if event.samples_per_s is not None:
                    self._rates[event.device] = event.samples_per_s
                    changed.add(f"{event.device}_rate")
            elif isinstance(event, GpuUsage):
                self._take_usage(event)
                changed.add("usage")
            elif isinstance(event, Start):
                self.values["framework"].setText(self._framework_text(event))
                self._gpu_kind = event.gpu_kind
                changed.add("usage")
            elif isinstance(event, Device):
                self._take_device(event)
                changed.add("devices")
            elif isinstance(event, DeviceSummary):
                self.gpu_used = event.gpu_used
                changed.add("gpu_rate")
            elif isinstance(event, Matmul):
                if event.tflops is not None:
                    self._matmul[event.dtype] = event.tflops
                changed.add("matmul")
        self._show(changed)

    def take_result(self, result: LiveTestResult) -> None:
        """The final numbers: the result's rates and speed-up, the GPU's use at most."""
        for device, rate in (("gpu", result.samples_per_s_gpu), ("cpu", result.samples_per_s_cpu)):
            if rate is not None:
                self._rates[device] = rate
        if result.speedup is not None:
            self.values["speedup"].setText(
                self.tr("%1×").replace("%1", QLocale().toString(result.speedup, "f", 1))
            )
        else:
            self.values["speedup"].setText(self.tr("— (needs both GPU and CPU)"))
        self._show({"gpu_rate", "cpu_rate", "matmul"})
        self.show_gpu_usage(final=True)

    def _take_device(self, event: Device) -> None:
        if event.is_gpu:
            self._gpus.append(event.label)
        else:
            self._cpu = event.label + (
                self.tr(" (%n threads)", "", event.threads) if event.threads is not None else ""
            )

    def _take_usage(self, event: GpuUsage) -> None:
        self._usage[event.index] = (event.utilisation_percent, event.memory_used_mib)
        top_use, top_memory = self._usage_max
        if event.utilisation_percent is not None:
            top_use = max(top_use or 0, event.utilisation_percent)
        if event.memory_used_mib is not None:
            top_memory = max(top_memory or 0, event.memory_used_mib)
        self._usage_max = (top_use, top_memory)

    # --- showing ----------------------------------------------------------------------------

    def _show(self, changed: set[str]) -> None:
        locale = QLocale()
        if "devices" in changed:
            self.values["gpu"].setText(", ".join(self._gpus) if self._gpus else self.tr("none visible"))
            self.values["cpu"].setText(self._cpu or "—")
        if "gpu_rate" in changed:
            rate = self._rates.get("gpu")
            if rate is not None:
                self.values["gpu_rate"].setText(locale.toString(rate, "f", 0))
            elif self.gpu_used is False:
                self.values["gpu_rate"].setText(self.tr("not measured: no GPU is used"))
        if "cpu_rate" in changed and "cpu" in self._rates:
            self.values["cpu_rate"].setText(locale.toString(self._rates["cpu"], "f", 0))
        if "matmul" in changed and self._matmul:
            self.values["matmul"].setText(
                "\n".join(
                    self.tr("%1: %2 TFLOP/s")
                    .replace("%1", dtype)
                    .replace("%2", locale.toString(tflops, "f", 1))
                    for dtype, tflops in self._matmul.items()
                )
            )
            self.form.setRowVisible(self.values["matmul"], True)
        if "usage" in changed:
            self.show_gpu_usage()

    def show_gpu_usage(self, *, final: bool = False) -> None:
        """The GPU's utilisation and memory now and at most (at most only, once ``final``)."""
        use_label, memory_label = self.values["utilisation"], self.values["memory"]
        if self._gpu_kind in NON_CUDA_KINDS:
            # NVML is NVIDIA's: the use of other GPUs is not sampled (issue 38).
            use_label.setText(self.tr("not measured: the wizard samples NVIDIA GPUs only"))
            self.form.setRowVisible(memory_label, False)
            return
        if not self.has_nvidia_gpu():
            use_label.setText(self.tr("no NVIDIA GPU on this machine"))
            self.form.setRowVisible(memory_label, False)
            return
        self.form.setRowVisible(memory_label, True)
        if not self._usage:
            text = (
                self.tr("not measured (the driver gave no samples)")
                if final
                else self.tr("waiting for samples…")
            )
            use_label.setText(text)
            memory_label.setText(text)
            return
        locale = QLocale()
        use_now = [u for u, _m in self._usage.values() if u is not None]
        memory_now = [m for _u, m in self._usage.values() if m is not None]
        top_use, top_memory = self._usage_max
        if use_now and top_use is not None:
            use_label.setText(
                self.tr("%1 % now, %2 % at most").replace("%1", str(max(use_now))).replace("%2", str(top_use))
                if not final
                else self.tr("%1 % at most").replace("%1", str(top_use))
            )
        if memory_now and top_memory is not None:
            memory_label.setText(
                self.tr("%1 MiB in use, %2 MiB at most")
                .replace("%1", locale.toString(sum(memory_now)))
                .replace("%2", locale.toString(top_memory))
                if not final
                else self.tr("%1 MiB at most").replace("%1", locale.toString(top_memory))
            )

    def _framework_text(self, event: Start) -> str:
        cuda = event.cuda_build
        kind = {
            "rocm": self.tr("ROCm build (HIP %1)").replace("%1", event.hip_build or "?"),
            "xpu": self.tr("Intel XPU build"),
            "mps": self.tr("Apple GPU through MPS (macOS %1)").replace(
                "%1", event.gpu_runtime_version or "?"
            ),
        }.get(event.gpu_kind or ("rocm" if event.hip_build else ""))
        build = kind or (
            self.tr("CUDA %1 build").replace("%1", cuda)
            if cuda
            else self.tr("CPU build (no CUDA)")
            if event.built_with_cuda is False
            else self.tr("build unknown")
        )
        return f"{framework_title(event.framework)} {event.framework_version or ''} · {build}"
