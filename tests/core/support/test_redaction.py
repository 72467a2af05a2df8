"""Redaction of support reports: examples for every rule, and properties checked by hypothesis."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from gpuwizard.core.support.credentials import is_secret_name
from gpuwizard.core.support.redaction import (
    GENERIC_ACCOUNTS,
    KINDS,
    Identities,
    identities_in,
    merged,
    redact,
    redact_text,
    rules_of,
)
from gpuwizard.core.support.view import support_view
from harness.hypothesis_examples import examples

ANA = Identities(
    user_names=("ana",),
    home_folders=("/home/ana", "C:\\Users\\Ana"),
    host_names=("ana-laptop", "ana-laptop.example.org"),
)
UUID = "GPU-8f6c1a2b-4d3e-11ee-be56-0242ac120002"
OTHER_UUID = "GPU-00000000-1111-2222-3333-444455556666"
UUID_PATTERN = re.compile(r"(?:GPU|MIG)-[0-9a-f]{8}", re.IGNORECASE)


def text(value: str, who: Identities = ANA) -> str:
    return redact_text(value, who).text


# --- home folders ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("/home/ana/envs/demo/bin/python", "~/envs/demo/bin/python"),
        ("/home/ana", "~"),
        ("PATH=/usr/bin:/home/ana/.local/bin:/bin", "PATH=/usr/bin:~/.local/bin:/bin"),
        ("file:///home/ana/report.html", "file://~/report.html"),
        ("'/home/ana/x'", "'~/x'"),
        ("C:\\Users\\Ana\\envs\\demo", "%USERPROFILE%\\envs\\demo"),
        ("c:\\users\\ANA\\x", "%USERPROFILE%\\x"),  # Windows compares paths without case
        ("C:/Users/Ana/x", "%USERPROFILE%/x"),
        ("C:\\\\Users\\\\Ana\\\\x", "%USERPROFILE%\\\\x"),  # a Python repr doubles backslashes
        ("file:///C:/Users/Ana/x", "file:///%USERPROFILE%/x"),
        ("%SystemRoot%;C:\\Users\\Ana;D:\\tools", "%SystemRoot%;%USERPROFILE%;D:\\tools"),
    ],
)
def test_home_folders_become_tilde_or_userprofile(before: str, after: str):
    assert text(before) == after


def test_a_home_with_a_space_is_hidden_whole_also_percent_encoded_in_a_url():
    who = Identities(user_names=("Ana Maria",), home_folders=("C:\\Users\\Ana Maria",))
    assert text("C:\\Users\\Ana Maria\\x", who) == "%USERPROFILE%\\x"
    assert text("file:///C:/Users/Ana%20Maria/x", who) == "file:///%USERPROFILE%/x"
    assert text("D:\\Backup\\Ana Maria\\x", who) == "D:\\Backup\\<user>\\x"


def test_a_longer_folder_that_starts_like_the_home_is_not_the_home():
    assert text("/home/anabel/x") == "/home/anabel/x"
    assert text("C:\\Users\\Anabel\\x") == "C:\\Users\\Anabel\\x"
    # Not at the start of a path: not the home, but the user's name is still a folder name there.
    assert text("/srv/home/ana/x") == "/srv/home/<user>/x"


# --- user and host names --------------------------------------------------------------------


def test_the_user_name_goes_as_a_folder_name_and_as_a_word():
    assert text("/mnt/c/Users/ana/x") == "/mnt/c/Users/<user>/x"
    assert text("D:\\data\\ANA\\x") == "D:\\data\\<user>\\x"
    assert text("made by ana on monday") == "made by <user> on monday"
    assert text("USER=ana") == "USER=<user>"
    # inside another word it stays: "banana", "analysis"
    assert text("banana analysis") == "banana analysis"


@pytest.mark.parametrize("short", ["a", "Al"])
def test_a_short_user_name_is_hidden_only_as_a_folder_name(short: str):
    who = Identities(user_names=(short,))
    sentence = f"{short} GPU named data, a cat and Al's laptop"
    assert text(sentence, who) == sentence
    assert text(f"/tmp/{short}/x and C:\\{short}\\y", who) == "/tmp/<user>/x and C:\\<user>\\y"


def test_a_generic_account_name_is_not_hidden_in_sentences():
    who = Identities(user_names=("root",), home_folders=("/root",))
    assert "root" in GENERIC_ACCOUNTS
    assert text("the root of the toolkit; /root/envs/x", who) == "the root of the toolkit; ~/envs/x"


def test_the_host_name_is_hidden_before_the_user_name_inside_it():
    assert text("ssh ana-laptop") == "ssh <host>"
    assert text("ANA-LAPTOP.example.org") == "<host>"


# --- UUIDs, serial numbers, URL credentials -------------------------------------------------


def test_gpu_uuids_are_numbered_the_same_uuid_alike():
    redacted = text(f"{UUID},{OTHER_UUID} and again {UUID.upper()}")
    assert redacted == "GPU-<uuid-1>,GPU-<uuid-2> and again GPU-<uuid-1>"


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("CUDA_VISIBLE_DEVICES=GPU-8f6c1a2b", "CUDA_VISIBLE_DEVICES=GPU-<uuid-1>"),  # a leading part
        ("MIG-8f6c1a2b-4d3e-11ee-be56-0242ac120002", "MIG-<uuid-1>"),  # R470 and later
        ("MIG-GPU-8f6c1a2b-4d3e-11ee-be56-0242ac120002/1/0", "MIG-<uuid-1>"),  # before R470
        ("GPU-accelerated GPU-decade GPU-deadbeef1", "GPU-accelerated GPU-decade GPU-deadbeef1"),
    ],
)
def test_uuid_forms(before: str, after: str):
    assert text(before) == after


def test_serial_numbers_in_fields_and_in_text():
    data = {"gpus": [{"name": "A100", "serial": "1324020012345", "board_serial_number": 77}]}
    result = redact(data, ANA)
    assert result.data == {
        "gpus": [{"name": "A100", "serial": "<serial>", "board_serial_number": "<serial>"}]
    }
    assert result.counts["serial_number"] == 2
    assert text("    Serial Number                         : 1324020012345") == (
        "    Serial Number                         : <serial>"
    )
    assert text("serial: N/A") == "serial: N/A"


def test_uuid_fields_lose_their_value_whatever_it_looks_like():
    result = redact({"uuid": "not-a-uuid", "gpu_uuid": UUID}, Identities())
    assert result.data == {"uuid": "GPU-<uuid-1>", "gpu_uuid": "GPU-<uuid-2>"}


def test_logins_in_urls():
    assert text("--index-url https://ana:s3cret@pypi.example/simple") == (
        "--index-url https://<credentials>@pypi.example/simple"
    )
    assert text("https://pypi.org/simple") == "https://pypi.org/simple"


# --- credentials: URL logins (RFC 3986 §3.2.1 userinfo, whatever it holds) ---------------------


def counted(value: str) -> tuple[str, dict[str, int]]:
    result = redact_text(value, ANA)
    return result.text, {kind: count for kind, count in result.counts.items() if count}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("https://u3:AtPa@ss77@host3/simple", "https://<credentials>@host3/simple"),  # "@" in the password
        ("https://u:pa/ss@pypi.example/simple", "https://<credentials>@pypi.example/simple"),  # "/"
        ("https://u:pa/ss@host3/simple", "https://<credentials>@host3/simple"),  # "/", a one-label host
        ("https://u:p%40ss%2Fw@pypi.example/simple", "https://<credentials>@pypi.example/simple"),  # %-encoded
        ("https://u:p:a:ss@pypi.example/simple", "https://<credentials>@pypi.example/simple"),  # ":"
        ("https://a@b@c:d@e@pypi.example/simple", "https://<credentials>@pypi.example/simple"),  # several "@"
        ("https://u:p@ss/w0rd@pypi.example/x", "https://<credentials>@pypi.example/x"),  # "@" then "/"
        ("https://tok/en+=@devpi:3141/simple", "https://<credentials>@devpi:3141/simple"),  # a base64 token
        ("https://token@host3", "https://<credentials>@host3"),
        ("git+https://oauth2:t0k@gitlab.example/org/repo.git@v1.2", "git+https://<credentials>@gitlab.example/org/repo.git@v1.2"),
        ("ssh://git@github.com/org/repo", "ssh://<credentials>@github.com/org/repo"),
        ("HTTPS_PROXY=http://u:p@[::1]:3128", "HTTPS_PROXY=http://<credentials>@[::1]:3128"),
        ("index-url = HTTPS://u:p@10.0.0.1/simple\nx", "index-url = HTTPS://<credentials>@10.0.0.1/simple\nx"),
        ("'https://u:p@ss@pypi.example/simple'", "'https://<credentials>@pypi.example/simple'"),
    ],
)  # fmt: skip
def test_the_whole_userinfo_of_a_url_goes_whatever_it_holds(before: str, after: str):
    assert counted(before) == (after, {"url_credentials": 1})


def test_every_url_of_a_line_loses_its_login():
    line = "--index-url https://ana:s3cret@pypi.example/simple --extra-index-url https://b:c/d@e.example/x"
    assert counted(line) == (
        "--index-url https://<credentials>@pypi.example/simple --extra-index-url https://<credentials>@e.example/x",
        {"url_credentials": 2},
    )


@pytest.mark.parametrize(
    "kept",
    [
        "https://pypi.org/simple",
        "https://download.pytorch.org/whl/cu121 https://pypi.org/simple",
        "git+https://github.com/org/repo.git@v1.2#egg=x",  # pip's VCS revisions are no logins
        "git+https://github.com/org/repo.git@main",
        "https://host:8080/a@b/",
        "git@github.com:org/repo.git",
        "mail bo.b@example.org",
    ],
)
def test_urls_without_a_login_stay(kept: str):
    assert counted(kept) == (kept, {})


# --- credentials: variables and settings named like secrets ----------------------------------------

SECRET_NAMES = (
    "NVIDIA_APIKEY", "HF_TOKEN", "GITHUB_TOKEN", "MY_PASS", "HTTP_AUTHORIZATION", "X_AUTH_HEADER",
    "AWS_SECRET_ACCESS_KEY", "API_KEY", "KEY", "SSH_KEY", "PRIVATE_KEY", "DB_PASSWORD", "PASSWD", "DB_PWD",
    "SESSION_COOKIE", "GOOGLE_APPLICATION_CREDENTIALS", "apiKey", "accessToken", "X-Api-Key", "ACCESSTOKEN",
    "spring.datasource.password", "HUGGINGFACEHUB_API_TOKEN", "OAUTH_CLIENT_SECRET", "PRIVATE-TOKEN",
    "HTTPAuthorization", "api_key", "Set-Cookie", "SESSION_ID", "NGC_API_KEY", "passphrase",
)  # fmt: skip
NOT_SECRET_NAMES = (
    "PIP_INDEX_URL", "CUDA_VISIBLE_DEVICES", "KEYBOARD_LAYOUT", "MONKEY", "HOTKEY", "TOKENIZERS_PARALLELISM",
    "PWD", "OLDPWD", "KeyError", "AuthenticationError", "AUTHOR", "PASSTHROUGH", "BYPASS", "COMPASS",
    "SECRETARY", "CUDA_HOME", "LD_LIBRARY_PATH", "keyboard", "monkeyPatch",
)  # fmt: skip


@pytest.mark.parametrize("name", SECRET_NAMES)
def test_a_variable_named_like_a_secret_loses_its_value_in_text_and_in_data(name: str):
    assert is_secret_name(name)
    assert counted(f"{name}=Zx9-value") == (f"{name}=<redacted>", {"credential_variable": 1})
    result = redact({"variables": {name: "Zx9-value", "CUDA_VISIBLE_DEVICES": "0"}}, ANA)
    assert result.data == {"variables": {name: "<redacted>", "CUDA_VISIBLE_DEVICES": "0"}}
    assert result.counts["credential_variable"] == 1


@pytest.mark.parametrize("name", NOT_SECRET_NAMES)
def test_other_variables_keep_their_value(name: str):
    assert not is_secret_name(name)
    assert counted(f"{name}=Zx9-value") == (f"{name}=Zx9-value", {})
    assert redact({"variables": {name: "Zx9-value"}}, ANA).data == {"variables": {name: "Zx9-value"}}


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("export HF_TOKEN='abc def' # note", "export HF_TOKEN='<redacted>' # note"),
        ('{"api_key": "xyz", "device": "cuda:0"}', '{"api_key": "<redacted>", "device": "cuda:0"}'),
        ("[global]\npassword = my pass phrase  \ntimeout = 60", "[global]\npassword = <redacted>  \ntimeout = 60"),
        ("Authorization: Bearer abc.def", "Authorization: <redacted>"),
        ("curl -H 'X-Auth-Token: abc123' https://x.example", "curl -H 'X-Auth-Token: <redacted>' https://x.example"),
        ('$env:MY_PASS = "pw"', '$env:MY_PASS = "<redacted>"'),
        ("set DB_PWD=pw&1 && run", "set DB_PWD=<redacted>"),  # the rest of the line goes too
        ("environ({'HF_TOKEN': 'x', 'HOME': '/home/ana'})", "environ({'HF_TOKEN': '<redacted>', 'HOME': '~'})"),
        ("ValueError: invalid token: abc123", "ValueError: invalid token: <redacted>"),
        ("pass: hunter2", "pass: <redacted>"),
    ],
)  # fmt: skip
def test_secret_settings_in_logs_and_config_files(before: str, after: str):
    assert redact_text(before, ANA).text == after


@pytest.mark.parametrize(
    "kept",
    [
        "KeyError: 'HF_TOKEN'",
        "if token == expected: return",
        "Nothing to do while the other checks pass: a newer driver runs every build an older one ran.",
        "KEYBOARD_LAYOUT=us MONKEY=1 TOKENIZERS_PARALLELISM=false",
        "CUDA_VISIBLE_DEVICES=0,1 PWD=/srv/x",
        "torch 2.13.0+cu121 at /usr/local/cuda-12.4/bin, driver 546.33",
        "Basic usage: see the Bearer tokens section",
        "scikit-learn-intelex task-something-very-long-name sk-learn",
        "hf_hub_download(repo_id) and ghp_short",
        "nvidia-cublas-cu12==12.4.5.8",
        "HF_TOKEN=",
        "the registry key HKCU\\Environment",
    ],
)
def test_ordinary_report_text_is_not_mistaken_for_a_secret(kept: str):
    assert counted(kept) == (kept, {})


def test_a_field_named_like_a_secret_hides_numbers_and_lists_not_flags():
    data = {"auth": {"user": "bo", "password": 1234, "private": True}, "tokens": ["a", "b"], "key": None}
    result = redact(data, ANA)
    assert result.data == {
        "auth": {"user": "bo", "password": "<redacted>", "private": True},
        "tokens": ["<redacted>", "<redacted>"],
        "key": None,
    }
    assert result.counts["credential_variable"] == 3


# --- credentials: access tokens by their form ----------------------------------------------------------

TOKENS = {
    "nvidia-ngc": "nvapi-" + "Zq8vK2mN4pR7sT1wX3yB5cD6eF9gH0jL" * 2,
    "hugging-face": "hf_QwErTyUiOpAsDfGhJkLzXcVbNm12345678",
    "github-classic": "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github-oauth": "gho_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github-user-to-server": "ghu_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github-server-to-server": "ghs_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github-refresh": "ghr_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8",
    "github-fine-grained": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyzABCDEFGH",
    "gitlab": "glpat-xY9zW8vU7tS6rQ5pO4nM",
    "openai": "sk-T3BlbkFJ9aB8cD7eF6gH5iJ4kL3mN2oP1qR0sT9",
    "openai-project": "sk-proj-T3BlbkFJ9aB8cD7eF6gH5iJ4kL3mN2oP1qR0",
    "slack-bot": "xoxb-2468013579-1357924680-QwErTyUiOpAs",
    "slack-user": "xoxp-2468013579-1357924680-QwErTyUiOpAs",
    "aws-access-key-id": "AKIAZ7Q3M9X2C5V8B1N4",
    "aws-temporary-key-id": "ASIAZ7Q3M9X2C5V8B1N4",
    "jwt": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJjaS1ib3QifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6y",
}


@pytest.mark.parametrize("token", TOKENS.values(), ids=TOKENS.keys())
def test_an_access_token_goes_wherever_it_is(token: str):
    assert counted(f"login failed for {token}, retrying") == (
        "login failed for <token>, retrying",
        {"access_token": 1},
    )
    assert counted(f"({token})") == ("(<token>)", {"access_token": 1})


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("curl -H Bearer abcDEF123ghiJKL", "curl -H Bearer <token>"),
        ("proxy wants Basic dXNlcjpwYXNzMTIz", "proxy wants Basic <token>"),
        ("bearer 0123456789abcdef", "bearer <token>"),
    ],
)
def test_bearer_and_basic_credentials(before: str, after: str):
    assert counted(before) == (after, {"access_token": 1})


# --- credentials: counted by kind, said in the rules, never twice ------------------------------------


def test_each_kind_of_credential_is_counted_and_said():
    data = {
        "variables": {"PIP_INDEX_URL": "https://u:p@ss@pypi.example/simple", "NVIDIA_APIKEY": "nvapi-x"},
        "log": f"HF_TOKEN=x\nused {TOKENS['github-classic']}",
    }
    result = redact(data, Identities())
    assert {
        kind: result.counts[kind] for kind in ("url_credentials", "credential_variable", "access_token")
    } == {
        "url_credentials": 1,
        "credential_variable": 2,
        "access_token": 1,
    }
    assert set(KINDS) == set(result.counts)
    rules = " ".join(rules_of(Identities()))
    assert "<credentials>" in rules and "<redacted>" in rules and "<token>" in rules
    view = support_view({"redaction": {"rules": list(result.rules), "counts": dict(result.counts)}})
    assert view.redaction[0] == (
        "Replaced before writing: 1 URL login, 2 credential variables, 1 access token."
    )
    again = redact(result.data, Identities())
    assert again.data == result.data and not any(again.counts.values())


_PASSWORD_CHARS = "abcXYZ019@/%:+!$&'()*,;=~._-?#"  # noqa: S105 - an alphabet


@st.composite
def _url_with_a_login(draw: st.DrawFn) -> tuple[str, str, str]:
    """Something before a URL, the URL with a user and password, and the URL as it must read after."""
    scheme = draw(st.sampled_from(["https", "http", "git+https", "ssh", "svn+ssh"]))
    user = draw(st.text(alphabet="abcdefgh0123456789-._", min_size=1, max_size=10))
    password = draw(st.text(alphabet=_PASSWORD_CHARS, max_size=20))
    # "://" inside the login (a password that starts with "//" after "user:") reads as a URL of
    # its own there: no redactor can tell it from one, so it is left out.
    assume("://" not in f"{user}:{password}")
    host = draw(
        st.sampled_from(["pypi.example", "pypi.corp.example.com", "10.1.2.3", "devpi:3141", "[::1]:8080"])
    )
    path = draw(st.sampled_from(["/simple", "/", "", "/org/repo.git@main", "/x?y=1"]))
    before = draw(st.sampled_from(["", " ", "PIP_INDEX_URL=", "index-url = ", "'", "(", "--index-url "]))
    return before, f"{scheme}://{user}:{password}@{host}{path}", f"{scheme}://<credentials>@{host}{path}"


@settings(max_examples=examples(300), deadline=None)
@given(_url_with_a_login())
def test_no_url_password_survives(case: tuple[str, str, str]):
    before, url, after = case
    redacted = redact_text(f"{before}{url} done", Identities()).text
    assert f"{after} done" in redacted, (url, redacted)


# Fragments of every rule's text: what starts, separates and ends each one, placeholders, and
# the identities, so that generated text puts rules next to, inside and around each other.
_CREDENTIAL_FRAGMENTS = st.sampled_from(
    ["https://", "http://", "sb://", "file:///", "u:p@", "@", "/", ":", "=", ": ", " ", "  ", "\n", "\r", "\t",
     "'", '"', "TOKEN", "_KEY", "key", "apiKey", "pass", "password", "passwd ", "MY_PASS", "private_key",
     "Authorization", "Bearer ", "basic ", "hf_", "nvapi-", "sk-", "sk-ant-", "pypi-", "npm_", "AIza", "xapp-1-",
     "sk_live_", "github_pat_", "QwErTyUiOpAsDfGhJkLz1234", "AKIAZ7Q3M9X2C5V8B1N4", "eyJhbGciOi.", "Zx9+/=abc",
     "host.example", "h.example:3128", "<redacted>", "<token>", "<credentials>", "<user>", "<host>", "<serial>",
     "x", "ana", "ana-laptop", "/home/ana", "C:\\Users\\Ana", "/mnt/c/Users/ana/", "~", "%USERPROFILE%", "?",
     "&", ";", "sig=", "X-Amz-Signature=", "AccountKey=", "SharedAccessSignature=", "sv=2022", "/t/",
     "tk-123-456", "machine ", "login ", "default ", "account ", "port ", "-----BEGIN PRIVATE KEY-----",
     "-----END PRIVATE KEY-----", "-----", "MIIEow", "--", "--password", "-u ", "-U ", "--user=", "--token=",
     "aws_secret_access_key ", "HF_TOKEN ", "setx ", "export ", "serial: ", "Serial Number", "GPU-8f6c1a2b",
     "GPU-deadbeef", "-4d3e", "MIG-", "/1/0", "KeyError", "a newer", "#", "==", "://", "\\n", "\\", "(", ")",
     ",", ".", "-", "_", "0", "A", "$", "%", "|", "[", "]", "{", "}", "*", "+", "!"]
)  # fmt: skip
_WHO = Identities(
    user_names=("ana",), home_folders=("/home/ana", "C:\\Users\\Ana"), host_names=("ana-laptop",)
)


@settings(max_examples=examples(500), deadline=None)
@given(st.lists(_CREDENTIAL_FRAGMENTS, max_size=30), st.text(max_size=20), st.booleans())
# Found by Hypothesis under CI: "pass:" read as prose (a colon, then more than one word) until
# TOKEN's value, the rest of the line, became a placeholder, after which it was a setting.
@example(["pass:", "TOKEN", ":", "https://", ": 0"], "", False)
# Found here: a rule that starts with "-" or "/" saw a user's name before it, then "<user>".
@example(["ana", "-u ", "https://"], "", True)
@example(["ana", "/home/ana"], "", True)
# Found here: a netrc/curl/option span kept and scanned alone ended a value early.
@example(["-u ", "X-Amz-Signature=", "https://", "-----BEGIN PRIVATE KEY-----"], "", False)
@example(["serial: ", "private_key", ":", "https://"], "", False)
# Found by an outside check: a token before ">" left the next secret to the second pass.
@example(["Bearer ", "yz012345", ">", "Auth:", "r"], "", False)
def test_redacting_credentials_twice_changes_nothing_more(fragments: list[str], noise: str, who: bool):
    identities = _WHO if who else Identities()
    once = redact_text("".join(fragments) + noise, identities)
    twice = redact_text(once.text, identities)
    assert twice.text == once.text
    assert not any(twice.counts.values()), twice.counts


# --- whole values -----------------------------------------------------------------------------


def test_every_string_and_key_of_a_value_is_redacted_and_the_input_is_kept():
    data = {
        "/home/ana/envs/x": {"python": "/home/ana/envs/x/bin/python", "n": 3, "ok": True, "none": None},
        "list": ["C:\\Users\\Ana\\y", UUID, 1.5],
    }
    before = copy.deepcopy(data)
    result = redact(data, ANA)
    assert data == before
    assert result.data == {
        "~/envs/x": {"python": "~/envs/x/bin/python", "n": 3, "ok": True, "none": None},
        "list": ["%USERPROFILE%\\y", "GPU-<uuid-1>", 1.5],
    }
    assert result.counts == {
        "gpu_uuid": 1,
        "serial_number": 0,
        "home_folder": 3,
        "user_name": 0,
        "host_name": 0,
        "url_credentials": 0,
        "url_secret": 0,
        "credential_variable": 0,
        "access_token": 0,
        "private_key": 0,
    }
    assert any("%USERPROFILE%" in rule for rule in result.rules)


def test_identities_in_finds_any_accounts_home():
    found = identities_in(
        {
            "python": "C:\\Users\\Bo Li\\AppData\\python.exe",
            "public": "C:\\Users\\Public\\x",
            "env": ["/home/cy/envs/x", "/Users/dee/x", "/mnt/c/Users/eve/x", "/srv/home/nope/x"],
        }
    )
    assert found.user_names == ("Bo Li", "cy", "dee", "eve")
    assert found.home_folders == ("C:\\Users\\Bo Li", "/home/cy", "/Users/dee", "/mnt/c/Users/eve")
    both = merged(ANA, found)
    assert both.user_names[:2] == ("ana", "Bo Li") and both.host_names == ANA.host_names


# --- properties -------------------------------------------------------------------------------

_PLACEHOLDER_WORDS = "<user> <host> <serial> <credentials> GPU-<uuid-1> MIG- %USERPROFILE% ~"
_names = st.text(
    alphabet="abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", min_size=3, max_size=12
)
_filler = st.sampled_from(
    ["envs", "bin", "python.exe", "x y", "ünï", "data", "CUDA", "v12.1", "a", ";", ":", " ", "\\", "/", "'"]
)
_hex = st.text(alphabet="0123456789abcdef", min_size=1, max_size=1)


@st.composite
def _identity_and_text(draw: st.DrawFn) -> tuple[str, Identities, str]:
    name = draw(_names)
    assume(name[0].isalnum() and name[-1].isalnum())
    assume(name.casefold() not in _PLACEHOLDER_WORDS.casefold() and name.casefold() not in GENERIC_ACCOUNTS)
    uuid = "GPU-" + "-".join("".join(draw(_hex) for _ in range(n)) for n in (8, 4, 4, 4, 12))
    homes = (f"/home/{name}", f"C:\\Users\\{name}")
    spellings = [
        f"/home/{name}", f"/home/{name}/envs/x", f"C:\\Users\\{name}", f"C:\\Users\\{name}\\AppData",
        f"c:/users/{name.upper()}/x", f"C:\\\\Users\\\\{name}\\\\x", f"file:///home/{name}/r.html",
        f"file:///C:/Users/{name}/r.html", f"/mnt/d/{name}", f"D:\\{name.lower()}\\x", f"by {name}.",
        uuid, uuid[:12],
    ]  # fmt: skip
    parts = draw(st.lists(st.one_of(st.sampled_from(spellings), _filler), min_size=1, max_size=14))
    separators = draw(
        st.lists(
            st.sampled_from([";", " ", ":", "\n", "'", '"', ","]), min_size=len(parts), max_size=len(parts)
        )
    )
    joined = "".join(part + separator for part, separator in zip(parts, separators, strict=True))
    return name, Identities(user_names=(name,), home_folders=homes), joined


@settings(max_examples=examples(300), deadline=None)
@given(_identity_and_text())
# Found by Hypothesis under CI: the user's name after a slash and before a colon read as a
# variable named like a secret, whose name was kept.
@example(
    (
        "SECRET",
        Identities(user_names=("SECRET",), home_folders=("/home/SECRET", "C:\\Users\\SECRET")),
        "/home/SECRET;/mnt/d/SECRET:envs;",
    )
)
def test_nothing_identifying_survives(case: tuple[str, Identities, str]):
    name, who, original = case
    redacted = text(original, who)
    # nowhere as a folder name or a word of its own (inside a longer word it may stay)
    word = re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", re.IGNORECASE)
    folder = re.compile(rf"[\\/]{re.escape(name)}(?=[\\/\s;:'\"]|$)", re.IGNORECASE)
    assert not word.search(redacted.replace("<user>", "")), redacted
    assert not folder.search(redacted), redacted
    assert not re.search(r"GPU-[0-9a-f]{8}", redacted), redacted


@settings(max_examples=examples(300), deadline=None)
@given(_identity_and_text(), st.text(max_size=40))
def test_redacting_twice_changes_nothing_more(case: tuple[str, Identities, str], noise: str):
    _name, who, original = case
    once = text(original + noise, who)
    assert text(once, who) == once


@settings(max_examples=examples(300), deadline=None)
@given(
    st.text(alphabet="abcdefgh", min_size=3, max_size=8),
    st.text(alphabet="xyz0123456789 /\\.;-_", max_size=60),
)
def test_text_without_any_identity_is_unchanged(name: str, original: str):
    # The text cannot hold the name (no letter of it), "GPU-", "serial", nor "scheme://".
    who = Identities(
        user_names=(name,), home_folders=(f"/home/{name}", f"C:\\Users\\{name}"), host_names=(name,)
    )
    result = redact_text(original, who)
    assert result.text == original
    assert not any(result.counts.values())


@settings(max_examples=examples(200), deadline=None)
@given(
    st.text(alphabet="ab", min_size=1, max_size=2),
    st.lists(st.sampled_from(["a", "b", "ab", "ba", "cab"]), max_size=8),
)
def test_a_short_name_never_changes_words(name: str, words: list[str]):
    sentence = " ".join(words)
    assert text(sentence, Identities(user_names=(name,))) == sentence


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("HTTPS_PROXY=user:p@ss@proxy.corp:3128", "HTTPS_PROXY=<credentials>@proxy.corp:3128"),
        ("proxy = alice:s3cr/t@10.0.0.1:8080", "proxy = <credentials>@10.0.0.1:8080"),
        ('"http_proxy": "bob:pa%40ss:x@proxy:3128"', '"http_proxy": "<credentials>@proxy:3128"'),
    ],
)
def test_proxy_logins_without_a_scheme_are_hidden(text: str, expected: str):
    redacted = redact_text(text, Identities())
    assert redacted.text == expected
    assert redacted.counts["url_credentials"] == 1


@pytest.mark.parametrize("text", ["git@github.com:org/repo", "torch 2.13.0+cu121 at host:1234", "a=b:c@d"])
def test_ssh_remotes_and_versions_are_not_proxy_logins(text: str):
    assert redact_text(text, Identities()).text == text


# --- credentials by structure: signed URLs, conda tokens, netrc, command lines, PEM ---------------

SAS = "AbCdEf%2Bghij123KLmn%3D"


@pytest.mark.parametrize(
    ("before", "after", "kind"),
    [
        # Azure SAS: the signature, in a variable, an option and a connection string
        (f"PIP_FIND_LINKS=https://acct.blob.core.windows.net/w?sv=2022-11-02&sp=r&sig={SAS}&se=2030",
         "PIP_FIND_LINKS=https://acct.blob.core.windows.net/w?sv=2022-11-02&sp=r&sig=<redacted>&se=2030", "url_secret"),
        (f"--extra-index-url https://acct.blob.core.windows.net/s?sig={SAS} torch",
         "--extra-index-url https://acct.blob.core.windows.net/s?sig=<redacted> torch", "url_secret"),
        (f"BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=sv=2022&sig={SAS}",
         "BlobEndpoint=https://a.blob.core.windows.net/;SharedAccessSignature=<redacted>&sig=<redacted>", "url_secret"),
        ("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=abc123+/==;EndpointSuffix=core.windows.net",
         "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=<redacted>;EndpointSuffix=core.windows.net",
         "url_secret"),
        # AWS and Google signed URLs
        ("https://b.s3.amazonaws.com/w.whl?X-Amz-Credential=AKIAZ7Q3%2F2026&X-Amz-Signature=0a1b2c3d",
         "https://b.s3.amazonaws.com/w.whl?X-Amz-Credential=<redacted>&X-Amz-Signature=<redacted>", "url_secret"),
        ("https://storage.googleapis.com/b/o?X-Goog-Signature=0a1b2c3d4e&alt=media",
         "https://storage.googleapis.com/b/o?X-Goog-Signature=<redacted>&alt=media", "url_secret"),
        ("https://api.example.com/x?access_token=abc123&limit=5", "https://api.example.com/x?access_token=<redacted>&limit=5",
         "url_secret"),
        # conda's /t/<token>/ (conda/common/url.py), with or without a login
        ("conda install -c https://conda.anaconda.org/t/ab-1234abcd-56ef/corp foo",
         "conda install -c https://conda.anaconda.org/t/<token>/corp foo", "url_secret"),
        ("https://repo.example/api/repo/t/tk-123-456/main", "https://repo.example/api/repo/t/<token>/main", "url_secret"),
        # netrc, on one line and on several; a password line
        ("machine pypi.corp login bob password Hunter2secret", "machine pypi.corp login bob password <redacted>",
         "credential_variable"),
        ("machine pypi.corp\n  login bob\n  password Hunter2secret\n", "machine pypi.corp\n  login bob\n  password <redacted>\n",
         "credential_variable"),
        ("default login anonymous password me@example.org", "default login anonymous password <redacted>",
         "credential_variable"),
        ("password Hunter2secret", "password <redacted>", "credential_variable"),
        # command lines
        ("aws configure set aws_secret_access_key wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
         "aws configure set aws_secret_access_key <redacted>", "credential_variable"),
        ("setx OPENAI_API_KEY \"not-in-the-token-table-9\"", "setx OPENAI_API_KEY \"<redacted>\"", "credential_variable"),
        ("twine upload --password s3cr3t-Pw dist/*", "twine upload --password <redacted> dist/*", "credential_variable"),
        ("tool --api-key=abc123 --verbose", "tool --api-key=<redacted> --verbose", "credential_variable"),
        ("curl -u bob:s3cretPw https://x.example", "curl -u bob:<redacted> https://x.example", "credential_variable"),
        # tokens by their documented prefix
        ("uploading with pypi-AgEIcHlwaS5vcmcCJDAwMDAwMDAwLTAwMDAtMDAwMC0wMDAwLTAwMDAwMDAwMDAwMAAC",
         "uploading with <token>", "access_token"),
        ("stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "stripe <token>", "access_token"),
        ("stripe rk_test_4eC39HqLyjWDarjtT1zdp7dc", "stripe <token>", "access_token"),
        ("maps AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY.", "maps <token>.", "access_token"),
        ("slack xapp-1-A0123456789-1234567890123-abcdef0123456789abcdef", "slack <token>", "access_token"),
        ("npm npm_abcdefghijklmnopqrstuvwxyz0123456789 ok", "npm <token> ok", "access_token"),
        ("key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWxYz0123", "key <token>", "access_token"),
        # PEM private keys: the body, up to END, or cut short
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx\nabcdef==\n-----END RSA PRIVATE KEY-----\nnext",
         "-----BEGIN RSA PRIVATE KEY-----<redacted>-----END RSA PRIVATE KEY-----\nnext", "private_key"),
        ("-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEA\n(cut)",
         "-----BEGIN OPENSSH PRIVATE KEY-----<redacted>(cut)", "private_key"),
        ("private_key = -----BEGIN PRIVATE KEY-----\nMIIEvQ\n-----END PRIVATE KEY-----",
         "private_key = -----BEGIN PRIVATE KEY-----<redacted>-----END PRIVATE KEY-----", "private_key"),
        # after a digit and ">" (HTML, a shell redirection): only GPU-<uuid-N> stops a rule there
        ("<h1>password=hunter2xyz", "<h1>password=<redacted>", "credential_variable"),
        ("exit 2>DB_PASSWORD: S3cretValue9", "exit 2>DB_PASSWORD: <redacted>", "credential_variable"),
        ("a 2>--password hunter2xyz", "a 2>--password <redacted>", "credential_variable"),
        ("1>ghp_0123456789abcdefghijABCDEFGHIJ012345", "1><token>", "access_token"),
        ("x9>https://u:pw77@host.example.com/", "x9>https://<credentials>@host.example.com/", "url_credentials"),
    ],
)  # fmt: skip
def test_secrets_found_by_their_structure(before: str, after: str, kind: str):
    result = redact_text(before, ANA)
    assert result.text == after
    assert result.counts[kind] >= 1
    assert redact_text(after, ANA).text == after


@pytest.mark.parametrize(
    "kept",
    [
        "Collecting torch==2.13.0+cu126 (from -r requirements.txt (line 1))",
        "torch-2.13.0+cu126-cp311-cp311-linux_x86_64.whl#sha256=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "pip install --require-hashes torch --hash=sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
        "/srv/t/data2019/run-1/x and C:\\t\\tk-123\\x",  # a folder named t is no conda token
        "HF_TOKEN is not set; set HF_TOKEN to a token from huggingface.co",
        "https://download.pytorch.org/whl/cu126/torch/?format=json&page=2",
        "https://discuss.pytorch.org/t/index-url-to-install-pytorch/198253 explains it",  # a forum topic
        "the machine has 2 GPUs; login to the machine first",
        "nvidia-cudnn-cu12==9.10.2.21 nvidia-cublas-cu12==12.6.4.1",
        "pypi-simple-mirror and sk-learn-extras, xoxo-gossip",
        "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----",
        "docker run -u 1000 image",
    ],
)
def test_report_text_that_holds_no_secret_is_kept(kept: str):
    result = redact_text(kept, Identities())
    assert (result.text, {kind: n for kind, n in result.counts.items() if n}) == (kept, {})
