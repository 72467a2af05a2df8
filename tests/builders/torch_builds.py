"""Installable stand-ins for PyTorch's CUDA and CPU builds, with local version labels kept.

Real PyTorch wheels carry the build in the version's local label (``torch-2.13.0+cu126-...whl``,
``torch-2.13.0+cpu-...whl``; download.pytorch.org/whl/) and report it in ``torch.__version__``
and ``torch.version.cuda``. These wheels do the same in a few lines of pure Python: enough for
the env probe (``probes/env_report.py``) to see a CUDA or a CPU build, and for pip and uv to
install one over the other. ``torch.cuda.is_available()`` is False: there is no GPU here.

``builders.wheels.build_wheel`` escapes ``+`` in file names (PEP 427 escaping of the name part),
which is not how PyTorch names its wheels, so the wheel is written here with the ``+`` kept.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import zipfile
from pathlib import Path

_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def torch_build(folder: Path, version: str = "2.13.0+cu126", cuda: str | None = "12.6") -> Path:
    """Write ``torch-{version}-py3-none-any.whl`` into ``folder``; ``cuda`` None makes a CPU build."""
    files = {
        "torch/__init__.py": (
            f'__version__ = "{version}"\n\n'
            "from torch import backends as backends, cuda as cuda, version as version\n"
        ),
        "torch/version.py": f'__version__ = "{version}"\ncuda = {cuda!r}\nhip = None\n',
        "torch/cuda/__init__.py": (
            "def is_available():\n    return False\n\n\n"
            "def device_count():\n    return 0\n\n\n"
            "def get_arch_list():\n    return []\n"
        ),
        "torch/backends/__init__.py": "from torch.backends import cudnn as cudnn\n",
        "torch/backends/cudnn/__init__.py": "def version():\n    return None\n",
    }
    dist = f"torch-{version}"
    contents = {path: text.encode() for path, text in files.items()}
    contents[f"{dist}.dist-info/METADATA"] = (
        f"Metadata-Version: 2.1\nName: torch\nVersion: {version}\n\n".encode()
    )
    contents[f"{dist}.dist-info/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: gpuwizard-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path, data in contents.items():
        writer.writerow([path, _hash(data), str(len(data))])
    writer.writerow([f"{dist}.dist-info/RECORD", "", ""])
    contents[f"{dist}.dist-info/RECORD"] = record.getvalue().encode()
    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{dist}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in contents.items():
            info = zipfile.ZipInfo(path, date_time=_ZIP_TIME)
            info.external_attr = 0o644 << 16
            archive.writestr(info, data)
    return wheel
