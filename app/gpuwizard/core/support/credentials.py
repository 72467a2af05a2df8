r"""Credentials in a support report: URL logins, settings named like secrets, access tokens (pure).

:mod:`gpuwizard.core.support.redaction` joins these patterns with its own into the one pattern
that each string of a report goes through (one pass, so no placeholder is rewritten). Three
kinds, each counted under its own name:

- ``url_credentials``: the userinfo of a URL's authority (RFC 3986 §3.2.1: ``userinfo@host``
  after ``scheme://``). The RFC forbids an unencoded ``@`` or ``/`` in it, but people paste
  passwords as they are (``https://u3:AtPa@ss77@host3/``) and pip and curl still take them, so
  the userinfo is everything up to the *last* ``@`` that a host follows, whatever it holds;
- ``credential_variable``: the value of a variable or setting whose name has a word part that
  names a secret (``HF_TOKEN``, ``NVIDIA_APIKEY``, ``MY_PASS``, ``HTTP_AUTHORIZATION``,
  ``apiKey``), as a field of the report's data and as ``NAME=value`` or ``NAME: value`` in text
  (logs, config files, tracebacks); ``KEYBOARD_LAYOUT``, ``MONKEY`` and ``TOKENIZERS_PARALLELISM``
  are not such names, and neither are exception names (``KeyError: 'HOME'``) or the shell's
  working folder (``PWD``);
- ``access_token``: values that are tokens by their form, wherever they stand (see
  :data:`ACCESS_TOKEN` for the formats and where each is documented).

>>> import re
>>> pattern = re.compile(f"{URL_LOGIN}|{SECRET_VARIABLE}|{ACCESS_TOKEN}")
>>> def hide(text):
...     return pattern.sub(lambda m: replacement(m)[0], text)
>>> hide("https://u3:AtPa@ss77@host3/simple and HF_TOKEN=hf_abc")
'https://<credentials>@host3/simple and HF_TOKEN=<redacted>'
>>> hide("KEYBOARD_LAYOUT=us; curl -H 'Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2ln'")
"KEYBOARD_LAYOUT=us; curl -H 'Authorization: <redacted>'"
"""

from __future__ import annotations

import re
from typing import Final

#: Placeholders, as they appear in redacted text.
CREDENTIALS_PLACEHOLDER: Final = "<credentials>"
SECRET_PLACEHOLDER: Final = "<redacted>"  # noqa: S105 - a placeholder, not a password
TOKEN_PLACEHOLDER: Final = "<token>"  # noqa: S105 - a placeholder, not a token

# --- URL logins ----------------------------------------------------------------------------------

# A host after the "@": a dotted name whose last label starts with a letter (so the "@v1.2" of
# pip's `git+https://host/repo.git@v1.2` is a revision, not a host), an IPv4 address, an IPv6
# literal (RFC 3986 §3.2.2), or localhost; then something that ends a host.
_HOST_END: Final = r"(?=[:/?#\s\"'<>)\],;]|\Z)"
_LABEL: Final = r"[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?"
_DOTTED_HOST: Final = (
    rf"(?:(?:{_LABEL}\.)+[A-Za-z][A-Za-z0-9-]*|\d{{1,3}}(?:\.\d{{1,3}}){{3}}|\[[0-9A-Fa-f:.]+\]|(?i:localhost))"
    + _HOST_END
)
_SCHEME: Final = r"(?i:(?<![\w+.-])[a-z][a-z0-9+.-]*)"
# The userinfo, tried in this order, never across another "scheme://" nor a space:
# - up to the last "@" before a dotted host or a host with a port, "/" or not between (a
#   password may hold "@" and "/": ``https://u:p@ss/w0rd@host.example/``);
# - holding a ":" (user:password, not host:port), up to the last "@" before a single-label
#   host and a "/" (``https://u:pa/ss@host3/simple``);
# - without "/" (after it the RFC's path starts, where an "@" may be a revision of pip's VCS
#   URLs: ``git+https://github.com/org/repo.git@main``), up to the last "@" before anything.
_NOT_ANOTHER_URL: Final = r"(?:(?!://)\S)"
URL_LOGIN: Final = (
    rf"(?P<url_scheme>{_SCHEME})://(?P<url_userinfo>"
    rf"{_NOT_ANOTHER_URL}+(?=@(?:{_DOTTED_HOST}|{_LABEL}:\d))"
    rf"|(?![^\s/:]*:\d*/)[^\s:]*:{_NOT_ANOTHER_URL}*(?=@{_LABEL}/)"
    rf"|[^\s/]+(?=@[^\s/@?#])"
    r")@"
    # A proxy setting without a scheme (``HTTPS_PROXY=user:pass@proxy:3128``, which curl and
    # pip accept): user:password up to the last "@" before a host with a port or a dotted host.
    rf"|(?<=[=\s\"'])(?P<bare_userinfo>[^\s@/:=\"']+:[^\s\"']*)@(?=(?:{_DOTTED_HOST}|{_LABEL}:\d))"
)

# --- names of secrets ----------------------------------------------------------------------------

#: Word parts that name a secret (case-insensitively): a whole part of a name, split at "_", "-",
#: "." and camelCase (``API_KEY``, ``apiKey``, ``X-Auth-Token``, ``HTTPAuthorization``).
SECRET_WORDS: Final = (
    "key", "keys", "apikey", "apikeys", "token", "tokens", "secret", "secrets", "password",
    "passwords", "passwd", "passphrase", "pass", "pwd", "auth", "authn", "authz", "oauth",
    "authorization", "authentication", "credential", "credentials", "cookie", "cookies",
    "session", "sessions", "private",
)  # fmt: skip
#: Endings that name a secret even glued to another word (``ACCESSTOKEN``, ``DBPASSWORD``,
#: ``NVAPIKEY``); a bare "key" is not one (``MONKEY``, ``HOTKEY``).
SECRET_ENDINGS: Final = (
    "token", "tokens", "secret", "secrets", "password", "passwd", "passphrase", "apikey",
    "credential", "credentials", "cookie", "accesskey", "secretkey", "privatekey", "authtoken",
)  # fmt: skip
#: Names with a secret's word part that are not secrets: exceptions and warnings (``KeyError:``
#: starts a message in a traceback) and POSIX's working-folder variables (``PWD``, ``OLDPWD``).
_NOT_SECRETS: Final = r"(?:[\w.-]*?(?i:error|exception|warning)s?|(?i:pwd|oldpwd))(?![\w.-])"
#: Bare words that are secrets' names in settings but also plain English, before a colon and
#: more than one word ("the other checks pass: a newer driver runs..."): prose, not a setting.
_PROSE: Final = (
    r"(?i:keys?|pass|pwd|sessions?|private|auth|cookies?)(?![\w.-])[\"']?[ \t]*:[ \t]*[^\s\"']\S*[ \t]+[^\s#]"
)

# Where a word part starts and ends inside a name: at its edges, at "_", "-", "." or a digit,
# or at a camelCase step (``apiKey``, ``HTTPAuthorization``). Case-sensitive on purpose.
_PART_START: Final = r"(?:(?<![A-Za-z0-9])|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=\d))"
_PART_END: Final = r"(?:(?![A-Za-z0-9])|(?<=[a-z])(?=[A-Z])|(?=\d))"


def _one_of(words: tuple[str, ...]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


_SECRET_PART: Final = (
    rf"(?:{_PART_START}(?i:{_one_of(SECRET_WORDS)})|(?i:{_one_of(SECRET_ENDINGS)})){_PART_END}"
)
# A name: letters, digits, "_", "-" and "." (`X-Api-Key`, `spring.datasource.password`).
_NAME: Final = rf"(?<![\w.])(?=[\w.-]*?{_SECRET_PART})(?!{_NOT_SECRETS})[A-Za-z_][\w.-]*"
_SECRET_NAME: Final = re.compile(rf"{_NAME}\Z")

# `NAME=value`, `NAME = value`, `NAME: value`, `"NAME": "value"`, `export NAME='value'`: the
# value is the quoted string, or else the rest of the line (a password may hold spaces; what
# follows it on the line is lost, not leaked), or of the quoted string the name starts
# (`'Authorization: Bearer x'`). Not `==` (a comparison), `::` or `://`.
_SEPARATOR: Final = r"[\"']?[ \t]*(?:=(?!=)|:(?![:/=\\]))[ \t]*"
_VALUE: Final = (
    r"\"[^\"\r\n]*\"?|'[^'\r\n]*'?"
    r"|(?(secret_sq)[^\s\"'][^'\r\n]*|(?(secret_dq)[^\s\"'][^\"\r\n]*|[^\s\"'][^\r\n]*))"
)
SECRET_VARIABLE: Final = (
    r"(?:(?P<secret_sq>')|(?P<secret_dq>\"))?"
    rf"(?!{_PROSE})(?P<secret_name>{_NAME})(?P<secret_separator>{_SEPARATOR})(?P<secret_value>{_VALUE})"
)

# --- access tokens -------------------------------------------------------------------------------

# Random-looking: at least one digit, one upper- and one lower-case letter (a hyphenated word
# such as a package name is not a key).
_RANDOM: Final = r"(?=[\w-]*\d)(?=[\w-]*[A-Z])(?=[\w-]*[a-z])"
#: Tokens by their form. Sources: NVIDIA NGC personal and service API keys start with "nvapi-"
#: (docs.nvidia.com/ngc/gpu-cloud/ngc-user-guide, "Generating Your NGC API Key"); Hugging Face
#: user access tokens with "hf_" (huggingface.co/docs/hub/security-tokens); GitHub's with
#: ghp_/gho_/ghu_/ghs_/ghr_ and fine-grained ones with github_pat_ (github.blog 2021-04-05,
#: "Behind GitHub's new authentication token formats"); GitLab personal access tokens with
#: "glpat-" (docs.gitlab.com/ee/security/tokens, "Token prefixes"); OpenAI API keys with "sk-"
#: (and "sk-proj-"), Anthropic's with "sk-ant-"; Slack's with xoxb-/xoxa-/xoxp-/xoxr-/xoxs-
#: (api.slack.com/authentication/token-types); AWS access key IDs are AKIA (long-term) or ASIA
#: (temporary) and 16 more upper-case letters or digits (docs.aws.amazon.com/IAM, "Understanding
#: unique ID prefixes"); a JSON Web Token is three base64url parts, the first two JSON objects,
#: so "eyJ" (RFC 7519 §3); "Bearer" (RFC 6750 §2.1) and "Basic" (RFC 7617 §2) credentials of an
#: Authorization header, when what follows is not a plain word ("Basic usage").
ACCESS_TOKEN: Final = (
    r"(?<![A-Za-z0-9])(?:"
    r"nvapi-[\w-]{16,}"
    r"|hf_[A-Za-z0-9]{20,}"
    r"|gh[pousr]_[A-Za-z0-9]{20,}"
    r"|github_pat_\w{20,}"
    r"|glpat-[\w-]{20,}"
    rf"|sk-{_RANDOM}[\w-]{{20,}}"
    r"|xox[abposr]-[A-Za-z0-9-]{10,}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])"
    r"|eyJ[\w-]{4,}\.eyJ[\w-]{4,}\.[\w-]*"
    r"|(?P<auth_scheme>(?i:bearer|basic)[ \t]+)(?![A-Za-z][a-z]*(?![\w.~+/=-]))[\w.~+/=-]{8,}"
    r")"
)


def is_secret_name(name: str) -> bool:
    """Whether a variable or field named ``name`` holds a secret (its value is hidden).

    >>> [is_secret_name(n) for n in ("NVIDIA_APIKEY", "apiKey", "MY_PASS", "KEYBOARD_LAYOUT", "PWD")]
    [True, True, True, False, False]
    """
    return bool(_SECRET_NAME.match(name.strip().strip("\"'")))


def replacement(match: re.Match[str]) -> tuple[str, str | None]:
    """The text for a match of one of this module's patterns, and the kind it counts as.

    No kind (and the text as it was) when it is already a placeholder or holds nothing, so that
    redacting twice gives the same text and the same counts.
    """
    groups = match.groupdict()
    if groups.get("url_userinfo") is not None:
        if groups["url_userinfo"] == CREDENTIALS_PLACEHOLDER:
            return match.group(0), None
        return f"{groups['url_scheme']}://{CREDENTIALS_PLACEHOLDER}@", "url_credentials"
    if groups.get("bare_userinfo") is not None:
        if groups["bare_userinfo"] == CREDENTIALS_PLACEHOLDER:
            return match.group(0), None
        return f"{CREDENTIALS_PLACEHOLDER}@", "url_credentials"
    if groups.get("secret_value") is not None:
        return _secret_variable(match)
    scheme = groups.get("auth_scheme") or ""
    return scheme + TOKEN_PLACEHOLDER, "access_token"


def _secret_variable(match: re.Match[str]) -> tuple[str, str | None]:
    value = match.group("secret_value")
    quote = value[0] if value[0] in "\"'" else ""
    inner = value[len(quote) :]
    closing = quote if quote and inner.endswith(quote) else ""
    inner = inner[: len(inner) - len(closing)]
    # The spaces that end a line are not part of the value (the next line keeps its layout).
    trailing = "" if closing else inner[len(inner.rstrip()) :]
    inner = inner.rstrip() if not closing else inner
    if not inner.strip() or inner == SECRET_PLACEHOLDER:
        return match.group(0), None
    head = (match.group("secret_sq") or match.group("secret_dq") or "") + match.group("secret_name")
    head += match.group("secret_separator")
    return f"{head}{quote}{SECRET_PLACEHOLDER}{closing}{trailing}", "credential_variable"
