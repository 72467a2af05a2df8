"""The standing redaction test (issue 19): no credential reaches any format of ``gpuwizard report``.

The real ``gpuwizard report`` writes JSON, Markdown and HTML from a machine where credentials
sit everywhere a report reads: the process's environment (private index URLs whose passwords
hold ``@``, ``/``, ``%`` and ``:``; token variables), the activation variables of an
environment the wizard made (``environments.json``), what that environment's interpreter
prints (a traceback that dumps a pip config file and a log), and the findings of a live test
(``last-tests.json``). Each row of :data:`PLANTED` is one credential, where it was planted, the
kind the report must count it as, and the parts of it that must appear nowhere; every row is
checked in every format, in the text as written and as a reader sees it (HTML entities and
Markdown escapes undone, JSON strings decoded). What a helper needs (the CUDA path, versions,
the index's host) must still be there, and each format must say what it replaced.

The interpreter is a shell script that prints the probes' answers, so the three reports take
about a second; POSIX only, as the other report tests' fake interpreters.
"""

from __future__ import annotations

import html
import json
import random
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from builders.secret_shapes import CONTEXTS, SHAPES, Built, sample
from gpuwizard.core.support.redaction import Identities, redact
from harness.entry_point import gpuwizard

pytestmark = [
    pytest.mark.xdist_group("report-redaction"),  # one worker makes the reports once
    pytest.mark.skipif(sys.platform == "win32", reason="the fake interpreter is a shell script"),
]

RTX3060 = Path(__file__).parent.parent / "fixtures" / "reports" / "windows-rtx3060-546.33.json"
FORMATS = ("json", "md", "html")


@dataclass(frozen=True)
class Planted:
    """One credential: where it goes, as what it is counted, and what of it must vanish."""

    case: str
    where: str  # "environ", "env-variables", "probe-log" or "test-finding"
    text: str  # the line or value planted
    kind: str  # the count it adds to: url_credentials, url_secret, credential_variable, access_token, private_key
    secrets: tuple[str, ...]
    name: str = ""  # the variable, for "environ" and "env-variables"


# Made-up credentials, long and random-looking where their format says so.
NVAPI = "nvapi-" + "Zq8vK2mN4pR7sT1wX3yB5cD6eF9gH0jL" * 2
HF = "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNm12345678"
GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
GH_PAT = "github_pat_" + "11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH"
GLPAT = "glpat-" + "xY9zW8vU7tS6rQ5pO4nM"
OPENAI = "sk-proj-" + "T3BlbkFJ9aB8cD7eF6gH5iJ4kL3mN2oP1qR0"
SLACK = "xoxb-" + "2468013579-1357924680-QwErTyUiOpAs"
AWS = "AKIA" + "Z7Q3M9X2C5V8B1N4"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1ib3QiLCJpYXQiOjE3MDB9.SflKxwRJSMeKKF2QT4fwpMeJf36POk6y"
BEARER = "Bearer " + "b3ArEr0paqueT0kenVALUE"
BASIC = "Basic " + "Y2ktdXNlcjpCYXNpY1B3ZDk5"  # base64 of "ci-user:BasicPwd99"
SAS_SIG = "Zk9sQ2xhc3NpY1NpZ25hdHVyZTEyMw%3D%3D"
CONDA_TOKEN = "ab-5f3c9e1a-77d2-4b8e-9a01-c3d4e5f6a7b8"  # noqa: S105 - made up
PYPI = "pypi-AgEIcHlwaS5vcmcCJGE5ZjRhNDk2LTc3ZDItNGI4ZS05YTAxLWMzZDRlNWY2YTdiOAACKlszLCJhYmMiXQ"
STRIPE = "sk_live_" + "51H8xQ2eZvKYlo2C0aBcDeFgHiJ"
GOOGLE = "AIza" + "SyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY"
SLACK_APP = "xapp-1-" + "A0123456789-1234567890123-0a1b2c3d4e5f60718293a4b5c6d7e8f9"
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzz9XmpLeKeY"  # noqa: S105 - made up
PEM_BODY = "MIIEvgIBADANBgkqhkiG9w0BAQEFAASCBKgwggSkAgEAAoIBAQCu1Pemb0dyPrivKey"

PLANTED: tuple[Planted, ...] = (
    # --- URL logins (RFC 3986 §3.2.1 userinfo), whatever the password holds ---
    Planted("index-password-with-at", "environ", "https://ci-bot:AtPa@ss77tail@pypi.corp.example/simple",
            "url_credentials", ("ci-bot", "AtPa", "ss77tail"), name="PIP_INDEX_URL"),
    Planted("index-password-with-slash", "environ", "https://deploy:s3cr/3t/slashy@repo.example/simple",
            "url_credentials", ("s3cr/3t", "3t/slashy"), name="PIP_EXTRA_INDEX_URL"),
    Planted("index-password-percent-encoded", "environ", "https://me:p%40ss%2Fw0rdPct@uv.example/simple",
            "url_credentials", ("p%40ss%2Fw0rdPct", "w0rdPct"), name="UV_INDEX_URL"),
    Planted("index-password-with-colons", "environ", "https://u:co:lo:ns99@wheels.example/",
            "url_credentials", ("co:lo:ns99",), name="PIP_FIND_LINKS"),
    Planted("proxy-several-at", "env-variables", "http://prx-user@x:y@zz99pw@proxy.example:3128",
            "url_credentials", ("prx-user", "zz99pw"), name="HTTPS_PROXY"),
    Planted("pip-config-index-url", "probe-log", "index-url = https://pipuser:Conf@Pw/77@pypi.conf.example/simple",
            "url_credentials", ("pipuser", "Conf@Pw", "Pw/77")),
    Planted("git-https-login", "test-finding", "git+https://x-token:GitPw0rd55@gitlab.example/org/repo.git@main",
            "url_credentials", ("x-token:", "GitPw0rd55")),
    # --- variables named like secrets: by name, whatever the value looks like ---
    Planted("nvidia-apikey", "environ", NVAPI, "credential_variable", (NVAPI, NVAPI[6:30]), name="NVIDIA_APIKEY"),
    Planted("nvidia-pass", "environ", "Tr0ub4dor&3 horse", "credential_variable", ("Tr0ub4dor",),
            name="NVIDIA_SMI_PASS"),
    Planted("cuda-auth-header", "environ", "opaque-Auth-Value-42", "credential_variable", ("opaque-Auth-Value",),
            name="CUDA_X_AUTH_HEADER"),
    Planted("hf-token", "env-variables", HF, "credential_variable", (HF, HF[3:20]), name="HF_TOKEN"),
    Planted("github-token", "env-variables", GHP, "credential_variable", (GHP, GHP[4:24]), name="GITHUB_TOKEN"),
    Planted("my-pass", "env-variables", "correct-Horse-battery-staple-9", "credential_variable",
            ("correct-Horse",), name="MY_PASS"),
    Planted("x-auth-header", "env-variables", "hdr-Secret-Val-31", "credential_variable", ("hdr-Secret",),
            name="X_AUTH_HEADER"),
    Planted("aws-secret-key", "env-variables", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY", "credential_variable",
            ("wJalrXUtnFEMI", "bPxRfiCY"), name="AWS_SECRET_ACCESS_KEY"),
    Planted("pip-config-password", "probe-log", "password = iniSecretValue88", "credential_variable",
            ("iniSecretValue88",)),
    Planted("log-authorization-header", "probe-log", f"Authorization: {BEARER}", "credential_variable",
            ("b3ArEr0paque",)),
    Planted("json-api-key-in-log", "probe-log", '{"api_key": "jsonKeyValue77", "device": "cuda:0"}',
            "credential_variable", ("jsonKeyValue77",)),
    Planted("env-dump-token-in-log", "test-finding", f"HUGGING_FACE_HUB_TOKEN={HF}", "credential_variable",
            (HF[3:20],)),
    # --- access tokens by their form, wherever they are ---
    Planted("bare-nvapi", "probe-log", f"ngc login failed for {NVAPI}", "access_token", (NVAPI[6:30],)),
    Planted("bare-hf", "test-finding", f"huggingface-cli login --token {HF}", "access_token", (HF[3:20],)),
    Planted("bare-github", "probe-log", f"cloning with {GHP} and {GH_PAT}", "access_token", (GHP[4:24], GH_PAT[11:30])),
    Planted("bare-gitlab", "test-finding", f"gitlab said 401 to {GLPAT}", "access_token", (GLPAT[6:],)),
    Planted("bare-openai", "probe-log", f"openai rejected {OPENAI}", "access_token", (OPENAI[8:30],)),
    Planted("bare-slack", "test-finding", f"notify via {SLACK} failed", "access_token", (SLACK[5:],)),
    Planted("bare-aws-key-id", "probe-log", f"boto3 used {AWS}", "access_token", (AWS,)),
    Planted("bare-jwt", "test-finding", f"token expired: jwt {JWT}", "access_token", (JWT[:40], JWT[-20:])),
    Planted("bare-bearer", "probe-log", f"retrying with {BEARER} after 401", "access_token", ("b3ArEr0paque",)),
    Planted("bare-basic", "test-finding", f"proxy wants {BASIC} again", "access_token", (BASIC[6:],)),
    # --- issue 33: what the structure of a URL, a netrc file, a command line or a PEM says ---
    Planted("sas-find-links", "environ", f"https://acct.blob.core.windows.net/wheels?sv=2022-11-02&sp=r&sig={SAS_SIG}",
            "url_secret", (SAS_SIG, SAS_SIG[:20]), name="UV_DEFAULT_INDEX"),
    Planted("sas-extra-index-url", "environ", f"https://acct.blob.core.windows.net/extra/simple?sig={SAS_SIG}&se=2030",
            "url_secret", (SAS_SIG,), name="UV_EXTRA_INDEX_URL"),
    Planted("sas-connection-string", "env-variables",
            f"BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2022-11-02&ss=b&sig={SAS_SIG}",
            "url_secret", (SAS_SIG,), name="AZURE_STORAGE_CONNECTION_STRING"),
    Planted("conda-token-channel", "env-variables", f"https://conda.anaconda.org/t/{CONDA_TOKEN}/corp-channel",
            "url_secret", (CONDA_TOKEN, CONDA_TOKEN[3:20]), name="CONDA_CHANNEL_URL"),
    Planted("conda-token-in-log", "test-finding", f"conda install -c https://conda.anaconda.org/t/{CONDA_TOKEN}/x torch",
            "url_secret", (CONDA_TOKEN[3:20],)),
    Planted("netrc-one-line", "probe-log", "machine pypi.corp.example login build-agent password NetrcPw0ne-line",
            "credential_variable", ("NetrcPw0ne",)),
    Planted("netrc-lines", "probe-log", "machine files.corp.example\n  login build-agent\n  password NetrcMultiLine77",
            "credential_variable", ("NetrcMultiLine77",)),
    Planted("bare-pypi", "probe-log", f"twine upload -u __token__ -p {PYPI} dist/*", "access_token", (PYPI[5:60],)),
    Planted("aws-cli-secret", "probe-log", f"aws configure set aws_secret_access_key {AWS_SECRET}",
            "credential_variable", (AWS_SECRET, AWS_SECRET[:16])),
    Planted("stripe-live", "test-finding", f"payment call failed with {STRIPE}", "access_token", (STRIPE[8:],)),
    Planted("google-api-key", "env-variables", GOOGLE, "access_token", (GOOGLE[4:],), name="MAPS_CONFIG"),
    Planted("slack-app-token", "env-variables", SLACK_APP, "access_token", (SLACK_APP[7:30],), name="SLACK_APP"),
    Planted("pem-private-key", "probe-log",
            f"-----BEGIN PRIVATE KEY-----\n{PEM_BODY[:32]}\n{PEM_BODY[32:]}\n-----END PRIVATE KEY-----",
            "private_key", (PEM_BODY[:32], PEM_BODY[32:])),
)  # fmt: skip

# A generated corpus (builders/secret_shapes.py, seeded so every run plants the same): each
# documented token shape once in each place a token turns up, in the environment's log, and
# each structure that holds a secret once; half of them also as an environment's variables.
_RNG = random.Random(33)  # noqa: S311 - reproducible test data, not secrets
GENERATED: tuple[Built, ...] = tuple(
    sample(shape, _RNG) for shape in SHAPES for _context in (CONTEXTS if shape.token else ("as-is",))
)
GENERATED_LOG: tuple[str, ...] = tuple(
    CONTEXTS[context](built.text) if context in CONTEXTS else built.text
    for built, context in zip(
        GENERATED,
        [context for shape in SHAPES for context in (CONTEXTS if shape.token else ("as-is",))],
        strict=True,
    )
)
GENERATED_VARIABLES: dict[str, str] = {f"GENERATED_{n}": built.text for n, built in enumerate(GENERATED[::2])}

#: What a helper needs, that must survive redaction (Markdown escapes are undone before looking).
KEPT = (
    "NVIDIA GeForce RTX 3060",
    "546.33",
    "2.13.0+cu121",
    "/usr/local/cuda-12.4",
    "CUDA_VISIBLE_DEVICES",
    "TOKENIZERS_PARALLELISM",
    "KEYBOARD_LAYOUT",
    "pypi.corp.example/simple",
    "gitlab.example/org/repo.git@main",
    "ModuleNotFoundError: No module named 'torch'",
)


def _lines(where: str) -> list[str]:
    return [row.text for row in PLANTED if row.where == where]


def _variables(where: str) -> dict[str, str]:
    return {row.name: row.text for row in PLANTED if row.where == where}


def _fake_interpreter(folder: Path) -> Path:
    """An "interpreter" that answers the env_report and package_versions probes (nothing else runs)."""
    log = "\n".join(
        [
            "Traceback (most recent call last):",
            '  File "train.py", line 3, in <module>',
            "ModuleNotFoundError: No module named 'torch'",
            "--- pip config (~/.config/pip/pip.conf) ---",
            "[global]",
            *(line.replace("\\n", "\n") for line in _lines("probe-log")),
            *GENERATED_LOG,
            "KEYBOARD_LAYOUT=us",
        ]
    )
    env_report = {
        "probe": "env_report", "python": "3.11.7", "framework": "pytorch", "ok": False, "phase": "import",
        "error": "ModuleNotFoundError: No module named 'torch'", "traceback": log, "warnings": _lines("probe-log"),
    }  # fmt: skip
    packages = {
        "probe": "package_versions",
        "ok": True,
        "packages": [{"name": "torch", "version": "2.13.0+cu121"}],
    }
    (folder / "env_report.json").write_text(json.dumps(env_report), encoding="utf-8")
    (folder / "packages.json").write_text(json.dumps(packages), encoding="utf-8")
    python = folder / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        "#!/bin/sh\n"
        f'case "$*" in *env_report*) cat "{folder / "env_report.json"}" ;; *) cat "{folder / "packages.json"}" ;; esac\n',
        encoding="utf-8",
    )
    python.chmod(0o755)
    return python


def _plant_state(home: Path, root: Path) -> None:
    """The wizard's own files: one environment with its variables, one live test with its findings."""
    folder = root / "envs" / "demo"
    folder.mkdir(parents=True)
    python = _fake_interpreter(folder)
    variables = {**_variables("env-variables"), **GENERATED_VARIABLES, "TOKENIZERS_PARALLELISM": "false"}
    record = {"name": "demo", "path": str(folder), "python": str(python), "manager": "venv",
              "framework": "pytorch", "framework_version": "2.13.0", "variables": variables}  # fmt: skip
    home.mkdir(parents=True, exist_ok=True)
    (home / "environments.json").write_text(
        json.dumps({"schema": "gpuwizard.environments/1", "environments": [record]}), encoding="utf-8"
    )
    findings = [
        {
            "code": "FRAMEWORK_NOT_IMPORTABLE",
            "severity": "error",
            "message": f"The log says: {line}",
            "hint": line,
        }
        for line in _lines("test-finding")
    ]
    result = {"event": "result", "verdict": "broken", "framework": "pytorch", "framework_version": None,
              "device": None, "samples_per_s": {"gpu": None, "cpu": None}, "speedup": None, "seconds": 1.0,
              "findings": findings}  # fmt: skip
    test = {"env": "demo", "python": str(python), "framework": "pytorch", "recorded": "2026-05-02T08:15:00+00:00",
            "short": False, "result": result}  # fmt: skip
    (home / "last-tests.json").write_text(
        json.dumps({"schema": "gpuwizard.last-tests/1", "tests": [test]}), encoding="utf-8"
    )


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The three reports of one machine full of credentials, by format."""
    root = tmp_path_factory.mktemp("report-redaction")
    home = root / "gpuwizard-home"
    _plant_state(home, root)
    env = {
        "GPUWIZARD_HOME": str(home),
        "CUDA_VISIBLE_DEVICES": "0",
        "CUDA_PATH": "/usr/local/cuda-12.4",
        # Secrets the report must hide or leave out, also under names it never lists.
        **_variables("environ"),
        **_variables("env-variables"),
    }
    written = {}
    for fmt in FORMATS:
        out = root / f"support.{fmt}"
        done = gpuwizard("report", "--out", str(out), "--system", str(RTX3060), env=env)
        assert done.returncode == 0, done.stdout + done.stderr
        assert not any(secret in done.stdout + done.stderr for row in PLANTED for secret in row.secrets)
        written[fmt] = out.read_text(encoding="utf-8")
    return written


def _as_read(fmt: str, text: str) -> str:
    """The text as a reader sees it: entities and Markdown escapes undone, JSON strings decoded."""
    if fmt == "json":
        strings: list[str] = []

        def walk(value: Any) -> None:
            if isinstance(value, str):
                strings.append(value)
            elif isinstance(value, dict):
                for key, item in value.items():
                    strings.append(str(key))
                    walk(item)
            elif isinstance(value, list):
                for item in value:
                    walk(item)

        walk(json.loads(text))
        return "\n".join(strings)
    if fmt == "md":
        text = re.sub(r"\\([\\`*_\[\]|~.)(+=#-])", r"\1", text)
    return html.unescape(text)


def _spellings(secret: str) -> set[str]:
    """A secret as each format may write it."""
    markdown = re.sub(r"([\\`*_\[\]|~])", r"\\\1", html.escape(secret, quote=False))
    return {secret, html.escape(secret), html.escape(secret, quote=False), json.dumps(secret)[1:-1], markdown}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("row", PLANTED, ids=[row.case for row in PLANTED])
def test_no_planted_credential_appears_in_any_format(reports: dict[str, str], row: Planted, fmt: str):
    written = reports[fmt]
    seen = _as_read(fmt, written)
    for secret in row.secrets:
        for spelling in _spellings(secret):
            assert spelling not in written, (row.case, fmt, spelling)
        assert secret not in seen, (row.case, fmt, secret)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("kept", KEPT)
def test_what_a_helper_needs_is_still_there(reports: dict[str, str], fmt: str, kept: str):
    assert kept in _as_read(fmt, reports[fmt]), (fmt, kept)


def test_the_json_report_counts_each_kind_of_credential(reports: dict[str, str]):
    counts = json.loads(reports["json"])["redaction"]["counts"]
    planted = Counter(row.kind for row in PLANTED)
    # Each row is replaced at least once (most twice or more: in the data and in the page's raw JSON).
    for kind, rows in planted.items():
        assert counts[kind] >= rows, (kind, counts)
    # Variables the report never lists (HF_TOKEN of the process) are left out, not counted.
    data = json.loads(reports["json"])
    assert data["variables"]["NVIDIA_APIKEY"] == "<redacted>"
    assert data["variables"]["PIP_INDEX_URL"] == "https://<credentials>@pypi.corp.example/simple"
    assert "HF_TOKEN" not in data["variables"]
    assert data["environments"][0]["variables"]["HF_TOKEN"] == "<redacted>"  # noqa: S105 - the placeholder
    assert data["environments"][0]["variables"]["TOKENIZERS_PARALLELISM"] == "false"


@pytest.mark.parametrize("fmt", FORMATS)
def test_each_format_says_what_it_replaced(reports: dict[str, str], fmt: str):
    seen = _as_read(fmt, reports[fmt])
    if fmt != "json":
        [replaced] = re.findall(r"Replaced before writing: [^\n<]*", seen)
        for kind in (
            "URL logins",
            "secrets? in URLs?",
            "credential variables",
            "access tokens",
            "private keys?",
        ):
            assert re.search(rf"\d+ {kind}", replaced), (fmt, replaced)
    for rule in ("User names and passwords in URLs are <credentials>",
                 "named like secrets", "Access tokens (nvapi-…, hf_…, ghp_…"):  # fmt: skip
        assert rule in seen, (fmt, rule)


def test_the_table_covers_every_kind_and_place():
    assert {row.kind for row in PLANTED} == {
        "url_credentials", "url_secret", "credential_variable", "access_token", "private_key"
    }  # fmt: skip
    assert {row.where for row in PLANTED} == {"environ", "env-variables", "probe-log", "test-finding"}
    assert len({row.case for row in PLANTED}) == len(PLANTED)


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_generated_secret_appears_in_any_format(reports: dict[str, str], fmt: str):
    written = reports[fmt]
    seen = _as_read(fmt, written)
    leaked = [
        (built.shape, built.secret)
        for built in GENERATED
        if built.secret in seen or any(spelling in written for spelling in _spellings(built.secret))
    ]
    assert not leaked
    assert {built.shape for built in GENERATED} == {shape.name for shape in SHAPES}


def test_redacting_the_report_again_changes_nothing(reports: dict[str, str]):
    # Everything but the note on redaction itself (its counts are fields named like "serial").
    data = {key: value for key, value in json.loads(reports["json"]).items() if key != "redaction"}
    again = redact(data, Identities())
    assert again.data == data
    assert not any(again.counts.values()), again.counts
