"""The live test's verdicts: their words, whether one passes, and what follows from it.

One module for every place that reads a verdict (``gpuwizard test``, ``verify``, ``apply``, the
Test, Summary and Verify pages, the support report), so they cannot drift apart:

- ``gpu_ok``: the framework trained on the GPU, the loss fell, GPU and CPU agree, and the GPU is
  clearly faster than the CPU;
- ``gpu_slow``: it trained on the GPU, correctly, but not clearly faster than on the CPU;
- ``cpu_only``: it trained, on the CPU only (the framework sees no GPU);
- ``broken``: it did not train.

A test stopped before it finished (Ctrl+C or SIGTERM on ``gpuwizard test``, the Test page's Stop)
has no verdict: its ``verdict`` is :data:`CANCELLED`, which never passes, is never recorded and
says nothing about the environment (``gpuwizard test`` exits 130, as ``apply`` and ``verify`` do).

**The pass rule** (:func:`passed`): training on the GPU passes, slow or not (slowness is a
warning: the setup works, and ``verify`` later reports a fall from ``gpu_ok`` to ``gpu_slow`` as
a change); the CPU passes only on a machine without an NVIDIA GPU a driver serves, since the CPU
is then all there is, and only when the plan expected no GPU (``gpu_expected``: the result's
``device_expected``, an AMD, Intel or Apple GPU the test was told to use); ``broken`` never passes. A test that passed is recorded as the last good
state, and ``gpuwizard test`` exits 0; otherwise nothing is recorded and it exits 1.

The words are English templates marked for Qt's ``lupdate`` in the ``verdicts`` context; the GUI
translates them (``ui.messages.display_text``), the command line prints them as they are.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

Verdict = Literal["gpu_ok", "gpu_slow", "cpu_only", "broken"]
VERDICTS: Final[tuple[Verdict, ...]] = ("gpu_ok", "gpu_slow", "cpu_only", "broken")
#: The ``verdict`` of a test stopped before it finished: none of :data:`VERDICTS`, no judgement.
CANCELLED: Final = "cancelled"
Level = Literal["ok", "warning", "error"]

# A CIFAR-shaped CNN at batch 256 runs tens of times faster on any CUDA GPU of the last
# decade than on a desktop CPU (PyTorch's own CIFAR-10 tutorial models: ~20-60x on a T4 vs 8
# cores); below 3x the GPU is throttled, shared, on a slow link, or the data path dominates.
GPU_SLOW_SPEEDUP: Final = 3.0

_CONTEXT: Final = "verdicts"


@dataclass(frozen=True)
class VerdictWords:
    """What a verdict says, in English templates (the ``verdicts`` translation context).

    Attributes:
        phrase: The verdict as a clause for a line or a list: "training works on the CPU only".
        headline: The verdict as a sentence, for a page's headline or the command line.
        headline_speedup: The same with the measured speed-up (``{speedup}``); None where none applies.
    """

    phrase: str
    headline: str
    headline_speedup: str | None = None


WORDS: Final[dict[str, VerdictWords]] = {
    "gpu_ok": VerdictWords(
        QT_TRANSLATE_NOOP("verdicts", "the GPU trains, clearly faster than the CPU"),
        QT_TRANSLATE_NOOP("verdicts", "Your GPU trains."),
        QT_TRANSLATE_NOOP("verdicts", "Your GPU trains, {speedup}× faster than the CPU."),
    ),
    "gpu_slow": VerdictWords(
        QT_TRANSLATE_NOOP("verdicts", "the GPU trains, but not clearly faster than the CPU"),
        QT_TRANSLATE_NOOP("verdicts", "Your GPU trains, but not clearly faster than the CPU."),
        QT_TRANSLATE_NOOP("verdicts", "Your GPU trains, but only {speedup}× faster than the CPU."),
    ),
    "cpu_only": VerdictWords(
        QT_TRANSLATE_NOOP("verdicts", "training works on the CPU only"),
        QT_TRANSLATE_NOOP("verdicts", "Training works on the CPU only."),
    ),
    "broken": VerdictWords(
        QT_TRANSLATE_NOOP("verdicts", "training does not work in this environment"),
        QT_TRANSLATE_NOOP("verdicts", "Training does not work in this environment."),
    ),
    CANCELLED: VerdictWords(
        QT_TRANSLATE_NOOP("verdicts", "the test was stopped before it finished"),
        QT_TRANSLATE_NOOP("verdicts", "The test was stopped before it finished: no verdict."),
    ),
}


def passed(verdict: str, machine_has_nvidia_gpu: bool | None, *, gpu_expected: bool = False) -> bool:
    """Whether a verdict counts as a pass on this machine (the rule above).

    ``machine_has_nvidia_gpu``: whether the machine has an NVIDIA GPU a driver serves; None
    (unknown) is taken as yes, so a CPU-only result is never called a pass by mistake.
    ``gpu_expected``: the test was told which GPU to use (its result's ``device_expected``), so
    training on the CPU is a failure whatever the machine's NVIDIA GPUs.

    >>> [passed(v, True) for v in VERDICTS]
    [True, True, False, False]
    >>> [passed(v, False) for v in VERDICTS], passed(CANCELLED, False)
    ([True, True, True, False], False)
    >>> passed("cpu_only", False, gpu_expected=True), passed("gpu_ok", False, gpu_expected=True)
    (False, True)
    """
    if verdict in ("gpu_ok", "gpu_slow"):
        return True
    return verdict == "cpu_only" and machine_has_nvidia_gpu is False and not gpu_expected


def on_gpu(verdict: str) -> bool:
    """Whether the test trained on a GPU (slow or not)."""
    return verdict in ("gpu_ok", "gpu_slow")


def level(verdict: str, machine_has_nvidia_gpu: bool | None, *, gpu_expected: bool = False) -> Level:
    """How a verdict reads at a glance: ``ok``, a ``warning`` (works, but not as it should), an ``error``.

    >>> [level(v, True) for v in VERDICTS]
    ['ok', 'warning', 'warning', 'error']
    >>> level("cpu_only", False), level("from_a_newer_wizard", False), level(CANCELLED, True)
    ('ok', 'warning', 'warning')
    """
    if verdict == "broken":
        return "error"
    if verdict == "gpu_slow" or not passed(verdict, machine_has_nvidia_gpu, gpu_expected=gpu_expected):
        return "warning"
    return "ok"


def phrase(verdict: str) -> TranslatableText:
    """The verdict as a clause ("training works on the CPU only"); an unknown verdict as it is."""
    words = WORDS.get(verdict)
    return TranslatableText(_CONTEXT, words.phrase) if words else TranslatableText(_CONTEXT, "{v}", v=verdict)


def headline(verdict: str, speedup: str | None = None) -> TranslatableText:
    """The verdict as a sentence; with ``speedup`` (already formatted), the one that says it."""
    words = WORDS.get(verdict, WORDS["broken"])
    if speedup is not None and words.headline_speedup is not None:
        return TranslatableText(_CONTEXT, words.headline_speedup, speedup=speedup)
    return TranslatableText(_CONTEXT, words.headline)
