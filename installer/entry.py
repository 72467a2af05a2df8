"""The frozen programs' entry point (gpuwizard.exe and gpuwizardw.exe): the ``gpuwizard`` command.

``gpuwizard.exe --rattler-engine ...`` is the conda engine (issue 23), which the wizard starts
as ``python -m gpuwizard.adapters.envs.rattler_engine`` when it is not frozen: a frozen program
has no ``-m`` (gpuwizard.adapters.envs.rattler_backend.engine_argv).
"""

import sys

from gpuwizard.adapters.envs.rattler_backend import FROZEN_ENGINE_FLAG
from gpuwizard.cli.main import main

if __name__ == "__main__":
    if sys.argv[1:2] == [FROZEN_ENGINE_FLAG]:
        from gpuwizard.adapters.envs.rattler_engine import run_and_exit

        run_and_exit(sys.argv[2:])
    sys.exit(main())
