"""``tools/compat_harvest.py`` run for real against a synthetic PyPI and PyTorch index on 127.0.0.1.

The wheels are built from the data rows (builders/harvest_index.py), so the data agrees with them
until a test changes one side. Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import copy
import datetime
import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from builders.harvest_index import (
    BIG_PADDING,
    CUBLAS_TODAY,
    CUDNN_TODAY,
    Published,
    publish,
    serve,
    tf_rows,
    torch_rows,
    write_data,
    zip_bytes,
)
from gpuwizard.workflow.compat.files import COMPAT_FILES, validation_errors

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "compat_harvest.py"
sys.path.insert(0, str(ROOT / "tools"))

from harvest.net import Fetcher, RangeUnsupported  # noqa: E402
from harvest.remotezip import RemoteZip  # noqa: E402
from harvest.wheels import build_info, gencode_archs, version_fields  # noqa: E402

MIB = 1 << 20


@pytest.fixture(scope="module")
def world() -> Iterator[Published]:
    with serve() as site:
        yield publish(site, torch_rows(), tf_rows())


def run(
    world: Published, data: Path, *args: str, cache: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """The tool as a maintainer runs it, against the synthetic site; the site's log starts empty."""
    world.site.served.clear()
    command = [sys.executable, str(TOOL), *args, "--data", str(data), "--pypi", world.pypi]
    if "--torch-index" not in args:
        command += ["--torch-index", world.index]
    command += ["--cache", str(cache)] if cache is not None else ["--no-cache"]
    env = {**os.environ, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=300, check=False, env=env, cwd=ROOT
    )


def variant(row: dict[str, Any], name: str) -> dict[str, Any]:
    return next(entry for entry in row["variants"] if entry["name"] == name)


def notes(done: subprocess.CompletedProcess[str]) -> list[str]:
    return [line for line in done.stderr.splitlines() if line.startswith("note: ")]


def mutated(*, unfixable: bool = True) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The synthetic rows with one disagreement of each kind (``unfixable``: also one --write leaves)."""
    torch, tf = torch_rows(), tf_rows()
    del torch[0]  # 2.15: a release the data lacks
    t214, t213 = torch
    t214["latest"] = "2.14.0"  # the newest patch missing
    t214["python"]["max"] = "3.13"
    t214["pypi_default"]["linux"] = "cu126"
    variant(t214, "cu130")["cudnn"] = "9.1.0.70"
    variant(t214, "cu130")["platforms"]["linux"]["compute_capabilities"].remove("12.0")
    variant(t213, "cu130")["platforms"]["linux"]["ptx"] = "12.0"
    t213["variants"] = [entry for entry in t213["variants"] if entry["name"] != "cu126"]
    if unfixable:
        variant(t214, "cu130")["platforms"]["darwin"] = {}
        t213["variants"].insert(1, {**copy.deepcopy(variant(t213, "cu130")), "name": "cu129", "cuda": "12.9"})
    t221, t210 = tf
    t221["python"]["min"] = "3.9"
    t221["gpu"]["linux"].update(cudnn="8.9", ptx="8.0", cuda_supply="system")
    t210["gpu"]["windows"]["cuda"] = "11.0"
    return torch, tf


WHEEL_214 = "torch-2.14.1-cp312-cp312-manylinux_2_28_x86_64.whl"
INDEX_214 = "torch-2.14.1+cu130-cp312-cp312-manylinux_2_28_x86_64.whl"
TF_221 = "tensorflow-2.21.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"
EXPECTED = [
    "pytorch 2.15: missing from the data (PyPI has 2.15.0: Python 3.11-3.15, pypi_default linux cu132, "
    "windows cpu, darwin cpu; variants cu132, cpu, cu130)",
    "pytorch 2.14 latest: data 2.14.0, PyPI 2.14.1",
    "pytorch 2.14 python.max: data 3.13, wheels 3.14 (torch-2.14.1-cp314-cp314-manylinux_2_28_x86_64.whl)",
    f"pytorch 2.14 pypi_default.linux: data cu126, wheels cu130 ({WHEEL_214})",
    f"pytorch 2.14 variants.cu130.cudnn: data 9.1.0.70, wheels 9.24.0.43 ({INDEX_214})",
    "pytorch 2.14 variants.cu130.platforms.linux.compute_capabilities: data [7.5, 8.0, 8.6, 9.0, 10.0], "
    f"wheels [7.5, 8.0, 8.6, 9.0, 10.0, 12.0] ({INDEX_214})",
    "pytorch 2.13 variants.cu130.platforms.linux.ptx: data 12.0, wheels null "
    "(torch-2.13.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl)",
    "pytorch 2.13 variants.cu126: missing from the data (torch-2.13.0+cu126-cp312-cp312-manylinux_2_28_x86_64.whl)",
    "tensorflow 2.21 python.min: data 3.9, wheels 3.10 "
    "(tensorflow-2.21.0-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl)",
    f"tensorflow 2.21 gpu.linux.cudnn: data 8.9, wheels 9 ({TF_221})",
    f"tensorflow 2.21 gpu.linux.ptx: data 8.0, wheels 9.0 ({TF_221})",
    f"tensorflow 2.21 gpu.linux.cuda_supply: data system, wheels and-cuda ({TF_221})",
    "tensorflow 2.10 gpu.windows.cuda: data 11.0, wheels 11.2 (tensorflow-2.10.1-cp310-cp310-win_amd64.whl)",
]
UNFIXABLE = [
    "pytorch 2.14 variants.cu130.platforms.darwin: in the data, no macOS wheel on the PyTorch index",
    "pytorch 2.13 variants.cu129: in the data, not on the PyTorch index",
]


#: --check's line per [and-cuda] range of the synthetic data (stderr): what it resolves to today.
AGREED_RANGES = [
    f"range: tensorflow 2.21 linux: nvidia-cudnn-cu12 <10.0,>=9.3.0.75 resolves to {CUDNN_TODAY} today "
    f"(data: {CUDNN_TODAY} on 2026-11-29); it drops compute capability 6.0, 7.0 (cuDNN 9.11 and newer need 7.5), "
    "as the data's resolution does",
    f"range: tensorflow 2.21 linux: nvidia-cublas-cu12 <13.0,>=12.5.3.2 resolves to {CUBLAS_TODAY} today "
    f"(data: {CUBLAS_TODAY} on 2026-11-29)",
]
CUDNN_WHEEL = f"nvidia_cudnn_cu12-{CUDNN_TODAY}-py3-none-manylinux_2_27_x86_64.whl"
CUDNN_KEY = f"WHEEL-nvidia_cudnn_cu12-{CUDNN_TODAY}-py3-manylinux_2_27_x86_64"
CUBLAS_WHEEL = f"nvidia_cublas_cu12-{CUBLAS_TODAY}-py3-none-manylinux_2_27_x86_64.whl"
DROP_FAILURE = "compat_harvest: error: --strict: 1 range resolution(s) drop a GPU the data's resolution kept (the notes above)"


def test_data_that_matches_the_wheels_agrees(world: Published, tmp_path: Path):
    data = write_data(tmp_path / "data", torch_rows(), tf_rows())
    done = run(world, data, "--check", "--strict")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[0].startswith("0 disagreements (pytorch 0, tensorflow 0); 25 wheels read")
    # each [and-cuda] range is named with what it resolves to today, agreeing or not; nothing else
    assert done.stderr.splitlines() == AGREED_RANGES


def test_check_finds_each_kind_of_disagreement(world: Published, tmp_path: Path):
    data = write_data(tmp_path / "data", *mutated())
    done = run(world, data, "--check")
    assert done.returncode == 1, done.stdout + done.stderr
    *lines, summary = done.stdout.splitlines()
    assert sorted(lines) == sorted(EXPECTED + UNFIXABLE)
    assert summary.startswith(f"{len(lines)} disagreements (pytorch 10, tensorflow 5); ")


def test_only_what_the_data_has_and_newer_is_compared(world: Published, tmp_path: Path):
    """2.12 (older than the data's oldest torch row) and the 2.16 pre-release stay out; --only narrows."""
    torch = torch_rows()[:2]  # 2.15 and 2.14: 2.13 is now older than the data's oldest row
    data = write_data(tmp_path / "data", torch, tf_rows())
    done = run(world, data, "--check", "--only", "pytorch")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tensorflow" not in done.stdout
    assert not any("tensorflow" in served.path for served in world.site.served)


def test_write_fixes_a_copy_so_that_check_agrees(world: Published, tmp_path: Path):
    torch, tf = mutated(unfixable=False)
    data = write_data(tmp_path / "data", torch, tf)
    before = {path.name: path.read_bytes() for path in data.glob("*.json")}
    done = run(world, data, "--write")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len([line for line in done.stdout.splitlines() if line.startswith("changed: ")]) == len(EXPECTED)
    assert "wrote tensorflow.json, pytorch.json, sources.json" in done.stdout

    again = run(world, data, "--check")
    assert again.returncode == 0, again.stdout + again.stderr
    files = {name: json.loads((data / f"{name}.json").read_text("utf-8")) for name in COMPAT_FILES}
    assert validation_errors(files) == []

    # the files nobody wrote are byte-identical; the written ones keep the layout
    for name in ("cuda.json", "gpus.json", "policies.json", "docker_images.json"):
        assert (data / name).read_bytes() == before[name], name
    for name in ("pytorch", "tensorflow", "sources"):
        text = (data / f"{name}.json").read_text("utf-8")
        assert text == json.dumps(json.loads(text), indent=2, ensure_ascii=False) + "\n"

    # every derived field is back, every curated one untouched; sources only grew
    def without_sources(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: without_sources(item) for key, item in value.items() if key != "source"}
        if isinstance(value, list):
            return [without_sources(item) for item in value]
        return value

    torch_after, tf_after = files["pytorch"]["releases"], files["tensorflow"]["releases"]
    original_torch, original_tf = torch_rows(), tf_rows()
    assert [row["version"] for row in torch_after] == ["2.15", "2.14", "2.13"]
    assert without_sources(torch_after[1]) == without_sources(original_torch[1])
    restored = variant(torch_after[2], "cu126")
    assert [entry["name"] for entry in torch_after[2]["variants"]] == ["cu126", "cu130", "cpu"]
    assert restored == {
        "name": "cu126",
        "cuda": "12.6",
        "cudnn": "9.10.2.21",
        "platforms": {
            "linux": {"compute_capabilities": ["5.0", "6.0", "7.0", "7.5", "8.0", "8.6", "9.0"], "ptx": None},
            "windows": {
                "compute_capabilities": ["5.0", "6.0", "6.1", "7.0", "7.5", "8.0", "8.6", "9.0"],
                "ptx": None,
            },
        },
        "source": [
            "WHEEL-torch-2.13.0+cu126-cp312-manylinux_2_28_x86_64",
            "WHEEL-torch-2.13.0+cu126-cp312-win_amd64",
        ],
        "experimental": False,
    }
    original_213 = without_sources(original_torch[2])
    original_213["variants"] = [entry for entry in original_213["variants"] if entry["name"] != "cu126"]
    after_213 = without_sources(torch_after[2])
    after_213["variants"] = [entry for entry in after_213["variants"] if entry["name"] != "cu126"]
    assert after_213 == original_213
    new = torch_after[0]
    assert new["conda_pytorch_channel"] is False and "note" not in new
    assert [entry["name"] for entry in new["variants"]] == ["cu130", "cu132", "cpu"]
    assert [entry.get("experimental") for entry in new["variants"]] == [False, False, None]
    assert without_sources(new["variants"][0]["platforms"]) == {
        name: {key: value for key, value in platform.items() if key != "note"}
        for name, platform in variant(original_torch[0], "cu130")["platforms"].items()
    }
    assert without_sources(tf_after[1]) == without_sources(original_tf[1])
    expected_221 = without_sources(original_tf[0])
    expected_221["gpu"]["linux"]["cudnn"] = "9"  # build_info says 9; [and-cuda] pins a range, not a version
    assert without_sources(tf_after[0]) == expected_221

    _check_sources(world, files, json.loads(before["sources.json"])["sources"])

    # a second --write has nothing to do and leaves the files alone
    written = {path.name: path.read_bytes() for path in data.glob("*.json")}
    done = run(world, data, "--write")
    assert done.returncode == 0 and done.stdout.startswith("nothing to change"), done.stdout + done.stderr
    assert {path.name: path.read_bytes() for path in data.glob("*.json")} == written


def _check_sources(world: Published, files: dict[str, Any], old_sources: dict[str, Any]) -> None:
    """Each changed row cites its wheels after its curated sources; each wheel is in sources.json."""
    torch_after, tf_after = files["pytorch"]["releases"], files["tensorflow"]["releases"]
    assert torch_after[1]["source"][:2] == ["PT-REL", "PYPI"]
    assert "WHEEL-torch-2.14.1-cp314-manylinux_2_28_x86_64" in torch_after[1]["source"]
    assert variant(torch_after[1], "cu130")["source"] == [
        "PT-REL",
        "WHEEL-torch-2.14.1+cu130-cp312-manylinux_2_28_x86_64",
    ]
    assert tf_after[0]["source"] == ["PYPI", "WHEEL-tensorflow-2.21.0-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64",
                                     "WHEEL-tensorflow-2.21.0-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64"]  # fmt: skip
    sources = files["sources"]
    today = datetime.date.today().isoformat()
    assert sources["generated"] in (today, (datetime.date.today() - datetime.timedelta(days=1)).isoformat())
    assert {key: sources["sources"][key] for key in old_sources} == old_sources
    cited = {
        key
        for row in [*torch_after, *tf_after]
        for key in json.dumps(row).split('"')
        if key.startswith("WHEEL-")
    }
    assert cited <= set(sources["sources"])
    entry = sources["sources"]["WHEEL-torch-2.14.1+cu130-cp312-manylinux_2_28_x86_64"]
    path, digest = world.files[INDEX_214]
    assert entry == {
        "title": f"{INDEX_214} (PyTorch index)",
        "url": world.site.url + path.replace("+", "%2B"),
        "sha256": digest,
        "seen": f"torch/version.py, METADATA (PEP 658), libtorch_cuda.so -gencode flags; harvested {sources['generated']}",
    }


def test_write_leaves_what_it_cannot_derive_and_says_so(world: Published, tmp_path: Path):
    data = write_data(tmp_path / "data", *mutated())
    done = run(world, data, "--write")
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("left as is: ")] == [
        f"left as is: {line}" for line in UNFIXABLE
    ]
    again = run(world, data, "--check")
    assert again.returncode == 1
    assert again.stdout.splitlines()[:-1] == UNFIXABLE
    assert any(entry["name"] == "cu129" for row in json.loads((data / "pytorch.json").read_text())["releases"]
               for entry in row["variants"])  # fmt: skip


def _range(row: dict[str, Any], package: str) -> dict[str, Any]:
    return next(entry for entry in row["gpu"]["linux"]["library_ranges"] if entry["package"] == package)


def _dates(before: datetime.date) -> set[str]:
    """The days a run that started on ``before`` may have recorded."""
    return {before.isoformat(), datetime.date.today().isoformat()}


def test_a_resolution_that_drops_a_gpu_the_recorded_one_kept_fails_strict(world: Published, tmp_path: Path):
    """The data recorded cuDNN 9.10 (Pascal and Volta kept); today the range resolves to 9.28, which drops them."""
    tf = tf_rows()
    _range(tf[0], "nvidia-cudnn-cu12")["resolved"] = "9.10.2.21"
    data = write_data(tmp_path / "data", torch_rows(), tf)
    done = run(world, data, "--check", "--only", "tensorflow")
    assert done.returncode == 1, done.stdout + done.stderr
    *lines, summary = done.stdout.splitlines()
    assert lines == [
        f"tensorflow 2.21 gpu.linux.library_ranges.nvidia-cudnn-cu12: <10.0,>=9.3.0.75 resolves to {CUDNN_TODAY} "
        f"today ({CUDNN_WHEEL}), the data recorded 9.10.2.21 on 2026-11-29; {CUDNN_TODAY} drops compute "
        "capability 6.0, 7.0 (cuDNN 9.11 and newer need 7.5); the data recorded 9.10.2.21, which did not: "
        "check that plans pin below the drop (library_architectures) before publishing"
    ]
    assert summary.startswith("1 disagreements (tensorflow 1); ")
    assert done.stderr.splitlines() == [
        f"range: tensorflow 2.21 linux: nvidia-cudnn-cu12 <10.0,>=9.3.0.75 resolves to {CUDNN_TODAY} today "
        "(data: 9.10.2.21 on 2026-11-29); it drops compute capability 6.0, 7.0 (cuDNN 9.11 and newer need 7.5), "
        "which the data's resolution does not",
        AGREED_RANGES[1],
        f"note: tensorflow 2.21 linux: nvidia-cudnn-cu12 <10.0,>=9.3.0.75 resolves to {CUDNN_TODAY} today, "
        "which drops compute capability 6.0, 7.0 (cuDNN 9.11 and newer need 7.5); the data recorded 9.10.2.21, "
        "which did not: check that plans pin below the drop (library_architectures) before publishing",
    ]

    # the weekly workflow's --write --strict stops before anything is written or published
    before = {path.name: path.read_bytes() for path in data.glob("*.json")}
    strict = run(world, data, "--check", "--strict", "--only", "tensorflow")
    assert strict.returncode == 3 and strict.stderr.splitlines()[-1] == DROP_FAILURE, strict.stderr
    written = run(world, data, "--write", "--strict")
    assert written.returncode == 3, written.stdout + written.stderr
    assert written.stderr.splitlines()[-1] == (
        "compat_harvest: error: --strict: 1 range resolution(s) drop a GPU the data's resolution kept; "
        "nothing written"
    )
    assert {path.name: path.read_bytes() for path in data.glob("*.json")} == before

    # a maintainer who checked the plans records today's resolution with --write
    day = datetime.date.today()
    done = run(world, data, "--write", "--only", "tensorflow")
    assert done.returncode == 0, done.stdout + done.stderr
    changed = [line for line in done.stdout.splitlines() if line.startswith("changed: ")]
    assert len(changed) == 1
    assert changed[0].startswith(
        "changed: tensorflow 2.21 gpu.linux.library_ranges.nvidia-cudnn-cu12: <10.0,>=9.3.0.75 resolved to "
        f"9.10.2.21 on 2026-11-29 -> <10.0,>=9.3.0.75 resolved to {CUDNN_TODAY} on "
    )
    files = {name: json.loads((data / f"{name}.json").read_text("utf-8")) for name in COMPAT_FILES}
    assert validation_errors(files) == []
    row = files["tensorflow"]["releases"][0]
    entry = _range(row, "nvidia-cudnn-cu12")
    assert entry["resolved_on"] in _dates(day)
    assert entry == {
        "library": "cudnn", "package": "nvidia-cudnn-cu12", "spec": "<10.0,>=9.3.0.75", "resolved": CUDNN_TODAY,
        "resolved_on": entry["resolved_on"], "source": CUDNN_KEY,
    }  # fmt: skip
    assert _range(row, "nvidia-cublas-cu12") == _range(tf_rows()[0], "nvidia-cublas-cu12")
    assert row["source"] == ["PYPI"]  # the entry cites its wheel itself
    path, digest = world.files[CUDNN_WHEEL]
    assert files["sources"]["sources"][CUDNN_KEY] == {
        "title": f"{CUDNN_WHEEL} (PyPI)",
        "url": world.site.url + path,
        "sha256": digest,
        "seen": f"its file name in the PyPI listing; harvested {files['sources']['generated']}",
    }
    again = run(world, data, "--check", "--strict", "--only", "tensorflow")
    assert again.returncode == 0, again.stdout + again.stderr
    assert again.stderr.splitlines()[0].endswith("as the data's resolution does")


def test_a_resolution_that_drops_nothing_new_is_no_failure(world: Published, tmp_path: Path):
    """cuDNN 9.20 recorded already dropped Pascal and Volta (plans pin for it); cuBLAS 12.9 drops nothing."""
    tf = tf_rows()
    _range(tf[0], "nvidia-cudnn-cu12")["resolved"] = "9.20.0.48"
    _range(tf[0], "nvidia-cublas-cu12")["resolved"] = "12.5.3.2"
    data = write_data(tmp_path / "data", torch_rows(), tf)
    done = run(world, data, "--check", "--strict", "--only", "tensorflow")
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.splitlines()[:-1] == [
        f"tensorflow 2.21 gpu.linux.library_ranges.nvidia-cudnn-cu12: <10.0,>=9.3.0.75 resolves to {CUDNN_TODAY} "
        f"today ({CUDNN_WHEEL}), the data recorded 9.20.0.48 on 2026-11-29",
        f"tensorflow 2.21 gpu.linux.library_ranges.nvidia-cublas-cu12: <13.0,>=12.5.3.2 resolves to {CUBLAS_TODAY} "
        f"today ({CUBLAS_WHEEL}), the data recorded 12.5.3.2 on 2026-11-29",
    ]
    assert notes(done) == []
    assert done.stderr.splitlines() == [
        f"range: tensorflow 2.21 linux: nvidia-cudnn-cu12 <10.0,>=9.3.0.75 resolves to {CUDNN_TODAY} today "
        "(data: 9.20.0.48 on 2026-11-29); it drops compute capability 6.0, 7.0 (cuDNN 9.11 and newer need 7.5), "
        "as the data's resolution does",
        f"range: tensorflow 2.21 linux: nvidia-cublas-cu12 <13.0,>=12.5.3.2 resolves to {CUBLAS_TODAY} today "
        "(data: 12.5.3.2 on 2026-11-29)",
    ]


def test_a_range_the_data_lacks_or_writes_otherwise(world: Published, tmp_path: Path):
    """A missing entry and another spec are fixed; an entry the wheel has no range for is only reported."""
    tf = tf_rows()
    t221, t210 = tf
    t221["gpu"]["linux"]["library_ranges"] = [
        {**_range(t221, "nvidia-cudnn-cu12"), "spec": "<9.11,>=9.3.0.75"}
    ]
    cu11 = {"library": "cudnn", "package": "nvidia-cudnn-cu11", "spec": ">=8.1", "resolved": "8.9.5.29",
            "resolved_on": "2026-11-29", "source": "PIP-DRY-RUN"}  # fmt: skip
    t210["gpu"]["linux"]["library_ranges"] = [cu11]
    data = write_data(tmp_path / "data", torch_rows(), tf)
    done = run(world, data, "--check", "--strict", "--only", "tensorflow")
    assert done.returncode == 1, done.stdout + done.stderr
    unfixable = (
        "tensorflow 2.10 gpu.linux.library_ranges.nvidia-cudnn-cu11: in the data, but the [and-cuda] extra of "
        "tensorflow-2.10.1-cp310-cp310-manylinux_2_17_x86_64.manylinux2014_x86_64.whl requires it by no range"
    )
    assert done.stdout.splitlines()[:-1] == [
        f"tensorflow 2.21 gpu.linux.library_ranges.nvidia-cudnn-cu12: data <9.11,>=9.3.0.75 (resolved to "
        f"{CUDNN_TODAY} on 2026-11-29), the [and-cuda] extra requires <10.0,>=9.3.0.75 ({TF_221}), which resolves "
        f"to {CUDNN_TODAY} today ({CUDNN_WHEEL})",
        "tensorflow 2.21 gpu.linux.library_ranges.nvidia-cublas-cu12: missing from the data: the [and-cuda] extra "
        f"requires <13.0,>=12.5.3.2, which resolves to {CUBLAS_TODAY} today ({CUBLAS_WHEEL})",
        unfixable,
    ]
    assert notes(done) == []

    day = datetime.date.today()
    written = run(world, data, "--write", "--only", "tensorflow")
    assert written.returncode == 0, written.stdout + written.stderr
    assert f"left as is: {unfixable}" in written.stdout.splitlines()
    files = {name: json.loads((data / f"{name}.json").read_text("utf-8")) for name in COMPAT_FILES}
    assert validation_errors(files) == []
    t221_after, t210_after = files["tensorflow"]["releases"]
    ranges = t221_after["gpu"]["linux"]["library_ranges"]
    assert [entry["package"] for entry in ranges] == ["nvidia-cudnn-cu12", "nvidia-cublas-cu12"]
    assert {entry["resolved_on"] for entry in ranges} <= _dates(day)
    assert [(entry["spec"], entry["resolved"], entry["source"]) for entry in ranges] == [
        ("<10.0,>=9.3.0.75", CUDNN_TODAY, CUDNN_KEY),
        (
            "<13.0,>=12.5.3.2",
            CUBLAS_TODAY,
            f"WHEEL-nvidia_cublas_cu12-{CUBLAS_TODAY}-py3-manylinux_2_27_x86_64",
        ),
    ]
    assert t210_after["gpu"]["linux"]["library_ranges"] == [cu11]
    again = run(world, data, "--check", "--only", "tensorflow")
    assert again.stdout.splitlines()[:-1] == [unfixable]


@pytest.mark.parametrize(
    ("change", "expected"),
    [("unyank 9.30.0.1", "9.30.0.1"), ("an x86_64 wheel for 9.29.0.10", "9.29.0.10")],
)
def test_a_yanked_release_or_one_without_a_linux_wheel_is_passed_over(
    world: Published, tmp_path: Path, change: str, expected: str
):
    """pip's choice: the site's 9.30.0.1 is yanked and 9.29.0.10 has no Linux x86_64 wheel (so 9.28 is taken)."""
    address = "/pypi/nvidia-cudnn-cu12/json"
    original = world.site.files[address]
    listing = json.loads(original)
    if change.startswith("unyank"):
        for entry in listing["releases"]["9.30.0.1"]:
            entry["yanked"] = False
    else:
        entry = copy.deepcopy(listing["releases"]["9.29.0.10"][0])
        entry["filename"] = entry["filename"].replace("aarch64", "x86_64")
        listing["releases"]["9.29.0.10"].append(entry)
    world.site.files[address] = json.dumps(listing).encode()
    try:
        done = run(
            world, write_data(tmp_path / "data", torch_rows(), tf_rows()), "--check", "--only", "tensorflow"
        )
    finally:
        world.site.files[address] = original
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.splitlines()[0].startswith(
        f"range: tensorflow 2.21 linux: nvidia-cudnn-cu12 <10.0,>=9.3.0.75 resolves to {expected} today "
        f"(data: {CUDNN_TODAY} on 2026-11-29)"
    )
    assert notes(done) == []


def test_only_byte_ranges_of_the_wheels_are_fetched(world: Published, tmp_path: Path):
    data = write_data(tmp_path / "data", torch_rows(), tf_rows())
    done = run(world, data, "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    wheels = [served for served in world.site.served if served.path.endswith(".whl")]
    assert wheels, "no wheel was read"
    assert all(served.range and served.status == 206 for served in wheels)
    assert all(served.sent <= 8 * MIB for served in wheels)
    big_path, _ = world.files[world.big_wheel]
    size = len(world.site.files[big_path])
    read = sum(served.sent for served in wheels if served.path == big_path)
    assert size > BIG_PADDING + 10 * MIB
    assert (
        BIG_PADDING < read < BIG_PADDING + 9 * MIB < size
    )  # two 8 MiB chunks, never the 12 MiB after the flags


def test_the_cache_avoids_reading_a_wheel_again(world: Published, tmp_path: Path):
    data = write_data(tmp_path / "data", torch_rows(), tf_rows())
    cache = tmp_path / "cache"
    first = run(world, data, "--check", cache=cache)
    assert first.returncode == 0, first.stdout + first.stderr
    assert world.site.wheel_requests()
    assert len(list(cache.glob("*.json"))) == 25
    second = run(world, data, "--check", cache=cache)
    assert second.returncode == 0, second.stdout + second.stderr
    assert world.site.wheel_requests() == []
    assert "0 wheels read, 25 from the cache" in second.stdout


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_index_is_a_note_and_with_strict_an_error(world: Published, tmp_path: Path):
    data = write_data(tmp_path / "data", torch_rows(), tf_rows())
    index = f"http://127.0.0.1:{_closed_port()}/whl"
    done = run(world, data, "--check", "--torch-index", index, "--retries", "0")
    assert done.returncode == 0, done.stdout + done.stderr
    (note,) = notes(done)
    assert note.startswith(f"note: the PyTorch index is unreachable ({index}/torch/: connection refused")
    strict = run(world, data, "--check", "--strict", "--torch-index", index, "--retries", "0")
    assert strict.returncode == 3
    assert (
        strict.stderr.splitlines()[-1]
        == "compat_harvest: error: --strict: 1 source(s) not read (the notes above)"
    )
    written = run(world, data, "--write", "--strict", "--torch-index", index, "--retries", "0")
    assert written.returncode == 3 and "nothing written" in written.stderr


def test_flags_beyond_the_scan_limit_are_a_note(world: Published, tmp_path: Path):
    data = write_data(tmp_path / "data", torch_rows(), tf_rows())
    done = run(world, data, "--check", "--scan-limit", "4")
    assert done.returncode == 0, done.stdout + done.stderr
    assert notes(done) == [
        f"note: {world.big_wheel}: no -gencode flags in the first 4 MiB of torch/lib/libtorch_cuda.so "
        "(stopped at the --scan-limit cap): architectures not checked"
    ]
    big_path, _ = world.files[world.big_wheel]
    assert sum(s.sent for s in world.site.served if s.path == big_path) < 5 * MIB
    assert run(world, data, "--check", "--scan-limit", "4", "--strict").returncode == 3


@pytest.mark.parametrize(
    "args",
    [
        [],
        ["--check", "--write"],
        ["--check", "--only", "jax"],
        ["--check", "--pypi", "ftp://example.org/pypi"],
        ["--check", "--pypi", "http://pypi.org/pypi"],
        ["--check", "--torch-index", "not a url"],
        ["--check", "--data", "/nonexistent/compat"],
        ["--check", "--scan-limit", "0"],
        ["--check", "--retries", "-1"],
        ["--check", "--bogus"],
    ],
    ids=lambda args: " ".join(args) or "no mode",
)
def test_bad_arguments_are_one_line_and_exit_2(args: list[str]):
    done = subprocess.run(
        [sys.executable, str(TOOL), *args, "--no-cache"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and done.stderr.startswith("compat_harvest: error: ")


def test_a_server_that_ignores_range_is_refused(world: Published):
    path, _ = world.files[world.big_wheel]
    world.site.ignore_range.add(path)
    fetcher = Fetcher(retries=0)
    try:
        with pytest.raises(RangeUnsupported, match="ignored the Range header"):
            RemoteZip(fetcher, world.site.url + path)
        assert fetcher.bytes_in == 0
    finally:
        world.site.ignore_range.discard(path)
        fetcher.close()


def test_a_zip64_file_with_a_central_directory_beyond_the_tail(world: Published):
    members = {f"m/{n}": b"" for n in range(70_000)}  # over 65535 entries: zip64 end records
    members["torch/version.py"] = b"__version__ = '9.9.9+cu999'\ncuda = '99.9'\n"
    world.site.files["/zip64.whl"] = zip_bytes(members)
    fetcher = Fetcher(retries=0)
    try:
        archive = RemoteZip(fetcher, world.site.url + "/zip64.whl")
        assert len(archive.members) == 70_001
        text = archive.read("torch/version.py").decode()
    finally:
        fetcher.close()
    assert version_fields(text) == {"__version__": "9.9.9+cu999", "cuda": "99.9"}
    assert fetcher.bytes_in < len(world.site.files["/zip64.whl"]) + 4096


def test_a_build_version_that_is_no_version_is_never_taken(tmp_path: Path):
    # TensorFlow's build_info as Windows builds write it ("64_112" for CUDA 11.2, "64_8" for
    # cuDNN 8) is read in the other tests (the data agree, and EXPECTED's 2.10 line); here a
    # wheel whose build_info holds code where its CUDA version should be.
    published = tf_rows()
    published[0]["gpu"]["linux"]["cuda"] = "__import__('os')"  # build_info says "__import__('os').1"
    data = write_data(tmp_path / "data", torch_rows(), tf_rows())
    with serve() as site:
        done = run(publish(site, torch_rows(), published), data, "--check", "--only", "tensorflow")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "__import__" not in done.stdout + done.stderr
    assert done.stdout.splitlines()[0].startswith("0 disagreements")


def test_the_parsers():
    assert gencode_archs(
        "-gencode;arch=compute_90a,code=sm_90a;-gencode;arch=compute_100,code=[sm_100,compute_100];"
        "-gencode;arch=compute_75,code=sm_75"
    ) == (["7.5", "9.0", "10.0"], ["10.0"])
    assert gencode_archs("-gencode arch=compute_37,code=sm_37") == (["3.7"], [])
    old = "is_rocm_build = False\nis_cuda_build = True\n\ncuda_version_number = '10'\ncudnn_version_number = '7'\n"
    assert build_info(old) == {
        "is_rocm_build": False, "is_cuda_build": True, "cuda_version_number": "10", "cudnn_version_number": "7",
        "cuda_version": "10", "cudnn_version": "7",
    }  # fmt: skip
    plain = "build_info = {'cuda_version': '10.1', 'cuda_compute_capabilities': ['sm_35', 'compute_70']}\n"
    assert build_info(plain)["cuda_compute_capabilities"] == ["sm_35", "compute_70"]
