"""Reading nvidia-smi output: recorded outputs from several driver branches and OSes."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpuwizard.core.machine.nvidia_smi_output import (
    banner_cuda_version,
    banner_driver_version,
    invalid_query_field,
    parse_query_csv,
)

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded"


def recorded(name: str) -> str:
    return (RECORDED / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "driver", "cuda"),
    [
        ("nvidia-smi_4xA100-SXM4-80GB_linux_555.42.02_cuda12.5.txt", "555.42.02", "12.5"),
        ("nvidia-smi_win_rtx3050laptop_546.12_cuda12.3_wddm_partial.txt", "546.12", "12.3"),
        ("nvidia-smi_titanxp_linux_450.57_cuda11.0.txt", "450.57", "11.0"),
        # R610 relabels the header: "KMD Version" and "CUDA UMD Version".
        ("nvidia-smi_H200_linux_610.43.02_kmd-umd-labels_full.txt", "610.43.02", "13.3"),
        ("nvidia-smi_win_rtx2080super_610.62_kmd-umd-labels_driver-model-column_full.txt", "610.62", "13.3"),
        # Before R410 the banner shows no CUDA version.
        ("nvidia-smi_gridK520_linux_346.46_no-cuda-version.txt", "346.46", None),
        # WSL 2: the Windows driver's version; "ERR!" where the CUDA version should be.
        ("nvidia-smi_wsl2_rtx3060laptop_545.46-win546.80_cuda-ERR_partial.txt", "546.80", None),
    ],
)
def test_banner_versions(name: str, driver: str, cuda: str | None):
    text = recorded(name)
    assert banner_driver_version(text) == driver
    assert banner_cuda_version(text) == cuda


def test_query_csv_reads_by_header_name_whatever_the_column_order():
    text = recorded("nvidia-smi_query-gpu_csv_win10_rtx2080super_466.63_many-fields.txt")
    (row,) = parse_query_csv(text)
    assert row.name == "NVIDIA GeForce RTX 2080 SUPER"
    assert row.uuid == "GPU-1937b558-347d-0f30-105b-893b98985668"
    assert row.pci_bus_id == "00000000:0C:00.0"
    assert row.memory_total_mib == 8192  # "8192 MiB": the unit is stripped
    assert row.driver_version == "466.63"
    assert row.compute_capability is None  # not asked in that recording


def test_query_csv_with_several_gpus_gives_one_row_each():
    text = recorded("nvidia-smi_query-gpu_csv_gtx1650super_linux_530.41.03.txt")
    rows = parse_query_csv(text)
    assert len(rows) == 2
    assert all(row.name is None for row in rows)  # a column that was not asked stays empty


def test_compute_cap_column():
    assert parse_query_csv(recorded("nvidia-smi_query-gpu_compute_cap_csv_570.133.07.txt"))[
        0
    ].compute_capability == (8, 9)


def test_no_value_markers_become_none_and_problems_are_kept():
    text = "index, name, memory.total [MiB], uuid\n0, [Unknown Error], [N/A], [Not Supported]\n1, NVIDIA T4, 15360, GPU-1\n"
    first, second = parse_query_csv(text)
    assert (first.name, first.memory_total_mib, first.uuid) == (None, None, None)
    assert first.problem == "Unknown Error"
    assert second.problem is None and second.memory_total_mib == 15360


def test_r610_kmd_version_column_is_the_driver():
    rows = parse_query_csv("index, name, kmd_version\n0, NVIDIA H200, 610.43.02\n")
    assert rows[0].driver_version == "610.43.02"


@pytest.mark.parametrize(
    ("name", "field"),
    [
        ("nvidia-smi_query-gpu_error_compute_cap-invalid-field.txt", "compute_cap"),
        ("nvidia-smi_query-gpu_error_id-invalid-field.txt", "id"),
    ],
)
def test_refused_fields_are_recognised(name: str, field: str):
    assert invalid_query_field(recorded(name)) == field


def test_empty_output_gives_no_rows():
    assert parse_query_csv("\n\n") == []
