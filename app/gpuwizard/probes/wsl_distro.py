"""Describe a WSL distribution from inside it, as one JSON object: what decides GPU use there.

Run by the distribution's own ``/usr/bin/python3`` (``adapters/wsl.py`` hands it the source
through ``wsl.exe --distribution NAME --exec /usr/bin/python3 -I -c ...``, so nothing is copied
into the distribution first): stdlib only, Python 3.6 syntax (Ubuntu 18.04's), never imports gpuwizard.
Prints ``{"probe": "wsl_distro", "ok": true, ...}`` and exits 0.

- ``libcuda``, ``nvidia_smi``: WSL 2 mounts the Windows driver's Linux libraries and
  ``nvidia-smi`` in ``/usr/lib/wsl/lib`` (NVIDIA, "CUDA on WSL User Guide").
- ``linux_driver``: a Linux NVIDIA driver's library installed in the distribution
  (``libnvidia-ml.so*`` or ``libcuda.so*`` in the multiarch folders), which the loader finds
  before the Windows driver's; one that is a link into ``/usr/lib/wsl`` is the Windows one.
- ``python``, ``externally_managed``: this ``python3``'s version and whether PEP 668's
  ``EXTERNALLY-MANAGED`` file is in its ``sysconfig.get_path("stdlib")`` (then pip refuses to
  install outside a virtual environment).
- ``os_name``: ``PRETTY_NAME`` of ``/etc/os-release`` (``/usr/lib/os-release`` when absent,
  os-release(5)); ``home_free_mib``: free space of ``$HOME``; ``memory_total_mib``:
  ``MemTotal`` of ``/proc/meminfo`` (the WSL VM's memory, which ``.wslconfig`` may limit).

``--root PATH`` (or ``GPUWIZARD_WSL_ROOT``) reads the files under ``PATH`` instead of ``/``, so
that tests run the probe for real against a recorded layout; ``$HOME`` is read as it is.
"""

import json
import os
import platform
import shutil
import sys
import sysconfig
from pathlib import Path

PROBE = "wsl_distro"
ROOT_VARIABLE = "GPUWIZARD_WSL_ROOT"
#: Where WSL 2 passes the Windows driver through.
WSL_LIB = "/usr/lib/wsl/lib"
#: Where a Linux driver's libraries go (Debian/Ubuntu multiarch, Fedora/SUSE lib64).
LINUX_DRIVER_DIRS = (
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib/aarch64-linux-gnu",
)
LINUX_DRIVER_LIBRARIES = ("libnvidia-ml.so*", "libcuda.so*")
_MIB = 1024 * 1024


def under(root: Path, path: str) -> Path:
    """``path`` (absolute, as the distribution sees it) below ``root``."""
    return root / path.lstrip("/")


def wsl_libraries(root: Path) -> "tuple":
    """Whether ``/usr/lib/wsl/lib`` holds ``libcuda.so*``, and ``nvidia-smi``."""
    folder = under(root, WSL_LIB)
    libcuda = folder.is_dir() and any(folder.glob("libcuda.so*"))
    return libcuda, (folder / "nvidia-smi").is_file()


def linux_driver(root: Path) -> "str | None":
    """The first Linux NVIDIA driver library in the distribution (its path there), or None."""
    wsl_folder = under(root, "/usr/lib/wsl").resolve()
    for folder in LINUX_DRIVER_DIRS:
        found = under(root, folder)
        if not found.is_dir():
            continue
        for pattern in LINUX_DRIVER_LIBRARIES:
            for path in sorted(found.glob(pattern)):
                real = path.resolve()
                if real == wsl_folder or wsl_folder in real.parents:
                    continue  # a link to the Windows driver's copy: not a Linux driver
                if path.is_file():
                    return folder + "/" + path.name
    return None


def externally_managed(root: Path) -> bool:
    """Whether PEP 668's marker is in this interpreter's stdlib folder."""
    stdlib = sysconfig.get_path("stdlib")
    return bool(stdlib) and (under(root, stdlib) / "EXTERNALLY-MANAGED").is_file()


def os_name(root: Path) -> "str | None":
    """``PRETTY_NAME`` of os-release, unquoted."""
    for path in ("/etc/os-release", "/usr/lib/os-release"):
        try:
            with under(root, path).open(encoding="utf-8", errors="replace") as stream:
                for line in stream:
                    key, _, value = line.strip().partition("=")
                    if key == "PRETTY_NAME":
                        return value.strip().strip("\"'") or None
        except OSError:
            continue
    return None


def memory_total_mib(root: Path) -> "int | None":
    """``MemTotal`` of ``/proc/meminfo`` (in kB there) in MiB."""
    try:
        with under(root, "/proc/meminfo").open(encoding="ascii", errors="replace") as stream:
            for line in stream:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) // 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def home_free_mib() -> "int | None":
    """Free space in ``$HOME``, MiB."""
    try:
        return shutil.disk_usage(str(Path("~").expanduser())).free // _MIB
    except (OSError, RuntimeError):  # RuntimeError: no home to expand
        return None


def report(root: Path) -> dict:
    """Every fact, as the wizard reads them (``WslDistroFacts``'s names)."""
    libcuda, nvidia_smi = wsl_libraries(root)
    return {
        "probe": PROBE,
        "ok": True,
        "libcuda": libcuda,
        "nvidia_smi": nvidia_smi,
        "linux_driver": linux_driver(root),
        "python": platform.python_version(),
        "externally_managed": externally_managed(root),
        "os_name": os_name(root),
        "home_free_mib": home_free_mib(),
        "memory_total_mib": memory_total_mib(root),
    }


def main(argv: "list") -> int:
    """Print the report; 0 when it could be made, 1 (still one JSON object) when not."""
    root = os.environ.get(ROOT_VARIABLE) or "/"
    if len(argv) >= 2 and argv[0] == "--root":
        root = argv[1]
    try:
        answer = report(Path(root))
    except Exception as error:  # noqa: BLE001 - any failure is reported, never a bare crash
        failure = {"probe": PROBE, "ok": False, "error": "%s: %s" % (type(error).__name__, error)}
        sys.stdout.write(json.dumps(failure) + "\n")
        return 1
    sys.stdout.write(json.dumps(answer) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
