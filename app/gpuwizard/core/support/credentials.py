r"""Credentials in a support report, found by their structure and by their form (pure).

:mod:`gpuwizard.core.support.redaction` joins :data:`PATTERN` with its own rules into the one
pattern each string of a report goes through, and asks :func:`replacement` what each match
becomes. What a match keeps (a variable's name, a URL's host, a netrc entry's machine) is a
span of the original text that the redactor scans again with every rule, so nothing is kept
unredacted; what it hides becomes a placeholder. The kinds, each counted under its own name:

- ``url_credentials``: the userinfo of a URL's authority (RFC 3986 §3.2.1: ``userinfo@host``
  after ``scheme://``). The RFC forbids an unencoded ``@`` or ``/`` in it, but people paste
  passwords as they are (``https://u3:AtPa@ss77@host3/``) and pip and curl still take them, so
  the userinfo is everything up to the *last* ``@`` that a host follows, whatever it holds;
  also a proxy's ``user:password@host:port`` without a scheme;
- ``url_secret``: the values of a URL's query parameters that carry a secret (a signed URL's
  ``sig``, ``X-Amz-Signature``, ``X-Goog-Credential``, any ``token``/``key``/``secret``...)
  and conda's ``/t/<token>`` path segment (:mod:`gpuwizard.core.secret_formats`);
- ``credential_variable``: the value of anything named like a secret: ``NAME=value``,
  ``NAME: value``, ``"NAME": "value"`` (variables, config and JSON), ``--name value`` and
  ``--name=value`` (command lines), ``aws_secret_access_key VALUE`` (``aws configure set``,
  ``setx``: a snake_case name, then a value that looks generated), ``curl -u user:password``,
  netrc's ``password`` and ``account`` (``machine x login y password z``, on one line or
  several; a lone ``password VALUE`` line); ``KEYBOARD_LAYOUT``, ``MONKEY`` and
  ``TOKENIZERS_PARALLELISM`` are not such names, and neither are exception names
  (``KeyError: 'HOME'``) or the shell's working folder (``PWD``);
- ``access_token``: tokens by their documented form wherever they stand
  (:data:`~gpuwizard.core.secret_formats.TOKEN_FORMATS`), and ``Bearer``/``Basic`` credentials;
- ``private_key``: the body of a PEM private key block (RFC 7468), its BEGIN and END lines kept.

Redacting twice changes nothing more: no placeholder is something a rule hides (each rule
that meets one as its secret leaves it and counts nothing), and no rule decides from text that
another rule may rewrite (the one look ahead into a value, whether ``pass: a newer driver``
is prose, reads only its first word, which no rule rewrites but into a placeholder it accepts).
Every rule starts only where its first character can start it (most only at the start of a
word) and reads at most to the end of its word or line (a PEM block, to its END line or the
next "-----"), never back over what another start of the same rule would read: the whole pass
is linear in the text (``tests/bench/bench_redaction.py`` measures it on repeated rule starts).

>>> import re
>>> pattern = re.compile(PATTERN)
>>> def hide(text):
...     return pattern.sub(lambda m: "".join(
...         p if isinstance(p, str) else m.string[p[0]:p[1]] for p in replacement(m).pieces), text)
>>> hide("https://u3:AtPa@ss77@host3/simple and HF_TOKEN=hf_abc")
'https://<credentials>@host3/simple and HF_TOKEN=<redacted>'
>>> hide("KEYBOARD_LAYOUT=us; curl -H 'Authorization: Bearer eyJhbGciOi.eyJzdWIiOi.c2ln'")
"KEYBOARD_LAYOUT=us; curl -H 'Authorization: <redacted>'"
>>> hide("https://a.blob.core.windows.net/w?sv=2022-11-02&sig=AbC%3D machine h login bo password pw1")
'https://a.blob.core.windows.net/w?sv=2022-11-02&sig=<redacted> machine h login bo password <redacted>'
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from gpuwizard.core.secret_formats import (
    ACCESS_TOKEN,
    AUTH_SCHEME_CREDENTIAL,
    CONDA_TOKEN_PATH,
    NOT_SECRETS,
    PEM_BEGIN,
    PEM_BODY,
    PEM_END,
    SECRET_NAME,
    SECRET_NAME_BODY,
    SECRET_PART,
    SECRET_QUERY_NAME,
    is_secret_name,
)

__all__ = [
    "CREDENTIALS_PLACEHOLDER",
    "NOT_AFTER_PLACEHOLDER",
    "PATTERN",
    "RULES",
    "SECRET_PLACEHOLDER",
    "TOKEN_PLACEHOLDER",
    "Replacement",
    "is_secret_name",
    "replacement",
]

#: Placeholders, as they appear in redacted text.
CREDENTIALS_PLACEHOLDER: Final = "<credentials>"
SECRET_PLACEHOLDER: Final = "<redacted>"  # noqa: S105 - a placeholder, not a password
TOKEN_PLACEHOLDER: Final = "<token>"  # noqa: S105 - a placeholder, not a token

# A rule whose secret cannot hold a placeholder still matches one there (and leaves it), so a
# second pass decides as the first did and no other rule takes that text instead.
_PLACEHOLDER: Final = "(?:<credentials>|<redacted>|<token>)"
#: Not right after a placeholder (nor a numbered one, ``GPU-<uuid-1>``). A rule that may start
#: right after another match (one that starts with "-" or "/", after a user's name or a token,
#: which end before such a character) sees that match's last character in a first pass and
#: the placeholder's ">" in a second: both must stop it alike.
NOT_AFTER_PLACEHOLDER: Final = (
    r"(?<!<user>)(?<!<host>)(?<!<token>)(?<!<redacted>)(?<!<credentials>)(?<!<serial>)"
    # The numbered one, GPU-<uuid-N> (redaction.py), for up to a million GPUs: exactly that, so
    # that a secret after any other digit and ">" ("exit 2>", "<h1>") is still found.
    + "".join(rf"(?<!<uuid-\d{{{digits}}}>)" for digits in range(1, 7))
)
# A value never swallows the start of a PEM block: its body is on the next lines, and only the
# PEM rule reads that far.
_NO_PEM: Final = r"(?!-----BEGIN)"
# A word of a value (up to a space or a quote), which never runs into the start of a PEM block.
_WORD_CHAR: Final = r"(?:(?!-----BEGIN)[^\s\"'])"

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
_SCHEME: Final = rf"(?i:(?<![\w+.-]){NOT_AFTER_PLACEHOLDER}[a-z][a-z0-9+.-]*)"
# The userinfo, tried in this order, never across another "scheme://" nor a space:
# - up to the last "@" before a dotted host or a host with a port, "/" or not between (a
#   password may hold "@" and "/": ``https://u:p@ss/w0rd@host.example/``);
# - holding a ":" (user:password, not host:port), up to the last "@" before a single-label
#   host and a "/" (``https://u:pa/ss@host3/simple``);
# - without "/" (after it the RFC's path starts, where an "@" may be a revision of pip's VCS
#   URLs: ``git+https://github.com/org/repo.git@main``), up to the last "@" before anything.
_NOT_ANOTHER_URL: Final = r"(?:(?!://)\S)"
_URL_LOGIN: Final = (
    rf"(?P<url_scheme>{_SCHEME})://(?P<url_userinfo>"
    rf"{_NOT_ANOTHER_URL}+(?=@(?:{_DOTTED_HOST}|{_LABEL}:\d))"
    rf"|(?![^\s/:]*:\d*/)[^\s:]*:{_NOT_ANOTHER_URL}*(?=@{_LABEL}/)"
    # (not before "~" or "%": a home folder's placeholder, where a "/" stood)
    rf"|[^\s/]+(?=@[^\s/@?#~%])"
    r")@"
    # A proxy setting without a scheme (``HTTPS_PROXY=user:pass@proxy:3128``, which curl and
    # pip accept): user:password up to the last "@" before a host with a port or a dotted host.
    # The password holds no "=" but trailing padding, so a start after each "=" reads only to
    # the next one (linear time).
    rf"|(?<=[=\s\"'])(?P<bare_userinfo>{_PLACEHOLDER}|[^\s@/:=\"'<>]+:(?!//)(?:(?!://)[^\s\"'=])*=*)@(?=(?:{_DOTTED_HOST}|{_LABEL}:\d))"
)

# --- the other secret parts of URLs ----------------------------------------------------------------

# conda's /t/<token>, after a character of a host or a path (the URL around it is checked in
# replacement(): a folder named "t" in a file path is not a token).
_CONDA: Final = rf"(?<=[^\s/\"'<])(?:/t/{_PLACEHOLDER}(?=/)|(?=/t/(?!-----BEGIN)){CONDA_TOKEN_PATH})"
# A query parameter that carries a secret (after "?", "&", or ";" as connection strings write
# them: ``;AccountKey=...;``), up to the next separator.
_QUERY: Final = (
    rf"(?<=[?&;])(?P<query_name>(?={SECRET_QUERY_NAME}=)[^\s=&#;\"'<>]+)="
    rf"(?P<query_value>{_PLACEHOLDER}|(?:(?!-----BEGIN)[^&#\s\"'<>;])+)"
)

# --- netrc, password lines, command lines -------------------------------------------------------

# A netrc entry: "machine NAME" or "default", then its keyword/value pairs on one line or
# several (www.gnu.org/software/inetutils/manual, "The .netrc file": machine, default, login,
# password, account, port). The values of password and account are secrets.
_NETRC: Final = (
    rf"(?<![\w.-]){NOT_AFTER_PLACEHOLDER}(?:machine\s+[^\s\"'=]+|default)"
    rf"(?P<netrc_pairs>(?:\s+(?:login|password|account|port)\s+{_WORD_CHAR}+)+)"
)
_NETRC_PAIR: Final = re.compile(rf"(\s+(login|password|account|port)\s+)({_WORD_CHAR}+)")
# A line that starts "password VALUE" (a netrc entry's line, a config file's): the word after it.
_PASSWORD_LINE: Final = rf"(?m:^)[ \t]*(?:password|passwd)[ \t]+(?P<pwline_value>(?![=:]){_WORD_CHAR}+)"
# curl's user and proxy user: "-u, --user <user:password>", "-U, --proxy-user <user:password>"
# (curl.se/docs/manpage.html).
_CURL_USER: Final = rf"(?<![\w-]){NOT_AFTER_PLACEHOLDER}(?:-u|--user|-U|--proxy-user)(?:[ \t]+|=)[\"']?[^\s:\"'=]+:(?P<curl_password>{_WORD_CHAR}+)"
# `--name value` and `--name=value` where the option's name is a secret's: the next word (not
# another long option: a password may start with "-", and a short option hidden costs little),
# or the quoted string.
_OPTION: Final = (
    rf"(?<![\w-]){NOT_AFTER_PLACEHOLDER}--?(?P<option_name>{SECRET_NAME_BODY})(?P<option_separator>=|[ \t]+)"
    rf"(?P<option_value>{_NO_PEM}(?:\"[^\"\r\n]*\"?|'[^'\r\n]*'?|(?<==){_WORD_CHAR}+|(?!--){_WORD_CHAR}+))"
)
# `aws_secret_access_key VALUE` (docs.aws.amazon.com/cli/latest/reference/configure/set.html),
# `setx HF_TOKEN VALUE`, `set -x HF_TOKEN VALUE`: a snake_case name of a secret, spaces, and a
# quoted string or a word that looks generated (a digit or one of +=_ and six characters at
# least, or sixteen of base64's; no "<" or ">": a word with a placeholder in it was no such word
# before), so "HF_TOKEN is not set" stays a sentence.
_POSITIONAL: Final = (
    rf"(?<![\w.-]){NOT_AFTER_PLACEHOLDER}(?P<positional_name>(?=[A-Za-z][A-Za-z0-9]*_)(?=\w*?{SECRET_PART})(?!{NOT_SECRETS})[A-Za-z]\w*)"
    r"(?P<positional_separator>[ \t]+)"
    rf"(?P<positional_value>{_PLACEHOLDER}|{_NO_PEM}(?![=:-])(?:\"[^\"\r\n]+\"|'[^'\r\n]+'"
    r"|(?:(?=[^\s\"'<>]*[0-9+=_])[^\s\"'<>]{6,}|[A-Za-z0-9+/=_-]{16,})(?![^\s\"'])))"
)

# --- names of secrets with their values --------------------------------------------------------

# Bare words that are secrets' names in settings but also plain English, before a colon and
# more than one word ("the other checks pass: a newer driver runs..."): prose, not a setting.
# Only the first word after the colon is read, and a letters-only word is rewritten by no
# rule but into <user> or <host>, also accepted: so the decision is the same in a second pass.
_PROSE: Final = (
    r"(?i:keys?|pass|pwd|sessions?|private|auth|cookies?)(?![\w.-])[\"']?[ \t]*:[ \t]*"
    r"(?:[A-Za-z]+|<[a-z]+>)[ \t]+[^\s#]"
)
# `NAME=value`, `NAME = value`, `NAME: value`, `"NAME": "value"`, `export NAME='value'`: the
# value is the quoted string, or else the rest of the line (a password may hold spaces; what
# follows it on the line is lost, not leaked), or of the quoted string the name starts
# (`'Authorization: Bearer x'`). Not `==` (a comparison), `::`, `://`, nor a colon before a home
# folder's placeholder (`TOKEN:/home/ana`, a path, becomes `TOKEN:~`: the same decision twice).
_SEPARATOR: Final = r"[\"']?[ \t]*(?:=(?!=)|:(?![:/=\\~%]))[ \t]*"
_LINE_CHAR: Final = r"(?:(?!-----BEGIN)[^\r\n])"
_VALUE: Final = (
    rf"\"(?:(?!-----BEGIN)[^\"\r\n])*\"?|'(?:(?!-----BEGIN)[^'\r\n])*'?"
    r"|(?(secret_sq)[^\s\"'](?:(?!-----BEGIN)[^'\r\n])*"
    rf"|(?(secret_dq)[^\s\"'](?:(?!-----BEGIN)[^\"\r\n])*|[^\s\"']{_LINE_CHAR}*))"
)
_SECRET_VARIABLE: Final = (
    r"(?:(?P<secret_sq>')|(?P<secret_dq>\"))?"
    rf"(?!{_PROSE}){NOT_AFTER_PLACEHOLDER}(?P<secret_name>{SECRET_NAME})(?P<secret_separator>{_SEPARATOR})"
    rf"(?P<secret_value>{_NO_PEM}(?:{_VALUE}))"
)

#: The credential rules as one alternation, in the order they are tried at one position.
PATTERN: Final = "|".join(
    [
        f"(?P<private_key>{PEM_BEGIN}(?P<pem_body>{_PLACEHOLDER}|{PEM_BODY})(?P<pem_end>{PEM_END})?)",
        f"(?P<url_login>{_URL_LOGIN})",
        f"(?P<conda>{_CONDA})",
        f"(?P<query>{_QUERY})",
        f"(?P<netrc>{_NETRC})",
        f"(?P<password_line>{_PASSWORD_LINE})",
        f"(?P<curl_user>{_CURL_USER})",
        f"(?P<option>{_OPTION})",
        f"(?P<secret_variable>{_SECRET_VARIABLE})",
        f"(?P<positional>{_POSITIONAL})",
        f"(?P<access_token>{NOT_AFTER_PLACEHOLDER}(?:{ACCESS_TOKEN}|{AUTH_SCHEME_CREDENTIAL}))",
    ]
)
#: The group names of :data:`PATTERN`'s rules.
RULES: Final = (
    "private_key", "url_login", "conda", "query", "netrc", "password_line", "curl_user", "option",
    "secret_variable", "positional", "access_token",
)  # fmt: skip
#: The kind each rule counts as.
_KINDS: Final = {
    "private_key": "private_key",
    "url_login": "url_credentials",
    "conda": "url_secret",
    "query": "url_secret",
    "netrc": "credential_variable",
    "password_line": "credential_variable",
    "curl_user": "credential_variable",
    "option": "credential_variable",
    "secret_variable": "credential_variable",
    "positional": "credential_variable",
    "access_token": "access_token",
}

#: A kept span of the original text: the redactor scans it again with every rule.
Span = tuple[int, int]


@dataclass(frozen=True)
class Replacement:
    """What a match becomes: literal text and kept spans, in order, and the kind it counts as.

    ``kind`` is None when nothing was hidden (the secret was already a placeholder).
    """

    pieces: tuple[str | Span, ...]
    kind: str | None


def replacement(match: re.Match[str]) -> Replacement:
    """The text for a match of :data:`PATTERN` (as the ``rule`` group that matched says)."""
    rule = str(match.lastgroup)
    special = _SPECIAL.get(rule)
    if special is not None:
        return special(match)
    return _hide_group(match, _SECRET_GROUPS[rule], _KINDS[rule])


#: The group that holds the secret, for the rules that hide one group and keep the rest.
_SECRET_GROUPS: Final = {
    "query": "query_value",
    "password_line": "pwline_value",
    "curl_user": "curl_password",
    "option": "option_value",
    "positional": "positional_value",
}


_ONLY_PLACEHOLDERS: Final = re.compile(rf"\s*(?:{_PLACEHOLDER}\s*)*")


def _access_token(match: re.Match[str]) -> Replacement:
    if match.group("auth_value") == TOKEN_PLACEHOLDER:
        return Replacement((match.group(0),), None)
    scheme = match.group("auth_scheme") or ""
    return Replacement((scheme + TOKEN_PLACEHOLDER,), "access_token")


def _hidden(text: str, placeholder: str) -> str | None:
    """``placeholder``, or None when ``text`` holds nothing to hide (blank, or placeholders already).

    Several placeholders in a row are nothing to hide either: a kept span, scanned again on
    its own, may end a value where the whole text would not (``-u X_TOKEN=a:b`` keeps
    ``X_TOKEN=a:``, whose ``a:`` becomes ``<redacted>`` next to the password's).
    """
    if _ONLY_PLACEHOLDERS.fullmatch(text):
        return None
    return placeholder


def _hide_group(match: re.Match[str], group: str, kind: str) -> Replacement:
    """The match kept around ``group``, whose text (inside its quotes) becomes the placeholder."""
    value = match.group(group)
    start, end = match.span(group)
    quote = value[0] if value[0] in "\"'" else ""
    closing = quote if quote and len(value) > 1 and value.endswith(quote) else ""
    inner = value[len(quote) : len(value) - len(closing)]
    hidden = _hidden(inner, SECRET_PLACEHOLDER)
    if hidden is None:
        return Replacement(((match.start(), start), value, (end, match.end())), None)
    return Replacement(((match.start(), start), quote + hidden + closing, (end, match.end())), kind)


def _url_login(match: re.Match[str]) -> Replacement:
    if match.group("bare_userinfo") is not None:
        hidden = _hidden(match.group("bare_userinfo"), CREDENTIALS_PLACEHOLDER)
        if hidden is None:
            return Replacement((match.group(0),), None)
        return Replacement((f"{hidden}@",), "url_credentials")
    hidden = _hidden(match.group("url_userinfo"), CREDENTIALS_PLACEHOLDER)
    if hidden is None:
        return Replacement((match.group(0),), None)
    return Replacement((f"{match.group('url_scheme')}://{hidden}@",), "url_credentials")


# What ends a URL (a space, a quote, an angle bracket), and how far back its "://" is looked for.
_URL_BREAK: Final = re.compile(r"[\s\"'<>]")
_URL_LOOKBACK: Final = 2048


def _in_url(text: str, position: int) -> bool:
    """Whether ``position`` is inside a URL: a "://" before it, with nothing that ends a URL between."""
    scheme_end = text.rfind("://", max(0, position - _URL_LOOKBACK), position)
    return scheme_end >= 0 and _URL_BREAK.search(text, scheme_end, position) is None


def _conda(match: re.Match[str]) -> Replacement:
    if match.group("conda_token") is None:
        return Replacement((match.group(0),), None)  # a placeholder already
    token_span = match.span("conda_token")
    if not _in_url(match.string, match.start()):
        # A folder named "t" in a path: kept, and its next folder scanned like any text.
        return Replacement(("/t/", token_span), None)
    return Replacement(("/t/", TOKEN_PLACEHOLDER), "url_secret")


def _netrc(match: re.Match[str]) -> Replacement:
    pairs_start, pairs_end = match.span("netrc_pairs")
    pieces: list[str | Span] = [(match.start(), pairs_start)]
    kind = None
    for pair in _NETRC_PAIR.finditer(match.string, pairs_start, pairs_end):
        pieces.append(pair.group(1))
        hidden = (
            _hidden(pair.group(3), SECRET_PLACEHOLDER) if pair.group(2) in ("password", "account") else None
        )
        if hidden is None:
            pieces.append(pair.span(3))
        else:
            pieces.append(hidden)
            kind = "credential_variable"
    return Replacement(tuple(pieces), kind)


def _private_key(match: re.Match[str]) -> Replacement:
    begin = f"-----BEGIN {match.group('pem_label')}-----"
    end = match.group("pem_end") or ""
    hidden = _hidden(match.group("pem_body"), SECRET_PLACEHOLDER)
    if hidden is None:
        return Replacement((match.group(0),), None)
    return Replacement((begin + hidden + end,), "private_key")


def _secret_variable(match: re.Match[str]) -> Replacement:
    value = match.group("secret_value")
    quote = value[0] if value[0] in "\"'" else ""
    inner = value[len(quote) :]
    closing = quote if quote and inner.endswith(quote) else ""
    inner = inner[: len(inner) - len(closing)]
    # The spaces that end a line are not part of the value (the next line keeps its layout).
    trailing = "" if closing else inner[len(inner.rstrip()) :]
    inner = inner.rstrip() if not closing else inner
    name_start, name_end = match.span("secret_name")
    head: tuple[str | Span, ...] = (match.string[match.start() : name_start], (name_start, name_end))
    separator = match.group("secret_separator")
    hidden = _hidden(inner, SECRET_PLACEHOLDER)
    if hidden is None:
        return Replacement((*head, separator, value), None)
    return Replacement((*head, separator, f"{quote}{hidden}{closing}{trailing}"), "credential_variable")


#: The rules whose match is more than one group to hide.
_SPECIAL: Final[dict[str, Callable[[re.Match[str]], Replacement]]] = {
    "url_login": _url_login,
    "conda": _conda,
    "netrc": _netrc,
    "secret_variable": _secret_variable,
    "private_key": _private_key,
    "access_token": _access_token,
}
