"""`gpuwizard recommend` through its entry point: the acceptance machines, bad input, refresh."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from builders.signed_bundles import (
    BAD_BUNDLES,
    NEW_VERSION,
    NEWER,
    Signer,
    make_signer,
    publish,
    signed,
    trusting,
)
from gpuwizard.workflow.compat.data import load_bundled
from harness.http_server import Site, serve, trust_test_ca

ENTRY_POINT = shutil.which("gpuwizard", path=str(Path(sys.executable).parent)) or "gpuwizard"
REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"
NO_GPU = Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))
WINDOWS_TWO_CUDA = Path(
    str(resources.files("gpuwizard.resources").joinpath("samples", "windows-rtx2080super-two-cuda.json"))
)
SCHEMA = json.loads(
    resources.files("gpuwizard.resources").joinpath("schemas/recommendation-1.schema.json").read_text()
)


def run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [ENTRY_POINT, "recommend", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


def recommendation(*args: str) -> dict:
    done = run(*args, "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    jsonschema.validate(data, SCHEMA)
    return data


@pytest.mark.parametrize("framework", ["pytorch", "tensorflow"])
def test_windows_rtx3060_driver_546(framework: str):
    data = recommendation("--framework", framework, "--system", str(REPORTS / "windows-rtx3060-546.33.json"))
    assert data["framework"] == framework and not data["driver_update_required"]
    assert data["some_release_gpu_supported"]
    if framework == "pytorch":
        assert data["gpu_supported"]
        assert data["plan"]["torch_variant"] == "cu126"
        assert data["plan"]["pip"]["index_url"] == "https://download.pytorch.org/whl/cu126"
        assert data["plan"]["min_driver"]["windows"] == "528.33"
    else:
        assert data["plan"]["framework_version"] == "2.10.1" and data["plan"]["torch_variant"] is None
        assert "TF_NATIVE_WINDOWS_GPU_ENDED" in {f["code"] for f in data["findings"]}
        # TensorFlow 2.10's newest code is PTX for 8.0: the RTX 3060 (8.6) runs it only through the
        # JIT, which the plan's gpu_supported does not count (issue 36).
        assert not data["gpu_supported"] and "GPU_PTX_ONLY" in {f["code"] for f in data["findings"]}


@pytest.mark.parametrize("framework", ["pytorch", "tensorflow"])
def test_linux_tesla_k80_driver_470(framework: str):
    data = recommendation("--framework", framework, "--system", str(REPORTS / "linux-k80-470.256.02.json"))
    assert not data["plan"]["cpu_only"] and not data["driver_update_required"]
    assert data["cuda_numbers"]["driver_max"] == "11.4"
    if framework == "pytorch":
        assert data["plan"]["torch_variant"] == "cu118"
        assert "GPU_ARCH_UNSUPPORTED" in {f["code"] for f in data["findings"]}
    else:
        assert data["plan"]["cuda"].startswith("11.")


def test_windows_gtx1080_driver_531_wanting_tensorflow_2_10():
    data = recommendation(
        "--framework",
        "tensorflow",
        "--version",
        "2.10",
        "--system",
        str(REPORTS / "windows-gtx1080-531.79.json"),
    )
    plan = data["plan"]
    assert data["gpu_supported"] and plan["framework_version"] == "2.10.1" and plan["cuda"] == "11.2"
    assert plan["manager"] == "conda" and "cudatoolkit=11.2" in plan["conda"]["packages"]
    assert "cudart64_110.dll" in plan["dlls_expected"]


@pytest.mark.parametrize("framework", ["pytorch", "tensorflow", "tensorflow-gpu"])
def test_a_machine_without_gpu(framework: str):
    data = recommendation("--framework", framework, "--system", str(NO_GPU))
    assert not data["gpu_supported"] and data["plan"]["cpu_only"] and data["plan"]["min_driver"] is None
    assert "NO_NVIDIA_GPU" in {f["code"] for f in data["findings"]}
    assert data["framework"] == ("pytorch" if framework == "pytorch" else "tensorflow")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--framework", "caffe"], "unknown framework 'caffe'"),
        (["--framework", "pytorch", "--version", "two"], "'two' is not a framework version"),
        (["--framework", "pytorch", "--python", "2.7"], "'2.7' is not a Python version"),
        (["--framework", "pytorch", "--manager", "pip"], "invalid choice: 'pip'"),
        ([], "the following arguments are required: --framework"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], says: str):
    done = run(*args, "--system", str(NO_GPU))
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and says in done.stderr, done.stderr


def test_a_malformed_system_file(tmp_path: Path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema": "gpuwizard.system/1", "driver": {"version": 546}}')
    done = run("--framework", "pytorch", "--system", str(bad))
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "at driver/version" in done.stderr


def test_offline_answer_needs_neither_network_nor_qt_nor_requests():
    code = (
        "import sys, io, contextlib\nfrom gpuwizard.cli.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    code = main(['recommend', '--framework', 'pytorch', '--system', {str(NO_GPU)!r}, '--json'])\n"
        "print(code, sorted(m for m in sys.modules if m.split('.')[0] in ('PySide6', 'requests', 'urllib3')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == "0 []"


def test_text_output_explains_the_three_cuda_numbers():
    done = run("--framework", "pytorch", "--system", str(REPORTS / "windows-rtx3060-546.33.json"))
    assert done.returncode == 0
    for text in (
        "CUDA: three different numbers",
        "your driver supports   up to CUDA 12.3",
        "toolkits on disk       11.2",
        "this build uses        CUDA 12.6",
        "pip install torch==",
        "--index-url https://download.pytorch.org/whl/cu126",
    ):
        assert text in done.stdout, text


@pytest.mark.parametrize(
    ("system", "args", "wanted", "unwanted"),
    [
        # Native Windows: the py launcher and the cmd and PowerShell activation scripts.
        (
            REPORTS / "windows-gtx1060-566.36.json",
            ["--framework", "pytorch"],
            ["py -3.10 -m venv ENV", r"ENV\Scripts\activate.bat", r"ENV\Scripts\Activate.ps1"],
            ["python3.", "source ", "bin/activate", "uv venv"],
        ),
        (
            REPORTS / "linux-k80-470.256.02.json",
            ["--framework", "pytorch"],
            ["python3.10 -m venv ENV", "source ENV/bin/activate   (bash, zsh)"],
            ["py -3", "Scripts", "PowerShell", "uv venv"],
        ),
        # TensorFlow 2.15 on this Windows machine runs inside WSL 2: Linux commands.
        (
            WINDOWS_TWO_CUDA,
            ["--framework", "tensorflow", "--version", "2.15"],
            [
                "(Windows) wsl -d Ubuntu-24.04",
                "(Ubuntu-24.04) ~/.local/bin/uv venv --python 3.",
                "(Ubuntu-24.04) source ENV/bin/activate",
            ],
            ["py -3", "Scripts", "PowerShell", "python3."],
        ),
    ],
    ids=["windows", "linux", "wsl2"],
)
def test_text_output_commands_are_for_the_plans_platform(
    system: Path, args: list[str], wanted: list[str], unwanted: list[str]
):
    done = run(*args, "--system", str(system))
    assert done.returncode == 0, done.stderr
    plan = done.stdout.split("\nPlan\n", 1)[1].split("\n  Build", 1)[0]
    for text in wanted:
        assert text in plan, text
    for text in unwanted:
        assert text not in plan, text


def refresh_env(site: Site, signer: Signer, home: Path) -> dict[str, str]:
    """Trust the test's key and the https server on 127.0.0.1, ask no real index."""
    site.put("/pypi/torch/json", json.dumps({"info": {"version": "9.1.0"}}))
    site.put("/pypi/tensorflow/json", json.dumps({"info": {"version": "2.21.0"}}))
    return {
        **trusting(signer),
        "GPUWIZARD_PYPI_URL": f"{site.url}/pypi",
        "GPUWIZARD_TORCH_INDEX_URL": f"{site.url}/whl",
        "GPUWIZARD_HOME": str(home),
    }


def recommend_refreshing(url: str, env: dict[str, str]) -> dict:
    done = run(
        "--framework", "pytorch", "--system", str(REPORTS / "windows-rtx3060-546.33.json"), "--json",
        "--refresh", "--compat-url", url, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_refresh_through_the_command(tmp_path: Path):
    signer = make_signer(tmp_path / "keys")
    with serve(tls=True) as site:
        env = refresh_env(site, signer, tmp_path / "home")
        data = recommend_refreshing(publish(site, signed(signer)), env)
    assert data["plan"]["framework_version"] == NEW_VERSION
    assert data["compat_data"].startswith(f"refreshed data of {NEWER}")
    assert any(note.startswith("Compatibility data refreshed") for note in data["notes"])
    # The next run, offline, still uses the cached copy.
    later = run(
        "--framework", "pytorch", "--system", str(REPORTS / "windows-rtx3060-546.33.json"), "--json", env=env
    )
    assert json.loads(later.stdout)["plan"]["framework_version"] == NEW_VERSION


@pytest.mark.parametrize("case", sorted(BAD_BUNDLES))
def test_a_refused_bundle_leaves_recommend_on_the_bundled_data(case: str, tmp_path: Path):
    signer = make_signer(tmp_path / "keys")
    make, says = BAD_BUNDLES[case]
    with serve(tls=True) as site:
        env = refresh_env(site, signer, tmp_path / "home")
        url = publish(site, make(signer, tmp_path))
        data = recommend_refreshing(url, env)
    assert data["compat_data"] == "bundled"
    assert data["plan"]["framework_version"] != NEW_VERSION
    assert data["plan"]["pip"]["index_url"].startswith("https://download.pytorch.org/whl/")
    assert [
        note
        for note in data["notes"]
        if note.startswith(f"The compatibility data from {url} is refused: {says}")
    ]
    assert not (tmp_path / "home" / "cache" / "compat" / "bundle.json").exists()


def test_plain_http_is_refused_even_signed(tmp_path: Path):
    # The case: over http, with a matching .sha256 (and here even a valid signature);
    # the PyPI and PyTorch index overrides point at the same http site and are refused too.
    signer = make_signer(tmp_path / "keys")
    with serve() as site:
        env = refresh_env(site, signer, tmp_path / "home")
        url = publish(site, signed(signer))
        data = recommend_refreshing(url, env)
        seen = list(site.seen)
    assert data["compat_data"] == "bundled" and data["plan"]["framework_version"] != NEW_VERSION
    assert f"The compatibility data from {url} is refused: its URL is not https://" in " ".join(data["notes"])
    assert any(
        note.startswith(
            f"Could not ask PyPI about torch ({site.url}/pypi/torch/json: refused, not an https://"
        )
        for note in data["notes"]
    )
    assert seen == []
    assert not (tmp_path / "home" / "cache" / "compat" / "bundle.json").exists()


def test_an_oversized_bundle_is_a_one_line_note(tmp_path: Path):
    signer = make_signer(tmp_path / "keys")
    with serve(tls=True) as site:
        env = refresh_env(site, signer, tmp_path / "home")
        site.put("/compat/bundle.json", b"{" + b" " * (2 << 20) + b"}", chunk=1 << 16)  # 2 MiB, chunked
        url = f"{site.url}/compat/bundle.json"
        done = run(
            "--framework", "pytorch", "--system", str(REPORTS / "windows-rtx3060-546.33.json"), "--json",
            "--refresh", "--compat-url", url, env=env,
        )  # fmt: skip
    assert done.returncode == 0 and done.stderr == ""
    data = json.loads(done.stdout)
    assert f"Could not refresh the compatibility data ({url}: answer larger than the 1 MiB allowed); " in (
        " ".join(data["notes"])
    )
    assert data["compat_data"] == "bundled"


def pypi_site(site: Site, torch: list[str]) -> dict[str, str]:
    """A PyPI JSON API on 127.0.0.1 that publishes ``torch`` and the data's TensorFlow releases."""
    compat = load_bundled()
    for package, versions in (("torch", torch), ("tensorflow", [r.latest for r in compat.tensorflow])):
        releases = {
            version: [{"filename": f"{package}-{version}.whl", "yanked": False}] for version in versions
        }
        site.put(
            f"/pypi/{package}/json", json.dumps({"info": {"version": versions[0]}, "releases": releases})
        )
    return {"GPUWIZARD_PYPI_URL": f"{site.url}/pypi", **trust_test_ca()}


def test_a_version_beyond_the_data_that_pypi_publishes_gets_the_newest_verified_plan():
    with serve(tls=True) as site:
        env = pypi_site(site, ["2.16.0", "2.15.0", "2.14.1"])
        done = run("--framework", "pytorch", "--version", "2.16", "--system", str(NO_GPU), "--json", env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["plan"]["framework_version"] == "2.15.0" and data["gpu_supported"] is False
    assert "RELEASE_NOT_VERIFIED" in {f["code"] for f in data["findings"]}
    assert data["data_freshness"]["newer_releases_unverified"] == ["2.16.0"]
    assert data["data_freshness"]["index"] == env["GPUWIZARD_PYPI_URL"]


def test_a_version_pypi_does_not_publish_is_bad_input():
    with serve(tls=True) as site:
        env = pypi_site(site, ["2.15.0", "2.14.1"])
        done = run("--framework", "tensorflow", "--version", "9.9", "--system", str(NO_GPU), env=env)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.splitlines()) == 1 and "TensorFlow 9.9 is not a release" in done.stderr


def test_a_version_beyond_the_data_offline_is_planned_with_a_warning():
    env = {"GPUWIZARD_PYPI_URL": "https://127.0.0.1:9/pypi"}  # nothing listens on the discard port
    done = run("--framework", "pytorch", "--version", "2.16", "--system", str(NO_GPU), "--json", env=env)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    finding = next(f for f in data["findings"] if f["code"] == "RELEASE_NOT_VERIFIED")
    assert "could not be asked" in finding["message"] and data["plan"]["framework_version"] == "2.15.0"


def test_package_sources_say_where_the_packages_would_come_from_and_why():
    # Nothing is asked over the network: recommend only says which indexes an install would use.
    plain = recommendation("--framework", "pytorch", "--system", str(NO_GPU))["package_sources"]
    assert [(index["url"], index["origin"], index["needed_for"]) for index in plain["indexes"]] == [
        ("https://download.pytorch.org/whl/cpu", "plan", "packages")
    ]  # the sample machine has no uv: pip, which needs no index for pip itself
    mirrors = {
        "GPUWIZARD_PYTORCH_INDEX_URL": "https://ana:s3cret@torch-mirror.example/{variant}/simple",
        "PIP_INDEX_URL": "https://pypi-mirror.example/simple",
    }
    done = run("--framework", "pytorch", "--system", str(NO_GPU), "--json", env=mirrors)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    sources, torch = data["package_sources"], data["plan"]["pip"]["requirements"][0]
    assert sources["indexes"][0] == {
        "url": "https://***@torch-mirror.example/cpu/simple",
        "role": "pytorch",
        "origin": "GPUWIZARD_PYTORCH_INDEX_URL",
        "mirror": True,
        "needed_for": "packages",
        "why": "your mirror of PyTorch's index, from GPUWIZARD_PYTORCH_INDEX_URL",
    }
    # A mirror with a login is given to pip in its variable, not on its command line (issue 33).
    assert (
        sources["install_command"]
        == "PIP_INDEX_URL=https://***@torch-mirror.example/cpu/simple pip install torch==2.15.0"
    )
    text = run("--framework", "pytorch", "--system", str(NO_GPU), env=mirrors)
    flat = " ".join(text.stdout.split())
    assert f"pip install {torch} --index-url https://***@torch-mirror.example/cpu/simple" in flat
    assert "(your mirror of PyTorch's index, from GPUWIZARD_PYTORCH_INDEX_URL)" in flat
    assert "s3cret" not in text.stdout + done.stdout


def test_a_mirror_setting_that_is_not_https_is_refused():
    done = run(
        "--framework", "tensorflow", "--system", str(NO_GPU), env={"PIP_INDEX_URL": "http://10.1.2.3/simple"}
    )
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "gpuwizard: error: PIP_INDEX_URL: http://10.1.2.3/simple is not an https:// URL "
        "(plain http is allowed only to this machine: localhost, 127.0.0.1, ::1)"
    ]
