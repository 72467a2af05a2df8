"""What a support report holds (schema ``gpuwizard.support/1``), as pure choices over gathered facts.

The workflow layer gathers (detection, PATH, environments, probes, tests) and this module
decides what of it goes in: the packages and environment variables that matter for GPU
frameworks, the PATH entries marked, the problems of each environment as findings. The
document is then redacted (core/support/redaction.py) and rendered (core/support/view.py and the
renderers beside it); ``report --out FILE.json`` writes the document itself
(``resources/schemas/support-1.schema.json``).

>>> [p["name"] for p in relevant_packages([{"name": "torch", "version": "2.13.0"},
...     {"name": "requests", "version": "2.32"}, {"name": "nvidia-cudnn-cu12", "version": "9.1"}])]
['nvidia-cudnn-cu12', 'torch']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from gpuwizard.core.findings.model import finding_to_json, make_finding
from gpuwizard.core.pathedit.algebra import cuda_version_of
from gpuwizard.core.pathedit.pathlist import comparison_key, entry_of, split_segments

SUPPORT_SCHEMA: Final = "gpuwizard.support/1"
#: The output formats of ``report --out FILE``, by the file's suffix.
OUTPUT_FORMATS: Final = {".html": "html", ".htm": "html", ".md": "markdown", ".json": "json"}

#: Distributions worth listing, by part of their name: torch.utils.collect_env's
#: DEFAULT_PIP_PATTERNS (torch, numpy, mypy, flake8, triton, optree, onnx, nccl, transformers,
#: zmq, nvidia, pynvml; github.com/pytorch/pytorch/blob/main/torch/utils/collect_env.py) less
#: the linters, plus the other frameworks and their CUDA pieces: TensorFlow's `and-cuda` extra
#: pulls nvidia-* wheels (tensorflow.org/install/pip), JAX's CUDA build is jax[cuda12] with
#: the jax-cuda12-plugin (docs.jax.dev/en/latest/installation.html), and CuPy ships as cupy-cudaXXx.
PACKAGE_PATTERNS: Final = (
    "torch", "numpy", "triton", "optree", "onnx", "nccl", "transformers", "nvidia", "pynvml",
    "cuda", "cudnn", "cupy", "tensorflow", "tf-keras", "keras", "tensorboard", "tensorrt",
    "jax", "flax", "ml-dtypes", "xformers", "accelerate", "protobuf",
)  # fmt: skip

#: Environment variables that change what a GPU framework finds or does (exact names), and
#: families of them (prefixes): CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER
#: (docs.nvidia.com/cuda/cuda-c-programming-guide, "CUDA Environment Variables"), CUDA_PATH and
#: CUDA_PATH_Vx_y set by the Windows CUDA installer, LD_LIBRARY_PATH where Linux finds libcudnn,
#: PYTORCH_CUDA_ALLOC_CONF (pytorch.org/docs/stable/notes/cuda.html), TensorFlow's own
#: (tensorflow.org/guide/gpu; by name: the TF_ prefix is Terraform's too, TF_VAR_* and TF_TOKEN_*
#: hold secrets), NVIDIA_VISIBLE_DEVICES in containers (NVIDIA Container Toolkit), and the
#: interpreter and index settings that decide which build gets installed.
VARIABLE_NAMES: Final = frozenset(
    {"LD_LIBRARY_PATH", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "VIRTUAL_ENV", "PYTHONPATH",
     "PYTHONHOME", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL", "PIP_FIND_LINKS", "PIP_CONSTRAINT",
     "UV_INDEX_URL", "UV_EXTRA_INDEX_URL", "UV_DEFAULT_INDEX", "UV_INDEX", "UV_CONSTRAINT",
     "UV_PYTHON", "GPUWIZARD_HOME", "OMP_NUM_THREADS", "WSL_DISTRO_NAME", "XLA_FLAGS",
     "TF_CPP_MIN_LOG_LEVEL", "TF_CPP_MAX_VLOG_LEVEL", "TF_FORCE_GPU_ALLOW_GROWTH", "TF_GPU_ALLOCATOR",
     "TF_ENABLE_ONEDNN_OPTS", "TF_XLA_FLAGS", "TF_GPU_THREAD_MODE", "TF_DETERMINISTIC_OPS",
     "TF_USE_LEGACY_KERAS", "TF_FORCE_UNIFIED_MEMORY"}
)  # fmt: skip
VARIABLE_PREFIXES: Final = ("CUDA_", "CUDNN_", "NCCL_", "NVIDIA_", "PYTORCH_", "TORCH_", "JAX_")
# Whatever the prefix, a variable that looks like a secret stays out of the report.
_SECRET_NAME: Final = re.compile(r"TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|_KEY$|^KEY", re.IGNORECASE)
# A folder that belongs to a CUDA installation even when its version is not in the name
# (/usr/local/cuda/bin, C:\tools\cuda\bin).
_CUDA_PART: Final = re.compile(r"(?:^|[\\/])cuda(?:[-_]?[\d.]+)?(?:[\\/]|$)", re.IGNORECASE)


def _matches(name: str, patterns: Iterable[str]) -> bool:
    lowered = name.casefold().replace("_", "-")
    return any(pattern in lowered for pattern in patterns)


def relevant_packages(packages: Iterable[Mapping[str, Any]]) -> list[dict[str, str]]:
    """The installed distributions that matter for GPU frameworks, sorted by name."""
    kept = {
        str(item["name"]).casefold(): {"name": str(item["name"]), "version": str(item.get("version") or "")}
        for item in packages
        if item.get("name") and _matches(str(item["name"]), PACKAGE_PATTERNS)
    }
    return [kept[key] for key in sorted(kept)]


def relevant_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment variables that matter for GPU frameworks, sorted by name.

    >>> relevant_variables({"CUDA_VISIBLE_DEVICES": "0", "HOME": "/home/ana", "HF_TOKEN": "x", "CUDA_TOKEN": "y"})
    {'CUDA_VISIBLE_DEVICES': '0'}
    """
    chosen = {
        name: value
        for name, value in environ.items()
        if (name.upper() in VARIABLE_NAMES or name.upper().startswith(VARIABLE_PREFIXES))
        and not _SECRET_NAME.search(name)
    }
    return dict(sorted(chosen.items()))


def is_cuda_folder(entry: str) -> bool:
    r"""Whether a PATH entry is a CUDA (or cuDNN-for-CUDA) folder, versioned or not.

    >>> is_cuda_folder("/usr/local/cuda/bin"), is_cuda_folder("C:\\Program Files\\Git\\cmd")
    (True, False)
    """
    return cuda_version_of(entry) is not None or bool(_CUDA_PART.search(entry))


def process_path_entries(value: str, *, windows: bool, missing: Iterable[str] = ()) -> list[dict[str, Any]]:
    """The PATH of the running process, entry by entry, each marked.

    ``missing`` are the entries (as written) that the caller found not to be folders here.
    Each entry: ``index``, ``entry``, ``exists``, ``cuda`` (a CUDA folder), ``cuda_version``,
    ``duplicate`` (an earlier entry names the same folder).

    >>> [(e["entry"], e["duplicate"], e["cuda_version"]) for e in process_path_entries(
    ...     "/usr/local/cuda-12.4/bin:/usr/bin:/usr/bin/", windows=False)]
    [('/usr/local/cuda-12.4/bin', False, '12.4'), ('/usr/bin', False, None), ('/usr/bin/', True, None)]
    """
    raw = [entry_of(segment) for segment in split_segments(value)] if windows else value.split(":")
    absent = set(missing)
    seen: set[str] = set()
    entries = []
    for index, entry in enumerate(item for item in raw if item):
        key = comparison_key(entry, windows=windows)
        entries.append(
            {
                "index": index,
                "entry": entry,
                "exists": entry not in absent,
                "cuda": is_cuda_folder(entry),
                "cuda_version": cuda_version_of(entry),
                "duplicate": key in seen,
            }
        )
        seen.add(key)
    return entries


def environment_findings(  # noqa: PLR0911 - one return per rule, checked in order
    env: Mapping[str, Any], *, machine_has_nvidia_gpu: bool
) -> list[dict[str, object]]:
    """What is wrong with a wizard-made environment as it is now, as findings (JSON form).

    ``env`` is the document's entry: ``interpreter_exists``, and, when it was probed,
    ``probe`` (the object of probes/env_report.py) or ``probe_error``.
    """
    framework = str(env.get("framework") or "")
    if env.get("interpreter_exists") is False:
        return [finding_to_json(make_finding("PYTHON_NOT_FOUND", python=env.get("python") or "?"))]
    probe = env.get("probe")
    if not isinstance(probe, Mapping):
        error = env.get("probe_error")
        if error:
            return [finding_to_json(make_finding("FRAMEWORK_NOT_IMPORTABLE", error=_one_line(error)))]
        return []
    if not probe.get("ok"):
        return [
            finding_to_json(make_finding("FRAMEWORK_NOT_IMPORTABLE", error=_one_line(probe.get("error"))))
        ]
    if not machine_has_nvidia_gpu:
        return []
    if probe.get("built_with_cuda") is False:
        variant = "pytorch" if framework == "pytorch" else None
        return [finding_to_json(make_finding("CPU_ONLY_BUILD", variant=variant))]
    if probe.get("built_with_cuda") and not probe.get("gpus"):
        return [finding_to_json(make_finding("GPU_NOT_VISIBLE"))]
    return []


def _one_line(text: object) -> str:
    lines = str(text or "unknown error").strip().splitlines()
    return (lines[0] if lines else "unknown error")[:300]


def support_document(
    *,
    generated: str,
    wizard_version: str,
    sources: Mapping[str, Any],
    system: Mapping[str, Any],
    variables: Mapping[str, str],
    path: Mapping[str, Any],
    environments: Sequence[Mapping[str, Any]],
    last_good: Mapping[str, Any] | None,
    tests: Sequence[Mapping[str, Any]],
) -> dict[str, Any]:
    """The whole report before redaction, in the order the schema documents it."""
    return {
        "schema": SUPPORT_SCHEMA,
        "generated": generated,
        "wizard_version": wizard_version,
        "sources": dict(sources),
        "redaction": None,
        "system": dict(system),
        "variables": dict(variables),
        "path": dict(path),
        "environments": [dict(env) for env in environments],
        "last_good": dict(last_good) if last_good is not None else None,
        "tests": [dict(test) for test in tests],
    }


def with_redaction(
    document: Mapping[str, Any], rules: Sequence[str], counts: Mapping[str, int]
) -> dict[str, Any]:
    """The (already redacted) document with what was redacted, to say so at the top of the report."""
    return {**document, "redaction": {"rules": list(rules), "counts": dict(counts)}}
