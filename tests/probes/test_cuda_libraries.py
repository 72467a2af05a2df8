"""Where each CUDA library was loaded from, the NVIDIA wheels, the DLL hook (issue 21, point 4).

``probes/cuda_libraries.py`` runs inside the environment under test, through ``env_report.py``
and ``train_test.py``. On Linux it reads ``/proc/self/maps``: checked on a recording of a real
process that loaded the CUDA 13.0 runtime (tests/fixtures/recorded/proc-maps), and live, in a
real process that loads a real shared library. The real CPU build of torch runs the live test's
probe and the environment report (no CUDA library: an empty list, the event still there), and
a real venv with NVIDIA-named wheels shows the wheels listed even when the framework is missing.
The Windows half, the process's module list, runs in the real Windows CPython under Wine with
NVIDIA's real ``cudart64_110.dll`` from the ``nvidia-cuda-runtime-cu11`` wheel.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

from builders.wheels import build_wheel
from gpuwizard.probes import cuda_libraries
from harness.wine_python import cache_folder, unavailable

PROBES = Path(__file__).resolve().parents[2] / "app" / "gpuwizard" / "probes"
RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "recorded" / "proc-maps"
MAPS = RECORDED / "proc-self-maps_linux_libcudart13-loaded-twice_one-deleted.txt"
UV = shutil.which("uv", path=str(Path(sys.executable).parent))
#: NVIDIA's CUDA 11.8 runtime wheel for Windows (1 MB), downloaded once into the Wine tests' cache.
CUDART_REQUIREMENT = "nvidia-cuda-runtime-cu11==11.8.89"
CUDART_FILE = "nvidia_cuda_runtime_cu11-11.8.89-py3-none-win_amd64.whl"


def cudart_wheel() -> Path:
    """The wheel, fetched with pip for win_amd64 on first use; in CI a failed download fails the test."""
    folder = cache_folder() / "nvidia-cuda-runtime-cu11"
    wheel = folder / CUDART_FILE
    if not wheel.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
             "--platform", "win_amd64", "--dest", str(folder), CUDART_REQUIREMENT],
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        if done.returncode != 0 or not wheel.is_file():
            unavailable(f"pip could not download {CUDART_REQUIREMENT}: {done.stderr.strip()[-300:]}")
    return wheel


def run_json(argv: list[str]) -> tuple[int, list[dict], str]:
    """Run a probe; its exit status, the JSON lines it printed (each must be one), its stderr."""
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=False)
    return (
        done.returncode,
        [json.loads(line) for line in done.stdout.splitlines() if line.strip()],
        done.stderr,
    )


# --- the names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        # Windows: TensorFlow 2.10's CUDA 11 set and cuDNN 8's sub-libraries (issue 21), the driver
        "cudart64_110.dll", "cublas64_11.dll", "cublasLt64_11.dll", "cufft64_10.dll", "curand64_10.dll",
        "cusolver64_11.dll", "cusolverMg64_11.dll", "cusparse64_11.dll", "cudnn64_8.dll",
        "cudnn_ops_infer64_8.dll", "cudnn_cnn_infer64_8.dll", "cudnn_adv_train64_8.dll",
        "cudnn_engines_precompiled64_9.dll", "nvrtc64_112_0.dll", "nvrtc-builtins64_118.dll",
        "nvJitLink_120_0.dll", "cupti64_2022.3.0.dll", "nvcuda.dll", "zlibwapi.dll", "nvinfer_10.dll",
        "CUDART64_110.DLL",
        # Linux: the wheels' and toolkits' sonames, the driver's libcuda
        "libcudart.so.12", "libcudart.so.13", "libcublasLt.so.12", "libcudnn.so.9", "libcudnn_graph.so.9",
        "libcudnn_ops_infer.so.8", "libnvrtc.so.12", "libnvrtc-builtins.so.12.6", "libnvJitLink.so.12",
        "libcupti.so.12", "libcuda.so.1", "libcuda.so.560.35.03", "libcusparseLt.so.0", "libnvinfer.so.8",
        "libcufft.so.11", "libcurand.so.10", "libcusolver.so.11",
    ],
)  # fmt: skip
def test_the_cuda_family_is_recognised(name: str):
    assert cuda_libraries.is_cuda_library(name)


@pytest.mark.parametrize(
    "name",
    [
        "libcudadebugger.so.1", "libtorch_cuda.so", "libc10_cuda.so", "libnccl.so.2", "python311.dll",
        "_pywrap_tensorflow_internal.pyd", "libtensorflow_framework.so.2", "kernel32.dll", "libz.so.1",
        "cudafe++",
    ],
)  # fmt: skip
def test_other_libraries_are_not(name: str):
    assert not cuda_libraries.is_cuda_library(name)


def test_windows_paths_are_named_by_their_last_part_and_compared_without_case():
    found = cuda_libraries.cuda_libraries_in(
        [
            r"C:\Windows\SYSTEM32\ntdll.dll",
            r"C:\envs\tf\Lib\site-packages\nvidia\cuda_runtime\bin\cudart64_110.dll",
            r"C:\ENVS\TF\Lib\site-packages\nvidia\cuda_runtime\bin\CUDART64_110.DLL",
            r"C:\Windows\system32\nvcuda.dll",
        ],
        windows=True,
    )
    assert found == [
        {
            "name": "cudart64_110.dll",
            "path": r"C:\envs\tf\Lib\site-packages\nvidia\cuda_runtime\bin\cudart64_110.dll",
        },
        {"name": "nvcuda.dll", "path": r"C:\Windows\system32\nvcuda.dll"},
    ]


# --- Linux: /proc/self/maps ----------------------------------------------------------------------


def test_recorded_maps_name_each_cuda_library_once_with_its_file():
    lines = MAPS.read_text(encoding="utf-8").splitlines(keepends=True)
    paths = cuda_libraries.paths_from_maps(lines)
    # Every mapped file once, a folder with a space kept whole, " (deleted)" taken off.
    assert "/tmp/h21p4/copy dir/libcudart.so.13" in paths
    assert len(paths) == len(set(paths))
    assert not any(path.endswith("(deleted)") or not path.startswith("/") for path in paths)
    assert cuda_libraries.cuda_libraries_in(paths) == [
        {"name": "libcudart.so.13", "path": "/tmp/h21p4/copy dir/libcudart.so.13"},
        {"name": "libcudart.so.13", "path": "/usr/local/cuda-13.0/lib/libcudart.so.13"},
    ]


@pytest.mark.skipif(not Path("/proc/self/maps").is_file(), reason="/proc is Linux's")
def test_a_real_process_names_the_file_of_a_library_it_loaded(tmp_path: Path):
    # Any real shared object under a CUDA-like name: the process maps it as it would cudart.
    import _ctypes

    folder = tmp_path / "site packages" / "nvidia" / "cuda_runtime" / "lib"
    folder.mkdir(parents=True)
    library = folder / "libcudart.so.12"
    shutil.copy(_ctypes.__file__, library)
    real = Path("/usr/local/cuda-13.0/lib/libcudart.so.13")  # the real runtime, where this machine has it
    loads = [str(library)] + ([str(real)] if real.is_file() else [])
    code = textwrap.dedent(
        """
        import ctypes, json, sys
        sys.path.insert(0, sys.argv[1])
        import cuda_libraries
        assert cuda_libraries.loaded_cuda_libraries() == []
        for path in sys.argv[2:]:
            ctypes.CDLL(path)
        print(json.dumps(cuda_libraries.loaded_cuda_libraries()))
        """
    )
    status, (found,), stderr = run_json([sys.executable, "-I", "-c", code, str(PROBES), *loads])
    assert status == 0, stderr
    expected = [{"name": "libcudart.so.12", "path": str(library)}]
    if real.is_file():
        expected.append({"name": "libcudart.so.13", "path": str(real)})
    assert found == expected


# --- the NVIDIA wheels and the hook --------------------------------------------------------------


def test_python_37_reads_the_wheels_from_their_dist_info_folders(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    site = tmp_path / "site-packages"
    for folder, name, version in [
        ("nvidia_cudnn_cu11-8.9.5.29.dist-info", "nvidia-cudnn-cu11", "8.9.5.29"),
        ("nvidia_cublas_cu11-11.11.3.6.dist-info", "nvidia_cublas_cu11", "11.11.3.6"),
        ("nvidia_ml_py-12.535.108.dist-info", "nvidia-ml-py", "12.535.108"),
        ("numpy-1.21.6.dist-info", "numpy", "1.21.6"),
    ]:
        (site / folder).mkdir(parents=True)
        (site / folder / "METADATA").write_text(
            f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n\nbody\n"
        )
    monkeypatch.setattr(sys, "path", [str(site), str(tmp_path / "missing")])
    versions = cuda_libraries.package_versions
    monkeypatch.setattr(versions, "from_metadata", versions.from_folders)  # as on 3.7
    assert cuda_libraries.installed_cuda_wheels() == [
        {"name": "nvidia-cublas-cu11", "version": "11.11.3.6"},
        {"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"},
    ]


def test_without_the_hook_module_there_is_no_hook_and_with_it_its_state(monkeypatch: pytest.MonkeyPatch):
    import types

    assert cuda_libraries.dll_hook_state() is None
    hook = types.ModuleType(cuda_libraries.HOOK_MODULE)
    hook.FOLDERS = [r"C:\e\Lib\site-packages\nvidia\cudnn\bin"]  # type: ignore[attr-defined]
    hook.PROBLEM = None  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, cuda_libraries.HOOK_MODULE, hook)
    assert cuda_libraries.dll_hook_state() == {
        "active": True, "folders": [r"C:\e\Lib\site-packages\nvidia\cudnn\bin"], "problem": None,
    }  # fmt: skip
    hook.FOLDERS = []  # type: ignore[attr-defined]
    hook.PROBLEM = "PermissionError: [WinError 5] Access is denied"  # type: ignore[attr-defined]
    assert cuda_libraries.dll_hook_state() == {
        "active": False, "folders": [], "problem": "PermissionError: [WinError 5] Access is denied",
    }  # fmt: skip


@pytest.mark.slow
@pytest.mark.skipif(UV is None, reason="uv is a project dependency")
def test_the_environment_report_lists_the_nvidia_wheels_even_when_the_framework_is_missing(tmp_path: Path):
    wheels = tmp_path / "wheels"
    build_wheel(wheels, "nvidia-cudnn-cu11", "8.9.5.29", files={"nvidia/cudnn/__init__.py": ""})
    build_wheel(wheels, "nvidia_cublas_cu11", "11.11.3.6", files={"nvidia/cublas/__init__.py": ""})
    build_wheel(wheels, "nvidia-ml-py", "12.535.108", files={"pynvml.py": ""})
    prefix = tmp_path / "env"
    assert UV is not None
    subprocess.run([UV, "venv", "--python", sys.executable, str(prefix)], capture_output=True, check=True)
    python = prefix / "bin" / "python"
    subprocess.run(
        [UV, "pip", "install", "--python", str(python), "--offline", "--no-index", "--find-links", str(wheels),
         "nvidia-cudnn-cu11", "nvidia-cublas-cu11", "nvidia-ml-py"],
        capture_output=True, check=True, timeout=120,
    )  # fmt: skip
    # As verify runs it: isolated (-I), so only the file beside it can bring cuda_libraries.py.
    status, (report,), stderr = run_json(
        [str(python), "-I", str(PROBES / "env_report.py"), "--framework", "pytorch"]
    )
    assert status == 1, stderr
    assert (report["ok"], report["phase"]) == (False, "import")
    assert report["cuda_wheels"] == [
        {"name": "nvidia-cublas-cu11", "version": "11.11.3.6"},
        {"name": "nvidia-cudnn-cu11", "version": "8.9.5.29"},
    ]
    assert report["dll_hook"] is None
    assert report["cuda_libraries"] == []


# --- the probes with the real CPU build of torch -------------------------------------------------


@pytest.mark.slow
def test_the_live_test_names_the_libraries_after_the_training_none_for_a_cpu_build(torch_python: str):
    status, events, stderr = run_json(
        [torch_python, str(PROBES / "train_test.py"), "--framework", "pytorch", "--cpu-steps", "6",
         "--cpu-batch", "16", "--cpu-warmup", "1"]
    )  # fmt: skip
    assert status == 0, stderr
    kinds = [event["event"] for event in events]
    (libraries,) = [event for event in events if event["event"] == "libraries"]
    # After every step, just before the summary: whatever the training loaded is loaded by then.
    assert kinds.index("libraries") == len(kinds) - 2 and kinds[-1] == "summary"
    assert libraries == {"event": "libraries", "cuda_libraries": [], "cuda_wheels": [], "dll_hook": None}

    status, (report,), stderr = run_json(
        [torch_python, "-I", str(PROBES / "env_report.py"), "--framework", "pytorch"]
    )
    assert status == 0, stderr
    assert (report["cuda_libraries"], report["cuda_wheels"], report["dll_hook"]) == ([], [], None)


# --- Windows: the process's module list, under Wine ------------------------------------------------


@pytest.mark.slow
@pytest.mark.xdist_group("wine")
def test_windows_names_the_file_each_cuda_dll_was_loaded_from(wine_python, tmp_path: Path):
    wheel_file = cudart_wheel()
    site = tmp_path / "site packages"
    with zipfile.ZipFile(wheel_file) as wheel:
        wheel.extract("nvidia/cuda_runtime/bin/cudart64_110.dll", site)
        wheel.extract("nvidia_cuda_runtime_cu11-11.8.89.dist-info/METADATA", site)
    by_path = tmp_path / "by path" / "cudart64_110.dll"
    by_path.parent.mkdir()
    shutil.copy(site / "nvidia" / "cuda_runtime" / "bin" / "cudart64_110.dll", by_path)
    # The DLL hook as env create writes it into site-packages (probes/cuda_dll_hook.py).
    shutil.copy(PROBES / "cuda_dll_hook.py", site / f"{cuda_libraries.HOOK_MODULE}.py")
    # Two processes: a DLL whose name is loaded already is not looked for again (Microsoft
    # Learn, "Dynamic-link library search order": the loaded module is used).
    by_path_code = textwrap.dedent(
        """
        import ctypes, json, sys
        from gpuwizard.probes import cuda_libraries

        before = cuda_libraries.library_facts()
        ctypes.WinDLL(sys.argv[1])  # LoadLibrary by its full path
        print(json.dumps({"before": before, "after": cuda_libraries.library_facts()}))
        """
    )
    by_name_code = textwrap.dedent(
        """
        import ctypes, json, sys
        from gpuwizard.probes import cuda_libraries

        sys.path.insert(0, sys.argv[1])
        import _gpuwizard_cuda_dlls  # what the .pth line does at start-up
        ctypes.WinDLL("cudart64_110.dll")  # by name, as TensorFlow does: found through the hook
        print(json.dumps(cuda_libraries.library_facts()))
        """
    )
    done = wine_python.run(by_path_code, wine_python.to_windows(by_path), timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert answer["before"]["cuda_libraries"] == [] and answer["before"]["dll_hook"] is None
    (loaded,) = answer["after"]["cuda_libraries"]
    assert loaded["name"].lower() == "cudart64_110.dll"
    assert loaded["path"].lower() == wine_python.to_windows(by_path).lower()

    done = wine_python.run(by_name_code, wine_python.to_windows(site), timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    after = json.loads(done.stdout.strip().splitlines()[-1])
    runtime_bin = wine_python.to_windows(site / "nvidia" / "cuda_runtime" / "bin")
    assert [(lib["name"].lower(), lib["path"].lower()) for lib in after["cuda_libraries"]] == [
        ("cudart64_110.dll", f"{runtime_bin}\\cudart64_110.dll".lower())
    ]
    assert after["dll_hook"] == {"active": True, "folders": [runtime_bin], "problem": None}
    assert after["cuda_wheels"] == [{"name": "nvidia-cuda-runtime-cu11", "version": "11.8.89"}]
