"""Machines with AMD, Intel and Apple GPUs, built from the recorded outputs in tests/fixtures/gpus/.

Each folder there is one real machine: ``machine.json`` says what its sources answer (the
PCI devices ``lspci`` listed, the files that exist, which recorded output each command
prints, the registry's display class keys, the NVML scenario), beside the recorded outputs
themselves and a ``SOURCE.md`` naming where each came from. :func:`gpu_machine` lays the
machine out in a temporary folder (sysfs, ``/opt/rocm``, ``/dev``) and hands
``detect_system`` sources whose only fakes are at the adapter seams: the runner replaying
the recorded outputs, NVML, the registry snapshot, the host's platform facts.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from builders.sysfs import PciDevice, build_sysfs
from fakes.fake_pynvml import FakePynvml, load_scenario
from fakes.machines import LINUX_PYTHON, WINDOWS_PYTHON, windows_registry
from fakes.runner import FakeRunner
from gpuwizard.adapters.cuda_files import CudaFiles
from gpuwizard.adapters.host import HostReading
from gpuwizard.adapters.nvml import PynvmlSource
from gpuwizard.adapters.pci import scan_display_devices
from gpuwizard.core.machine.system_report import PythonFacts
from gpuwizard.workflow.machine.detect import DetectionSources

FIXTURES = Path(__file__).parent.parent / "fixtures" / "gpus"
MACHINES = sorted(p.name for p in FIXTURES.iterdir() if (p / "machine.json").is_file())
#: The wizard's own interpreter on a Mac (test scaffolding, as LINUX_PYTHON is).
MACOS_PYTHON = PythonFacts("3.11.7", "/opt/homebrew/bin/python3.11", 64)
#: Where a Linux machine's libraries are laid out (the loader's search folder).
LIBRARY_DIR = Path("usr/lib/x86_64-linux-gnu")


@dataclass
class GpuMachine:
    """One recorded machine laid out under ``root``; :meth:`sources` are its DetectionSources."""

    name: str
    root: Path
    spec: dict[str, Any] = field(init=False)

    def __post_init__(self) -> None:
        self.spec = json.loads((FIXTURES / self.name / "machine.json").read_text(encoding="utf-8"))

    @property
    def folder(self) -> Path:
        return FIXTURES / self.name

    @property
    def host(self) -> HostReading:
        host = self.spec["host"]
        return HostReading(
            system=host["system"],
            release=host["release"],
            version=host.get("version", ""),
            machine=host["machine"],
            proc_version=None,
            container=False,
            distribution=host.get("distribution"),
            frozen=False,
        )

    @property
    def python(self) -> PythonFacts:
        return {"Windows": WINDOWS_PYTHON, "Darwin": MACOS_PYTHON}.get(self.host.system, LINUX_PYTHON)

    def sources(self) -> DetectionSources:
        """Lay the machine out under ``root`` and return the sources reading it."""
        sysfs = self.root / "sys"
        devices_dir = build_sysfs(
            sysfs,
            [
                PciDevice(
                    d["address"], int(d["vendor"], 16), int(d["device"], 16), int(d["class"], 16), d["driver"]
                )
                for d in self.spec.get("pci", [])
            ],
        )
        kfd = self.folder / "kfd"
        if kfd.is_dir():
            shutil.copytree(kfd, sysfs / "class" / "kfd" / "kfd" / "topology")
        for relative in self.spec.get("files", []):
            self._write(relative, "")
        for relative, text in self.spec.get("texts", {}).items():
            self._write(relative, text)
        pci_ids = self.root / "pci.ids"
        pci_ids.write_text(_pci_ids(self.spec.get("pci_ids", {})), encoding="utf-8")
        runner = FakeRunner()
        for program, output in self.spec.get("commands", {}).items():
            runner.when(program).answer((self.folder / output).read_text(encoding="utf-8"))
        nvml = self.spec.get("nvml")
        scenario = (
            json.loads((self.folder / nvml).read_text(encoding="utf-8")) if nvml else load_scenario("no_gpu")
        )
        fake = FakePynvml(scenario)
        windows = self.host.system == "Windows"
        registry = windows_registry(self.spec["registry"]) if windows else None
        macos_version = self.spec.get("macos_version")
        (self.root / LIBRARY_DIR).mkdir(parents=True, exist_ok=True)
        env = {"PATH": ""}
        return DetectionSources(
            nvml=PynvmlSource(load_module=lambda: fake),
            fallback=lambda family: None,
            runner=runner,
            host=lambda: self.host,
            env=env,
            home=self.root / "home",
            registry=registry,
            pci_devices=lambda: scan_display_devices(devices_dir, [pci_ids]),
            own_python=lambda: self.python,
            cuda_files=lambda family: CudaFiles(
                family,
                env,
                runner,
                toolkit_parents=None if windows else [],
                cudnn_dirs=None if windows else [],
            ),
            wsl_driver_dir=self.root / "usr" / "lib" / "wsl" / "lib",
            linux_nvml_libraries=[],
            loader_dirs=[self.root / LIBRARY_DIR],
            scripts_dir=self.root / "scripts",
            sysfs=sysfs,
            dev_dir=self.root / "dev",
            rocm_roots=[self.root / "opt" / "rocm"],
            macos_version=lambda: macos_version,
        )

    def _write(self, relative: str, text: str) -> None:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _pci_ids(vendors: dict[str, list[Any]]) -> str:
    """A pci.ids excerpt with the names the machine's recorded lspci printed."""
    lines = ["# Names as the machine's recorded lspci printed them (SOURCE.md)."]
    for vendor, (label, devices) in vendors.items():
        lines.append(f"{vendor}  {label}")
        lines += [f"\t{device}  {name}" for device, name in devices.items()]
    return "\n".join(lines) + "\n"


def gpu_machine(name: str, root: Path) -> GpuMachine:
    """The recorded machine ``name`` (a folder of tests/fixtures/gpus/) laid out under ``root``."""
    return GpuMachine(name, root)
