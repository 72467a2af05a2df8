"""Which Python build uv would download, and from where: asked of the real uv (issue 37, point 6).

The answer is uv's own (``uv python list X.Y --only-downloads --output-format json``), asked
offline, so it applies the person's mirror setting exactly as ``uv venv`` will; a uv that
cannot say is stood in for by the documented place; a version uv has no build of is refused.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from fakes.runner import FakeRunner
from gpuwizard.adapters.python_downloads import NoPythonBuild, find_python_download
from gpuwizard.adapters.runner import SubprocessRunner
from gpuwizard.core.envs.python_download import PBS_ASTRAL, PBS_GITHUB

UV = shutil.which("uv", path=str(Path(sys.executable).parent))
needs_uv = pytest.mark.skipif(UV is None, reason="uv is a project dependency; not installed here")


@needs_uv
def test_uv_names_the_build_and_its_place_with_githubs_copy_as_its_fallback():
    assert UV is not None
    found = find_python_download(UV, "3.13", SubprocessRunner(), environ={})
    assert found.python == "3.13" and found.exact
    assert found.version is not None and found.version.startswith("3.13.")
    assert "cpython-3.13." in found.url and found.url.endswith(".tar.gz")
    assert found.origin == "uv" and not found.mirror
    if found.url.startswith(PBS_ASTRAL):  # recent uv: Astral's mirror first, GitHub's copy after it
        assert found.fallback_url == PBS_GITHUB + found.url[len(PBS_ASTRAL) :]
        assert [host.host for host in found.hosts()] == ["releases.astral.sh", "github.com"]
    else:  # an older uv fetches from GitHub only
        assert found.url.startswith(PBS_GITHUB) and found.fallback_url is None


@needs_uv
def test_the_persons_mirror_is_the_only_place(monkeypatch: pytest.MonkeyPatch):
    assert UV is not None
    mirror = "https://mirror.example/python-build-standalone"
    monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", mirror)
    found = find_python_download(UV, "3.12", SubprocessRunner())
    assert found.url.startswith(mirror + "/") and "cpython-3.12." in found.url
    assert (found.origin, found.mirror, found.fallback_url) == ("UV_PYTHON_INSTALL_MIRROR", True, None)
    assert [host.host for host in found.hosts()] == ["mirror.example"]


@needs_uv
def test_a_local_mirror_contacts_nothing(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    assert UV is not None
    monkeypatch.setenv("UV_PYTHON_INSTALL_MIRROR", tmp_path.as_uri())
    found = find_python_download(UV, "3.12", SubprocessRunner())
    assert found.local and found.hosts() == () and found.urls == ()


@needs_uv
def test_a_python_uv_has_no_build_of_is_refused():
    assert UV is not None
    with pytest.raises(NoPythonBuild):
        find_python_download(UV, "3.99", SubprocessRunner(), environ={})


def test_a_uv_too_old_to_say_gets_the_documented_place():
    # A uv without `python list --only-downloads` refuses the option, as clap does, with status 2.
    old_uv = (
        FakeRunner()
        .when("uv", "python", "list")
        .answer(stderr="error: unexpected argument '--only-downloads' found", returncode=2)
    )
    found = find_python_download("uv", "3.13", old_uv, environ={})
    assert (found.url, found.exact, found.fallback_url) == (PBS_GITHUB + "/", False, None)
    mirrored = find_python_download(
        "uv", "3.13", old_uv, environ={"UV_PYTHON_INSTALL_MIRROR": "https://m.example/pbs/"}
    )
    assert (mirrored.url, mirrored.origin) == ("https://m.example/pbs/", "UV_PYTHON_INSTALL_MIRROR")
