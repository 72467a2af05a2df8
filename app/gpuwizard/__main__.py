"""``python -m gpuwizard``: the same entry point as the ``gpuwizard`` command."""

from __future__ import annotations

import sys

from gpuwizard.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
