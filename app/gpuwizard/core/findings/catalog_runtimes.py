"""Finding texts of what :mod:`gpuwizard.core.findings.diagnosis_runtimes` recognises.

One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts. The real
logs behind each text are listed in tests/fixtures/recorded/diagnose/SOURCES.md.

Facts the hints rely on:

- JAX's NVIDIA GPU support comes from ``pip install -U "jax[cuda12]"`` (or ``jax[cuda13]``): the
  CUDA plugin (jax-cuda12-plugin, jax-cuda12-pjrt) and NVIDIA's CUDA and cuDNN wheels. A plain
  ``pip install jax`` is the CPU build. NVIDIA GPUs are supported on Linux (x86_64, aarch64),
  experimentally on WSL 2, not on native Windows. With the pip CUDA wheels, ``LD_LIBRARY_PATH``
  should not point to other CUDA libraries, which would override the wheels' copies (JAX
  installation guide, "NVIDIA GPU", https://docs.jax.dev/en/latest/installation.html).
- JAX checks the CUDA libraries it loads: each must be at least as new as the one it was built
  with ("Found cuDNN version ..., but JAX was built against version ..., which is newer";
  jax/_src/xla_bridge.py and jaxlib/cuda/versions_helpers.cc). A PyTorch in the same environment
  that pins an older nvidia-cudnn-cu12 (cuDNN 8 up to PyTorch 2.3) is a frequent cause
  (jax-ml/jax#18027, #20519). jax, jaxlib and the CUDA plugin must come from one release
  (jax/_src/lib/__init__.py, check_jaxlib_version; jax-ml/jax#22416).
- ONNX Runtime's CUDA provider needs the CUDA and cuDNN major versions its build names: since
  1.19 the onnxruntime-gpu package on PyPI is built for CUDA 12 and cuDNN 9; a build for cuDNN 8
  does not work with cuDNN 9 and the reverse (CUDA Execution Provider, "Requirements",
  https://onnxruntime.ai/docs/execution-providers/CUDA-ExecutionProvider.html#requirements).
  When it cannot load them it falls back to the CPU provider with a warning. Recent
  onnxruntime-gpu wheels declare the extras ``cuda`` and ``cudnn`` (NVIDIA's nvidia-*-cu12
  wheels; the 1.23.2 wheel's metadata, as repackaged at
  gpo.zugaina.org/dev-python/onnxruntime-gpu), and since 1.21 ``onnxruntime.preload_dlls()``
  loads CUDA and cuDNN from PyTorch or those wheels (microsoft/onnxruntime#23744; the same
  page, "Preload DLLs").
- ``onnxruntime`` (CPU only) and ``onnxruntime-gpu`` install the same ``onnxruntime`` import
  package: with both installed, the one installed last wins, and only the GPU package has the
  CUDA provider (microsoft/onnxruntime#16931, the maintainer's answer; Ki6an/fastT5#53).
- Windows error 126 (ERROR_MOD_NOT_FOUND) when loading onnxruntime_providers_cuda.dll means a DLL
  it depends on (CUDA, cuDNN, the MSVC runtime) was not found (learn.microsoft.com/en-us/windows/
  win32/debug/system-error-codes--0-499-).
- "undefined symbol: X, version libY.so.N": a CUDA library was loaded with another copy of a
  library it depends on, older than the one it was built with. PyTorch's Linux wheels bring
  their CUDA libraries as nvidia-* wheels; libcusparse from nvidia-cusparse-cu12 calls
  nvJitLink functions versioned by release (__nvJitLinkComplete_12_4 is nvJitLink 12.4), so an
  older libnvJitLink.so.12 from a CUDA toolkit on LD_LIBRARY_PATH breaks ``import torch``
  (pytorch/pytorch#111469, #134929, #131312; the maintainers' advice: unset LD_LIBRARY_PATH or
  update the toolkit). cuDNN 8 is split into sub-libraries (libcudnn_ops_infer, libcudnn_cnn_infer,
  ...) that must all come from one release (cuDNN 8 installation guide; a system libcudnn8
  mixed with the wheel's, naver/dust3r#198).
- A framework that probes an optional cuBLAS function ("Could not load symbol
  cublasGetSmCountTarget") goes on without it (nanoporetech/medaka#472: "The pipeline runs
  despite the error"), so that line alone is only a note.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The templates of JAX, ONNX Runtime and mixed CUDA libraries, by code (and ``CODE:variant``).
RUNTIMES_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    # jax/_src/xla_bridge.py warns and falls back to the CPU: the CPU-only jaxlib may be what the
    # person wants (a CPU notebook), so this is a warning, not an error.
    "JAX_CUDA_NOT_INSTALLED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "JAX is installed without CUDA support, so it runs on the CPU although an NVIDIA GPU "
            "may be present ('a CUDA-enabled jaxlib is not installed').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A plain 'pip install jax' is the CPU build. Install the CUDA build into this "
            "environment: 'pip install -U \"jax[cuda12]\"' ('jax[cuda13]' instead when nvidia-smi "
            "shows CUDA 13.0 or newer); it brings the CUDA plugin and NVIDIA's CUDA and cuDNN "
            "wheels. JAX supports NVIDIA GPUs on Linux and (experimentally) in WSL 2, not on "
            'native Windows. Then check: python -c "import jax; print(jax.devices())" must list a '
            "CudaDevice.",
        ),
    ),
    "JAX_CUDA_BACKEND_FAILED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "JAX's CUDA backend failed to start, so JAX cannot use the GPU (it runs on the CPU)."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The line after 'CUDA backend failed to initialize' says why. Reinstall JAX with its "
            "CUDA wheels in one command, so that jax, jaxlib, the CUDA plugin and NVIDIA's "
            "libraries match: 'pip install -U \"jax[cuda12]\"'. Unset LD_LIBRARY_PATH for this "
            "environment: JAX's install guide warns that it overrides the CUDA libraries of the "
            "wheels. If PyTorch or TensorFlow in the same environment pins other NVIDIA wheels, "
            "give JAX its own environment.",
        ),
    ),
    "JAX_CUDA_BACKEND_FAILED:cudnn_version": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "JAX's CUDA backend did not start: this JAX needs cuDNN {built} or newer, but found "
            "cuDNN {found}. JAX runs on the CPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "JAX loads the first cuDNN on the library search path. With 'jax[cuda12]' the right "
            "one is the nvidia-cudnn-cu12 wheel: upgrade it ('pip install -U \"jax[cuda12]\"', or "
            "'pip install -U \"nvidia-cudnn-cu12>={built}\"'), and unset LD_LIBRARY_PATH (or "
            "remove the system or conda cuDNN folder from it) so that the wheel's copy is found "
            "first. If PyTorch in the same environment pins an older nvidia-cudnn-cu12, keep JAX "
            "and PyTorch in separate environments, or choose releases that agree on cuDNN. With "
            "a local CUDA ('jax[cuda12_local]', conda), install cuDNN {built} or newer.",
        ),
    ),
    "JAX_CUDA_BACKEND_FAILED:cuda_version": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "JAX's CUDA backend did not start: this JAX needs {component} {built} or newer, but "
            "found {component} {found}. JAX runs on the CPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "An older CUDA library than the one JAX was built with is found first, usually a CUDA "
            "toolkit on LD_LIBRARY_PATH (such as /usr/local/cuda in a notebook image) instead of "
            "the nvidia-* wheels 'jax[cuda12]' installs. Run 'pip install -U \"jax[cuda12]\"' and "
            "unset LD_LIBRARY_PATH for this environment, as JAX's install guide advises. With a "
            "local CUDA ('jax[cuda12_local]'), install a CUDA toolkit whose {component} is {built} or "
            "newer, or a JAX release built for the CUDA you have.",
        ),
    ),
    "JAX_CUDA_BACKEND_FAILED:plugin_version": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "JAX's CUDA plugin does not fit the installed jaxlib (PJRT API {plugin_api} against "
            "{framework_api}), so JAX cannot use the GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "jax, jaxlib, jax-cuda12-plugin and jax-cuda12-pjrt must all come from the same "
            "release. Reinstall them together from PyPI: 'pip uninstall -y jax jaxlib "
            "jax-cuda12-plugin jax-cuda12-pjrt', then 'pip install -U \"jax[cuda12]\"' (or one "
            "pinned version for all: 'pip install \"jax[cuda12]==VERSION\"'). Do not mix a jaxlib "
            "from another index with the plugin from PyPI.",
        ),
    ),
    # jax-ml/jax#26750: a plugin newer than jax fails in initialize(); the maintainers' fix is to
    # install jax[cuda12] pinned to the jax version, which brings the matching plugin.
    "JAX_CUDA_BACKEND_FAILED:plugin_mismatch": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "JAX's CUDA plugin is from another release than jax and jaxlib and failed to start "
            "({plugin_error}), so JAX cannot use the GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "jax, jaxlib, jax-cuda12-plugin and jax-cuda12-pjrt must all come from the same "
            "release; an upgrade of one of them (or an old plugin left behind) breaks the others. "
            "Install them together at one version: 'pip install -U \"jax[cuda12]\"' for the "
            "newest, or 'pip install \"jax[cuda12]==VERSION\"' with the jax version your project "
            "needs ('pip show jax' prints it); 'pip list | grep jax' must then show one version "
            "for all four.",
        ),
    ),
    "JAX_CUDA_BACKEND_FAILED:jaxlib_version": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "jaxlib {jaxlib} does not fit jax {jax}, so JAX does not start at all.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "jax and jaxlib must come from the same release. Install them in one command so pip "
            "picks versions that fit: 'pip install -U \"jax[cuda12]\"' on Linux with an NVIDIA "
            "GPU, 'pip install -U jax' for the CPU. If a project needs jax {jax}, install the "
            "jaxlib of that same release instead of the newer {jaxlib}.",
        ),
    ),
    "JAX_CUDNN_LOAD_FAILED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "JAX could not load cuDNN ('Unable to load cuDNN. Is it installed?'), so its CUDA "
            "backend did not start and JAX runs on the CPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "With 'jax[cuda12]' cuDNN comes as the nvidia-cudnn-cu12 wheel. Usually another cuDNN "
            "is found first, or the wheel is missing or too old: unset LD_LIBRARY_PATH (JAX's "
            "install guide, https://docs.jax.dev/en/latest/installation.html: with the pip CUDA "
            "wheels it must not point to other CUDA libraries), then run 'pip install -U "
            '"jax[cuda12]"\' again. If PyTorch or TensorFlow in the same environment pinned an '
            "older nvidia-cudnn-cu12 (cuDNN 8), current JAX needs cuDNN 9: give JAX its own "
            "environment. With a local CUDA ('jax[cuda12_local]'), install cuDNN 9 for CUDA 12 and "
            "put its lib folder on LD_LIBRARY_PATH.",
        ),
    ),
    # ONNX Runtime falls back to the CPU provider and goes on: slower, not stopped.
    "ONNXRUNTIME_CUDA_UNAVAILABLE": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "ONNX Runtime could not start its CUDA provider and runs on the CPU "
            "('Failed to create CUDAExecutionProvider').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "onnxruntime-gpu needs the CUDA and cuDNN major versions it was built for (listed per "
            "release at https://onnxruntime.ai/docs/execution-providers/"
            "CUDA-ExecutionProvider.html#requirements; "
            "since 1.19 the PyPI package is built for CUDA 12 and cuDNN 9, before it for CUDA 11 "
            "and cuDNN 8; recent releases name them in this warning). "
            "Install them as wheels into this environment: 'pip install -U \"onnxruntime-gpu[cuda,cudnn]\"', "
            "or, with PyTorch installed, call 'onnxruntime.preload_dlls()' before creating the "
            "session. Keep only one of 'onnxruntime' and 'onnxruntime-gpu' installed.",
        ),
    ),
    "ONNXRUNTIME_CUDA_UNAVAILABLE:requirements": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "ONNX Runtime could not start its CUDA provider and runs on the CPU: this "
            "onnxruntime-gpu needs CUDA {cuda}.x and cuDNN {cudnn}.x, and could not load them.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Give it CUDA {cuda} and cuDNN {cudnn} libraries: install them as wheels into this "
            "environment ('pip install -U \"onnxruntime-gpu[cuda,cudnn]\"', which brings NVIDIA's "
            "CUDA and cuDNN wheels), or, with a PyTorch built for CUDA {cuda} and cuDNN {cudnn} in "
            "the same environment, call 'onnxruntime.preload_dlls()' before creating the session. "
            "A CUDA toolkit or cuDNN installed separately must be of exactly these major versions, "
            "with their bin folders on PATH (Windows) or lib folders on LD_LIBRARY_PATH (Linux). "
            "On Windows, also install the latest Microsoft Visual C++ Redistributable (x64). "
            "Another major version (cuDNN 8 for a cuDNN 9 build) does not work: then install the "
            "onnxruntime-gpu release built for what you have.",
        ),
    ),
    "ONNXRUNTIME_CUDA_UNAVAILABLE:missing": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "ONNX Runtime could not start its CUDA provider and runs on the CPU: {missing}, which "
            "it needs, could not be loaded.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The library's name tells the CUDA or cuDNN major version this onnxruntime-gpu was "
            "built for ('.so.11' or '64_11.dll' is CUDA 11, 'cudnn64_9' is cuDNN 9). If that is not "
            "the CUDA you have, install the onnxruntime-gpu built for yours (since 1.19 the PyPI "
            "package is built for CUDA 12 and cuDNN 9: 'pip install -U onnxruntime-gpu'). Then give "
            "it the libraries as wheels: 'pip install -U \"onnxruntime-gpu[cuda,cudnn]\"', or, with "
            "a matching PyTorch in the environment, call 'onnxruntime.preload_dlls()' before "
            "creating the session.",
        ),
    ),
    "ONNXRUNTIME_CUDA_UNAVAILABLE:cpu_package": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "The installed ONNX Runtime has no CUDA provider (available: {available}), so it runs "
            "on the CPU: this is the CPU-only 'onnxruntime' package.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "'onnxruntime' and 'onnxruntime-gpu' install the same 'onnxruntime' module, and the one "
            "installed last wins; packages that require 'onnxruntime' often bring the CPU one back. "
            "Remove both and install only the GPU package: 'pip uninstall -y onnxruntime "
            "onnxruntime-gpu', then 'pip install onnxruntime-gpu'. Check with python -c \"import "
            'onnxruntime; print(onnxruntime.get_available_providers())", which must list '
            "CUDAExecutionProvider.",
        ),
    ),
    "CUDA_LIBRARIES_MIXED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{library} was loaded with an incompatible copy of a CUDA library it depends on "
            "(undefined symbol {symbol}): two CUDA installations are mixed in this process.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A framework's CUDA libraries must come from one installation. Usually a CUDA toolkit "
            "or cuDNN on LD_LIBRARY_PATH (PATH on Windows) is found before the nvidia-* wheels the "
            "framework installed: unset LD_LIBRARY_PATH, or remove those folders from it, for "
            "this environment. Keep PyTorch and TensorFlow (or JAX) in separate environments when "
            "they ask for different versions of the same nvidia-* wheels, and let pip install the "
            "versions the framework asks for ('pip install --force-reinstall torch' from the index "
            "it came from).",
        ),
    ),
    "CUDA_LIBRARIES_MIXED:nvjitlink": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{library} needs nvJitLink {needed} or newer, but an older libnvJitLink.so.12 was "
            "loaded first, so the framework (usually 'import torch') fails.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The older libnvJitLink usually comes from a CUDA toolkit on LD_LIBRARY_PATH (such as "
            "/usr/local/cuda-12.1/lib64), found before the nvidia-nvjitlink-cu12 wheel that came "
            "with the framework. Unset LD_LIBRARY_PATH, or remove the toolkit's folder from it, "
            "for this environment. If the wheel itself is too old, upgrade it: 'pip install -U "
            '"nvidia-nvjitlink-cu12>={needed}"\'.',
        ),
    ),
    "CUDA_LIBRARIES_MIXED:cudnn": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{library} was loaded with parts of another cuDNN (undefined symbol {symbol}): two "
            "cuDNN installations are mixed in this process.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "cuDNN's libraries must all come from one release. A system cuDNN (the libcudnn "
            "packages in /usr/lib/x86_64-linux-gnu) or a conda cuDNN is mixed with the "
            "nvidia-cudnn wheel the framework installed. Unset LD_LIBRARY_PATH, or remove the other "
            "cuDNN's folder from it, for this environment; or remove the other cuDNN ('sudo apt "
            "remove libcudnn8', 'conda remove cudnn') if nothing else needs it. PyTorch and "
            "TensorFlow that need different cuDNN versions belong in separate environments.",
        ),
    ),
    # [WinError 127] (ERROR_PROC_NOT_FOUND) on a CUDA DLL: an older copy of a DLL it depends on
    # was loaded first; PyTorch's Windows wheels bring their CUDA DLLs in torch\lib, Paddle's and
    # ONNX Runtime's in site-packages\nvidia (PaddlePaddle/Paddle#75939: the toolkit's cuDNN and
    # the wheel's mixed; the posters' workaround was to leave only one of them).
    "CUDA_LIBRARIES_MIXED:windows": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{library} could not be loaded: a function it needs is missing ([WinError 127]), "
            "because another copy of a CUDA or cuDNN DLL was loaded first.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The framework brings its own CUDA and cuDNN DLLs (PyTorch in torch\\lib, others as "
            "nvidia-* wheels in site-packages\\nvidia); a CUDA toolkit's or cuDNN's bin folder on "
            "PATH, or cuDNN DLLs copied into C:\\Windows\\System32, can be found first. Remove "
            "those folders from PATH (at least for this environment), delete cuDNN DLLs copied into "
            "System32, and start a new terminal. If a toolkit must stay, it must be the same CUDA "
            "and cuDNN release as the framework's. Frameworks that need different cuDNN versions "
            "(PyTorch and Paddle or ONNX Runtime) belong in separate environments.",
        ),
    ),
    "CUDA_LIBRARIES_MIXED:cublaslt": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "cuBLAS could not load its cuBLASLt library ('Invalid handle. Cannot load symbol "
            "{symbol}'): it is missing, or another CUDA's copy was found first.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "libcublas and libcublasLt must come from the same CUDA release. Look for another "
            "CUDA toolkit's folder on LD_LIBRARY_PATH (PATH on Windows) and remove it, or unset "
            "LD_LIBRARY_PATH, for this environment; then reinstall the framework so that its "
            "nvidia-cublas wheel is complete ('pip install --force-reinstall nvidia-cublas-cu12' "
            "for CUDA 12). A toolkit installed by hand must match the CUDA of the framework build.",
        ),
    ),
    # A framework probing an optional newer cuBLAS function: the run goes on (info only).
    "CUDA_OPTIONAL_SYMBOL_MISSING": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "The loaded {library} is older than the framework knows: it lacks the optional "
            "function {symbol}, and the framework goes on without it.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "This does not stop GPU work. It shows that a CUDA toolkit's library (on PATH or "
            "LD_LIBRARY_PATH) is used instead of the newer one the framework could bring; if other "
            "CUDA errors follow, remove that toolkit's folder from the search path for this "
            "environment, or install the framework build for the CUDA you have.",
        ),
    ),
}
