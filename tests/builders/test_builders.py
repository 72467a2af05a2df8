"""The wheel fakes are real: pip and uv install them offline, and the torch folder is the CPU build."""

from __future__ import annotations

import base64
import csv
import hashlib
import io
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from builders.precompiled_wheels import precompiled_folder
from builders.wheelhouses import real_cpu_torch_folder
from builders.wheels import build_wheel, bundled_pip_wheel, tiny_torch

BIN = "Scripts" if sys.platform == "win32" else "bin"
UV = Path(sys.executable).with_name("uv.exe" if sys.platform == "win32" else "uv")


def _offline_env(tmp_path: Path) -> dict[str, str]:
    """This process's environment without pip's and uv's settings: only the command line counts."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("PIP_", "UV_"))}
    env.update(
        PIP_CONFIG_FILE=os.devnull,  # no pip.conf at all, so no /opt/wheels and no extra indexes
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        UV_NO_CONFIG="1",
        UV_CACHE_DIR=str(tmp_path / "uv-cache"),
        UV_PYTHON_DOWNLOADS="never",
    )
    env.pop("VIRTUAL_ENV", None)
    return env


def _run(*argv: str | Path, env: dict[str, str]) -> str:
    done = subprocess.run(
        [str(arg) for arg in argv], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done.stdout


def _wheel_folder(folder: Path) -> Path:
    """``tiny`` 1.0 needing ``tiny-dep``, ``tiny-dep`` 0.2, a tiny torch and the bundled pip."""
    build_wheel(folder, "tiny", "1.0", requires=["tiny-dep>=0.1"])
    build_wheel(folder, "tiny-dep", "0.2")
    tiny_torch(folder)
    shutil.copy2(bundled_pip_wheel(), folder)
    return folder


def test_wheel_layout_and_record_hashes(tmp_path: Path) -> None:
    wheel = build_wheel(tmp_path, "tiny-dep", "0.2", requires=["tiny>=1"])
    assert wheel.name == "tiny_dep-0.2-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        assert names == {
            "tiny_dep/__init__.py",
            "tiny_dep-0.2.dist-info/METADATA",
            "tiny_dep-0.2.dist-info/WHEEL",
            "tiny_dep-0.2.dist-info/RECORD",
        }
        metadata = archive.read("tiny_dep-0.2.dist-info/METADATA").decode()
        assert "Name: tiny-dep\nVersion: 0.2\nRequires-Dist: tiny>=1\n" in metadata
        assert "Tag: py3-none-any\n" in archive.read("tiny_dep-0.2.dist-info/WHEEL").decode()
        rows = list(csv.reader(io.StringIO(archive.read("tiny_dep-0.2.dist-info/RECORD").decode())))
        assert {row[0] for row in rows} == names
        for path, digest, size in rows:
            if path.endswith("RECORD"):
                assert (digest, size) == ("", "")
                continue
            data = archive.read(path)
            expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            assert (digest, size) == (f"sha256={expected}", str(len(data)))


def test_bundled_pip_wheel_is_pip() -> None:
    wheel = bundled_pip_wheel()
    assert wheel.is_file()
    assert wheel.name.startswith("pip-")
    assert wheel.name.endswith("-py3-none-any.whl")


@pytest.mark.slow
def test_pip_installs_the_wheels_offline(tmp_path: Path) -> None:
    folder = _wheel_folder(tmp_path / "wheels")
    env = _offline_env(tmp_path)
    venv = tmp_path / "venv"
    # ensurepip takes about 6 s here, so this process's pip works on the new environment instead.
    _run(sys.executable, "-m", "venv", "--without-pip", venv, env=env)
    python = venv / BIN / "python"
    pip = (sys.executable, "-m", "pip", "--python", python)
    _run(*pip, "install", "--no-index", "--find-links", folder, "tiny==1.0", env=env)
    _run(*pip, "check", env=env)
    out = _run(python, "-c", "import tiny, tiny_dep; print(tiny.__version__, tiny_dep.__version__)", env=env)
    assert out.split() == ["1.0", "0.2"]


@pytest.mark.slow
def test_uv_installs_the_wheels_offline(tmp_path: Path) -> None:
    if not UV.is_file():
        pytest.skip(f"no uv next to {sys.executable}")
    folder = _wheel_folder(tmp_path / "wheels")
    env = _offline_env(tmp_path)
    venv = tmp_path / "venv"
    _run(UV, "venv", "--offline", "--python", sys.executable, venv, env=env)
    python = venv / BIN / "python"
    # pip itself comes from the bundled wheel, so the environment can check itself afterwards.
    install = (UV, "pip", "install", "--offline", "--no-index", "--find-links", folder, "--python", python)
    _run(*install, "tiny==1.0", "torch==2.13.0", "pip", env=env)
    _run(python, "-m", "pip", "check", env=env)
    code = "import tiny, torch; print(tiny.__version__, torch.__version__, torch.version.cuda)"
    assert _run(python, "-c", code, env=env).split() == ["1.0", "2.13.0", "None"]


@pytest.mark.slow
def test_a_precompiled_wheel_installs_its_recorded_bytecode_and_python_loads_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not UV.is_file():
        pytest.skip(f"no uv next to {sys.executable}")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    source = tmp_path / "as-shipped"
    build_wheel(source, "tiny", "1.0", {"tiny/__init__.py": "VALUE = 'compiled'\n"})
    (source / "marker").write_text("kept\n", encoding="utf-8")
    folder = precompiled_folder(source, tmp_path / "wheels")
    name = "tiny-1.0-py3-none-any.whl"
    assert (folder / "marker").read_text(encoding="utf-8") == "kept\n"
    tag = sys.implementation.cache_tag
    with zipfile.ZipFile(folder / name) as archive:
        rows = list(csv.reader(io.StringIO(archive.read("tiny-1.0.dist-info/RECORD").decode())))
        assert {row[0] for row in rows} == set(archive.namelist())
        assert f"tiny/__pycache__/__init__.{tag}.pyc" in archive.namelist()
        for path, digest, size in rows:
            if digest:
                data = archive.read(path)
                expected = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
                assert (digest, size) == (f"sha256={expected}", str(len(data)))
    # A second folder takes the cached wheel: the same bytes, not compiled again.
    again = precompiled_folder(source, tmp_path / "again")
    assert (again / name).read_bytes() == (folder / name).read_bytes()

    env = _offline_env(tmp_path)
    venv = tmp_path / "venv"
    _run(UV, "venv", "--offline", "--python", sys.executable, venv, env=env)
    python = venv / BIN / "python"
    install = (UV, "pip", "install", "--offline", "--no-index", "--find-links", folder, "--python", python)
    _run(*install, "tiny", env=env)
    (installed,) = venv.glob("**/site-packages/tiny/__init__.py")
    # The source changed after the install: Python still loads the wheel's bytecode (unchecked
    # hash), which proves it is used rather than compiled again.
    installed.write_text("VALUE = 'source'\n", encoding="utf-8")
    assert _run(python, "-c", "import tiny; print(tiny.VALUE)", env=env).split() == ["compiled"]


def test_tiny_torch_runs_init(tmp_path: Path) -> None:
    wheel = tiny_torch(tmp_path, version="2.4.1", init="LOADED = True")
    with zipfile.ZipFile(wheel) as archive:
        init = archive.read("torch/__init__.py").decode()
        version = archive.read("torch/version.py").decode()
    assert wheel.name == "torch-2.4.1-py3-none-any.whl"
    assert init.index('__version__ = "2.4.1"') < init.index("LOADED = True")
    assert version == '__version__ = "2.4.1"\ncuda = None\n'


@pytest.mark.slow
def test_real_cpu_torch_folder(tmp_path: Path) -> None:
    folder = real_cpu_torch_folder(tmp_path / "torch-wheels")
    if folder is None:
        pytest.skip("no local CPU build of torch 2.13.0 for this Python (or pip could not download)")
    torch_wheels = list(folder.glob("torch-2.13.0*.whl"))
    assert len(torch_wheels) == 1
    assert "+cpu" in torch_wheels[0].name or torch_wheels[0].stat().st_size < 1 << 30
    assert list(folder.glob("pip-*.whl"))
    assert real_cpu_torch_folder(folder) == folder  # the cached folder comes back at once
    # Everything torch needs is there: pip resolves it from the folder alone, without the network.
    env = _offline_env(tmp_path)
    _run(
        sys.executable,
        "-m",
        "pip",
        "install",
        "--dry-run",
        "--ignore-installed",
        "--no-index",
        "--find-links",
        folder,
        "torch==2.13.0",
        env=env,
    )
