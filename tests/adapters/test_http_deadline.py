"""Every request of adapters/http.py has a total deadline, against a real server that trickles.

A server that sends one byte at a time never trips a read timeout (each byte restarts it), so a
request to it ran for as long as the server liked: ``recommend --refresh`` past 120 s. The
servers here (``harness.http_server``, ``Answer.trickle_s``) trickle the whole answer, or only
its body, one byte every 0.2 s; an answer of that length takes minutes. Each test sets a deadline
of about a second and checks that the request ended with its one-line error while the server was
still trickling (``Answer.trickled`` unset: no clock is read), and that the connection was really
cut, not left running (``Answer.client_gone``).
"""

from __future__ import annotations

import json

import pytest

from gpuwizard.adapters.http import DEADLINE_VARIABLE, HttpError, RequestsClient, probe_index
from harness.entry_point import gpuwizard
from harness.http_server import Answer, Site, serve, trust_test_ca
from harness.waits import EVENT_S

#: One byte every 0.2 s: 600 bytes take two minutes, far past any deadline below; the headers
#: alone as long when they trickle too.
TRICKLE_S = 0.2
BODY = b"x" * 600
PADDING = {"X-Padding": "p" * 600}


@pytest.fixture(autouse=True)
def _trust_the_test_ca(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv(DEADLINE_VARIABLE, raising=False)


def trickle(site: Site, path: str, *, body_only: bool = False) -> Answer:
    site.put(path, BODY, trickle_s=TRICKLE_S, trickle_body_only=body_only, headers=PADDING)
    return site.answers[path]


def cut_off(answer: Answer) -> None:
    """The request ended before the server finished, and its connection was closed."""
    assert not answer.trickled.is_set(), "the request waited for the whole trickle"
    assert answer.client_gone.wait(EVENT_S), "the connection was left open"


@pytest.mark.parametrize("body_only", [False, True], ids=["headers", "body"])
@pytest.mark.parametrize("retries", [0, 2])
def test_a_trickling_answer_ends_at_the_deadline_with_one_line(body_only: bool, retries: int):
    with serve(tls=True) as site:
        answer = trickle(site, "/data", body_only=body_only)
        client = RequestsClient(retries=retries, timeout=5, deadline=1.0)
        with pytest.raises(HttpError) as raised:
            client.get(site.url + "/data")
        assert answer.trickling.is_set()
        cut_off(answer)
    assert str(raised.value) == f"{site.url}/data: no whole answer within 1 s"


def test_the_clients_budget_bounds_all_its_requests_together():
    with serve(tls=True) as site:
        first, second = trickle(site, "/one"), trickle(site, "/two")
        site.put("/three", b"never asked")
        client = RequestsClient(retries=0, timeout=5, deadline=1.0, budget=1.5)
        messages = []
        for path in ("/one", "/two", "/three"):
            with pytest.raises(HttpError) as raised:
                client.get(site.url + path)
            messages.append(str(raised.value))
        cut_off(first)
        cut_off(second)
        assert "/three" not in site.seen
    assert messages[0] == f"{site.url}/one: no whole answer within 1 s"
    # Whatever the second got (the rest of the budget), the third is not sent at all.
    assert messages[1].startswith(f"{site.url}/two: no whole answer within ")
    assert messages[2] == f"{site.url}/three: not asked, the 1.5 s allowed for these requests are spent"


def test_an_answer_within_the_deadline_still_arrives():
    with serve(tls=True) as site:
        site.put("/data", b"served")
        assert RequestsClient(retries=0, timeout=5, deadline=30.0).get(site.url + "/data") == b"served"


def test_the_deadline_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(DEADLINE_VARIABLE, "1")
    with serve(tls=True) as site:
        answer = trickle(site, "/data")
        with pytest.raises(HttpError, match="no whole answer within 1 s"):
            RequestsClient(retries=0).get(site.url + "/data")
        cut_off(answer)


@pytest.mark.parametrize("tls", [False, True], ids=["http", "https"])
def test_an_index_whose_headers_trickle_is_a_timeout_at_the_probes_deadline(tls: bool):
    with serve(tls=tls) as site:
        answer = trickle(site, "/simple/torch/")
        found = probe_index(site.url + "/simple/torch/", connect_timeout=1.0, read_timeout=0.5)
        cut_off(answer)
    assert (found.ok, found.failure) == (False, "timeout")
    assert found.detail == "no whole answer within 1.5 s"


@pytest.mark.slow
def test_recommend_refresh_against_trickling_servers_ends_with_one_line_notes():
    """Through the entry point: the refresh gives up, the recommendation comes, each failure one note."""
    with serve(tls=True) as site:
        answers = [
            trickle(site, "/bundle.json"),
            trickle(site, "/pypi/torch/json"),
            trickle(site, "/pypi/tensorflow/json"),
        ]
        done = gpuwizard(
            "recommend", "--framework", "pytorch", "--refresh", "--json",
            "--compat-url", site.url + "/bundle.json",
            env={
                DEADLINE_VARIABLE: "1",
                "GPUWIZARD_PYPI_URL": site.url + "/pypi",
                "GPUWIZARD_TORCH_INDEX_URL": site.url + "/whl",
                **trust_test_ca(),
            },
            timeout=EVENT_S,
        )  # fmt: skip
        for answer in answers:
            assert not answer.trickled.is_set()
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    notes = json.loads(done.stdout)["notes"]
    assert notes[-3:] == [
        f"Could not refresh the compatibility data ({site.url}/bundle.json: no whole answer within 1 s); "
        f"using {notes[-3].split('; using ')[-1]}",
        # What was left of the client's budget of two deadlines: about 1 s.
        f"Could not ask PyPI about torch ({site.url}/pypi/torch/json: no whole answer within "
        f"{notes[-2].split('no whole answer within ')[-1]}",
        f"Could not ask PyPI about tensorflow ({site.url}/pypi/tensorflow/json: not asked, the 2 s "
        "allowed for these requests are spent).",
    ]
    assert "/pypi/tensorflow/json" not in site.seen
