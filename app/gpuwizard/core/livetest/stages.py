"""What the live test is doing, in words: the probe's ``phase`` and ``prepare`` events for people.

The probe goes through phases (:data:`~gpuwizard.core.livetest.events.LiveTestPhase`: making
the data, warming up and training on each device, measuring the GPU's matrix multiply,
comparing GPU and CPU), each announced by a ``phase`` event. Before its first measured step it
can sit for seconds with no step to show: importing the framework, creating the CUDA context on
the GPU, building the model and running its first steps. It says which with a ``prepare`` event
(:class:`~gpuwizard.core.livetest.events.Prepare`, :data:`~gpuwizard.core.livetest.events.PrepareStage`).
This module gives each phase and stage a short line, and each stage a sentence on why it takes a
while, as English templates marked for Qt's ``lupdate`` in the ``stages`` context (the Test
page translates them with ``ui.messages.display_text``, ``gpuwizard test`` prints them as they
are). A phase or stage this version does not know (a newer probe's) is said by its name.

Why each stage is slow, measured with torch 2.13.0 (CPU build) on a 2-core VM; on an H100 with
torch 2.11.0+cu130 (driver 580.159.04) the probe spent 4.5 s importing (the devices' query
included), 0.2 s on the CUDA context (the query had started CUDA) and 11.1 s compiling for the
GPU before its first step:

- ``import``: ``import torch`` took 3.2 s there and loaded 1,039 modules (``python -X importtime``),
  more with cold disk caches;
- ``cuda_context``: the first allocation on a GPU creates its CUDA context and loads the
  framework's kernels (CUDA C Programming Guide, "Initialization": the runtime creates the
  primary context on first use; with lazy loading, kernels load when first needed);
  ``rocm_context``, ``xpu_context`` and ``mps_context`` are the same first use on an AMD GPU
  (HIP), an Intel GPU (Level Zero through SYCL) and an Apple GPU (Metal);
- ``compile``: building the model and its first steps: creating PyTorch's first Adam
  optimizer imported ``torch._dynamo`` (4.5 s of the 5.6 s warm-up there), cuDNN's autotuner
  tries kernels on the first steps (``torch.backends.cudnn.benchmark``), TensorFlow traces its
  ``tf.function`` on the first call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, cast

from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.livetest.events import LiveTestPhase, Phase, Prepare, PrepareStage
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

_CONTEXT: Final = "stages"

#: Each phase in words; ``{device}`` is :data:`DEVICE_WORDS`' words for the phase's device.
PHASE_WORDS: Final[Mapping[LiveTestPhase, str]] = {
    "data": QT_TRANSLATE_NOOP("stages", "Making the training data…"),
    "warmup": QT_TRANSLATE_NOOP("stages", "Warming up on {device}…"),
    "train": QT_TRANSLATE_NOOP("stages", "Training on {device}…"),
    "matmul": QT_TRANSLATE_NOOP("stages", "Measuring the GPU's matrix multiply rate…"),
    "compare": QT_TRANSLATE_NOOP("stages", "Checking that the GPU and the CPU compute the same…"),
}

#: A phase's device in words; any other (or none) is "the device".
DEVICE_WORDS: Final[Mapping[str, str]] = {
    "gpu": QT_TRANSLATE_NOOP("stages", "the GPU"),
    "cpu": QT_TRANSLATE_NOOP("stages", "the CPU"),
}
_ANY_DEVICE: Final = QT_TRANSLATE_NOOP("stages", "the device")

#: Each stage in words (``import``'s ``{framework}``: the framework's name).
STAGE_WORDS: Final[Mapping[PrepareStage, str]] = {
    "import": QT_TRANSLATE_NOOP("stages", "Importing {framework}…"),
    "cuda_context": QT_TRANSLATE_NOOP("stages", "Starting CUDA on the GPU…"),
    "rocm_context": QT_TRANSLATE_NOOP("stages", "Starting ROCm on the GPU…"),
    "xpu_context": QT_TRANSLATE_NOOP("stages", "Starting the Intel GPU runtime…"),
    "mps_context": QT_TRANSLATE_NOOP("stages", "Starting Metal on the GPU…"),
    "compile": QT_TRANSLATE_NOOP("stages", "Compiling the model…"),
}

#: A stage on a named device, where that says more.
_STAGE_ON_DEVICE: Final[Mapping[tuple[str, str], str]] = {
    ("compile", "gpu"): QT_TRANSLATE_NOOP("stages", "Compiling the model for the GPU…"),
    ("compile", "cpu"): QT_TRANSLATE_NOOP("stages", "Compiling the model for the CPU…"),
}

_WHY: Final[Mapping[PrepareStage, str]] = {
    "import": QT_TRANSLATE_NOOP(
        "stages",
        "A framework loads about a thousand modules and large native libraries; the next time is faster.",
    ),
    "cuda_context": QT_TRANSLATE_NOOP(
        "stages", "The driver sets the GPU up for this program and loads the framework's GPU code."
    ),
    # The same sentence for every GPU runtime: HIP, Level Zero and Metal start up as CUDA does.
    "rocm_context": QT_TRANSLATE_NOOP(
        "stages", "The driver sets the GPU up for this program and loads the framework's GPU code."
    ),
    "xpu_context": QT_TRANSLATE_NOOP(
        "stages", "The driver sets the GPU up for this program and loads the framework's GPU code."
    ),
    "mps_context": QT_TRANSLATE_NOOP(
        "stages", "The driver sets the GPU up for this program and loads the framework's GPU code."
    ),
    "compile": QT_TRANSLATE_NOOP(
        "stages",
        "The first training steps prepare the model: the framework picks and tunes its kernels. "
        "The steps after them are quick.",
    ),
}


def phase_line(phase: Phase) -> TranslatableText:
    """What the test does now, as a short line ("Training on the GPU…"); an unknown phase by its name.

    >>> str(phase_line(Phase(phase="warmup", device="cpu"))), str(phase_line(Phase(phase="data")))
    ('Warming up on the CPU…', 'Making the training data…')
    >>> str(phase_line(Phase(phase="distil", device="gpu")))
    'distil…'
    """
    template = cast(Mapping[str, str], PHASE_WORDS).get(phase.phase)  # any str: a newer probe's too
    if template is None:
        return TranslatableText(_CONTEXT, "{phase}…", phase=phase.phase)
    device = TranslatableText(_CONTEXT, DEVICE_WORDS.get(phase.device or "", _ANY_DEVICE))
    return TranslatableText(_CONTEXT, template, device=device)


def stage_line(stage: Prepare) -> TranslatableText:
    """What is being prepared, as a short line ("Importing PyTorch…"); an unknown stage by its name.

    >>> str(stage_line(Prepare(stage="import", framework="pytorch")))
    'Importing PyTorch…'
    >>> str(stage_line(Prepare(stage="compile", device="cpu")))
    'Compiling the model for the CPU…'
    >>> str(stage_line(Prepare(stage="link_time_magic")))
    'link_time_magic…'
    """
    if stage.stage == "import":
        return TranslatableText(
            _CONTEXT, STAGE_WORDS["import"], framework=framework_title(stage.framework or "")
        )
    template = _STAGE_ON_DEVICE.get((stage.stage, stage.device or "")) or cast(
        Mapping[str, str], STAGE_WORDS
    ).get(stage.stage)
    if template is None:
        return TranslatableText(_CONTEXT, "{stage}…", stage=stage.stage)
    return TranslatableText(_CONTEXT, template)


def stage_why(stage: Prepare) -> TranslatableText | None:
    """Why this stage takes a while, in a sentence; None for a stage this version does not know."""
    template = cast(Mapping[str, str], _WHY).get(stage.stage)
    return None if template is None else TranslatableText(_CONTEXT, template)
