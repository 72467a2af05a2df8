"""The system report's JSON form: the contract shape, the schema, and the round trip."""

from __future__ import annotations

import json
from importlib import resources

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from gpuwizard.core.findings.model import make_finding
from gpuwizard.core.machine.system_report import (
    CudaToolkitFacts,
    CudnnFacts,
    DriverFacts,
    GpuFacts,
    ManagerFacts,
    OsFacts,
    PythonFacts,
    SystemReport,
    gpu_list,
    report_from_json,
    report_to_json,
)

SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/system-1.schema.json").read_text()
)
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

FULL = SystemReport(
    os=OsFacts("windows", False, "10.0.22631", "x86_64", distribution="Windows 11"),
    python=PythonFacts("3.10.11", "C:\\Python310\\python.exe", 64),
    driver=DriverFacts("546.33", "12.3", "nvml"),
    gpus=(
        GpuFacts(0, "nvidia", "NVIDIA GeForce RTX 3060", "8.6", 12288, "00000000:01:00.0", uuid="GPU-secret"),
        GpuFacts(1, "intel", "Intel UHD Graphics 770"),
    ),
    cuda_toolkits=(CudaToolkitFacts("11.2.2", "C:\\CUDA\\v11.2", True, 0, "version.json", ("CUDA_PATH",)),),
    cudnn=(
        CudnnFacts(
            "8.1.0",
            "C:\\tools\\cuda\\bin",
            True,
            "cudnn_version.h",
            "C:\\tools\\cuda\\include\\cudnn_version.h",
        ),
    ),
    managers=ManagerFacts(conda="C:\\Users\\a\\miniconda3\\Scripts\\conda.exe"),
    findings=(make_finding("LONG_PATHS_DISABLED"),),
    long_paths_enabled=False,
    wizard_version="0.1.0",
)


def test_contract_fields_are_all_there():
    data = report_to_json(FULL)
    for key in ("schema", "os", "python", "driver", "gpus", "cuda_toolkits", "cudnn", "managers", "findings"):
        assert key in data
    assert data["schema"] == "gpuwizard.system/1"
    assert set(data["os"]) >= {"family", "wsl", "release", "arch"}
    assert set(data["driver"]) >= {"version", "cuda_max", "source"}
    assert set(data["gpus"][0]) >= {"index", "vendor", "name", "compute_capability", "memory_total_mib"}
    assert set(data["cuda_toolkits"][0]) >= {"version", "root", "on_path"}
    assert set(data["cudnn"][0]) >= {"version", "location", "on_path"}
    assert set(data["managers"]) == {"uv", "conda", "mamba", "micromamba"}
    assert set(data["findings"][0]) >= {"code", "severity", "message", "hint"}


def test_uuids_stay_out_of_reports():
    assert "GPU-secret" not in json.dumps(report_to_json(FULL))


def test_output_is_valid_and_round_trips():
    data = report_to_json(FULL)
    VALIDATOR.validate(data)
    assert report_from_json(json.loads(json.dumps(data))) == FULL


def test_a_non_nvidia_gpu_has_its_vendor_and_no_compute_capability():
    intel = report_to_json(FULL)["gpus"][1]
    assert (intel["vendor"], intel["compute_capability"]) == ("intel", None)


def test_the_design_example_is_a_valid_report():
    # docs/architecture.md, "The command-line and JSON contract", with its "..." placeholders filled in.
    example = {
        "schema": "gpuwizard.system/1",
        "os": {"family": "windows", "wsl": False, "release": "10.0.22631", "arch": "x86_64"},
        "python": {"version": "3.11.7", "executable": "C:\\Python311\\python.exe", "bits": 64},
        "driver": {"version": "546.33", "cuda_max": "12.3", "source": "nvml"},
        "gpus": [
            {
                "index": 0,
                "vendor": "nvidia",
                "name": "NVIDIA GeForce RTX 3060",
                "compute_capability": "8.6",
                "memory_total_mib": 12288,
            }
        ],
        "cuda_toolkits": [{"version": "11.2", "root": "C:\\CUDA\\v11.2", "on_path": True}],
        "cudnn": [{"version": "8.1.0", "location": "C:\\tools\\cuda", "on_path": False}],
        "managers": {"uv": "C:\\uv.exe", "conda": None, "mamba": None, "micromamba": None},
        "findings": [{"code": "NO_NVIDIA_DRIVER", "severity": "error", "message": "m", "hint": "h"}],
    }
    VALIDATOR.validate(example)
    report = report_from_json(example)
    assert report.gpus[0].compute_capability == "8.6" and report.driver and report.driver.cuda_max == "12.3"


def test_missing_optional_fields_mean_unknown():
    report = report_from_json({"schema": "gpuwizard.system/1"})
    assert report.driver is None and report.gpus == () and report.python is None
    assert report.os.family == "unknown"


def test_what_an_older_report_leaves_out_is_unknown_and_its_gpus_are_counted_in_order():
    report = report_from_json(
        {
            "schema": "gpuwizard.system/1",
            "os": {"family": "linux"},
            "python": {},
            "driver": {"version": "550.54"},
            "gpus": [{"name": "NVIDIA A"}, {"name": "NVIDIA B"}],
        }
    )
    assert [(gpu.index, gpu.vendor) for gpu in report.gpus] == [(0, "nvidia"), (1, "nvidia")]
    assert report.driver == DriverFacts("550.54", None, "unknown") and report.python is None
    assert report.os == OsFacts("linux", False, "", "")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=4),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=4), children, max_size=3)
    ),
    max_leaves=8,
)
_parts = st.sampled_from(["os", "python", "driver", "gpus", "cuda_toolkits", "cudnn", "managers", "findings"])


@given(st.dictionaries(_parts, _json | st.lists(st.dictionaries(st.text(max_size=8), _json), max_size=2)))
def test_a_report_of_any_shape_reads_and_writes_a_report_of_the_contract_shape(data: dict[str, object]):
    written = report_to_json(report_from_json(data))
    assert list(written) == list(report_to_json(FULL))
    assert report_to_json(report_from_json(written)) == written


@pytest.mark.parametrize(
    "bad",
    [
        {"schema": "gpuwizard.system/2"},
        {"schema": "gpuwizard.system/1", "gpus": [{"compute_capability": 8.6}]},
        {"schema": "gpuwizard.system/1", "driver": {"cuda_max": "12.3"}},
        {"schema": "gpuwizard.system/1", "findings": [{"code": "x", "severity": "error"}]},
        {"schema": "gpuwizard.system/1", "python": {"version": "3.11", "bits": 16}},
    ],
)
def test_schema_rejects_malformed_reports(bad: dict[str, object]):
    assert list(VALIDATOR.iter_errors(bad))


versions = st.from_regex(r"\A[0-9]{1,2}\.[0-9]{1,2}\Z")


@given(
    gpus=st.lists(
        st.builds(
            GpuFacts,
            index=st.integers(0, 15),
            vendor=st.sampled_from(["nvidia", "amd"]),
            name=st.none() | st.text(max_size=20),
            compute_capability=st.none() | versions,
            memory_total_mib=st.none() | st.integers(0, 10**6),
        ),
        max_size=4,
    ),
    driver=st.none()
    | st.builds(
        DriverFacts,
        version=st.from_regex(r"\A[0-9]{3}\.[0-9]{2}\Z"),
        cuda_max=st.none() | versions,
        source=st.just("nvml"),
    ),
)
def test_any_report_round_trips_and_validates(gpus: list[GpuFacts], driver: DriverFacts | None):
    report = SystemReport(os=OsFacts("linux", False, "6.1", "x86_64"), driver=driver, gpus=tuple(gpus))
    data = json.loads(json.dumps(report_to_json(report)))
    VALIDATOR.validate(data)
    assert report_from_json(data) == report


def test_gpu_list_counts_identical_gpus():
    gpus = [GpuFacts(i, "nvidia", "NVIDIA A100-SXM4-80GB") for i in range(4)] + [GpuFacts(4, "nvidia", None)]
    assert gpu_list(gpus) == "4 × NVIDIA A100-SXM4-80GB, NVIDIA GPU 4"
