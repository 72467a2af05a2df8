"""Probes of an environment inside WSL 2, run from Windows (issue 39, point 3): ``test`` and ``verify``.

:func:`~gpuwizard.workflow.livetest.run.run_live_test` runs the training probe, and ``verify``
the environment report probe, through a streaming runner and read their JSON lines; here the
runner sends them into the distribution instead: the probes copied there when the environment
was made (``~/.local/share/gpuwizard/probes/``), run by the environment's interpreter under the
wizard's helper, which stops them there when the run is cancelled or runs out of time (ending
``wsl.exe`` alone would leave them running: microsoft/WSL#2496). Their lines come back as they
are, so the Test page, ``gpuwizard test --env NAME``, ``verify`` and the verdict are the same as
for any environment. The GPU's use is sampled on Windows (NVML sees the GPU WSL 2 computes on).
"""

from __future__ import annotations

import posixpath
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from gpuwizard import probes
from gpuwizard.core.envs.wsl_steps import probe_step
from gpuwizard.workflow.envs.ownership import new_id
from gpuwizard.workflow.envs.wsl_create import DistroTransport, run_in_distro


class DistroProbeRunner:
    """A streaming runner for the probes only: it runs them inside an environment's distribution.

    ``argv`` is what a local run would be (an interpreter, a probe of ``gpuwizard.probes``, its
    arguments): the interpreter becomes the environment's (``python``, a path in the
    distribution) and the probe its copy in the wizard's folder there (``wsl_home``); the
    arguments are kept.
    """

    def __init__(self, transport: DistroTransport, *, python: str, wsl_home: str | None) -> None:
        if not wsl_home:
            raise ValueError("a WSL environment's probes need the wizard's folder in its distribution")
        self._transport = transport
        self._python = python
        self._probes = posixpath.join(wsl_home, "probes")
        self._helper = probes.script("wsl_home").read_bytes()

    def stream(
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        cancel: threading.Event,
        timeout: float | None = None,
        env_overrides: Mapping[str, str] | None = None,
        cwd: Path | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> int:
        """Run the probe in the distribution; its exit status (see ``StreamingRunner.stream``)."""
        tool = [self._python, *(self._in_distro(word) for word in argv[1:])]
        step = probe_step(self._helper, tool, run_id=new_id(), timeout_s=timeout)
        return run_in_distro(self._transport, step, on_line, cancel, helper=self._helper)

    def _in_distro(self, word: str) -> str:
        """A probe's local path as its copy in the distribution; any other word as it is."""
        path = Path(word)
        if path.parent == probes.FOLDER and path.suffix == ".py":
            return posixpath.join(self._probes, path.name)
        return word
