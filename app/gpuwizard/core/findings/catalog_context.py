"""The sentences that make a diagnosis exact for one machine: the build to install on it.

When a log is diagnosed where a system report is at hand (``gpuwizard diagnose --system FILE``,
this machine, the live test's own failure), a finding whose fix is "install a build that fits"
opens its hint with one of these sentences, filled from the recommender's plan for the machine
(:mod:`gpuwizard.core.compat.diagnosis_context`). Where that build is the whole fix (no kernel
image for the GPU, a CPU-only build, a Python without wheels), the sentence replaces the generic
advice, and what the generic advice says beyond the build follows it (:data:`CONTEXT_TAILS`);
elsewhere the generic advice follows the sentence. The finding keeps the key in its parameter
``context_hint`` (and ``context_replaces``), so the GUI translates the same sentences and refills
them (:func:`context_hint`). On a machine without an NVIDIA GPU, the sentence puts the CPU way first
(``no_nvidia_gpu``) or says that the log's complaint does not matter there, as the log itself
says (``no_nvidia_gpu_dlerror``, ``no_nvidia_gpu_tensorflow``). Where the log's machine is unknown,
such a complaint opens with both readings, and the generic advice (for a machine with a GPU)
follows (``reassured_dlerror``, ``gpu_unknown_tensorflow``: :mod:`.gpu_readings`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The sentences, by the key kept in ``params["context_hint"]``.
CONTEXT_HINTS: Final[dict[str, str]] = {
    "build": QT_TRANSLATE_NOOP(
        "findings",
        "For this machine ({machine_gpu}, compute capability {machine_capability}, driver "
        "{machine_driver}), install {machine_build}: '{machine_command}'.",
    ),
    "build_other_python": QT_TRANSLATE_NOOP(
        "findings",
        "For this machine ({machine_gpu}, compute capability {machine_capability}, driver "
        "{machine_driver}), install {machine_build} with Python {machine_python} (there is no such "
        "build for Python {log_python}, which the log shows): '{machine_command}'.",
    ),
    "build_after_driver_update": QT_TRANSLATE_NOOP(
        "findings",
        "For this machine ({machine_gpu}, compute capability {machine_capability}, driver "
        "{machine_driver}), {machine_build} fits once the NVIDIA driver is updated to "
        "{machine_min_driver} or newer; then: '{machine_command}'.",
    ),
    "no_gpu_build": QT_TRANSLATE_NOOP(
        "findings",
        "For this machine ({machine_gpu}, compute capability {machine_capability}, driver "
        "{machine_driver}), no {machine_framework} build that this wizard knows uses the GPU; "
        "{machine_build} runs on the CPU: '{machine_command}'.",
    ),
    # A machine without an NVIDIA GPU (core/findings/no_gpu.py): the CPU is the way there.
    "no_nvidia_gpu": QT_TRANSLATE_NOOP(
        "findings",
        "This machine has no NVIDIA GPU, so the CPU build is the one that runs here: run the code on "
        "the CPU (device 'cpu' instead of 'cuda'; many programs have an option for it, such as --cpu "
        "or --device cpu).",
    ),
    "no_nvidia_gpu_dlerror": QT_TRANSLATE_NOOP(
        "findings",
        "This machine has no NVIDIA GPU, so TensorFlow runs on the CPU without {libraries}, as the "
        "log's next line says ('Ignore above cudart dlerror if you do not have a GPU set up on your "
        "machine'): nothing needs fixing.",
    ),
    "no_nvidia_gpu_tensorflow": QT_TRANSLATE_NOOP(
        "findings",
        "This machine has no NVIDIA GPU, so TensorFlow runs on the CPU here, as the log says: nothing "
        "needs fixing.",
    ),
    # A log whose machine is unknown (core/findings/gpu_readings.py): both readings, the one
    # without a GPU first; the generic advice, for a machine with one, follows.
    "reassured_dlerror": QT_TRANSLATE_NOOP(
        "findings",
        "The log itself says to ignore this where no GPU is set up ('Ignore above cudart dlerror if you "
        "do not have a GPU set up on your machine'): on a machine without an NVIDIA GPU, TensorFlow runs "
        "on the CPU and nothing needs fixing. On a machine with one:",
    ),
    "gpu_unknown_tensorflow": QT_TRANSLATE_NOOP(
        "findings",
        "If the machine this log comes from has no NVIDIA GPU, this is expected: TensorFlow runs on the "
        "CPU there, and nothing needs fixing. If it has one:",
    ),
}

#: Where the GPU way is, after a sentence for a machine without an NVIDIA GPU.
_ELSEWHERE: Final = QT_TRANSLATE_NOOP(
    "findings",
    "For GPU training, run it on a machine with an NVIDIA GPU, with a CUDA build of the framework.",
)
#: What follows the machine's sentence of these keys when it replaces the generic advice,
#: whatever the code (before :data:`CONTEXT_TAILS`, which is by code).
KEY_TAILS: Final[dict[str, str]] = {
    "no_nvidia_gpu": _ELSEWHERE,
    "no_nvidia_gpu_dlerror": _ELSEWHERE,
    "no_nvidia_gpu_tensorflow": _ELSEWHERE,
}


#: What follows the machine's sentence when it replaces a code's generic advice.
CONTEXT_TAILS: Final[dict[str, str]] = {
    "NO_KERNEL_IMAGE": QT_TRANSLATE_NOOP(
        "findings",
        "If the error comes from an extension built separately (detectron2, mamba-ssm, flash-attn), "
        "rebuild or reinstall it for this GPU.",
    ),
    "GPU_ARCH_UNSUPPORTED": QT_TRANSLATE_NOOP(
        "findings",
        "Until then, GPU work fails with 'no kernel image is available for execution on the device'.",
    ),
    "CPU_ONLY_BUILD": QT_TRANSLATE_NOOP(
        "findings",
        "Uninstall the CPU build first ('pip uninstall torch'), so that pip does not keep it.",
    ),
}


def context_hint(
    code: str, params: Mapping[str, str], generic: str, translate: Callable[[str], str] = lambda text: text
) -> str:
    """A finding's hint with the machine's sentence, from its parameters; ``generic`` without one.

    ``generic`` is the code's own hint (translated, for the GUI); ``translate`` turns English
    templates into the reader's language.
    """
    sentence = context_sentence(params, translate)
    if sentence is None:
        return generic
    if params.get("context_replaces") != "yes":
        return f"{sentence} {generic}"
    tail = KEY_TAILS.get(params.get("context_hint", "")) or CONTEXT_TAILS.get(code)
    return f"{sentence} {translate(tail)}" if tail else sentence


def context_sentence(
    params: Mapping[str, str], translate: Callable[[str], str] = lambda text: text
) -> str | None:
    """The machine's sentence a finding's hint opens with, or None when it has none.

    ``translate`` turns the English template into the reader's language (the GUI passes Qt's).

    >>> context_sentence({"context_hint": "no_gpu_build", "machine_gpu": "Tesla K80",
    ...     "machine_capability": "3.7", "machine_driver": "470.256.02", "machine_framework": "PyTorch",
    ...     "machine_build": "PyTorch 2.14.1 (CPU)", "machine_command": "pip install torch"})[:40]
    'For this machine (Tesla K80, compute cap'
    >>> context_sentence({}) is None
    True
    """
    template = CONTEXT_HINTS.get(params.get("context_hint", ""))
    if template is None:
        return None
    try:
        return translate(template).format(**params)
    except (KeyError, IndexError):
        return None
