r"""Issue 21, first acceptance point: TensorFlow 2.10 with NVIDIA's CUDA wheels, under Wine.

The wizard's own environment workflow (``plan_setup`` / ``run_setup``, what ``gpuwizard env
create`` calls) runs inside a Windows CPython 3.10 under Wine, with uv, offline from a
``win_amd64`` wheel folder filled by the wizard's own ``pip download`` command for the plan
``recommend`` gives a Windows + GTX 1060 + driver 566 machine without conda. Then a *fresh*
process of the environment's ``Scripts\python.exe``, started without activation and with a PATH
of only ``C:\windows\system32;C:\windows``, loads every DLL TensorFlow 2.10 loads for the GPU
with ``LoadLibraryExW(name, NULL, LOAD_WITH_ALTERED_SEARCH_PATH)``, the call TensorFlow 2.10
makes (``tensorflow/tsl/platform/windows/load_library.cc``), and each comes from the
environment's ``site-packages\nvidia\*\bin``. The control: the same process with ``-S`` (no
``site``, so no start-up hook) finds none of them.

``env create`` itself cannot be used: it detects the machine, and under Wine there is no GPU.
"""

from __future__ import annotations

import json
import shutil
import time
from collections.abc import Iterator
from pathlib import Path, PureWindowsPath
from typing import Any

import pytest

from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.wheel_folder import download_command, plan_wants
from gpuwizard.core.envs.wheel_tags import WheelTarget
from gpuwizard.workflow.envs.setup import recommend_for
from gpuwizard.workflow.machine.system_file import load_system_report
from harness.waits import EVENT_S
from harness.wine_python import WineUnavailable, cache_folder, to_windows, unavailable
from harness.wine_tf_python import FOLDER_EXTRAS, WineTfPython, tensorflow_wheels, uv_tools

# Heavy (CI and --heavy run it): a Windows Python 3.10, uv's Windows binary with its MinGW shim
# and 2.1 GB of wheels under Wine, about 70 CPU-s (Wine's processes, not pytest's children).
pytestmark = [
    pytest.mark.slow,
    pytest.mark.heavy,
    pytest.mark.xdist_group("wine-tensorflow"),
    pytest.mark.timeout(3600),
]

REPO = Path(__file__).resolve().parents[3]
REPORT = REPO / "tests" / "fixtures" / "reports" / "windows-gtx1060-566.36.json"

#: What TensorFlow 2.10 loads for the GPU on Windows (tensorflow/tsl/platform/default/
#: dso_loader.cc: cudart, cublas, cublasLt, cufft, curand, cusolver, cusparse, cudnn), the
#: sub-libraries cuDNN 8 loads by name (docs.nvidia.com/deeplearning/cudnn/archives/
#: cudnn-895/api/index.html, "API Compatibility": the split libraries), and NVRTC, which
#: cuDNN 8's runtime fusion engines load.
DLLS = (
    "cudart64_110.dll",
    "cublas64_11.dll",
    "cublasLt64_11.dll",
    "cufft64_10.dll",
    "curand64_10.dll",
    "cusolver64_11.dll",
    "cusparse64_11.dll",
    "cudnn64_8.dll",
    "cudnn_ops_infer64_8.dll",
    "cudnn_ops_train64_8.dll",
    "cudnn_cnn_infer64_8.dll",
    "cudnn_cnn_train64_8.dll",
    "cudnn_adv_infer64_8.dll",
    "cudnn_adv_train64_8.dll",
    "nvrtc64_112_0.dll",
)

#: The wizard's workflow, in the base Python: argv = the staged package's folder, report, prefix, wheel folder.
_WORKFLOW = """\
import json, sys, threading, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
STARTED = time.monotonic()
from gpuwizard.core.envs.events import EnvLog
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.events import to_json
from gpuwizard.workflow.envs.setup import plan_setup, run_setup
from gpuwizard.workflow.machine.system_file import load_system_report

def show(event):
    if not isinstance(event, EnvLog):
        print(json.dumps({**to_json(event), "at_s": round(time.monotonic() - STARTED, 1)}), flush=True)

request = SetupRequest.checked(framework="tensorflow", name="tf210", tool="uv", prefix=Path(sys.argv[3]),
                               find_links=Path(sys.argv[4]), offline=True)
setup = plan_setup(load_system_report(Path(sys.argv[2])), request)
print(json.dumps({"event": "plan", "requirements": list(setup.prepared.requirements)}), flush=True)
run_setup(setup, show, threading.Event())
"""

#: Runs in the environment's python.exe: argv = mode (parent/child), DLL names. Loads each DLL
#: as TensorFlow 2.10 does and says where it came from. A parent also starts a child with
#: ``-S`` (no hook of its own): it finds the DLLs only through the PATH it inherited.
_PROBE = """\
import ctypes, json, os, subprocess, sys
from ctypes import wintypes
kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)
kernel32.LoadLibraryExW.restype = wintypes.HMODULE
kernel32.LoadLibraryExW.argtypes = [wintypes.LPCWSTR, wintypes.HANDLE, wintypes.DWORD]
kernel32.GetModuleFileNameW.argtypes = [wintypes.HMODULE, wintypes.LPWSTR, wintypes.DWORD]
LOAD_WITH_ALTERED_SEARCH_PATH = 0x8
found, errors = {}, {}
for name in sys.argv[2:]:
    handle = kernel32.LoadLibraryExW(name, None, LOAD_WITH_ALTERED_SEARCH_PATH)
    if not handle:
        errors[name] = "error %d" % ctypes.get_last_error()
        continue
    buffer = ctypes.create_unicode_buffer(32768)
    kernel32.GetModuleFileNameW(handle, buffer, len(buffer))
    found[name] = buffer.value
hook = sys.modules.get("_gpuwizard_cuda_dlls")
report = {"found": found, "errors": errors, "hook": None if hook is None else list(hook.FOLDERS)}
if sys.argv[1] == "parent":
    child = subprocess.run([sys.executable, "-S", sys.argv[0], "child", "cudart64_110.dll"],
                           capture_output=True, text=True)
    report["child"] = json.loads(child.stdout) if child.returncode in (0, 1) and child.stdout else child.stderr
print(json.dumps(report))
"""

#: Starts ``argv[2:]`` with no activation and a PATH that holds no CUDA folder (argv[1]).
_FRESH = """\
import os, subprocess, sys
env = {k: v for k, v in os.environ.items() if k.upper() not in ("PATH", "VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME")}
env["PATH"] = sys.argv[1]
done = subprocess.run(sys.argv[2:], env=env, capture_output=True, text=True)
sys.stdout.write(done.stdout)
sys.stderr.write(done.stderr)
"""
_SYSTEM_PATH = r"C:\windows\system32;C:\windows"

# The install unpacks about 2.5 GB under Wine on a loaded 2-core machine: minutes, not seconds.
_WORKFLOW_LIMIT_S = 2400


def _download_argv() -> tuple[str, ...]:
    """The wizard's ``pip download`` command for the recommended plan (folder: ``{folder}``)."""
    report = load_system_report(REPORT)
    plan = recommend_for(report, SetupRequest.checked(framework="tensorflow", name="tf210")).plan
    assert plan.cuda_wheels is not None, "the plan must be the NVIDIA-wheels venv route"
    argv, index = download_command(
        "{folder}", WheelTarget("3.10", ("win_amd64",)), plan_wants(plan, FOLDER_EXTRAS)
    )
    assert index is None, f"TensorFlow 2.10.1 and NVIDIA's CUDA 11 wheels are on PyPI, not on {index}"
    return argv


def _events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


@pytest.fixture(scope="module")
def wine_tf(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[WineTfPython, Path, Path]]:
    """The base Python 3.10 under Wine, uv with its shim, and the wheel folder (made once, cached)."""
    cache = cache_folder()
    try:
        tools = uv_tools(cache)
        wheels = tensorflow_wheels(cache, _download_argv())
        wine = WineTfPython.provision_tf(tmp_path_factory.mktemp("wine-tf"), tools, cache)
    except WineUnavailable as why:
        unavailable(str(why))
    yield wine, tools, wheels
    wine.close()
    shutil.rmtree(wine.root, ignore_errors=True)


def test_a_fresh_unactivated_python_of_the_environment_loads_every_cuda_dll(
    wine_tf: tuple[WineTfPython, Path, Path], tmp_path: Path
) -> None:
    wine, tools, wheels = wine_tf
    report = json.loads(REPORT.read_text(encoding="utf-8"))
    python = {**report["python"], "executable": to_windows(wine.python)}
    report.update(python=python, interpreters=[python])
    report["managers"]["uv"] = to_windows(tools / "uv.exe")
    system = tmp_path / "system.json"
    system.write_text(json.dumps(report), encoding="utf-8")
    prefix = tmp_path / "tf210"
    try:
        started = time.monotonic()
        made = wine.run(
            _WORKFLOW, to_windows(wine.stage), to_windows(system), to_windows(prefix), to_windows(wheels),
            timeout=_WORKFLOW_LIMIT_S,
        )  # fmt: skip
        events = _events(made.stdout)
        print(f"workflow: {time.monotonic() - started:.0f} s")
        result = events[-1] if events else {}
        assert result.get("status") == "ok", made.stdout[-3000:] + made.stderr[-3000:]
        phases = [event["phase"] for event in events if event.get("event") == "phase"]
        print(
            "phases (seconds from the start):",
            [(e["phase"], e["at_s"]) for e in events if e.get("event") == "phase"],
        )
        assert "dlls" in phases and phases.index("dlls") < phases.index("verify"), phases

        env_python = to_windows(prefix / "Scripts" / "python.exe")
        probe = tmp_path / "load_like_tensorflow.py"
        probe.write_text(_PROBE, encoding="utf-8")
        hooked = wine.run(
            _FRESH, _SYSTEM_PATH, env_python, to_windows(probe), "parent", *DLLS, timeout=EVENT_S
        )
        print("hooked:", hooked.stdout)
        loaded = json.loads(hooked.stdout)
        assert loaded["errors"] == {}, loaded
        site = PureWindowsPath(to_windows(prefix)) / "Lib" / "site-packages" / "nvidia"
        for name, path in loaded["found"].items():
            where = PureWindowsPath(path)
            assert where.parent.name.lower() == "bin", (name, path)
            assert where.parent.parent.parent == site, (name, path)  # site-packages\nvidia\<wheel>\bin
        assert sorted(loaded["found"]) == sorted(DLLS)
        # A child process the environment's Python starts inherits the folders through PATH.
        assert loaded["child"]["errors"] == {}, loaded["child"]
        assert "cudart64_110.dll" in loaded["child"]["found"], loaded["child"]

        # The control: without `site` (so without the start-up hook) nothing is found.
        control = wine.run(
            _FRESH, _SYSTEM_PATH, env_python, "-S", to_windows(probe), "child", *DLLS, timeout=EVENT_S
        )
        unhooked = json.loads(control.stdout)
        assert unhooked["found"] == {} and sorted(unhooked["errors"]) == sorted(DLLS), unhooked

        # cuDNN 8.9 on Windows no longer needs zlibwapi.dll, and the route installs none.
        assert not [path for path in prefix.rglob("*") if path.name.lower() == "zlibwapi.dll"]
    finally:
        shutil.rmtree(prefix, ignore_errors=True)  # gigabytes
