"""Finding texts of what :mod:`gpuwizard.core.findings.diagnosis_extensions` recognises.

One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts. The real
logs behind each text are listed in tests/fixtures/recorded/diagnose/SOURCES.md.

Facts the hints rely on:

- bitsandbytes loads ``libbitsandbytes_cudaXYZ`` for the CUDA version of the installed torch
  (torch.version.cuda), or for the one ``BNB_CUDA_VERSION`` names ("How to use a CUDA version
  that is different from PyTorch", huggingface.co/docs/bitsandbytes/main/nonpytorchcuda). Its
  PyPI wheels carry the compiled CUDA libraries since 0.43 (Linux and Windows); a source
  checkout has none until it is built with ``cmake -DCOMPUTE_BACKEND=cuda -S . && make``
  (huggingface.co/docs/bitsandbytes/main/installation, "Compile from source").
- The Stable Diffusion web UI checks ``torch.cuda.is_available()`` at start
  (AUTOMATIC1111/stable-diffusion-webui, modules/launch_utils.py, prepare_environment); its
  torch comes from ``TORCH_COMMAND``. AMD GPUs need torch's ROCm build on Linux, or the
  DirectML/ZLUDA fork on Windows (the web UI's wiki, "Install and Run on AMD GPUs",
  github.com/AUTOMATIC1111/stable-diffusion-webui/wiki/Install-and-Run-on-AMD-GPUs; ROCm wheels:
  pytorch.org/get-started/locally). ``docker build`` gives its steps no GPU: GPUs are given to
  containers by ``docker run --gpus`` (docs.docker.com/engine/containers/resource_constraints/,
  "GPU") through the NVIDIA Container Toolkit.
- cuBLAS's bfloat16 (CUDA_R_16BF) matrix products need compute capability 8.0 (Ampere) or newer
  for tensor-core math; older GPUs or cuBLAS releases answer CUBLAS_STATUS_NOT_SUPPORTED (cuBLAS
  docs, "cublasGemmEx" and "cublasGemmStridedBatchedEx", docs.nvidia.com/cuda/cublas/;
  ``torch.cuda.is_bf16_supported()``). A GPU needs a CUDA release that knows it: Ada (RTX 40,
  sm_89) CUDA 11.8 or newer, Blackwell (RTX 50, sm_120) CUDA 12.8 or newer (CUDA 11.8 and 12.8
  release notes).
- A compiled torch extension links against torch's C++ symbols; it loads only into the torch
  version and C++ ABI (``torch._C._GLIBCXX_USE_CXX11_ABI``) it was built with. flash-attn's
  release wheels name both (``flash_attn-2.x+cu12torch2.6cxx11abiFALSE-...whl``,
  github.com/Dao-AILab/flash-attention/releases), and its README builds it with
  ``pip install flash-attn --no-build-isolation`` against the installed torch.
- xFormers' binaries are built for one torch release; the matching build is installed from the
  same PyTorch index as torch ("pip3 install -U xformers --index-url
  https://download.pytorch.org/whl/cu126", github.com/facebookresearch/xformers#installing-xformers).
- A TensorRT engine (plan) is, by default, compatible only with the TensorRT version and the GPU
  model it was built with; it must be rebuilt, e.g. with ``trtexec --onnx=... --saveEngine=...``
  (TensorRT Developer Guide, "Version Compatibility" and "Hardware Compatibility",
  docs.nvidia.com/deeplearning/tensorrt/latest/inference-library/advanced.html; trtexec:
  docs.nvidia.com/deeplearning/tensorrt/latest/reference/command-line-programs.html).
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

# Texts that several variants share (one source, one translation).
_XFORMERS_OTHER_TORCH: Final = QT_TRANSLATE_NOOP(
    "findings",
    "xFormers was built for PyTorch {built} but torch {have} is installed: its CUDA "
    "kernels (memory-efficient attention) are not loaded.",
)

#: The templates, by code (and ``CODE:variant``).
EXTENSIONS_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    "BITSANDBYTES_NO_CUDA_BINARY": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "bitsandbytes could not load its CUDA library and fell back to its CPU library: "
            "8-bit and 4-bit quantisation on the GPU are not available.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the released wheel, which carries the CUDA libraries: 'pip install -U "
            "bitsandbytes' (not a source checkout, which has none until it is compiled). It "
            "loads the library for torch's CUDA version: check that torch is a CUDA build "
            "('python -c \"import torch; print(torch.version.cuda)\"' must not print None) and "
            "run 'python -m bitsandbytes' to see what it finds.",
        ),
    ),
    "BITSANDBYTES_NO_CUDA_BINARY:cuda": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "bitsandbytes has no library for CUDA {cuda} (libbitsandbytes_cuda*.so is not in "
            "{folder}), so it fell back to its CPU library.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "If {folder} is not in site-packages, bitsandbytes is imported from a source "
            "checkout that was never compiled: run the program from another folder and install "
            "the released wheel, which carries the CUDA libraries ('pip install -U "
            "bitsandbytes'), or compile the checkout ('cmake -DCOMPUTE_BACKEND=cuda -S . && "
            "make', then 'pip install .'). bitsandbytes picks the library of torch's CUDA "
            "version; if the wheel has none for CUDA {cuda}, install torch for a CUDA it "
            "supports, or update bitsandbytes.",
        ),
    ),
    "BITSANDBYTES_NO_CUDA_BINARY:override": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "bitsandbytes looked for a library for CUDA {cuda} because BNB_CUDA_VERSION={override} "
            "is set, found none in {folder}, and fell back to its CPU library.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Unset BNB_CUDA_VERSION ('unset BNB_CUDA_VERSION', or 'export BNB_CUDA_VERSION=') so "
            "that bitsandbytes loads the library of torch's own CUDA version; set it only when a "
            "library for that CUDA exists. If {folder} is not in site-packages, bitsandbytes is "
            "imported from a source checkout that was never compiled: install the released wheel "
            "('pip install -U bitsandbytes', run from another folder) or compile the checkout "
            "('cmake -DCOMPUTE_BACKEND=cuda -S . && make').",
        ),
    ),
    "TORCH_CUDA_UNAVAILABLE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The web UI's start-up check failed: the torch in its venv cannot use the GPU "
            "('Torch is not able to use GPU').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check with the web UI's own Python (venv/bin/python, or venv\\Scripts\\python.exe): "
            "'python -c \"import torch; print(torch.__version__, torch.version.cuda, "
            "torch.cuda.is_available())\"'. A version ending in '+cpu' or CUDA None is a CPU "
            "build: delete the venv folder and start again, or install torch with CUDA into it "
            "('pip install torch torchvision --index-url https://download.pytorch.org/whl/cu126'). "
            "If 'nvidia-smi' fails, install or repair the NVIDIA driver first. Adding "
            "--skip-torch-cuda-test only runs everything on the CPU.",
        ),
    ),
    "TORCH_CUDA_UNAVAILABLE:docker_build": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The web UI's GPU check ran during 'docker build', where there is no GPU ('Torch is "
            "not able to use GPU').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A build step never gets a GPU: only a running container does, with 'docker run "
            "--gpus all' (or compose's GPU reservation) and the NVIDIA Container Toolkit on the "
            "host. Add --skip-torch-cuda-test to the command the Dockerfile runs at build time "
            "(for example in COMMANDLINE_ARGS of that RUN step), and let the check happen when "
            "the container starts with --gpus all.",
        ),
    ),
    "TORCH_CUDA_UNAVAILABLE:amd": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The web UI's torch cannot use the GPU ('Torch is not able to use GPU'), and the log "
            "names an AMD GPU: only torch's ROCm build (Linux) can use it, and only on a GPU "
            "that ROCm release supports.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "On Linux, install torch's ROCm build into the web UI's venv as its wiki page "
            "'Install and Run on AMD GPUs' says, for example TORCH_COMMAND='pip install torch "
            "torchvision --index-url https://download.pytorch.org/whl/rocm6.2' (delete the venv "
            "folder first), and check a GPU your ROCm release supports. On Windows there is no "
            "ROCm build of torch for the web UI: use the AMD fork with DirectML or ZLUDA "
            "(lshqqytiger/stable-diffusion-webui-amdgpu). --skip-torch-cuda-test only runs on "
            "the CPU.",
        ),
    ),
    "CUBLAS_NOT_SUPPORTED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "cuBLAS refused a matrix operation on this GPU (CUBLAS_STATUS_NOT_SUPPORTED).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The cuBLAS of this build is too old for the GPU or for the operation: install a "
            "framework build for a CUDA that knows the GPU (an RTX 40-series GPU, Ada, needs "
            "CUDA 11.8 or newer, for example 'pip install torch --index-url "
            "https://download.pytorch.org/whl/cu126'; an RTX 50-series GPU needs CUDA 12.8 or "
            "newer, cu128) and a driver for it. Old Docker images with CUDA 11.7 or older "
            "cannot work on such GPUs.",
        ),
    ),
    "CUBLAS_NOT_SUPPORTED:bf16": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "cuBLAS refused a bfloat16 matrix product (CUBLAS_STATUS_NOT_SUPPORTED with "
            "CUDA_R_16BF): this GPU or cuBLAS does not support bfloat16 there.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "bfloat16 matrix products need a GPU of compute capability 8.0 (Ampere, RTX 30 "
            "series, A100) or newer ('python -c \"import torch; "
            "print(torch.cuda.is_bf16_supported())\"'). On an older GPU run the model in "
            "float16 or float32 instead: choose fp16/fp32 in the program's settings, or load it "
            "with torch_dtype=torch.float16. On a newer GPU, install a current framework build.",
        ),
    ),
    "EXTENSION_BUILT_FOR_OTHER_TORCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The compiled extension {module} was built for another PyTorch version or C++ ABI: "
            "it needs a torch C++ symbol this torch does not have ('undefined symbol').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the package that contains {module} in a build for this torch: a wheel "
            "built for the same torch version, CUDA and C++ ABI ('python -c \"import torch; "
            "print(torch.__version__, torch.version.cuda, torch._C._GLIBCXX_USE_CXX11_ABI)\"'), or "
            "build it here against the installed torch with 'pip install --no-build-isolation "
            "--no-cache-dir --force-reinstall PACKAGE'. Or install the torch version the "
            "package was built for (the one it requires). Upgrading torch after installing an "
            "extension breaks it the same way.",
        ),
    ),
    "EXTENSION_BUILT_FOR_OTHER_TORCH:flash_attn": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "flash-attn's compiled module {module} was built for another PyTorch version or C++ "
            "ABI: it needs a torch C++ symbol this torch does not have ('undefined symbol').",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the flash-attn wheel built for this torch: its release assets name the "
            "CUDA, torch version and ABI (flash_attn-VERSION+cu12torch2.6cxx11abiFALSE-...whl); "
            "pick the one matching 'python -c \"import torch; print(torch.__version__, "
            "torch._C._GLIBCXX_USE_CXX11_ABI)\"' and your Python, and install it with pip. Or "
            "build it against the installed torch: 'pip install flash-attn --no-build-isolation "
            "--no-cache-dir --force-reinstall' (needs the CUDA toolkit). Upgrading torch after "
            "installing flash-attn breaks it the same way.",
        ),
    ),
    "XFORMERS_BUILT_FOR_OTHER_TORCH": FindingTemplate(
        "warning",
        _XFORMERS_OTHER_TORCH,
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the xFormers release built for torch {have}, from the same PyTorch index "
            "as torch: 'pip install -U xformers --index-url "
            "https://download.pytorch.org/whl/{index}' (pip may then change torch: pin it, or "
            "install both in one command). Or install the torch {built} it was built for.",
        ),
    ),
    "XFORMERS_BUILT_FOR_OTHER_TORCH:cpu_torch": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "xFormers was built for PyTorch {built}, but the installed torch {have} is a "
            "CPU-only build: nothing runs on the GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The problem is torch, not xFormers: uninstall torch and install its CUDA build from "
            "the PyTorch index that fits your driver, for example 'pip install torch "
            "--index-url https://download.pytorch.org/whl/cu126' (on Windows, torch from PyPI is "
            "CPU-only), then the xFormers release for that torch from the same index ('pip "
            "install -U xformers --index-url https://download.pytorch.org/whl/cu126').",
        ),
    ),
    "XFORMERS_BUILT_FOR_OTHER_TORCH:untagged": FindingTemplate(
        "warning",
        _XFORMERS_OTHER_TORCH,
        QT_TRANSLATE_NOOP(
            "findings",
            "Install the xFormers release built for torch {have} from the same place torch came "
            "from (the PyTorch index 'https://download.pytorch.org/whl/cuXYZ' of torch's CUDA, "
            "or PyPI, whose newest xFormers fits PyPI's newest torch), or install the torch "
            "{built} it was built for.",
        ),
    ),
    "TENSORRT_ENGINE_VERSION_MISMATCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorRT cannot load the engine: it was serialised by another TensorRT version "
            "(engine tag {engine}, this TensorRT's tag {current}).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A TensorRT engine runs only with the TensorRT version (and GPU model) that built "
            "it. Rebuild it here from the model with the installed TensorRT, for example "
            "'trtexec --onnx=model.onnx --saveEngine=model.engine' (on a Jetson, on the device "
            "itself), or install the TensorRT that built it. Check that only one TensorRT is "
            "found (LD_LIBRARY_PATH, the container image's version).",
        ),
    ),
    "TENSORRT_ENGINE_VERSION_MISMATCH:library": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "TensorRT {installed} cannot load the engine: it was built with TensorRT {built}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A TensorRT engine runs only with the TensorRT version (and GPU model) that built "
            "it. Rebuild it here with TensorRT {installed} from the model, for example "
            "'trtexec --onnx=model.onnx --saveEngine=model.engine' (or the program's own export "
            "step), or install TensorRT {built}. If several TensorRT copies are installed (a "
            "Python package and a system one), make sure the same one builds and runs it.",
        ),
    ),
}
