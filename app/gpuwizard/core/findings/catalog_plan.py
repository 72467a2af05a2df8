"""Finding texts about a plan: the recommendation (builds, drivers, Python, toolkits) and PATH editing.

What ``gpuwizard recommend`` and the PATH changes say. One part of
:data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import NVIDIA_DRIVER_DOWNLOAD, FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The templates of plans, by code (and ``CODE:variant``).
PLAN_TEMPLATES: Final[dict[str, FindingTemplate]] = {
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
    "GPU_ARCH_UNSUPPORTED:library": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} {version} bundles {library} {library_version}, which no longer supports {gpu} "
            "(compute capability {capability}; NVIDIA's support matrix lists {minimum} and newer).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Its kernels would load, but {library} calls fail on this GPU. {instead}",
        ),
    ),
    "RELEASE_NOT_VERIFIED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} {version} is published ({index}), but its build matrix is not in the compatibility data yet.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Which GPUs, drivers and Pythons its builds support is not verified, so the plan stays on "
            "{plan}. The data is updated weekly: run 'gpuwizard recommend --refresh' later.",
        ),
    ),
    "RELEASE_NOT_VERIFIED:wished": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} {version} is published ({index}), but its build matrix is not in the compatibility data yet.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Which GPUs, drivers and Pythons its builds support is not verified, so this is the newest "
            "verified plan instead: {plan}. Run 'gpuwizard recommend --refresh' later for {version}.",
        ),
    ),
    "RELEASE_NOT_VERIFIED:unchecked": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} {version} is newer than the compatibility data knows, and the package index could not be asked whether it exists.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "This is the newest verified plan instead: {plan}. With network, 'gpuwizard recommend "
            "--refresh' checks the index and fetches newer data.",
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
    "CUDA_TOOLKIT_NOT_NEEDED:wheels": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "NVIDIA's CUDA {cuda_wheels} and cuDNN {cudnn_wheels} wheels bring the DLLs {build} loads "
            "into the environment: no CUDA toolkit or cuDNN download is needed, only the driver.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Do not install a CUDA toolkit or cuDNN for it, and no PATH changes are needed: the "
            "environment's Python finds the DLLs however it is started, activated or not.",
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
    # --- PATH editing (core/pathedit/algebra.py, workflow/pathedit/changes.py) -----------------
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
}
