r"""Reading what ``wsl.exe`` prints, in whatever language Windows speaks; pure, no I/O.

``wsl.exe`` writes UTF-16LE without a byte order mark to a pipe unless ``WSL_UTF8=1`` is set
(which only the Store WSL honours), so its bytes are decoded by what they look like
(:func:`decode_output`). Its messages are translated into the Windows display language
(microsoft/WSL, ``localization/strings/<lang>/Resources.resw``), so nothing here matches a
label: values are read by their place and shape, and what went wrong by the error codes
(``Wsl/Service/.../HCS_E_HYPERV_NOT_INSTALLED``, ``0x80370102``), the links and the command
lines that translations keep as they are (``https://aka.ms/enablevirtualization``,
``wsl.exe --install <Distro>``).

- ``wsl --list --verbose``: a table, ``*`` before the default distribution, then name, state
  and version. Names match ``^[a-zA-Z0-9._-]+$`` (``s_ValidateDistroName``,
  src/windows/service/exe/LxssUserSession.cpp), so a row is split on blanks: the first field
  is the name, the last the version, the rest the state. The header row ends in a word, not a
  version, and is skipped whatever its language.
- ``wsl --status``: ``Default Distribution: NAME`` (only when there is a default), then
  ``Default Version: N``; the inbox WSL of Windows 10 adds ``Kernel version: X``.
- ``wsl --version``: ``WSL version: X``, then ``Kernel version: Y``, then other components'.

>>> text = "  NAME      STATE           VERSION\n* Ubuntu    Running         2\n  Legacy    Stopped         1\n"
>>> [(d.name, d.default, d.state, d.version) for d in parse_listing(text)]
[('Ubuntu', True, 'running', 2), ('Legacy', False, 'stopped', 1)]
>>> parse_status("既定のディストリビューション: Ubuntu\n既定のバージョン: 2\n")
WslStatus(default_distro='Ubuntu', default_version=2, kernel_version=None)
>>> parse_version("Версия WSL: 2.4.11.0\nВерсия ядра: 5.15.167.4-1\nВерсия WSLg: 1.0.65\n")
WslVersions(wsl_version='2.4.11.0', kernel_version='5.15.167.4-1')
>>> gpu_compute(22631, "581.57", True), gpu_compute(19041, "581.57", True), gpu_compute(22631, None, False)
(True, False, None)
"""

from __future__ import annotations

import codecs
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Final

from gpuwizard.core.machine.system_report import WslDistroFacts, WslFacts

#: The states of a distribution as the report names them (the schema's enum).
STATES: Final = ("running", "stopped", "installing", "converting", "uninstalling")

# WSL's own source prints the state words in English whatever the display language
# (ListDistributionsHelper in src/windows/common/WslClient.cpp: L"Running", L"Stopped", ...; the
# header is WSL_LIST_HEADER_* in src/windows/inc/wsl.h), and outputs published from Japanese
# Windows agree (tests/fixtures/wsl/README.md). The other languages' words are Windows' usual
# ones for these states (the Services console's "Running"/"Stopped" and the "-ing" forms), kept
# so that a build or wrapper that translates the table is still read; an unknown word is None.
# "Exporting" (WslClient.cpp) is no state of the report's: None.
_STATE_WORDS: Final[Mapping[str, tuple[str, ...]]] = {
    "running": (
        "running",
        "wird ausgeführt",  # de
        "en cours d'exécution",  # fr
        "en ejecución",  # es
        "正在运行",  # zh-CN
        "実行中",  # ja
        "em execução",  # pt-BR
        "выполняется",  # ru
        "in esecuzione",  # it
        "실행 중",  # ko
    ),
    "stopped": (
        "stopped",
        "beendet",
        "angehalten",
        "arrêté",
        "detenido",
        "已停止",
        "停止",
        "停止済み",
        "parado",
        "остановлен",
        "остановлено",
        "arrestato",
        "중지됨",
    ),
    "installing": (
        "installing",
        "wird installiert",
        "installation",
        "installation en cours",
        "instalando",
        "正在安装",
        "インストール中",
        "установка",
        "installazione",
        "installazione in corso",
        "설치 중",
    ),
    "converting": (
        "converting",
        "wird konvertiert",
        "conversion",
        "conversion en cours",
        "convirtiendo",
        "正在转换",
        "変換中",
        "convertendo",
        "преобразование",
        "conversione",
        "변환 중",
    ),
    "uninstalling": (
        "uninstalling",
        "wird deinstalliert",
        "désinstallation",
        "désinstallation en cours",
        "desinstalando",
        "正在卸载",
        "アンインストール中",
        "удаление",
        "disinstallazione",
        "제거 중",
    ),
}
_STATE_OF_WORD: Final = {word: state for state, words in _STATE_WORDS.items() for word in words}

#: A distribution's name as WSL accepts it (s_ValidateDistroName, LxssUserSession.cpp).
DISTRO_NAME: Final = re.compile(r"^[A-Za-z0-9._-]+$")
# "Label: value"; French puts a (no-break) space before the colon, older Chinese and Japanese
# translations use the full-width colon (both in the recorded outputs).
_LABELLED: Final = re.compile(r"^\s*(?P<label>[^:：]+?)\s*[:：]\s*(?P<value>\S.*?)\s*$")
_PACKAGE_VERSION: Final = re.compile(r"^\d+(?:\.\d+){2,3}$")
_KERNEL_VERSION: Final = re.compile(r"^\d+\.\d+\.\d+(?:\.\d+)?(?:-[0-9A-Za-z.+_]+)?$")
_WINDOWS_BUILD: Final = re.compile(r"^\d+\.\d+\.(\d+)")

# --- what went wrong -------------------------------------------------------------------------
# Error codes: the "Error code: Wsl/Service/..." line of the Store WSL (its last part is the
# HRESULT's name or value), and the bare codes of older builds ("WslRegisterDistribution failed
# with error: 0x80370102"). The names and values are WSL's (src/windows/service/inc/wslservice.idl)
# and Windows' (HCS_E_* in computecore's winerror.h).
_CODES: Final = re.compile(r"\bWsl/[\w/.-]+|\b(?:HCS_E|WSL_E|ERROR)_[A-Z0-9_]+\b|\b0x[0-9A-Fa-f]{8}\b")
#: Codes that mean WSL 2 cannot start its VM: the Hyper-V platform or virtualization is off.
_VIRTUALIZATION_CODES: Final = frozenset(
    {
        "HCS_E_HYPERV_NOT_INSTALLED",
        "0x80370102",  # HCS_E_HYPERV_NOT_INSTALLED: "a required feature is not installed"
        "0x80370114",  # "The operation could not be started because a required feature is not installed."
        "WSL_E_VIRTUAL_MACHINE_PLATFORM_REQUIRED",
        "0x8004032d",
    }
)
#: Codes that mean WSL itself is missing.
_NOT_INSTALLED_CODES: Final = frozenset(
    {
        "WSL_E_WSL_OPTIONAL_COMPONENT_REQUIRED",
        "0x80040321",
        "ERROR_LINUX_SUBSYSTEM_NOT_PRESENT",
        "0x8007019e",  # ERROR_LINUX_SUBSYSTEM_NOT_PRESENT (winerror.h)
    }
)
#: Codes that mean WSL runs but has no distribution.
_NO_DISTRO_CODES: Final = frozenset({"WSL_E_DEFAULT_DISTRO_NOT_FOUND", "0x80040301"})
#: Codes of Windows' "restart to finish" answers (winerror.h: 3010 and 350).
_RESTART_CODES: Final = frozenset(
    {"ERROR_SUCCESS_REBOOT_REQUIRED", "0x80070bc2", "ERROR_FAIL_NOACTION_REBOOT", "0x8007015e"}
)
# Text that translations keep as it is (links and command lines are locked in Resources.resw).
_VIRTUALIZATION_MARKS: Final = ("aka.ms/enablevirtualization",)
_NO_DISTRO_MARKS: Final = ("wsl.exe --install <distro>", "aka.ms/wslstore")
# English wordings of builds that print no code (the inbox WSL of Windows 10 and its stub).
_VIRTUALIZATION_WORDS: Final = (
    "ensure virtualization is enabled in the bios",
    "virtualization is not enabled",
)
_NOT_INSTALLED_WORDS: Final = (
    "windows subsystem for linux is not installed",
    "windows subsystem for linux optional component is not enabled",
    "requires the windows subsystem for linux optional component",
    "does not support the packaged version of windows subsystem for linux",
)
_NO_DISTRO_WORDS: Final = ("has no installed distributions",)
#: Windows' messages 3010 (ERROR_SUCCESS_REBOOT_REQUIRED) and 350 (ERROR_FAIL_NOACTION_REBOOT),
#: printed by ``wsl --install`` without a code (WslClient.cpp: PrintSystemError), in the languages
#: whose wording was seen in recorded outputs (tests/fixtures/wsl/README.md); elsewhere the
#: codes, or nothing.
_RESTART_WORDS: Final = (
    "changes will not be effective until the system is rebooted",  # en
    "no action was taken as a system reboot is required",  # en, 350
    "erst nach einem neustart des systems wirksam",  # de
    "avant que le système ne soit réamorcé",  # fr
    "直到重新启动系统前更改将不会生效",  # zh-CN
    "次のシステムの再起動後に変更が有効になります",  # ja
)


@dataclass(frozen=True)
class WslOutput:
    """One ``wsl.exe`` answer, decoded: what it printed (stdout and stderr) and its exit status."""

    text: str
    returncode: int


@dataclass(frozen=True)
class WslStatus:
    """What ``wsl --status`` says (None where it did not say)."""

    default_distro: str | None = None
    default_version: int | None = None
    kernel_version: str | None = None


@dataclass(frozen=True)
class WslVersions:
    """What ``wsl --version`` says (both None for the inbox WSL, which lacks the option)."""

    wsl_version: str | None = None
    kernel_version: str | None = None


@dataclass(frozen=True)
class WslMessage:
    """What a ``wsl.exe`` answer says about WSL itself.

    Attributes:
        not_installed: WSL (or the component it needs) is not installed.
        no_distros: WSL runs but has no distribution.
        needs_restart: An installation waits for Windows to restart.
        virtualization_off: WSL 2 cannot start its VM: virtualization or the Virtual Machine
            Platform is off.
        codes: The error codes it printed, in order.
    """

    not_installed: bool = False
    no_distros: bool = False
    needs_restart: bool = False
    virtualization_off: bool = False
    codes: tuple[str, ...] = ()

    @property
    def problem(self) -> bool:
        """Whether it said anything is missing or waiting."""
        return self.not_installed or self.needs_restart or self.virtualization_off


@dataclass(frozen=True)
class WslGpuMinimums:
    """The Windows build and NVIDIA driver from which CUDA reaches WSL 2 (see :func:`gpu_compute`)."""

    windows_build: int
    driver: str


# --- decoding --------------------------------------------------------------------------------


def decode_output(data: bytes) -> str:
    r"""``wsl.exe``'s bytes as text: UTF-16LE when they look like it, else UTF-8.

    UTF-16LE is recognised by a byte order mark or by NULs at odd offsets (every ASCII
    character, which each of its outputs holds, has one there; UTF-8 text has no NUL at all).
    What is left of NULs, byte order marks and carriage returns is dropped.

    >>> decode_output("Default Version: 2\r\n".encode("utf-16-le"))
    'Default Version: 2\n'
    >>> decode_output("默认版本: 2\r\n".encode("utf-8"))
    '默认版本: 2\n'
    """
    if data.startswith(codecs.BOM_UTF16_LE):
        text = data[2:].decode("utf-16-le", errors="replace")
    elif data.startswith(codecs.BOM_UTF8):
        text = data[3:].decode("utf-8", errors="replace")
    elif _looks_utf16le(data):
        text = data[: len(data) // 2 * 2].decode("utf-16-le", errors="replace")
    else:
        text = data.decode("utf-8", errors="replace")
    return text.replace("\x00", "").replace("\ufeff", "").replace("\r\n", "\n").replace("\r", "\n")


def _looks_utf16le(data: bytes) -> bool:
    sample = data[:4096]
    odd = sample[1::2].count(0)
    even = sample[0::2].count(0)
    return odd > 0 and odd > 2 * even


# --- the listing, status and version ---------------------------------------------------------


def normalise_state(words: str) -> str | None:
    """A state as the report names it, from the listing's word(s) in any known language.

    >>> normalise_state("Running"), normalise_state("Wird ausgeführt"), normalise_state("Exporting")
    ('running', 'running', None)
    """
    key = " ".join(words.replace("’", "'").split()).casefold()
    return _STATE_OF_WORD.get(key)


def parse_listing(text: str) -> tuple[WslDistroFacts, ...]:
    """The distributions of ``wsl --list --verbose``, in its order (empty when there is no table)."""
    found: list[WslDistroFacts] = []
    for line in text.splitlines():
        fields = line.split()
        default = bool(fields) and fields[0].startswith("*")
        if default:
            fields = [fields[0][1:], *fields[1:]] if len(fields[0]) > 1 else fields[1:]
        if len(fields) < 3 or not fields[-1].isdigit() or not DISTRO_NAME.match(fields[0]):
            continue
        version = int(fields[-1])
        found.append(
            WslDistroFacts(
                name=fields[0],
                version=version if version in (1, 2) else None,
                default=default,
                state=normalise_state(" ".join(fields[1:-1])),
            )
        )
    return tuple(found)


def _labelled_values(text: str) -> list[str]:
    """The values of the ``label: value`` lines, in order."""
    values = []
    for line in text.splitlines():
        match = _LABELLED.match(line)
        if match:
            values.append(match.group("value"))
    return values


def parse_status(text: str) -> WslStatus:
    """What ``wsl --status`` says, read by the values' place and shape, not by their labels.

    The default version is the first value that is 1 or 2; the default distribution, the value
    just before it (``--status`` prints it first, and only when there is one); a kernel version
    after it is the inbox WSL's.
    """
    values = _labelled_values(text)
    place = next((n for n, value in enumerate(values) if value in ("1", "2")), None)
    if place is None:
        return WslStatus()
    before = values[place - 1] if place > 0 else None
    kernel = next((value for value in values[place + 1 :] if _KERNEL_VERSION.match(value)), None)
    return WslStatus(
        default_distro=before if before and DISTRO_NAME.match(before) else None,
        default_version=int(values[place]),
        kernel_version=kernel,
    )


def parse_version(text: str) -> WslVersions:
    """What ``wsl --version`` says: its first value is WSL's version, its second the kernel's."""
    values = _labelled_values(text)
    if not values or not _PACKAGE_VERSION.match(values[0]):
        return WslVersions()
    kernel = values[1] if len(values) > 1 and _KERNEL_VERSION.match(values[1]) else None
    return WslVersions(wsl_version=values[0], kernel_version=kernel)


# --- what went wrong -------------------------------------------------------------------------


def error_codes(text: str) -> tuple[str, ...]:
    """The error codes in ``text``; a ``Wsl/...`` path gives its parts too (the last is the code).

    >>> error_codes("Error code: Wsl/Service/CreateInstance/CreateVm/HCS/HCS_E_HYPERV_NOT_INSTALLED")
    ('Wsl/Service/CreateInstance/CreateVm/HCS/HCS_E_HYPERV_NOT_INSTALLED', 'HCS_E_HYPERV_NOT_INSTALLED')
    """
    found: list[str] = []
    for match in _CODES.finditer(text):
        code = match.group(0)
        parts = [code, code.rsplit("/", 1)[-1]] if code.startswith("Wsl/") else [code]
        found += [part for part in parts if part not in found]
    return tuple(found)


def read_message(text: str) -> WslMessage:
    """What ``text`` (any ``wsl.exe`` answer, ``wsl --install``'s too) says about WSL itself."""
    codes = error_codes(text)
    keys = {code.casefold() for code in codes}
    lowered = " ".join(text.split()).casefold()

    def said(code_set: Iterable[str], marks: Iterable[str]) -> bool:
        return any(code.casefold() in keys for code in code_set) or any(mark in lowered for mark in marks)

    virtualization_off = said(_VIRTUALIZATION_CODES, _VIRTUALIZATION_MARKS + _VIRTUALIZATION_WORDS)
    return WslMessage(
        not_installed=said(_NOT_INSTALLED_CODES, _NOT_INSTALLED_WORDS),
        no_distros=said(_NO_DISTRO_CODES, _NO_DISTRO_MARKS + _NO_DISTRO_WORDS),
        needs_restart=said(_RESTART_CODES, _RESTART_WORDS),
        virtualization_off=virtualization_off,
        codes=codes,
    )


def first_line(text: str) -> str | None:
    """The first line with something on it, stripped; None when there is none."""
    return next((line.strip() for line in text.splitlines() if line.strip()), None)


# --- the whole picture -----------------------------------------------------------------------


def wsl_facts(
    listing: WslOutput | None,
    status: WslOutput | None = None,
    version: WslOutput | None = None,
    *,
    windows_build: int | None = None,
    gpu: bool | None = None,
    detail: str | None = None,
) -> WslFacts:
    """The report's ``wsl`` block from the answers of ``--list --verbose``, ``--status``, ``--version``.

    An answer is None when it was not had (``wsl.exe`` missing, or the deadline passed; then
    ``detail`` says so). ``gpu`` is :func:`gpu_compute`'s answer for this machine.

    WSL counts as installed when one of the answers came from a working WSL (a listing, no
    distribution, a status or a version) and none said WSL is missing. Virtualization is off
    when an answer said so, on when a WSL 2 distribution is running, else unknown.
    """
    answers = [answer for answer in (listing, status, version) if answer is not None]
    messages = [(answer, read_message(answer.text)) for answer in answers]
    distros = parse_listing(listing.text) if listing is not None and listing.returncode == 0 else ()
    state = parse_status(status.text) if status is not None and status.returncode == 0 else WslStatus()
    versions = (
        parse_version(version.text) if version is not None and version.returncode == 0 else WslVersions()
    )

    not_installed = any(message.not_installed for _, message in messages)
    listed = listing is not None and listing.returncode == 0 and bool(distros)
    no_distros = listing is not None and read_message(listing.text).no_distros
    working = listed or no_distros or state.default_version is not None or versions.wsl_version is not None
    virtualization_off = any(message.virtualization_off for _, message in messages)
    virtualization: bool | None = None
    if virtualization_off:
        virtualization = False
    elif any(d.version == 2 and d.state == "running" for d in distros):
        virtualization = True

    if detail is None:
        # What WSL said when it could not answer: the listing's failure, else any answer that
        # says something is missing or waiting.
        failed = [answer for answer, message in messages if message.problem]
        if listing is not None and listing.returncode != 0:
            failed.insert(0, listing)
        detail = next((line for line in (first_line(answer.text) for answer in failed) if line), None)

    return WslFacts(
        installed=working and not not_installed,
        gpu_compute=gpu,
        distros=distros if not not_installed else (),
        default_version=state.default_version,
        wsl_version=versions.wsl_version,
        kernel_version=versions.kernel_version or state.kernel_version,
        windows_build=windows_build,
        needs_restart=any(message.needs_restart for _, message in messages),
        virtualization=virtualization,
        detail=detail,
    )


# --- GPU compute in WSL 2 --------------------------------------------------------------------


def windows_build(release: str | None) -> int | None:
    """The build number of a Windows release (``10.0.22631`` -> 22631), None when it has none.

    >>> windows_build("10.0.22631"), windows_build("10"), windows_build(None)
    (22631, None, None)
    """
    match = _WINDOWS_BUILD.match(release or "")
    return int(match.group(1)) if match else None


def gpu_minimums_from_policy(policy: Mapping[str, Any]) -> WslGpuMinimums:
    """The minimums of the compatibility data's ``wsl2_gpu`` policy (resources/compat/policies.json)."""
    return WslGpuMinimums(
        windows_build=int(str(policy["min_windows_build"])),
        driver=str(policy["windows_driver_min_for_tensorflow"]),
    )


@functools.cache
def bundled_gpu_minimums() -> WslGpuMinimums:
    """The minimums of the ``wsl2_gpu`` policy shipped with the wizard."""
    source = resources.files("gpuwizard.resources").joinpath("compat/policies.json")
    policies = json.loads(source.read_text(encoding="utf-8"))["policies"]
    return gpu_minimums_from_policy(next(p for p in policies if p["id"] == "wsl2_gpu"))


def gpu_compute(
    windows_build: int | None,
    nvidia_driver_version: str | None,
    has_nvidia_gpu: bool,
    minimums: WslGpuMinimums | None = None,
) -> bool | None:
    """Whether this Windows build and NVIDIA driver give CUDA to WSL 2; None when it cannot be told.

    In WSL 2 CUDA is the Windows driver's, which WSL 2 passes into each distribution (NVIDIA,
    "CUDA on WSL User Guide", docs.nvidia.com/cuda/wsl-user-guide: section 2, "NVIDIA GPU
    Computing on WSL 2", places it on "Windows 11 and later OS builds", and "CUDA support in this
    user guide is specifically for WSL 2"; the 11.2 edition's driver step: "This is the only
    driver you need to install"). The guide names no build number or driver version, so the
    minimums are the compatibility data's ``wsl2_gpu`` policy, not repeated here: Windows 10
    21H2 (build 19044), from which TensorFlow's pip guide supports the GPU in WSL 2, and the
    oldest Windows driver that runs the CUDA 12 builds the wizard installs there (528.33, the
    same guide; sources TFDOCS-PIP and NV-WSL in resources/compat/sources.json). An older driver
    may still give CUDA 11 to WSL 2, but nothing the wizard installs there. None without an
    NVIDIA GPU or without a build number.
    """
    if not has_nvidia_gpu or windows_build is None:
        return None
    floor = minimums or bundled_gpu_minimums()
    if windows_build < floor.windows_build or not nvidia_driver_version:
        return False
    return _numbers(nvidia_driver_version) >= _numbers(floor.driver)


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", version))
