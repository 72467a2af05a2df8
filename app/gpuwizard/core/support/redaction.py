r"""Redaction of a support report: what identifies the person or the card is replaced (pure).

``gpuwizard report`` gathers everything into one JSON-like value and passes it through
:func:`redact` before any format is rendered, so no format can leak what another hides. Hidden:

- GPU UUIDs: ``GPU-`` and five groups of hex digits, as NVML's ``nvmlDeviceGetUUID`` and
  ``nvidia-smi -L`` print them (docs.nvidia.com/deploy/nvml-api, nvmlDeviceGetUUID: "a 5 part
  hexadecimal string"); the leading part alone, which CUDA_VISIBLE_DEVICES also accepts ("the
  first few characters of the UUID (including GPU-)", docs.nvidia.com/deploy/mps, "Environment
  variables"); MIG devices as ``MIG-<uuid>`` (driver R470 and later) and
  ``MIG-GPU-<uuid>/<gi>/<ci>`` (earlier), docs.nvidia.com/datacenter/tesla/mig-user-guide. Each
  distinct UUID gets its own number (``GPU-<uuid-1>``) so GPUs can still be told apart;
- serial numbers: the value of any field whose name says ``serial`` (NVML's
  ``nvmlDeviceGetSerial``, ``nvidia-smi --query-gpu=serial``), and ``Serial Number: ...`` in text;
- the home folder, in either slash, doubled backslashes (Python reprs), ``file://`` URLs and
  ``%20`` for spaces: ``/home/ana/x`` becomes ``~/x``, ``C:\Users\Ana\x`` becomes
  ``%USERPROFILE%\x`` (Windows paths case-insensitively, as Windows compares them);
- the user name as a path component anywhere (``/mnt/c/Users/ana/x``), and as a whole word in
  other text when it is at least three characters long and not a generic account name such as
  ``root`` (a user called ``a`` must not turn every "a" of a sentence into a placeholder);
- the host name as a whole word;
- credentials (core/support/credentials.py), by structure and by form: the user name and
  password of any URL, whatever they hold (``https://user:p@ss/w@host/simple``, as a private
  index URL may carry), a URL's secret query parameters (``sig=``, ``X-Amz-Signature=``...) and
  conda's ``/t/<token>/``, the value of anything named like a secret (``HF_TOKEN=``,
  ``"api_key": ...``, ``--password x``, netrc's ``password``), access tokens by their documented
  form (``nvapi-…``, ``hf_…``, ``ghp_…``, ``pypi-…``, ``sk_live_…``, ``AIza…``, JWTs...,
  core/secret_formats.py) wherever they are, and the body of PEM private keys.

Every rule runs in one pass over each string (what a credential's match keeps, such as a
variable's name, is scanned again with every rule), so a placeholder is never rewritten by
another rule, and redacting twice gives the same result: the rules are written so that what
one rule writes never makes another match (credentials.py says how), and a property test
checks it on generated text.

>>> who = Identities(user_names=("ana",), home_folders=("/home/ana", r"C:\Users\Ana"))
>>> redact_text(r"/home/ana/envs/demo;C:/Users/ANA/x;GPU-8f6c1a2b-0000-1111-2222-333344445555", who).text
'~/envs/demo;%USERPROFILE%/x;GPU-<uuid-1>'
>>> redact_text("made by ana on a GPU", who).text
'made by <user> on a GPU'
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from gpuwizard.core.support import credentials
from gpuwizard.core.support.credentials import (
    CREDENTIALS_PLACEHOLDER,
    SECRET_PLACEHOLDER,
    TOKEN_PLACEHOLDER,
    is_secret_name,
)

#: Placeholders, as they appear in redacted text.
USER_PLACEHOLDER: Final = "<user>"
HOST_PLACEHOLDER: Final = "<host>"
SERIAL_PLACEHOLDER: Final = "<serial>"
POSIX_HOME_PLACEHOLDER: Final = "~"
WINDOWS_HOME_PLACEHOLDER: Final = "%USERPROFILE%"

#: The kinds counted, in the order a report lists them.
KINDS: Final = (
    "gpu_uuid", "serial_number", "home_folder", "user_name", "host_name",
    "url_credentials", "url_secret", "credential_variable", "access_token", "private_key",
)  # fmt: skip
#: Every placeholder a value may already be (a value that is one is not counted again).
PLACEHOLDERS: Final = frozenset(
    {USER_PLACEHOLDER, HOST_PLACEHOLDER, SERIAL_PLACEHOLDER, CREDENTIALS_PLACEHOLDER, SECRET_PLACEHOLDER,
     TOKEN_PLACEHOLDER}
)  # fmt: skip

#: Account names that are not personal and are also ordinary words: they are hidden as path
#: components (their home folders too) but not as words of a sentence.
GENERIC_ACCOUNTS: Final = frozenset(
    {"root", "admin", "administrator", "user", "users", "guest", "default", "public", "runner",
     "ubuntu", "debian", "vagrant", "docker", "nobody", "localhost", "system"}
)  # fmt: skip
#: Shorter names are hidden only as path components (see the module docstring).
MIN_WORD_LENGTH: Final = 3

_HEX_GROUP: Final = "[0-9a-fA-F]"
# GPU-<8>-<4>-<4>-<4>-<12>, or a leading part of it (at least the first group), MIG forms
# with an optional /<gpu instance>/<compute instance> suffix.
_UUID: Final = rf"(?<![\w-]){credentials.NOT_AFTER_PLACEHOLDER}(?:MIG-GPU-|MIG-|GPU-){_HEX_GROUP}{{8}}(?:-{_HEX_GROUP}{{1,12}}){{0,4}}(?:/\d+/\d+)?(?![\w-])"
_SERIAL_LABEL: Final = rf"(?i:(?<![\w]){credentials.NOT_AFTER_PLACEHOLDER}serial(?:[ _-]?(?:number|no\.?))?[\"']?\s*[:=]\s*[\"']?)"
_SERIAL_VALUE: Final = r"[A-Za-z0-9][A-Za-z0-9-]{3,}"
# Where a path component ends: a separator, or a character that cannot continue a file name in
# the texts a report holds (PATH separators, quotes, brackets, spaces, end of text).
_COMPONENT_END: Final = r"(?=[\\/\s\"'`;:,|()<>\[\]{}=&%]|$)"
# A home folder starts a path: it follows no path character (``/srv/home/ana`` is not
# ``/home/ana``), except in a file:// URL.
_PATH_START: Final = rf"(?:(?<=file://)|(?<=file:///)|(?<![\w.\-/\\~%]){credentials.NOT_AFTER_PLACEHOLDER})"
_SERIAL_KEY: Final = re.compile(r"serial", re.IGNORECASE)
_UUID_KEY: Final = re.compile(r"(?:^|[_-])uuid$", re.IGNORECASE)


@dataclass(frozen=True)
class Identities:
    r"""What identifies the person who runs the report (the workflow layer finds them).

    Attributes:
        user_names: The account name (``getpass.getuser()``, ``USER``, ``USERNAME``...).
        home_folders: Home folders as this machine writes them (``/home/ana``, ``C:\Users\Ana``).
        host_names: The computer's name (``platform.node()``), and its short form.
    """

    user_names: tuple[str, ...] = ()
    home_folders: tuple[str, ...] = ()
    host_names: tuple[str, ...] = ()


@dataclass
class RedactedText:
    """A string after redaction, with how many of each kind were replaced."""

    text: str
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Redacted:
    """A redacted value, the number of replacements per kind, and the rules as sentences."""

    data: Any
    counts: Mapping[str, int]
    rules: tuple[str, ...]


class _Redactor:
    """One compiled pattern for a set of identities, and the UUIDs numbered so far."""

    def __init__(self, identities: Identities) -> None:
        self.uuids: dict[str, str] = {}
        self.counts: dict[str, int] = dict.fromkeys(KINDS, 0)
        self.pattern = re.compile("|".join(self._alternatives(identities)))

    def _alternatives(self, identities: Identities) -> list[str]:
        parts = [
            f"(?P<uuid>{_UUID})",
            f"(?P<serial>(?P<serial_label>{_SERIAL_LABEL}){_SERIAL_VALUE})",
            # Secrets before identities: a user's name inside a password goes with the password.
            credentials.PATTERN,
        ]
        homes = sorted(_unique(_home_spellings(identities.home_folders)), key=len, reverse=True)
        posix = [home for home in homes if not _is_windows_path(home)]
        windows = [home for home in homes if _is_windows_path(home)]
        if windows:
            body = "|".join(_windows_home_pattern(home) for home in windows)
            parts.append(f"(?P<windows_home>{_PATH_START}(?i:{body}){_COMPONENT_END})")
        if posix:
            body = "|".join(_posix_home_pattern(home) for home in posix)
            parts.append(f"(?P<posix_home>{_PATH_START}(?:{body}){_COMPONENT_END})")
        names = sorted(_unique(name.strip() for name in identities.user_names), key=len, reverse=True)
        names = [name for name in names if name and not re.search(r"[\\/]", name)]
        if names:
            body = "|".join(re.escape(name) for name in names)
            parts.append(f"(?P<user_component>(?<=[\\\\/])(?i:{body}){_COMPONENT_END})")
        # The host before the user's name as a word: "ana-laptop" is the host, not "ana" and more.
        hosts = sorted(_unique(host.strip() for host in identities.host_names), key=len, reverse=True)
        hosts = [host for host in hosts if _hidden_as_word(host) and not re.search(r"\s", host)]
        if hosts:
            parts.append(f"(?P<host>{_word('|'.join(re.escape(host) for host in hosts))})")
        words = [name for name in names if _hidden_as_word(name)]
        if words:
            parts.append(f"(?P<user_word>{_word('|'.join(re.escape(name) for name in words))})")
        # Last, where nothing above starts: the rest of an ASCII word, or a run of spaces, in one
        # step. No rule starts inside such a word (each one that starts with a letter, digit or
        # "_" refuses one before it), nor inside spaces (a line's start is after its "\n"), so
        # the scan is the same, only faster than trying every rule at every character.
        parts.append("(?P<skip>[A-Za-z0-9_]+|[ \t]+)")
        return parts

    def text(self, value: str) -> str:
        return self._scan(value, 0, len(value))

    def _scan(self, value: str, start: int, end: int) -> str:
        """``value[start:end]`` redacted, every rule seeing the text around it (lookbehinds)."""
        out: list[str] = []
        done = start
        for match in self.pattern.finditer(value, start, end):
            out.append(value[done : match.start()])
            out.append(match.group(0) if match.lastgroup == "skip" else self._replace(match))
            done = match.end()
        out.append(value[done:end])
        return "".join(out)

    def _replace(self, match: re.Match[str]) -> str:
        kind = match.lastgroup
        found = match.group(0)
        if kind == "uuid":
            return self.uuid(found)
        if kind == "serial":
            self.counts["serial_number"] += 1
            return match.group("serial_label") + SERIAL_PLACEHOLDER
        if kind in credentials.RULES:
            replaced = credentials.replacement(match)
            if replaced.kind is not None:
                self.counts[replaced.kind] += 1
            # What a credential's match keeps (a name, a host, a netrc machine) is text like any
            # other: scanned again, with every rule, in place (each span is shorter than the match).
            return "".join(
                piece if isinstance(piece, str) else self._scan(match.string, *piece)
                for piece in replaced.pieces
            )
        if kind in ("windows_home", "posix_home"):
            self.counts["home_folder"] += 1
            return WINDOWS_HOME_PLACEHOLDER if kind == "windows_home" else POSIX_HOME_PLACEHOLDER
        if kind in ("user_component", "user_word"):
            self.counts["user_name"] += 1
            return USER_PLACEHOLDER
        self.counts["host_name"] += 1
        return HOST_PLACEHOLDER

    def uuid(self, found: str) -> str:
        key = found.casefold()
        if key not in self.uuids:
            prefix = "MIG" if key.startswith("mig-") else "GPU"
            self.uuids[key] = f"{prefix}-<uuid-{len(self.uuids) + 1}>"
        self.counts["gpu_uuid"] += 1
        return self.uuids[key]

    def value(self, data: Any, key: str | None = None) -> Any:  # noqa: ANN401 - any JSON value
        if key is not None and data not in (None, "") and not isinstance(data, (dict, list, tuple, bool)):
            return self.field(data, key)
        if isinstance(data, str):
            return self.text(data)
        if isinstance(data, Mapping):
            return {self.text(str(name)): self.value(item, str(name)) for name, item in data.items()}
        if isinstance(data, (list, tuple)):
            # The items of a list named like a secret (``"tokens": [...]``) are secrets too.
            inherited = key if key is not None and is_secret_name(key) else None
            return [self.value(item, inherited) for item in data]
        return data

    def field(self, data: object, key: str) -> Any:  # noqa: ANN401 - any JSON value
        """The value (a string or a number) of the field ``key``: hidden whole where its name says so."""
        if is_secret_name(key):
            return self.secret(data)
        if _SERIAL_KEY.search(key):
            self.counts["serial_number"] += 1
            return SERIAL_PLACEHOLDER
        if _UUID_KEY.search(key):
            return self.uuid(str(data)) if not re.fullmatch(_UUID, str(data)) else self.text(str(data))
        return self.text(data) if isinstance(data, str) else data

    def secret(self, data: object) -> str:
        """The placeholder for the value of a field named like a secret (counted once)."""
        if data in PLACEHOLDERS:
            return str(data)
        self.counts["credential_variable"] += 1
        return SECRET_PLACEHOLDER


def redact(data: Any, identities: Identities) -> Redacted:  # noqa: ANN401 - any JSON value
    """``data`` (JSON-like: dicts, lists, strings, numbers) with every rule applied to every string.

    Mapping keys are redacted as text too; a field named like ``serial`` or ``uuid`` loses its
    value whatever it looks like. The input is not changed.
    """
    redactor = _Redactor(identities)
    redacted = redactor.value(data)
    return Redacted(redacted, dict(redactor.counts), rules_of(identities))


def redact_text(text: str, identities: Identities) -> RedactedText:
    """One string with every rule applied."""
    redactor = _Redactor(identities)
    return RedactedText(redactor.text(text), dict(redactor.counts))


# Home folders of any account, wherever a report mentions one: C:\Users\NAME (and the old
# "Documents and Settings"), /home/NAME, macOS's /Users/NAME, and WSL's view of Windows
# (/mnt/c/Users/NAME). A name may hold spaces ("Ana Maria") when a separator follows it.
_NAME_CHAR: Final = r"[^\\/\s\"'`;:|*?<>%]"
_HOME_NAME: Final = rf"((?:{_NAME_CHAR}+ )*{_NAME_CHAR}+(?=[\\/])|{_NAME_CHAR}+)"
_HOMES_IN_TEXT: Final = re.compile(
    rf"(?i:(?<![\w])([a-z]:[\\/]+(?:users|documents and settings)[\\/]+){_HOME_NAME})"
    rf"|(?<![\w.~-])((?:/mnt/[a-z])?/(?:home|Users)/){_HOME_NAME}"
)
#: Folders under the homes' parents that belong to no one (Windows' shared profiles, macOS's Shared).
SHARED_PROFILES: Final = frozenset({"public", "default", "default user", "all users", "shared"})


def identities_in(data: Any) -> Identities:  # noqa: ANN401 - any JSON value
    r"""The home folders (and so the user names) that ``data`` mentions, of whichever account.

    A report read from a file (``--system FILE``) comes from another machine and another user;
    their folders are hidden as well as the current user's.

    >>> identities_in({"python": "C:\\Users\\Ana Maria\\py.exe", "env": ["/home/bo/envs/x"]})
    Identities(user_names=('Ana Maria', 'bo'), home_folders=('C:\\Users\\Ana Maria', '/home/bo'), host_names=())
    """
    names: dict[str, str] = {}
    homes: dict[str, str] = {}

    def visit(value: Any) -> None:  # noqa: ANN401 - any JSON value
        if isinstance(value, str):
            for match in _HOMES_IN_TEXT.finditer(value):
                prefix, name = (
                    (match.group(1), match.group(2)) if match.group(1) else (match.group(3), match.group(4))
                )
                if name.casefold() in SHARED_PROFILES:
                    continue
                names.setdefault(name.casefold(), name)
                home = prefix + name
                homes.setdefault(home.casefold().replace("/", "\\"), home)
        elif isinstance(value, Mapping):
            for key, item in value.items():
                visit(str(key))
                visit(item)
        elif isinstance(value, (list, tuple)):
            for item in value:
                visit(item)

    visit(data)
    return Identities(user_names=tuple(names.values()), home_folders=tuple(homes.values()))


def merged(*identities: Identities) -> Identities:
    """All of the identities in one."""
    return Identities(
        user_names=tuple(dict.fromkeys(name for each in identities for name in each.user_names)),
        home_folders=tuple(dict.fromkeys(home for each in identities for home in each.home_folders)),
        host_names=tuple(dict.fromkeys(host for each in identities for host in each.host_names)),
    )


def rules_of(identities: Identities) -> tuple[str, ...]:
    """The rules as sentences for the top of a report (what was hidden and how it reads now)."""
    rules = [
        "GPU UUIDs (GPU-…, MIG-…) are numbered placeholders such as GPU-<uuid-1>.",
        "Serial numbers are <serial>.",
        "Home folders are ~ (Linux, macOS) or %USERPROFILE% (Windows).",
    ]
    if identities.user_names:
        rules.append(
            "The user name is <user> wherever it is a folder name, and in other text when it is "
            f"at least {MIN_WORD_LENGTH} characters long."
        )
    if any(_hidden_as_word(host) for host in identities.host_names):
        rules.append("The computer's name is <host>.")
    rules += [
        f"User names and passwords in URLs are {CREDENTIALS_PLACEHOLDER}, whatever characters they hold.",
        f"Secrets in URLs (signed URLs' sig=, X-Amz-…, X-Goog-…, values of token=, key=, secret=…) are "
        f"{SECRET_PLACEHOLDER}, and conda channel tokens (/t/…/) are {TOKEN_PLACEHOLDER}.",
        "Values of variables, settings and options named like secrets (…_KEY, …TOKEN, …SECRET, …PASSWORD, "
        "…PASS, …AUTH…, …COOKIE, …SESSION…, in the data, as NAME=value, NAME: value, --name value and "
        f"aws_secret_access_key VALUE in text, curl -u's password, .netrc passwords) are {SECRET_PLACEHOLDER}.",
        "Access tokens (nvapi-…, hf_…, ghp_…, github_pat_…, glpat-…, pypi-…, npm_…, sk-…, sk_live_…, AIza…, "
        f"xox…-, xapp-…, AKIA…, JSON Web Tokens, Bearer and Basic credentials) are {TOKEN_PLACEHOLDER} "
        "wherever they appear.",
        f"Private keys (-----BEGIN … PRIVATE KEY-----) keep their first and last lines; the key is {SECRET_PLACEHOLDER}.",
    ]
    return tuple(rules)


# --- helpers -------------------------------------------------------------------------------------


def _unique(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    kept = []
    for item in items:
        if item and item.casefold() not in seen:
            seen.add(item.casefold())
            kept.append(item)
    return kept


def _is_windows_path(path: str) -> bool:
    return bool(re.match(r"^[A-Za-z]:[\\/]|^\\\\", path)) or ("\\" in path and "/" not in path)


def _home_spellings(homes: Iterable[str]) -> list[str]:
    r"""Each home folder, without its trailing separator; too short ones (``/``, ``C:\``) are left out."""
    found = []
    for home in homes:
        text = home.strip().rstrip("\\/")
        if len(re.split(r"[\\/]+", text)) < 2 or re.fullmatch(r"[A-Za-z]:", text) or not text:
            continue
        found.append(text)
    return found


def _separated(components: Iterable[str], spaces: str) -> str:
    escaped = [re.escape(part).replace(r"\ ", spaces) for part in components]
    return r"[\\/]+".join(escaped)


def _windows_home_pattern(home: str) -> str:
    # Any slash, any number of them (a repr doubles backslashes), %20 for a space in file URLs.
    return _separated(re.split(r"[\\/]+", home), spaces=r"(?:\ |%20)")


def _posix_home_pattern(home: str) -> str:
    # One slash first: in ``file:///home/ana`` the home starts at the third slash.
    return "/" + _separated(home.strip("/").split("/"), spaces=r"(?:\ |%20)")


def _hidden_as_word(name: str) -> bool:
    return len(name) >= MIN_WORD_LENGTH and name.casefold() not in GENERIC_ACCOUNTS


def _word(body: str) -> str:
    # A whole word: no letter, digit or underscore on either side, nor the brackets and percent
    # signs of a placeholder (so "<user>" or "%USERPROFILE%" is never a user's name again).
    return rf"(?<![A-Za-z0-9_<%]){credentials.NOT_AFTER_PLACEHOLDER}(?i:{body})(?![A-Za-z0-9_>%])"
