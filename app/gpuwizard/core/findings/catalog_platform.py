"""Finding texts of the platform around a framework: containers, Windows memory, XLA's ptxas.

What ``gpuwizard diagnose`` says for the errors of :mod:`gpuwizard.core.findings.diagnosis_platform`.
One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts.

Facts the hints rely on:

- Containers lose their GPUs with "Failed to initialize NVML: Unknown Error" when systemd manages
  their cgroups and reloads its units (``systemctl daemon-reload``, also run by package updates);
  the container must be recreated. Lasting fixes: the Container Device Interface (CDI), the
  ``/dev/char`` symlinks (``nvidia-ctk system create-dev-char-symlinks``) or Docker's cgroupfs
  driver (NVIDIA Container Toolkit troubleshooting, "Containers losing access to GPUs with error:
  Failed to initialize NVML: Unknown Error", docs.nvidia.com/datacenter/cloud-native/
  container-toolkit/latest/troubleshooting.html; the notice NVIDIA/nvidia-docker#1730).
- Docker reaches the GPU through the NVIDIA Container Toolkit, registered with
  ``nvidia-ctk runtime configure --runtime=docker`` and a restart of Docker (NVIDIA Container
  Toolkit install guide, "Configuring Docker", docs.nvidia.com/datacenter/cloud-native/
  container-toolkit/latest/install-guide.html).
- Windows error 1455 (ERROR_COMMIT_LIMIT) means the commit limit, RAM plus page file, is used up
  (learn.microsoft.com/en-us/troubleshoot/windows-client/performance/introduction-to-the-page-
  file); every DataLoader worker is a process that loads torch and its CUDA DLLs again
  (pytorch.org/docs/stable/data.html, "Multi-process data loading").
- XLA compiles its GPU kernels with ptxas; the pip wheel ``nvidia-cuda-nvcc-cu12`` brings one, and
  ``jax[cuda12]`` and ``tensorflow[and-cuda]`` install it (docs.jax.dev/en/latest/
  installation.html, "NVIDIA GPU"; tensorflow.org/install/pip). A GPU needs a ptxas that knows
  its architecture: sm_120 (RTX 50 series) needs CUDA 12.8 or newer (CUDA 12.8 release notes).
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The templates of platform errors, by code (and ``CODE:variant``).
PLATFORM_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    "CONTAINER_NVML_UNKNOWN_ERROR": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "NVML could not start ('Failed to initialize NVML: Unknown Error'): in a container or "
            "pod this means it has lost access to the GPU devices.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "If nvidia-smi works on the host, recreate the container or pod to get the GPU back: "
            "when systemd manages the container's cgroups, 'systemctl daemon-reload' (also run by "
            "package updates) drops its device access. To stop it happening again, as NVIDIA's "
            "Container Toolkit troubleshooting says: give GPUs through CDI ('sudo nvidia-ctk cdi "
            "generate --output=/etc/cdi/nvidia.yaml', then 'docker run --device nvidia.com/gpu=all'), "
            "or create the device links ('sudo nvidia-ctk system create-dev-char-symlinks "
            "--create-all'), or set Docker's cgroup driver to cgroupfs ('\"exec-opts\": "
            '["native.cgroupdriver=cgroupfs"]\' in /etc/docker/daemon.json) and restart Docker. '
            "If nvidia-smi fails on the host too, reinstall the NVIDIA driver and restart.",
        ),
    ),
    "DOCKER_NO_GPU_RUNTIME": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "Docker cannot give the container a GPU ('could not select device driver ... with "
            "capabilities: [[gpu]]'): the NVIDIA Container Toolkit is missing or Docker is not "
            "set up to use it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the NVIDIA Container Toolkit on the host (package nvidia-container-toolkit, "
            "from NVIDIA's repository as its install guide says), then register it with Docker and "
            "restart Docker: 'sudo nvidia-ctk runtime configure --runtime=docker' and 'sudo "
            "systemctl restart docker'. Check with 'docker run --rm --gpus all ubuntu nvidia-smi'. "
            "On Windows, Docker Desktop uses the GPU through WSL 2: update Docker Desktop and the "
            "NVIDIA driver on Windows.",
        ),
    ),
    "WINDOWS_PAGING_FILE_TOO_SMALL": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "Windows ran out of memory to commit ([WinError 1455]: the paging file is too small "
            "for this operation).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "This is not a missing DLL: loading the CUDA libraries needs more memory than RAM and "
            "the page file allow. Start fewer processes that load PyTorch: lower the DataLoader's "
            "num_workers (to 2, or 0), and close other programs. Or let Windows manage a larger "
            "page file on a drive with free space (System Properties > Advanced > Performance "
            "Settings > Advanced > Virtual memory; 'System managed size', or at least the size "
            "of the RAM), then restart.",
        ),
    ),
    "XLA_PTXAS_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "XLA (TensorFlow, JAX) found no ptxas to compile its GPU kernels ('No PTX "
            "compilation provider' or no suitable ptxas).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the CUDA compiler wheel for the CUDA of your framework build: 'pip install "
            "nvidia-cuda-nvcc-cu12' for CUDA 12 (brought by 'pip install -U \"jax[cuda12]\"' and "
            "'pip install tensorflow[and-cuda]'), or a CUDA toolkit whose ptxas knows your GPU "
            "(CUDA 12.8 or newer for an RTX 50-series GPU, sm_120), and put its bin folder on "
            "PATH (or set XLA_FLAGS=--xla_gpu_cuda_data_dir=CUDA_FOLDER).",
        ),
    ),
    "XLA_PTXAS_MISSING:too_old": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The ptxas that XLA (TensorFlow, JAX) uses is too old for the framework build or the GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "XLA takes the first ptxas it finds, often an old CUDA toolkit's on PATH. Install the "
            "CUDA compiler wheel for the CUDA of your framework build ('pip install -U "
            "nvidia-cuda-nvcc-cu12' for CUDA 12, brought by 'jax[cuda12]' and "
            "'tensorflow[and-cuda]'), or a CUDA toolkit at least as new as the framework's CUDA "
            "(12.8 or newer for an RTX 50-series GPU, sm_120), and put its bin folder first on "
            "PATH, before the old toolkit's.",
        ),
    ),
}
