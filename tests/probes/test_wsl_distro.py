"""The WSL distribution probe, run for real by path against recorded-shape layouts in a tmp folder."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from harness.waits import EVENT_S

PROBE = Path(__file__).resolve().parents[2] / "app" / "gpuwizard" / "probes" / "wsl_distro.py"


def run_probe(root: Path, home: Path, *, by_variable: bool = False) -> dict[str, object]:
    env = {**os.environ, "HOME": str(home)}
    args = [sys.executable, "-I", str(PROBE)]
    if by_variable:
        env["GPUWIZARD_WSL_ROOT"] = str(root)
    else:
        args += ["--root", str(root)]
    done = subprocess.run(args, capture_output=True, text=True, env=env, timeout=EVENT_S, check=False)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.splitlines()
    answer: dict[str, object] = json.loads(line)
    return answer


def test_an_empty_distribution_has_nothing(tmp_path: Path):
    (tmp_path / "root").mkdir()
    (tmp_path / "home").mkdir()
    answer = run_probe(tmp_path / "root", tmp_path / "home")
    assert answer == {
        "probe": "wsl_distro",
        "ok": True,
        "libcuda": False,
        "nvidia_smi": False,
        "linux_driver": None,
        "python": ".".join(map(str, sys.version_info[:3])),
        "externally_managed": False,
        "os_name": None,
        "home_free_mib": answer["home_free_mib"],
        "memory_total_mib": None,
    }
    assert isinstance(answer["home_free_mib"], int) and answer["home_free_mib"] > 0


def test_a_fedora_shaped_distribution_with_a_linux_driver_in_lib64(tmp_path: Path):
    root = tmp_path / "root"
    wsl_lib = root / "usr" / "lib" / "wsl" / "lib"
    wsl_lib.mkdir(parents=True)
    (wsl_lib / "libcuda.so.1").write_bytes(b"")  # the Windows driver passed through, no nvidia-smi
    (root / "usr" / "lib64").mkdir(parents=True)
    (root / "usr" / "lib64" / "libcuda.so.560.35.03").write_bytes(b"")
    (root / "usr" / "lib" / "os-release").write_text("PRETTY_NAME='Fedora Linux 40 (Container Image)'\n")
    (root / "proc").mkdir()
    (root / "proc" / "meminfo").write_text("MemTotal:        8110412 kB\n")
    (tmp_path / "home").mkdir()
    answer = run_probe(root, tmp_path / "home", by_variable=True)
    assert (answer["libcuda"], answer["nvidia_smi"]) == (True, False)
    assert answer["linux_driver"] == "/usr/lib64/libcuda.so.560.35.03"
    assert (answer["os_name"], answer["memory_total_mib"]) == ("Fedora Linux 40 (Container Image)", 7920)


def test_pep_668_marker_in_the_interpreters_stdlib(tmp_path: Path):
    root = tmp_path / "root"
    stdlib = root / sysconfig.get_path("stdlib").lstrip("/")
    stdlib.mkdir(parents=True)
    (stdlib / "EXTERNALLY-MANAGED").write_text("[externally-managed]\n")
    (tmp_path / "home").mkdir()
    assert run_probe(root, tmp_path / "home")["externally_managed"] is True


def test_the_probe_keeps_to_python_36_and_the_standard_library():
    # It runs under the distribution's own python3: Ubuntu 18.04's is 3.6.
    tree = ast.parse(PROBE.read_text(encoding="utf-8"), feature_version=(3, 6))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    }
    imported |= {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module
    }
    assert imported <= set(sys.stdlib_module_names)
