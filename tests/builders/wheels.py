"""Real, installable pure-Python wheels built with the standard library, for offline installs.

Tests of offline environment creation need a local wheel folder that ``pip install --no-index
--find-links DIR`` and ``uv pip install --offline --no-index --find-links DIR`` accept. The
wheels here follow the binary distribution format (PEP 427 and the packaging specification):
``{name}-{version}-py3-none-any.whl`` with the package files, a ``.dist-info`` folder holding
``METADATA`` (Metadata-Version 2.1), ``WHEEL`` and a ``RECORD`` whose hashes are urlsafe
base64 sha256 digests without padding.
"""

from __future__ import annotations

import base64
import csv
import ensurepip
import hashlib
import io
import re
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

# A fixed time stamp (the earliest a zip file holds) keeps the wheels byte-for-byte reproducible.
_ZIP_TIME = (1980, 1, 1, 0, 0, 0)


def _escaped(part: str) -> str:
    """The name or version as it appears in a wheel's file name (PEP 427 escaping)."""
    return re.sub(r"[^\w\d.]+", "_", part, flags=re.UNICODE)


def record_hash(data: bytes) -> str:
    """``sha256=<urlsafe base64, no padding>`` as RECORD lines carry it."""
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
    return "sha256=" + digest.decode("ascii")


def _metadata(name: str, version: str, requires: Sequence[str], extras: Sequence[str] = ()) -> str:
    lines = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}"]
    lines += [f"Provides-Extra: {extra}" for extra in extras]
    lines += [f"Requires-Dist: {requirement}" for requirement in requires]
    return "\n".join(lines) + "\n\n"


def _escaped_version(version: str) -> str:
    """The version as a wheel's file name carries it: PEP 440-normalised, a local label's ``+`` kept.

    (packaging.python.org, "Binary distribution format", "Escaping and Unicode": normalised
    versions cannot contain ``-``, so only other odd characters are replaced.)
    """
    return re.sub(r"[^\w\d.+!]+", "_", version, flags=re.UNICODE)


def _wheel_file(tag: str) -> str:
    return f"Wheel-Version: 1.0\nGenerator: gpuwizard-tests\nRoot-Is-Purelib: true\nTag: {tag}\n"


def build_wheel(
    folder: Path,
    name: str,
    version: str,
    files: Mapping[str, str] | None = None,
    requires: Sequence[str] = (),
    *,
    tag: str = "py3-none-any",
    extras: Sequence[str] = (),
) -> Path:
    """Build ``{name}-{version}-{tag}.whl`` in ``folder`` and return its path.

    Args:
        folder: Where the wheel goes (created when missing).
        name: The distribution name; ``-`` and other runs of odd characters become ``_`` in the
            file name and the ``.dist-info`` folder.
        version: The version, written to METADATA and to the default package's ``__version__``.
        files: Archive paths and their text; by default one package, ``{import name}/__init__.py``
            holding ``__version__ = "{version}"`` (the import name is the escaped name).
        requires: One ``Requires-Dist`` line each, for example ``"tiny>=1.0"`` (or
            ``'tiny>=1.0; extra == "fast"'`` with ``extras=["fast"]``).
        extras: The extras it provides (``Provides-Extra``).
        tag: The wheel's compatibility tag (``cp311-cp311-manylinux_2_28_x86_64`` for a wheel
            that claims one Python and platform; the files stay pure Python). A version's
            local label (``2.13.0+cpu``) is kept in the file name, as torch's wheels have it.

    Returns:
        The wheel's path.
    """
    dist = f"{_escaped(name)}-{_escaped_version(version)}"
    if files is None:
        files = {f"{_escaped(name)}/__init__.py": f'__version__ = "{version}"\n'}
    contents: dict[str, bytes] = {path: text.encode("utf-8") for path, text in files.items()}
    contents[f"{dist}.dist-info/METADATA"] = _metadata(name, version, requires, extras).encode("utf-8")
    contents[f"{dist}.dist-info/WHEEL"] = _wheel_file(tag).encode("utf-8")
    record_path = f"{dist}.dist-info/RECORD"
    record = io.StringIO()
    writer = csv.writer(record, lineterminator="\n")
    for path, data in contents.items():
        writer.writerow([path, record_hash(data), str(len(data))])
    writer.writerow([record_path, "", ""])
    contents[record_path] = record.getvalue().encode("utf-8")

    folder.mkdir(parents=True, exist_ok=True)
    wheel = folder / f"{dist}-{tag}.whl"
    with zipfile.ZipFile(wheel, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path, data in contents.items():
            info = zipfile.ZipInfo(path, date_time=_ZIP_TIME)
            info.external_attr = 0o644 << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return wheel


def tiny_torch(folder: Path, version: str = "2.13.0", init: str = "") -> Path:
    """A wheel named ``torch``: ``__version__``, ``torch.version.cuda = None``, then ``init`` runs.

    ``torch/__init__.py`` sets ``__version__``, imports ``torch.version`` (as real torch does, so
    ``torch.version.cuda`` works after ``import torch``) and then runs ``init``, extra code such as
    ``import time; time.sleep(30)`` for a slow import that a test cancels.
    """
    package = f'__version__ = "{version}"\n\nfrom torch import version as version\n\n{init}\n'
    version_module = f'__version__ = "{version}"\ncuda = None\n'
    return build_wheel(
        folder, "torch", version, files={"torch/__init__.py": package, "torch/version.py": version_module}
    )


def bundled_pip_wheel() -> Path:
    """The pip wheel the running interpreter's ``ensurepip`` ships (``ensurepip/_bundled/pip-*.whl``).

    Python 3.12 and later bundle pip only (no setuptools); the glob finds pip either way.

    Raises:
        FileNotFoundError: When this interpreter's ensurepip bundles no pip wheel (some Linux
            distributions strip it).
    """
    bundled = Path(ensurepip.__file__).parent / "_bundled"
    wheels = sorted(bundled.glob("pip-*.whl"))
    if not wheels:
        # Debian and Ubuntu strip _bundled; their ensurepip installs the wheel of the package
        # python3-pip-whl from /usr/share/python-wheels instead (Debian's python3.11 patch
        # "ensurepip-wheels"), so that is this interpreter's pip wheel there.
        wheels = sorted(Path("/usr/share/python-wheels").glob("pip-*.whl"))
    if not wheels:
        raise FileNotFoundError(f"no pip wheel in {bundled} or /usr/share/python-wheels")
    return wheels[-1]
