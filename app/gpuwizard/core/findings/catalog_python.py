"""Finding texts of what :mod:`gpuwizard.core.findings.diagnosis_python` recognises.

One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts. The real
logs behind each text are listed in tests/fixtures/recorded/diagnose/SOURCES.md.

Facts the hints rely on:

- pip and uv install a wheel only when its tags match the interpreter (``cp313`` for CPython
  3.13; packaging.python.org/en/latest/specifications/platform-compatibility-tags/), and skip a
  release whose ``Requires-Python`` excludes it. PyTorch and TensorFlow publish wheels for a
  range of Python versions per release (resources/compat/pytorch.json and tensorflow.json, with
  their sources): PyTorch 2.2 to 2.14 cover Python 3.12 (2.9 to 2.14 cover 3.10 to 3.14; PyTorch's
  RELEASE.md, "Release Compatibility Matrix"), TensorFlow 2.16 to 2.21 cover Python 3.12 (2.20 and
  2.21 up to 3.13; tensorflow.org/install/pip and install/source, "Tested build configurations").
  So Python 3.12 is the one version both frameworks' current releases share.
- TensorFlow's Windows packages since 2.1 are built with Visual Studio 2019 and need the
  "Microsoft Visual C++ Redistributable for Visual Studio 2015, 2017 and 2019" (its
  msvcp140_1.dll; TensorFlow 2.1.0 release notes, RELEASE.md); the current redistributable is at
  https://aka.ms/vs/17/release/vc_redist.x64.exe (learn.microsoft.com/en-us/cpp/windows/
  latest-supported-vc-redist).
- "Prebuilt binaries will use AVX instructions. This may break TF on older CPUs." (TensorFlow 1.6.0
  release notes; tensorflow.org/install/pip, "Hardware requirements"). A CPU without AVX makes
  the DLL's initialisation fail: Windows error 1114.
- TensorFlow 2.0 and older linked the CUDA runtime and cuDNN of one CUDA release into its GPU
  build (tensorflow/python/platform/self_check.py names cudart64_100.dll for 2.0); the last GPU
  release for native Windows is 2.10, with CUDA 11.2 and cuDNN 8.1 (tensorflow.org/install/pip,
  "Windows Native").
- TensorFlow publishes 64-bit Windows packages only (PyPI: win_amd64 wheels, no win32).
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

_TF_DLL_CHECKS: Final = QT_TRANSLATE_NOOP(
    "findings",
    "Check, in this order: install the latest Microsoft Visual C++ Redistributable (x64) from "
    "https://aka.ms/vs/17/release/vc_redist.x64.exe and restart; check that the CPU supports AVX (TensorFlow's packages need it since 1.6); "
    "check that Python is 64-bit ('python -c \"import struct; print(struct.calcsize('P') * 8)\"' "
    "prints 64) and a version the TensorFlow release supports; for tensorflow-gpu 2.10 or older, "
    "put the CUDA and cuDNN DLLs of its release on PATH. Then reinstall tensorflow in a fresh "
    "virtual environment.",
)

# Texts that several variants share (one source, one translation).
_TF_DLL_UNKNOWN: Final = QT_TRANSLATE_NOOP(
    "findings",
    "TensorFlow's native library could not be loaded on Windows ('DLL load failed'); the log "
    "does not say which cause.",
)

#: The templates, by code (and ``CODE:variant``).
PYTHON_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    "PYTHON_VERSION_NO_WHEELS": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "{package} has no installable version for Python {python}: no wheels for this Python."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Frameworks publish wheels for a range of Python versions per release, and Python "
            "{python} is outside it. Create the environment with a Python the release supports: "
            "Python 3.12 works with every PyTorch from 2.2 and TensorFlow 2.16 to 2.21 (TensorFlow "
            "2.20 and newer also support 3.13, PyTorch 2.9 and newer 3.14), e.g. 'uv venv --python "
            "3.12' or 'conda create -n ENV python=3.12'. For an old pinned release, use the older "
            "Python it was built for, or a newer release of {package} that supports Python {python}. "
            "The wizard's Choose page picks a Python and a build that exist together.",
        ),
    ),
    "PYTHON_VERSION_NO_WHEELS:listed": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{package} has wheels for Python {available} only, not for Python {python}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Create the environment with Python {suggested}, the newest of those: 'uv venv --python "
            "{suggested}' (uv downloads it if needed) or 'conda create -n ENV python={suggested}', "
            "then install again. Or choose a newer release of {package} that has wheels for Python "
            "{python}; the wizard's Choose page picks a Python and a build that exist together.",
        ),
    ),
    "TF_DLL_LOAD_FAILED": FindingTemplate(
        "error",
        _TF_DLL_UNKNOWN,
        _TF_DLL_CHECKS,
    ),
    "TF_DLL_LOAD_FAILED:unknown": FindingTemplate(
        "error",
        _TF_DLL_UNKNOWN,
        _TF_DLL_CHECKS,
    ),
    "TF_DLL_LOAD_FAILED:avx": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow's native library failed to initialise (Windows error 1114, 'DLL "
            "initialization routine failed'): most likely this CPU lacks the AVX instructions "
            "TensorFlow's packages need.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow's official packages use AVX since release 1.6. Check the CPU: look its model "
            "up on the maker's site (Settings > System > About names it), or run Microsoft's "
            "Coreinfo, which marks AVX with '*' when the CPU has it. Without AVX, these packages "
            "cannot run here: use another machine or a hosted notebook (Colab), or a build made "
            "without AVX. With AVX, the other cause of this error is an old Visual C++ runtime: "
            "install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe, "
            "restart, and reinstall tensorflow in a fresh virtual environment.",
        ),
    ),
    "TF_DLL_LOAD_FAILED:msvc": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow's native library could not be loaded: a DLL it needs was not found (Windows "
            "error 126), most often the Microsoft Visual C++ runtime.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the latest Microsoft Visual C++ Redistributable (x64) from https://aka.ms/vs/17/release/vc_redist.x64.exe "
            "and restart: TensorFlow's Windows packages since 2.1 need its msvcp140_1.dll. If the "
            "error stays: check that Python is 64-bit and a version the TensorFlow release supports, "
            "and for tensorflow-gpu 2.10 or older that the CUDA and cuDNN DLLs of its release are on "
            "PATH; then reinstall tensorflow in a fresh virtual environment.",
        ),
    ),
    "TF_DLL_LOAD_FAILED:cuda": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow's GPU build could not be loaded: it needs {library}, a CUDA library of one "
            "CUDA release, and Windows did not find it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow 2.0 and older GPU builds load the exact CUDA and cuDNN release they were built "
            "for; the file name tells which (cudart64_100.dll is CUDA 10.0, cudart64_90.dll CUDA 9.0, "
            "cudnn64_7.dll cuDNN 7). Install that CUDA and cuDNN and put their bin folders on PATH; "
            "a renamed DLL of another release does not work. Better, use a current TensorFlow: the "
            "last GPU release for native Windows is 2.10 (CUDA 11.2, cuDNN 8.1), and newer releases "
            "use the GPU through WSL 2.",
        ),
    ),
    "TF_DLL_LOAD_FAILED:python": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow's native library could not be loaded, and the log shows a 32-bit Python: "
            "TensorFlow is built for 64-bit Python only.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install a 64-bit Python from python.org ('Windows installer (64-bit)') in the range your "
            "TensorFlow release supports (Python 3.12 for TensorFlow 2.16 to 2.21), create a fresh "
            "virtual environment with it and install tensorflow there.",
        ),
    ),
    "TF_DLL_LOAD_FAILED:store": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorFlow's native library could not be loaded, and the log shows the Microsoft Store "
            "build of Python.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The Store build runs in a sandbox that redirects its package folders, and loading "
            "TensorFlow's DLLs from there is known to fail (TensorFlow issues #48868, #61438). "
            "Install Python from python.org (64-bit), create a fresh virtual environment with it and "
            "install tensorflow there; install the latest Microsoft Visual C++ Redistributable (x64) "
            "from https://aka.ms/vs/17/release/vc_redist.x64.exe too.",
        ),
    ),
}
