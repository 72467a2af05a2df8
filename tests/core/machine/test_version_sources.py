"""Version parsers against recorded files and outputs."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.machine.version_sources import (
    cuda_version_from_folder_name,
    cuda_version_from_header,
    cuda_version_from_nvcc,
    cuda_version_from_nvml,
    cuda_version_from_version_json,
    cuda_version_from_version_txt,
    cudnn_version_from_header,
    cudnn_version_from_library_name,
    nvidia_driver_from_windows_version,
)

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded"


@pytest.mark.parametrize("path", sorted(RECORDED.glob("nvcc*")), ids=lambda p: p.name)
def test_every_recorded_nvcc_output_gives_its_full_version(path: Path):
    # The file name carries the version the output shows (..._V11.2.152.txt).
    expected = path.stem.rsplit("_V", 1)[1]
    assert cuda_version_from_nvcc(path.read_text()) == expected


def test_recorded_version_json_and_txt():
    assert (
        cuda_version_from_version_json((RECORDED / "cuda_version.json_win_cuda12.8.2_full.json").read_text())
        == "12.8.2"
    )
    assert (
        cuda_version_from_version_txt((RECORDED / "cuda_version.txt_linux_cuda11.0.207.txt").read_text())
        == "11.0.207"
    )


@pytest.mark.parametrize(
    ("name", "version"),
    [
        ("cudnn_version.h_cudnn8.2.1_defines.h", "8.2.1"),
        ("cudnn_version.h_cudnn9.6.0_defines.h", "9.6.0"),
        ("cudnn.h_cudnn7.2.1_defines.h", "7.2.1"),
    ],
)
def test_recorded_cudnn_headers(name: str, version: str):
    assert cudnn_version_from_header((RECORDED / name).read_text()) == version


@pytest.mark.parametrize(
    ("text", "expected"),
    [("{}", None), ('{"cuda": {"version": 12}}', None), ('{"cuda": "12.1"}', None), ("[1]", None)],
)
def test_version_json_that_does_not_say_gives_none(text: str, expected: None):
    assert cuda_version_from_version_json(text) is expected


@pytest.mark.parametrize(
    ("value", "text"), [(10010, "10.1"), (12080, "12.8"), (13020, "13.2"), (9020, "9.2")]
)
def test_nvml_cuda_integers(value: int, text: str):
    assert cuda_version_from_nvml(value) == text


def test_headers_without_a_version_give_none():
    assert cuda_version_from_header("#define SOMETHING 1") is None
    assert cudnn_version_from_header("#define CUDNN_MAJOR 8\n#define CUDNN_MINOR 1") is None


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cudnn64_7.dll", "7"),
        ("CUDNN64_8.DLL", "8"),
        ("libcudnn.so.9", "9"),
        ("libcudnn.so.8.9.7", "8.9.7"),
        ("libcudnn.so", None),
        ("libcudnn_ops.so.9", None),
        ("cudnn_ops64_9.dll", None),
    ],
)
def test_cudnn_library_names(name: str, expected: str | None):
    assert cudnn_version_from_library_name(name) == expected


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("v10.1", "10.1"),
        ("V12.8", "12.8"),
        ("cuda-11.8", "11.8"),
        ("cuda", None),
        ("v12", None),
        ("cuda-12.4.1", None),
    ],
)
def test_folder_names(name: str, expected: str | None):
    assert cuda_version_from_folder_name(name) == expected


@pytest.mark.parametrize(
    ("windows", "nvidia"),
    # Windows shows the driver as 31.0.15.xxxx; NVIDIA's number is the last five digits.
    [
        ("31.0.15.4633", "546.33"),
        ("32.0.15.6094", "560.94"),
        ("30.0.14.7212", "472.12"),
        ("27.21.14.5671", "456.71"),
        ("31.0.15.3041", "530.41"),
        ("31.0.15.0620", "506.20"),
        ("1.2", None),
    ],
)
def test_windows_driver_versions(windows: str, nvidia: str | None):
    assert nvidia_driver_from_windows_version(windows) == nvidia
