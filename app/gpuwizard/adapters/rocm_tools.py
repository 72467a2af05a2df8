"""ROCm's userspace on Linux: where it is, its release, and what ``rocminfo`` and ``amd-smi`` say.

ROCm installs to ``/opt/rocm`` (a link to ``/opt/rocm-7.2.0``) or where ``$ROCM_PATH`` says;
``<root>/.info/version`` holds its release (``rocm-core``). The tools run by full path, as
argv lists, under one deadline shared by all of them: a machine without ROCm answers at once
(nothing is found, nothing runs), and a hung tool cannot hold detection longer than that.
Their output is parsed in ``core/machine/rocm_outputs.py``.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from gpuwizard.adapters.runner import Runner, RunnerError
from gpuwizard.core.machine.rocm_outputs import (
    AmdSmiGpu,
    RocminfoReading,
    parse_amd_smi_static,
    parse_amd_smi_version,
    parse_rocminfo,
    rocm_version_from_info,
)

DEFAULT_ROCM_ROOTS: Final = (Path("/opt/rocm"),)
#: All of rocminfo and amd-smi together; amd-smi (a Python program) takes seconds to start.
ROCM_TOOLS_DEADLINE_S: Final = 20.0
_VERSIONED_ROOT: Final = re.compile(r"^rocm-(\d+\.\d+(?:\.\d+)?)$")


@dataclass(frozen=True)
class RocmReading:
    """What was found of ROCm's userspace.

    Attributes:
        root: The ROCm folder (``/opt/rocm``), None when there is none.
        version: Its release (``7.2.0``), None when nothing tells it.
        version_source: Where that came from: the ``.info/version`` file's path,
            ``amd-smi``, or the folder's name.
        rocminfo: What ``rocminfo`` printed, None when it did not run.
        amd_smi: The GPUs of ``amd-smi static --json`` (empty when it did not run).
        amd_smi_version: ``amd-smi version``'s fields (``ROCm version``, ``amdgpu version``).
    """

    root: Path | None = None
    version: str | None = None
    version_source: str | None = None
    rocminfo: RocminfoReading | None = None
    amd_smi: tuple[AmdSmiGpu, ...] = ()
    amd_smi_version: Mapping[str, str] = field(default_factory=dict)

    @property
    def found(self) -> bool:
        """Whether any part of ROCm's userspace is there."""
        return self.root is not None or self.rocminfo is not None or bool(self.amd_smi_version)


def read_rocm(
    runner: Runner,
    env: Mapping[str, str],
    path_dirs: Sequence[str],
    roots: Sequence[Path] = DEFAULT_ROCM_ROOTS,
    deadline_s: float = ROCM_TOOLS_DEADLINE_S,
) -> RocmReading:
    """Find ROCm (``$ROCM_PATH``, then ``roots``), read its release, run its tools."""
    end = time.monotonic() + deadline_s
    root = _root(env, roots)
    version = source = None
    if root is not None:
        info = root / ".info" / "version"
        try:
            version = rocm_version_from_info(info.read_text(encoding="utf-8", errors="replace"))
        except OSError:
            version = None
        source = str(info) if version else None
    bins = [Path(entry) for entry in path_dirs if entry] + ([root / "bin"] if root else [])
    rocminfo_text = _run(runner, _find("rocminfo", bins), [], end)
    static_text = _run(runner, _find("amd-smi", bins), ["static", "--json"], end)
    version_text = _run(runner, _find("amd-smi", bins), ["version"], end)
    smi_version = parse_amd_smi_version(version_text) if version_text else {}
    if version is None and smi_version.get("ROCm version"):
        version, source = rocm_version_from_info(smi_version["ROCm version"]), "amd-smi"
    if version is None and root is not None:
        match = _VERSIONED_ROOT.match(Path(os.path.realpath(root)).name)
        if match:
            version, source = match.group(1), "folder name"
    return RocmReading(
        root=root,
        version=version,
        version_source=source if version else None,
        rocminfo=parse_rocminfo(rocminfo_text) if rocminfo_text else None,
        amd_smi=parse_amd_smi_static(static_text) if static_text else (),
        amd_smi_version=smi_version,
    )


def _root(env: Mapping[str, str], roots: Sequence[Path]) -> Path | None:
    candidates = ([Path(env["ROCM_PATH"])] if env.get("ROCM_PATH") else []) + list(roots)
    return next((path for path in candidates if path.is_dir()), None)


def _find(name: str, folders: Sequence[Path]) -> Path | None:
    """The first ``folders/name`` that is a file (PATH order, then ROCm's ``bin``)."""
    return next((folder / name for folder in folders if (folder / name).is_file()), None)


def _run(runner: Runner, program: Path | None, args: list[str], end: float) -> str | None:
    """Its standard output, or None when it is missing, fails to start, or time is up.

    A non-zero exit still returns what it printed: ``rocminfo`` prints the agents it found
    before complaining about one it could not open.
    """
    remaining = end - time.monotonic()
    if program is None or remaining <= 0:
        return None
    try:
        done = runner.run([str(program), *args], timeout=remaining)
    except RunnerError:
        return None
    return done.stdout or None
