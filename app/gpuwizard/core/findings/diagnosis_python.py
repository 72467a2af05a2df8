"""Known errors of Python versions without wheels, and TensorFlow's DLL load failure on Windows.

Part of :mod:`gpuwizard.core.findings.diagnosis`, which tries
:data:`PYTHON_PART` with the other parts. Each signature cites a public report that shows the message; the logs are recorded in
tests/fixtures/recorded/diagnose (SOURCES.md says where each one comes from). Its signatures and their texts are data in
``resources/findings/python.json``; this module holds the code they name.

``PYTHON_VERSION_NO_WHEELS`` is given only where the log proves the Python version is the cause:
uv and conda say so in words; pip only lists the versions it "ignored" for their Python
requirement, so a pip log counts when nothing was left ("from versions: none") and the Python the
log shows is outside a range pip printed. It then explains the generic NO_MATCHING_DISTRIBUTION.

``TF_DLL_LOAD_FAILED`` weighs the causes of TensorFlow's "DLL load failed" from the whole log.
Windows' own text after the colon arrives in the user's language, so it is read by meaning: the
texts of Windows error 126 (ERROR_MOD_NOT_FOUND) and 1114 (ERROR_DLL_INIT_FAILED) below are
each seen in a real report (learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499-
and --1000-1299-).

>>> from gpuwizard.core.findings.diagnosis import diagnose
>>> [finding] = diagnose(
...     "ImportError: DLL load failed while importing _pywrap_tensorflow_internal: "
...     "A dynamic link library (DLL) initialization routine failed."
... )
>>> finding.code, finding.params["variant"], finding.params["windows_error"]
('TF_DLL_LOAD_FAILED', 'avx', '1114')
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Final

from gpuwizard.core.findings.log_facts import per_log, read_log_facts
from gpuwizard.core.findings.signature import DiagnosisPart, Values, search_log

# --- Python versions without wheels ----------------------------------------------------------

_VERSION: Final = re.compile(r"(\d+)\.(\d+)")
#: A Python requirement's clauses as pip and conda print them (">=3.9,<3.13", "<3.8.0a0").
_CLAUSE: Final = re.compile(r"(>=|<=|==|!=|~=|<|>)\s{0,3}(\d+(?:\.\d+){0,3})(?:[a-z]+\d{0,3})?")
#: pip's "Ignored the following versions ..." lists "1.26.0 Requires-Python <3.13,>=3.9; ...".
_REQUIRES_PYTHON: Final = re.compile(r"Requires-Python ([<>=!~., \d]{1,60})")
_NONE_LEFT: Final = re.compile(
    r"Could not find a version that satisfies the requirement (?P<package>[^\s(]{1,200})[^\n]{0,300}?"
    r"\(from versions: ?none\)"
)
_ABI_TAG: Final = re.compile(r"`cp(3)(\d{1,2})\w?`")


def _minor(version: str) -> tuple[int, int] | None:
    match = _VERSION.match(version)
    return (int(match.group(1)), int(match.group(2))) if match else None


def _outside(python: tuple[int, int], requirement: str) -> bool:
    """Whether a Python minor version is excluded by one clause of ``requirement``."""
    for operator, version in _CLAUSE.findall(requirement):
        parts = [int(part) for part in version.split(".")[:2]] + [0]
        bound = (parts[0], parts[1])
        excluded = {
            "<": python >= bound,
            "<=": python > bound,
            ">": python < bound and len(version.split(".")) > 1,
            ">=": python < bound,
        }.get(operator, False)
        if excluded:
            return True
    return False


def _package(requirement: str) -> str:
    name = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]{0,100}", requirement.strip("`'\""))
    return name.group(0).lower().replace("_", "-") if name else requirement


def _python_tags(text: str) -> list[str]:
    return [f"{major}.{minor}" for major, minor in _ABI_TAG.findall(text)]


def _uv_abi_tag(match: re.Match[str]) -> Values | None:
    python = f"3.{match.group('minor')}" if match.group("minor") else read_log_facts(match.string).python
    if not python:
        return None
    return {"python": python, "package": _package(match.group("package"))}


def _uv_hint(match: re.Match[str]) -> Values:
    values: Values = {"python": match.group("python"), "package": _package(match.group("package"))}
    values["package_version"] = match.group("version")
    values["available"] = _python_tags(match.group("tags"))
    return values


def _pip_ignored(match: re.Match[str]) -> Values | None:
    # pip drops a version whose Requires-Python excludes this Python and lists it here
    # (pip/_internal/index/package_finder.py, "Ignored the following versions that require a
    # different python version"); "(from versions: none)" then says nothing else was left.
    text = match.string
    left = _NONE_LEFT.search(text, match.end(), match.end() + 20_000)
    python = read_log_facts(text).python
    if left is None or python is None or (minor := _minor(python)) is None:
        return None
    requirements = _REQUIRES_PYTHON.findall(text, match.end(), left.start())
    if not any(_outside(minor, requirement) for requirement in requirements):
        return None
    return {"python": python, "package": _package(left.group("package"))}


def _conda_python(match: re.Match[str]) -> Values:
    available = [
        f"{major}.{minor}"
        for major, minor in re.findall(r">=(\d)\.(\d{1,2}),<", match.group("requires"))
        if major == "3"
    ]
    python = match.group("python")
    return {
        "python": ".".join(python.split(".")[:2]),
        "package": _package(match.group("package")),
        "available": sorted(set(available), key=lambda version: _minor(version) or (0, 0)),
    }


def _refine_no_wheels(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The Python the log ran and, where the log lists them, the Pythons that have wheels."""
    del variants, text  # the values say all
    python = values["python"][0]
    params: dict[str, object] = {"python": python, "package": values["package"][0]}
    available = sorted(set(values.get("available", [])), key=lambda version: _minor(version) or (0, 0))
    if not available:
        return None, params
    params["available"] = available
    # The newest listed Python that has wheels: the smallest change that makes the install work.
    params["suggested"] = available[-1]
    return "listed", params


# --- TensorFlow's DLL load failure on Windows ------------------------------------------------

#: Windows' text for error 126, ERROR_MOD_NOT_FOUND, in the languages seen in real reports:
#: English, Chinese (tensorflow/models#2083), German (tensorflow/tensorflow#5949), French
#: (huggingface/diffusers#5247), Spanish (tensorflow/tensorflow#16861).
_MODULE_NOT_FOUND: Final = (
    "the specified module could not be found",
    "找不到指定的模块",
    "das angegebene modul wurde nicht gefunden",
    "le module spécifié est introuvable",
    "no se puede encontrar el módulo especificado",
)
#: Windows' text for error 1114, ERROR_DLL_INIT_FAILED: English, Chinese
#: (Dimsmary/Ossas_ChatBot#22), Spanish (tensorflow/tensorflow#73525).
_INIT_FAILED: Final = (
    "a dynamic link library (dll) initialization routine failed",
    "动态链接库(dll)初始化例程失败",
    "error en una rutina de inicialización de biblioteca de vínculos dinámicos",
)
_ERROR_NUMBER: Final = re.compile(
    r"\[WinError (126|1114)\]|error code (126|1114)\b|\(0x(7E|45A)\)", re.IGNORECASE
)
#: The Visual C++ runtime's DLLs (TensorFlow 2.1 release notes: the Windows packages need the
#: "Microsoft Visual C++ Redistributable for Visual Studio 2015, 2017 and 2019", which brings
#: msvcp140_1.dll).
# Case spelled out (as Windows' dialogs and Python's loader print the names): read over a whole
# log, a pattern that ignores case is tried at every place (search_log).
_MSVC_DLL: Final = re.compile(
    r"\b(?:msvcp140(?:_1|_2)?|vcruntime140(?:_1)?|MSVCP140(?:_1|_2)?|VCRUNTIME140(?:_1)?)\.(?:dll|DLL)\b"
)
#: TensorFlow 2.0 and older linked the CUDA runtime and cuDNN: a missing one stopped the import
#: (tensorflow/python/platform/self_check.py: "Could not find 'cudart64_100.dll'").
_CUDA_DLL: Final = re.compile(
    r"\b(?:cudart64_\d{2,3}|cudnn64_\d{1,2}|cublas64_\d{2,3})\.dll\b", re.IGNORECASE
)
_OLD_LOADER: Final = re.compile(r"swig_import_helper|Could not (?:find|load) '[\w.]{1,80}\.dll'")
_32BIT: Final = re.compile(r"\bwin32\.whl|\[MSC v\.\d{3,5} 32 bit|\b[Pp]ython3\d{1,2}-32\b|32-bit [Pp]ython")
_STORE: Final = re.compile(r"PythonSoftwareFoundation\.Python\.3|\\WindowsApps\\", re.IGNORECASE)
_TENSORFLOW_CONTEXT: Final = re.compile(r"pywrap_tensorflow|native TensorFlow runtime")


@per_log
def _tensorflow_context(text: str) -> bool:
    return search_log(_TENSORFLOW_CONTEXT, text) is not None


def _tf_reason(match: re.Match[str]) -> Values:
    return {"reason": match.group("reason").strip()}


def _tf_old_form(match: re.Match[str]) -> Values | None:
    # TensorFlow 2.0 and older (Python before 3.8): no module name after "DLL load failed".
    if not _tensorflow_context(match.string):
        return None
    return _tf_reason(match)


def _folded(text: str) -> str:
    """Text compared by meaning: case-folded, without the spaces around "(DLL)"."""
    return re.sub(r"\s{0,3}\(dll\)\s{0,3}", "(dll)", text.casefold())


def _windows_error(reasons: Sequence[str], text: str) -> str | None:
    """Windows' error number, from its localised text or from the number itself."""
    for reason in map(_folded, reasons):
        if any(_folded(words) in reason for words in _MODULE_NOT_FOUND):
            return "126"
        if any(_folded(words) in reason for words in _INIT_FAILED):
            return "1114"
    if number := _ERROR_NUMBER.search(text):
        found = next(group for group in number.groups() if group).lower()
        return {"7e": "126", "45a": "1114"}.get(found, found)
    return None


def _refine_tf_dll(
    values: Mapping[str, Sequence[str]], variants: Sequence[str], text: str
) -> tuple[str | None, dict[str, object]]:
    """The most likely cause, from Windows' error number and what else the log names.

    An initialisation that failed (1114) is the CPU without AVX; a DLL that was not found (126)
    is a named CUDA DLL on TensorFlow 2.0 and older, a 32-bit or Store Python where the log shows
    one, and otherwise the Visual C++ runtime, the usual missing piece.
    """
    del variants
    params: dict[str, object] = {}
    error = _windows_error(values.get("reason", []), text)
    if error:
        params["windows_error"] = error
    if python := read_log_facts(text).python:
        params["python"] = python
    if msvc := search_log(_MSVC_DLL, text):
        params["library"] = msvc.group(0)
    elif (cuda := search_log(_CUDA_DLL, text)) and search_log(_OLD_LOADER, text):
        params["library"] = cuda.group(0)
    # The causes, most telling first: the first that the log shows is the most likely (each
    # asked only when those before it are not shown).
    causes: tuple[tuple[str, Callable[[], bool]], ...] = (
        ("avx", lambda: error == "1114"),
        ("msvc", lambda: msvc is not None),
        ("cuda", lambda: "library" in params),
        ("python", lambda: search_log(_32BIT, text) is not None),
        ("store", lambda: search_log(_STORE, text) is not None),
        ("msvc", lambda: error == "126"),
    )
    return next((variant for variant, shown in causes if shown()), "unknown"), params


PYTHON_PART: Final = DiagnosisPart(
    name="python",
    extractors=(
        _uv_abi_tag,
        _uv_hint,
        _pip_ignored,
        _conda_python,
        _tf_reason,
        _tf_old_form,
    ),
    # Given only where the Python version is proven the cause (see the module's docstring).
    suppresses={"PYTHON_VERSION_NO_WHEELS": ("NO_MATCHING_DISTRIBUTION",)},
    refiners={"PYTHON_VERSION_NO_WHEELS": _refine_no_wheels, "TF_DLL_LOAD_FAILED": _refine_tf_dll},
)
