r"""CUDA toolkits and cuDNN on disk: where installers and people put them, and their versions.

Toolkits are looked for where they are named (``CUDA_PATH``, ``CUDA_PATH_V11_2``,
``CUDA_HOME``), in the default folders (``%ProgramFiles%\NVIDIA GPU Computing Toolkit\CUDA\v*``
on Windows, ``/usr/local/cuda*`` on Linux), and behind PATH. cuDNN is looked for beside each
toolkit and also far from it: people unzip it anywhere and point PATH at its ``bin``,
cuDNN 9's Windows installer uses
``%ProgramFiles%\NVIDIA\CUDNN\v9.x\bin\<cuda>``, and TensorFlow's old guide used
``C:\tools\cuda``.

The OS family is a parameter, not read from the running OS, so Windows-shaped folder trees
are scanned and tested on Linux.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.adapters.runner import Runner, RunnerError
from gpuwizard.core.machine.version_sources import (
    cuda_version_from_folder_name,
    cuda_version_from_header,
    cuda_version_from_nvcc,
    cuda_version_from_version_json,
    cuda_version_from_version_txt,
    cudnn_version_from_header,
    cudnn_version_from_library_name,
)
from gpuwizard.core.pathedit.pathlist import comparison_key

_NVCC_TIMEOUT_S: Final = 10.0
_CUDA_ENV_NAMES: Final = ("CUDA_PATH", "CUDA_HOME", "CUDA_ROOT", "CUDA_TOOLKIT_ROOT_DIR")
_CUDA_PATH_VERSIONED: Final = re.compile(r"^CUDA_PATH_V\d+_\d+$", re.IGNORECASE)
_CUDNN_LIBRARY: Final = re.compile(r"^(cudnn64_\d+\.dll|libcudnn\.so(\.\d+){1,3})$", re.IGNORECASE)
#: Linux folders the dynamic loader searches without LD_LIBRARY_PATH (ld.so(8), plus the
#: Debian multiarch folder).
LINUX_SYSTEM_LIBRARY_DIRS: Final = (
    Path("/lib"),
    Path("/usr/lib"),
    Path("/lib64"),
    Path("/usr/lib64"),
    Path("/usr/lib/x86_64-linux-gnu"),
    Path("/lib/x86_64-linux-gnu"),
    Path("/usr/lib/aarch64-linux-gnu"),
    Path("/usr/local/lib"),
)


@dataclass(frozen=True)
class FoundToolkit:
    """A CUDA toolkit folder and what it says of its version."""

    root: Path
    version: str | None
    version_source: str | None
    found_by: tuple[str, ...]


@dataclass(frozen=True)
class FoundCudnn:
    """A cuDNN library and the version read for it."""

    library: Path
    version: str | None
    version_source: str | None
    header: Path | None

    @property
    def library_dir(self) -> Path:
        """The folder holding the library: the folder a loader search path needs."""
        return self.library.parent


class CudaFiles:
    """Finds toolkits and cuDNN for one OS family.

    Args:
        family: ``windows`` or ``linux`` (names the files looked for and the default folders).
        env: The environment variables to read (``CUDA_PATH``, ``ProgramFiles``...).
        runner: Runs ``nvcc --version`` when no file tells a toolkit's version.
        toolkit_parents: Folders whose children are toolkits (default: the OS's usual ones).
        cudnn_dirs: Extra folders to look for cuDNN libraries in (default: the OS's usual ones).
    """

    def __init__(
        self,
        family: str,
        env: Mapping[str, str],
        runner: Runner,
        *,
        toolkit_parents: Sequence[Path] | None = None,
        cudnn_dirs: Sequence[Path] | None = None,
    ) -> None:
        self.windows = family == "windows"
        self._env = env
        self._runner = runner
        self._toolkit_parents = (
            list(toolkit_parents) if toolkit_parents is not None else self._default_toolkit_parents()
        )
        self._cudnn_dirs = list(cudnn_dirs) if cudnn_dirs is not None else self._default_cudnn_dirs()

    # --- toolkits -------------------------------------------------------------------

    @property
    def nvcc_name(self) -> str:
        """``nvcc.exe`` on Windows, ``nvcc`` elsewhere."""
        return "nvcc.exe" if self.windows else "nvcc"

    def toolkits(self, path_dirs: Sequence[str]) -> list[FoundToolkit]:
        """Every toolkit found, each once (folders reached through links are merged)."""
        candidates: dict[str, tuple[Path, list[str]]] = {}
        for label, root in self._toolkit_candidates(path_dirs):
            if not self._is_toolkit(root):
                continue
            key = self._identity(root)
            entry = candidates.setdefault(key, (root, []))
            if label not in entry[1]:
                entry[1].append(label)
        found = [self._describe_toolkit(root, labels) for root, labels in candidates.values()]
        return sorted(found, key=lambda kit: str(kit.root))

    def nvcc_version(self, nvcc: Path) -> str | None:
        """Run ``nvcc --version`` and read it; None when it cannot run or says nothing."""
        try:
            done = self._runner.run([str(nvcc), "--version"], timeout=_NVCC_TIMEOUT_S)
        except RunnerError:
            return None
        return cuda_version_from_nvcc(done.stdout) if done.ok else None

    def _toolkit_candidates(self, path_dirs: Sequence[str]) -> Iterator[tuple[str, Path]]:
        for name in _CUDA_ENV_NAMES:
            if self._env.get(name):
                yield name, Path(self._env[name])
        for name in sorted(self._env):
            if _CUDA_PATH_VERSIONED.match(name) and self._env[name]:
                yield name.upper(), Path(self._env[name])
        for parent in self._toolkit_parents:
            for child in _children(parent):
                if (self.windows and re.match(r"^v\d+\.\d+$", child.name, re.I)) or (
                    not self.windows and re.match(r"^cuda(-\d+\.\d+)?$", child.name)
                ):
                    yield "default folder", child
        for entry in path_dirs:
            folder = Path(entry)
            if folder.name.lower() == "bin" and (folder / self.nvcc_name).is_file():
                yield "PATH", folder.parent

    def _is_toolkit(self, root: Path) -> bool:
        # Not bin/nvcc alone: /usr/local/bin/nvcc may be a wrapper that execs a toolkit's.
        markers = [root / "include" / "cuda_runtime_api.h", root / "version.json", root / "version.txt"]
        if any(marker.is_file() for marker in markers):
            return True
        # A runtime-only install still carries the CUDA runtime library.
        pattern = "cudart64_*.dll" if self.windows else "libcudart.so*"
        subfolders = ("bin",) if self.windows else ("lib64", "lib")
        return any(next((root / sub).glob(pattern), None) is not None for sub in subfolders)

    def _describe_toolkit(self, root: Path, labels: list[str]) -> FoundToolkit:
        readers = (
            ("version.json", lambda: cuda_version_from_version_json(_read(root / "version.json"))),
            ("version.txt", lambda: cuda_version_from_version_txt(_read(root / "version.txt"))),
            (
                "cuda_runtime_api.h",
                lambda: cuda_version_from_header(_read(root / "include" / "cuda_runtime_api.h")),
            ),
            ("nvcc", lambda: self._nvcc_in(root)),
            ("folder name", lambda: cuda_version_from_folder_name(self._resolved(root).name)),
        )
        for source, reader in readers:
            version = reader()
            if version:
                return FoundToolkit(root, version, source, tuple(labels))
        return FoundToolkit(root, None, None, tuple(labels))

    def _nvcc_in(self, root: Path) -> str | None:
        nvcc = root / "bin" / self.nvcc_name
        return self.nvcc_version(nvcc) if nvcc.is_file() else None

    # --- cuDNN ----------------------------------------------------------------------

    def cudnn(
        self, toolkit_roots: Sequence[Path], path_dirs: Sequence[str], library_path_dirs: Sequence[str]
    ) -> list[FoundCudnn]:
        """Every cuDNN library folder found, with the version its header or name gives."""
        folders: list[Path] = []
        for root in toolkit_roots:
            folders += [root / "bin", root / "lib64", root / "lib", root / "lib" / "x64"]
        folders += [Path(entry) for entry in path_dirs]
        folders += [Path(entry) for entry in library_path_dirs]
        folders += self._cudnn_dirs
        found: dict[str, FoundCudnn] = {}
        for folder in folders:
            library = self._best_cudnn_library(folder)
            if library is None:
                continue
            key = self._identity(folder)
            if key not in found:
                found[key] = self._describe_cudnn(library)
        return sorted(found.values(), key=lambda dnn: str(dnn.library))

    def _best_cudnn_library(self, folder: Path) -> Path | None:
        # Match names before making paths: system library folders hold thousands of files.
        libraries = [folder / name for name in _names(folder) if _CUDNN_LIBRARY.match(name)]
        if not libraries:
            return None
        # Prefer the name that tells the most (libcudnn.so.8.9.7 over libcudnn.so.8).
        return max(libraries, key=lambda path: len(self._resolved(path).name))

    def _describe_cudnn(self, library: Path) -> FoundCudnn:
        name_version = cudnn_version_from_library_name(self._resolved(library).name)
        name_version = name_version or cudnn_version_from_library_name(library.name)
        major = name_version.split(".")[0] if name_version else None
        for header in self._cudnn_headers(library.parent, major):
            version = cudnn_version_from_header(_read(header))
            if version and (major is None or version.split(".")[0] == major):
                return FoundCudnn(library, version, header.name, header)
        return FoundCudnn(library, name_version, "library name" if name_version else None, None)

    def _cudnn_headers(self, library_dir: Path, major: str | None) -> Iterator[Path]:
        names = ["cudnn_version.h", "cudnn.h"]
        if major:
            names.insert(0, f"cudnn_version_v{major}.h")  # Debian/Ubuntu alternatives
        # Headers sit beside the library's folder in every layout seen:
        #   the cuDNN zip and toolkits: <root>/bin|lib64 with <root>/include;
        #   cuDNN 9's Windows installer: bin/12.8/cudnn64_9.dll with include/12.8/;
        #   Debian multiarch: /usr/lib/x86_64-linux-gnu with /usr/include/x86_64-linux-gnu
        #   (cudnn_version_v9.h) and /usr/include (cudnn_version.h, an alternatives link).
        include_dirs = [
            library_dir.parent / "include",
            library_dir.parent.parent / "include" / library_dir.name,
            library_dir.parent.parent / "include",
        ]
        for folder in include_dirs:
            for name in names:
                header = folder / name
                if header.is_file():
                    yield header

    # --- defaults and helpers -------------------------------------------------------

    def _default_toolkit_parents(self) -> list[Path]:
        if self.windows:
            program_files = self._env.get("ProgramFiles", r"C:\Program Files")
            return [Path(program_files) / "NVIDIA GPU Computing Toolkit" / "CUDA"]
        return [Path("/usr/local"), Path("/opt")]

    def _default_cudnn_dirs(self) -> list[Path]:
        if self.windows:
            program_files = Path(self._env.get("ProgramFiles", r"C:\Program Files"))
            dirs: list[Path] = []
            for version_dir in _children(program_files / "NVIDIA" / "CUDNN"):
                dirs += _children(version_dir / "bin")
                dirs.append(version_dir / "bin")
            system_drive = self._env.get("SystemDrive", "C:")
            dirs.append(Path(system_drive + "\\") / "tools" / "cuda" / "bin")
            return dirs
        return list(LINUX_SYSTEM_LIBRARY_DIRS)

    def _identity(self, path: Path) -> str:
        return comparison_key(str(self._resolved(path)), windows=self.windows)

    @staticmethod
    def _resolved(path: Path) -> Path:
        try:
            return Path(os.path.realpath(path))
        except OSError:
            return path


def _names(folder: Path) -> list[str]:
    try:
        return os.listdir(folder)  # noqa: PTH208 - plain names: library folders hold thousands of files
    except OSError:
        return []


def _children(folder: Path) -> list[Path]:
    return [folder / name for name in sorted(_names(folder))]


def _read(path: Path) -> str:
    try:
        # Version headers are small; cap the read for a file that is not what it claims.
        with path.open(encoding="utf-8", errors="replace") as handle:
            return handle.read(1_000_000)
    except OSError:
        return ""
