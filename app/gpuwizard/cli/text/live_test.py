"""``gpuwizard test`` as text: what runs now, a line per few steps, then the verdict and why."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from gpuwizard.cli.common import Write
from gpuwizard.cli.text.findings import bracketed

_VERDICT_TEXT: Final = {
    "gpu_ok": "The GPU trains, and it is clearly faster than the CPU.",
    "gpu_slow": "The GPU trains, but it is not clearly faster than the CPU.",
    "cpu_only": "Training works, but on the CPU only: the framework sees no GPU.",
    "broken": "Training does not work in this environment.",
}


class LiveTestProgress:
    """A newcomer's view: what runs now, a line per few steps, then the verdict and why."""

    def __init__(self, write: Write) -> None:
        self.write = write

    def __call__(self, event: Mapping[str, Any]) -> None:
        """Show one event of the test."""
        kind = event.get("event")
        if kind == "start":
            cuda = event.get("cuda_build") or "none (CPU build)"
            self.write(
                f"Testing {event.get('framework')} {event.get('framework_version')} (CUDA build: {cuda})\n"
            )
        elif kind == "device":
            self.write(f"  sees {event.get('kind')}: {event.get('name')}\n")
        elif kind == "phase":
            device = f" on the {event['device'].upper()}" if event.get("device") else ""
            self.write(f"- {event.get('phase')}{device}\n")
        elif kind == "step" and int(event.get("step", 0)) % 5 == 0:
            self.write(
                f"    step {event['step']:>3}  loss {float(event['loss']):.3f}  "
                f"{float(event['samples_per_s']):,.0f} samples/s\n"
            )
        elif kind == "matmul":
            self.write(
                f"    matrix multiply ({event.get('dtype')}): {float(event.get('tflops', 0)):.1f} TFLOP/s\n"
            )
        elif kind == "finding":
            self.write(bracketed(str(event["severity"]), str(event["message"]), str(event["hint"])))
        elif kind == "result":
            self.write(result_text(event))


def result_text(event: Mapping[str, Any]) -> str:
    """The verdict in words, with the loss, the speeds and where it ran."""
    rates = event.get("samples_per_s") or {}
    lines = [f"\nVerdict: {event['verdict']}. {_VERDICT_TEXT[event['verdict']]}"]
    if event.get("loss_first") is not None:
        lines.append(f"  loss {event['loss_first']} -> {event['loss_last']}")
    if rates.get("gpu"):
        lines.append(f"  GPU {rates['gpu']:,.0f} samples/s, CPU {rates.get('cpu') or 0:,.0f} samples/s")
        if event.get("speedup"):
            lines.append(f"  the GPU is {event['speedup']}x the CPU")
    elif rates.get("cpu"):
        lines.append(f"  CPU {rates['cpu']:,.0f} samples/s")
    lines.append(f"  {event['seconds']} s; interpreter {event.get('python')}")
    return "\n".join(lines) + "\n"
