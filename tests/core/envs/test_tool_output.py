"""Progress from package tools' output: real recordings (tests/fixtures/recorded/envtools) and line cases."""

from __future__ import annotations

import json
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gpuwizard.core.envs.events import EnvProgress
from gpuwizard.core.envs.tool_output import TOOLS, parse_tool_line
from gpuwizard.core.envs.tool_progress import ACTIONS, ToolProgress, size_to_bytes
from gpuwizard.core.events import to_json
from harness.hypothesis_examples import examples

RECORDED = Path(__file__).parents[2] / "fixtures" / "recorded" / "envtools"


def recorded(name: str) -> str:
    # newline="" keeps any \r the tool printed; the runner hands lines over the same way.
    with (RECORDED / name).open(encoding="utf-8", newline="") as handle:
        return handle.read()


def parse_all(tool: str, text: str) -> list[ToolProgress]:
    return [record for line in text.splitlines() for record in parse_tool_line(tool, line)]


def brief(record: ToolProgress) -> tuple[object, ...]:
    """(action, package, version, count) with trailing Nones dropped, for compact expectations."""
    values: list[object] = [record.action, record.package, record.version, record.count]
    while values[-1] is None:
        values.pop()
    return tuple(values)


# --- recordings made on this machine -----------------------------------------------------

PY = ("resolve", "python", "3.11.2")  # "Using Python 3.11.2 environment at: ..."
DEMO_INSTALLED = [
    ("installed", "demo-alpha", "1.0.0"),
    ("installed", "demo-beta", "2.1.0"),
    ("installed", "demo-gamma", "0.3.0"),
]

UV_EXPECTED = {
    "uv-0.13.9_venv.txt": [("resolve", "cpython", "3.11.2"), ("install",)],
    "uv-0.5.31_venv.txt": [("resolve", "cpython", "3.11.2"), ("install",)],
    "uv-0.13.9_pip-install_offline-find-links_3-wheels.txt": [
        PY,
        ("resolve", None, None, 3),
        ("download", None, None, 3),
        ("installed", None, None, 3),
        *DEMO_INSTALLED,
    ],
    "uv-0.13.9_pip-install_already-installed_checked.txt": [PY, ("installed", None, None, 1)],
    "uv-0.5.31_pip-install_already-installed_audited.txt": [PY, ("installed", None, None, 1)],
    "uv-0.13.9_pip-install_local-project_build.txt": [
        PY,
        ("resolve", None, None, 1),
        ("build", "demo-local"),
        ("build", "demo-local"),
        ("download", None, None, 1),
        ("installed", None, None, 1),
        ("installed", "demo-local", "0.5.0"),
    ],
    # " - demo-alpha==1.0.0" and "Uninstalled 1 package" are removals, not progress.
    "uv-0.13.9_pip-install_upgrade_uninstalled.txt": [
        PY,
        ("resolve", None, None, 3),
        ("download", None, None, 1),
        ("installed", None, None, 1),
        ("installed", "demo-alpha", "1.1.0"),
    ],
    "uv-0.13.9_pip-install_pypi_numpy-download.txt": [
        PY,
        ("resolve", None, None, 2),
        ("download", "numpy"),
        ("download", "numpy"),
        ("download", None, None, 2),
        ("installed", None, None, 2),
        ("installed", "numpy", "2.1.3"),
        ("installed", "six", "1.16.0"),
    ],
    "uv-0.5.31_pip-install_pypi_numpy-download.txt": [
        PY,
        ("resolve", None, None, 1),
        ("download", "numpy"),
        ("download", "numpy"),
        ("download", None, None, 1),
        ("installed", None, None, 1),
        ("installed", "numpy", "2.1.3"),
    ],
    "uv-0.5.31_pip-install_offline-find-links_wheels-and-local-project.txt": [
        PY,
        ("resolve", None, None, 4),
        ("build", "demo-local"),
        ("build", "demo-local"),
        ("download", None, None, 4),
        ("installed", None, None, 4),
        ("installed", "demo-alpha", "1.1.0"),
        ("installed", "demo-beta", "2.1.0"),
        ("installed", "demo-gamma", "0.3.0"),
        ("installed", "demo-local", "0.5.0"),
    ],
    "uv-0.13.9_pip-install_offline_no-solution.txt": [PY],
}

PIP_EXPECTED = {
    "pip-23.2.1_install_offline-find-links_3-wheels.txt": [
        ("resolve", "demo-gamma", "0.3.0"),
        ("resolve", "demo-beta", "2.1.0"),
        ("resolve", "demo-alpha", "1.1.0"),
        ("install", None, None, 3),
        ("installed", None, None, 3),
        ("installed", "demo-alpha", "1.1.0"),
        ("installed", "demo-beta", "2.1.0"),
        ("installed", "demo-gamma", "0.3.0"),
    ],
    "pip-23.2.1_install_local-project_build_already-satisfied_uninstall.txt": [
        ("resolve",),  # Processing ./proj: a folder, no name yet
        ("build",),
        ("build",),
        ("build",),
        ("build",),
        ("resolve", "demo-alpha", "1.0.0"),
        ("installed", "demo-gamma", "0.3.0"),
        ("installed", "demo-beta", "2.1.0"),
        ("build", None, None, 1),
        ("build", "demo-local"),
        ("build", "demo-local"),
        ("build", "demo-local", "0.5.0"),
        ("build", None, None, 1),
        ("install", None, None, 2),
        ("installed", None, None, 2),
        ("installed", "demo-alpha", "1.0.0"),
        ("installed", "demo-local", "0.5.0"),
    ],
    "pip-23.2.1_install_pypi_numpy-six_downloading.txt": [
        ("resolve", "numpy", "2.1.3"),
        ("download", "numpy", "2.1.3"),
        ("resolve", "six", "1.16.0"),
        ("download", "six", "1.16.0"),
        ("install", None, None, 2),
        ("installed", None, None, 2),
        ("installed", "numpy", "2.1.3"),
        ("installed", "six", "1.16.0"),
    ],
    "pip-23.2.1_install_offline_no-matching-distribution.txt": [],
    "pip-26.3_download_progress-bar-raw.txt": [
        ("resolve", "numpy", "2.1.3"),
        ("download", "numpy", "2.1.3"),
        ("download",),
        ("download",),
        ("download",),
        ("resolve", "six", "1.16.0"),
        ("download", "six", "1.16.0"),
        ("download", "numpy", "2.1.3"),  # Saved ./d25/numpy-...whl
        ("download", "six", "1.16.0"),
    ],
    "pip-26.3_install_pypi_progress-bar-raw.txt": [
        ("resolve", "numpy", "2.1.3"),
        ("download", "numpy", "2.1.3"),
        ("download",),
        ("download",),
        ("download",),
        ("resolve", "six", "1.16.0"),
        ("download", "six", "1.16.0"),
        ("install", None, None, 2),
        ("installed", None, None, 2),
        ("installed", "numpy", "2.1.3"),
        ("installed", "six", "1.16.0"),
    ],
    "pip-26.3_install_offline-find-links_wheels-and-local-project.txt": [
        ("resolve",),
        ("build",),
        ("build",),
        ("build",),
        ("build",),
        ("resolve", "demo-gamma", "0.3.0"),
        ("resolve", "demo-beta", "2.1.0"),
        ("resolve", "demo-alpha", "1.1.0"),
        ("build", None, None, 1),
        ("build", "demo-local"),
        ("build", "demo-local"),
        ("build", "demo-local", "0.5.0"),
        ("build", None, None, 1),
        ("install", None, None, 4),
        ("installed", None, None, 4),
        ("installed", "demo-alpha", "1.1.0"),
        ("installed", "demo-beta", "2.1.0"),
        ("installed", "demo-gamma", "0.3.0"),
        ("installed", "demo-local", "0.5.0"),
    ],
}


@pytest.mark.parametrize(("name", "expected"), UV_EXPECTED.items(), ids=list(UV_EXPECTED))
def test_uv_recordings(name: str, expected: list[tuple[object, ...]]):
    assert [brief(record) for record in parse_all("uv", recorded(name))] == expected


@pytest.mark.parametrize(("name", "expected"), PIP_EXPECTED.items(), ids=list(PIP_EXPECTED))
def test_pip_recordings(name: str, expected: list[tuple[object, ...]]):
    assert [brief(record) for record in parse_all("pip", recorded(name))] == expected


def test_uv_install_gives_one_installed_record_per_plus_line():
    text = recorded("uv-0.13.9_pip-install_offline-find-links_3-wheels.txt")
    plus_lines = [line for line in text.splitlines() if line.startswith(" + ")]
    named = [r for r in parse_all("uv", text) if r.action == "installed" and r.package]
    assert len(named) == len(plus_lines) == 3
    assert [r.message for r in named] == [line.strip() for line in plus_lines]


def test_uv_download_size_is_read_in_binary_units():
    records = parse_all("uv", recorded("uv-0.13.9_pip-install_pypi_numpy-download.txt"))
    downloading, downloaded = (r for r in records if r.package == "numpy" and r.action == "download")
    assert downloading.bytes_total == round(15.6 * 2**20)
    assert downloading.percent is None
    assert downloaded.percent == 100.0


def test_pip_downloading_size_and_raw_progress():
    records = parse_all("pip", recorded("pip-26.3_download_progress-bar-raw.txt"))
    downloading = records[1]
    assert downloading.bytes_total == 16_300_000  # "(16.3 MB)": pip's decimal units
    raw = [r for r in records if r.message.startswith("Progress ")]
    assert [(r.bytes_done, r.bytes_total) for r in raw] == [
        (0, 16339644),
        (262144, 16339644),
        (16339644, 16339644),
    ]
    assert raw[0].percent == 0.0
    assert raw[-1].percent == 100.0
    assert all(r.package is None for r in raw)  # which file: only the caller knows the order


def test_pip_build_finished_is_complete():
    records = parse_all("pip", recorded("pip-26.3_install_offline-find-links_wheels-and-local-project.txt"))
    started, finished = (r for r in records if r.message.startswith("Building wheel for demo-local"))
    assert started.percent is None
    assert finished.percent == 100.0


# --- conda, mamba, micromamba: published output (see SOURCES.md) --------------------------


def caret_nul(text: str) -> str:
    """The poster of conda/conda#12231 shows NUL as ``^@`` (caret notation); make it NUL again."""
    return text.replace("^@", "\x00")


def test_conda_json_records_separated_by_nul():
    text = caret_nul(
        recorded("conda-22.11.1_create-json_fetch-records_caret-nul_conda-conda-12231_partial.txt")
    )
    records = parse_all("conda", text)
    assert [(r.action, r.package, r.version) for r in records] == [
        ("download", "pandas", "1.5.2"),
        ("download", "mkl", "2021.4.0"),
        ("download", "numpy-base", "1.23.5"),
        # Behind the garbage of that line (the subject) the record is still read.
        ("download", "pandas", "1.5.2"),
        ("download", "mkl", "2021.4.0"),
        ("download", "pandas", "1.5.2"),
        ("download", "numpy-base", "1.23.5"),
    ]
    first = records[0]
    assert first.bytes_total == 11_900_000
    assert first.percent == pytest.approx(7.9953)
    assert first.bytes_done == round(11_900_000 * 0.079953)
    assert first.message.startswith('{"fetch":"pandas-1.5.2')
    # The same stream without newlines: one "line" holding every record.
    assert parse_tool_line("conda", text.replace("\n", "")) == records


def test_conda_4_1_fetch_in_bytes_then_name_records_then_the_final_document():
    records = parse_all(
        "conda",
        recorded(
            "conda-4.1.x_install-json_fetch-and-name-records_final-document_conda-conda-3026_partial.txt"
        ),
    )
    fetches = records[:4]
    assert {(r.action, r.package, r.version, r.bytes_total) for r in fetches} == {
        ("download", "numpy", "1.11.1", 3241321)
    }
    assert fetches[0].bytes_done == 3227648
    assert fetches[0].percent == pytest.approx(3227648 / 3241321 * 100)
    assert fetches[-1].percent == 100.0
    rest = records[4:]
    assert [r.action for r in rest] == ["transaction"] * 10  # the JSON document gives nothing
    assert [r.package for r in rest if r.package] == ["numpy", "numpy", "numpy", "conda"]
    assert rest[-1].percent == 100.0


def test_conda_4_2_link_records_count_up_to_maxval():
    records = parse_all(
        "conda", recorded("conda-4.2.x_env-create-json_text-and-name-records_conda-conda-3536.txt")
    )
    assert [r.action for r in records[:2]] == ["solve", "solve"]
    linking = records[2:]
    assert len(linking) == 12
    assert linking[1].package == "openssl"
    assert linking[7].package == "python"
    assert linking[7].percent == pytest.approx(60.0)
    assert linking[-1].percent == 100.0


def test_conda_final_json_document_gives_nothing():
    records = parse_all("conda", recorded("conda-4.3.19_create-json_final-document_conda-conda-5384.txt"))
    assert [brief(r) for r in records] == [("solve",)]  # only the stray text line before it


def test_conda_text_steps_then_pip_subprocess_lines():
    records = parse_all(
        "conda", recorded("conda_env-create_done-lines-then-pip-subprocess_xl-sr-CAL-32_partial.txt")
    )
    assert [brief(r) for r in records] == [
        ("solve",),
        ("solve",),
        ("transaction",),
        ("transaction",),
        ("transaction",),
        ("resolve", "attrs", "19.1.0"),
        ("download", "attrs", "19.1.0"),  # "Using cached https://.../attrs-19.1.0-py2.py3-none-any.whl"
        ("resolve", "backcall", "0.1.0"),
        ("installed", "numpy", "1.16.4"),  # "Requirement already up-to-date"
        ("resolve", "bleach", "3.1.0"),
        ("download", "bleach", "3.1.0"),
        ("resolve", "cycler", "0.10.0"),
    ]


def test_conda_metadata_retry_and_killed_lines_are_solving():
    records = parse_all("conda", recorded("conda_create_current-repodata-retry_killed_conda-conda-9728.txt"))
    assert [r.action for r in records] == ["solve", "solve", "solve"]


def test_pip_metadata_only_downloads_belong_to_resolving():
    name = "conda-24.3.0_env-create-json_pip-subprocess-metadata-lines_conda-conda-13835_partial.txt"
    records = parse_all("conda", recorded(name))
    assert [brief(r) for r in records] == [
        ("resolve", "httpx", "0.27.0"),
        ("resolve", "httpx", "0.27.0"),
        ("resolve", "anyio"),
        ("resolve", "anyio", "4.3.0"),
        ("resolve", "certifi"),
        ("resolve", "certifi", "2024.2.2"),
    ]
    assert records[1].bytes_total == 7200


def test_micromamba_repodata_lines_are_solving_and_the_plan_header_is_quiet():
    name = "micromamba_create-dry-run_banner-repodata-plan-header_nixos-nixpkgs-249259_partial.txt"
    records = parse_all("micromamba", recorded(name))
    assert [r.action for r in records] == ["solve"] * 6
    assert all(r.package is None for r in records)
    assert records[-1].bytes_total == 33_700_000
    assert records[-1].percent == 100.0


def test_micromamba_plan_summary_and_package_downloads():
    name = "micromamba_create_plan-tail-summary-transaction-downloads_oobabooga-textgen-923_partial.txt"
    records = parse_all("micromamba", recorded(name))
    assert [brief(r) for r in records[:5]] == [
        ("resolve", "xz", "5.2.6"),
        ("resolve", "zstd", "1.5.2"),
        ("resolve", None, None, 123),
        ("download",),  # Total download: 3GB
        ("transaction",),  # Transaction starting
    ]
    assert records[0].bytes_total == 218_000
    assert records[3].bytes_total == 3 * 10**9
    downloads = records[5:]
    assert len(downloads) == 11
    assert {r.action for r in downloads} == {"download"}
    ucrt = next(r for r in downloads if r.package == "ucrt")
    assert (ucrt.bytes_done, ucrt.bytes_total, ucrt.percent) == (1_300_000, 1_300_000, 100.0)


def test_micromamba_linking_and_transaction_finished():
    name = "micromamba_install_linking-transaction-finished-then-update-using-cache_mamba-org-mamba-3496_partial.txt"
    records = parse_all("micromamba", recorded(name))
    links = [r for r in records if r.action == "link"]
    assert len(links) == 22
    assert (links[0].package, links[0].version) == ("libcurl", "8.9.1")
    assert (links[3].package, links[3].version) == ("libcblas", "3.9.0")  # build 24_osxarm64_openblas
    assert (links[-1].package, links[-1].version) == ("conda-libmamba-solver", "24.9.0")
    finished = records[22]
    assert (finished.action, finished.percent) == ("transaction", 100.0)
    # The shell prompt lines in between give nothing; then the channels "Using cache".
    assert [r.action for r in records[23:]] == ["solve"] * 5


def test_micromamba_cached_plan_rows_and_linking():
    records = parse_all(
        "micromamba", recorded("micromamba_create_plan-tail-summary-linking_mamba-org-mamba-2065_partial.txt")
    )
    rows = records[:9]
    assert {r.action for r in rows} == {"resolve"}
    assert all(r.bytes_total is None for r in rows)  # "Cached"
    assert (rows[1].package, rows[1].version) == ("x264", "1!161.3030")  # an epoch
    assert [brief(r) for r in records[9:12]] == [
        ("resolve", None, None, 172),
        ("download",),
        ("transaction",),
    ]
    assert records[10].bytes_total == 0  # "Total download: 0 B"
    assert [r.package for r in records[12:]] == [
        "llvm-openmp",
        "libffi",
        "libzlib",
        "ncurses",
        "xz",
        "ca-certificates",
        "libiconv",
    ]


@pytest.mark.parametrize(
    ("tool", "name", "rows", "first_size"),
    [
        ("mamba", "mamba-2.x_create_using-cache-plan_mamba-org-mamba-3712_partial.txt", 9, None),
        (
            "micromamba",
            "micromamba-2.0.0rc0_env-update_repodata-plan-with-sizes_mamba-org-mamba-3354_partial.txt",
            10,
            3000,
        ),
    ],
)
def test_mamba_2_channels_then_plan_rows(tool: str, name: str, rows: int, first_size: int | None):
    records = parse_all(tool, recorded(name))
    assert [r.action for r in records] == ["solve", "solve"] + ["resolve"] * rows
    assert records[2].package == "_libgcc_mutex"
    assert records[2].bytes_total == first_size
    assert records[5].package == "ca-certificates"


@pytest.mark.parametrize("name", sorted(p.name for p in RECORDED.glob("*.txt")))
def test_every_recording_parses_with_every_tool_without_raising(name: str):
    text = caret_nul(recorded(name))
    for tool in TOOLS:
        for record in parse_all(tool, text):
            assert record.action in ACTIONS
            json.dumps(to_json(EnvProgress.of(record, "install")), allow_nan=False)


def test_sources_md_names_every_recording():
    sources = (RECORDED / "SOURCES.md").read_text(encoding="utf-8")
    for path in RECORDED.glob("*.txt"):
        assert path.name in sources


# --- one line of each kind ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("tool", "line", "expected"),
    [
        ("pip", "Collecting torch==2.13.0", ToolProgress("resolve", "torch", "2.13.0")),
        ("pip", "Collecting PyYAML>=6 (from -r req.txt (line 3))", ToolProgress("resolve", "pyyaml")),
        (
            "pip",
            "  Downloading torch-2.13.0-cp311-cp311-manylinux_2_28_x86_64.whl (200.1 MB)",
            ToolProgress("download", "torch", "2.13.0", bytes_total=200_100_000),
        ),
        (
            "pip",
            "Downloading https://download.pytorch.org/whl/cu126/torch-2.9.1%2Bcu126-cp312-cp312-win_amd64.whl (2.9 GB)",
            ToolProgress("download", "torch", "2.9.1+cu126", bytes_total=2_900_000_000),
        ),
        (
            "pip",
            "Processing ./wheels/torch-2.13.0+cpu-cp311-cp311-linux_x86_64.whl",
            ToolProgress("resolve", "torch", "2.13.0+cpu"),
        ),
        (
            "pip",
            "Processing /abs/wheels/Demo_Pkg-1.0-py3-none-any.whl (from x)",
            ToolProgress("resolve", "demo-pkg", "1.0"),
        ),
        ("pip", "Processing /abs/path.whl", ToolProgress("resolve")),
        (
            "pip",
            "Requirement already satisfied: six in ./env/lib/python3.11/site-packages (1.16.0)",
            ToolProgress("installed", "six", "1.16.0"),
        ),
        ("pip", "Installing collected packages: a, b, c", ToolProgress("install", count=3)),
        ("pip", "Building wheel for x (pyproject.toml): started", ToolProgress("build", "x")),
        ("pip", "  Building wheel for x (setup.py) ... done", ToolProgress("build", "x", percent=100.0)),
        (
            "pip",
            "Progress 1234 of 5678",
            ToolProgress("download", bytes_done=1234, bytes_total=5678, percent=1234 / 5678 * 100),
        ),
        ("pip", "Progress 100 of 0", ToolProgress("download", bytes_done=100)),  # size unknown
        (
            "pip",
            "  Using cached six-1.16.0-py2.py3-none-any.whl (11 kB)",
            ToolProgress("download", "six", "1.16.0", None, 11_000, 11_000, 100.0),
        ),
        (
            "uv",
            "Using CPython 3.11.7 interpreter at: /usr/bin/python3",
            ToolProgress("resolve", "cpython", "3.11.7"),
        ),
        ("uv", "Creating virtual environment at: env", ToolProgress("install")),
        ("uv", "Resolved 10 packages in 12ms", ToolProgress("resolve", count=10)),
        ("uv", "Resolved 1 package in 2ms", ToolProgress("resolve", count=1)),
        ("uv", "Prepared 3 packages in 1.21s", ToolProgress("download", count=3)),
        ("uv", "Installed 10 packages in 50ms", ToolProgress("installed", count=10)),
        ("uv", "Audited 3 packages in 0.05ms", ToolProgress("installed", count=3)),
        ("uv", " + torch==2.13.0+cpu", ToolProgress("installed", "torch", "2.13.0+cpu")),
        ("uv", " ~ six==1.16.0", ToolProgress("installed", "six", "1.16.0")),
        ("uv", "Downloading torch (200.0MiB)", ToolProgress("download", "torch", bytes_total=200 * 2**20)),
        ("uv", " Downloaded torch", ToolProgress("download", "torch", percent=100.0)),
        ("uv", "   Building foo @ file:///home/me/foo", ToolProgress("build", "foo")),
        ("uv", "      Built foo @ file:///home/me/foo", ToolProgress("build", "foo", percent=100.0)),
        ("uv", "      Built foo==1.0", ToolProgress("build", "foo", "1.0", percent=100.0)),
        (
            "conda",
            '{"fetch": "pytorch-2.1.0 | 100 MB", "finished": false, "maxval": 1, "progress": 0.5}',
            ToolProgress("download", "pytorch", "2.1.0", None, 50_000_000, 100_000_000, 50.0),
        ),
        (
            "conda",
            '\x00{"fetch":"pytorch-2.1.0 | 100 MB | ","finished":true,"maxval":1,"progress":1}',
            ToolProgress("download", "pytorch", "2.1.0", None, 100_000_000, 100_000_000, 100.0),
        ),
        (  # more than maxval: clamped
            "conda",
            '{"fetch":"x-1.0 | 1 kB | ","finished":false,"maxval":1,"progress":2.5}',
            ToolProgress("download", "x", "1.0", None, 1000, 1000, 100.0),
        ),
        (  # maxval 0: no percent rather than a division by zero
            "conda",
            '{"fetch":"x-1.0","finished":false,"maxval":0,"progress":0}',
            ToolProgress("download", "x", "1.0"),
        ),
        ("conda", "Collecting package metadata (repodata.json): done", ToolProgress("solve")),
        ("conda", "Solving environment: done", ToolProgress("solve")),
        ("conda", "Preparing transaction: done", ToolProgress("transaction")),
        ("conda", "Verifying transaction: done", ToolProgress("transaction")),
        ("conda", "Executing transaction: done", ToolProgress("transaction")),
        ("conda", "Extracting packages ...", ToolProgress("extract")),
        (
            "conda",
            "numpy-1.11.1         | 6.1 MB    | ########## | 100% ",
            ToolProgress("download", "numpy", "1.11.1", None, None, 6_100_000, 100.0),
        ),
        ("micromamba", "Linking python-3.11.7-hab00c5b_1_cpython", ToolProgress("link", "python", "3.11.7")),
        (
            "micromamba",
            "Linking ld_impl_linux-64-2.40-h41732ed_0",
            ToolProgress("link", "ld_impl_linux-64", "2.40"),
        ),
        ("micromamba", "Transaction starting", ToolProgress("transaction")),
        (
            "micromamba",
            "pytorch  100.0MB  conda-forge/linux-64  Using cache",
            ToolProgress("download", "pytorch", None, None, 100_000_000, 100_000_000, 100.0),
        ),
        (
            "mamba",
            "conda-forge/linux-64                                        Using cache",
            ToolProgress("solve", percent=100.0),
        ),
    ],
)
def test_line(tool: str, line: str, expected: ToolProgress):
    (record,) = parse_tool_line(tool, line)
    assert record == ToolProgress(
        expected.action,
        expected.package,
        expected.version,
        expected.count,
        expected.bytes_done,
        expected.bytes_total,
        expected.percent,
        line.replace("\x00", "").strip(),
    )


def test_successfully_installed_gives_the_count_then_each_package():
    records = parse_tool_line("pip", "Successfully installed a-1.0 b-2.0 torch-2.13.0+cpu")
    assert [brief(r) for r in records] == [
        ("installed", None, None, 3),
        ("installed", "a", "1.0"),
        ("installed", "b", "2.0"),
        ("installed", "torch", "2.13.0+cpu"),
    ]


def test_several_nul_separated_records_on_one_line():
    record = '{"fetch":"a-1.0 | 1 kB | ","finished":false,"maxval":1,"progress":0.25}\n'
    records = parse_tool_line("conda", (record + "\x00") * 3)
    assert len(records) == 3
    assert {r.percent for r in records} == {25.0}


@pytest.mark.parametrize(
    "line",
    [
        "Looking in links: /tmp/wheels",
        "Looking in indexes: https://pypi.org/simple",
        "Activate with: source env/bin/activate",
        "Uninstalled 1 package in 0.58ms",
        " - demo-alpha==1.0.0",
        "ERROR: No matching distribution found for torch==2.13.0",
        '{"success": true, "actions": {"LINK": [], "PREFIX": "/x"}}',
        '{"error": "boom", "exception_name": "PackagesNotFoundError"}',
        "{",
        '  "actions": {',
        "Transaction",
        "  Install:",
        "",
        "   ",
        "\x00",
    ],
)
def test_lines_that_are_not_progress(line: str):
    for tool in TOOLS:
        assert parse_tool_line(tool, line) == []


def test_unknown_tool_gives_nothing():
    assert parse_tool_line("poetry", "Resolved 10 packages in 12ms") == []


def test_colour_codes_are_ignored():
    (record,) = parse_tool_line("uv", "\x1b[1m\x1b[32mResolved\x1b[0m 2 packages in 3ms")
    assert (record.action, record.count, record.message) == ("resolve", 2, "Resolved 2 packages in 3ms")


def test_progress_action_is_checked():
    with pytest.raises(ValueError, match="unknown progress action"):
        ToolProgress("dance")
    with pytest.raises(ValueError, match="percent"):
        ToolProgress("download", percent=101.0)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("200.1 MB", 200_100_000),
        ("12.0MiB", 12 * 2**20),
        ("5 kB", 5000),
        ("5 KB", 5000),
        ("3 KiB", 3072),
        ("1.2 GB", 1_200_000_000),
        ("2 GiB", 2 * 2**30),
        ("3GB", 3_000_000_000),
        ("0 B", 0),
        ("17kB", 17_000),
        ("Cached", None),
        ("", None),
        ("12 parsecs", None),
        ("9" * 400 + " GB", None),  # not finite
    ],
)
def test_size_to_bytes(text: str, expected: int | None):
    assert size_to_bytes(text) == expected


def test_progress_event_keeps_every_field():
    event = to_json(
        EnvProgress.of(ToolProgress("installed", count=3, message="Installed 3 packages in 3ms"), "install")
    )
    assert list(event) == [
        "event", "phase", "action", "package", "version", "count", "bytes_done", "bytes_total", "percent", "message"
    ]  # fmt: skip
    assert event == {
        "event": "progress",
        "phase": "install",
        "action": "installed",
        "package": None,
        "version": None,
        "count": 3,
        "bytes_done": None,
        "bytes_total": None,
        "percent": None,
        "message": "Installed 3 packages in 3ms",
    }
    assert json.loads(json.dumps(event))["package"] is None


# --- whatever comes in, nothing raises ---------------------------------------------------

_numbers = st.one_of(
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(string.digits + ".-e", max_size=30),
)
_json_values = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.integers() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)
_templates = st.one_of(
    st.builds("Progress {} of {}".format, _numbers, _numbers),
    st.builds("Resolved {} packages in 1ms".format, _numbers),
    st.builds("Successfully installed {}".format, st.text(max_size=40)),
    st.builds("Installing collected packages: {}".format, st.text(max_size=40)),
    st.builds(" + {}=={}".format, st.text(max_size=10), st.text(max_size=10)),
    st.builds("Linking {}".format, st.text(max_size=30)),
    st.builds("Downloading {} ({})".format, st.text(max_size=20), st.text(max_size=12)),
    st.builds("  + {} {} {} {} {}".format, *(st.text(max_size=8) for _ in range(5))),
    st.builds("{} {} @ 1MB/s 0.1s".format, st.text(max_size=12), st.text(max_size=10)),
    st.builds(
        '\x00{{"fetch":"{}","finished":{},"maxval":{},"progress":{}}}\n'.format,
        st.text(max_size=30),
        st.sampled_from(["true", "false", "1", "null"]),
        _numbers,
        _numbers,
    ),
    st.builds(lambda v: "\x00" + json.dumps(v), _json_values),
    st.builds(
        json.dumps,
        st.fixed_dictionaries(
            {"fetch": st.text(max_size=20)},
            optional={
                "finished": _json_values,
                "maxval": _json_values,
                "progress": _json_values,
                "name": _json_values,
            },
        ),
    ),
)
_lines = st.one_of(
    st.text(max_size=300),
    st.binary(max_size=300).map(lambda raw: raw.decode("utf-8", "replace")),
    st.binary(max_size=300).map(lambda raw: raw.decode("latin-1")),
    _templates,
    st.lists(_templates, max_size=4).map("\x00".join),
)


@settings(max_examples=examples(400), deadline=None)
@given(tool=st.one_of(st.sampled_from(TOOLS), st.text(max_size=10)), line=_lines)
def test_any_line_parses_without_raising(tool: str, line: str):
    for record in parse_tool_line(tool, line):
        assert record.action in ACTIONS
        assert record.percent is None or 0.0 <= record.percent <= 100.0
        json.dumps(to_json(EnvProgress.of(record, "install")), allow_nan=False)


def test_deeply_nested_json_does_not_raise():
    assert parse_tool_line("conda", "{" + '"a":[' * 100_000) == []
    assert parse_tool_line("conda", '{"a":' + "[" * 100_000 + "]" * 100_000 + "}") == []


def test_conda_text_download_table():
    records = parse_all("conda", recorded("conda-4.5_text-download-table_conda-conda-7191.txt"))
    assert [brief(r) for r in records[:2]] == [("download",), ("download", "wheel", "0.31.0")]
    assert records[1].bytes_total == 62_000  # "62 KB"
    assert records[1].percent == 100.0
    pip = records[-1]
    assert (pip.package, pip.version, pip.bytes_total, pip.percent) == ("pip", "9.0.3", 2_300_000, 67.0)
