"""Write the vendors' own error vocabularies to resources/vocabularies/<name>.json (issue 35).

Each vocabulary is read from its makers' files, and each file records where: the CUDA runtime's
``cudaError_t`` and the driver's ``CUresult`` from the headers of NVIDIA's wheels on PyPI (with the
doc comment above each value as its message), NVML's ``nvmlReturn_t``, cuDNN's ``cudnnStatus_t``,
cuBLAS's ``cublasStatus_t``, cuFFT's ``cufftResult``, cuSOLVER's ``cusolverStatus_t``, cuSPARSE's
``cusparseStatus_t`` and NCCL's ``ncclResult_t`` likewise; the Windows error numbers and
NTSTATUS values from the MinGW-w64 headers installed here (names and numbers; the messages are
Microsoft's, quoted with the page that lists them); and which wheel ships which Linux library,
from the wheels' own file lists. For AMD's ROCm and Intel's oneAPI: HIP's ``hipError_t`` (with the
text hipGetErrorString prints for each value), HSA's ``hsa_status_t``, rocBLAS's
``rocblas_status``, Level Zero's ``ze_result_t``, the Unified Runtime's ``ur_result_t`` and SYCL's
PI codes, from the makers' repositories at pinned commits (:func:`accelerators`).

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


# --- ROCm and oneAPI: the makers' repositories at a pinned commit ------------------------------

#: The files read, each at the commit named: (repository, commit, path). The ROCm and Level Zero
#: headers carry a doc comment per value; HIP's hipGetErrorString texts (what "HIP error: ..." quotes)
#: are in the runtime's source (clr); SYCL's older PI codes have names and numbers only, and SYCL's
#: own table maps each Unified Runtime value onto one (pi2ur.hpp), which gives them the UR doc text.
HIP_HEADER: Final = ("ROCm/HIP", "c5e11fcac8249ce4f7e70157588ff9661a870b59", "include/hip/hip_runtime_api.h")
HIP_STRINGS: Final = ("ROCm/clr", "f9f995c6d0aecec28debd3db0f41df0c15ec003d", "hipamd/src/hip_error.cpp")
HSA_HEADER: Final = (
    "ROCm/ROCR-Runtime",
    "c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9",
    "runtime/hsa-runtime/inc/hsa.h",
)
HSA_AMD_HEADER: Final = (
    "ROCm/ROCR-Runtime",
    "c7785a6da1c10c25bc8d527c00b1fe79bfbd84c9",
    "runtime/hsa-runtime/inc/hsa_ext_amd.h",
)
ROCBLAS_HEADER: Final = (
    "ROCm/rocBLAS",
    "b520bc83fa67045bed4544f33ba83ce3a7c39c44",
    "library/include/internal/rocblas-types.h",
)
LEVEL_ZERO_HEADER: Final = (
    "oneapi-src/level-zero",
    "d3b3efbdaa27a0aef9a9812cc8fa4260557c1e7c",
    "include/ze_api.h",
)
UR_HEADER: Final = (
    "oneapi-src/unified-runtime",
    "578c2a84af3c5a666afb5a0a0657d11f998e914b",
    "include/unified-runtime/ur_api.h",
)
PI_CODES: Final = (
    "intel/llvm",
    "29f6beeeb5c3e4fe3d9f2adfff896439427324da",
    "sycl/include/sycl/detail/pi_error.def",
)
PI_FROM_UR: Final = (
    "intel/llvm",
    "36a889fb3ac7ba0e31b3446fffb497e729220d81",
    "sycl/plugins/unified_runtime/pi2ur.hpp",
)


def repository_url(source: tuple[str, str, str]) -> str:
    """The address of a file of :data:`HIP_HEADER`'s shape on GitHub."""
    repository, commit, path = source
    return f"https://github.com/{repository}/blob/{commit}/{path}"


def repository_file(source: tuple[str, str, str]) -> str:
    """The text of one repository file at its commit: from GitHub, else from a local copy.

    Without GitHub, a clone under ``GPUWIZARD_MIRRORS`` (``<owner>+<name>/repo``, as the fetch tool
    leaves them in /work/.mirror) is read with ``git show``, or else a copy of the file under
    ``GPUWIZARD_SOURCE_COPIES`` (``<owner>+<name>/<commit>/<path>``: for repositories too large to
    clone, such as intel/llvm).
    """
    repository, commit, path = source
    raw = f"https://raw.githubusercontent.com/{repository}/{commit}/{path}"
    try:
        with _open(raw, timeout=60) as reply:
            return str(reply.read().decode("utf-8", "replace"))
    except OSError:
        pass
    folder = repository.replace("/", "+")
    clone = Path(os.environ.get("GPUWIZARD_MIRRORS", "/work/.mirror")) / folder / "repo"
    if clone.is_dir():
        git = shutil.which("git") or "git"
        shown = subprocess.run(
            [git, "-C", str(clone), "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
        )
        return shown.stdout
    copies = Path(os.environ.get("GPUWIZARD_SOURCE_COPIES", "/tmp/vocab-sources"))  # noqa: S108 - a folder the maintainer names
    return (copies / folder / commit / path).read_text(encoding="utf-8")


def _source(source: tuple[str, str, str]) -> dict[str, str]:
    return {"path": f"{source[0]}/{source[2]}@{source[1]}", "url": repository_url(source)}


#: One token of a C enum body: a block comment, a line comment, or a value (``NAME [[attr]] = N``).
_ENUM_TOKEN: Final = re.compile(
    r"/\*(?P<block>.*?)\*/|//(?P<line>[^\n]*)|(?P<name>[A-Za-z_]\w*)\s*(?:\[\[\w+\]\]\s*)?(?:=\s*(?P<value>[^,}/]+?))?\s*(?=,|/|$|\n)",
    re.DOTALL,
)


def doc_enum_entries(body: str) -> list[dict[str, object]]:
    """The values of a C enum ``body`` (the text between its braces), each with its doc comment.

    A doc comment is the one before a value (``///``, ``/** */``) or after it (``///<``, ``/**<``,
    continued on the next lines by more ``///<``); a plain ``//`` comment is not documentation
    (HIP marks deprecated names with one). A value without a number follows the one before it.
    """
    entries: list[dict[str, object]] = []
    numbers: dict[str, int] = {}
    leading: list[str] = []
    last: dict[str, object] | None = None
    next_number = 0
    for token in _ENUM_TOKEN.finditer(body):
        comment = token.group("block") if token.group("block") is not None else token.group("line")
        if comment is not None:
            text = comment.lstrip("*!/")
            if text.startswith("<") and last is not None:  # after a value: it documents that one
                last["doc"] = f"{last.get('doc', '')} {_clean_comment(text[1:])}".strip()
            elif token.group("block") is not None or token.group("line").startswith(("/", "!")):
                leading.append(_clean_comment(text))
            continue
        name, value = token.group("name"), token.group("value")
        if value is not None:
            value = re.sub(r"/\*.*?\*/", "", value).strip()
            number = numbers[value] if value in numbers else int(value, 0)
        else:
            number = next_number
        numbers[name] = number
        next_number = number + 1
        last = {"name": name, "number": number, "doc": " ".join(part for part in leading if part)}
        leading = []
        entries.append(last)
    return entries


def enum_body(text: str, typedef: str | None = None, after: str | None = None) -> str:
    """The text between the braces of the enum named ``typedef``, or of the first enum after ``after``."""
    if typedef is not None:
        # typedef enum [attribute] [tag] { ... } name;  (a body holds no other enum)
        found = re.search(
            rf"enum\s+(?:__\w+\s+)?(?:_?{re.escape(typedef)}_?\s*)?\{{(?P<body>(?:(?!\benum\b)[^}}])*)\}}\s*{re.escape(typedef)}\s*;",
            text,
        )
    else:
        start = text.index(after or "")
        found = re.compile(r"enum\s*\{(?P<body>.*?)\}", re.DOTALL).search(text, start)
    if found is None:
        raise SystemExit(f"no enum {typedef or after}")
    return found.group("body")


def _status_entries(
    entries: list[dict[str, object]], source: tuple[str, str, str], printed: dict[str, str] | None = None
) -> list[dict[str, object]]:
    """Vocabulary entries: the doc comment as the message (else the printed text), with their source."""
    written: list[dict[str, object]] = []
    by_number: dict[int, str] = {}
    for entry in entries:
        name, number = str(entry["name"]), int(str(entry["number"]))
        text = (printed or {}).get(name) or (printed or {}).get(by_number.get(number, ""), "")
        by_number.setdefault(number, name)
        message = str(entry.get("doc") or "") or text
        if not message:
            print(f"{source[2]}: {name} has no documented meaning, left out")
            continue
        row: dict[str, object] = {"name": name, "number": number, "message": message}
        if text:
            row["printed"] = text
        row["source"] = _source(source)
        written.append(row)
    return written


def hip_printed() -> dict[str, str]:
    """The text hipGetErrorString prints for each hipError_t name (clr's ihipGetErrorString)."""
    source = repository_file(HIP_STRINGS)
    body = source[source.index("ihipGetErrorString(hipError_t hip_error)") :]
    body = body[: body.index("\n}\n")]
    return dict(re.findall(r"case (\w+):\s*return \"([^\"]*)\";", body))


def pi_entries(ur: list[dict[str, object]]) -> list[dict[str, object]]:
    """SYCL's PI codes (pi_error.def), each with its meaning; those without one are left out.

    The meaning is the message pi_error.def gives, or else the doc text of the Unified Runtime
    values SYCL maps onto the code (ur2piResult in pi2ur.hpp).
    """
    codes = repository_file(PI_CODES)
    mapping = repository_file(PI_FROM_UR)
    function = mapping[mapping.index("static pi_result ur2piResult") :]
    function = function[: function.index("\n}\n")]
    ur_text = {str(entry["name"]): str(entry["message"]) for entry in ur}
    from_ur: dict[str, list[str]] = {}
    pending: list[str] = []
    for kind, name in re.findall(r"(case|return) (\w+)[:;]", function):
        if kind == "case":
            pending.append(name)
        else:
            from_ur.setdefault(name, []).extend(pending)
            pending = []
    entries: list[dict[str, object]] = []
    for name, number, message in re.findall(
        r"_PI_ERRC(?:_WITH_MSG)?\((\w+), (-?\d+)(?:, \"([^\"]*)\")?\)", codes
    ):
        sources = [ur for ur in from_ur.get(name, []) if ur in ur_text]
        same = [ur for ur in sources if ur.removeprefix("UR_RESULT_ERROR_") == name.removeprefix("PI_ERROR_")]
        if message:
            entries.append(
                {"name": name, "number": int(number), "message": message, "source": _source(PI_CODES)}
            )
        elif sources:
            texts = [ur_text[ur] for ur in [*same, *sources]]  # its namesake first, then the others
            entries.append(
                {
                    "name": name,
                    "number": int(number),
                    "message": "; or: ".join(dict.fromkeys(texts)),
                    "source": _source(PI_FROM_UR),
                }
            )
        elif int(number) != 0:
            print(f"sycl-pi: {name} has no documented meaning, left out")
    return entries


def accelerators() -> None:
    """Write the ROCm (HIP, HSA, rocBLAS) and oneAPI (Level Zero, Unified Runtime, SYCL PI) vocabularies."""
    hip = _status_entries(
        doc_enum_entries(enum_body(repository_file(HIP_HEADER), "hipError_t")), HIP_HEADER, hip_printed()
    )
    _write_status("hip-runtime", "HIP runtime", "hipError_t", _source(HIP_HEADER), hip)
    hsa = _status_entries(
        doc_enum_entries(enum_body(repository_file(HSA_HEADER), "hsa_status_t")), HSA_HEADER
    )
    amd = doc_enum_entries(
        enum_body(
            repository_file(HSA_AMD_HEADER), after="@brief Enumeration constants added to ::hsa_status_t"
        )
    )
    hsa += _status_entries(amd, HSA_AMD_HEADER)
    _write_status("hsa-runtime", "ROCm runtime (HSA)", "hsa_status_t", _source(HSA_HEADER), hsa)
    rocblas = doc_enum_entries(enum_body(repository_file(ROCBLAS_HEADER), "rocblas_status"))
    _write_status(
        "rocblas",
        "rocBLAS",
        "rocblas_status",
        _source(ROCBLAS_HEADER),
        _status_entries(rocblas, ROCBLAS_HEADER),
    )
    zero = [
        entry
        for entry in doc_enum_entries(enum_body(repository_file(LEVEL_ZERO_HEADER), "ze_result_t"))
        if entry["name"] != "ZE_RESULT_FORCE_UINT32"  # the enum's size marker, no value
    ]
    _write_status(
        "level-zero",
        "Level Zero",
        "ze_result_t",
        _source(LEVEL_ZERO_HEADER),
        _status_entries(zero, LEVEL_ZERO_HEADER),
    )
    ur = [
        entry
        for entry in doc_enum_entries(enum_body(repository_file(UR_HEADER), "ur_result_t"))
        if not str(entry["name"]).endswith("_FORCE_UINT32")
    ]
    ur_entries = _status_entries(ur, UR_HEADER)
    _write_status("unified-runtime", "Unified Runtime", "ur_result_t", _source(UR_HEADER), ur_entries)
    _write_status("sycl-pi", "SYCL runtime (PI)", "pi_result", _source(PI_CODES), pi_entries(ur_entries))


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
    accelerators()
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
