"""Finding texts of failures: the diagnosis of logs and tracebacks, and the live training test.

What ``gpuwizard diagnose`` recognises in a log and what a failed live test means. One part of
:data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import NVIDIA_DRIVER_DOWNLOAD, FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

# Texts that several variants share (one source, one translation).
_TORCH_DLL_NOT_LOADED: Final = QT_TRANSLATE_NOOP(
    "findings", "Windows could not load {library}, a part of PyTorch, or a DLL it depends on."
)
_CUDNN_FAILED_TO_START: Final = QT_TRANSLATE_NOOP(
    "findings",
    "cuDNN failed to start (CUDNN_STATUS_INTERNAL_ERROR or 'Failed to get convolution algorithm').",
)

#: The templates of failures, by code (and ``CODE:variant``).
FAILURE_TEMPLATES: Final[dict[str, FindingTemplate]] = {
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
    # PyTorch has no CUDA on macOS; Apple GPUs are used through the "mps" device (PyTorch's
    # "MPS backend" notes: https://pytorch.org/docs/stable/notes/mps.html, macOS 12.3 or newer).
    "CPU_ONLY_BUILD:macos": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The code asked for a CUDA GPU on a Mac, where PyTorch has no CUDA ('Torch not compiled "
            "with CUDA enabled').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "No PyTorch build for macOS uses CUDA, so installing another one will not help. Use the "
            "Mac's own GPU through the 'mps' device instead of 'cuda' (torch.device('mps'); "
            "torch.backends.mps.is_available() tells whether it works: Apple silicon, macOS 12.3 or "
            "newer), or the CPU. Many programs have an option for it (--device mps, --cpu); code "
            "that calls torch.cuda functions directly must be changed to do so.",
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
        _TORCH_DLL_NOT_LOADED,
        QT_TRANSLATE_NOOP(
            "findings",
            "The file is usually there; what is missing is a DLL it needs, most often the Microsoft "
            "Visual C++ Redistributable: install the latest x64 version "
            "(https://aka.ms/vs/17/release/vc_redist.x64.exe) and restart. PyTorch 2.4.0 on Windows "
            "failed this way on fbgemm.dll, fixed in 2.4.1 (pytorch/pytorch#131662). If it "
            "persists, reinstall torch in a fresh environment.",
        ),
    ),
    # PyTorch 2.4.0's Windows wheels: fbgemm.dll needs libomp140.x86_64.dll, which they did not
    # bring (pytorch/pytorch#129568, #131662), fixed in 2.4.1. Chosen for fbgemm.dll unless the
    # log shows another torch version: that bug is by far its most reported cause.
    "TORCH_DLL_LOAD_FAILED:fbgemm": FindingTemplate(
        "error",
        _TORCH_DLL_NOT_LOADED,
        QT_TRANSLATE_NOOP(
            "findings",
            "Most often this is PyTorch 2.4.0's known failure on Windows: fbgemm.dll needs "
            "libomp140.x86_64.dll, which that release did not bring (pytorch/pytorch#129568), fixed "
            "in 2.4.1. Install torch 2.4.1 or newer from the same index, for example 'pip install "
            "torch==2.4.1 --index-url https://download.pytorch.org/whl/cu121'. With another version, "
            "install the latest x64 Microsoft Visual C++ Redistributable "
            "(https://aka.ms/vs/17/release/vc_redist.x64.exe) and restart.",
        ),
    ),
    # The 32-bit cause is named only where the log shows a 32-bit Python or a Windows install
    # that found no version at all (diagnosis.py, _NO_MATCH_32BIT); an offline install from a
    # folder of wheels that lacks a package is said as such (issue 20, point 6).
    "NO_MATCHING_DISTRIBUTION": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The installer found no installable version of {requirements}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Usual causes: a Python version the package does not support yet (or any more), a name "
            "or version that does not exist (PyTorch's CUDA builds such as +cu118 are on "
            "download.pytorch.org, not PyPI), or no access to the package index. Let the wizard "
            "pick a Python and a version that exist together.",
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
            "Usual causes: a Python version the package does not support yet (or any more), a name "
            "or version that does not exist (PyTorch's CUDA builds such as +cu118 are on "
            "download.pytorch.org, not PyPI), or no access to the package index. Let the wizard "
            "pick a Python and a version that exist together.",
        ),
    ),
    "NO_MATCHING_DISTRIBUTION:32bit": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The installer found no installable version of {requirements}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "This looks like a 32-bit Python, or one too new or too old for the package: PyTorch "
            "and TensorFlow publish 64-bit packages only, for a range of Python versions. Install "
            "a 64-bit Python from python.org that the framework supports and let the wizard pick "
            "the version.",
        ),
    ),
    # The log shows which Python ran and no sign of a 32-bit one: the Python version is the likely
    # cause (PyTorch and TensorFlow publish wheels for a range of Pythons per release:
    # resources/compat/pytorch.json and tensorflow.json, read from their wheels' tags).
    "NO_MATCHING_DISTRIBUTION:python": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The installer found no installable version of {requirements} for Python {python}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Most likely no release of it publishes wheels for Python {python} (yet, or any more): "
            "frameworks support a range of Python versions per release. Create the environment with "
            "a Python the release supports, for example 'uv venv --python 3.12', and install again; "
            "'gpuwizard recommend --framework pytorch' (or tensorflow) names the Python for each "
            "release. A 32-bit Python finds no version either: PyTorch and TensorFlow publish "
            "64-bit packages only.",
        ),
    ),
    # uv's guide to PyTorch (docs.astral.sh/uv/guides/integration/pytorch/, "Using a PyTorch
    # index"): a project that serves several platforms gives each index a platform marker.
    "NO_MATCHING_DISTRIBUTION:platform": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The installer picked {requirements}, which has no wheel for this platform."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The index has that version only for other operating systems or processors (uv's hint "
            "names them). Install a version that has a wheel here: for PyTorch's CUDA builds, one "
            "from the index of a CUDA variant that publishes this platform (on Windows, win_amd64: "
            "'gpuwizard recommend --framework pytorch' names one). In a uv project, give the "
            'PyTorch index a platform marker in tool.uv.sources (marker = "sys_platform == '
            "'linux'\"), as uv's PyTorch guide shows, and lock again.",
        ),
    ),
    "NO_MATCHING_DISTRIBUTION:wheel_folder": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The folder of wheels has no installable {requirements}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "The install took packages only from a local folder of wheels (offline, --find-links, "
            "no package index), and that folder lacks {requirements}, which the packages being "
            "installed depend on; the Python version is not the problem. On a machine with "
            "internet, download the framework with all its dependencies into the folder for this "
            "machine's Python and platform ('pip download --dest FOLDER --only-binary=:all: "
            "--python-version X.Y --platform TAG PACKAGE'), then install again. The wizard's Choose "
            "page and 'gpuwizard env create --offline' check a folder first and show the exact "
            "command.",
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
        _CUDNN_FAILED_TO_START,
        QT_TRANSLATE_NOOP(
            "findings",
            "Usual causes: the GPU memory was already full when cuDNN started (TensorFlow reserves "
            "nearly all GPU memory by default: enable memory growth with "
            "tf.config.experimental.set_memory_growth, and close other programs that use the GPU), "
            "or a cuDNN that does not match the framework build (install the cuDNN your build "
            "expects, or use an environment that brings its own).",
        ),
    ),
    # The same failure in PyTorch, which allocates GPU memory as it goes (no memory growth to
    # turn on); a cuDNN on LD_LIBRARY_PATH shadows the one its wheels bring (pytorch/pytorch#80877).
    "CUDNN_INTERNAL_ERROR:torch": FindingTemplate(
        "error",
        _CUDNN_FAILED_TO_START,
        QT_TRANSLATE_NOOP(
            "findings",
            "Usual causes in PyTorch: GPU memory was already nearly full (other programs: "
            "'nvidia-smi' lists them; or a batch too large: make it smaller), another cuDNN shadowing "
            "the one PyTorch brings (unset LD_LIBRARY_PATH, or remove a CUDA folder from PATH, for "
            "this environment), or a build older than the GPU (install a current one). Running once "
            "with CUDA_LAUNCH_BLOCKING=1 shows the call that failed.",
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
    # --- live training test (core/livetest/judge.py) ---------------------------------------
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
}
