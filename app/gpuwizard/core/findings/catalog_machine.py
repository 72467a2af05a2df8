"""Finding texts about the machine: GPU and driver, WSL, CUDA toolkits and cuDNN, Python and Windows.

What detection finds (``gpuwizard detect``), before any plan. One part of
:data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts; apart so that each part
stays readable and a translator finds a theme's texts together.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import NVIDIA_DRIVER_DOWNLOAD, FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The templates of the machine, by code (and ``CODE:variant``).
MACHINE_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    # --- GPU and driver ---------------------------------------------------------------
    "NO_NVIDIA_GPU": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "No NVIDIA GPU was found on this machine."),
        QT_TRANSLATE_NOOP(
            "findings",
            "GPU training with PyTorch or TensorFlow needs an NVIDIA GPU (CUDA). You can still "
            "install the CPU build of either framework. On a laptop with two GPUs, check that "
            "the NVIDIA GPU is enabled in the firmware (BIOS/UEFI) settings; on a cloud VM, "
            "pick an instance type with an NVIDIA GPU.",
        ),
    ),
    "NO_NVIDIA_GPU:other_gpu": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "No NVIDIA GPU was found; the graphics hardware is: {names}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA builds of PyTorch and TensorFlow run only on NVIDIA GPUs. You can install the "
            "CPU build of either framework. On a laptop with two GPUs, check that the NVIDIA "
            "GPU is enabled in the firmware (BIOS/UEFI) settings.",
        ),
    ),
    "NO_NVIDIA_DRIVER": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "An NVIDIA GPU is present ({names}), but no working NVIDIA driver answers."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the NVIDIA driver for your GPU from " + NVIDIA_DRIVER_DOWNLOAD + " "
            "(on Ubuntu: 'sudo ubuntu-drivers install'), then restart the computer and run the "
            "wizard again.",
        ),
    ),
    "NO_NVIDIA_DRIVER:nouveau": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "An NVIDIA GPU is present ({names}), but it is driven by the open-source 'nouveau' "
            "driver, which has no CUDA.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install NVIDIA's driver (on Ubuntu: 'sudo ubuntu-drivers install'; elsewhere from "
            + NVIDIA_DRIVER_DOWNLOAD
            + "), which replaces nouveau, then restart the computer.",
        ),
    ),
    "NO_NVIDIA_DRIVER:container": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "This looks like a container, and the NVIDIA driver library is not visible inside it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Start the container with GPU access ('docker run --gpus all ...', which needs the "
            "NVIDIA Container Toolkit on the host), and check that 'nvidia-smi' works on the host.",
        ),
    ),
    "NO_NVIDIA_DRIVER:wsl": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "This is WSL 2, but no NVIDIA driver is passed through from Windows "
            "(nothing answers in /usr/lib/wsl/lib).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install or update the NVIDIA driver on Windows (not inside WSL) from "
            + NVIDIA_DRIVER_DOWNLOAD
            + ", then run 'wsl --shutdown' in Windows and open WSL again. The Windows driver "
            "serves WSL 2 (NVIDIA CUDA on WSL User Guide).",
        ),
    ),
    "NO_NVIDIA_DRIVER:windows": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "An NVIDIA GPU is present ({names}), but the NVIDIA driver does not answer."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the NVIDIA driver for your GPU from " + NVIDIA_DRIVER_DOWNLOAD + " (a "
            "'Microsoft Basic Display Adapter' means no NVIDIA driver is installed), restart "
            "Windows, and run the wizard again.",
        ),
    ),
    "NVML_DRIVER_LIBRARY_MISMATCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA driver library and the loaded kernel driver have different versions "
            "(NVML: 'Driver/library version mismatch').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "This happens after a driver update without a restart. Restart the computer; if it "
            "persists, reinstall the NVIDIA driver.",
        ),
    ),
    "NVML_NO_PERMISSION": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The NVIDIA driver refused access to the GPU (NVML: no permission)."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check that your user may open /dev/nvidia* (often the 'video' group on Linux), or "
            "ask the machine's administrator.",
        ),
    ),
    "NVML_BLOCKED_BY_OS": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The operating system blocked access to the GPU (NVML: 'GPU access blocked by the operating system').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "In a container, start it with GPU access ('docker run --gpus all ...'); where cgroup "
            "device rules apply, they must allow /dev/nvidia*.",
        ),
    ),
    "NVML_BLOCKED_BY_OS:wsl": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "WSL blocked access to the GPU (NVML: 'GPU access blocked by the operating system')."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "This happens when a Linux NVIDIA driver package (such as nvidia-utils-*) was "
            "installed inside WSL (microsoft/WSL#9166). Remove it, then run 'wsl --shutdown' in "
            "Windows: the Windows driver provides the GPU to WSL 2.",
        ),
    ),
    "NVML_UNAVAILABLE": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP("findings", "The NVIDIA management library could not be used: {detail}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Detection fell back to other sources. If 'nvidia-smi' also fails, reinstall the "
            "NVIDIA driver from " + NVIDIA_DRIVER_DOWNLOAD + ".",
        ),
    ),
    "GPU_NOT_RESPONDING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "GPU {index} did not answer the driver ({reason})."),
        QT_TRANSLATE_NOOP(
            "findings",
            "The other GPUs are reported normally. A GPU that is 'lost' usually needs a restart "
            "of the machine; if it recurs, check its power cables, cooling and the system log "
            "(Xid errors), and contact the machine's administrator.",
        ),
    ),
    "DRIVER_CUDA_MAX_UNKNOWN": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "Driver {driver} did not report the highest CUDA version it supports "
            "(it predates that NVML query).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Update the NVIDIA driver. Current framework builds use CUDA 11 or newer, which needs "
            "driver 450.80.02 or newer on Linux and 452.39 or newer on Windows (NVIDIA CUDA "
            "Toolkit release notes, minor-version compatibility table).",
        ),
    ),
    "NO_CUDA_ON_MACOS": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "macOS has no CUDA: neither PyTorch nor TensorFlow ships CUDA builds for it."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "On Apple silicon, PyTorch can use the GPU through MPS (macOS 14 or newer); "
            "otherwise use the CPU build, or a Linux machine with an NVIDIA GPU.",
        ),
    ),
    # --- WSL --------------------------------------------------------------------------
    "WSL1_NO_GPU": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "This is WSL 1, which cannot use the GPU."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Convert the distribution to WSL 2: in Windows, run 'wsl --set-version <distro> 2' "
            "(list distributions with 'wsl -l -v').",
        ),
    ),
    "WSL_LINUX_DRIVER_INSTALLED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP("findings", "A Linux NVIDIA driver library is installed inside WSL ({path})."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Inside WSL 2 the Windows driver provides the GPU; a Linux driver installed in the "
            "distribution can shadow it and break GPU access. Remove the Linux driver packages "
            "(keep the CUDA toolkit if you need it) (NVIDIA CUDA on WSL User Guide).",
        ),
    ),
    # --- CUDA toolkits and cuDNN ------------------------------------------------------
    "MULTIPLE_CUDA_ON_PATH": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "Several CUDA versions are on PATH: {versions}. The first one, {first}, wins."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Programs that load CUDA from PATH (TensorFlow 2.10 and older on Windows, nvcc) get "
            "{first}. Keep only the version your framework needs on PATH, or let the wizard put "
            "the right one first (it keeps a backup and can undo).",
        ),
    ),
    "CUDA_PATH_NOT_FIRST": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "CUDA_PATH points to CUDA {cuda_path_version}, but PATH reaches CUDA {first} first.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Build tools follow CUDA_PATH and programs follow PATH, so they can use different "
            "CUDA versions. Make them agree if you build CUDA code.",
        ),
    ),
    # --- Python and Windows settings --------------------------------------------------
    "MS_STORE_PYTHON": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP("findings", "The Python at {executable} is the Microsoft Store build."),
        QT_TRANSLATE_NOOP(
            "findings",
            "The Store build redirects some folders and is known to break DLL loading for "
            "CUDA (TensorFlow issues #48868, #61438). Let the wizard create the environment "
            "with a python.org or uv-managed Python instead.",
        ),
    ),
    "PYTHON_32BIT": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The Python at {executable} is a 32-bit build."),
        QT_TRANSLATE_NOOP(
            "findings",
            "PyTorch and TensorFlow publish 64-bit packages only, so pip reports 'No matching "
            "distribution'. Use a 64-bit Python; the wizard can provide one.",
        ),
    ),
    "NO_PYTHON_FOUND": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP("findings", "No Python interpreter was found on PATH."),
        QT_TRANSLATE_NOOP(
            "findings",
            "That is fine: the wizard can create the environment with a Python that uv "
            "downloads, or with conda.",
        ),
    ),
    "DETECTION_STEP_FAILED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP("findings", "Part of the detection failed: {step} ({error})."),
        QT_TRANSLATE_NOOP(
            "findings",
            "The rest of the report is still right; only this part is missing. Please attach "
            "the output of 'gpuwizard detect --json' to a bug report.",
        ),
    ),
    "LONG_PATHS_DISABLED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP("findings", "Windows long-path support is off (LongPathsEnabled is not 1)."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Installing TensorFlow can fail with 'No such file or directory' on deep paths. "
            "Either enable long paths (an administrator sets HKLM\\SYSTEM\\CurrentControlSet\\"
            "Control\\FileSystem\\LongPathsEnabled to 1, as the TensorFlow install guide says), "
            "or keep the environment in a short folder such as C:\\envs.",
        ),
    ),
}
