"""Parsers that read a version out of what NVIDIA's installers and tools leave behind.

Each takes text or a name and returns a version string or None; none of them touches a disk.
The adapters read the files; these functions interpret them.
"""

from __future__ import annotations

import json
import re
from typing import Final

_CUDA_FOLDER: Final = re.compile(r"^(?:v|cuda-?)(\d+\.\d+)$", re.IGNORECASE)
_NVCC_RELEASE: Final = re.compile(r"release\s+(\d+\.\d+)(?:,\s*V(\d+\.\d+\.\d+))?", re.IGNORECASE)
_VERSION_TXT: Final = re.compile(r"CUDA Version\s+(\d+\.\d+(?:\.\d+)?)", re.IGNORECASE)
_DEFINE: Final = re.compile(r"^\s*#\s*define\s+(\w+)\s+(\d+)\s*$", re.MULTILINE)
_CUDNN_DLL: Final = re.compile(r"^cudnn64_(\d+)\.dll$", re.IGNORECASE)
_CUDNN_SO: Final = re.compile(r"^libcudnn\.so\.(\d+(?:\.\d+){0,2})$")
_WINDOWS_DRIVER: Final = re.compile(r"^\d+\.\d+\.(\d+)\.(\d+)$")


def cuda_version_from_nvml(value: int) -> str:
    """Turn NVML's CUDA integer (``major * 1000 + minor * 10``) into ``major.minor``.

    ``nvmlSystemGetCudaDriverVersion`` returns this form (NVML API reference).

    >>> cuda_version_from_nvml(12030), cuda_version_from_nvml(11020), cuda_version_from_nvml(13000)
    ('12.3', '11.2', '13.0')
    """
    return f"{value // 1000}.{(value % 1000) // 10}"


def cuda_version_from_header(text: str) -> str | None:
    r"""Read ``CUDART_VERSION`` (cuda_runtime_api.h) or ``CUDA_VERSION`` (cuda.h).

    >>> cuda_version_from_header("#define CUDART_VERSION 13000")
    '13.0'
    >>> cuda_version_from_header("#define CUDA_VERSION 11020\n") is None
    False
    """
    defines = dict(_DEFINE.findall(text))
    raw = defines.get("CUDART_VERSION") or defines.get("CUDA_VERSION")
    return cuda_version_from_nvml(int(raw)) if raw else None


def cuda_version_from_version_json(text: str) -> str | None:
    """Read a CUDA 11.1+ ``version.json`` (``{"cuda": {"version": "11.2.2"}}``).

    >>> cuda_version_from_version_json('{"cuda": {"name": "CUDA SDK", "version": "11.2.2"}}')
    '11.2.2'
    >>> cuda_version_from_version_json("not json") is None
    True
    """
    try:
        data = json.loads(text)
    except ValueError:
        return None
    cuda = data.get("cuda") if isinstance(data, dict) else None
    version = cuda.get("version") if isinstance(cuda, dict) else None
    return version if isinstance(version, str) and re.match(r"^\d+\.\d+", version) else None


def cuda_version_from_version_txt(text: str) -> str | None:
    r"""Read a CUDA 11.0-and-older ``version.txt`` (``CUDA Version 10.1.243``).

    >>> cuda_version_from_version_txt("CUDA Version 10.1.243\n")
    '10.1.243'
    """
    match = _VERSION_TXT.search(text)
    return match.group(1) if match else None


def cuda_version_from_nvcc(text: str) -> str | None:
    """Read ``nvcc --version`` output, preferring the full ``V11.2.152`` form.

    >>> cuda_version_from_nvcc("Cuda compilation tools, release 11.2, V11.2.152")
    '11.2.152'
    >>> cuda_version_from_nvcc("Cuda compilation tools, release 10.1")
    '10.1'
    """
    match = _NVCC_RELEASE.search(text)
    if not match:
        return None
    return match.group(2) or match.group(1)


def cuda_version_from_folder_name(name: str) -> str | None:
    """Read the version from a toolkit folder name (``v11.2`` on Windows, ``cuda-12.4`` on Linux).

    >>> cuda_version_from_folder_name("v11.2"), cuda_version_from_folder_name("cuda-12.4")
    ('11.2', '12.4')
    >>> cuda_version_from_folder_name("cuda") is None
    True
    """
    match = _CUDA_FOLDER.match(name)
    return match.group(1) if match else None


def cudnn_version_from_header(text: str) -> str | None:
    r"""Read ``CUDNN_MAJOR``/``MINOR``/``PATCHLEVEL`` (cudnn_version.h from 8.0, cudnn.h before).

    >>> cudnn_version_from_header("#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 0")
    '8.1.0'
    >>> cudnn_version_from_header("#define CUDNN_MAJOR 9") is None
    True
    """
    defines = dict(_DEFINE.findall(text))
    parts = [defines.get(key) for key in ("CUDNN_MAJOR", "CUDNN_MINOR", "CUDNN_PATCHLEVEL")]
    if any(part is None for part in parts):
        return None
    return ".".join(str(part) for part in parts)


def cudnn_version_from_library_name(name: str) -> str | None:
    """Read what a cuDNN library's file name tells of its version.

    Windows names carry the major version only (``cudnn64_8.dll``); Linux names may carry
    all of it (``libcudnn.so.8.9.7``).

    >>> cudnn_version_from_library_name("cudnn64_8.dll"), cudnn_version_from_library_name("libcudnn.so.8.9.7")
    ('8', '8.9.7')
    >>> cudnn_version_from_library_name("cudnn_ops64_9.dll") is None
    True
    """
    match = _CUDNN_DLL.match(name) or _CUDNN_SO.match(name)
    return match.group(1) if match else None


def nvidia_driver_from_windows_version(windows_version: str) -> str | None:
    """Turn a Windows driver version (``31.0.15.4633``) into NVIDIA's (``546.33``).

    NVIDIA's release number is the last five digits of the third and fourth fields
    (``15.4633`` -> ``5 4633`` -> ``546.33``); Device Manager shows the Windows form.

    >>> nvidia_driver_from_windows_version("31.0.15.4633")
    '546.33'
    >>> nvidia_driver_from_windows_version("30.0.14.7212")
    '472.12'
    >>> nvidia_driver_from_windows_version("garbage") is None
    True
    """
    match = _WINDOWS_DRIVER.match(windows_version.strip())
    if not match:
        return None
    digits = (match.group(1) + match.group(2).zfill(4))[-5:]
    return f"{int(digits[:3])}.{digits[3:]}"
