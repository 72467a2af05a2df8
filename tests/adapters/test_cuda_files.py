"""Finding CUDA toolkits and cuDNN in folder trees shaped like real installs."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from builders.trees import (
    cudnn9_windows_installer,
    cudnn_zip,
    debian_cudnn,
    linux_toolkit,
    windows_toolkit,
)
from fakes.runner import FakeRunner
from gpuwizard.adapters.cuda_files import CudaFiles


def windows_files(
    tmp_path: Path, env: dict[str, str] | None = None, runner: FakeRunner | None = None
) -> CudaFiles:
    base = {"ProgramFiles": str(tmp_path / "Program Files"), "SystemDrive": str(tmp_path / "C:")}
    return CudaFiles("windows", {**base, **(env or {})}, runner or FakeRunner())


def test_windows_toolkits_in_the_default_folder_with_their_version_files(tmp_path: Path):
    pf = tmp_path / "Program Files"
    windows_toolkit(pf, "10.1.243", version_file="txt")
    windows_toolkit(pf, "11.2.2")
    windows_toolkit(pf, "12.8.2")
    kits = windows_files(tmp_path).toolkits([])
    assert [(kit.version, kit.version_source) for kit in kits] == [
        ("10.1.243", "version.txt"),
        ("11.2.2", "version.json"),
        ("12.8.2", "version.json"),
    ]
    assert all(kit.found_by == ("default folder",) for kit in kits)


def test_cuda_path_variables_name_the_same_toolkit_once(tmp_path: Path):
    pf = tmp_path / "Program Files"
    root = windows_toolkit(pf, "11.2.2")
    env = {"CUDA_PATH": str(root), "CUDA_PATH_V11_2": str(root)}
    (kit,) = windows_files(tmp_path, env).toolkits([])
    assert kit.found_by == ("CUDA_PATH", "CUDA_PATH_V11_2", "default folder")


def test_toolkit_outside_default_folders_is_found_through_path(tmp_path: Path):
    root = windows_toolkit(tmp_path / "D" / "apps", "11.8.0")
    (kit,) = windows_files(tmp_path).toolkits([str(root / "bin")])
    assert kit.version == "11.8.0" and kit.found_by == ("PATH",)


def test_version_falls_back_to_the_runtime_header_then_nvcc_then_the_folder_name(tmp_path: Path):
    pf = tmp_path / "Program Files"
    with_header = windows_toolkit(pf, "11.4.0", version_file="none")
    with_nvcc = windows_toolkit(pf, "11.5.0", version_file="none")
    (with_nvcc / "include" / "cuda_runtime_api.h").write_text("/* no version here */")
    named_only = windows_toolkit(pf, "11.6.0", version_file="none")
    (named_only / "include" / "cuda_runtime_api.h").write_text("")
    (named_only / "bin" / "nvcc.exe").unlink()
    recorded = (
        Path(__file__).parent.parent / "fixtures" / "recorded" / "nvcc--version_linux_cuda11.5_V11.5.119.txt"
    ).read_text()
    runner = FakeRunner().when("nvcc", "--version").answer(recorded)
    kits = {kit.root.name: kit for kit in windows_files(tmp_path, runner=runner).toolkits([])}
    assert (kits[with_header.name].version, kits[with_header.name].version_source) == (
        "11.4",
        "cuda_runtime_api.h",
    )
    assert (kits[with_nvcc.name].version, kits[with_nvcc.name].version_source) == ("11.5.119", "nvcc")
    assert (kits[named_only.name].version, kits[named_only.name].version_source) == ("11.6", "folder name")


def test_a_folder_without_toolkit_markers_is_not_a_toolkit(tmp_path: Path):
    pf = tmp_path / "Program Files"
    (pf / "NVIDIA GPU Computing Toolkit" / "CUDA" / "v12.0").mkdir(
        parents=True
    )  # left behind by an uninstall
    assert windows_files(tmp_path).toolkits([]) == []


def test_linux_toolkit_and_its_link_are_one_toolkit(tmp_path: Path):
    linux_toolkit(tmp_path / "usr" / "local", "12.4.1")
    files = CudaFiles(
        "linux",
        {"CUDA_HOME": str(tmp_path / "usr" / "local" / "cuda")},
        FakeRunner(),
        toolkit_parents=[tmp_path / "usr" / "local"],
        cudnn_dirs=[],
    )
    (kit,) = files.toolkits([str(tmp_path / "usr" / "local" / "cuda" / "bin")])
    assert kit.version == "12.4.1"
    assert set(kit.found_by) == {"CUDA_HOME", "default folder", "PATH"}


def test_a_wrapper_nvcc_on_path_does_not_make_its_folder_a_toolkit(tmp_path: Path):
    # /usr/local/bin/nvcc on this kind of machine is a two-line script that execs the toolkit's.
    bin_dir = tmp_path / "usr" / "local" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "nvcc").write_text('#!/bin/sh\nexec /usr/local/cuda-13.0/bin/nvcc "$@"\n')
    (tmp_path / "usr" / "local" / "lib").mkdir()
    files = CudaFiles("linux", {}, FakeRunner(), toolkit_parents=[], cudnn_dirs=[])
    assert files.toolkits([str(bin_dir)]) == []


def test_cudnn_unzipped_anywhere_and_put_on_path_is_found(tmp_path: Path):
    # TensorFlow's old Windows guide: unzip cuDNN to C:\tools\cuda and add its bin to PATH.
    bin_dir = cudnn_zip(tmp_path / "tools" / "cuda", "8.1.0")
    files = windows_files(tmp_path)
    (dnn,) = files.cudnn([], [str(bin_dir)], [])
    assert (dnn.version, dnn.version_source, dnn.library_dir) == ("8.1.0", "cudnn_version.h", bin_dir)


def test_cudnn_copied_into_a_toolkit_is_found_there(tmp_path: Path):
    root = windows_toolkit(tmp_path / "Program Files", "11.2.2")
    (root / "bin" / "cudnn64_8.dll").write_bytes(b"MZ")
    (root / "include" / "cudnn_version.h").write_text(
        "#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 1\n#define CUDNN_PATCHLEVEL 1\n"
    )
    (dnn,) = windows_files(tmp_path).cudnn([root], [], [])
    assert dnn.version == "8.1.1"


def test_cudnn7_reads_its_version_from_cudnn_h(tmp_path: Path):
    bin_dir = cudnn_zip(tmp_path / "cudnn-10.0-windows10-x64-v7.6.5", "7.6.5")
    (dnn,) = windows_files(tmp_path).cudnn([], [str(bin_dir)], [])
    assert (dnn.version, dnn.version_source) == ("7.6.5", "cudnn.h")


def test_cudnn9_windows_installer_layout(tmp_path: Path):
    pf = tmp_path / "Program Files"
    library_dir = cudnn9_windows_installer(pf, "9.7.1", "12.8")
    (dnn,) = windows_files(tmp_path).cudnn([], [], [])
    assert (dnn.version, dnn.library_dir) == ("9.7.1", library_dir)


def test_header_of_another_major_version_is_not_believed(tmp_path: Path):
    bin_dir = cudnn_zip(tmp_path / "cudnn", "8.9.7")
    (bin_dir / "cudnn64_8.dll").rename(bin_dir / "cudnn64_9.dll")
    (dnn,) = windows_files(tmp_path).cudnn([], [str(bin_dir)], [])
    assert (dnn.version, dnn.version_source) == ("9", "library name")


def test_debian_cudnn_packages(tmp_path: Path):
    libdir = debian_cudnn(tmp_path / "usr", "9.6.0")
    files = CudaFiles("linux", {}, FakeRunner(), toolkit_parents=[], cudnn_dirs=[libdir])
    (dnn,) = files.cudnn([], [], [])
    assert (dnn.version, dnn.version_source) == ("9.6.0", "cudnn_version_v9.h")


def test_linux_cudnn_without_header_takes_the_full_version_from_the_library_name(tmp_path: Path):
    libdir = cudnn_zip(tmp_path / "cudnn-linux", "8.9.7", windows=False)
    (tmp_path / "cudnn-linux" / "include" / "cudnn_version.h").unlink()
    files = CudaFiles("linux", {}, FakeRunner(), toolkit_parents=[], cudnn_dirs=[])
    (dnn,) = files.cudnn([], [], [str(libdir)])
    assert (dnn.version, dnn.version_source) == ("8.9.7", "library name")


def test_the_same_folder_reached_twice_is_one_install(tmp_path: Path):
    bin_dir = cudnn_zip(tmp_path / "tools" / "cuda", "8.1.0")
    link = tmp_path / "link"
    link.symlink_to(bin_dir)
    assert len(windows_files(tmp_path).cudnn([], [str(bin_dir), str(link)], [])) == 1


@pytest.mark.skipif(not Path("/usr/local/cuda-13.0").is_dir(), reason="this machine's real toolkit")
def test_the_real_toolkit_on_this_machine():
    files = CudaFiles("linux", dict(os.environ), FakeRunner())
    kits = {os.path.realpath(kit.root): kit for kit in files.toolkits([])}
    assert kits["/usr/local/cuda-13.0"].version == "13.0"
