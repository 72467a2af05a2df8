"""The GitHub Actions workflow that builds the release installer on Windows (issue 9).

It cannot run here; it is read as YAML and checked for what the issue asks of it: windows-latest,
on tags, releases and by hand, the installer built by ``installer/build.py`` with the current
PySide6 (not the Wine build's pins), signed only when a certificate is configured, kept as an
artifact and attached to the release.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

# With pytest-xdist (-n), the installer is built once, on one worker: its tests stay together.
pytestmark = pytest.mark.xdist_group("installer")

WORKFLOW = Path(__file__).resolve().parents[2] / ".github" / "workflows" / "windows-installer.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    (job,) = workflow["jobs"].values()
    return job["steps"]


def step_running(workflow: dict[Any, Any], text: str) -> dict[str, Any]:
    found = [s for s in steps(workflow) if text in s.get("run", "")]
    assert len(found) == 1, f"no single step runs {text!r}"
    return found[0]


def test_it_runs_on_windows_on_tags_releases_and_by_hand(workflow):
    # YAML 1.1 reads the key `on` as True.
    triggers = workflow.get("on", workflow.get(True))
    assert {"push", "release", "workflow_dispatch"} <= set(triggers)
    assert triggers["push"]["tags"]
    (job,) = workflow["jobs"].values()
    assert job["runs-on"] == "windows-latest"
    assert workflow["permissions"]["contents"] == "write"


def test_it_builds_with_build_py_and_the_current_pyside6(workflow):
    install = step_running(workflow, "pip install")
    assert "pyinstaller" in install["run"]
    assert "requirements-wine" not in install["run"]  # the Wine pins are for the Wine build only
    assert "PySide6" not in install["run"]  # the package's own dependency: the current release
    build = step_running(workflow, "installer/build.py")
    assert "--out dist" in build["run"]
    assert steps(workflow).index(install) < steps(workflow).index(build)


def test_it_signs_only_when_a_certificate_is_configured(workflow):
    sign = step_running(workflow, "signtool")
    assert "HAS_SIGNING_CERTIFICATE" in sign["if"]
    (job,) = workflow["jobs"].values()
    assert "secrets.WINDOWS_SIGNING_CERTIFICATE" in job["env"]["HAS_SIGNING_CERTIFICATE"]
    assert "secrets.WINDOWS_SIGNING_PASSWORD" in sign["env"]["SIGNING_PASSWORD"]
    assert "/tr " in sign["run"] and "verify" in sign["run"]  # timestamped, then checked
    assert steps(workflow).index(step_running(workflow, "installer/build.py")) < steps(workflow).index(sign)


def test_it_smoke_tests_keeps_and_attaches_the_installer(workflow):
    smoke = step_running(workflow, "--version")
    assert "/S" in smoke["run"]
    uploads = [s for s in steps(workflow) if s.get("uses", "").startswith("actions/upload-artifact@")]
    assert uploads and uploads[0]["with"]["path"] == "dist/gpuwizard-setup-*.exe"
    attach = step_running(workflow, "gh release upload")
    assert "release" in attach["if"]
    assert attach["env"]["GH_TOKEN"]
