r"""An error in a log that no finding recognises: its salient lines, its component, where to ask (pure).

``gpuwizard diagnose`` says nothing silently: when :func:`gpuwizard.core.findings.diagnosis.diagnose`
finds nothing but the log holds an error, :func:`unrecognised_error` quotes it. An error is

- a Python traceback ("Traceback (most recent call last):") and the exception line that ends it
  (the last such traceback; one Python printed under "Exception ignored in" at shutdown is not
  a failure), or, with no traceback at all, a line that starts with an exception's name and a
  message (``RuntimeError: CUDA error: ...``);
- a fatal line: ``FATAL``, "Fatal error", absl's and glog's ``F0000 ...`` and TensorFlow's
  ``F path.cc:12]`` lines ("Check failed"), a failed assertion (C's, ggml's ``GGML_ASSERT``),
  "terminate called after throwing", a segmentation fault, a core dump, the OOM killer's lone
  "Killed", a compiler's or pip's and uv's ``error:`` and pip's ``ERROR:``, a tool's ``Error:``
  or "Error while ...", ``CUDA error:``;
- a solver that found no packages that fit: uv's "No solution found when resolving dependencies",
  pixi's "Cannot solve the request" and "failed to solve";
- a non-zero exit: "exit code 1", "exited with code 3", "returned non-zero exit status 1";
- the NVIDIA driver failing to bring a GPU up: its kernel module's ``NVRM:`` lines that say
  "failed", "Cannot", "Xid", "not large enough"; nvidia-smi's "No devices were found",
  "NVIDIA-SMI has failed", "Failed to initialize NVML: ...".

Warnings are no error: TensorFlow's ``I``/``W``/``E`` level notices, ``UserWarning``,
deprecations, "exit code 0", and pip's note on its dependency resolver (it prints it as
``ERROR:`` after an install that worked).

The quoted lines are the last exception, the first fatal line and the first non-zero exit, in
the log's order, each cut to :data:`LINE_CHARS`, with access tokens and URL logins masked
(:mod:`gpuwizard.core.secret_formats`) and the user's name in home folders. The component is the
package pip failed to build, or the package of the deepest traceback frame (or a project named in
the frames' code, the exception's module, a project's name in the lines, the installer that ran); a
known project has an issue tracker (:data:`TRACKERS`), and the search link looks for the main
line there, in quotes, or in all of GitHub's issues when the project is not known. The link is
only built: nothing is fetched.

Patterns start with literal text or at a line's start and bound their repeats; each line is
classified once, so a long log costs linear time.

>>> error = unrecognised_error('Traceback (most recent call last):\n  File "/v/site-packages/vllm/x.py", line 3\nValueError: bad')
>>> error.lines, error.component, error.project
(('ValueError: bad',), 'vLLM', 'vllm-project/vllm')
>>> error.search_url
'https://github.com/vllm-project/vllm/issues?q=%22ValueError%3A%20bad%22'
>>> unrecognised_error("Successfully installed numpy-2.1.3\nProcess finished with exit code 0") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final
from urllib.parse import quote

from gpuwizard.core.findings.log_views import log_views
from gpuwizard.core.secret_formats import ACCESS_TOKEN, mask_url

#: A quoted line is cut to this many characters.
LINE_CHARS: Final = 240
#: GitHub's search takes at most 256 characters; the quoted line is cut shorter, at a word.
_QUERY_CHARS: Final = 200
#: How far after "Traceback" its exception line is looked for, and how many tracebacks are tried.
_TRACEBACK_LINES: Final = 2000
_TRACEBACKS: Final = 50


@dataclass(frozen=True)
class Tracker:
    """A project's issue tracker: its name as people say it and its GitHub repository."""

    name: str
    repo: str


#: Import names and tools, with the project whose repository holds its issues: each the
#: repository its package's page on pypi.org (or conda's docs) links as "Source"/"Issues".
TRACKERS: Final[dict[str, Tracker]] = {
    "torch": Tracker("PyTorch", "pytorch/pytorch"),
    "torchvision": Tracker("torchvision", "pytorch/vision"),
    "torchaudio": Tracker("torchaudio", "pytorch/audio"),
    "tensorflow": Tracker("TensorFlow", "tensorflow/tensorflow"),
    "keras": Tracker("Keras", "keras-team/keras"),
    "jax": Tracker("JAX", "jax-ml/jax"),
    "jaxlib": Tracker("JAX", "jax-ml/jax"),
    "vllm": Tracker("vLLM", "vllm-project/vllm"),
    "transformers": Tracker("Transformers", "huggingface/transformers"),
    "diffusers": Tracker("Diffusers", "huggingface/diffusers"),
    "accelerate": Tracker("Accelerate", "huggingface/accelerate"),
    "bitsandbytes": Tracker("bitsandbytes", "bitsandbytes-foundation/bitsandbytes"),
    "triton": Tracker("Triton", "triton-lang/triton"),
    "onnxruntime": Tracker("ONNX Runtime", "microsoft/onnxruntime"),
    "llama_cpp": Tracker("llama-cpp-python", "abetlen/llama-cpp-python"),
    "ggml": Tracker("llama.cpp", "ggml-org/llama.cpp"),
    "xformers": Tracker("xFormers", "facebookresearch/xformers"),
    "flash_attn": Tracker("FlashAttention", "Dao-AILab/flash-attention"),
    "deepspeed": Tracker("DeepSpeed", "deepspeedai/DeepSpeed"),
    "tensorrt": Tracker("TensorRT", "NVIDIA/TensorRT"),
    "paddle": Tracker("PaddlePaddle", "PaddlePaddle/Paddle"),
    "cupy": Tracker("CuPy", "cupy/cupy"),
    "pip": Tracker("pip", "pypa/pip"),
    "uv": Tracker("uv", "astral-sh/uv"),
    "conda": Tracker("conda", "conda/conda"),
    # Its open kernel modules' tracker (github.com/NVIDIA/open-gpu-kernel-modules), where NVIDIA
    # answers about the driver's NVRM lines; the proprietary module's users ask on its forums.
    "nvidia-driver": Tracker("NVIDIA driver", "NVIDIA/open-gpu-kernel-modules"),
}


@dataclass(frozen=True)
class UnrecognisedError:
    """An error no finding explains.

    Attributes:
        lines: The salient lines, in the log's order (at most three), cut and masked.
        component: The package or tool the error comes from, where the log tells (``PyTorch``,
            ``pip``, or an unknown package's import name).
        project: The GitHub repository of the component's issue tracker, when it is known.
        search_url: A search for the main line in that tracker's issues (all of GitHub's
            when no tracker is known).
    """

    lines: tuple[str, ...]
    component: str | None
    project: str | None
    search_url: str | None


def unrecognised_error(text: str) -> UnrecognisedError | None:
    """The error ``text`` holds, quoted, or None when it holds none (see the module's docstring)."""
    for view in log_views(text):
        found = _error_in(view)
        if found is not None:
            return found
    return None


def unrecognised_error_to_json(error: UnrecognisedError | None) -> dict[str, object] | None:
    """``unrecognised_error`` of ``diagnose --json``."""
    if error is None:
        return None
    return {
        "lines": list(error.lines),
        "component": error.component,
        "project": error.project,
        "search_url": error.search_url,
    }


# --- what an error looks like ---------------------------------------------------------------

_TRACEBACK: Final = "Traceback (most recent call last):"
#: The line that ends a traceback: a (dotted) name, alone or before ": message".
_RAISED: Final = re.compile(r"(?P<name>(?:[A-Za-z_]\w{0,100}\.){0,12}[A-Za-z_]\w{0,100})(?::[ \t]|:$|$)")
#: A bare exception name (no message) that names a failure, not any word.
_FAILURE_NAME: Final = re.compile(r"(?:Error|Exception|Interrupt|Exit|Fail|Failure|Fault)$")
#: Not failures: the user's Ctrl+C, and exiting with status 0.
_NOT_FAILURES: Final = re.compile(r"KeyboardInterrupt\b|SystemExit(?:: 0)?$|GeneratorExit\b")
#: An exception's line without a traceback, after spaces or a bracketed prefix (``[rank0]:``).
_EXCEPTION_LINE: Final = re.compile(
    r"[ \t]*(?:\[[^\]\n]{0,80}\]:?[ \t]*)?"
    r"(?P<line>(?:[A-Za-z_]\w{0,100}\.){0,12}[A-Za-z_]\w{0,100}?(?:Error|Exception): \S.*)"
)
#: The NVIDIA driver's own lines: its kernel module's, nvidia-smi's, NVML's.
_DRIVER_WORDS: Final = r"NVRM: |No devices were found|NVIDIA-SMI has failed|[Ff]ailed to initialize NVML"
#: Lines that may hold an error: each one found is classified once.
_TRIGGER: Final = re.compile(
    r"[Ee]rror|ERROR|Exception|FATAL|[Ff]atal|terminate called|Segmentation fault|core dumped"
    r"|Illegal instruction|Killed|[Ee]xit|ASSERT|Assertion|Check failed|^[ \t]*F(?:\d{4})? "
    rf"|{_DRIVER_WORDS}|CMake Error|No solution found|Cannot solve the request|failed to solve",
    re.MULTILINE,
)
_FATAL: Final = re.compile(
    r"\bFATAL\b|(?<!non-)\b[Ff]atal(?: Python)? error\b|^fatal: |terminate called after throwing"
    r"|Segmentation fault|\bcore dumped\b|^Illegal instruction|^Killed$|\bCUDA error: "
    r"|^F\d{4} \d\d:\d\d|^\d{4}-\d\d-\d\d[ T][\d:.]{1,20}: F |^F [\w./\\-]{1,200}:\d{1,6}\] |\bCheck failed: "
    r"|\bGGML_ASSERT\b|\bAssertion [`'][^\n]{0,400}' failed"
    r"|^(?:error|ERROR|Error): |: (?:fatal )?error(?: [A-Z]{1,4}\d{2,6})?: "
    # A tool's own report of what it could not do ("Error while creating shared memory segment",
    # Ollama's "Error: ..."); not "Error in", which PyTorch's cpuinfo says of a harmless probe.
    r"|^Error (?:while|during|when|loading|creating|opening|occurred|occured)\b"
    # The NVIDIA kernel driver's own lines (dmesg, journalctl) when it cannot bring a GPU up, and
    # nvidia-smi's answers when it finds none: no "error" in their words.
    r"|\bNVRM: [^\n]{0,300}?(?:\bfailed\b|\bXid\b|\bCannot\b|\bnot large enough\b|\berror\b)"
    r"|^No devices were found\b|\bNVIDIA-SMI has failed\b|\bFailed to initialize NVML: "
    # CMake's: "CMake Error at CMakeLists.txt:26 (enable_language):" and its indented reason.
    r"|^CMake Error\b"
    # The solvers' words when no set of packages fits: uv's "No solution found when resolving
    # dependencies", pixi's (resolvo's) "Cannot solve the request because of" and "failed to solve".
    r"|\bNo solution found when resolving\b|\bCannot solve the request\b|\bfailed to solve the\b"
)
#: The lines that are the NVIDIA driver's (its kernel module's, nvidia-smi's, NVML's).
_DRIVER_LINE: Final = re.compile(_DRIVER_WORDS)
#: pip's note after an install that worked, though it says "ERROR:" (pip's resolver docs).
_NOT_FATAL: Final = re.compile(r"ERROR: pip's dependency resolver does not currently take into account")
_EXIT: Final = re.compile(
    r"\b(?:[Ee]xit(?:ed)?(?: with)?|EXIT) (?:code|status|CODE|STATUS)\b[ \t:=]{0,3}(?P<status>-?\d{1,10}|0x[0-9A-Fa-f]{1,8})"
)
#: A log line's prefix that the search should not look for: glog/absl's and TensorFlow's
#: "F0101 12:00:00.000 123 file.cc:45] ", "2024-01-01 12:00:00.000: F file.cc:45] ".
_SOURCE_PREFIX: Final = re.compile(r"[^\s:]{1,300}+:\d{1,6}(?::\d{1,5})?: ")
_LOG_PREFIX: Final = re.compile(
    r"(?:[FEWI]\d{4} [^\]\n]{0,200}|[FEWI] [\w./\\-]{1,200}:\d{1,6}|\d{4}-\d\d-\d\d[ T][^\]\n]{0,200})\] "
    # The kernel's: dmesg's "[ 6.2] ", syslog's and journalctl's "Jul 01 22:55:07 host kernel: ".
    r"|\[ {0,12}\d{1,12}\.\d{1,9}\] |[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [^\s:]{1,100} kernel: (?:\[ {0,12}[\d.]{1,24}\] )?"
)


@dataclass
class _Seen:
    exception: tuple[int, str] | None = None
    fatal: tuple[int, str] | None = None
    exit: tuple[int, str] | None = None
    frames: tuple[str, ...] = ()
    exception_name: str = ""
    traceback: tuple[int, int] = (0, 0)  # where the last traceback's frames are


def _error_in(text: str) -> UnrecognisedError | None:
    seen = _Seen()
    has_traceback = _TRACEBACK in text
    if has_traceback:
        _last_traceback(text, seen)
    for position, line in _trigger_lines(text):
        if not has_traceback and (match := _EXCEPTION_LINE.match(line)):
            seen.exception = (position, match.group("line"))
            seen.exception_name = match.group("line").split(":", 1)[0]
        if seen.fatal is None and _FATAL.search(line.lstrip()) and not _NOT_FATAL.search(line):
            seen.fatal = (position, line.strip())
        if seen.exit is None and (match := _EXIT.search(line)) and _nonzero(match.group("status")):
            seen.exit = (position, line.strip())
    quoted = sorted({item for item in (seen.exception, seen.fatal, seen.exit) if item is not None})
    if not quoted:
        return None
    lines = tuple(dict.fromkeys(_cut(_masked(line)) for _, line in quoted))
    main = (seen.exception or seen.fatal or seen.exit or quoted[0])[1]
    module = _component_module(text, seen, [line for _, line in quoted])
    tracker = TRACKERS.get(module) if module else None
    component = tracker.name if tracker else module
    query = quote(f'"{_query(_masked(main))}"', safe="")
    url = (
        f"https://github.com/{tracker.repo}/issues?q={query}"
        if tracker
        else f"https://github.com/search?type=issues&q={query}"
    )
    return UnrecognisedError(lines, component, tracker.repo if tracker else None, url)


def _trigger_lines(text: str) -> Iterator[tuple[int, str]]:
    """The lines of ``text`` that hold a trigger word, with where each starts; each line once."""
    position = 0
    while (match := _TRIGGER.search(text, position)) is not None:
        newline = text.rfind("\n", position, match.start())
        start = position if newline < 0 else newline + 1
        end = text.find("\n", match.end())
        end = len(text) if end < 0 else end
        yield start, text[start:end].rstrip("\r")
        position = end + 1


def _last_traceback(text: str, seen: _Seen) -> None:
    """The exception line and frames of the last traceback that is a failure."""
    end = len(text)
    for _ in range(_TRACEBACKS):
        start = text.rfind(_TRACEBACK, 0, end)
        if start < 0:
            return
        end = start
        line_start = text.rfind("\n", 0, start) + 1
        prefix = text[line_start:start]
        before = text.rfind("\n", 0, max(line_start - 1, 0)) + 1
        if text.startswith("Exception ignored", before) or "Exception ignored" in prefix:
            continue
        found = _exception_after(text, text.find("\n", start), prefix)
        if found is not None:
            position, line, frames = found
            name = line.split(":", 1)[0]
            if _NOT_FAILURES.match(line):
                return  # the last traceback is no failure: an earlier one was dealt with
            seen.exception, seen.frames, seen.exception_name = (position, line), frames, name
            seen.traceback = (start, position)
            return


def _exception_after(text: str, position: int, prefix: str) -> tuple[int, str, tuple[str, ...]] | None:
    frames: list[str] = []
    for _ in range(_TRACEBACK_LINES):
        if position < 0:
            return None
        start = position + 1
        end = text.find("\n", start)
        line = text[start : end if end >= 0 else len(text)].rstrip("\r")
        position = end
        if prefix and line.startswith(prefix):
            line = line[len(prefix) :]
        if not line.strip() or line[:1] in " \t":
            stripped = line.strip()
            if stripped.startswith('File "'):
                frames.append(stripped[6 : stripped.find('"', 6)])
            continue
        if (match := _RAISED.match(line)) and (": " in line or _FAILURE_NAME.search(match.group("name"))):
            return start, line.strip(), tuple(frames)
        return None  # something else ends the traceback: a log cut short, or interleaved
    return None


def _nonzero(status: str) -> bool:
    try:
        return int(status, 0) != 0
    except ValueError:
        return False


# --- the component and the search -----------------------------------------------------------

_PACKAGES_FOLDER: Final = re.compile(r"[\\/](?:site|dist)-packages[\\/](?P<package>[A-Za-z_]\w{0,100})")
#: Project names said in the quoted lines; the installers only by their command lines (a "uv" in
#: a message is more often texture coordinates than the tool).
_NAMED: Final = re.compile(
    r"(?<![\w-])(?P<module>"
    + "|".join(sorted(set(TRACKERS) - {"pip", "uv", "conda", "nvidia-driver"}, key=len, reverse=True))
    + r")(?![\w-])"
)
_CONDA_ERRORS: Final = re.compile(
    r"(?:Conda\w{0,60}|PackagesNotFound|Unsatisfiable|LibMambaUnsatisfiable|ResolvePackageNotFound)Error"
)
#: The installer that ran, by its command line or its words (uv first: "uv pip install").
_INSTALLERS: Final = (
    ("uv", re.compile(r"\buv (?:pip|sync|add|run|venv|tool)\b")),
    (
        "conda",
        re.compile(r"\b(?:conda|mamba|micromamba) (?:install|create|env|update)\b|Solving environment"),
    ),
    ("pip", re.compile(r"\bpip3? install\b|\bpip\._internal\b|^Collecting |^Building wheel", re.MULTILINE)),
)


def _component_module(text: str, seen: _Seen, lines: list[str]) -> str | None:  # noqa: PLR0911 - one return per source
    """The import name of the component, from the surest source the log has.

    The package pip failed to build, the deepest frame's package, a name in the frames' code,
    the exception's module, a name in the quoted lines, the installer that ran.
    """
    # pip: "This error originates from a subprocess, and is likely not a problem with pip".
    if (failed := text.find("subprocess-exited-with-error")) >= 0 and (built := _built(text, failed)):
        return _import_name(built)
    for frame in reversed(seen.frames):
        if match := _PACKAGES_FOLDER.search(frame):
            return _known(match.group("package"))
        parts = re.split(r"[\\/]", frame)
        if known := next((part for part in reversed(parts[:-1]) if part in TRACKERS), None):
            return known
    # The code the frames show (torch.matmul(...) in the user's script), nearest the raise first.
    said = [match.group("module") for match in _NAMED.finditer(text, *seen.traceback)]
    if said:
        return said[-1]
    name = seen.exception_name
    if _CONDA_ERRORS.search(name):
        return "conda"
    if "." in name and (head := name.split(".", 1)[0]) in TRACKERS:
        return head
    for line in lines:
        if match := _NAMED.search(line):
            return match.group("module")
        if _DRIVER_LINE.search(line):
            return "nvidia-driver"
    for module, words in _INSTALLERS:
        if words.search(text):
            return module
    return None


#: The distribution pip builds, by the name it printed: "Building wheel for flash-attn", or
#: the last "Collecting flash-attn" before the failure ("Getting requirements to build wheel").
_BUILDING: Final = re.compile(r"(?:Failed building wheel|Building wheel) for (?P<name>[\w.-]{1,100})")
_COLLECTING: Final = re.compile(r"^[ \t]*Collecting (?P<name>[A-Za-z0-9][\w.-]{0,100})", re.MULTILINE)


def _built(text: str, failed: int) -> str | None:
    if building := _BUILDING.search(text):
        return building.group("name")
    collected = None
    for match in _COLLECTING.finditer(text, 0, failed):
        collected = match.group("name")
    return collected


def _import_name(distribution: str) -> str:
    name = distribution.lower().replace("-", "_").replace(".", "_")
    return {"llama_cpp_python": "llama_cpp", "onnxruntime_gpu": "onnxruntime"}.get(name, name)


def _known(package: str) -> str:
    # A package's private parts (_C, torch's extension) and vendored copies keep their owner.
    return "torch" if package in ("functorch", "torchgen") else package


def _masked(line: str) -> str:
    line = _TOKEN.sub("<token>", line)
    line = _HOME.sub(lambda match: f"{match.group(1) or match.group(2)}<user>", line)
    return _URL.sub(lambda match: mask_url(match.group(0)), line)


_TOKEN: Final = re.compile(ACCESS_TOKEN)
#: The account's name in a home folder (C:\Users\NAME, /home/NAME, /Users/NAME): a quoted line
#: is meant to be pasted in public.
_HOME: Final = re.compile(
    r"(?i:(?<![\w])([a-z]:[\\/]{1,2}users[\\/]{1,2}))[^\\/\s\"'<>]{1,100}"
    r"|(?<![\w.~-])((?:/mnt/[a-z])?/(?:home|Users)/)[^/\s\"'<>]{1,100}"
)
_URL: Final = re.compile(r"\b[a-z][a-z0-9+.-]{0,20}://[^\s\"'<>]{1,2000}")


def _cut(line: str, chars: int = LINE_CHARS) -> str:
    return line if len(line) <= chars else line[: chars - 1] + "…"


def _query(line: str) -> str:
    """The words of ``line`` to search for: without a log prefix and quotes, cut at a word."""
    line = _LOG_PREFIX.sub("", line, count=1) if _LOG_PREFIX.match(line) else line
    line = _SOURCE_PREFIX.sub("", line, count=1)  # "/path/ggml.c:1554: ": this machine's paths
    line = " ".join(line.replace('"', " ").split())
    if len(line) <= _QUERY_CHARS:
        return line
    return line[:_QUERY_CHARS].rsplit(" ", 1)[0]
