"""GPU Setup Wizard: detect the GPU, recommend a framework set, build it, and prove it trains.

The import package is laid out in layers (docs/architecture.md, "The layers"): ``core``
(pure logic), ``adapters`` (the only code that touches the outside world), ``workflow``
(orchestration), ``probes`` (scripts run inside other interpreters) and ``ui`` (the PySide6
shell).
"""

from __future__ import annotations

__version__ = "0.1.0"
