r"""What a secret looks like: names, token formats and the secret parts of a URL (pure).

Shared by the support report's redaction (``core/support/credentials.py``, which builds its one
pattern from these) and by what an install shows and how it hands an index to pip and uv
(``core/envs/package_sources.py``: a URL that carries a secret is masked on screen and never
put on another process's command line). Each fact names where it is documented.

- :data:`TOKEN_FORMATS`: access tokens by their documented prefix and alphabet, one row per
  format with its source;
- :func:`is_secret_name`: a variable, field, option or query parameter named like a secret;
- :data:`SECRET_QUERY_PARAMETERS`: the query parameters of signed URLs that carry a signature or
  a credential whatever their name says (Azure's ``sig``, AWS's and Google's ``X-Amz-*`` and
  ``X-Goog-*``...);
- :func:`mask_url` and :func:`url_has_secret`: a URL's login (RFC 3986 §3.2.1 userinfo), its
  secret query parameters and conda's ``/t/<token>`` path segment.

>>> mask_url("https://u:pw@host/t/tk-123-456/chan?sv=1&sig=AbC%3D")
'https://***@host/t/***/chan?sv=1&sig=***'
>>> url_has_secret("https://download.pytorch.org/whl/cu126")
False
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlsplit, urlunsplit

# --- names of secrets ----------------------------------------------------------------------------

#: Word parts that name a secret (case-insensitively): a whole part of a name, split at "_", "-",
#: "." and camelCase (``API_KEY``, ``apiKey``, ``X-Auth-Token``, ``HTTPAuthorization``).
SECRET_WORDS: Final = (
    "key", "keys", "apikey", "apikeys", "token", "tokens", "secret", "secrets", "password",
    "passwords", "passwd", "passphrase", "pass", "pwd", "auth", "authn", "authz", "oauth",
    "authorization", "authentication", "credential", "credentials", "cookie", "cookies",
    "session", "sessions", "private", "signature",
)  # fmt: skip
#: Endings that name a secret even glued to another word (``ACCESSTOKEN``, ``DBPASSWORD``,
#: ``NVAPIKEY``, Azure's ``SharedAccessSignature``); a bare "key" is not one (``MONKEY``, ``HOTKEY``).
SECRET_ENDINGS: Final = (
    "token", "tokens", "secret", "secrets", "password", "passwd", "passphrase", "apikey",
    "credential", "credentials", "cookie", "accesskey", "secretkey", "privatekey", "authtoken",
    "signature",
)  # fmt: skip
#: Names with a secret's word part that are not secrets: exceptions and warnings (``KeyError:``
#: starts a message in a traceback) and POSIX's working-folder variables (``PWD``, ``OLDPWD``).
NOT_SECRETS: Final = r"(?:[\w.-]*?(?i:error|exception|warning)s?|(?i:pwd|oldpwd))(?![\w.-])"

# Where a word part starts and ends inside a name: at its edges, at "_", "-", "." or a digit,
# or at a camelCase step (``apiKey``, ``HTTPAuthorization``). Case-sensitive on purpose.
_PART_START: Final = r"(?:(?<![A-Za-z0-9])|(?<=[a-z])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])|(?<=\d))"
_PART_END: Final = r"(?:(?![A-Za-z0-9])|(?<=[a-z])(?=[A-Z])|(?=\d))"


def _one_of(words: tuple[str, ...]) -> str:
    return "|".join(sorted(words, key=len, reverse=True))


SECRET_PART: Final = (
    rf"(?:{_PART_START}(?i:{_one_of(SECRET_WORDS)})|(?i:{_one_of(SECRET_ENDINGS)})){_PART_END}"
)
#: A name of a secret: words of letters, digits and "_" joined by "-" or "." (``X-Api-Key``,
#: ``spring.datasource.password``; not ``a.--b``, two things); :data:`SECRET_NAME` starts only where no such character
#: stands before it, so a long hyphenated word is looked at once, from its start (linear time).
SECRET_NAME_BODY: Final = rf"(?=[\w.-]*?{SECRET_PART})(?!{NOT_SECRETS})[A-Za-z_]\w*(?:[.-]\w+)*"
SECRET_NAME: Final = rf"(?<![\w.-]){SECRET_NAME_BODY}"
_SECRET_NAME_WHOLE: Final = re.compile(rf"{SECRET_NAME}\Z")


def is_secret_name(name: str) -> bool:
    """Whether a variable, field or option named ``name`` holds a secret (its value is hidden).

    >>> [is_secret_name(n) for n in ("NVIDIA_APIKEY", "apiKey", "MY_PASS", "KEYBOARD_LAYOUT", "PWD")]
    [True, True, True, False, False]
    """
    return bool(_SECRET_NAME_WHOLE.match(name.strip().strip("\"'").lstrip("-")))


# --- signed URLs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class QueryParameter:
    """Query parameters (a case-insensitive pattern of their names) that carry a secret."""

    names: str
    what: str
    source: str


#: Query parameters that are secrets whatever :func:`is_secret_name` says of their names.
SECRET_QUERY_PARAMETERS: Final = (
    QueryParameter("sig", "Azure Storage shared access signature",
                   "learn.microsoft.com/rest/api/storageservices/create-service-sas, 'Specify the signature'"),
    QueryParameter(r"x-amz-[a-z0-9-]+", "AWS Signature Version 4 query authentication",
                   "docs.aws.amazon.com/AmazonS3/latest/API/sigv4-query-string-auth.html"),
    QueryParameter(r"x-goog-[a-z0-9-]+", "Google Cloud Storage signed URL (V4)",
                   "cloud.google.com/storage/docs/authentication/signatures, 'Signed URL query parameters'"),
    QueryParameter(r"awsaccesskeyid|googleaccessid", "AWS and Google Signature Version 2 query authentication",
                   "docs.aws.amazon.com/AmazonS3/latest/userguide/RESTAuthentication.html, 'Query string request authentication'"),
)  # fmt: skip
#: A query parameter's name that carries a secret (in a pattern: a name before its "=").
SECRET_QUERY_NAME: Final = (
    rf"(?:(?i:{'|'.join(row.names for row in SECRET_QUERY_PARAMETERS)})(?=[=&#;\s\"'<>]|\Z)|{SECRET_NAME})"
)
_SECRET_QUERY_NAME_WHOLE: Final = re.compile(rf"{SECRET_QUERY_NAME}\Z")


def is_secret_query_name(name: str) -> bool:
    """Whether a URL's query parameter ``name`` carries a secret.

    >>> [is_secret_query_name(n) for n in ("sig", "X-Amz-Signature", "access_token", "sv", "se")]
    [True, True, True, False, False]
    """
    return bool(_SECRET_QUERY_NAME_WHOLE.match(name))


#: conda's token in a channel URL: a path segment ``/t/<token>`` anywhere in the path, as conda
#: itself finds and masks it (conda/common/url.py, ``split_anaconda_token``: ``/t/([a-zA-Z0-9-]*)``;
#: anaconda.org and Anaconda Server channels are ``https://HOST/t/<TOKEN>/<channel>``).
CONDA_TOKEN_PATH: Final = (
    r"/t/(?P<conda_token>[A-Za-z0-9-]+)(?=[/?#\s\"')\],;]|\Z)"  # noqa: S105 - a pattern, not a token
    # Not a forum topic: Discourse's topics are /t/{slug}/{id} (docs.discourse.org, "Topics"),
    # as the compatibility data's sources on discuss.pytorch.org are; a channel's name is no number.
    r"(?!/\d+(?:/\d+)?(?=[/?#\s\"')\],;]|\Z))"
)
_CONDA_TOKEN: Final = re.compile(CONDA_TOKEN_PATH)


def mask_url(url: str, placeholder: str = "***") -> str:
    """``url`` with its login, its secret query parameters and a conda token replaced.

    The login is everything before the last "@" of the authority (a password may hold "@");
    query parameters are split at "&" and ";" (both are separators in query strings, and
    Azure's connection strings use ";").

    >>> mask_url("https://ana:s3cret@mirror.example/simple")
    'https://***@mirror.example/simple'
    >>> mask_url("https://acct.blob.core.windows.net/w?sv=2022-11-02&sig=AbC%3D&token=x")
    'https://acct.blob.core.windows.net/w?sv=2022-11-02&sig=***&token=***'
    """
    try:
        parts = urlsplit(url)
    except ValueError:
        return url
    netloc = parts.netloc
    if "@" in netloc:
        netloc = f"{placeholder}@{netloc.rsplit('@', 1)[1]}"
    path = _CONDA_TOKEN.sub(f"/t/{placeholder}", parts.path) if parts.netloc else parts.path
    query = re.sub(
        r"(?:^|(?<=[&;]))([^=&;]+)=([^&;]*)",
        lambda m: (
            f"{m.group(1)}={placeholder}" if m.group(2) and is_secret_query_name(m.group(1)) else m.group(0)
        ),
        parts.query,
    )
    if (netloc, path, query) == (parts.netloc, parts.path, parts.query):
        return url
    return urlunsplit(parts._replace(netloc=netloc, path=path, query=query))


def url_has_secret(url: str) -> bool:
    """Whether ``url`` carries a login, a secret query parameter or a conda token.

    >>> [url_has_secret(u) for u in ("https://u:p@h/simple", "https://h/t/tk-1/c", "https://h/simple")]
    [True, True, False]
    """
    return mask_url(url) != url


# --- access tokens by their form -----------------------------------------------------------------


@dataclass(frozen=True)
class TokenFormat:
    """One documented token format: a pattern of the whole token, and where it is documented."""

    name: str
    pattern: str
    source: str


# Random-looking: a digit, an upper- and a lower-case letter among the word's characters (a
# hyphenated package name such as "sk-learn-extras" is not a key). The lookaheads scan one word
# and a token starts only where no word character stands before it, so each word is scanned once.
_RANDOM: Final = r"(?=[\w-]*\d)(?=[\w-]*[A-Z])(?=[\w-]*[a-z])"
_END: Final = r"(?![\w-])"

#: Tokens by their form, each with the page that documents its prefix and alphabet.
TOKEN_FORMATS: Final = (
    TokenFormat("nvidia-ngc", r"nvapi-[\w-]{16,}",
                "docs.nvidia.com/ngc/gpu-cloud/ngc-user-guide, 'Generating Your NGC API Key' (keys start with nvapi-)"),
    TokenFormat("hugging-face", r"hf_[A-Za-z0-9]{20,}", "huggingface.co/docs/hub/security-tokens"),
    TokenFormat("github", r"gh[pousr]_[A-Za-z0-9]{20,}",
                "github.blog/2021-04-05-behind-githubs-new-authentication-token-formats (ghp_ gho_ ghu_ ghs_ ghr_)"),
    TokenFormat("github-fine-grained", r"github_pat_\w{20,}",
                "docs.github.com/authentication/keeping-your-account-and-data-secure/managing-your-personal-access-tokens"),
    TokenFormat("gitlab", r"glpat-[\w-]{20,}", "docs.gitlab.com/ee/security/tokens/, 'Token prefixes' (glpat-)"),
    TokenFormat("pypi", rf"pypi-{_RANDOM}[\w-]{{40,}}",
                "pypi.org/help/#apitoken (an API token is the password, 'including the pypi- prefix')"),
    TokenFormat("npm", r"npm_[A-Za-z0-9]{36}" + _END,
                "github.blog/changelog/2021-09-23-npm-has-a-new-access-token-format (npm_ and 36 characters)"),
    TokenFormat("anthropic", r"sk-ant-[\w-]{20,}",
                "docs.anthropic.com/en/api/overview, 'Authentication' (keys from the Console start with sk-ant-)"),
    TokenFormat("openai", rf"sk-{_RANDOM}[\w-]{{20,}}",
                "platform.openai.com/docs/api-reference/authentication (sk-, project keys sk-proj-)"),
    TokenFormat("stripe", r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}",
                "docs.stripe.com/keys (secret keys sk_live_/sk_test_, restricted keys rk_live_/rk_test_)"),
    TokenFormat("google-api-key", r"AIza[\w-]{35}" + _END,
                "cloud.google.com/docs/authentication/api-keys (AIza and 35 more characters, 39 in all)"),
    TokenFormat("slack", r"xox[abposr]-[A-Za-z0-9-]{10,}",
                "api.slack.com/authentication/token-types (xoxb- xoxp- xoxa- xoxr- xoxs-)"),
    TokenFormat("slack-app", r"xapp-\d-[A-Za-z0-9-]{10,}", "api.slack.com/authentication/token-types, 'App-level tokens' (xapp-)"),
    TokenFormat("aws-access-key-id", r"(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])",
                "docs.aws.amazon.com/IAM/latest/UserGuide/reference_identifiers.html, 'Unique identifiers' (AKIA, ASIA)"),
    TokenFormat("jwt", r"eyJ[\w-]{4,}\.eyJ[\w-]{4,}\.[\w-]*",
                "RFC 7519 §3 and RFC 7515 §7.1: three base64url parts, the first two JSON objects, so 'eyJ'"),
)  # fmt: skip
#: Any token of :data:`TOKEN_FORMATS`, starting where no word character or "-" stands before it.
ACCESS_TOKEN: Final = rf"(?<![\w-])(?:{'|'.join(row.pattern for row in TOKEN_FORMATS)})"

#: Authorization header credentials: "Bearer" (RFC 6750 §2.1) and "Basic" (RFC 7617 §2) and what
#: follows, when it is not a plain word ("Basic usage") nor starts with "-" (an option); the
#: scheme's name is kept.
AUTH_SCHEME_CREDENTIAL: Final = (
    r"(?<![\w-])(?P<auth_scheme>(?i:bearer|basic)[ \t]+)"
    r"(?P<auth_value><token>|(?![A-Za-z][a-z]*(?![\w.~+/=-]))[\w.~+/=][\w.~+/=-]{7,})"
)

#: A PEM private key block (RFC 7468 §2, "-----BEGIN label-----" ... "-----END label-----"; its
#: labels "PRIVATE KEY" §10, "ENCRYPTED PRIVATE KEY" §11, OpenSSL's "RSA/EC/DSA PRIVATE KEY",
#: OpenSSH's "OPENSSH PRIVATE KEY" (openssh PROTOCOL.key), OpenPGP's "PGP PRIVATE KEY BLOCK"
#: (RFC 4880 §6.2)). The body is base64 with line breaks, written "\n" inside a JSON string,
#: and the "Proc-Type: 4,ENCRYPTED" and "DEK-Info:" headers of RFC 1421; it runs to its END
#: line, or, cut short, to the first character no body holds.
PEM_BEGIN: Final = r"-----BEGIN (?P<pem_label>(?:[A-Z0-9]+ ){0,4}PRIVATE KEY(?: BLOCK)?)-----"
PEM_BODY: Final = r"(?:(?!-----)[A-Za-z0-9+/=\s\\:,._-])*"
PEM_END: Final = r"-----END (?P=pem_label)-----"
PEM_PRIVATE_KEY: Final = rf"{PEM_BEGIN}(?P<pem_body>{PEM_BODY})(?P<pem_end>{PEM_END})?"
