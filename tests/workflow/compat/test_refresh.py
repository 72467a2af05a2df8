"""Refreshing the compatibility data over real HTTPS on 127.0.0.1, with real signatures.

The wizard trusts a key made for each test (``GPUWIZARD_TEST_ONLY_COMPAT_KEYS``) and fetches over
https from 127.0.0.1, trusting a CA made for the test run (``REQUESTS_CA_BUNDLE``,
``harness.http_server``): it fetches nothing over plain http, not even from 127.0.0.1.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from builders.signed_bundles import (
    BAD_BUNDLES,
    NEW_VERSION,
    NEWER,
    Published,
    Signer,
    make_signer,
    newer_files,
    publish,
    signed,
    trusting,
)
from gpuwizard.adapters.http import DEFAULT_MAX_BYTES, HttpError, RequestsClient
from gpuwizard.workflow.compat.bundle import DEFAULT_COMPAT_URL
from gpuwizard.workflow.compat.data import bundled_date, data_in_use, load_compat
from gpuwizard.workflow.compat.refresh import BUNDLE_MAX_BYTES, refresh_compat
from gpuwizard.workflow.compat.releases import PYPI_MAX_BYTES
from gpuwizard.workflow.state.compat_cache import cache_dir
from harness.http_server import Site, serve, trust_test_ca

BUNDLED = f"using the bundled data of {bundled_date()}."


def unused_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture(autouse=True)
def _indexes(monkeypatch: pytest.MonkeyPatch) -> None:
    # Nothing leaves 127.0.0.1: the index addresses point at an unused local port by default,
    # and only the test CA is trusted.
    port = unused_port()
    monkeypatch.setenv("GPUWIZARD_PYPI_URL", f"https://127.0.0.1:{port}/pypi")
    monkeypatch.setenv("GPUWIZARD_TORCH_INDEX_URL", f"https://127.0.0.1:{port}/whl")
    monkeypatch.delenv("GPUWIZARD_COMPAT_URL", raising=False)
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)


@pytest.fixture
def signer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Signer:
    made = make_signer(tmp_path / "keys")
    for name, value in trusting(made).items():
        monkeypatch.setenv(name, value)
    return made


def client() -> RequestsClient:
    return RequestsClient(retries=2, backoff_s=0.01, timeout=2)


def use_site_indexes(site: Site, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GPUWIZARD_PYPI_URL", f"{site.url}/pypi")
    monkeypatch.setenv("GPUWIZARD_TORCH_INDEX_URL", f"{site.url}/whl")
    site.put("/pypi/torch/json", json.dumps({"info": {"version": "2.14.0"}}))
    site.put("/pypi/tensorflow/json", json.dumps({"info": {"version": "2.21.0"}}))


def refresh_from(published: Published) -> tuple[list[str], str]:
    with serve(tls=True) as site:
        url = publish(site, published)
        return refresh_compat(url, client()), url


def cache_bytes() -> dict[str, bytes]:
    """The cached bundle's files (the folder holds the package indexes' answers as well)."""
    names = ("bundle.json", "bundle.json.sig", "meta.json")
    return {name: (cache_dir() / name).read_bytes() for name in names if (cache_dir() / name).exists()}


def test_a_signed_newer_bundle_is_verified_cached_and_used(signer: Signer, monkeypatch: pytest.MonkeyPatch):
    with serve(tls=True) as site:
        use_site_indexes(site, monkeypatch)
        url = publish(site, signed(signer))
        notes = refresh_compat(url, client())
    assert notes[0] == f"Compatibility data refreshed: data of {NEWER} from {url}."
    assert sorted(cache_bytes()) == ["bundle.json", "bundle.json.sig", "meta.json"]
    compat = load_compat()
    assert compat.pytorch[0].latest == NEW_VERSION
    assert compat.origin.startswith(f"refreshed data of {NEWER} from {url}, fetched 0 min ago")
    in_use = data_in_use()
    assert (in_use.origin, in_use.generated, in_use.url) == ("fetched", NEWER, url)


@pytest.mark.parametrize("case", sorted(BAD_BUNDLES))
def test_a_bad_bundle_is_refused_and_the_bundled_data_kept(case: str, signer: Signer, tmp_path: Path):
    make, says = BAD_BUNDLES[case]
    notes, url = refresh_from(make(signer, tmp_path))
    assert notes[0].startswith(f"The compatibility data from {url} is refused: {says}"), notes[0]
    assert notes[0].endswith(BUNDLED)
    assert len(notes[0].splitlines()) == 1
    assert cache_bytes() == {}
    assert load_compat().origin == "bundled"
    assert data_in_use().origin == "bundled"


def test_a_refused_bundle_leaves_the_cached_copy_as_it_was(signer: Signer, tmp_path: Path):
    _, url = refresh_from(signed(signer))
    before = cache_bytes()
    notes, _ = refresh_from(BAD_BUNDLES["evil index"][0](signer, tmp_path))
    assert "is refused: it names a package index that is not allowed" in notes[0]
    assert notes[0].endswith(f"using the data of {NEWER} fetched from {url}.")
    assert cache_bytes() == before
    assert load_compat().pytorch[0].latest == NEW_VERSION


@pytest.mark.parametrize("through", ["option", "environment"])
def test_plain_http_is_refused_even_signed_and_matching(
    through: str, signer: Signer, monkeypatch: pytest.MonkeyPatch
):
    # The case: a bundle served over http with a matching .sha256 and even a valid
    # signature, from --compat-url or GPUWIZARD_COMPAT_URL. Nothing is fetched at all, not even
    # from 127.0.0.1, and the PyPI and PyTorch index overrides over http are refused as well.
    with serve() as site:
        url = publish(site, signed(signer))
        use_site_indexes(site, monkeypatch)
        if through == "environment":
            monkeypatch.setenv("GPUWIZARD_COMPAT_URL", url)
        notes = refresh_compat(url if through == "option" else None, client())
    assert notes[0] == (
        f"The compatibility data from {url} is refused: its URL is not https:// (data fetched any other way "
        f"can be changed on its way to this machine); {BUNDLED}"
    )
    assert notes[1].startswith(
        f"Could not ask PyPI about torch ({site.url}/pypi/torch/json: refused, not an https"
    )
    assert all(len(note.splitlines()) == 1 for note in notes)
    assert site.seen == []
    assert cache_bytes() == {}
    assert load_compat().origin == "bundled"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/compat/bundle.json",
        "http://[::1]/compat/bundle.json",
        "http://localhost/compat/bundle.json",
        "http://example.org/compat/bundle.json",
        "http://127.0.0.1.example.org/compat/bundle.json",
        "http://localhost@example.org/compat/bundle.json",
        "ftp://127.0.0.1/compat/bundle.json",
        "file:///etc/passwd",
        "https:///compat/bundle.json",
    ],
)
def test_every_url_but_https_is_refused(url: str, signer: Signer):
    notes = refresh_compat(url, client())
    assert notes[0].startswith(f"The compatibility data from {url} is refused: its URL is not https://")


def test_a_redirect_to_http_is_not_followed(signer: Signer):
    with serve() as plain, serve(tls=True) as site:
        target = publish(plain, signed(signer))
        site.put("/compat/bundle.json", b"", status=302, headers={"Location": target})
        url = f"{site.url}/compat/bundle.json"
        notes = refresh_compat(url, client())
    assert notes[0] == (
        f"Could not refresh the compatibility data ({url}: refused a redirect to {target}, not an https:// "
        f"URL (anything else can be changed on its way to this machine)); {BUNDLED}"
    )
    assert plain.seen == []
    assert cache_bytes() == {}


@pytest.mark.parametrize("chunked", [False, True])
def test_a_bundle_larger_than_its_limit_is_not_read(chunked: bool, signer: Signer):
    # Signed and matching, but larger than any bundle should be: refused before it is verified
    # (BUNDLE_MAX_BYTES is 1 MiB, about 9 times today's bundle).
    good = signed(signer, {**newer_files(), "padding": "x" * BUNDLE_MAX_BYTES})
    with serve(tls=True) as site:
        url = publish(site, good)
        if chunked:
            site.put("/compat/bundle.json", good.raw, chunk=1 << 16)
        notes = refresh_compat(url, client())
    declared = "" if chunked else f" (Content-Length {len(good.raw)})"
    assert notes[0] == (
        f"Could not refresh the compatibility data ({url}: answer larger than the 1 MiB allowed{declared}); "
        f"{BUNDLED}"
    )
    assert "/compat/bundle.json.sig" not in site.seen
    assert cache_bytes() == {}


def test_data_that_fails_its_schema_is_refused(signer: Signer):
    files = newer_files()
    del files["cuda"]["toolkit_drivers"][0]["source"]
    notes, _ = refresh_from(signed(signer, files))
    assert (
        "is refused: it is invalid (cuda.json: at toolkit_drivers/0: 'source' is a required property)"
        in notes[0]
    )
    assert cache_bytes() == {}


def test_data_that_is_not_newer_is_not_cached(signer: Signer):
    notes, _ = refresh_from(signed(signer, generated=bundled_date()))
    assert f"is refused: its data ({bundled_date()}) is not newer than the bundled data" in notes[0]
    assert cache_bytes() == {}


def test_an_older_bundle_does_not_replace_newer_cached_data(signer: Signer):
    # A replayed old bundle, signed and newer than the bundled data, must not roll the data back.
    _, url = refresh_from(signed(signer, generated="2099-06-01"))
    before = cache_bytes()
    notes, _ = refresh_from(signed(signer, generated="2099-01-01"))
    assert (
        f"is refused: its data (2099-01-01) is not newer than the data of 2099-06-01 fetched from {url}"
        in notes[0]
    )
    assert cache_bytes() == before


def test_the_same_bundle_again_is_up_to_date(signer: Signer):
    published = signed(signer)
    _, url = refresh_from(published)
    with serve(tls=True) as site:
        again = publish(site, published)
        notes = refresh_compat(again, client())
    assert notes[0] == f"The compatibility data is up to date: the data of {NEWER} fetched from {url}."


def test_offline_falls_back_to_the_bundled_data_with_a_note(signer: Signer):
    url = f"https://127.0.0.1:{unused_port()}/compat/bundle.json"  # nothing listens there
    notes = refresh_compat(url, client())
    assert notes[0].startswith("Could not refresh the compatibility data (")
    assert notes[0].endswith(BUNDLED)
    assert all(note.startswith("Could not ask PyPI") for note in notes[1:])
    assert load_compat().origin == "bundled"


class RecordingClient:
    """Answers nothing, as offline; records what was asked, and the size allowed."""

    def __init__(self) -> None:
        self.asked: list[str] = []
        self.allowed: dict[str, int] = {}

    def get(self, url: str, *, timeout: float | None = None, max_bytes: int = DEFAULT_MAX_BYTES) -> bytes:
        self.asked.append(url)
        self.allowed[url] = max_bytes
        raise HttpError(f"{url}: cannot connect (offline)")


def test_without_a_url_the_projects_published_data_is_asked():
    recording = RecordingClient()
    notes = refresh_compat(None, recording)
    assert DEFAULT_COMPAT_URL == "https://gpuwizard.github.io/gpuwizard/compat/v1/bundle.json"
    assert recording.asked[0] == DEFAULT_COMPAT_URL
    assert (
        notes[0]
        == f"Could not refresh the compatibility data ({DEFAULT_COMPAT_URL}: cannot connect (offline)); {BUNDLED}"
    )


def test_each_download_is_limited_to_its_own_size():
    recording = RecordingClient()
    refresh_compat("https://mirror.example/compat/bundle.json", recording)
    assert recording.allowed["https://mirror.example/compat/bundle.json"] == BUNDLE_MAX_BYTES == 1 << 20
    # Neither the sha256 nor the signature is asked for once the bundle could not be had.
    assert not any(url.endswith((".sha256", ".sig")) for url in recording.asked)
    pypi = [url for url in recording.asked if url.endswith("/json")]
    assert pypi and all(recording.allowed[url] == PYPI_MAX_BYTES == 16 << 20 for url in pypi)


def test_the_environment_variable_comes_before_the_default_and_the_option_before_both(
    monkeypatch: pytest.MonkeyPatch,
):
    monkeypatch.setenv("GPUWIZARD_COMPAT_URL", "https://mirror.example/compat/bundle.json")
    recording = RecordingClient()
    refresh_compat(None, recording)
    refresh_compat("https://option.example/bundle.json", recording)
    assert [url for url in recording.asked if url.endswith("bundle.json")] == [
        "https://mirror.example/compat/bundle.json",
        "https://option.example/bundle.json",
    ]


def test_a_server_that_does_not_answer_times_out():
    with serve(tls=True) as site:
        site.put("/slow", b"{}", delay_s=3)
        with pytest.raises(HttpError, match=r"no answer within 0\.5 s"):
            RequestsClient(retries=0, timeout=0.5).get(f"{site.url}/slow")


def test_transient_server_errors_are_retried():
    with serve(tls=True) as site:
        site.put("/flaky", b"fine", first=[503, 502])
        assert client().get(f"{site.url}/flaky") == b"fine"
        assert site.seen.count("/flaky") == 3


def test_the_indexes_are_asked_even_when_the_data_cannot_be_refreshed(monkeypatch: pytest.MonkeyPatch):
    # What the indexes answer is releases.py's to say (tests of its own); here only that they
    # are asked, after the data's note.
    monkeypatch.setenv("GPUWIZARD_COMPAT_URL", f"https://127.0.0.1:{unused_port()}/compat/bundle.json")
    with serve(tls=True) as site:
        use_site_indexes(site, monkeypatch)
        notes = refresh_compat(None, client())
    assert notes[0].startswith("Could not refresh the compatibility data (")
    assert len(notes) > 1
    assert "/pypi/torch/json" in site.seen


def cached_into_place(signer: Signer) -> None:
    refresh_from(signed(signer))
    assert load_compat().pytorch[0].latest == NEW_VERSION


def test_a_tampered_cache_is_ignored_even_with_its_sha256_made_to_match(signer: Signer):
    cached_into_place(signer)
    bundle, meta = cache_dir() / "bundle.json", cache_dir() / "meta.json"
    raw = bundle.read_bytes().replace(f'"latest": "{NEW_VERSION}"'.encode(), b'"latest": "9.2.0"', 1)
    bundle.write_bytes(raw)
    meta.write_text(json.dumps({**json.loads(meta.read_text()), "sha256": hashlib.sha256(raw).hexdigest()}))
    assert load_compat().origin == "bundled"
    assert data_in_use().origin == "bundled"


def test_a_cache_without_its_signature_is_ignored(signer: Signer):
    cached_into_place(signer)
    (cache_dir() / "bundle.json.sig").unlink()
    assert load_compat().origin == "bundled"


def test_a_cache_signed_by_a_key_no_longer_trusted_is_ignored(signer: Signer, tmp_path: Path):
    cached_into_place(signer)
    (signer.keys / "test.pub").unlink()
    make_signer(signer.keys)  # the key was rotated: a new one is trusted instead
    assert load_compat().origin == "bundled"


def test_the_cache_lives_under_gpuwizard_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("GPUWIZARD_HOME", str(tmp_path / "home"))
    assert cache_dir() == tmp_path / "home" / "cache" / "compat"


def test_cryptography_is_imported_only_when_a_bundle_is_verified(signer: Signer):
    # The frozen wizard under Wine 8.0 cannot load cryptography's newer Windows wheels
    # (installer/requirements-wine.txt): starting, and planning without a cached bundle, must
    # not import it. With a cached bundle, loading it verifies the signature, and imports it.
    code = (
        "import sys\nfrom gpuwizard.cli.main import build_parser\nfrom gpuwizard.workflow.compat.data import load_compat\n"
        "build_parser(); load_compat()\nprint('cryptography' in sys.modules)"
    )

    def imports_it() -> bool:
        done = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
        )
        return done.stdout.strip() == "True"

    assert not imports_it()
    cached_into_place(signer)
    assert imports_it()


@pytest.mark.parametrize(
    "generated",
    [
        "2027-1-5",
        "2027/01/05",
        "05.01.2027",
        "20270105",
        "2027-02-30",
        "2027-01-05T12:00:00",
        "2027-01-05 12:00Z",
        "",
    ],
)
def test_a_date_that_is_not_an_iso_8601_date_is_refused_with_the_reason(generated: str, signer: Signer):
    notes, url = refresh_from(signed(signer, generated=generated))
    assert notes[0].startswith(
        f"The compatibility data from {url} is refused: its date {generated!r} is not "
    )
    assert notes[0].endswith(BUNDLED)
    assert cache_bytes() == {}


def test_a_malformed_date_never_blocks_a_newer_bundle(signer: Signer):
    # As text "2027-1-5" sorts after "2027-01-10": once cached, it refused every newer bundle.
    refused, _ = refresh_from(signed(signer, generated="2027-1-5"))
    assert "is refused: its date '2027-1-5' is not an ISO 8601 date" in refused[0]
    notes, url = refresh_from(signed(signer, generated="2027-01-10"))
    assert notes[0] == f"Compatibility data refreshed: data of 2027-01-10 from {url}."
    assert data_in_use().generated == "2027-01-10"


def test_dates_and_timestamps_are_compared_as_moments_not_as_text(signer: Signer):
    # 23:00 at UTC-5 on the 1st is 04:00 UTC on the 2nd: the 2nd (its start, UTC) is older.
    _, first = refresh_from(signed(signer, generated="2099-01-01T23:00:00-05:00"))
    notes, _ = refresh_from(signed(signer, generated="2099-01-02"))
    assert (
        f"is refused: its data (2099-01-02) is not newer than the data of 2099-01-01T23:00:00-05:00 fetched from {first}"
        in notes[0]
    )
    later, url = refresh_from(signed(signer, generated="2099-01-02T05:00:00Z"))
    assert later[0] == f"Compatibility data refreshed: data of 2099-01-02T05:00:00Z from {url}."
    assert load_compat().pytorch[0].latest == NEW_VERSION
