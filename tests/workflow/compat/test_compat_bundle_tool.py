"""``tools/compat_bundle.py``, the publisher's tool, run as the workflow runs it: keygen, build, sign, verify."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.workflow.compat.signing import TEST_ONLY_KEYS_ENV, read_keys, trusted_keys

ROOT = Path(__file__).resolve().parents[3]
TOOL = ROOT / "tools" / "compat_bundle.py"


def tool(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOL), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
        check=False,
    )


@pytest.fixture
def keys(tmp_path: Path) -> tuple[Path, Path]:
    """A key pair made by the tool: (private key file, folder of the public key)."""
    private, public = tmp_path / "secret" / "signing.b64", tmp_path / "keys" / "test.pub"
    done = tool("keygen", "--private", private, "--public", public)
    assert done.returncode == 0, done.stderr
    return private, public.parent


def built(tmp_path: Path) -> Path:
    out = tmp_path / "site" / "compat" / "v1"
    done = tool("build", "--data", ROOT / "resources" / "compat", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def test_keygen_build_sign_verify_round_trip(tmp_path: Path, keys: tuple[Path, Path]):
    private, public_keys = keys
    assert stat.S_IMODE(private.stat().st_mode) == 0o600
    out = built(tmp_path)
    assert sorted(path.name for path in out.iterdir()) == ["bundle.json", "bundle.json.sha256"]
    raw = (out / "bundle.json").read_bytes()
    sources = json.loads((ROOT / "resources" / "compat" / "sources.json").read_text())
    assert json.loads(raw)["generated"] == sources["generated"]
    # sha256sum's format: `sha256sum -c bundle.json.sha256` checks it.
    assert (out / "bundle.json.sha256").read_text() == f"{hashlib.sha256(raw).hexdigest()}  bundle.json\n"

    signed = tool("sign", "--key", private, out)
    assert signed.returncode == 0, signed.stderr
    verified = tool("verify", out, "--keys", public_keys)
    assert verified.returncode == 0, verified.stderr
    assert f"data of {sources['generated']}, signed with test.pub" in verified.stdout


def test_sign_reads_the_key_from_the_environment_with_key_dash(tmp_path: Path, keys: tuple[Path, Path]):
    private, public_keys = keys
    out = built(tmp_path)
    assert tool("sign", "--key", "-", out, env={"COMPAT_SIGNING_KEY": ""}).returncode == 1
    done = tool("sign", "--key", "-", out, env={"COMPAT_SIGNING_KEY": private.read_text()})
    assert done.returncode == 0, done.stderr
    assert tool("verify", out, "--keys", public_keys).returncode == 0


def test_verify_exits_1_on_a_tampered_bundle(tmp_path: Path, keys: tuple[Path, Path]):
    private, public_keys = keys
    out = built(tmp_path)
    assert tool("sign", "--key", private, out).returncode == 0
    bundle = out / "bundle.json"
    raw = bytearray(bundle.read_bytes())
    at = raw.index(b'"generated": "') + len(b'"generated": "')
    raw[at] = ord("3") if raw[at] != ord("3") else ord("4")  # one byte: the date's first digit
    bundle.write_bytes(bytes(raw))
    (out / "bundle.json.sha256").write_text(f"{hashlib.sha256(raw).hexdigest()}  bundle.json\n")
    done = tool("verify", out, "--keys", public_keys)
    assert done.returncode == 1
    assert "refused: its signature does not verify" in done.stderr


def test_verify_exits_1_without_a_signature_or_with_another_key(tmp_path: Path, keys: tuple[Path, Path]):
    private, public_keys = keys
    out = built(tmp_path)
    done = tool("verify", out, "--keys", public_keys)
    assert done.returncode == 1 and "bundle.json.sig" in done.stderr
    assert tool("sign", "--key", private, out).returncode == 0
    # The shipped keys do not know the test's key.
    env = {TEST_ONLY_KEYS_ENV: ""}
    assert tool("verify", out, env=env).returncode == 1


def test_build_refuses_data_naming_another_index(tmp_path: Path):
    data = tmp_path / "data"
    data.mkdir()
    for source in (ROOT / "resources" / "compat").glob("*.json"):
        (data / source.name).write_bytes(source.read_bytes())
    pytorch = json.loads((data / "pytorch.json").read_text())
    pytorch["index_url"] = "https://evil.example/whl/{variant}"
    (data / "pytorch.json").write_text(json.dumps(pytorch))
    done = tool("build", "--data", data, "--out", tmp_path / "out")
    assert done.returncode == 1
    assert "https://evil.example/whl/{variant} is not allowed" in done.stderr
    assert not (tmp_path / "out" / "bundle.json").exists()


@pytest.mark.parametrize(
    ("generated", "said"),
    [
        ("2027-1-5", "at generated: '2027-1-5' does not match"),
        # The right form, but no day of the calendar: the wizard would refuse the bundle.
        ("2027-02-30", "is not a day of the calendar"),
    ],
)
def test_build_refuses_data_whose_date_is_not_an_iso_8601_date(tmp_path: Path, generated: str, said: str):
    # The bundle is dated with sources.json's `generated` (resources/schemas/compat-sources.schema.json).
    data = tmp_path / "data"
    data.mkdir()
    for source in (ROOT / "resources" / "compat").glob("*.json"):
        (data / source.name).write_bytes(source.read_bytes())
    sources = json.loads((data / "sources.json").read_text())
    sources["generated"] = generated
    (data / "sources.json").write_text(json.dumps(sources))
    done = tool("build", "--data", data, "--out", tmp_path / "out")
    assert done.returncode == 1
    assert "not built: sources.json:" in done.stderr
    assert said in done.stderr
    assert not (tmp_path / "out" / "bundle.json").exists()


def test_keygen_never_overwrites_a_private_key(keys: tuple[Path, Path]):
    private, public_keys = keys
    before = private.read_bytes()
    done = tool("keygen", "--private", private, "--public", public_keys / "other.pub")
    assert done.returncode == 1 and "not overwritten" in done.stderr
    assert private.read_bytes() == before


def test_the_wizard_ships_at_least_one_public_key(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv(TEST_ONLY_KEYS_ENV, raising=False)
    shipped = read_keys(resources.files("gpuwizard.resources").joinpath("compat/keys"))
    assert shipped and all(len(key) == 32 for key in shipped.values())
    assert trusted_keys() == shipped
    pub_files = sorted(path.name for path in (ROOT / "resources" / "compat" / "keys").glob("*"))
    assert set(shipped) == {name for name in pub_files if name.endswith(".pub")}
