"""Secrets as their owners document them, built at random, and the places they turn up.

Written from each format's own documentation, not from the redactor's patterns, so a test that
plants them checks the redactor against the world. A :class:`Shape` is a token (or a structure
that holds one: a signed URL, a netrc entry, a PEM block) made of literal parts and random ones;
``secret`` is the random part that must not survive redaction. The same shapes are drawn by
hypothesis (:func:`shape_strategy`) and by a seeded :class:`random.Random` for the end-to-end
report (:func:`sample`). :data:`CONTEXTS` put a token where a real machine holds one.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

ALNUM = string.ascii_letters + string.digits
BASE64URL = ALNUM + "-_"
BASE64 = ALNUM + "+/"
HEX = "0123456789abcdef"
UPPER_DIGITS = string.ascii_uppercase + "234567"  # base32, as AWS key ids


@dataclass(frozen=True)
class Random:
    """A random part: ``size`` characters (a range) from ``alphabet``."""

    alphabet: str
    low: int
    high: int


Part = str | Random


@dataclass(frozen=True)
class Shape:
    """A documented shape: its parts in order; ``{secret}`` in ``template`` is where they go."""

    name: str
    source: str
    parts: tuple[Part, ...]
    template: str = "{secret}"
    #: Whether the built text is a token that stands on its own (it can go into any context).
    token: bool = True


SHAPES: tuple[Shape, ...] = (
    # --- tokens by prefix -----------------------------------------------------------------------
    Shape("ngc", "NGC user guide: personal keys are nvapi- and 64 characters",
          ("nvapi-", Random(BASE64URL, 64, 70))),
    Shape("hugging-face", "huggingface.co/docs/hub/security-tokens: hf_ and 34 letters",
          ("hf_", Random(string.ascii_letters, 34, 34))),
    Shape("github-classic", "GitHub token formats: ghp_ and 36 alphanumerics", ("ghp_", Random(ALNUM, 36, 36))),
    Shape("github-app", "GitHub token formats: ghs_ (server-to-server)", ("ghs_", Random(ALNUM, 36, 36))),
    Shape("github-fine-grained", "github_pat_, 22 characters, _, 59 characters",
          ("github_pat_", Random(ALNUM, 22, 22), "_", Random(ALNUM, 59, 59))),
    Shape("gitlab", "docs.gitlab.com token prefixes: glpat- and 20 characters", ("glpat-", Random(BASE64URL, 20, 20))),
    Shape("pypi", "pypi.org/help/#apitoken: pypi- and a base64url macaroon (pypi.org's start AgEIcHlwaS5vcmc)",
          ("pypi-AgEIcHlwaS5vcmc", Random(BASE64URL, 60, 180))),
    Shape("npm", "npm's token format: npm_ and 36 alphanumerics", ("npm_", Random(ALNUM, 36, 36))),
    Shape("openai-project", "OpenAI project keys: sk-proj- ... T3BlbkFJ ...",
          ("sk-proj-", Random(BASE64URL, 20, 74), "T3BlbkFJ", Random(BASE64URL, 20, 74))),
    Shape("openai-legacy", "OpenAI keys: sk-, 20 characters, T3BlbkFJ, 20 characters",
          ("sk-", Random(ALNUM, 20, 20), "T3BlbkFJ", Random(ALNUM, 20, 20))),
    Shape("anthropic", "Anthropic console keys: sk-ant-api03- and base64url",
          ("sk-ant-api03-", Random(BASE64URL, 93, 93), "AA")),
    Shape("stripe-live", "docs.stripe.com/keys: sk_live_ and 24 or more alphanumerics",
          ("sk_live_", Random(ALNUM, 24, 99))),
    Shape("stripe-restricted", "docs.stripe.com/keys: rk_live_", ("rk_live_", Random(ALNUM, 24, 99))),
    Shape("stripe-test", "docs.stripe.com/keys: sk_test_", ("sk_test_", Random(ALNUM, 24, 99))),
    Shape("google-api-key", "cloud.google.com API keys: AIza and 35 characters, 39 in all",
          ("AIza", Random(BASE64URL, 35, 35))),
    Shape("slack-bot", "api.slack.com token types: xoxb-, numbers, 24 characters",
          ("xoxb-", Random(string.digits, 10, 13), "-", Random(string.digits, 10, 13), "-", Random(ALNUM, 24, 24))),
    Shape("slack-user", "api.slack.com token types: xoxp-",
          ("xoxp-", Random(string.digits, 10, 13), "-", Random(string.digits, 10, 13), "-", Random(ALNUM, 24, 32))),
    Shape("slack-app", "api.slack.com token types: app-level xapp-1-",
          ("xapp-1-A", Random(ALNUM, 10, 11), "-", Random(string.digits, 13, 13), "-", Random(HEX, 64, 64))),
    Shape("aws-access-key-id", "AWS IAM unique identifiers: AKIA and 16 base32 characters",
          ("AKIA", Random(UPPER_DIGITS, 16, 16))),
    Shape("aws-temporary-key-id", "AWS IAM unique identifiers: ASIA", ("ASIA", Random(UPPER_DIGITS, 16, 16))),
    Shape("jwt", "RFC 7519: base64url(header).base64url(claims).signature",
          ("eyJhbGciOiJSUzI1NiJ9.eyJ", Random(BASE64URL, 20, 60), ".", Random(BASE64URL, 30, 80))),
    # --- structures that hold a secret ----------------------------------------------------------
    Shape("azure-sas-url", "Azure Storage service SAS: sv, sp, se ... and sig, the signature",
          (Random(BASE64, 43, 43), "%3D"), template="https://acct.blob.core.windows.net/wheels?sv=2022-11-02&sp=r&se=2030-01-01&sig={secret}",
          token=False),
    Shape("azure-sas-connection", "Azure connection string with SharedAccessSignature=",
          (Random(BASE64, 43, 43),),
          template="BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig={secret}",
          token=False),
    Shape("azure-account-key", "Azure storage connection string: AccountKey=",
          (Random(BASE64, 86, 86), "=="),
          template="DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={secret};EndpointSuffix=core.windows.net",
          token=False),
    Shape("aws-presigned", "AWS SigV4 query authentication: X-Amz-Credential, X-Amz-Signature",
          (Random(HEX, 64, 64),),
          template=("https://bucket.s3.amazonaws.com/wheel.whl?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                    "&X-Amz-Date=20260101T000000Z&X-Amz-Expires=3600&X-Amz-Signature={secret}"),
          token=False),
    Shape("gcs-signed", "Google Cloud Storage V4 signed URL: X-Goog-Signature",
          (Random(HEX, 64, 64),),
          template="https://storage.googleapis.com/b/w.whl?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature={secret}",
          token=False),
    Shape("conda-token-channel", "anaconda.org channel with a token: https://conda.anaconda.org/t/<token>/<channel>",
          ("ab-", Random(HEX, 8, 8), "-", Random(HEX, 4, 4), "-", Random(HEX, 4, 4), "-", Random(HEX, 12, 12)),
          template="https://conda.anaconda.org/t/{secret}/corp-channel", token=False),
    Shape("netrc-one-line", "netrc: machine NAME login NAME password STRING on one line",
          (Random(ALNUM + "!#$%&*+-.^_~", 12, 30),), template="machine pypi.corp.example login build-agent password {secret}",
          token=False),
    Shape("netrc-lines", "netrc: the same tokens on separate lines",
          (Random(ALNUM + "!#$%&*+-.^_~", 12, 30),),
          template="machine pypi.corp.example\n    login build-agent\n    password {secret}\n", token=False),
    Shape("aws-cli-set", "aws configure set aws_secret_access_key VALUE (40 base64 characters)",
          (Random(BASE64, 40, 40),), template="aws configure set aws_secret_access_key {secret}", token=False),
    Shape("pem-private-key", "RFC 7468 PRIVATE KEY: base64 lines of 64 between BEGIN and END",
          ("MIIE", Random(BASE64, 60, 60), "\n", Random(BASE64, 64, 64), "\n", Random(BASE64, 20, 40), "=="),
          template="-----BEGIN PRIVATE KEY-----\n{secret}\n-----END PRIVATE KEY-----", token=False),
    Shape("pem-rsa-in-json", "a service account's private_key, as JSON writes its line breaks",
          ("MIIE", Random(BASE64, 60, 60), "\\n", Random(BASE64, 40, 60)),
          template='{{"type": "service_account", "private_key": "-----BEGIN RSA PRIVATE KEY-----\\n{secret}\\n-----END RSA PRIVATE KEY-----\\n"}}',
          token=False),
    Shape("curl-user", "curl -u user:password", (Random(ALNUM + "!#%*+-.^_~", 12, 24),),
          template="curl -u build-agent:{secret} https://pypi.corp.example/simple/", token=False),
    # A value given apart from its option never starts with "-": argparse and click take such a
    # word for another option ("expected one argument"), so it is written --password=-x instead.
    Shape("password-option", "a command line's --password VALUE",
          (Random(ALNUM, 1, 1), Random(ALNUM + "#%*+-.^_~", 11, 23)),
          template="twine upload --username __token__ --password {secret} dist/*", token=False),
)  # fmt: skip


def _random_part(part: Random, rng: random.Random) -> str:
    return "".join(rng.choice(part.alphabet) for _ in range(rng.randint(part.low, part.high)))


@dataclass(frozen=True)
class Built:
    """One shape built: the text to plant, and its secret (the random parts, joined as written)."""

    shape: str
    text: str
    secret: str


def _built(shape: Shape, pieces: list[str]) -> Built:
    token = "".join(pieces)
    return Built(shape.name, shape.template.format(secret=token), token)


def sample(shape: Shape, rng: random.Random) -> Built:
    """``shape`` built with ``rng``."""
    return _built(shape, [part if isinstance(part, str) else _random_part(part, rng) for part in shape.parts])


def shape_strategy(shape: Shape) -> st.SearchStrategy[Built]:
    """``shape`` built by hypothesis."""
    parts = [
        st.just(part)
        if isinstance(part, str)
        else st.text(alphabet=part.alphabet, min_size=part.low, max_size=part.high)
        for part in shape.parts
    ]
    return st.tuples(*parts).map(lambda pieces: _built(shape, list(pieces)))


def basic_credentials(user: str, password: str) -> str:
    """An Authorization header's Basic credentials (RFC 7617 §2)."""
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


#: Where a token turns up on a machine: each puts ``token`` in a line of text.
CONTEXTS: dict[str, Callable[[str], str]] = {
    "env-value": lambda token: f"EXTRA_SETTING={token}",
    "secret-variable": lambda token: f"export SERVICE_TOKEN={token}",
    "url-password": lambda token: f"https://__token__:{token}@pypi.corp.example/simple/",
    "url-path": lambda token: f"https://hooks.example.com/services/{token}/post",
    "url-query": lambda token: f"https://api.example.com/v1/models?access_token={token}&limit=5",
    "command-line": lambda token: f"huggingface-cli login --token {token} --add-to-git-credential",
    "command-argument": lambda token: f"deploy.sh {token} production",
    "config-line": lambda token: f"api_key = {token}",
    "yaml-line": lambda token: f"  token: {token}",
    "json-string": lambda token: f'{{"value": "{token}", "device": "cuda:0"}}',
    "prose": lambda token: f"login failed for {token}, retrying in 5 s",
    "header": lambda token: f"curl -H 'Authorization: Bearer {token}' https://api.example.com",
    "quoted-argument": lambda token: f"python train.py --hub-token='{token}'",
}
