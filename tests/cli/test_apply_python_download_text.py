"""``gpuwizard apply``'s ``sources`` stage names the Python build uv downloads too (issue 37, point 6).

``apply`` runs the same check as ``env create`` (``plan_setup``); its stage carries the same
facts, ``python_download`` and ``hosts`` among them, and its text says the download's place
and answer beside the indexes'. The stage is made from a real check of a server on 127.0.0.1.
"""

from __future__ import annotations

import pytest

from gpuwizard.cli.text.apply import ApplyView
from gpuwizard.core.envs.package_sources import IndexSettings, plan_sources
from gpuwizard.core.envs.python_download import PythonDownload
from gpuwizard.core.events import to_json
from gpuwizard.core.fleet.events import SourcesStage
from gpuwizard.workflow.envs.index_check import check_plan_sources
from harness.http_server import closed_port, serve, trust_test_ca


def test_the_stage_and_its_text_name_the_python_download(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("GPUWIZARD_NO_INDEX_CHECK", raising=False)
    for name in ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(name, raising=False)
    for name, value in trust_test_ca().items():
        monkeypatch.setenv(name, value)
    port = closed_port()
    download = PythonDownload(
        "3.13", f"https://127.0.0.1:{port}/pbs/cpython-3.13.9.tar.gz", "UV_PYTHON_INSTALL_MIRROR", "3.13.9"
    )
    with serve(tls=True) as site:
        site.put("/simple/torch/", "<html></html>", content_type="text/html")
        sources = plan_sources(
            index_url=None,
            variant=None,
            tool="uv",
            settings=IndexSettings(uv_default_index=f"{site.url}/simple"),
        )
        check = check_plan_sources(sources, ["torch==2.13.0"], python=download)
    stage = SourcesStage.of("unreachable", check)
    data = to_json(stage)
    assert data["python_download"]["reached"] is False
    assert [host["host"] for host in data["hosts"]] == [
        site.url.removeprefix("https://"),
        f"127.0.0.1:{port}",
    ]
    shown: list[str] = []
    ApplyView(shown.append)(stage)
    text = "".join(shown)
    assert f"  - {site.url}/simple (your PyPI mirror, from UV_DEFAULT_INDEX): answers" in text
    assert f"  - https://127.0.0.1:{port}/pbs/cpython-3.13.9.tar.gz (your mirror of Python builds" in text
    assert "): cannot be reached (refused)" in text
    assert "PYTHON_DOWNLOAD_UNREACHABLE" not in text  # the finding is said in words, as every finding
    assert "Python 3.13 for the new environment cannot be downloaded from" in text
