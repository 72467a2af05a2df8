"""Known errors of the packages built on a framework: bitsandbytes, xFormers, compiled extensions, TensorRT engines, web UIs' GPU checks.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`EXTENSIONS_PART` with the other parts. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). Its signatures and their texts are data in
``resources/findings/extensions.json``; this module holds the code they name.

These messages come from the packages' own code (bitsandbytes' cextension.py, xFormers'
_cpp_lib.py, TensorRT's runtime, the web UI's launch_utils.py, the dynamic loader's "undefined
symbol"), which prints them in English whatever the system's language; what is matched is their
fixed words, version numbers and file names.

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose("Error Code 1: Serialization (Serialization assertion stdVersionRead == "
...     "serializationVersion failed.Version tag does not match. Note: Current Version: 213, "
...     "Serialized Engine Version: 232)")
>>> finding.code, finding.params["current"], finding.params["engine"]
('TENSORRT_ENGINE_VERSION_MISMATCH', '213', '232')
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.signature import DiagnosisPart, Values

#: bitsandbytes' override of the CUDA version whose library it loads (bitsandbytes/cextension.py,
#: "BNB_CUDA_VERSION=... environment variable detected"; huggingface.co/docs/bitsandbytes/main/
#: nonpytorchcuda).
_BNB_OVERRIDE: Final = re.compile(r"BNB_CUDA_VERSION=(?P<tag>\d{3,4}) environment variable detected")
#: BuildKit prints each build step's output as "#<step> <seconds> <line>" (docs.docker.com/build/
#: buildkit/, "--progress=plain"); "docker build" and Dockerfile "RUN" lines name a build too.
_DOCKER_BUILD: Final = re.compile(
    r"^#\d{1,4} \d{1,6}\.\d{1,3} |\bdocker (?:buildx )?build\b|^RUN ", re.MULTILINE
)
#: An AMD GPU or its software named in the log; AMD's CPUs ("AMD Ryzen") and "AMD64" are not it.
_AMD_GPU: Final = re.compile(
    r"\bAMD\b(?! (?:Ryzen|EPYC|Athlon|Threadripper))|\bRadeon\b|\bROCm|\bDirectML\b|\bZLUDA\b", re.IGNORECASE
)
#: The extension modules whose wheels name the torch version and C++ ABI they are built for.
_FLASH_ATTN: Final = re.compile(r"flash_attn", re.IGNORECASE)


def _cuda_of_tag(tag: str) -> str:
    """A CUDA version from the digits bitsandbytes names its libraries with.

    >>> _cuda_of_tag("124"), _cuda_of_tag("118"), _cuda_of_tag("130")
    ('12.4', '11.8', '13.0')
    """
    return f"{tag[:-1]}.{tag[-1]}"


def _bitsandbytes(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``override`` when BNB_CUDA_VERSION chose the library, ``cuda`` when the log names it."""
    override = _BNB_OVERRIDE.search(text)
    tags = values.get("bnb_cuda") or ([override.group("tag")] if override else [])
    if not tags:
        return None, {}
    folder = values.get("folder", [""])[0]
    extra: dict[str, object] = {"cuda": _cuda_of_tag(tags[0]), "folder": folder or "?"}
    if override:
        return "override", {**extra, "override": override.group("tag")}
    return "cuda", extra


def _torch_cuda_unavailable(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``docker_build`` for a check run by ``docker build``, ``amd`` for an AMD GPU, else the plain text."""
    if _DOCKER_BUILD.search(text):
        return "docker_build", {}
    if _AMD_GPU.search(text):
        return "amd", {}
    return None, {}


#: The extension's file name just before ": undefined symbol:", and the folder it is in.
_MODULE_FILE: Final = re.compile(r"(?P<module>[\w-]{1,80})\.(?:cpython-\d{2,3}[\w-]{0,40}\.so|abi3\.so|so)")
_FOLDER: Final = re.compile(r"[\w-]{1,60}")


def _extension_module(match: re.Match[str]) -> Values | None:
    """The module file's name; a ``_C`` module is named by its package (``xformers/_C``)."""
    text = match.string
    before = text[max(text.rfind("\n", 0, match.start()) + 1, match.start() - 400) : match.start()]
    # The path's last two parts, split off from the end: a search for a file name at the end of
    # the text before would try every place of it, at every match of a log that repeats one.
    parts = before.split()[-1:] and before.split()[-1].rsplit("/", 2)[-2:]
    file = _MODULE_FILE.fullmatch(parts[-1]) if parts else None
    if file is None:
        return None
    folder = parts[0] if len(parts) == 2 else ""
    module, package = file.group("module"), (folder if _FOLDER.fullmatch(folder) else None)
    if module.startswith("lib"):
        # torch's own libraries (libtorch_cuda.so): two torch installations mixed, not an extension.
        return None
    name = f"{package}/{module}" if package and module.startswith("_") else module
    return {"module": name, "symbol": match.group("symbol")}


def _extension(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``flash_attn`` for flash-attn's modules, whose release wheels name torch and the C++ ABI."""
    modules = values.get("module", [])
    return ("flash_attn" if any(_FLASH_ATTN.match(module) for module in modules) else None), {}


def _xformers(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """``cpu_torch`` for a CPU-only torch, the plain text for a CUDA torch, ``untagged`` otherwise."""
    have = values.get("have", [""])[0]
    local = have.partition("+")[2]
    if local == "cpu":
        return "cpu_torch", {}
    if re.fullmatch(r"cu\d{3}", local):
        return None, {"index": local}
    return "untagged", {}


#: The findings that explain why torch cannot use the GPU, which the web UI's check only reports.
_EXPLAIN_TORCH_CUDA_UNAVAILABLE: Final = (
    "CPU_ONLY_BUILD",
    "NO_NVIDIA_DRIVER",
    "DRIVER_TOO_OLD",
    "NVML_DRIVER_LIBRARY_MISMATCH",
    "DOCKER_NO_GPU_RUNTIME",
    "CONTAINER_NVML_UNKNOWN_ERROR",
    "WSL_LIBCUDA_NOT_FOUND",
)

EXTENSIONS_PART: Final = DiagnosisPart(
    name="extensions",
    extractors=(_extension_module,),
    suppresses={
        **dict.fromkeys(_EXPLAIN_TORCH_CUDA_UNAVAILABLE, ("TORCH_CUDA_UNAVAILABLE",)),
        # In WSL 2 bitsandbytes falls back to its CPU library because libcuda.so is not found
        # where it looks: the WSL finding names the cause (bitsandbytes-foundation/bitsandbytes#332).
        "WSL_LIBCUDA_NOT_FOUND": ("TORCH_CUDA_UNAVAILABLE", "BITSANDBYTES_NO_CUDA_BINARY"),
    },
    refiners={
        "BITSANDBYTES_NO_CUDA_BINARY": _bitsandbytes,
        "TORCH_CUDA_UNAVAILABLE": _torch_cuda_unavailable,
        "EXTENSION_BUILT_FOR_OTHER_TORCH": _extension,
        "XFORMERS_BUILT_FOR_OTHER_TORCH": _xformers,
    },
)
