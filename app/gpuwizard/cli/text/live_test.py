"""``gpuwizard test`` as text: what runs now, a line per few steps, then the verdict and why."""

from __future__ import annotations

from gpuwizard.cli.common import Write
from gpuwizard.cli.text.findings import bracketed
from gpuwizard.core.livetest.events import (
    Device,
    FindingEvent,
    LiveTestEvent,
    LiveTestResult,
    Matmul,
    Phase,
    Start,
    Step,
)
from gpuwizard.core.livetest.verdicts import headline


class LiveTestProgress:
    """A newcomer's view: what runs now, a line per few steps, then the verdict and why."""

    def __init__(self, write: Write) -> None:
        self.write = write

    def __call__(self, event: LiveTestEvent) -> None:
        """Show one event of the test."""
        if isinstance(event, Start):
            cuda = event.cuda_build or "none (CPU build)"
            self.write(f"Testing {event.framework} {event.framework_version} (CUDA build: {cuda})\n")
        elif isinstance(event, Device):
            self.write(f"  sees {'gpu' if event.is_gpu else 'cpu'}: {event.name}\n")
        elif isinstance(event, Phase):
            device = f" on the {event.device.upper()}" if event.device else ""
            self.write(f"- {event.phase}{device}\n")
        elif isinstance(event, Step) and event.step % 5 == 0 and event.loss is not None:
            self.write(
                f"    step {event.step:>3}  loss {event.loss:.3f}  {event.samples_per_s or 0:,.0f} samples/s\n"
            )
        elif isinstance(event, Matmul):
            self.write(f"    matrix multiply ({event.dtype}): {event.tflops or 0:.1f} TFLOP/s\n")
        elif isinstance(event, FindingEvent):
            finding = event.finding
            self.write(bracketed(finding.severity, finding.message, finding.hint))
        elif isinstance(event, LiveTestResult):
            self.write(result_text(event))


def result_text(result: LiveTestResult) -> str:
    """The verdict in words, with the loss, the speeds and where it ran."""
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
    lines.append(f"  {result.seconds} s; interpreter {result.python}")
    return "\n".join(lines) + "\n"
