"""The catalog of finding texts, keyed by stable code (DESIGN.md section 4).

Every template is wrapped in ``QT_TRANSLATE_NOOP("findings", ...)`` so that Qt's ``lupdate``
extracts it; the GUI translates the template and fills the same ``{placeholders}``. The core
cannot import Qt, so the marker is a no-op of the same name (gpuwizard.core.texts).

A code may have variants (``"NO_NVIDIA_DRIVER:wsl"``): the same code and severity, with a
message and hint that fit the situation. Facts quoted in hints cite their source.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from gpuwizard.core.texts import QT_TRANSLATE_NOOP


@dataclass(frozen=True)
class FindingTemplate:
    """The severity and English templates of one finding code (or code variant)."""

    severity: Literal["error", "warning", "info"]
    message: str
    hint: str


# The translation context of every template below; lupdate reads only literal contexts, so
# each QT_TRANSLATE_NOOP call spells it out.
CONTEXT: Final = "findings"

NVIDIA_DRIVER_DOWNLOAD: Final = "https://www.nvidia.com/Download/index.aspx"

CATALOG: Final[dict[str, FindingTemplate]] = {
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
    # --- recommendation ---------------------------------------------------------------
    "TENSORFLOW_GPU_PACKAGE_REMOVED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "The 'tensorflow-gpu' package was removed; 'tensorflow' is the GPU package."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Since December 2022 'pip install tensorflow-gpu' gets an empty package that fails on "
            "install. The plan installs 'tensorflow' instead (the same package since TensorFlow 2.1).",
        ),
    ),
    "TF_NATIVE_WINDOWS_GPU_ENDED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow {version} has no GPU support on native Windows: {last} was the last release with it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Use TensorFlow {last} on Windows (CUDA {last_cuda}, cuDNN {last_cudnn}), or TensorFlow "
            "{version} inside WSL 2, which uses this GPU through the Windows driver, or the CPU build.",
        ),
    ),
    "DRIVER_TOO_OLD": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "NVIDIA driver {driver} is older than the {min_driver} that {build} needs."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Update the NVIDIA driver to {min_driver} or newer from " + NVIDIA_DRIVER_DOWNLOAD + ". "
            "{otherwise}",
        ),
    ),
    "NO_NVIDIA_DRIVER:recommend": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "No NVIDIA driver answers, so no GPU build can run yet."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the NVIDIA driver, {min_driver} or newer for {build}, from "
            + NVIDIA_DRIVER_DOWNLOAD
            + ", then restart the computer.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} {version} has no build for {gpu} (compute capability {capability}): "
            "its GPU builds carry code for {architectures}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Installing it anyway ends in 'no kernel image is available for execution on the "
            "device'. {instead}",
        ),
    ),
    "GPU_NOT_SERVED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "{build} has no code for {gpu} (compute capability {capability}); the plan uses the other GPUs.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Hide that GPU from the framework (CUDA_VISIBLE_DEVICES={visible}), or it may fail with "
            "'no kernel image is available' when code lands on it.",
        ),
    ),
    "GPU_ARCH_UNKNOWN": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "The compute capability of {gpu} is not known, so build support was not checked."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Run the wizard on the machine itself (with the NVIDIA driver installed) for a checked "
            "recommendation; the live test will show whether the build runs.",
        ),
    ),
    "GPU_PTX_ONLY": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "{build} carries no machine code for {gpu} (compute capability {capability}); it runs "
            "through PTX the driver compiles at first use.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The first run is slower (compiling can take minutes; the result is cached). The live "
            "test checks that it works.",
        ),
    ),
    "PYTHON_UNSUPPORTED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "{framework} {version} supports Python {python_range}, not Python {python}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "pip would answer 'No matching distribution found'. The plan uses Python {chosen} "
            "instead, in its own environment; your other Pythons stay as they are.",
        ),
    ),
    "CUDA_TOOLKIT_NOT_NEEDED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "{build} brings its own CUDA {cuda} and cuDNN: no CUDA toolkit is needed, only the driver.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed. "
            "Toolkits already on disk are not used by it.",
        ),
    ),
    "CUDA_TOOLKIT_NOT_NEEDED:conda": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "conda-forge supplies CUDA {cuda} and cuDNN {cudnn} inside the environment for {build}: no system CUDA toolkit is needed.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed: "
            "activating the environment makes its DLLs visible.",
        ),
    ),
    "CUDA_TOOLKIT_MISSING": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "{build} needs a CUDA {cuda} toolkit on the system, and none was found."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install CUDA {cuda} from NVIDIA's CUDA Toolkit Archive "
            "(https://developer.nvidia.com/cuda-toolkit-archive), or choose conda, which supplies "
            "CUDA and cuDNN inside the environment.",
        ),
    ),
    "CUDNN_MISSING": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP("findings", "{build} needs cuDNN {cudnn} on the system, and none was found."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Download cuDNN {cudnn} for CUDA {cuda} from NVIDIA's cuDNN archive "
            "(https://developer.nvidia.com/rdp/cudnn-archive) and unzip it, or choose conda, which "
            "supplies it inside the environment.",
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
    # --- PATH editing (core/path_algebra.py, workflow/path_changes.py) -----------------
    "PATH_REG_SZ_WITH_VARS": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "The {scope} PATH is stored as REG_SZ but holds %VARIABLE% references: {variables}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Windows expands %VARIABLES% only in REG_EXPAND_SZ values, so these entries reach "
            "programs as literal text and their folders are never searched. Repair it: "
            "'gpuwizard path repair --scope {scope}' rewrites the same value as REG_EXPAND_SZ "
            "(journaled; 'gpuwizard path undo' reverts it).",
        ),
    ),
    "PATH_SYSTEM_CUDA_FIRST": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "The system PATH already holds CUDA {other_versions}, and Windows puts the system "
            "PATH before the user PATH, so programs find that CUDA before {version}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "DLLs with the same name (cuDNN's, for one) load from the first folder on PATH. Add "
            "the folders to the system PATH instead (--scope system, with the administrator's "
            "consent), or remove the other version from the system PATH.",
        ),
    ),
    "PATH_ENTRY_MISSING": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP("findings", "The {scope} PATH names folders that do not exist: {entries}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "They do no harm but make PATH longer; software that was uninstalled often leaves "
            "them behind. 'gpuwizard path remove' removes them (with undo).",
        ),
    ),
    "PATH_DUPLICATE_ENTRY": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP("findings", "The {scope} PATH names some folders more than once: {entries}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Only the first one counts. Duplicates make PATH longer, and it cannot grow past "
            "32,767 characters.",
        ),
    ),
    "PATH_RESTART_PROGRAMS": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP("findings", "Programs that are already running keep the PATH they started with."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Windows told Explorer about the change, so programs started from now on see it. "
            "Close and reopen terminals, VS Code, PyCharm, Jupyter and Anaconda Prompt that are "
            "open now: {programs}.",
        ),
    ),
    # --- diagnosis of logs and tracebacks (core/diagnosis.py) ---------------------------
    # Each code is recognised from a message users reported; the reports are listed in
    # tests/fixtures/recorded/diagnose/SOURCES.md. ``variant`` "log" texts speak of what a log
    # showed, where the base text speaks of what detection found.
    "DLL_NOT_FOUND": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "A library the GPU needs could not be loaded: {libraries}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Frameworks load CUDA and cuDNN from their own packages or from the library search path "
            "(PATH on Windows, LD_LIBRARY_PATH on Linux). Install the CUDA and cuDNN versions your "
            "framework build expects and put their folders on that path, or use an environment "
            "that brings its own copies (PyTorch wheels, 'tensorflow[and-cuda]' on Linux, conda). "
            "If this machine has no NVIDIA GPU, the framework runs on the CPU and this can be ignored.",
        ),
    ),
    "DLL_NOT_FOUND:cuda": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "A library the GPU needs could not be loaded: {libraries} (part of {components})."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install {components} as your framework build expects and put its folder on the library "
            "search path (the bin folder on PATH on Windows, LD_LIBRARY_PATH on Linux), or use an "
            "environment that brings its own copies (PyTorch wheels, 'tensorflow[and-cuda]' on "
            "Linux, conda). TensorFlow 2.10, the last with GPU support on native Windows, needs "
            "CUDA 11.2 and cuDNN 8.1. If this machine has no NVIDIA GPU, the framework runs on "
            "the CPU and this can be ignored.",
        ),
    ),
    "DLL_NOT_FOUND:driver": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA driver library could not be loaded ({libraries}): no NVIDIA driver is visible here.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the NVIDIA driver from " + NVIDIA_DRIVER_DOWNLOAD + " and restart. In a "
            "container, start it with GPU access ('docker run --gpus all ...'); in WSL 2, install "
            "the driver on Windows, not inside WSL.",
        ),
    ),
    "TF_CANNOT_DLOPEN_GPU_LIBS": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow could not load all its GPU libraries, so it skipped the GPU and runs on the CPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "On Linux, TensorFlow 2.14 and newer install the CUDA libraries with pip: "
            "'pip install tensorflow[and-cuda]' (and LD_LIBRARY_PATH should not point to another "
            "CUDA). Older releases need the CUDA and cuDNN versions listed for them in TensorFlow's "
            "tested build configurations. The lines above this message name the missing libraries.",
        ),
    ),
    "TF_CANNOT_DLOPEN_GPU_LIBS:windows": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow could not load all its GPU libraries, so it skipped the GPU and runs on the CPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "On native Windows, TensorFlow 2.10 is the last release with GPU support: it needs "
            "CUDA 11.2 and cuDNN 8.1 with their bin folders on PATH (or in a conda environment: "
            "'conda install -c conda-forge cudatoolkit=11.2 cudnn=8.1.0'). TensorFlow 2.11 and "
            "newer use the GPU only inside WSL 2.",
        ),
    ),
    "NO_KERNEL_IMAGE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The installed build has no code for this GPU ('no kernel image is available for "
            "execution on the device').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install a build that includes your GPU's architecture: an RTX 50-series GPU (Blackwell, "
            "sm_120) needs PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example "
            "'pip install torch --index-url https://download.pytorch.org/whl/cu128'; an old GPU needs "
            "an older release that still supports it. If the error comes from an extension built "
            "separately (detectron2, mamba-ssm, flash-attn), rebuild or reinstall it for this GPU.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED:log": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{gpu} (CUDA capability {capability}) is not supported by the installed PyTorch build.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install a PyTorch build that includes {capability}: for RTX 50-series GPUs (sm_120) that "
            "is PyTorch 2.7 or newer from a CUDA 12.8 or newer index, for example 'pip install torch "
            "--index-url https://download.pytorch.org/whl/cu128'. For a GPU that newer builds "
            "dropped, install an older release or CUDA variant whose list includes it. Until then, "
            "GPU work fails with 'no kernel image is available for execution on the device'.",
        ),
    ),
    "GPU_ARCH_UNSUPPORTED:too_old": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "{gpu} (compute capability {capability}) is too old for the installed PyTorch."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "PyTorch builds drop old GPU generations over time. Install an older PyTorch release "
            "that still supports compute capability {capability}, build PyTorch from source for it, "
            "or use the CPU build.",
        ),
    ),
    "DRIVER_TOO_OLD:log": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA driver is too old for the CUDA version of the installed framework build "
            "('CUDA driver version is insufficient').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Update the NVIDIA driver from " + NVIDIA_DRIVER_DOWNLOAD + " and restart, or install a "
            "framework build for an older CUDA. In a container, the host's driver is the one that "
            "counts.",
        ),
    ),
    "DRIVER_TOO_OLD:log_cuda": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The NVIDIA driver supports CUDA up to {driver_cuda}, which is older than the CUDA of the "
            "installed PyTorch build.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Update the NVIDIA driver from " + NVIDIA_DRIVER_DOWNLOAD + " and restart, or install a "
            "PyTorch build for CUDA {driver_cuda} or older (the matching cuXXX index on pytorch.org).",
        ),
    ),
    "GPU_OUT_OF_MEMORY": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The GPU ran out of memory."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Use a smaller batch size or model, or free the GPU: close other programs that use it "
            "('nvidia-smi' lists them). In PyTorch, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
            "can help against fragmentation; in TensorFlow, enable memory growth "
            "(tf.config.experimental.set_memory_growth) so it does not reserve all GPU memory at start.",
        ),
    ),
    "GPU_OUT_OF_MEMORY:size": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The GPU ran out of memory (it could not allocate {size})."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Use a smaller batch size or model, or free the GPU: close other programs that use it "
            "('nvidia-smi' lists them). In PyTorch, PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
            "can help against fragmentation; in TensorFlow, enable memory growth "
            "(tf.config.experimental.set_memory_growth) so it does not reserve all GPU memory at start.",
        ),
    ),
    "CPU_ONLY_BUILD": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The installed framework is a CPU-only build: it cannot use the GPU."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install its GPU build. PyTorch: from the CUDA index that fits your driver, for example "
            "'pip install torch --index-url https://download.pytorch.org/whl/cu126' (on Windows, "
            "torch from PyPI is CPU-only). TensorFlow: on Linux 'pip install tensorflow[and-cuda]'; "
            "on native Windows, TensorFlow 2.11 and newer have no GPU build (use WSL 2, or "
            "TensorFlow 2.10).",
        ),
    ),
    "CPU_ONLY_BUILD:pytorch": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The installed PyTorch is a CPU-only build ('Torch not compiled with CUDA enabled')."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Uninstall torch and install a CUDA build from the index that fits your driver, for "
            "example 'pip install torch --index-url https://download.pytorch.org/whl/cu126' (on "
            "Windows, torch from PyPI is CPU-only; macOS has no CUDA build). Without an NVIDIA "
            "GPU, run the code on the CPU instead (device 'cpu').",
        ),
    ),
    "ZLIBWAPI_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "cuDNN could not find zlibwapi.dll."),
        QT_TRANSLATE_NOOP(
            "findings",
            "cuDNN 8.3 and newer 8.x releases on Windows need zlibwapi.dll, which is not part of "
            "cuDNN or CUDA (NVIDIA's cuDNN 8 installation guide, 'Installing Zlib'). Put a 64-bit "
            "zlibwapi.dll in a folder on PATH, such as CUDA's bin folder, or use conda-forge's cudnn "
            "package, which brings it.",
        ),
    ),
    "TORCH_DLL_LOAD_FAILED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "Windows could not load {library}, a part of PyTorch, or a DLL it depends on."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The file is usually there; what is missing is a DLL it needs, most often the Microsoft "
            "Visual C++ Redistributable: install the latest x64 version "
            "(https://aka.ms/vs/17/release/vc_redist.x64.exe) and restart. PyTorch 2.4.0 on Windows "
            "failed this way on fbgemm.dll, fixed in 2.4.1 (pytorch/pytorch#131662). If it "
            "persists, reinstall torch in a fresh environment.",
        ),
    ),
    "NO_MATCHING_DISTRIBUTION": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The installer found no installable version of {requirements}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Usual causes: a Python version the package does not support yet (or any more), a 32-bit "
            "Python (PyTorch and TensorFlow publish 64-bit packages only), a name or version that "
            "does not exist (PyTorch's CUDA builds such as +cu118 are on download.pytorch.org, "
            "not PyPI), or no access to the package index. Let the wizard pick a Python and a "
            "version that exist together.",
        ),
    ),
    "NO_MATCHING_DISTRIBUTION:versions": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The installer found no installable version of {requirements}; versions available "
            "here: {versions}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Usual causes: a Python version the package does not support yet (or any more), a 32-bit "
            "Python (PyTorch and TensorFlow publish 64-bit packages only), a name or version that "
            "does not exist (PyTorch's CUDA builds such as +cu118 are on download.pytorch.org, "
            "not PyPI), or no access to the package index. Let the wizard pick a Python and a "
            "version that exist together.",
        ),
    ),
    "TENSORFLOW_GPU_PACKAGE_REMOVED:log": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "The 'tensorflow-gpu' package was removed; 'tensorflow' is the GPU package."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install 'tensorflow' instead and replace 'tensorflow-gpu' in requirement files (on "
            "Linux, 'pip install tensorflow[and-cuda]' also installs the CUDA libraries). Since "
            "December 2022 'tensorflow-gpu' is an empty package that fails on install; the two "
            "were the same package since TensorFlow 2.1.",
        ),
    ),
    "CUDNN_INTERNAL_ERROR": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "cuDNN failed to start (CUDNN_STATUS_INTERNAL_ERROR or 'Failed to get convolution algorithm').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Usual causes: the GPU memory was already full when cuDNN started (TensorFlow reserves "
            "nearly all GPU memory by default: enable memory growth with "
            "tf.config.experimental.set_memory_growth, and close other programs that use the GPU), "
            "or a cuDNN that does not match the framework build (install the cuDNN your build "
            "expects, or use an environment that brings its own).",
        ),
    ),
    "CUDNN_VERSION_MISMATCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The framework was built with cuDNN {compiled}, but cuDNN {loaded} was loaded."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The loaded cuDNN must have the same major version and an equal or newer minor version. "
            "Another cuDNN on the library search path is found first: remove it from PATH or "
            "LD_LIBRARY_PATH, or install cuDNN {compiled} or a newer {major}.x; environments that "
            "bring their own cuDNN (pip or conda) avoid this.",
        ),
    ),
    "LONG_PATHS_DISABLED:log": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "Installing failed on a file path longer than Windows' classic 260-character limit: "
            "Windows long-path support is probably off.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Either enable long paths (an administrator sets HKLM\\SYSTEM\\CurrentControlSet\\"
            "Control\\FileSystem\\LongPathsEnabled to 1, as the TensorFlow install guide says), or "
            "create the environment in a short folder such as C:\\envs.",
        ),
    ),
    "MS_STORE_PYTHON:log": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP("findings", "The log shows the Microsoft Store build of Python {python}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "The Store build installs packages in a deep, redirected folder under "
            "AppData\\Local\\Packages, which reaches Windows' path length limit sooner, and it is "
            "known to break DLL loading for CUDA (TensorFlow issues #48868, #61438). Use a Python "
            "from python.org, or let the wizard create the environment with a uv-managed Python.",
        ),
    ),
    # --- live training test (core/live_test.py) ---------------------------------------
    "PYTHON_NOT_FOUND": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The interpreter {python} does not exist or cannot be run."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check the path (the environment may have been moved or removed); `gpuwizard env list` "
            "shows the interpreters of the environments the wizard made.",
        ),
    ),
    "FRAMEWORK_NOT_IMPORTABLE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The framework cannot be imported in this environment ({error})."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install it into this environment (`gpuwizard env create` makes one with the right build), "
            "or test the environment that has it with --env NAME or --python EXE.",
        ),
    ),
    "TEST_PROBE_FAILED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The training test stopped with an error: {error}"),
        QT_TRANSLATE_NOOP(
            "findings",
            "Look at the other findings for the known cause; run `gpuwizard diagnose` on the full "
            "output if none is shown.",
        ),
    ),
    "TEST_PROBE_KILLED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The training test was stopped before it finished ({reason})."),
        QT_TRANSLATE_NOOP(
            "findings",
            "A test that hangs usually waits for a GPU that another process holds, or for a driver "
            "that no longer answers: check `nvidia-smi`, close other GPU programs, and run it again.",
        ),
    ),
    "TRAINING_DID_NOT_LEARN": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The model did not learn: the loss went from {loss_first} to {loss_last}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A loss that does not fall on this simple task means wrong results from the framework or "
            "the GPU: update the driver, and reinstall the framework build the wizard recommends.",
        ),
    ),
    "GPU_RESULTS_DIFFER": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The GPU computed different results from the CPU (difference {difference}, allowed {tolerance}).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Wrong GPU results come from an unstable overclock, overheating or failing hardware, or a "
            "framework build that does not match the GPU: reset clocks to default, update the driver, "
            "and run the test again.",
        ),
    ),
    "GPU_NOT_VISIBLE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The framework has GPU support but sees no GPU, although this machine has one."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides every GPU), that the "
            "driver is new enough for the framework's CUDA build, and, in a container, that it was "
            "started with GPU access (--gpus all).",
        ),
    ),
    "GPU_SLOWER_THAN_EXPECTED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "The GPU trained only {speedup}x as fast as the CPU (expected at least {expected}x)."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Another program may be using the GPU, the card may be in a power-saving state or "
            "throttling from heat, or (laptops) the integrated GPU may be doing the display work "
            "the NVIDIA GPU should do: check `nvidia-smi` while the test runs, plug the laptop in, "
            "and choose the high-performance GPU for Python.",
        ),
    ),
    # --- drift since the last good state (gpuwizard verify) ----------------------------------
    "DRIFT_DRIVER_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA driver changed since the last good state: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the other checks pass: a newer driver runs every build an older "
            "one ran (NVIDIA CUDA Compatibility guide). A healthy verify records the new driver.",
        ),
    ),
    "DRIFT_DRIVER_GONE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA driver ({before} at the last good state) no longer answers."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the NVIDIA driver from " + NVIDIA_DRIVER_DOWNLOAD + " (on Ubuntu: "
            "'sudo ubuntu-drivers install'), restart the computer, and run 'gpuwizard verify' "
            "again. An interrupted driver update, or a Linux kernel update without the driver's "
            "module, leaves this state.",
        ),
    ),
    "DRIFT_DRIVER_TOO_OLD_FOR_BUILD": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA driver {driver} is too old for the framework build of {builds}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install driver {min_driver} or newer from " + NVIDIA_DRIVER_DOWNLOAD + " and restart; "
            "or recreate the environment with 'gpuwizard env create NAME --framework F --replace', "
            "which chooses a build this driver runs.",
        ),
    ),
    "DRIFT_GPU_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "Fewer NVIDIA GPUs answer than at the last good state: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Run 'nvidia-smi': a GPU that fell off the bus ('GPU is lost', Xid 79) needs a restart; "
            "check its power cables and seating; in a VM or container, check that the GPU is still "
            "passed through. Then run 'gpuwizard verify' again.",
        ),
    ),
    "DRIFT_GPU_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA GPUs changed since the last good state: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the live test passes; a GPU of a newer generation may need a newer "
            "framework build, which 'gpuwizard recommend' names.",
        ),
    ),
    "DRIFT_ENV_INTERPRETER_BROKEN": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The Python interpreter of {env} ({python}) does not run any more: {error}"
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The Python it was made from was probably removed or upgraded, or its folder was moved. "
            "Recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_PYTHON_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP("findings", "The interpreter of {env} changed: {before} then, {after} now."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the framework still imports: the Python it was made from got a "
            "patch release.",
        ),
    ),
    "DRIFT_FRAMEWORK_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "{framework} is no longer installed in {env}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the recorded build: {reinstall}  Or recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_FRAMEWORK_BROKEN": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "{framework} no longer imports in {env}: {error}"),
        QT_TRANSLATE_NOOP(
            "findings",
            "A later install broke it. Reinstall the recorded build: {reinstall}  Or recreate the "
            "environment: {recreate}",
        ),
    ),
    "DRIFT_CPU_BUILD_SWAPPED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "A CPU build of {framework} was swapped in for the CUDA build in {env}: {before} then, "
            "{after} now; it cannot use the GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the CUDA build: {reinstall}  Or recreate the environment: {recreate}  Install "
            "other packages with the environment activated, so pip and uv read its constraints file "
            "and cannot swap the build again.",
        ),
    ),
    "DRIFT_BUILD_UPDATED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} in {env} changed from {before} to {after}, the build its constraints file pins.",
        ),
        QT_TRANSLATE_NOOP(
            "findings", "Nothing to do while the live test passes: the new build was pinned on purpose."
        ),
    ),
    "DRIFT_BUILD_CHANGED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} in {env} changed from {before} to {after}, which its constraints file does not allow.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Put the pinned build back: {reinstall}  Or, to keep the new build, recreate the environment "
            "with it: {recreate}",
        ),
    ),
    "DRIFT_CONSTRAINTS_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The constraints file of {env} is missing: {path}"),
        QT_TRANSLATE_NOOP(
            "findings",
            "Without it nothing stops a later install from replacing the framework build, and the "
            "environment's pip fails because its configuration names the file. Write the line "
            "'{pin}' into {path}, or recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_CONSTRAINTS_MISSING:pin": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The constraints file of {env} no longer pins the framework: {path}"),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing stops a later install from replacing the framework build. Add the line '{pin}' "
            "to {path}, or recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_CONSTRAINTS_MISMATCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The constraints file of {env} pins {pin}, but {installed} is installed."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the pinned build: {reinstall}  Or, to keep the installed build, change the "
            "line in {path} to '{wanted}'.",
        ),
    ),
    "DRIFT_CONSTRAINTS_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "The constraints file of {env} changed its pin: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the installed build matches it and the live test passes ({path}).",
        ),
    ),
    "DRIFT_DEVICES_LOST": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} in {env} sees fewer GPUs than at the last good state: {before} then, {after} now.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides GPUs), that "
            "'nvidia-smi' lists every GPU, and that the driver is new enough for the build; then "
            "run 'gpuwizard verify' again.",
        ),
    ),
    "DRIFT_TEST_WORSE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The short live test in {env} gave {after}; at the last good state it gave {before}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The test says: {reason} Fix that (the other checks above may name the cause), then run "
            "'gpuwizard test --env {env}' for the full test.",
        ),
    ),
    "DRIFT_TEST_WORSE:unrecorded": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The short live test in {env} gave {after}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "The test says: {reason} Fix that, then run 'gpuwizard test --env {env}' for the full "
            "test; once it passes, it is recorded as the last good state.",
        ),
    ),
    "DRIFT_TEST_SLOWER": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "The GPU in {env} still trains, but no longer clearly faster than the CPU ({before} then, {after} now).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Another program may be using the GPU, or it is throttling from heat or power saving: "
            "check 'nvidia-smi' and run 'gpuwizard test --env {env}' for the full measurement.",
        ),
    ),
    "DRIFT_PATH_ENTRY_REMOVED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "{folder}, which the wizard added to the {scope} PATH, is no longer on it."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "An installer or another tool rewrote PATH. Add it back: {command}  ('gpuwizard path "
            "history' shows what the wizard changed.)",
        ),
    ),
    "DRIFT_PATH_ENTRY_DROPPED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "{folder} was removed from the {scope} PATH with gpuwizard after the last good state."
        ),
        QT_TRANSLATE_NOOP("findings", "Nothing to do if that was meant; to add it back: {command}"),
    ),
}
