"""Whole machines for detection tests: every source of DetectionSources, faked or real-in-a-folder.

NVML answers from a recorded scenario (fakes.fake_pynvml), the PCI bus from a sysfs tree
transcribed from recorded lspci output (builders.sysfs), the registry from a snapshot in the contract's
shape, CUDA and cuDNN from folder trees (builders.trees), commands from recorded replies
(fakes.runner). Only the interpreter probes may run for real, and only where a test asks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builders.sysfs import PciDevice, build_sysfs
from fakes.fake_pynvml import FakePynvml, load_scenario
from fakes.runner import FakeRunner
from gpuwizard.adapters.cuda_files import CudaFiles
from gpuwizard.adapters.host import HostReading
from gpuwizard.adapters.nvml import NvmlSource, PynvmlSource
from gpuwizard.adapters.pci import scan_display_devices
from gpuwizard.adapters.registry import SnapshotRegistry
from gpuwizard.core.machine.display_devices import WINDOWS_DISPLAY_CLASS_KEY
from gpuwizard.core.machine.system_report import PythonFacts
from gpuwizard.workflow.machine.detect import LONG_PATHS_KEY, DetectionSources

PCI_IDS = Path(__file__).parent.parent / "fixtures" / "pci.ids"

LINUX_HOST = HostReading(
    "Linux",
    "6.1.0-18-amd64",
    "#1 SMP PREEMPT_DYNAMIC Debian 6.1.76-1",
    "x86_64",
    "Linux version 6.1.0-18-amd64 (debian-kernel@lists.debian.org)",
    False,
    "Debian GNU/Linux 12 (bookworm)",
    False,
)
WSL2_HOST = HostReading(
    "Linux",
    "5.15.153.1-microsoft-standard-WSL2",
    "#1 SMP",
    "x86_64",
    "Linux version 5.15.153.1-microsoft-standard-WSL2 (root@941d701f84f1)",
    False,
    "Ubuntu 22.04.4 LTS",
    False,
)
WINDOWS_HOST = HostReading("Windows", "10", "10.0.22631", "AMD64", None, False, "Windows 11", False)

LINUX_PYTHON = PythonFacts("3.11.7", "/usr/bin/python3.11", 64)
WINDOWS_PYTHON = PythonFacts(
    "3.10.11", "C:\\Users\\ana\\AppData\\Local\\Programs\\Python\\Python310\\python.exe", 64
)


def display_adapter(desc: str, provider: str, version: str, hardware_id: str) -> dict[str, dict[str, Any]]:
    """The values of one display-class key, as Windows stores them."""
    return {
        "DriverDesc": {"type": "REG_SZ", "value": desc},
        "ProviderName": {"type": "REG_SZ", "value": provider},
        "DriverVersion": {"type": "REG_SZ", "value": version},
        "MatchingDeviceId": {"type": "REG_SZ", "value": hardware_id},
    }


def windows_registry(
    adapters: Sequence[dict[str, dict[str, Any]]], long_paths: int | None = 1
) -> SnapshotRegistry:
    snapshot: dict[str, dict[str, Any]] = {
        f"{WINDOWS_DISPLAY_CLASS_KEY}\\{number:04d}": values for number, values in enumerate(adapters)
    }
    snapshot[f"{WINDOWS_DISPLAY_CLASS_KEY}\\Properties"] = {}
    snapshot[LONG_PATHS_KEY] = (
        {} if long_paths is None else {"LongPathsEnabled": {"type": "REG_DWORD", "value": long_paths}}
    )
    return SnapshotRegistry(snapshot)


@dataclass
class Machine:
    """A machine to detect; :meth:`sources` turns it into DetectionSources."""

    root: Path
    nvml: str = "no_gpu"
    host: HostReading = LINUX_HOST
    env: Mapping[str, str] = field(default_factory=dict)
    pci: Sequence[PciDevice] = ()
    registry: SnapshotRegistry | None = None
    runner: FakeRunner = field(default_factory=FakeRunner)
    fallback: NvmlSource | None = None
    python: PythonFacts = LINUX_PYTHON
    toolkit_parents: Sequence[Path] = ()
    wsl_driver_files: Sequence[str] = ()
    linux_driver_files: Sequence[str] = ()
    pci_ids: Sequence[Path] = (PCI_IDS,)

    def sources(self) -> DetectionSources:
        fake = FakePynvml(load_scenario(self.nvml))
        sysfs = build_sysfs(self.root / "sys", list(self.pci))
        wsl_dir = self.root / "usr" / "lib" / "wsl" / "lib"
        wsl_dir.mkdir(parents=True, exist_ok=True)
        for name in self.wsl_driver_files:
            (wsl_dir / name).write_bytes(b"")
        linux_libraries = [self.root / "usr" / "lib" / "x86_64-linux-gnu" / "libnvidia-ml.so.1"]
        for name in self.linux_driver_files:
            path = self.root / name.lstrip("/")
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(b"")
        env = dict(self.env)
        env.setdefault("PATH", "")
        windows = self.host.system == "Windows"
        return DetectionSources(
            nvml=PynvmlSource(load_module=lambda: fake),
            fallback=lambda family: self.fallback,
            runner=self.runner,
            host=lambda: self.host,
            env=env,
            home=self.root / "home",
            registry=self.registry,
            pci_devices=lambda: scan_display_devices(sysfs, self.pci_ids),
            own_python=lambda: self.python,
            cuda_files=lambda family: CudaFiles(
                family,
                env,
                self.runner,
                toolkit_parents=None if windows else list(self.toolkit_parents),
                cudnn_dirs=None if windows else [],
            ),
            wsl_driver_dir=wsl_dir,
            linux_nvml_libraries=linux_libraries,
            loader_dirs=[],
            scripts_dir=self.root / "scripts",
        )
