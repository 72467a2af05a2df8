"""The frozen programs' entry point (gpuwizard.exe and gpuwizardw.exe): the ``gpuwizard`` command."""

import sys

from gpuwizard.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
