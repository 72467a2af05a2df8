"""Write the vendors' own error vocabularies to resources/vocabularies/<name>.json (issue 35).

Each vocabulary is read from its makers' files, and each file records where: the CUDA runtime's
``cudaError_t`` and the driver's ``CUresult`` from the headers of NVIDIA's wheels on PyPI (with the
doc comment above each value as its message), NVML's ``nvmlReturn_t``, cuDNN's ``cudnnStatus_t``,
cuBLAS's ``cublasStatus_t``, cuFFT's ``cufftResult``, cuSOLVER's ``cusolverStatus_t``, cuSPARSE's
``cusparseStatus_t`` and NCCL's ``ncclResult_t`` likewise; the Windows error numbers and
NTSTATUS values from the MinGW-w64 headers installed here (names and numbers; the messages are
Microsoft's, quoted with the page that lists them); and which wheel ships which Linux library,
from the wheels' own file lists.

The large wheels (cuDNN, cuBLAS, cuFFT, cuSOLVER, cuSPARSE, NCCL: hundreds of MB) are not
downloaded: a wheel is a zip, whose directory sits at its end, so ranged HTTP requests read the
directory and the one header needed.

Run it by hand (it needs the network): ``.venv/bin/python tools/vocabularies.py``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parent.parent
OUT: Final = ROOT / "resources" / "vocabularies"
PYPI: Final = "https://pypi.org/pypi"
FILES: Final = "https://files.pythonhosted.org/packages/"
MINGW: Final = Path("/usr/share/mingw-w64/include")


def _open(request: urllib.request.Request | str, timeout: float) -> Any:  # noqa: ANN401 - urllib's reply
    """``urlopen`` for HTTPS addresses only (PyPI and its file host): no file: or other schemes."""
    url = request.full_url if isinstance(request, urllib.request.Request) else request
    if not url.startswith("https://"):
        raise SystemExit(f"refusing a non-HTTPS address: {url}")
    return urllib.request.urlopen(request, timeout=timeout)  # noqa: S310 - HTTPS only, checked above


class RangeFile:
    """A remote file read by HTTP ranges, just enough of a file for :class:`zipfile.ZipFile`."""

    def __init__(self, url: str) -> None:
        self.url, self.pos = url, 0
        head = urllib.request.Request(url, method="HEAD")  # noqa: S310 - opened by _open: HTTPS only
        with _open(head, timeout=60) as reply:
            self.size = int(reply.headers["Content-Length"])

    def seekable(self) -> bool:
        """Always: any part can be asked for."""
        return True

    def tell(self) -> int:
        """Where the next read starts."""
        return self.pos

    def seek(self, offset: int, whence: int = 0) -> int:
        """Move where the next read starts, as :meth:`io.IOBase.seek`."""
        self.pos = offset if whence == 0 else self.pos + offset if whence == 1 else self.size + offset
        return self.pos

    def read(self, count: int = -1) -> bytes:
        """``count`` bytes from where it stands (all the rest for -1), with one ranged request."""
        if count is None or count < 0:
            count = self.size - self.pos
        if count == 0 or self.pos >= self.size:
            return b""
        end = min(self.pos + count, self.size) - 1
        ranged = {"Range": f"bytes={self.pos}-{end}"}
        request = urllib.request.Request(self.url, headers=ranged)  # noqa: S310 - opened by _open: HTTPS only
        with _open(request, timeout=120) as reply:
            data: bytes = reply.read()
        self.pos += len(data)
        return data


@dataclass(frozen=True)
class Wheel:
    """One wheel of PyPI, opened remotely: its name, version, address and zip directory."""

    package: str
    version: str
    url: str
    archive: zipfile.ZipFile

    def text(self, path: str) -> str:
        """The file ``path`` of the wheel, as text."""
        return self.archive.read(path).decode("utf-8", "replace")

    def source(self, path: str) -> dict[str, str]:
        """Where ``path`` comes from, as the vocabulary files record it."""
        return {"package": f"{self.package}=={self.version}", "path": path, "url": self.url}


def open_wheel(package: str) -> Wheel:
    """The newest Linux x86-64 wheel of ``package`` on PyPI."""
    with _open(f"{PYPI}/{package}/json", timeout=60) as reply:
        release = json.load(reply)
    [chosen] = [
        file
        for file in release["urls"]
        if file["filename"].endswith(".whl")
        and "manylinux" in file["filename"]
        and "x86_64" in file["filename"]
    ][:1]
    # The file's address under files.pythonhosted.org/packages/ (an index may give it relative).
    url = FILES + chosen["url"].rsplit("packages/", 1)[1]
    return Wheel(package, release["info"]["version"], url, zipfile.ZipFile(RangeFile(url)))  # type: ignore[arg-type]


def _clean_comment(comment: str) -> str:
    text = re.sub(r"^\s*(?:/\*\*?<?|\*/|\*|//!?<?|///<?)\s?", "", comment, flags=re.MULTILINE)
    text = re.sub(r"/\*\*<|\*/|/\*\*|@since\s+\S+(?:\s+[\d.]+)?|\\deprecated|@deprecated", "", text)
    return " ".join(text.split()).strip()


def enum_entries(header: str, typedef: str) -> list[dict[str, object]]:
    """The values of the C enum that ends in ``} typedef;``, each with the comment beside or above it."""
    end = re.search(rf"\}}\s*{re.escape(typedef)}\s*;", header)
    if end is not None:  # typedef enum { ... } name;
        start = header.rfind("{", 0, end.start())
        while not re.search(r"enum\s*\w*\s*$", header[max(0, start - 80) : start]):
            start = header.rfind("{", 0, start)
    else:  # enum [attribute] name { ... };
        opening = re.search(rf"enum\s+(?:\w+\s+)?{re.escape(typedef)}\s*\{{", header)
        if opening is None:
            raise SystemExit(f"no enum {typedef}")
        start = opening.end() - 1
        end = re.compile(r"\}\s*;").search(header, start)
        if end is None:
            raise SystemExit(f"enum {typedef} does not end")
    body = header[start + 1 : end.start()]
    entries: list[dict[str, object]] = []
    numbers: dict[str, int] = {}
    pending: list[str] = []
    for line in body.splitlines():
        stripped = line.strip()
        value = re.match(r"(\w+)(?:\s+\w+)?\s*=\s*([^,/]+?)\s*(?:,|$|/)", stripped)
        if value is None:
            if stripped.startswith(("/*", "*", "//")) or (pending and stripped):
                pending.append(stripped)
            continue
        name, number_text = value.groups()
        number_text = re.sub(r"/\*.*?\*/", "", number_text).strip()
        number = numbers.get(number_text) if number_text in numbers else int(number_text, 0)
        numbers[name] = number  # type: ignore[assignment]
        rest = stripped[value.end() - 1 :].lstrip(", ")
        trailing = rest if rest.startswith("/") else ""
        message = _clean_comment(trailing) or _clean_comment("\n".join(pending))
        pending = []
        entries.append({"name": name, "number": number, "message": message})
    return entries


def write(name: str, document: dict[str, object]) -> None:
    """Write one vocabulary file, with its schema and the tool that made it."""
    OUT.mkdir(parents=True, exist_ok=True)
    document = {
        "$schema": "../schemas/vocabulary.schema.json",
        "generated_by": "tools/vocabularies.py",
        **document,
    }
    (OUT / f"{name}.json").write_text(
        json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"{name}: {len(document['entries'])} entries")  # type: ignore[arg-type]


def header_vocabulary(
    name: str, component: str, wheel: Wheel, path: str, typedef: str
) -> list[dict[str, object]]:
    """Write the vocabulary of the C enum ``typedef`` in the wheel's header ``path``; its entries."""
    entries = enum_entries(wheel.text(path), typedef)
    _write_status(name, component, typedef, wheel.source(path), entries)
    return entries


def _write_status(
    name: str, component: str, typedef: str, source: object, entries: list[dict[str, object]]
) -> None:
    """Write a status vocabulary: the enum ``typedef`` of ``component``, read from ``source``."""
    write(
        name,
        {"component": component, "type": typedef, "kind": "status", "source": source, "entries": entries},
    )


# --- cuBLAS and NCCL: their headers give names and numbers only --------------------------------

CUBLAS_DOCS: Final = "https://docs.nvidia.com/cuda/cublas/index.html#cublasstatus-t"
#: cuBLAS's documentation of cublasStatus_t, value by value (its words, shortened to the first sentences).
CUBLAS_MESSAGES: Final = {
    "CUBLAS_STATUS_SUCCESS": "The operation completed successfully.",
    "CUBLAS_STATUS_NOT_INITIALIZED": "The cuBLAS library was not initialized. This is usually caused by the lack of "
    "a prior cublasCreate() call, an error in the CUDA Runtime API called by the cuBLAS routine, or an error in "
    "the hardware setup.",
    "CUBLAS_STATUS_ALLOC_FAILED": "Resource allocation failed inside the cuBLAS library. This is usually caused by "
    "a cudaMalloc() failure.",
    "CUBLAS_STATUS_INVALID_VALUE": "An unsupported value or parameter was passed to the function (a negative "
    "vector size, for example).",
    "CUBLAS_STATUS_ARCH_MISMATCH": "The function requires a feature absent from the device architecture.",
    "CUBLAS_STATUS_MAPPING_ERROR": "An access to GPU memory space failed, which is usually caused by a failure to "
    "bind a texture.",
    "CUBLAS_STATUS_EXECUTION_FAILED": "The GPU program failed to execute. This is often caused by a launch failure "
    "of the kernel on the GPU, which can be caused by multiple reasons.",
    "CUBLAS_STATUS_INTERNAL_ERROR": "An internal cuBLAS operation failed. This error is usually caused by a "
    "cudaMemcpyAsync() failure.",
    "CUBLAS_STATUS_NOT_SUPPORTED": "The functionality requested is not supported.",
    "CUBLAS_STATUS_LICENSE_ERROR": "The functionality requested requires some license and an error was detected "
    "when trying to check the current licensing.",
}

# --- cuFFT, cuSOLVER and cuSPARSE: their headers give names and numbers only, too -------------

CUFFT_DOCS: Final = "https://docs.nvidia.com/cuda/cufft/index.html#cufftresult"
#: cuFFT's documentation of cufftResult (the comments of the enum it prints), value by value.
CUFFT_MESSAGES: Final = {
    "CUFFT_SUCCESS": "The cuFFT operation was successful.",
    "CUFFT_INVALID_PLAN": "cuFFT was passed an invalid plan handle.",
    "CUFFT_ALLOC_FAILED": "cuFFT failed to allocate GPU or CPU memory.",
    "CUFFT_INVALID_TYPE": "No longer used.",
    "CUFFT_INVALID_VALUE": "User specified an invalid pointer or parameter.",
    "CUFFT_INTERNAL_ERROR": "Driver or internal cuFFT library error.",
    "CUFFT_EXEC_FAILED": "Failed to execute an FFT on the GPU.",
    "CUFFT_SETUP_FAILED": "The cuFFT library failed to initialize.",
    "CUFFT_INVALID_SIZE": "User specified an invalid transform size.",
    "CUFFT_UNALIGNED_DATA": "No longer used.",
    "CUFFT_INCOMPLETE_PARAMETER_LIST": "Missing parameters in call.",
    "CUFFT_INVALID_DEVICE": "Execution of a plan was on different GPU than plan creation.",
    "CUFFT_PARSE_ERROR": "Internal plan database error.",
    "CUFFT_NO_WORKSPACE": "No workspace has been provided prior to plan execution.",
    "CUFFT_NOT_IMPLEMENTED": "Function does not implement functionality for parameters given.",
    "CUFFT_LICENSE_ERROR": "Used in previous versions.",
    "CUFFT_NOT_SUPPORTED": "Operation is not supported for parameters given.",
}

# The table itself sits under an anchor Sphinx numbers (#id27, #id28: it moves between releases);
# this named section is the cuSolverDN type's, which points to that table.
CUSOLVER_DOCS: Final = "https://docs.nvidia.com/cuda/cusolver/index.html#cusolverstatus-t"
#: cuSOLVER's documentation of cusolverStatus_t (its words, shortened to the first sentences). It
#: describes these nine values only; the header's others (ZERO_PIVOT, MAPPING_ERROR, INVALID_LICENSE,
#: the IRS_* values, INVALID_WORKSPACE) have no documented message and are left out.
CUSOLVER_MESSAGES: Final = {
    "CUSOLVER_STATUS_SUCCESS": "The operation completed successfully.",
    "CUSOLVER_STATUS_NOT_INITIALIZED": "The cuSolver library was not initialized. This is usually caused by the "
    "lack of a prior call, an error in the CUDA Runtime API called by the cuSolver routine, or an error in the "
    "hardware setup.",
    "CUSOLVER_STATUS_ALLOC_FAILED": "Resource allocation failed inside the cuSolver library. This is usually caused "
    "by a cudaMalloc() failure.",
    "CUSOLVER_STATUS_INVALID_VALUE": "An unsupported value or parameter was passed to the function (a negative "
    "vector size, for example).",
    "CUSOLVER_STATUS_ARCH_MISMATCH": "The function requires a feature absent from the device architecture; usually "
    "caused by the lack of support for atomic operations or double precision.",
    "CUSOLVER_STATUS_EXECUTION_FAILED": "The GPU program failed to execute. This is often caused by a launch failure "
    "of the kernel on the GPU, which can be caused by multiple reasons.",
    "CUSOLVER_STATUS_INTERNAL_ERROR": "An internal cuSolver operation failed. This error is usually caused by a "
    "cudaMemcpyAsync() failure.",
    "CUSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED": "The matrix type is not supported by this function. This is usually "
    "caused by passing an invalid matrix descriptor to the function.",
    "CUSOLVER_STATUS_NOT_SUPPORTED": "The parameter combination is not supported, for example batched version is not "
    "supported or M < N is not supported.",
}

CUSPARSE_DOCS: Final = "https://docs.nvidia.com/cuda/cusparse/index.html#cusparsestatus-t"
#: cuSPARSE's documentation of cusparseStatus_t (its words, shortened to the first sentences). Its
#: table has no row for MAPPING_ERROR or ZERO_PIVOT, so those two are left out.
CUSPARSE_MESSAGES: Final = {
    "CUSPARSE_STATUS_SUCCESS": "The operation completed successfully.",
    "CUSPARSE_STATUS_NOT_INITIALIZED": "The cuSPARSE library was not initialized. This is usually caused by the "
    "lack of a prior call, an error in the CUDA Runtime API called by the cuSPARSE routine, or an error in the "
    "hardware setup.",
    "CUSPARSE_STATUS_ALLOC_FAILED": "Resource allocation failed inside the cuSPARSE library. This is usually caused "
    "by a device memory allocation (cudaMalloc()) or by a host memory allocation failure.",
    "CUSPARSE_STATUS_INVALID_VALUE": "An unsupported value or parameter was passed to the function (a negative "
    "vector size, for example).",
    "CUSPARSE_STATUS_ARCH_MISMATCH": "The function requires a feature absent from the device architecture.",
    "CUSPARSE_STATUS_EXECUTION_FAILED": "The GPU program failed to execute. This is often caused by a launch failure "
    "of the kernel on the GPU, which can be caused by multiple reasons.",
    "CUSPARSE_STATUS_INTERNAL_ERROR": "An internal cuSPARSE operation failed.",
    "CUSPARSE_STATUS_MATRIX_TYPE_NOT_SUPPORTED": "The matrix type is not supported by this function. This is usually "
    "caused by passing an invalid matrix descriptor to the function.",
    "CUSPARSE_STATUS_NOT_SUPPORTED": "The operation or data type combination is currently not supported by the "
    "function.",
    "CUSPARSE_STATUS_INSUFFICIENT_RESOURCES": "The resources for the computation, such as GPU global or shared "
    "memory, are not sufficient to complete the operation. The error can also indicate that the current "
    "computation mode (e.g. bit size of sparse matrix indices) does not allow to handle the given input.",
}


def documented_vocabulary(
    name: str, component: str, package: str, path: str, typedef: str, *, docs: str, messages: dict[str, str]
) -> list[dict[str, object]]:
    """Write the vocabulary of ``typedef`` from the wheel's header, with the documentation's messages.

    A value the documentation does not describe is left out rather than given a made-up meaning; a
    documented name the header lacks stops the tool (a typo, or a value the library dropped).
    """
    wheel = open_wheel(package)
    every = enum_entries(wheel.text(path), typedef)
    unknown = set(messages) - {str(entry["name"]) for entry in every}
    if unknown:
        raise SystemExit(f"{typedef}: documented but not in {path}: {sorted(unknown)}")
    entries = [entry for entry in every if str(entry["name"]) in messages]
    for entry in entries:
        entry["message"] = messages[str(entry["name"])]
        entry["source"] = docs
    skipped = [str(entry["name"]) for entry in every if str(entry["name"]) not in messages]
    if skipped:
        print(f"{name}: no documented message, left out: {', '.join(skipped)}")
    _write_status(name, component, typedef, wheel.source(path), entries)
    return entries


#: The libraries whose headers give names and numbers only: (file, component, wheel, header,
#: type, documentation, its messages).
DOCUMENTED: Final = (
    ("cublas", "cuBLAS", "nvidia-cublas-cu12", "nvidia/cublas/include/cublas_api.h", "cublasStatus_t", CUBLAS_DOCS, CUBLAS_MESSAGES),
    ("cufft", "cuFFT", "nvidia-cufft-cu12", "nvidia/cufft/include/cufft.h", "cufftResult", CUFFT_DOCS, CUFFT_MESSAGES),
    ("cusolver", "cuSOLVER", "nvidia-cusolver-cu12", "nvidia/cusolver/include/cusolver_common.h", "cusolverStatus_t", CUSOLVER_DOCS, CUSOLVER_MESSAGES),
    ("cusparse", "cuSPARSE", "nvidia-cusparse-cu12", "nvidia/cusparse/include/cusparse.h", "cusparseStatus_t", CUSPARSE_DOCS, CUSPARSE_MESSAGES),
)  # fmt: skip


NCCL_SOURCE: Final = {
    "repository": "https://github.com/NVIDIA/nccl",
    "commit": "5067397c2676d5aed50042fc39e5c8ee96eb0027",
    "path": "src/init.cc",
    "url": "https://github.com/NVIDIA/nccl/blob/5067397c2676d5aed50042fc39e5c8ee96eb0027/src/init.cc",
}


def nccl_messages() -> dict[str, str]:
    """NcclGetErrorString's texts, from NCCL's source at the commit :data:`NCCL_SOURCE` names."""
    raw = NCCL_SOURCE["url"].replace("github.com", "raw.githubusercontent.com").replace("/blob/", "/")
    try:
        with _open(raw, timeout=60) as reply:
            source = reply.read().decode()
    except OSError:  # no GitHub here: a local clone of NVIDIA/nccl (NCCL_CLONE) at the same commit
        clone = os.environ.get("NCCL_CLONE", "/work/.mirror/NVIDIA+nccl/repo")
        source = subprocess.run(
            [
                shutil.which("git") or "git",
                "-C",
                clone,
                "show",
                f"{NCCL_SOURCE['commit']}:{NCCL_SOURCE['path']}",
            ],
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    body = source[source.index("const char* ncclGetErrorString(ncclResult_t code)") :]
    body = body[: body.index("\n}\n")]
    return dict(re.findall(r"case (\w+):\s*return \"([^\"]*)\";", body))


# --- Windows -----------------------------------------------------------------------------------

SYSTEM_ERRORS: Final = "https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes"
NTSTATUS_VALUES: Final = "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55"
#: The codes loaders and tools print, by their headers' names, with Microsoft's message text.
WINDOWS_ERRORS: Final = {
    "ERROR_FILE_NOT_FOUND": "The system cannot find the file specified.",
    "ERROR_ACCESS_DENIED": "Access is denied.",
    "ERROR_NOT_ENOUGH_MEMORY": "Not enough memory resources are available to process this command.",
    "ERROR_MOD_NOT_FOUND": "The specified module could not be found.",
    "ERROR_PROC_NOT_FOUND": "The specified procedure could not be found.",
    "ERROR_BAD_EXE_FORMAT": "%1 is not a valid Win32 application.",
    "ERROR_FILENAME_EXCED_RANGE": "The filename or extension is too long.",
    "ERROR_DLL_INIT_FAILED": "A dynamic link library (DLL) initialization routine failed.",
    "ERROR_COMMITMENT_LIMIT": "The paging file is too small for this operation to complete.",
    "ERROR_SXS_CANT_GEN_ACTCTX": "The application has failed to start because its side-by-side configuration is "
    "incorrect.",
}
NTSTATUS: Final = {
    "STATUS_ACCESS_VIOLATION": "The instruction at 0x%08lx referenced memory at 0x%08lx. The memory could not be %s.",
    "STATUS_ILLEGAL_INSTRUCTION": "An attempt was made to execute an illegal instruction.",
    "STATUS_INVALID_IMAGE_FORMAT": "{Bad Image} %hs is either not designed to run on Windows or it contains an "
    "error.",
    "STATUS_NO_MEMORY": "{Not Enough Quota} Not enough virtual memory or paging file quota is available to "
    "complete the specified operation.",
    "STATUS_DLL_NOT_FOUND": "{Unable To Locate Component} This application has failed to start because %hs was not "
    "found. Reinstalling the application may fix this problem.",
    "STATUS_ORDINAL_NOT_FOUND": "{Ordinal Not Found} The ordinal %ld could not be located in the dynamic link "
    "library %hs.",
    "STATUS_ENTRYPOINT_NOT_FOUND": "{Entry Point Not Found} The procedure entry point %hs could not be located in "
    "the dynamic link library %hs.",
    "STATUS_DLL_INIT_FAILED": "{DLL Initialization Failed} Initialization of the dynamic link library %hs failed. "
    "The process is terminating abnormally.",
    "STATUS_STACK_OVERFLOW": "A new guard page for the stack cannot be created.",
    "STATUS_STACK_BUFFER_OVERRUN": "The system detected an overrun of a stack-based buffer in this application. "
    "This overrun could potentially allow a malicious user to gain control of this application.",
    "STATUS_HEAP_CORRUPTION": "A heap has been corrupted.",
}


def windows(path: Path, names: dict[str, str], url: str, kind: str) -> list[dict[str, object]]:
    """The entries of ``names``: number from the MinGW-w64 header ``path``, message from Microsoft (``url``)."""
    header = path.read_text(encoding="utf-8", errors="replace")
    entries: list[dict[str, object]] = []
    for name, message in names.items():
        found = re.search(rf"#define {name}\s+(?:__MSABI_LONG\(|\(\(NTSTATUS\))(\w+)\)", header)
        if found is None:
            raise SystemExit(f"{name} is not in {path}")
        number = int(found.group(1), 0)
        entries.append(
            {"name": name, "number": number, "hex": f"0x{number:08X}", "message": message, "source": url}
        )
    return entries


# --- which wheel ships which Linux library -----------------------------------------------------

#: The pip wheels of the CUDA 12 stack, the component each one is, and how its libraries' soname
#: numbers read (``cuda``: the CUDA major release; ``own``: the library's own major version).
LIBRARY_WHEELS: Final = (
    ("nvidia-cuda-runtime-cu12", "CUDA runtime", "cuda"),
    ("nvidia-cublas-cu12", "cuBLAS", "cuda"),
    ("nvidia-cudnn-cu12", "cuDNN", "own"),
    ("nvidia-nccl-cu12", "NCCL", "own"),
    ("nvidia-cuda-nvrtc-cu12", "NVRTC", "cuda"),
    ("nvidia-cufft-cu12", "cuFFT", "own"),
    ("nvidia-curand-cu12", "cuRAND", "own"),
    ("nvidia-cusolver-cu12", "cuSOLVER", "own"),
    ("nvidia-cusparse-cu12", "cuSPARSE", "cuda"),
    ("nvidia-nvjitlink-cu12", "nvJitLink", "cuda"),
    ("nvidia-cuda-cupti-cu12", "CUPTI", "cuda"),
)
#: Libraries no wheel ships: the driver's, installed with the NVIDIA driver.
DRIVER_LIBRARIES: Final = (
    ("libcuda.so.1", "the NVIDIA driver (CUDA driver API)"),
    ("libnvidia-ml.so.1", "the NVIDIA driver (NVML)"),
)
#: TensorRT's wheels on PyPI are fetched from NVIDIA's index at install time; its sonames follow its
#: major version (TensorRT installation guide, docs.nvidia.com/deeplearning/tensorrt/).
TENSORRT_LIBRARIES: Final = (
    "libnvinfer.so.10",
    "libnvinfer_plugin.so.10",
    "libnvonnxparser.so.10",
    "libnvinfer.so.8",
)
TENSORRT_SOURCE: Final = (
    "https://docs.nvidia.com/deeplearning/tensorrt/latest/installing-tensorrt/installing.html"
)
DRIVER_SOURCE: Final = "https://docs.nvidia.com/datacenter/tesla/driver-installation-guide/index.html"


def libraries() -> list[dict[str, object]]:
    """Which wheel ships which Linux library (its soname, from the wheel's file list), and the hand-added ones."""
    entries: list[dict[str, object]] = []
    for package, component, numbering in LIBRARY_WHEELS:
        wheel = open_wheel(package)
        for path in wheel.archive.namelist():
            soname = re.fullmatch(r".*/(lib[\w+-]+\.so\.(\d+)(?:\.\d+)*)", path)
            if soname is None:
                continue
            major = int(soname.group(2))
            family = f"{component} {major}" if numbering == "own" else f"{component} of CUDA {major}"
            entries.append(
                {
                    "name": soname.group(1),
                    "number": major,
                    "message": family,
                    "component": component,
                    "package": package,
                    "source": wheel.source(path),
                }
            )
    for name in TENSORRT_LIBRARIES:
        major = int(name.rsplit(".", 1)[1])
        entries.append(
            {
                "name": name,
                "number": major,
                "message": f"TensorRT {major}",
                "component": "TensorRT",
                "package": "tensorrt",
                "source": TENSORRT_SOURCE,
            }
        )
    for name, component in DRIVER_LIBRARIES:
        entries.append(
            {
                "name": name,
                "number": int(name.rsplit(".", 1)[1]),
                "message": component,
                "component": component,
                "package": "NVIDIA driver",
                "source": DRIVER_SOURCE,
            }
        )
    return entries


def main() -> int:
    """Write every vocabulary file."""
    runtime = open_wheel("nvidia-cuda-runtime-cu12")
    header_vocabulary(
        "cuda-runtime", "CUDA runtime", runtime, "nvidia/cuda_runtime/include/driver_types.h", "cudaError"
    )
    header_vocabulary("cuda-driver", "CUDA driver", runtime, "nvidia/cuda_runtime/include/cuda.h", "CUresult")
    header_vocabulary(
        "nvml", "NVML", open_wheel("nvidia-nvml-dev-cu12"), "nvidia/nvml_dev/include/nvml.h", "nvmlReturn_t"
    )
    header_vocabulary(
        "cudnn",
        "cuDNN",
        open_wheel("nvidia-cudnn-cu12"),
        "nvidia/cudnn/include/cudnn_graph.h",
        "cudnnStatus_t",
    )
    for name, component, package, path, typedef, docs, messages in DOCUMENTED:
        documented_vocabulary(name, component, package, path, typedef, docs=docs, messages=messages)
    nccl = open_wheel("nvidia-nccl-cu12")
    path = "nvidia/nccl/include/nccl.h"
    messages = nccl_messages()
    entries = [
        entry for entry in enum_entries(nccl.text(path), "ncclResult_t") if entry["name"] != "ncclNumResults"
    ]
    for entry in entries:
        entry["message"] = messages.get(str(entry["name"]), "")
        entry["source"] = NCCL_SOURCE["url"]
    write(
        "nccl",
        {
            "component": "NCCL",
            "type": "ncclResult_t",
            "kind": "status",
            "source": nccl.source(path),
            "entries": entries,
        },
    )
    mingw = "mingw-w64-common (Debian 10.0.0-3)"
    write(
        "windows-errors",
        {
            "component": "Windows",
            "type": "system error code",
            "kind": "windows",
            "source": {"package": mingw, "path": str(MINGW / "winerror.h"), "url": SYSTEM_ERRORS},
            "entries": windows(MINGW / "winerror.h", WINDOWS_ERRORS, SYSTEM_ERRORS, "system"),
        },
    )
    write(
        "windows-ntstatus",
        {
            "component": "Windows",
            "type": "NTSTATUS",
            "kind": "windows",
            "source": {"package": mingw, "path": str(MINGW / "ntstatus.h"), "url": NTSTATUS_VALUES},
            "entries": windows(MINGW / "ntstatus.h", NTSTATUS, NTSTATUS_VALUES, "ntstatus"),
        },
    )
    write(
        "libraries",
        {
            "component": "CUDA libraries",
            "type": "Linux shared library",
            "kind": "library",
            "source": {"url": "https://pypi.org/", "path": "the wheels' file lists"},
            "entries": libraries(),
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
