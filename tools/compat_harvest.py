"""Derive compatibility facts from the published wheels: ``python tools/compat_harvest.py --check|--write``.

Reads PyPI's JSON API and the PyTorch wheel index, and from the wheels themselves (by HTTP Range
requests, never a whole wheel) ``torch/version.py``, METADATA, the ``-gencode`` flags of the CUDA
library and TensorFlow's ``build_info.py``; compares what they say with ``resources/compat`` and
prints each disagreement (``--check``), or writes the facts into the data with their sources
(``--write``). ``--help`` lists the options; the code is in ``tools/harvest/``.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
if importlib.util.find_spec("gpuwizard") is None:  # not installed: the source root
    sys.path.insert(0, str(ROOT / "app"))

from harvest.cli import main  # noqa: E402 - needs the path above

if __name__ == "__main__":
    sys.exit(main())
