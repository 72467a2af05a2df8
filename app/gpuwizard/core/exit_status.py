"""What a child's exit status means, in words: the Windows number of a crash, or a POSIX signal.

A tool that crashes on Windows ends with an NTSTATUS value as its exit status: ``uv.exe exited
with status 3221225781`` is 0xC0000135, STATUS_DLL_NOT_FOUND (issue 37), and a raw number tells a
person nothing. Python reports it unsigned (3221225781); tools that print it as a signed 32-bit
number say -1073741515. A process can also exit with a Win32 error number it got (ERROR_MOD_NOT_FOUND,
126). On POSIX, :mod:`subprocess` reports a child ended by a signal as the negated signal number
(-9: SIGKILL).

The numbers, names and the makers' meanings are the Windows vocabularies that ``gpuwizard
diagnose`` reads (resources/vocabularies/windows-*.json, written by tools/vocabularies.py); this
module adds only, for some of those names, plainer words and what to do, each with its source.

>>> describe_exit(3221225781, windows=True)  # doctest: +ELLIPSIS
'0xC0000135 STATUS_DLL_NOT_FOUND: a DLL the program needs was not found; install ...'
>>> describe_exit(1, windows=True) is None
True
"""

from __future__ import annotations

import re
import signal
from typing import Final

from gpuwizard.core.findings.vocabularies import windows_codes

#: The Windows numbers by their unsigned value (the vocabularies ``gpuwizard diagnose`` reads).
WINDOWS_CODES: Final = windows_codes()

#: NTSTATUS values have their two top bits as the severity (MS-ERREF 2.3, "NTSTATUS":
#: https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/87fba13e-bf06-450e-83b1-9241dc81e781);
#: 0b11 is an error. Such a status, unless a small negative one, is not one a program chose.
_NTSTATUS_ERROR: Final = 0xC0000000
_TOP_BIT: Final = 0x80000000
_WORD: Final = 1 << 32
#: A program's own negative exit code (exit(-1)) is small; the statuses Windows sets are not
#: (their code and facility fill the low bits: 0xC0000135 is -1073741515).
_SMALL_NEGATIVE: Final = 0x10000
#: Below this a Win32 error number is too common an exit status to read as one: a tool's own
#: "2" (bad usage) is not ERROR_FILE_NOT_FOUND. The same floor ``gpuwizard diagnose`` puts on a
#: bare number (core/findings/diagnosis_vendors.py).
_WIN32_MINIMUM: Final = 100

_VC_REDIST: Final = (
    "install the latest Microsoft Visual C++ Redistributable (x64, "
    "https://aka.ms/vs/17/release/vc_redist.x64.exe) and reinstall the program"
)

#: Plainer words and what to do, by the vocabulary's name: (meaning, what to do, source).
_ADVICE: Final[dict[str, tuple[str, str, str]]] = {
    "STATUS_DLL_NOT_FOUND": (
        "a DLL the program needs was not found",
        _VC_REDIST,
        # The vocabulary's own text: "Reinstalling the application may fix this problem"; the
        # runtime DLLs programs built with MSVC need come with the redistributable, "the most
        # common dependency" behind this status for winget's validation (microsoft/winget-pkgs#287504):
        "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
    ),
    "ERROR_MOD_NOT_FOUND": (
        "a DLL the program needs was not found",
        _VC_REDIST,
        "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
    ),
    "STATUS_ENTRYPOINT_NOT_FOUND": (
        "a DLL it loaded lacks a function it needs (another version of that DLL was found first)",
        _VC_REDIST + ", and look for an older copy of the DLL in a folder on PATH",
        "https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-search-order",
    ),
    "STATUS_ORDINAL_NOT_FOUND": (
        "a DLL it loaded lacks a function it needs (another version of that DLL was found first)",
        _VC_REDIST + ", and look for an older copy of the DLL in a folder on PATH",
        "https://learn.microsoft.com/en-us/windows/win32/dlls/dynamic-link-library-search-order",
    ),
    "STATUS_DLL_INIT_FAILED": (
        "a DLL it loaded failed as it started",
        _VC_REDIST,
        "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
    ),
    "ERROR_DLL_INIT_FAILED": (
        "a DLL it loaded failed as it started",
        _VC_REDIST,
        "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
    ),
    "ERROR_SXS_CANT_GEN_ACTCTX": (
        "a Visual C++ runtime it was built against is not installed",
        _VC_REDIST,
        "https://learn.microsoft.com/en-us/cpp/windows/latest-supported-vc-redist",
    ),
    "STATUS_ACCESS_VIOLATION": (
        "the program crashed (it touched memory it may not use)",
        "this is a bug in the program or a library it loaded, often packages built for other "
        "versions of each other: update them, or reinstall them in a fresh environment",
        "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55",
    ),
    "STATUS_ILLEGAL_INSTRUCTION": (
        "the program used a processor instruction this CPU does not have",
        "it was built for newer processors (often with AVX, which TensorFlow packages need "
        "since 1.6): install a build made for this CPU, or use another machine",
        "https://www.tensorflow.org/install/pip#hardware_requirements",
    ),
    "STATUS_STACK_BUFFER_OVERRUN": (
        "the program stopped itself on a fatal error (a fail-fast exit; not always an overrun)",
        "the lines it printed before say why; update or reinstall the program",
        # __fastfail raises this code whatever the reason:
        "https://learn.microsoft.com/en-us/cpp/intrinsics/fastfail",
    ),
    "STATUS_STACK_OVERFLOW": (
        "the program ran out of stack (runaway recursion)",
        "this is a bug in the program or a library it loaded: update them",
        "https://learn.microsoft.com/en-us/windows/win32/procthread/thread-stack-size",
    ),
    "STATUS_HEAP_CORRUPTION": (
        "the program corrupted its memory and was stopped",
        "often two versions of a runtime library in one process: reinstall the packages in a "
        "fresh environment",
        "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55",
    ),
    "STATUS_NO_MEMORY": (
        "Windows ran out of memory for it (RAM and paging file)",
        "close other programs or enlarge the paging file",
        "https://learn.microsoft.com/en-us/troubleshoot/windows-client/performance/introduction-to-the-page-file",
    ),
    "ERROR_NOT_ENOUGH_MEMORY": (
        "Windows ran out of memory for it",
        "close other programs or enlarge the paging file",
        "https://learn.microsoft.com/en-us/troubleshoot/windows-client/performance/introduction-to-the-page-file",
    ),
    "ERROR_COMMITMENT_LIMIT": (
        "the paging file is too small for what it asked",
        "close other programs or enlarge the paging file",
        "https://learn.microsoft.com/en-us/troubleshoot/windows-client/performance/introduction-to-the-page-file",
    ),
    "STATUS_INVALID_IMAGE_FORMAT": (
        "a program or DLL is damaged or built for another Windows (32-bit and 64-bit mixed)",
        "reinstall the program, in its 64-bit build",
        "https://learn.microsoft.com/en-us/openspecs/windows_protocols/ms-erref/596a1078-e883-4972-9bbc-49e60bebca55",
    ),
    "ERROR_BAD_EXE_FORMAT": (
        "a program or DLL is damaged or built for another Windows (32-bit and 64-bit mixed)",
        "reinstall the program, in its 64-bit build",
        "https://learn.microsoft.com/en-us/windows/win32/debug/system-error-codes--0-499-",
    ),
    "ERROR_FILENAME_EXCED_RANGE": (
        "a path was longer than Windows allows (260 characters)",
        "use a shorter folder, or enable long paths (LongPathsEnabled)",
        "https://learn.microsoft.com/en-us/windows/win32/fileio/maximum-file-path-limitation",
    ),
}

#: Why a POSIX signal usually ends a tool, and what to do, by signal name (man 7 signal for the
#: signals; the kernel's OOM killer ends a process with SIGKILL:
#: https://docs.kernel.org/admin-guide/mm/concepts.html#oom-killer).
_SIGNAL_ADVICE: Final[dict[str, str]] = {
    "SIGKILL": "killed, often by the system when memory ran out (the OOM killer): "
    "close other programs or use a machine with more memory",
    "SIGSEGV": "the program crashed (invalid memory access): update or reinstall it and its libraries",
    "SIGBUS": "the program crashed (bad memory access, e.g. a full disk under a mapped file)",
    "SIGILL": "the program used a processor instruction this CPU does not have (often AVX): "
    "install a build made for this CPU",
    "SIGABRT": "the program aborted on a fatal error: the lines it printed before say why",
    "SIGFPE": "the program crashed on an arithmetic error",
    "SIGTERM": "asked to stop by another program or the system",
    "SIGINT": "interrupted (Ctrl+C)",
}

#: A printf placeholder in a vocabulary message (``%hs``, ``0x%08lx``, ``%1``).
_PLACEHOLDER: Final = re.compile(r"(?:0x)?%[0-9a-z]+")


def describe_exit(status: int, *, windows: bool) -> str | None:
    """What ``status``, a child's exit status, means and what to do; None when it is no crash.

    ``windows``: whether the child ran on Windows. There a status with the top bit set (given
    unsigned, 3221225781, or signed, -1073741515) is an NTSTATUS value, and from 100 up a status
    the vocabulary knows is a Win32 error number; elsewhere a negative status is the signal that
    ended the child. Ordinary statuses (0, 1, a tool's own codes) give None.

    >>> describe_exit(-1073741515, windows=True) == describe_exit(0xC0000135, windows=True)
    True
    >>> describe_exit(-9, windows=False)  # doctest: +ELLIPSIS
    'SIGKILL (Killed): killed, often by the system when memory ran out ...'
    """
    if status == 0:
        return None
    if windows:
        return _windows(status)
    return _signal(-status) if status < 0 else None


def status_text(status: int | None, *, windows: bool) -> str:
    """``status N``, with what it means when :func:`describe_exit` knows: for "exited with ...".

    >>> status_text(1, windows=True)
    'status 1'
    >>> status_text(0xC000001D, windows=True)  # doctest: +ELLIPSIS
    'status 3221225501 (0xC000001D STATUS_ILLEGAL_INSTRUCTION: ...)'
    """
    words = describe_exit(status, windows=windows) if status is not None else None
    return f"status {status}" + (f" ({words})" if words else "")


def _windows(status: int) -> str | None:
    number = status + _WORD if -_TOP_BIT <= status < 0 else status
    entry = WINDOWS_CODES.get(number)
    if entry is None:
        return _unknown_windows(number)
    if number < _WIN32_MINIMUM:
        return None
    advice = _ADVICE.get(entry.name)
    meaning = advice[0] if advice else _plain(entry.message)
    said = f"{entry.hex or f'0x{number:08X}'} {entry.name}: {meaning}"
    return f"{said}; {advice[1]}" if advice else said


def _unknown_windows(number: int) -> str | None:
    """A number the vocabulary lacks: still a crash when Windows, not the program, set it."""
    if not _TOP_BIT <= number <= _WORD - _SMALL_NEGATIVE:
        return None  # a program's own code, exit(-1) (0xFFFFFFFF) included
    if number >= _NTSTATUS_ERROR:
        return f"0x{number:08X}: a Windows error status: the program crashed or was stopped by Windows"
    return f"0x{number:08X}: a Windows exception status: the program ended abnormally"


def _plain(message: str) -> str:
    """The vocabulary's message without its ``{Title}`` and printf placeholders."""
    text = re.sub(r"^\{[^}]*\}\s*", "", message)
    return _PLACEHOLDER.sub("…", text).rstrip(".")


def _signal(number: int) -> str | None:
    try:
        name = signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
    described = signal.strsignal(number)
    said = f"{name} ({described})" if described else name
    advice = _SIGNAL_ADVICE.get(name)
    return f"{said}: {advice}" if advice else said
