"""The plan as a Dockerfile: a Linux container on an official base image, with the host's GPUs.

A container runs Linux whatever the host's OS (on Windows, Docker Desktop runs it in WSL 2 on
the Windows driver: https://docs.docker.com/desktop/features/gpu/), so the plan is made again
for Linux: :func:`container_report` turns the host's report into the container's (same GPUs and
driver, Linux, no toolkits or Pythons of the host), and the recommender's OS policies then
apply to Linux (TensorFlow's Windows GPU limit at 2.10, PATH entries and DLLs fall away). The
driver stays the host's; the container brings none.

Base images (``resources/compat/docker_images.json``, a source on every row):

- PyTorch on a GPU: ``nvidia/cuda:<X.Y.Z>-cudnn-runtime-ubuntu<release>`` for the build's CUDA,
  its Ubuntu's own ``python3`` in a venv, and the pinned wheel from the PyTorch index;
- TensorFlow on a GPU: ``tensorflow/tensorflow:<version>-gpu`` (CUDA and cuDNN inside);
- CPU builds: ``python:<X.Y>-slim``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final

from gpuwizard.core.compat.plan import Plan, Recommendation, Wish, describe_min_driver, plan_build_name
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import CompatData, minor_of, version_key
from gpuwizard.core.exports.files import (
    Export,
    ExportError,
    comment_block,
    describe_machine,
    notable_findings,
    pinned_requirements,
    pip_option_lines,
    plan_with_build,
)
from gpuwizard.core.frameworks import framework_module
from gpuwizard.core.machine.system_report import ManagerFacts, OsFacts, PythonFacts, SystemReport
from gpuwizard.core.wizard_command import shell_command

DOCKER_IMAGES_SCHEMA: Final = "gpuwizard.compat-docker-images/1"
#: Where Docker documents GPU access for containers (``--gpus``), and Docker Desktop's on Windows.
DOCKER_GPU_DOCS: Final = "https://docs.docker.com/engine/containers/resource_constraints/#gpu"
DOCKER_DESKTOP_GPU_DOCS: Final = "https://docs.docker.com/desktop/features/gpu/"
#: The framework's module, and a line that shows the GPU it sees.
_GPU_CHECKS: Final = {
    "pytorch": "import torch; print(torch.__version__, torch.cuda.get_device_name(0))",
    "tensorflow": "import tensorflow as tf; print(tf.__version__, tf.config.list_physical_devices('GPU'))",
}
#: How a container reaches an AMD or Intel GPU: its device files (ROCm's docs, "Running ROCm
#: Docker containers"; Intel's "Run PyTorch on Intel GPUs in Docker").
_DEVICE_FLAGS: Final = {
    "rocm": "--device=/dev/kfd --device=/dev/dri --group-add video ",
    "xpu": "--device=/dev/dri ",
}
ROCM_DOCKER_DOCS: Final = "https://rocm.docs.amd.com/projects/install-on-linux/en/latest/how-to/docker.html"
_DEVICE_CHECKS: Final = {
    "rocm": "import torch; print(torch.__version__, torch.version.hip, torch.cuda.get_device_name(0))",
    "xpu": "import torch; print(torch.__version__, torch.xpu.get_device_name(0))",
}
_CPU_CHECKS: Final = {
    "pytorch": "import torch; print(torch.__version__, torch.rand(2, 2).sum().item())",
    "tensorflow": "import tensorflow as tf; print(tf.__version__, float(tf.reduce_sum(tf.ones((2, 2)))))",
}


# --- the table --------------------------------------------------------------------------------


@dataclass(frozen=True)
class CudaImage:
    """The ``nvidia/cuda`` runtime image with cuDNN for one CUDA minor version."""

    cuda: str
    image_version: str
    flavour: str
    ubuntu: tuple[str, ...]


@dataclass(frozen=True)
class DockerImages:
    """The base images export knows, with the source URL of each kind."""

    cuda: tuple[CudaImage, ...]
    tensorflow: Mapping[str, str]  # minor version -> the image's TensorFlow version
    ubuntu_python: Mapping[str, str]  # Ubuntu release -> its python3 (minor)
    python_slim_tag: str
    urls: Mapping[str, str]  # cuda, tensorflow, python: where the tag scheme is documented

    def pythons(self) -> tuple[str, ...]:
        """Every Python an ``nvidia/cuda`` image has, newest first."""
        return tuple(sorted(set(self.ubuntu_python.values()), key=version_key, reverse=True))

    def pythons_for_cuda(self, cuda: str | None) -> tuple[str, ...]:
        """The Pythons of the images of ``cuda``, in the table's order (the newer Ubuntu first)."""
        row = next((r for r in self.cuda if r.cuda == cuda), None)
        return tuple(self.ubuntu_python[u] for u in row.ubuntu if u in self.ubuntu_python) if row else ()


def docker_images_from_json(data: Mapping[str, Any]) -> DockerImages:
    """The table from ``docker_images.json`` (checked against its schema by the tests)."""
    sources = data["sources"]

    def url(rows: Sequence[Mapping[str, Any]] | Mapping[str, Any]) -> str:
        row = rows[0] if isinstance(rows, Sequence) else rows
        return str(sources[row["source"][0]]["url"])

    return DockerImages(
        cuda=tuple(
            CudaImage(r["cuda"], r["image_version"], r["flavour"], tuple(r["ubuntu"]))
            for r in data["nvidia_cuda"]
        ),
        tensorflow={r["version"]: r["image_version"] for r in data["tensorflow_gpu"]},
        ubuntu_python={r["ubuntu"]: r["python"] for r in data["ubuntu_python"]},
        python_slim_tag=data["python_slim"]["tag"],
        urls={
            "cuda": url(data["nvidia_cuda"]),
            "tensorflow": url(data["tensorflow_gpu"]),
            "python": url(data["python_slim"]),
        },
    )


@dataclass(frozen=True)
class BaseImage:
    """The image a Dockerfile starts FROM.

    Attributes:
        reference: ``nvidia/cuda:12.6.3-cudnn-runtime-ubuntu24.04``.
        kind: ``nvidia-cuda``, ``tensorflow`` or ``python``.
        python: The image's Python (minor), None when it is the image's own and not in the table.
        framework_version: The framework the image already holds (TensorFlow images), else None.
        source_url: Where the tag scheme is documented.
        ubuntu: The Ubuntu release of an ``nvidia/cuda`` image.
    """

    reference: str
    kind: str
    python: str | None
    framework_version: str | None
    source_url: str
    ubuntu: str | None = None


def base_image(plan: Plan, images: DockerImages) -> BaseImage | None:
    """The official image the plan builds on, or None when the table has none for it."""
    if plan.cpu_only or plan.device in ("rocm", "xpu"):
        # PyTorch's ROCm and XPU wheels bring their runtimes (accelerators.json, rocm_requirements):
        # the official Python image is base enough; the host gives the kernel driver and devices.
        tag = images.python_slim_tag.format(python=plan.python)
        return BaseImage(f"python:{tag}", "python", plan.python, None, images.urls["python"])
    if plan.framework == "tensorflow":
        version = images.tensorflow.get(minor_of(plan.framework_version))
        if version is None:
            return None
        return BaseImage(
            f"tensorflow/tensorflow:{version}-gpu", "tensorflow", None, version, images.urls["tensorflow"]
        )
    row = next((r for r in images.cuda if r.cuda == plan.cuda), None)
    ubuntu = (
        next((u for u in row.ubuntu if images.ubuntu_python.get(u) == plan.python), None) if row else None
    )
    if row is None or ubuntu is None:
        return None
    return BaseImage(
        f"nvidia/cuda:{row.image_version}-{row.flavour}-ubuntu{ubuntu}",
        "nvidia-cuda",
        plan.python,
        None,
        images.urls["cuda"],
        ubuntu=ubuntu,
    )


# --- the container's plan ---------------------------------------------------------------------


def container_report(host: SystemReport, pythons: Sequence[str]) -> SystemReport:
    """The machine a container on ``host`` is: Linux, the host's GPUs and driver.

    On a Windows host the driver stays Windows' (Docker Desktop runs Linux containers in WSL 2,
    NVIDIA's WSL guide: https://docs.nvidia.com/cuda/wsl-user-guide/index.html), so the report
    says WSL 2 and the recommender checks a Windows driver version against Windows minimums.
    The host's toolkits, cuDNN, conda and Pythons are not in the container; ``pythons`` are
    the ones the images offer, best first.
    """
    through_wsl = host.os.wsl or host.os.family == "windows"
    return replace(
        host,
        os=OsFacts(
            family="linux",
            wsl=through_wsl,
            release="",
            arch=host.os.arch,
            wsl_version=2 if through_wsl else None,
            container=True,
            distribution=None,
        ),
        python=None,
        interpreters=tuple(PythonFacts(f"{p}.0", "python3", 64, source="image") for p in pythons),
        cuda_toolkits=(),
        cudnn=(),
        managers=ManagerFacts(),
        findings=(),
        long_paths_enabled=None,
    )


@dataclass(frozen=True)
class ContainerPlan:
    """The plan for the container, the image it starts from, and the recommendation behind it."""

    recommendation: Recommendation
    plan: Plan
    base: BaseImage
    report: SystemReport


def plan_container(
    host: SystemReport, wish: Wish, compat: CompatData, images: DockerImages, *, build: str | None = None
) -> ContainerPlan:
    """The plan for a Linux container on ``host``, on an image the table has.

    ``wish.python`` is a preference, as for ``recommend``: when no ``nvidia/cuda`` image has it
    for the build's CUDA, the plan is made again with each Python those images have.

    Raises:
        ExportError: No official image in the table fits any plan for the wish.
    """
    report = container_report(host, images.pythons())
    wish = replace(wish, manager="venv")
    recommendation = recommend(report, wish, compat)
    plan = plan_with_build(recommendation, build, compat)
    base = base_image(plan, images)
    if base is None and plan.framework == "pytorch" and not plan.cpu_only:
        for python in images.pythons_for_cuda(plan.cuda):
            again = recommend(report, replace(wish, python=python), compat)
            candidate = plan_with_build(again, build, compat)
            base = base_image(candidate, images)
            if base is not None:
                recommendation, plan = again, candidate
                break
    if base is None:
        raise ExportError(_no_image_reason(plan, images))
    return ContainerPlan(recommendation, plan, base, report)


def _no_image_reason(plan: Plan, images: DockerImages) -> str:
    if plan.framework == "tensorflow":
        known = ", ".join(sorted(images.tensorflow, key=version_key))
        return (
            f"no official tensorflow/tensorflow GPU image is known for TensorFlow {plan.framework_version} "
            f"(known: {known}); choose one with --version"
        )
    known = ", ".join(r.cuda for r in sorted(images.cuda, key=lambda r: version_key(r.cuda)))
    return (
        f"no nvidia/cuda runtime image with cuDNN is known for {plan_build_name(plan)} "
        f"(CUDA versions with one: {known}); choose another release with --version"
    )


# --- the Dockerfile ---------------------------------------------------------------------------


def render_dockerfile(
    export: Export, base: BaseImage, *, wished_python: str | None = None, file_name: str = "Dockerfile"
) -> str:
    """The Dockerfile: header comments, FROM the base image, the pinned install, a build check.

    ``file_name``: the file's name; docker build reads ``Dockerfile`` unless told another (``-f``).
    """
    plan = export.plan
    framework_version = base.framework_version or plan.framework_version
    image = export.name
    check = _DEVICE_CHECKS.get(plan.device) or (_CPU_CHECKS if plan.cpu_only else _GPU_CHECKS)[plan.framework]
    gpus = "" if plan.cpu_only else _DEVICE_FLAGS.get(plan.device, "--gpus all ")
    lines = [
        f"Dockerfile for {plan_build_name(replace(plan, framework_version=framework_version))} "
        f"in a Linux container ({_python_words(base)}).",
        f"Written by gpuwizard export from {export.origin}.",
        f"Host: {describe_machine(export.machine)}.",
        *_linux_lines(export),
        *_driver_lines(export),
        f"Base image: {base.reference} ({base.source_url}).",
        *_version_lines(plan, base, wished_python),
        *(f"Why: {reason}" for reason in dict.fromkeys(plan.reasons) if not _said_by_image(reason, base)),
        *(f"Note: {finding}" for finding in notable_findings(export.recommendation)),
        "",
        f"Build: {_build_command(image, file_name, windows=export.machine.os.family == 'windows')}",
        f'Run:   docker run {gpus}--rm -it {image} python -c "{check}"',
    ]
    if plan.cpu_only:
        lines.append("This image runs on the CPU: it needs no GPU, no NVIDIA driver and no --gpus.")
    elif plan.device == "rocm":
        lines.append(
            "The AMD GPU is the host's: its amdgpu kernel driver, and its /dev/kfd and /dev/dri passed "
            f"in ({ROCM_DOCKER_DOCS})."
        )
        lines.append(
            "Where the host's /dev/kfd belongs to its render group, add that group by number: "
            "--group-add $(getent group render | cut -d: -f3)."
        )
    elif plan.device == "xpu":
        lines.append("The Intel GPU is the host's: its kernel driver, and /dev/dri passed in.")
    else:
        lines.append(f"--gpus needs the NVIDIA Container Toolkit on a Linux host ({DOCKER_GPU_DOCS}).")
    sections = [f"FROM {base.reference}\n", _environment(plan, base), _install(plan, base)]
    sections.append(_build_check(plan, framework_version))
    text = comment_block(lines) + "\n".join(section for section in sections if section)
    # Not root at run time (Docker's build best practices, USER:
    # https://docs.docker.com/build/building/best-practices/#user); Ubuntu 24.04 images already
    # have uid 1000 (ubuntu), so the uid is left to useradd.
    text += "\nRUN useradd --create-home --shell /bin/bash app\nUSER app\nWORKDIR /home/app\n"
    text += 'CMD ["python"]\n'
    return text


def _said_by_image(reason: str, base: BaseImage) -> bool:
    """A reason about pip packages that a TensorFlow image makes moot (it installs nothing)."""
    return base.kind == "tensorflow" and "[and-cuda]" in reason


def _python_words(base: BaseImage) -> str:
    if base.kind == "nvidia-cuda":
        return f"Python {base.python}, Ubuntu {base.ubuntu}'s own"
    if base.kind == "tensorflow":
        return "the image's own Python"
    return f"Python {base.python}"


def _linux_lines(export: Export) -> list[str]:
    host = export.machine.os
    if host.family == "linux":
        return []
    where = {"windows": "Windows", "darwin": "macOS"}.get(host.family, host.family)
    policy = (
        " (TensorFlow's GPU builds for native Windows end at 2.10)"
        if export.plan.framework == "tensorflow" and host.family == "windows"
        else ""
    )
    lines = [
        f"Planned for Linux, the container's OS, not for this {where} host: the host's OS policies{policy}, "
        "PATH entries and DLLs do not apply."
    ]
    if host.family == "windows":
        lines.append(f"On Windows, Docker Desktop runs it in WSL 2 with the GPU ({DOCKER_DESKTOP_GPU_DOCS}).")
    return lines


def _driver_lines(export: Export) -> list[str]:
    plan = export.plan
    if plan.cpu_only or not plan.min_driver:
        return []
    driver = export.machine.driver
    now = f"this host has {driver.version}" if driver else "this host has none"
    update = "; update it first" if plan.driver_update_required else ""
    return [
        "The NVIDIA driver is the host's (the image brings none): "
        f"{describe_min_driver(plan.min_driver)} or newer ({now}{update})."
    ]


def _version_lines(plan: Plan, base: BaseImage, wished_python: str | None) -> list[str]:
    lines = []
    if base.kind == "tensorflow":
        lines.append(
            f"The image brings TensorFlow {base.framework_version} with its CUDA and cuDNN: nothing is installed on top."
        )
    if base.framework_version and base.framework_version != plan.framework_version:
        lines.append(
            f"The newest {minor_of(plan.framework_version)} release with an official image is "
            f"{base.framework_version} (the plan's {plan.framework_version} has none)."
        )
    if wished_python and base.python and wished_python != base.python:
        lines.append(f"Python {base.python}, not {wished_python}: the one the image of this build has.")
    return lines


def _environment(plan: Plan, base: BaseImage) -> str:
    variables = ["PIP_NO_CACHE_DIR=1", "PIP_DISABLE_PIP_VERSION_CHECK=1", "PYTHONUNBUFFERED=1"]
    if base.kind == "python":
        variables.append("PIP_ROOT_USER_ACTION=ignore")  # pip installs as root into the image's Python
    if base.kind == "nvidia-cuda":
        variables += [
            "DEBIAN_FRONTEND=noninteractive",
            "VIRTUAL_ENV=/opt/venv",
            'PATH="/opt/venv/bin:${PATH}"',
        ]
    if plan.framework == "tensorflow" and not plan.cpu_only:
        variables.append("TF_FORCE_GPU_ALLOW_GROWTH=true")  # as `env create` sets it for TensorFlow on a GPU
    return "ENV " + " \\\n    ".join(variables) + "\n"


def _install(plan: Plan, base: BaseImage) -> str:
    text = ""
    if base.kind == "nvidia-cuda":
        # Ubuntu's python3 in a venv: 24.04 marks it externally managed (PEP 668), so pip may not
        # install into it (https://peps.python.org/pep-0668/).
        text += (
            "RUN apt-get update \\\n"
            " && apt-get install -y --no-install-recommends python3 python3-venv ca-certificates \\\n"
            " && rm -rf /var/lib/apt/lists/* \\\n"
            " && python3 -m venv /opt/venv\n"
        )
    if base.kind == "tensorflow":
        return text  # the image holds TensorFlow, CUDA and cuDNN already
    arguments = " ".join([*pip_option_lines(plan), *(f'"{r}"' for r in pinned_requirements(plan))])
    return text + ("\n" if text else "") + f"RUN python -m pip install {arguments}\n"


def _build_check(plan: Plan, framework_version: str) -> str:
    """A cheap check while building: the framework imports and is the pinned build (no GPU needed)."""
    module = framework_module(plan.framework)
    pin = framework_version
    if plan.framework == "pytorch":
        pin = next((r.split("==", 1)[1] for r in pinned_requirements(plan) if r.startswith("torch==")), pin)
    return (
        "# Build-time check: the framework imports and is the pinned build.\n"
        f"RUN python -c \"import {module}; v = {module}.__version__; assert v == '{pin}', v; print('{module}', v)\"\n"
    )


def _build_command(image: str, file_name: str, *, windows: bool) -> str:
    """``docker build`` of this file, from the folder it is in, as the person's shell reads it.

    >>> _build_command("torch-gpu", "Dockerfile", windows=False)
    'docker build -t torch-gpu .'
    >>> _build_command("torch-gpu", "my lab.Dockerfile", windows=False)
    "docker build -t torch-gpu -f 'my lab.Dockerfile' ."
    """
    named = [] if file_name == "Dockerfile" else ["-f", file_name]
    return shell_command(["docker", "build", "-t", image, *named, "."], windows=windows)
