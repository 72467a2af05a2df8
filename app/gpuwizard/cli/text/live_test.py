"""``gpuwizard test`` as text: what runs now, a line per few steps, then the verdict and why.

The slow preparations before the first step (importing the framework, starting CUDA, compiling
the model) get a line each as the probe announces them (``prepare`` events); on a terminal the
line also shows a spinner and the seconds spent so far, redrawn in place (a carriage return) by a ticker
thread, so a pause of many seconds visibly moves. Piped output gets plain lines only.

After the training, the ``libraries`` event lists each CUDA library the test loaded and the file
it came from (a wheel's folder, a toolkit on PATH, the driver), and what the DLL start-up hook
of a Windows environment with NVIDIA's wheels did.
"""

from __future__ import annotations

import threading
import time
from typing import Final

from gpuwizard.cli.common import Write
from gpuwizard.cli.text.findings import bracketed
from gpuwizard.core.events import Event
from gpuwizard.core.livetest.devices import KIND_NAMES
from gpuwizard.core.livetest.events import (
    Device,
    FindingEvent,
    Libraries,
    LiveTestResult,
    Matmul,
    Phase,
    Prepare,
    Start,
    Step,
)
from gpuwizard.core.livetest.stages import phase_line, stage_line
from gpuwizard.core.livetest.verdicts import headline

_SPINNER: Final = "|/-\\"
#: How often the terminal's preparation line is redrawn.
TICK_S: Final = 0.25


class LiveTestProgress:
    """A newcomer's view: what runs now, a line per few steps, then the verdict and why.

    With ``live`` (a terminal), the line of a slow preparation is redrawn with a spinner and the
    seconds spent until the next line replaces it; :meth:`stop` ends the ticker.
    """

    def __init__(self, write: Write, *, live: bool = False) -> None:
        self.write = write
        self.live = live
        self._lock = threading.Lock()  # events come from the runner's threads, ticks from the ticker
        self._stage: str | None = None
        self._stage_began = 0.0
        self._frame = 0
        self._stopped = threading.Event()
        self._ticker: threading.Thread | None = None
        if live:
            self._ticker = threading.Thread(target=self._tick_until_stopped, name="test-ticker", daemon=True)
            self._ticker.start()

    def __call__(self, event: Event) -> None:
        """Show one event of the test."""
        with self._lock:
            text = self._text(event)
            if isinstance(event, Prepare):
                self._end_stage()
                self._stage, self._stage_began = f"  {stage_line(event)}", time.monotonic()
                self.write(self._stage if self.live else f"{self._stage}\n")
            elif text:
                self._end_stage()
                self.write(text)

    def tick(self) -> None:
        """Redraw the preparation line on a terminal: spinner and seconds (nothing otherwise)."""
        with self._lock:
            if not self.live or self._stage is None:
                return
            self._frame = (self._frame + 1) % len(_SPINNER)
            seconds = int(time.monotonic() - self._stage_began)
            self.write(f"\r{self._stage} {_SPINNER[self._frame]} {seconds} s ")

    def stop(self) -> None:
        """End the ticker (the test is over); an open preparation line is closed."""
        self._stopped.set()
        if self._ticker is not None:
            self._ticker.join()
        with self._lock:
            self._end_stage()

    def _tick_until_stopped(self) -> None:
        while not self._stopped.wait(TICK_S):
            self.tick()

    def _end_stage(self) -> None:
        if self._stage is not None and self.live:
            seconds = time.monotonic() - self._stage_began
            self.write(f"\r{self._stage} {seconds:.0f} s   \n")
        self._stage = None

    def _text(self, event: Event) -> str:  # noqa: PLR0911 - one return per kind of event
        match event:
            case Start():
                return start_text(event)
            case Device():
                return f"  sees {'gpu' if event.is_gpu else 'cpu'}{_gpu_kind(event)}: {event.label}\n"
            case Phase():
                return f"- {phase_line(event)}\n"
            case Step(loss=float(loss)) if event.step % 5 == 0:
                return (
                    f"    step {event.step:>3}  loss {loss:.3f}  {event.samples_per_s or 0:,.0f} samples/s\n"
                )
            case Matmul():
                return f"    matrix multiply ({event.dtype}): {event.tflops or 0:.1f} TFLOP/s\n"
            case FindingEvent():
                return bracketed(event.severity, event.message, event.hint)
            case LiveTestResult():
                return result_text(event)
            case Libraries():
                return libraries_text(event)
        return ""


def start_text(event: Start) -> str:
    """What is tested: the framework and its build; the GPU kind the plan expects, when it names one.

    A CUDA or CPU build reads as it always did; a ROCm build names its HIP, an XPU or MPS run
    its runtime.
    """
    if event.cuda_build:
        build = f"CUDA build: {event.cuda_build}"
    elif event.hip_build:
        build = f"ROCm build: HIP {event.hip_build}"
    elif event.gpu_kind in ("xpu", "mps"):
        version = f" {event.gpu_runtime_version}" if event.gpu_runtime_version else ""
        build = f"{KIND_NAMES[event.gpu_kind]}{' on macOS' if event.gpu_kind == 'mps' else ''}{version}"
    else:
        build = "CUDA build: none (CPU build)"
    line = f"Testing {event.framework} {event.framework_version} ({build})\n"
    if event.device_requested:
        line += f"  expects: {KIND_NAMES.get(event.device_requested, event.device_requested)} GPU\n"
    return line


def _gpu_kind(event: Device) -> str:
    """`` (ROCm, gfx942:sramecc+:xnack-)`` for a GPU of a kind other than CUDA; CUDA's line is as it was."""
    if not event.is_gpu or event.gpu_kind in (None, "cuda"):
        return ""
    name = KIND_NAMES.get(event.gpu_kind or "", event.gpu_kind or "")
    return f" ({name}, {event.gcn_arch})" if event.gcn_arch else f" ({name})"


def libraries_text(event: Libraries) -> str:
    """Each CUDA library loaded and where from; the DLL hook's work, when the environment has one."""
    libraries = event.cuda_libraries
    if libraries:
        width = max(len(library.name) for library in libraries)
        lines = ["  CUDA libraries loaded, and where from:"]
        lines += [f"    {library.name:<{width}}  {library.path}" for library in libraries]
    else:
        lines = ["  CUDA libraries loaded: none (no CUDA library was used)"]
    if event.cuda_libraries_error:
        lines.append(f"    (the list could not be read: {event.cuda_libraries_error})")
    hook = event.dll_hook
    if hook is not None and hook.active:
        count = len(hook.folders)
        lines.append(
            f"  DLL hook: {count} NVIDIA wheel folder{'s' if count != 1 else ''} on the DLL search path"
        )
    elif hook is not None:
        lines.append(f"  DLL hook: added no folder ({hook.problem or 'no nvidia bin folder found'})")
    return "\n".join(lines) + "\n"


def result_text(result: LiveTestResult) -> str:
    """The verdict in words, with the loss, the speeds and where it ran; or that it was cancelled."""
    if result.cancelled:
        return (
            f"\nCancelled. {headline(result.verdict)} Nothing was recorded; run it again for a verdict.\n"
            f"  {result.seconds} s; interpreter {result.python}\n"
        )
    lines = [f"\nVerdict: {result.verdict}. {headline(result.verdict)}"]
    if result.loss_first is not None:
        lines.append(f"  loss {result.loss_first} -> {result.loss_last}")
    if result.samples_per_s_gpu:
        lines.append(
            f"  GPU {result.samples_per_s_gpu:,.0f} samples/s, CPU {result.samples_per_s_cpu or 0:,.0f} samples/s"
        )
        if result.speedup:
            lines.append(f"  the GPU is {result.speedup}x the CPU")
    elif result.samples_per_s_cpu:
        lines.append(f"  CPU {result.samples_per_s_cpu:,.0f} samples/s")
    if result.gpu_kind not in (None, "cuda"):  # CUDA's lines are as they always were
        runtime = f", runtime {result.gpu_runtime_version}" if result.gpu_runtime_version else ""
        lines.append(f"  GPU kind: {KIND_NAMES.get(result.gpu_kind or '', result.gpu_kind)}{runtime}")
    elif result.device_expected and result.verdict == "cpu_only":
        expected = KIND_NAMES.get(result.device_expected, result.device_expected)
        lines.append(f"  expected GPU: {expected}; the framework sees none (the finding above says why)")
    lines.append(f"  {result.seconds} s; interpreter {result.python}")
    return "\n".join(lines) + "\n"
