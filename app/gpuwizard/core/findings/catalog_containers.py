"""Finding texts of what :mod:`gpuwizard.core.findings.diagnosis_containers` recognises.

One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts. The real
logs behind each text are listed in tests/fixtures/recorded/diagnose/SOURCES.md.

Facts the hints rely on:

- A container sees the GPU only when started with it: ``docker run --gpus all`` (or
  ``--device nvidia.com/gpu=all`` with CDI), in compose a ``deploy.resources.reservations.devices``
  entry with ``driver: nvidia`` and ``capabilities: [gpu]`` (docs.docker.com/compose/how-tos/gpu-
  support/; docs.docker.com/engine/containers/resource_constraints/, "GPU"). NVIDIA's images print
  "The NVIDIA Driver was not detected" otherwise; a reporter's fix confirmed in
  prs-eth/PanopticSegForLargeScalePointCloud#20 and NVIDIA/nvidia-docker#1071 (maintainer:
  "--gpus all ... is the expected invocation"). Under WSL 2 older NGC images printed it although
  the GPU worked, fixed in later images (NVIDIA/nvidia-docker#1548, NVIDIA/nvidia-docker#1604);
  Docker Desktop supports GPUs only on Windows with the WSL 2 backend
  (docs.docker.com/desktop/features/gpu/).
- The Container Toolkit's hook loads the host driver's libnvidia-ml.so.1; "load library failed"
  means the host has no NVIDIA driver (docker/for-win#13835, a reporter: "my drivers simply were
  not installed"), or Docker runs where it cannot see it: Docker installed as a snap (maintainer in
  NVIDIA/nvidia-docker#1711: "could it be that it is installed as a snap and cannot load the
  system libraries"; canonical/docker-snap#148: the snap's NVIDIA support is for Ubuntu Core
  only), or Docker Desktop's VM on Linux (NVIDIA/nvidia-docker#1746, #1717). Rootless Docker needs
  'nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place' (Container Toolkit install
  guide, "Rootless mode"). ollama/ollama#4279 (maintainer): check with 'docker run --gpus all
  ubuntu nvidia-smi'.
- "mount error: file creation failed: .../merged/<path>: file exists" names a path inside the
  container's own files: the image already holds a driver file that the toolkit mounts from the
  host (nvidia-smi in NVIDIA/nvidia-container-runtime#41, a driver library in
  NVIDIA/nvidia-container-toolkit#295 and, under WSL, #176). Saving a running GPU container with
  'docker commit' copies the mounted driver files into the image; the toolkit brings the host's
  driver files itself (Container Toolkit architecture overview, docs.nvidia.com/datacenter/
  cloud-native/container-toolkit/latest/arch-overview.html).
  Other mount errors went away with a reboot after a driver update (NVIDIA/nvidia-docker#1068).
- NVIDIA's CUDA images name the CUDA they need in NVIDIA_REQUIRE_CUDA; the toolkit refuses to
  start them on a driver that supports an older CUDA ("You cannot launch a container based on CUDA
  11 if you have an underlying host driver older than 450", maintainer in NVIDIA/nvidia-docker#1442);
  NVIDIA_DISABLE_REQUIRES=true skips the check (maintainer in NVIDIA/nvidia-container-toolkit#152),
  which only helps where CUDA forward compatibility applies (docs.nvidia.com/deploy/
  cuda-compatibility/, "Forward Compatibility": data-center GPUs).
- Docker knows the "nvidia" runtime only when daemon.json registers it:
  ``nvidia-ctk runtime configure --runtime=docker`` writes it, and Docker must be restarted
  (Container Toolkit install guide, "Configuring Docker"); rootless Docker reads
  ~/.config/docker/daemon.json ('nvidia-ctk runtime configure --runtime=docker
  --config=$HOME/.config/docker/daemon.json', same guide, "Rootless mode"). Docker Desktop on
  Windows has no "nvidia" runtime: it gives GPUs through WSL 2 with --gpus / compose's device
  reservation (docs.docker.com/desktop/features/gpu/).
- Kubernetes schedules on ``nvidia.com/gpu`` only when the NVIDIA device plugin runs on the node
  and advertises it (kubectl describe node: Capacity/Allocatable ``nvidia.com/gpu``); the plugin
  needs the node's container runtime (containerd, CRI-O) to use the NVIDIA runtime, as default
  runtime or through a RuntimeClass 'nvidia' ('nvidia-ctk runtime configure --runtime=containerd',
  then restart containerd) (github.com/NVIDIA/k8s-device-plugin, "Prerequisites" and
  "Quick Start"; the plugin's own log lines). The GPU Operator does all of it
  (docs.nvidia.com/datacenter/cloud-native/gpu-operator/).
- In WSL 2 the Windows driver provides libcuda.so, libnvidia-ml.so.1 and nvidia-smi in
  /usr/lib/wsl/lib; "users must not install any NVIDIA GPU Linux driver within WSL 2", and the
  CUDA toolkit comes from the WSL-Ubuntu package, which holds no driver (NVIDIA's CUDA on WSL
  User Guide, docs.nvidia.com/cuda/wsl-user-guide/, "Getting Started with CUDA on WSL 2").
  /etc/ld.so.conf.d/ld.wsl.conf puts /usr/lib/wsl/lib in the loader cache, but the cache holds
  only libcuda.so.1 there, so programs that dlopen "libcuda.so" need /usr/lib/wsl/lib on
  LD_LIBRARY_PATH (microsoft/WSL#8587; NVIDIA/cuda-python#17; bitsandbytes-foundation/
  bitsandbytes#337, "add /usr/lib/wsl/lib to LD_LIBRARY_PATH").
- ldconfig's "/usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link" is printed because the driver
  ships copies, not links; it "hasn't proved blocking in any way" (microsoft/WSL#5548, and
  microsoft/WSL#11229: the files come with the NVIDIA driver).
- A Linux NVIDIA driver or its utilities (nvidia-utils-*) inside WSL put their nvidia-smi and
  libnvidia-ml first, which cannot reach the GPU: "couldn't communicate with the NVIDIA driver"
  (microsoft/WSL#5265, after 'apt install nvidia-driver-440') or "GPU access blocked by the
  operating system" (microsoft/WSL#9166, after 'apt install nvidia-utils-510'). From the Ubuntu
  repository only the cuda-toolkit-X-Y meta-package leaves the driver out; 'cuda' and
  'cuda-drivers' install it (CUDA on WSL User Guide, "Option 2: Installation of Linux x86 CUDA
  Toolkit using Meta Package"). GPUs in TCC mode are not available in WSL 2 (CUDA on WSL User
  Guide 11.4, "WSL 2 System Requirements").
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import NVIDIA_DRIVER_DOWNLOAD, FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

# Texts that several variants share (one source, one translation).
_START_WITH_THE_GPU: Final = QT_TRANSLATE_NOOP(
    "findings",
    "Start the container with the GPU: 'docker run --gpus all IMAGE' (or '--device "
    "nvidia.com/gpu=all' with CDI). In docker compose, give the service a device "
    "reservation: under deploy: resources: reservations: devices: an entry with "
    "'driver: nvidia', 'count: all' and 'capabilities: [gpu]'. The host needs the NVIDIA "
    "driver and the NVIDIA Container Toolkit; check with 'docker run --rm --gpus all "
    "ubuntu nvidia-smi'. With Docker Desktop on Windows, use the WSL 2 backend and a "
    "current NVIDIA driver on Windows.",
)

#: The templates, by code (and ``CODE:variant``).
CONTAINERS_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    "CONTAINER_STARTED_WITHOUT_GPU": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The container was started without GPU access: its NVIDIA image says 'The NVIDIA "
            "Driver was not detected', so GPU functionality is not available inside it.",
        ),
        _START_WITH_THE_GPU,
    ),
    "CONTAINER_STARTED_WITHOUT_GPU:run": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The container was started without GPU access ('docker run' without '--gpus'): "
            "nvidia-smi inside it cannot reach the NVIDIA driver, whatever the host has.",
        ),
        _START_WITH_THE_GPU,
    ),
    "CONTAINER_GPU_NOT_DETECTED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "The container was started with a GPU option, yet its NVIDIA image saw no driver "
            "('The NVIDIA Driver was not detected').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Run 'nvidia-smi' inside the container. If it lists the GPU, the message is wrong and "
            "can be ignored: older NVIDIA images print it under WSL 2 although the GPU works "
            "(newer images no longer do). If it fails, the host does not pass its driver in: "
            "check 'docker run --rm --gpus all ubuntu nvidia-smi', reinstall the NVIDIA Container "
            "Toolkit, run 'sudo nvidia-ctk runtime configure --runtime=docker' and restart Docker. "
            "With Docker Desktop on Windows, update Docker Desktop and the NVIDIA driver on "
            "Windows; on Linux, Docker installed as a snap or Docker Desktop's VM cannot use the "
            "host's driver (use Docker Engine).",
        ),
    ),
    "CONTAINER_TOOLKIT_FAILED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA Container Toolkit could not give the container its GPU "
            "(nvidia-container-cli: {stage}: {detail}).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check the host first: 'nvidia-smi' must work there. Then reinstall or update the "
            "NVIDIA Container Toolkit (package nvidia-container-toolkit), run 'sudo nvidia-ctk "
            "runtime configure --runtime=docker' and 'sudo systemctl restart docker', and check "
            "with 'docker run --rm --gpus all ubuntu nvidia-smi'. For details, run "
            "'nvidia-container-cli -k -d /dev/tty info' on the host.",
        ),
    ),
    "CONTAINER_TOOLKIT_FAILED:driver_library": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA Container Toolkit could not load the host's NVIDIA driver library "
            "({library}), so Docker could not start the container with a GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The toolkit takes the driver from the host. Run 'nvidia-smi' on the host: if it "
            "fails, install the NVIDIA driver there (" + NVIDIA_DRIVER_DOWNLOAD + " or your "
            "distribution's package) and restart. If it works, Docker runs where it cannot see "
            "the driver: Docker installed as a snap or Docker Desktop on Linux cannot use it "
            "(install Docker Engine from Docker's repository), and rootless Docker needs 'sudo "
            "nvidia-ctk config --set nvidia-container-cli.no-cgroups --in-place'. Then 'sudo "
            "nvidia-ctk runtime configure --runtime=docker', restart Docker, and check with "
            "'docker run --rm --gpus all ubuntu nvidia-smi'.",
        ),
    ),
    "CONTAINER_TOOLKIT_FAILED:mount": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA Container Toolkit could not mount the host's driver files into the "
            "container (nvidia-container-cli: mount error: {detail}).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "'file exists' means the image already contains a driver file that the toolkit mounts "
            "from the host (the path in the message: libnvidia-ml.so.1, nvidia-smi, libcuda.so), "
            "for example because it was saved with 'docker commit' from a running GPU container or "
            "NVIDIA driver packages were installed in it. Rebuild the image from its Dockerfile "
            "without driver packages (the toolkit brings the host's driver), or delete those "
            "files in the image. Other mount errors often follow a driver update: restart the host.",
        ),
    ),
    "CONTAINER_TOOLKIT_FAILED:requirement": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The container image needs a driver that supports CUDA {cuda} or newer, and the host's "
            "NVIDIA driver is older (nvidia-container-cli: unsatisfied condition: cuda>={cuda}).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "'nvidia-smi' on the host shows the newest CUDA its driver supports ('CUDA Version'). "
            "Either update the host's NVIDIA driver to one that supports CUDA {cuda} (on Windows "
            "with Docker Desktop, the Windows driver), or use a tag of the image built for the "
            "CUDA your driver supports. Setting NVIDIA_DISABLE_REQUIRES=true skips the check, but "
            "the program then fails when it needs the newer CUDA, unless the GPU supports CUDA "
            "forward compatibility (data-center GPUs).",
        ),
    ),
    "DOCKER_NO_GPU_RUNTIME:runtime_name": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "Docker does not know the 'nvidia' runtime ('unknown or invalid runtime name: "
            "nvidia'): the NVIDIA Container Toolkit is missing or not registered with this "
            "Docker daemon.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the NVIDIA Container Toolkit on the host, register it and restart Docker: "
            "'sudo nvidia-ctk runtime configure --runtime=docker' and 'sudo systemctl restart "
            "docker'; 'docker info' must then list nvidia under Runtimes. Rootless Docker reads "
            "its own ~/.config/docker/daemon.json: add '--config=$HOME/.config/docker/daemon.json' "
            "and restart it with 'systemctl --user restart docker'. Docker Desktop (Windows) has "
            "no nvidia runtime: remove '--runtime=nvidia' or compose's 'runtime: nvidia' and use "
            "'--gpus all' or a compose device reservation with 'capabilities: [gpu]' instead.",
        ),
    ),
    "KUBERNETES_NO_GPU": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "Kubernetes cannot schedule the pod: no node has a free nvidia.com/gpu ('Insufficient "
            "nvidia.com/gpu').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Run 'kubectl describe node NODE' on the GPU node: if Allocatable shows no "
            "nvidia.com/gpu, the NVIDIA device plugin is not running or not working there; "
            "install it (or the NVIDIA GPU Operator) and check its pod's log with 'kubectl logs'. "
            "If the node shows GPUs, other pods hold them all: wait, or lower the pod's "
            "nvidia.com/gpu limit. With MIG or time-slicing, request the resource name the node "
            "advertises (such as nvidia.com/mig-1g.10gb).",
        ),
    ),
    "KUBERNETES_NO_GPU:device_plugin": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA device plugin found no usable GPU driver on its node, so the node "
            "advertises no nvidia.com/gpu and GPU pods stay Pending.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "On the node, check that 'nvidia-smi' works, then make the container runtime use the "
            "NVIDIA runtime: for containerd 'sudo nvidia-ctk runtime configure "
            "--runtime=containerd' and 'sudo systemctl restart containerd' (for CRI-O "
            "'--runtime=crio'), and either make nvidia the default runtime or deploy the plugin "
            "with a RuntimeClass 'nvidia' (Helm: --set runtimeClassName=nvidia). Then restart the "
            "device plugin pod. The NVIDIA GPU Operator sets all of this up.",
        ),
    ),
    "WSL_LIBCUDA_NOT_FOUND": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "libcuda.so, the driver library that Windows provides to WSL 2, was not found: in "
            "WSL it lives in /usr/lib/wsl/lib.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Put /usr/lib/wsl/lib on the loader path: 'export "
            "LD_LIBRARY_PATH=/usr/lib/wsl/lib:$LD_LIBRARY_PATH' (add it to ~/.bashrc to keep "
            "it). WSL's loader cache knows only libcuda.so.1 there, so programs that load "
            "'libcuda.so' fail without it. If /usr/lib/wsl/lib holds no libcuda.so at all, "
            "update the NVIDIA driver on Windows and run 'wsl --shutdown'. Do not install a Linux "
            "NVIDIA driver inside WSL: the Windows driver serves WSL 2.",
        ),
    ),
    "WSL_LIBCUDA_NOT_SYMLINK": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "ldconfig says /usr/lib/wsl/lib/libcuda.so.1 is not a symbolic link: a harmless note in WSL 2.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The Windows NVIDIA driver gives WSL copies of libcuda.so instead of links, and "
            "ldconfig notes it on every package install. It does not stop the GPU from working "
            "and needs no fix. Only if a program then cannot find libcuda.so, add /usr/lib/wsl/lib "
            "to LD_LIBRARY_PATH.",
        ),
    ),
    # The machine check's WSL_LINUX_DRIVER_INSTALLED (catalog_machine.py) sees the driver's
    # files; this code sees its effect in a log.
    "WSL_LINUX_DRIVER_CONFLICT": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "Inside WSL 2, the NVIDIA tools could not reach the GPU ('{evidence}'): most often a "
            "Linux NVIDIA driver or nvidia-utils package installed inside WSL hides the Windows "
            "driver.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "WSL 2 gets the GPU from the Windows NVIDIA driver; its nvidia-smi is "
            "/usr/lib/wsl/lib/nvidia-smi. Check with 'which nvidia-smi' and 'dpkg -l | grep -E "
            '"nvidia-(driver|utils)|libnvidia-compute"\'; remove those packages (for example '
            "'sudo apt remove --purge nvidia-driver-550 nvidia-utils-550'), keeping "
            "nvidia-container-toolkit, then run 'wsl --shutdown' in Windows and open WSL again. "
            "Take the CUDA toolkit from NVIDIA's WSL-Ubuntu repository, or from the Ubuntu one "
            "only as 'cuda-toolkit-12-x' (not 'cuda' or 'cuda-drivers', which bring a Linux "
            "driver). If nothing was installed, update the NVIDIA driver on Windows; data-center "
            "GPUs in TCC mode are not available to WSL.",
        ),
    ),
}
