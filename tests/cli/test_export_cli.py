"""`gpuwizard export` through its entry point: Dockerfile, environment.yml and requirements files.

Machines: an RTX 3060 on Linux and on Windows (TensorFlow is planned for Linux in the container),
a machine without a GPU (its requirements install for real from the local torch wheel folder)
and a Tesla K80 (Kepler: an older torch and CUDA 11.8). Every file is read back the way its tool
reads it: the Dockerfile by its instructions, environment.yml with a YAML parser, requirements
lines with ``packaging``; and what is written is checked against the bundled image table and
against ``gpuwizard recommend`` for the same machine.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
import yaml
from packaging.requirements import Requirement

from builders.reports import machine
from gpuwizard.core.machine.system_report import report_to_json
from gpuwizard.workflow.state.env_registry import EnvRecord, save_record
from harness.entry_point import gpuwizard

REPORTS = Path(__file__).parent.parent / "fixtures" / "reports"
WINDOWS_RTX = REPORTS / "windows-rtx3060-546.33.json"
WINDOWS_DRIVER_ONLY = REPORTS / "windows-gtx1060-566.36.json"
K80 = REPORTS / "linux-k80-470.256.02.json"
NO_GPU = Path(str(resources.files("gpuwizard.resources").joinpath("samples", "no-gpu.json")))
IMAGES = json.loads(resources.files("gpuwizard.resources").joinpath("compat/docker_images.json").read_text())
TORCH_INDEX = "https://download.pytorch.org/whl/"


def export(out: Path, fmt: str, *args: str) -> str:
    """Run export; assert the one-line answer; return the file's text."""
    done = gpuwizard("export", "--format", fmt, "--out", str(out), *args)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert done.stdout.count("\n") == 1 and done.stdout.startswith(f"{out}: "), done.stdout
    return out.read_text(encoding="utf-8")


def recommended(system: Path, *args: str) -> dict[str, Any]:
    done = gpuwizard("recommend", "--system", str(system), "--json", *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["plan"]


@pytest.fixture
def linux_rtx(tmp_path: Path) -> Path:
    path = tmp_path / "linux-rtx3060.json"
    report = machine(os="linux", gpus=[("NVIDIA GeForce RTX 3060", "8.6")], driver="560.94", python="3.11")
    path.write_text(json.dumps(report_to_json(report)))
    return path


# --- reading the files back ---------------------------------------------------------------------


def instructions(dockerfile: str) -> list[tuple[str, str]]:
    """(KEYWORD, arguments) of each instruction, continuation lines joined, comments left out."""
    found: list[tuple[str, str]] = []
    pending = ""
    for line in dockerfile.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        pending += line.rstrip("\\").strip() + " " if line.endswith("\\") else line.strip()
        if not line.endswith("\\"):
            keyword, _, rest = pending.partition(" ")
            found.append((keyword.upper(), rest.strip()))
            pending = ""
    assert not pending, "a continued line runs off the end"
    return found


def comments(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.startswith("#"))


def cuda_image_tags() -> set[str]:
    return {
        f"nvidia/cuda:{row['image_version']}-{row['flavour']}-ubuntu{ubuntu}"
        for row in IMAGES["nvidia_cuda"]
        for ubuntu in row["ubuntu"]
    }


def check_dockerfile(text: str) -> tuple[str, list[tuple[str, str]]]:
    """The structural rules every exported Dockerfile keeps; returns the base image and instructions."""
    steps = instructions(text)
    assert steps[0][0] == "FROM", steps[0]
    base = steps[0][1]
    assert re.fullmatch(r"[a-z0-9/._-]+:[A-Za-z0-9._-]+", base), base  # an explicit tag
    assert "latest" not in text.replace("--", " ").split() and ":latest" not in text
    keywords = [keyword for keyword, _ in steps]
    assert keywords.count("FROM") == 1 and "USER" in keywords
    assert dict(steps)["USER"] not in ("root", "0")
    env = " ".join(args for keyword, args in steps if keyword == "ENV")
    assert "PIP_NO_CACHE_DIR=1" in env
    assert "# Build: docker build -t " in text
    runs = [args for keyword, args in steps if keyword == "RUN"]
    assert any(run.startswith('python -c "import ') and "assert v ==" in run for run in runs), runs
    return base, steps


def pip_lines(lines: list[str]) -> tuple[list[str], list[Requirement]]:
    """Option lines and parsed requirements of a requirements file's lines (comments left out)."""
    options, requirements = [], []
    for line in lines:
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith("-"):
            options.append(line)
        else:
            requirements.append(Requirement(line))
    return options, requirements


# --- RTX 3060 on Linux --------------------------------------------------------------------------


def test_linux_rtx3060_pytorch_dockerfile_is_the_cuda_image_with_the_pinned_wheel(
    tmp_path: Path, linux_rtx: Path
):
    text = export(tmp_path / "Dockerfile", "dockerfile", "--framework", "pytorch", "--system", str(linux_rtx))
    base, steps = check_dockerfile(text)
    assert base in cuda_image_tags()
    plan = recommended(linux_rtx, "--framework", "pytorch")
    cuda = re.fullmatch(r"nvidia/cuda:([0-9]+\.[0-9]+)\.[0-9]+-cudnn.*-ubuntu24\.04", base)
    assert cuda, base  # Ubuntu 24.04: Python 3.12, which every recent torch supports
    variant = "cu" + cuda.group(1).replace(".", "")
    install = next(args for keyword, args in steps if keyword == "RUN" and "pip install" in args)
    pin = f"torch=={plan['framework_version']}+{variant}"
    assert f'--index-url {TORCH_INDEX}{variant} "{pin}"' in install
    assert f"assert v == '{plan['framework_version']}+{variant}'" in text
    assert (
        "# Run:   docker run --gpus all --rm -it pytorch-" in text and "torch.cuda.get_device_name(0)" in text
    )
    assert re.search(
        r"NVIDIA driver is the host's.*Linux [0-9.]+, Windows [0-9.]+ or newer \(this host has 560\.94\)",
        text,
    )


def test_linux_rtx3060_requirements_are_the_recommended_plan_pinned(tmp_path: Path, linux_rtx: Path):
    plan = recommended(linux_rtx, "--framework", "pytorch")
    text = export(
        tmp_path / "requirements.txt", "requirements", "--framework", "pytorch", "--system", str(linux_rtx)
    )
    options, requirements = pip_lines(text.splitlines())
    expected_index = plan["pip"]["index_url"]
    assert options == ([f"--index-url {expected_index}"] if expected_index else [])
    [torch] = requirements
    label = f"+{plan['torch_variant']}" if expected_index else ""
    assert (torch.name, str(torch.specifier)) == ("torch", f"=={plan['framework_version']}{label}")
    assert "# Install, with Python 3.11: python -m pip install -r requirements.txt" in text


def test_linux_rtx3060_tensorflow_environment_yml(tmp_path: Path, linux_rtx: Path):
    text = export(
        tmp_path / "environment.yml",
        "environment.yml",
        "--framework",
        "tensorflow",
        "--system",
        str(linux_rtx),
    )
    data = yaml.safe_load(text)
    plan = recommended(linux_rtx, "--framework", "tensorflow", "--manager", "conda")
    assert data["name"] == f"tensorflow-{plan['framework_version']}-gpu"
    assert data["channels"] == ["conda-forge", "nodefaults"]
    *conda, pip = data["dependencies"]
    assert conda == [f"python={plan['python']}", "pip"]
    [requirement] = pip_lines(pip["pip"])[1]
    assert (requirement.name, requirement.extras, str(requirement.specifier)) == (
        "tensorflow", {"and-cuda"}, f"=={plan['framework_version']}"
    )  # fmt: skip
    assert "# Create: conda env create -f environment.yml" in text


# --- RTX 3060 on Windows: the container is Linux ------------------------------------------------


def test_windows_rtx3060_tensorflow_dockerfile_is_planned_for_linux(tmp_path: Path):
    native = recommended(WINDOWS_RTX, "--framework", "tensorflow")
    assert native["framework_version"] == "2.10.1"  # on Windows itself: the last native GPU release
    text = export(
        tmp_path / "Dockerfile", "dockerfile", "--framework", "tensorflow", "--system", str(WINDOWS_RTX)
    )
    base, steps = check_dockerfile(text)
    newest = IMAGES["tensorflow_gpu"][0]["image_version"]
    assert base == f"tensorflow/tensorflow:{newest}-gpu"
    assert not any("pip install" in args for keyword, args in steps if keyword == "RUN")  # the image has it
    assert "TF_FORCE_GPU_ALLOW_GROWTH=true" in " ".join(args for keyword, args in steps if keyword == "ENV")
    notes = comments(text)
    assert "Planned for Linux, the container's OS, not for this Windows host" in notes
    assert "Docker Desktop runs it in WSL 2" in notes
    assert re.search(
        r"Windows 528\.33 or newer \(this host has 546\.33\)", notes
    )  # Windows' driver, TF's WSL floor
    assert "tf.config.list_physical_devices('GPU')" in notes and "docker run --gpus all" in notes
    assert "C:\\" not in text and ".dll" not in text  # Windows PATH entries and DLLs do not travel


def test_the_container_of_a_windows_host_runs_on_the_windows_driver(tmp_path: Path):
    """Driver 527.41 meets CUDA 12's Linux floor (525.60.13) but not its Windows one (528.33)."""
    images = {}
    for os_name in ("linux", "windows"):
        report = machine(os=os_name, gpus=[("NVIDIA GeForce RTX 3060", "8.6")], driver="527.41")
        system = tmp_path / f"{os_name}.json"
        system.write_text(json.dumps(report_to_json(report)))
        text = export(
            tmp_path / f"Dockerfile.{os_name}",
            "dockerfile",
            "--framework",
            "tensorflow",
            "--system",
            str(system),
        )
        images[os_name] = check_dockerfile(text)[0]
    assert (
        images["linux"] == f"tensorflow/tensorflow:{IMAGES['tensorflow_gpu'][0]['image_version']}-gpu"
    )  # CUDA 12.5
    assert images["windows"] == "tensorflow/tensorflow:2.14.0-gpu"  # CUDA 11.8: the newest this driver runs
    assert "With a driver 528.33 or newer, TensorFlow 2.21.0" in (tmp_path / "Dockerfile.windows").read_text()


def test_windows_rtx3060_tensorflow_environment_yml_takes_cuda_from_conda_forge(tmp_path: Path):
    text = export(
        tmp_path / "env.yml", "environment.yml", "--framework", "tensorflow", "--system", str(WINDOWS_RTX)
    )
    data = yaml.safe_load(text)
    assert data["dependencies"][:3] == ["python=3.10", "cudatoolkit=11.2", "cudnn=8.1.0"]
    assert data["dependencies"][-1] == {"pip": ["tensorflow==2.10.1", "numpy<1.24"]}
    assert "pytorch" not in data["channels"] and "defaults" not in data["channels"]


def test_windows_requirements_say_what_the_system_needs(tmp_path: Path):
    text = export(
        tmp_path / "req.txt", "requirements", "--framework", "tensorflow", "--system", str(WINDOWS_RTX)
    )
    assert pip_lines(text.splitlines()) == (
        [],
        [Requirement("tensorflow==2.10.1"), Requirement("numpy<1.24")],
    )
    notes = comments(text)
    assert "Needs CUDA 11.2 and cuDNN 8.1 installed on the system" in notes
    assert "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin" in notes
    conda = export(tmp_path / "req-conda.txt", "requirements", "--framework", "tensorflow", "--manager", "conda",
                   "--system", str(WINDOWS_RTX))  # fmt: skip
    assert (
        "conda create -n tensorflow-2.10.1-gpu -c conda-forge python=3.10 cudatoolkit=11.2 cudnn=8.1.0"
        in conda
    )


def test_windows_requirements_with_only_the_driver_bring_nvidias_wheels(tmp_path: Path):
    # Issue 21: no conda, no toolkit; CUDA and cuDNN come as NVIDIA's wheels, pinned, and the
    # file says how their DLLs are found, since it cannot carry the environment's start-up hook.
    text = export(
        tmp_path / "req.txt",
        "requirements",
        "--framework",
        "tensorflow",
        "--system",
        str(WINDOWS_DRIVER_ONLY),
    )
    options, requirements = pip_lines(text.splitlines())
    assert options == []
    names = [requirement.name for requirement in requirements]
    assert names[:2] == ["tensorflow", "numpy"]
    assert {"nvidia-cuda-runtime-cu11", "nvidia-cudnn-cu11", "nvidia-cublas-cu11"} <= set(names)
    assert all(len(r.specifier) == 1 and next(iter(r.specifier)).operator == "==" for r in requirements[2:])
    notes = comments(text)
    assert "installed on the system" not in notes
    assert "nvidia\\*\\bin" in notes and "start-up hook" in notes


# --- no GPU -------------------------------------------------------------------------------------


def test_cpu_requirements_install_from_the_local_wheel_folder(tmp_path: Path, torch_folder: Path):
    out = tmp_path / "requirements.txt"
    text = export(out, "requirements", "--framework", "pytorch", "--version", "2.13", "--system", str(NO_GPU))
    assert pip_lines(text.splitlines()) == (
        [f"--index-url {TORCH_INDEX}cpu"],
        [Requirement("torch==2.13.0+cpu")],
    )
    # pip reads the file as it is, index line included; only the local folder may serve it.
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--no-index",
         "--find-links", str(torch_folder), "--report", "-", "--quiet", "-r", str(out)],
        capture_output=True, text=True, timeout=300, env={**env, "PIP_CONFIG_FILE": os.devnull}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    chosen = {item["metadata"]["name"]: item for item in json.loads(done.stdout)["install"]}
    assert chosen["torch"]["metadata"]["version"] == "2.13.0+cpu"
    assert chosen["torch"]["download_info"]["url"].startswith(Path(torch_folder).as_uri())


def test_cpu_dockerfile_is_python_slim_and_needs_no_gpu(tmp_path: Path):
    text = export(tmp_path / "Dockerfile", "dockerfile", "--framework", "pytorch", "--version", "2.13",
                  "--system", str(NO_GPU))  # fmt: skip
    base, steps = check_dockerfile(text)
    assert re.fullmatch(r"python:3\.[0-9]+-slim", base)
    install = next(args for keyword, args in steps if keyword == "RUN" and "pip install" in args)
    assert install == f'python -m pip install --index-url {TORCH_INDEX}cpu "torch==2.13.0+cpu"'
    assert "--gpus" not in text.replace("no --gpus", "")
    assert "# This image runs on the CPU" in text and "NVIDIA driver is the host's" not in text


# --- an old GPU -----------------------------------------------------------------------------------


def test_kepler_k80_gets_an_older_torch_on_cuda_11_8(tmp_path: Path):
    plan = recommended(K80, "--framework", "pytorch")
    assert plan["torch_variant"] == "cu118"
    text = export(tmp_path / "Dockerfile", "dockerfile", "--framework", "pytorch", "--system", str(K80))
    base, _ = check_dockerfile(text)
    assert base == "nvidia/cuda:11.8.0-cudnn8-runtime-ubuntu22.04"  # no 24.04 image of CUDA 11.8
    assert f'"torch=={plan["framework_version"]}+cu118"' in text
    assert "Python 3.10, Ubuntu 22.04's own" in text
    assert re.search(r"Linux 450\.80\.02, Windows 452\.39 or newer \(this host has 470\.256\.02\)", text)
    requirements = export(
        tmp_path / "requirements.txt", "requirements", "--framework", "pytorch", "--system", str(K80)
    )
    assert pip_lines(requirements.splitlines()) == (
        [f"--index-url {TORCH_INDEX}cu118"], [Requirement(f"torch=={plan['framework_version']}+cu118")]
    )  # fmt: skip


# --- an environment the wizard made -------------------------------------------------------------


def test_an_environment_is_exported_with_its_own_build(tmp_path: Path, linux_rtx: Path):
    save_record(EnvRecord(name="Lab", path=str(tmp_path / "lab"), python="python", manager="venv",
                          framework="pytorch", framework_version="2.12.1", framework_build="2.12.1+cu126",
                          python_version="3.11.7"))  # fmt: skip
    assert recommended(linux_rtx, "--framework", "pytorch")["framework_version"] != "2.12.1"
    text = export(tmp_path / "r.txt", "requirements", "--env", "Lab", "--system", str(linux_rtx))
    assert pip_lines(text.splitlines()) == (
        [f"--index-url {TORCH_INDEX}cu126"],
        [Requirement("torch==2.12.1+cu126")],
    )
    assert "from the environment 'Lab' (pytorch 2.12.1+cu126, Python 3.11.7)" in text
    data = yaml.safe_load(
        export(tmp_path / "e.yml", "environment.yml", "--env", "Lab", "--system", str(linux_rtx))
    )
    assert data["name"] == "lab" and data["dependencies"][0] == "python=3.11"
    assert data["dependencies"][-1]["pip"] == [f"--index-url {TORCH_INDEX}cu126", "torch==2.12.1+cu126"]
    docker = export(
        tmp_path / "Dockerfile", "dockerfile", "--env", "Lab", "--system", str(linux_rtx), "--name", "lab-gpu"
    )
    base, _ = check_dockerfile(docker)
    assert base.startswith("nvidia/cuda:12.6.") and '"torch==2.12.1+cu126"' in docker
    assert "# Build: docker build -t lab-gpu ." in docker
    assert "Python 3.12, not 3.11: the one the image of this build has." in docker
    # Under another name, docker build is told which file (it reads ./Dockerfile otherwise).
    named = export(
        tmp_path / "my lab.Dockerfile",
        "dockerfile",
        "--env",
        "Lab",
        "--system",
        str(linux_rtx),
        "--name",
        "lab-gpu",
    )
    assert "# Build: docker build -t lab-gpu -f 'my lab.Dockerfile' ." in named


# --- bad input: exit 2, one line, nothing written -------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "docker", "--framework", "pytorch"], "invalid choice: 'docker'"),
        (["--format", "dockerfile"], "--framework F"),
        (["--format", "dockerfile", "--framework", "caffe"], "unknown framework 'caffe'"),
        (["--format", "dockerfile", "--framework", "pytorch", "--version", "9.9"], "not a known release"),
        (["--format", "dockerfile", "--framework", "pytorch", "--manager", "conda"], "is for venv environments"),
        (["--format", "environment.yml", "--framework", "pytorch", "--manager", "venv"], "is for conda"),
        (["--format", "requirements", "--env", "nothing-here"], "no environment called 'nothing-here'"),
        (["--format", "requirements", "--env", "x", "--python", "3.11"], "leave out --python"),
        (["--format", "requirements", "--framework", "pytorch", "--name", "Has Space"], "cannot name"),
        (["--format", "dockerfile", "--framework", "tensorflow", "--version", "2.5", "--system", str(K80)],
         "no official tensorflow/tensorflow GPU image"),
    ],
)  # fmt: skip
def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path, args: list[str], message: str):
    out = tmp_path / "out" / "file"
    out.parent.mkdir()
    system = [] if "--system" in args else ["--system", str(NO_GPU)]
    done = gpuwizard("export", *args, *system, "--out", str(out))
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout == "" and done.stderr.count("\n") == 1 and message in done.stderr, done.stderr
    assert re.match(r"gpuwizard( export)?: error: ", done.stderr)
    assert list(out.parent.iterdir()) == []


def test_out_must_be_a_file_in_a_folder_that_exists(tmp_path: Path):
    for out, message in ((tmp_path, "is a folder"), (tmp_path / "missing" / "Dockerfile", "no such folder")):
        done = gpuwizard("export", "--format", "dockerfile", "--framework", "pytorch", "--system", str(NO_GPU),
                         "--out", str(out))  # fmt: skip
        assert done.returncode == 2 and message in done.stderr and done.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_broken_system_file_is_bad_input(tmp_path: Path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    done = gpuwizard("export", "--format", "requirements", "--framework", "pytorch", "--system", str(broken),
                     "--out", str(tmp_path / "r.txt"))  # fmt: skip
    assert done.returncode == 2 and done.stderr.startswith("gpuwizard: error: ")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["broken.json"]


def test_an_existing_file_is_replaced_whole_and_nothing_else_is_left(tmp_path: Path):
    out = tmp_path / "requirements.txt"
    out.write_text("old content that is longer than the new file would ever be\n" * 200)
    text = export(out, "requirements", "--framework", "pytorch", "--version", "2.13", "--system", str(NO_GPU))
    assert "old content" not in text and text.endswith("torch==2.13.0+cpu\n")
    assert [p.name for p in tmp_path.iterdir()] == ["requirements.txt"]  # no temporary file left


def test_the_file_names_the_saved_report_but_not_the_folder_it_came_from(tmp_path: Path):
    private = tmp_path / "home" / "zorblaxqu" / "reports"
    private.mkdir(parents=True)
    saved = private / "lab-pc.json"
    saved.write_bytes(WINDOWS_RTX.read_bytes())
    for fmt, name in (("dockerfile", "Dockerfile"), ("requirements", "r.txt"), ("environment.yml", "e.yml")):
        text = export(tmp_path / name, fmt, "--framework", "pytorch", "--system", str(saved))
        assert "the saved report lab-pc.json" in text
        assert "zorblaxqu" not in text


# --- AMD and Intel GPUs (issue 38) --------------------------------------------------------------

SAMPLES = Path(__file__).parent.parent.parent / "resources" / "samples"


@pytest.mark.parametrize(
    ("sample", "flags", "check"),
    [
        (
            "linux-rx7900xtx.json",
            "--device=/dev/kfd --device=/dev/dri --group-add video",
            "torch.version.hip",
        ),
        ("linux-arc-b580.json", "--device=/dev/dri", "torch.xpu.get_device_name(0)"),
    ],
)
def test_an_amd_or_intel_gpu_gets_the_python_image_its_build_and_its_devices(
    tmp_path: Path, sample: str, flags: str, check: str
):
    system = SAMPLES / sample
    text = export(tmp_path / "Dockerfile", "dockerfile", "--framework", "pytorch", "--system", str(system))
    base, steps = check_dockerfile(text)
    assert base.startswith("python:") and base.endswith("-slim")  # the wheels bring their runtime
    plan = recommended(system, "--framework", "pytorch")
    variant = plan["torch_variant"]
    assert variant.startswith(("rocm", "xpu"))
    install = next(args for keyword, args in steps if keyword == "RUN" and "pip install" in args)
    assert f'--index-url {TORCH_INDEX}{variant} "torch=={plan["framework_version"]}+{variant}"' in install
    assert f"# Run:   docker run {flags} --rm -it pytorch-" in text and check in text
    assert "--gpus" not in text and "NVIDIA driver is the host's" not in text
