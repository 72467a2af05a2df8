"""A synthetic PyPI and PyTorch index on 127.0.0.1 for ``tools/compat_harvest.py``, and data that matches it.

The data rows (in ``resources/compat`` format) are the specification: the wheels are built from
them, so the data and the artifacts agree until a test changes one side. The wheels are real zip
files: a ``torch/version.py``, METADATA and a fake ``libtorch_cuda.so`` whose bytes hold the NVCC
``-gencode`` flags after random padding; TensorFlow wheels a ``build_info.py``. One wheel (torch
2.14.1 cp312 for Linux on PyPI) is big: its flags lie 8.5 MiB into the library and 12 MiB follow,
so a harvester that reads more than it needs is seen.

The server answers Range requests (``bytes=a-b``, ``bytes=a-``, ``bytes=-n``) with 206 and logs
every request with the bytes it sent.
"""

from __future__ import annotations

import copy
import hashlib
import io
import json
import random
import shutil
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)
MIB = 1 << 20
#: The big wheel: the torch release and where its flags lie.
BIG_RELEASE = "2.14"
BIG_PADDING = 8 * MIB + MIB // 2
BIG_TAIL = 12 * MIB

# --- the server -------------------------------------------------------------------------------


@dataclass
class Served:
    """One request as the server saw it."""

    path: str
    range: str | None
    status: int
    sent: int


@dataclass
class RangeSite:
    """Files by path; the requests seen."""

    files: dict[str, bytes] = field(default_factory=dict)
    served: list[Served] = field(default_factory=list)
    #: Paths answered with the whole file even when a Range is asked for.
    ignore_range: set[str] = field(default_factory=set)
    url: str = ""

    def wheel_requests(self) -> list[Served]:
        return [s for s in self.served if s.path.endswith((".whl", ".metadata"))]


def _range(header: str, size: int) -> tuple[int, int] | None:
    unit, _, spec = header.partition("=")
    if unit.strip() != "bytes" or "," in spec:
        return None
    first, _, last = spec.strip().partition("-")
    if not first:
        length = int(last)
        return max(size - length, 0), size - 1
    start = int(first)
    end = min(int(last), size - 1) if last else size - 1
    return (start, end) if start < size and start <= end else None


@contextmanager
def serve() -> Iterator[RangeSite]:
    site = RangeSite()
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            path = unquote(urlsplit(self.path).path)
            body = site.files.get(path)
            header = self.headers.get("Range")
            if body is None:
                self.send_error(404)
                with lock:
                    site.served.append(Served(path, header, 404, 0))
                return
            span = _range(header, len(body)) if header and path not in site.ignore_range else None
            if header and span is None and path not in site.ignore_range:
                self.send_response(416)
                self.send_header("Content-Range", f"bytes */{len(body)}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                with lock:
                    site.served.append(Served(path, header, 416, 0))
                return
            if span is not None:
                start, end = span
                part = body[start : end + 1]
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(body)}")
            else:
                part = body
                self.send_response(200)
            self.send_header("Content-Length", str(len(part)))
            self.end_headers()
            sent = 0
            try:
                for at in range(0, len(part), 1 << 16):
                    self.wfile.write(part[at : at + (1 << 16)])
                    sent += len(part[at : at + (1 << 16)])
            except (BrokenPipeError, ConnectionResetError):
                pass
            with lock:
                site.served.append(Served(path, header, 206 if span else 200, sent))

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    site.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield site
    finally:
        server.shutdown()
        server.server_close()


# --- wheels -----------------------------------------------------------------------------------


def zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            info = zipfile.ZipInfo(name, date_time=_ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return buffer.getvalue()


def gencode(ccs: list[str], ptx: str | None) -> str:
    flags = [f"-gencode;arch=compute_{cc.replace('.', '')},code=sm_{cc.replace('.', '')}" for cc in ccs]
    if ptx:
        digits = ptx.replace(".", "")
        flags.append(f"-gencode;arch=compute_{digits},code=compute_{digits}")
    return ";".join(flags)


def library(flags: str, padding: int, tail: int, seed: int) -> bytes:
    """A fake CUDA library: random bytes (incompressible), the flags, more random bytes."""
    rng = random.Random(seed)  # noqa: S311 - reproducible padding, not secrets
    return rng.randbytes(padding) + b"\x7fCMAKE\x00" + flags.encode() + b"\x00" + rng.randbytes(tail)


def metadata(
    name: str, version: str, python_min: str, python_max: str, *, requires: list[str], extras: list[str]
) -> str:
    lines = ["Metadata-Version: 2.4", f"Name: {name}", f"Version: {version}"]
    low, high = int(python_min.split(".")[1]), int(python_max.split(".")[1])
    lines += [f"Classifier: Programming Language :: Python :: 3.{minor}" for minor in range(low, high + 1)]
    lines.append(f"Requires-Python: >={python_min}")
    lines += [f"Provides-Extra: {extra}" for extra in extras]
    lines += [f"Requires-Dist: {requirement}" for requirement in requires]
    return "\n".join(lines) + "\n\nA synthetic wheel for the harvester's tests.\n"


def torch_wheel(
    version: str,
    cuda: str | None,
    meta: str,
    *,
    os: str,
    flags: str | None,
    padding: int,
    tail: int,
    seed: int,
) -> bytes:
    public = version.split("+", maxsplit=1)[0]
    members = {
        "torch/__init__.py": b"",
        "torch/version.py": (
            "from typing import Optional\n\n__all__ = ['__version__', 'debug', 'cuda']\n"
            f"__version__ = '{version}'\ndebug = False\ncuda: Optional[str] = {cuda!r}\nhip: Optional[str] = None\n"
        ).encode(),
    }
    if flags is not None:
        name = "torch/lib/libtorch_cuda.so" if os == "linux" else "torch/lib/torch_cuda.dll"
        members[name] = library(flags, padding, tail, seed)
    members[f"torch-{public}.dist-info/METADATA"] = meta.encode()
    members[f"torch-{public}.dist-info/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: false\n"
    )
    return zip_bytes(members)


def tf_build_info(gpu: dict[str, Any] | None, os: str) -> str:
    head = '"""Auto-generated module providing information about the build."""\nimport collections\n\n'
    if gpu is None:
        return (
            head
            + "build_info = collections.OrderedDict([('is_cuda_build', False), ('is_rocm_build', False)])\n"
        )
    ccs = [f"sm_{cc.replace('.', '')}" for cc in gpu["compute_capabilities"] if cc != gpu["ptx"]]
    if gpu["ptx"]:
        ccs.append(f"compute_{gpu['ptx'].replace('.', '')}")
    if os == "windows":  # Windows builds write 64_112 for 11.2 and 64_8 for cuDNN 8
        cuda, cudnn = "64_" + gpu["cuda"].replace(".", ""), "64_" + gpu["cudnn"].split(".")[0]
    else:
        cuda, cudnn = (
            gpu["cuda"] + ".1",
            gpu["cudnn"].split(".")[0],
        )  # more precise / less precise than the data
    items = [("cuda_compute_capabilities", ccs), ("cuda_version", cuda), ("cudnn_version", cudnn)]
    items.append(("is_cuda_build", True))
    return head + f"build_info = collections.OrderedDict({items!r})\n"


# --- the data ---------------------------------------------------------------------------------

#: What TensorFlow 2.21's [and-cuda] ranges resolve to on the site (the newest final release in
#: range with a manylinux x86_64 wheel), as the data records it.
CUDNN_TODAY = "9.28.0.42"
CUBLAS_TODAY = "12.9.3.13"
#: The CUDA library wheels on the site: version -> (platform tags, yanked). Around the newest
#: installable cuDNN in range: one for other platforms only, a yanked one, a pre-release, and
#: 10.0 (out of the range).
LIBRARY_RELEASES: dict[str, dict[str, tuple[tuple[str, ...], bool]]] = {
    "nvidia-cudnn-cu12": {
        "9.3.0.75": (("manylinux_2_27_x86_64", "win_amd64"), False),
        "9.10.2.21": (("manylinux_2_27_x86_64",), False),
        "9.20.0.48": (("manylinux_2_27_x86_64",), False),
        CUDNN_TODAY: (("manylinux_2_27_x86_64", "manylinux_2_27_aarch64", "win_amd64"), False),
        "9.29.0.10": (("manylinux_2_27_aarch64", "win_amd64"), False),
        "9.30.0.1": (("manylinux_2_27_x86_64",), True),
        "9.31.0.0rc1": (("manylinux_2_27_x86_64",), False),
        "10.0.0.5": (("manylinux_2_27_x86_64",), False),
    },
    "nvidia-cublas-cu12": {
        "12.5.3.2": (("manylinux2014_x86_64",), False),
        CUBLAS_TODAY: (("manylinux_2_27_x86_64", "win_amd64"), False),
    },
}

LINUX_NEW = ("7.5", "8.0", "8.6", "9.0", "10.0", "12.0")
LINUX_126 = ("5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0")
WINDOWS_126 = ("5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "9.0")


def _cuda_variant(
    name: str, cudnn: str, linux: tuple[tuple[str, ...], str | None], windows: tuple[str, ...]
) -> dict[str, Any]:
    return {
        "name": name,
        "cuda": f"{name[2:-1]}.{name[-1]}",
        "cudnn": cudnn,
        "platforms": {
            "linux": {
                "compute_capabilities": list(linux[0]),
                "ptx": linux[1],
                "note": f"curated note on {name} linux",
            },
            "windows": {"compute_capabilities": list(windows), "ptx": None},
        },
        "source": ["PT-REL"],
        "note": f"curated note on {name}",
        "experimental": False,
    }


def _cpu_variant() -> dict[str, Any]:
    return {
        "name": "cpu",
        "cuda": None,
        "cudnn": None,
        "platforms": {"linux": {}, "windows": {}, "darwin": {}},
        "source": ["PT-REL"],
    }


def torch_rows() -> list[dict[str, Any]]:
    """Three torch releases, newest first, as pytorch.json has them."""
    rows = []
    for minor, latest, low, high, variants, default in (
        (
            "2.15",
            "2.15.0",
            "3.11",
            "3.15",
            [("cu130", "9.24.0.43", "12.0"), ("cu132", "9.26.0.51", None)],
            "cu132",
        ),
        (
            "2.14",
            "2.14.1",
            "3.10",
            "3.14",
            [("cu126", "9.10.2.21", None), ("cu130", "9.24.0.43", "12.0")],
            "cu130",
        ),
        (
            "2.13",
            "2.13.0",
            "3.10",
            "3.14",
            [("cu126", "9.10.2.21", None), ("cu130", "9.20.0.48", None)],
            "cu130",
        ),
    ):
        entries = [
            _cuda_variant(
                name,
                cudnn,
                (LINUX_126 if name == "cu126" else LINUX_NEW, ptx),
                WINDOWS_126 if name == "cu126" else LINUX_NEW,
            )
            for name, cudnn, ptx in variants
        ]
        rows.append({
            "version": minor,
            "latest": latest,
            "python": {"min": low, "max": high},
            "variants": [*entries, _cpu_variant()],
            "pypi_default": {"linux": default, "windows": "cpu", "darwin": "cpu"},
            "conda_pytorch_channel": False,
            "source": ["PT-REL", "PYPI"],
            "note": f"curated note on torch {minor}",
        })  # fmt: skip
    return rows


def tf_rows() -> list[dict[str, Any]]:
    """Two TensorFlow releases, newest first, as tensorflow.json has them."""
    ranges = [
        {
            "library": "cudnn",
            "package": "nvidia-cudnn-cu12",
            "spec": "<10.0,>=9.3.0.75",
            "resolved": CUDNN_TODAY,
            "resolved_on": "2026-11-29",
            "source": "PIP-DRY-RUN",
        },
        {
            "library": "cublas",
            "package": "nvidia-cublas-cu12",
            "spec": "<13.0,>=12.5.3.2",
            "resolved": CUBLAS_TODAY,
            "resolved_on": "2026-11-29",
            "source": "PIP-DRY-RUN",
        },
    ]
    linux_221 = {
        "cuda": "12.5", "cudnn": "9.3", "cuda_supply": "and-cuda",
        "compute_capabilities": ["6.0", "7.0", "8.0", "8.9"], "ptx": "9.0", "note": "curated note on 2.21 linux",
        "library_ranges": ranges,
    }  # fmt: skip
    old = {"cuda": "11.2", "cudnn": "8.1", "cuda_supply": "system",
           "compute_capabilities": ["3.5", "5.0", "6.0", "7.0", "7.5"], "ptx": "8.0"}  # fmt: skip
    windows_210 = {
        **old,
        "conda_packages": ["cudatoolkit=11.2", "cudnn=8.1.0"],
        "dlls": ["cudart64_110.dll", "cudnn64_8.dll"],
    }
    return [
        {
            "version": "2.21", "latest": "2.21.0", "python": {"min": "3.10", "max": "3.13"},
            "gpu": {"linux": linux_221, "windows": None, "darwin": None},
            "cpu": ["linux", "windows", "darwin"], "source": ["PYPI"], "note": "curated note on tf 2.21",
        },
        {
            "version": "2.10", "latest": "2.10.1", "python": {"min": "3.7", "max": "3.10"},
            "gpu": {"linux": old, "windows": windows_210, "darwin": None},
            "cpu": ["linux", "windows", "darwin"], "source": ["PYPI"],
        },
    ]  # fmt: skip


def write_data(folder: Path, pytorch: list[dict[str, Any]], tensorflow: list[dict[str, Any]]) -> Path:
    """A data folder: the repository's files, with pytorch.json and tensorflow.json made of these rows."""
    folder.mkdir(parents=True, exist_ok=True)
    for source in (ROOT / "resources" / "compat").glob("*.json"):
        shutil.copyfile(source, folder / source.name)
    documents = {
        "pytorch": {"schema": "gpuwizard.compat-pytorch/1", "index_url": "https://download.pytorch.org/whl/{variant}",
                    "releases": pytorch},
        "tensorflow": {"schema": "gpuwizard.compat-tensorflow/1", "releases": tensorflow},
    }  # fmt: skip
    for name, document in documents.items():
        (folder / f"{name}.json").write_text(
            json.dumps(document, indent=2, ensure_ascii=False) + "\n", "utf-8"
        )
    return folder


# --- publishing -------------------------------------------------------------------------------


@dataclass
class Published:
    """What the site offers, for the tests' assertions."""

    site: RangeSite
    big_wheel: str = ""
    pypi: str = ""
    index: str = ""
    #: file name -> (path on the site, sha256)
    files: dict[str, tuple[str, str]] = field(default_factory=dict)


class _Pypi:
    def __init__(self, published: Published, package: str) -> None:
        self.published = published
        self.package = package
        self.releases: dict[str, list[dict[str, Any]]] = {}

    def add(self, version: str, filename: str, data: bytes, *, yanked: bool = False) -> None:
        digest = hashlib.sha256(data).hexdigest()
        path = f"/packages/packages/{digest[:2]}/{digest[2:4]}/{digest[4:]}/{filename}"
        self.published.site.files[path] = data
        self.published.files[filename] = (path, digest)
        self.releases.setdefault(version, []).append({
            "filename": filename, "packagetype": "bdist_wheel", "yanked": yanked, "size": len(data),
            # relative, as the PyPI mirror reachable from the development machine answers
            "url": f"../..{path}", "digests": {"sha256": digest, "md5": hashlib.md5(data).hexdigest()},  # noqa: S324
        })  # fmt: skip

    def finish(self) -> None:
        document = {"info": {"name": self.package}, "releases": self.releases, "urls": []}
        self.published.site.files[f"/pypi/{self.package}/json"] = json.dumps(document).encode()


def _pythons(low: str, high: str) -> list[str]:
    return [f"cp3{minor}" for minor in range(int(low.split(".")[1]), int(high.split(".")[1]) + 1)]


def _torch_requires(variant: dict[str, Any], marker: str) -> list[str]:
    major = variant["cuda"].split(".")[0]
    return [
        "filelock",
        f"cuda-toolkit[cudart,cublas]=={variant['cuda']}.2; {marker}",
        f"nvidia-cudnn-cu{major}=={variant['cudnn']}; {marker}",
        'optree>=0.13.0; extra == "optree"',
    ]


def publish_torch(published: Published, rows: list[dict[str, Any]]) -> None:
    pypi = _Pypi(published, "torch")
    index_links: list[str] = []
    for number, row in enumerate(rows):
        latest, low, high = row["latest"], row["python"]["min"], row["python"]["max"]
        variants = {variant["name"]: variant for variant in row["variants"]}
        default = variants[row["pypi_default"]["linux"]]
        requires = _torch_requires(default, 'platform_system == "Linux"')
        meta = metadata("torch", latest, low, high, requires=requires, extras=["optree"])
        platform = default["platforms"]["linux"]
        big = row["version"] == BIG_RELEASE
        linux = torch_wheel(
            f"{latest}+{default['name']}", default["cuda"], meta, os="linux",
            flags=gencode(platform["compute_capabilities"], platform["ptx"]),
            padding=BIG_PADDING if big else 1 << 16, tail=BIG_TAIL if big else 1 << 12, seed=number,
        )  # fmt: skip
        windows = torch_wheel(
            f"{latest}+cpu", None, meta, os="windows", flags=None, padding=0, tail=0, seed=0
        )
        darwin = torch_wheel(latest, None, meta, os="darwin", flags=None, padding=0, tail=0, seed=0)
        for python in _pythons(low, high):
            name = f"torch-{latest}-{python}-{python}-manylinux_2_28_x86_64.whl"
            pypi.add(latest, name, linux)
            if python == "cp312" and big:
                published.big_wheel = name
            pypi.add(latest, f"torch-{latest}-{python}-{python}-win_amd64.whl", windows)
            pypi.add(latest, f"torch-{latest}-{python}-{python}-macosx_14_0_arm64.whl", darwin)
        # a free-threaded build of a Python the release does not otherwise support: not in the range
        after = f"cp3{int(high.split('.')[1]) + 1}"
        pypi.add(latest, f"torch-{latest}-{after}-{after}t-manylinux_2_28_x86_64.whl", linux)
        index_links += _index_release(published, row, number)
    # older patches, a pre-release, a yanked newer patch and a release older than the data's oldest
    old = torch_wheel("2.14.0+cu130", "13.0", metadata("torch", "2.14.0", "3.10", "3.13", requires=[], extras=[]), os="linux",
                      flags=gencode(["8.0"], None), padding=1024, tail=0, seed=99)  # fmt: skip
    pypi.add("2.14.0", "torch-2.14.0-cp312-cp312-manylinux_2_28_x86_64.whl", old)
    pypi.add("2.16.0rc1", "torch-2.16.0rc1-cp312-cp312-manylinux_2_28_x86_64.whl", old)
    pypi.add("2.14.2", "torch-2.14.2-cp312-cp312-manylinux_2_28_x86_64.whl", old, yanked=True)
    pypi.add("2.12.0", "torch-2.12.0-cp312-cp312-manylinux_2_28_x86_64.whl", old)
    pypi.finish()
    page = (
        "<!DOCTYPE html>\n<html><body><h1>Links for torch</h1>\n"
        + "\n".join(index_links)
        + "\n</body></html>\n"
    )
    published.site.files["/whl/torch/"] = page.encode()


def _index_release(published: Published, row: dict[str, Any], number: int) -> list[str]:
    links = []
    latest, low, high = row["latest"], row["python"]["min"], row["python"]["max"]
    for variant in row["variants"]:
        name = variant["name"]
        for os, platform in variant["platforms"].items():
            cuda = variant["cuda"]
            if os == "darwin":
                filename, folder = f"torch-{latest}-cp312-none-macosx_11_0_arm64.whl", "cpu"
            else:
                tag = "manylinux_2_28_x86_64" if os == "linux" else "win_amd64"
                filename, folder = f"torch-{latest}+{name}-cp312-cp312-{tag}.whl", name
            requires = (
                _torch_requires(variant, 'platform_system == "Linux"') if cuda and os == "linux" else []
            )
            version = f"{latest}+{name}" if os != "darwin" else latest
            meta = metadata("torch", version, low, high, requires=requires, extras=[])
            flags = gencode(platform["compute_capabilities"], platform["ptx"]) if cuda else None
            data = torch_wheel(
                version, cuda, meta, os=os, flags=flags, padding=1 << 15, tail=1 << 10, seed=number
            )
            digest = hashlib.sha256(data).hexdigest()
            path = f"/whl/{folder}/{filename}"
            published.site.files[path] = data
            published.files[filename] = (path, digest)
            attributes = ""
            if os == "linux":  # PEP 658 beside the Linux wheels; the others are read from the zip
                published.site.files[f"{path}.metadata"] = meta.encode()
                attributes = f' data-dist-info-metadata="sha256={hashlib.sha256(meta.encode()).hexdigest()}"'
            href = f"/whl/{folder}/{quote(filename)}#sha256={digest}"
            links.append(f'<a href="{href}"{attributes}>{filename}</a><br/>')
    return links


def publish_tensorflow(published: Published, rows: list[dict[str, Any]]) -> None:
    pypi = _Pypi(published, "tensorflow")
    for row in rows:
        latest, low, high = row["latest"], row["python"]["min"], row["python"]["max"]
        linux_gpu = row["gpu"].get("linux")
        and_cuda = bool(linux_gpu) and linux_gpu["cuda_supply"] == "and-cuda"
        requires = ["numpy>=1.26.0"]
        if and_cuda:
            requires.append('nvidia-cuda-runtime-cu12<13.0,>=12.5.82; extra == "and-cuda"')
            requires += [
                f'{entry["package"]}{entry["spec"]}; extra == "and-cuda"'
                for entry in linux_gpu.get("library_ranges", ())
            ]
        extras = ["and-cuda"] if and_cuda else []
        meta = metadata("tensorflow", latest, low, high, requires=requires, extras=extras).encode()
        dist = f"tensorflow-{latest}.dist-info/METADATA"
        wheels = {}
        for os in ("linux", "windows"):
            info = tf_build_info(row["gpu"].get(os), os).encode()
            wheels[os] = zip_bytes({"tensorflow/__init__.py": b"", "tensorflow/python/platform/build_info.py": info,
                                    dist: meta})  # fmt: skip
        darwin = zip_bytes({"tensorflow/__init__.py": b"", dist: meta})
        for python in _pythons(low, high):
            abi = f"{python}m" if python in ("cp36", "cp37") else python
            pypi.add(latest, f"tensorflow-{latest}-{python}-{abi}-manylinux_2_17_x86_64.manylinux2014_x86_64.whl",
                     wheels["linux"])  # fmt: skip
            pypi.add(latest, f"tensorflow-{latest}-{python}-{abi}-win_amd64.whl", wheels["windows"])
            pypi.add(latest, f"tensorflow-{latest}-{python}-{abi}-macosx_12_0_arm64.whl", darwin)
    pypi.add("2.22.0rc0", "tensorflow-2.22.0rc0-cp312-cp312-manylinux_2_27_x86_64.whl", darwin)
    pypi.add("1.15.5", "tensorflow-1.15.5-cp37-cp37m-manylinux2010_x86_64.whl", darwin)
    pypi.finish()
    publish_libraries(published)


def publish_libraries(published: Published) -> None:
    """The CUDA library wheels of ``LIBRARY_RELEASES`` (never read: only their listing is)."""
    for package, releases in LIBRARY_RELEASES.items():
        pypi = _Pypi(published, package)
        name = package.replace("-", "_")
        for version, (platforms, yanked) in releases.items():
            for platform in platforms:
                filename = f"{name}-{version}-py3-none-{platform}.whl"
                pypi.add(version, filename, zip_bytes({f"{name}/{filename}": b""}), yanked=yanked)
        pypi.finish()


def publish(site: RangeSite, pytorch: list[dict[str, Any]], tensorflow: list[dict[str, Any]]) -> Published:
    """Put wheels built from these rows on the site: PyPI under /pypi, the PyTorch index under /whl."""
    published = Published(site, pypi=f"{site.url}/pypi", index=f"{site.url}/whl")
    publish_torch(published, copy.deepcopy(pytorch))
    publish_tensorflow(published, copy.deepcopy(tensorflow))
    return published
