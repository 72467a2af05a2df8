"""What the live test is preparing, in words: the probe's ``prepare`` events for people.

Before its first measured step the probe can sit for seconds with no step to show: importing
the framework, creating the CUDA context on the GPU, building the model and running its first
steps. It says which with a ``prepare`` event (:class:`~gpuwizard.core.livetest.events.Prepare`);
this module gives each stage a short line and a sentence on why it takes a while, as English
templates marked for Qt's ``lupdate`` in the ``stages`` context (the Test page translates them
with ``ui.messages.display_text``, ``gpuwizard test`` prints them as they are).

Why each is slow, measured with torch 2.13.0 (CPU build) on a 2-core VM; on an H100 with torch
2.11.0+cu130 (driver 580.159.04) the probe spent 4.5 s importing (the devices' query included),
0.2 s on the CUDA context (the query had started CUDA) and 11.1 s compiling for the GPU before
its first step:

- ``import``: ``import torch`` took 3.2 s there and loaded 1,039 modules (``python -X importtime``),
  more with cold disk caches;
- ``cuda_context``: the first allocation on a GPU creates its CUDA context and loads the
  framework's kernels (CUDA C Programming Guide, "Initialization": the runtime creates the
  primary context on first use; with lazy loading, kernels load when first needed);
- ``compile``: building the model and its first steps: creating PyTorch's first Adam
  optimizer imported ``torch._dynamo`` (4.5 s of the 5.6 s warm-up there), cuDNN's autotuner
  tries kernels on the first steps (``torch.backends.cudnn.benchmark``), TensorFlow traces its
  ``tf.function`` on the first call.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.livetest.events import Prepare
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

_CONTEXT: Final = "stages"

_LINES: Final[dict[str, str]] = {
    "import": QT_TRANSLATE_NOOP("stages", "Importing {framework}…"),
    "cuda_context": QT_TRANSLATE_NOOP("stages", "Starting CUDA on the GPU…"),
    "compile:gpu": QT_TRANSLATE_NOOP("stages", "Compiling the model for the GPU…"),
    "compile:cpu": QT_TRANSLATE_NOOP("stages", "Compiling the model for the CPU…"),
    "compile": QT_TRANSLATE_NOOP("stages", "Compiling the model…"),
}

_WHY: Final[dict[str, str]] = {
    "import": QT_TRANSLATE_NOOP(
        "stages",
        "A framework loads about a thousand modules and large native libraries; the next time is faster.",
    ),
    "cuda_context": QT_TRANSLATE_NOOP(
        "stages", "The driver sets the GPU up for this program and loads the framework's GPU code."
    ),
    "compile": QT_TRANSLATE_NOOP(
        "stages",
        "The first training steps prepare the model: the framework picks and tunes its kernels. "
        "The steps after them are quick.",
    ),
}


def stage_line(stage: Prepare) -> TranslatableText:
    """What is being prepared, as a short line ("Importing PyTorch…"); an unknown stage by its name.

    >>> from gpuwizard.core.livetest.events import event_from_json
    >>> str(stage_line(event_from_json({"event": "prepare", "stage": "import", "framework": "pytorch"})))
    'Importing PyTorch…'
    >>> str(stage_line(event_from_json({"event": "prepare", "stage": "compile", "device": "cpu"})))
    'Compiling the model for the CPU…'
    >>> str(stage_line(event_from_json({"event": "prepare", "stage": "link_time_magic"})))
    'link_time_magic…'
    """
    if stage.stage == "import":
        return TranslatableText(_CONTEXT, _LINES["import"], framework=framework_title(stage.framework or ""))
    template = _LINES.get(f"{stage.stage}:{stage.device}") or _LINES.get(stage.stage)
    if template is None:
        return TranslatableText(_CONTEXT, "{stage}…", stage=stage.stage)
    return TranslatableText(_CONTEXT, template)


def stage_why(stage: Prepare) -> TranslatableText | None:
    """Why this stage takes a while, in a sentence; None for a stage this version does not know."""
    template = _WHY.get(stage.stage)
    return None if template is None else TranslatableText(_CONTEXT, template)
