"""The start-up hook that makes NVIDIA's wheel DLL folders visible (issue 21), on this machine.

What it does on Windows is proven under Wine (tests/workflow/envs: a real environment whose
python.exe loads every CUDA DLL of TensorFlow 2.10 without activation). Here: its PATH algebra,
the folders it finds, that ``site`` really runs it at every start of a real venv's Python (the
``.pth`` mechanism), that ``-S`` skips it, and that it changes nothing outside Windows.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import venv
from pathlib import Path
from types import ModuleType

import pytest

from gpuwizard import probes
from gpuwizard.adapters.envs.env_files import DLL_HOOK_MODULE, DLL_HOOK_PTH, site_packages, write_dll_hook


def hook_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cuda_dll_hook_under_test", probes.script("cuda_dll_hook"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)  # on Linux install() returns at once: nothing changes here
    return module


def test_the_folders_are_the_nvidia_wheels_bin_folders_sorted(tmp_path: Path):
    hook = hook_module()
    for name in ("cudnn", "cublas", "cuda_runtime"):
        (tmp_path / "nvidia" / name / "bin").mkdir(parents=True)
    (tmp_path / "nvidia" / "cuda_nvrtc" / "lib").mkdir(parents=True)  # no bin: not a DLL folder
    (tmp_path / "nvidia" / "__init__.py").write_text("")
    assert hook.wheel_folders(str(tmp_path)) == [
        str(tmp_path / "nvidia" / name / "bin") for name in ("cublas", "cuda_runtime", "cudnn")
    ]
    assert hook.wheel_folders(str(tmp_path / "missing")) == []


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("/usr/bin:/bin", "/w/a:/w/b:/usr/bin:/bin"),
        ("", "/w/a:/w/b"),
        # A child process inherits the folders: they move to the front, each once.
        ("/usr/bin:/w/b:/bin:/w/a", "/w/a:/w/b:/usr/bin:/bin"),
        ('/w/b/:"/w/a"::/bin', "/w/a:/w/b:/bin"),
    ],
)
def test_path_gets_the_folders_first_each_once(path: str, expected: str):
    assert hook_module().path_with_folders_first(path, ["/w/a", "/w/b"]) == expected


def test_outside_windows_it_changes_nothing(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    hook = hook_module()
    assert hook.FOLDERS == [] and hook.PROBLEM is None
    assert __import__("os").environ["PATH"] == "/usr/bin:/bin"


def test_site_runs_the_hook_at_every_start_of_the_environments_python(tmp_path: Path):
    prefix = tmp_path / "env"
    venv.create(prefix, with_pip=False)
    version = f"{sys.version_info.major}.{sys.version_info.minor}"
    site = site_packages(prefix, version, windows=False)
    (site / "nvidia" / "cudnn" / "bin").mkdir(parents=True)
    written = write_dll_hook(site)
    assert [path.name for path in written] == [f"{DLL_HOOK_MODULE}.py", DLL_HOOK_PTH]
    assert (site / DLL_HOOK_PTH).read_text() == f"import {DLL_HOOK_MODULE}\n"
    python = prefix / "bin" / "python"
    ask = f"import json, sys; print(json.dumps({DLL_HOOK_MODULE!r} in sys.modules))"
    # Started directly, without activation, and isolated (-I, as the wizard's probes run): hooked.
    for flags in ([], ["-I"]):
        done = subprocess.run([str(python), *flags, "-c", ask], capture_output=True, text=True, check=True)
        assert json.loads(done.stdout) is True
    # -S skips site and so the hook: the control that shows the .pth line is what imports it.
    done = subprocess.run([str(python), "-S", "-c", ask], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout) is False


def test_writing_the_hook_again_replaces_it(tmp_path: Path):
    write_dll_hook(tmp_path)
    (tmp_path / f"{DLL_HOOK_MODULE}.py").write_text("broken = (\n")
    write_dll_hook(tmp_path)
    assert (tmp_path / f"{DLL_HOOK_MODULE}.py").read_text() == probes.script("cuda_dll_hook").read_text()
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted([f"{DLL_HOOK_MODULE}.py", DLL_HOOK_PTH])
