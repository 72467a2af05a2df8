r"""Folder trees shaped like real CUDA and cuDNN installs, built in a temporary folder.

Layouts follow what installers leave: the CUDA installer on Windows
(``NVIDIA GPU Computing Toolkit\CUDA\v11.2\{bin,include,libnvvp}``, recorded file list in
tests/fixtures/recorded/filelist_win_cuda12.8_bin_committed-tree.txt), the runfile/deb toolkit
on Linux (``/usr/local/cuda-12.4`` plus the ``/usr/local/cuda`` link), the cuDNN zip unzipped
anywhere (``bin``, ``include``, ``lib/x64``), cuDNN 9's Windows installer
(``NVIDIA\CUDNN\v9.7\bin\12.8``, recorded path in path_win_cudnn9.7_installer_...txt) and
Debian's cuDNN packages (multiarch folders). File contents are recorded ones.
"""

from __future__ import annotations

import json
from pathlib import Path

RECORDED = Path(__file__).parent.parent / "fixtures" / "recorded"


def _touch(path: Path, content: bytes | str = b"") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_bytes(content)
    return path


def cudnn_header(version: str) -> str:
    major, minor, patch = version.split(".")
    return f"#define CUDNN_MAJOR {major}\n#define CUDNN_MINOR {minor}\n#define CUDNN_PATCHLEVEL {patch}\n"


def cuda_runtime_header(version: str) -> str:
    major, minor = version.split(".")[:2]
    return f"#define CUDART_VERSION {int(major) * 1000 + int(minor) * 10}\n"


def windows_toolkit(program_files: Path, version: str, *, version_file: str = "json") -> Path:
    r"""``<ProgramFiles>\NVIDIA GPU Computing Toolkit\CUDA\v<major.minor>`` with its marker files."""
    major_minor = ".".join(version.split(".")[:2])
    root = program_files / "NVIDIA GPU Computing Toolkit" / "CUDA" / f"v{major_minor}"
    _touch(root / "bin" / "nvcc.exe", b"MZ")
    runtime = (
        "110" if version.startswith("11.") else version.split(".", maxsplit=1)[0] + version.split(".")[1]
    )
    _touch(root / "bin" / f"cudart64_{runtime}.dll", b"MZ")
    _touch(root / "libnvvp" / "nvvp.exe", b"MZ")
    _touch(root / "include" / "cuda_runtime_api.h", cuda_runtime_header(version))
    if version_file == "json":
        _touch(root / "version.json", json.dumps({"cuda": {"name": "CUDA SDK", "version": version}}))
    elif version_file == "txt":
        _touch(root / "version.txt", f"CUDA Version {version}\n")
    return root


def linux_toolkit(parent: Path, version: str, *, link: bool = True, version_json: bool = True) -> Path:
    """``<parent>/cuda-<major.minor>`` (and the ``cuda`` link to it, as the installers make)."""
    major_minor = ".".join(version.split(".")[:2])
    root = parent / f"cuda-{major_minor}"
    nvcc = _touch(root / "bin" / "nvcc", "#!/bin/sh\n")
    nvcc.chmod(0o755)
    _touch(root / "include" / "cuda_runtime_api.h", cuda_runtime_header(version))
    _touch(root / "lib64" / f"libcudart.so.{version}")
    if version_json:
        _touch(root / "version.json", json.dumps({"cuda": {"name": "CUDA SDK", "version": version}}))
    if link:
        (parent / "cuda").symlink_to(root.name)
    return root


def cudnn_zip(root: Path, version: str, *, windows: bool = True) -> Path:
    r"""The cuDNN archive unzipped into ``root`` (``C:\tools\cuda`` in TensorFlow's old guide)."""
    major = version.split(".", maxsplit=1)[0]
    header = "cudnn_version.h" if int(major) >= 8 else "cudnn.h"
    _touch(root / "include" / header, cudnn_header(version))
    if windows:
        _touch(root / "bin" / f"cudnn64_{major}.dll", b"MZ")
        _touch(root / "lib" / "x64" / "cudnn.lib", b"")
        return root / "bin"
    library = _touch(root / "lib" / f"libcudnn.so.{version}")
    (root / "lib" / f"libcudnn.so.{major}").symlink_to(library.name)
    return root / "lib"


def cudnn9_windows_installer(program_files: Path, version: str, cuda: str) -> Path:
    r"""cuDNN 9's Windows installer: ``NVIDIA\CUDNN\v9.x\{bin,include}\<cuda>``."""
    major, minor = version.split(".")[:2]
    root = program_files / "NVIDIA" / "CUDNN" / f"v{major}.{minor}"
    _touch(root / "bin" / cuda / f"cudnn64_{major}.dll", b"MZ")
    _touch(root / "bin" / cuda / f"cudnn_ops64_{major}.dll", b"MZ")
    _touch(root / "include" / cuda / "cudnn_version.h", cudnn_header(version))
    return root / "bin" / cuda


def debian_cudnn(usr: Path, version: str) -> Path:
    """Debian/Ubuntu's cuDNN packages: multiarch library and versioned header."""
    major = version.split(".", maxsplit=1)[0]
    libdir = usr / "lib" / "x86_64-linux-gnu"
    library = _touch(libdir / f"libcudnn.so.{version}")
    (libdir / f"libcudnn.so.{major}").symlink_to(library.name)
    _touch(usr / "include" / "x86_64-linux-gnu" / f"cudnn_version_v{major}.h", cudnn_header(version))
    return libdir
