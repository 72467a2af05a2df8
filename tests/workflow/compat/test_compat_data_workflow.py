"""The GitHub Actions workflow that publishes the compatibility data (.github/workflows/compat-data.yml).

It cannot run here; it is read as YAML and checked for what the supply line needs: weekly and by
hand, harvest, test, build, sign with the secret, verify with the shipped key, publish on Pages
at compat/v1/, and a pull request with the data diff, in that order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpuwizard.workflow.compat.bundle import DEFAULT_COMPAT_URL

ROOT = Path(__file__).resolve().parents[3]
WORKFLOW = ROOT / ".github" / "workflows" / "compat-data.yml"


@pytest.fixture(scope="module")
def workflow() -> dict[Any, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def steps(workflow: dict[Any, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def step(workflow: dict[Any, Any], *, runs: str = "", uses: str = "") -> dict[str, Any]:
    found = [
        s
        for s in steps(workflow)
        if (runs and runs in s.get("run", "")) or (uses and s.get("uses", "").startswith(uses))
    ]
    assert len(found) == 1, f"no single step runs {runs!r} / uses {uses!r}"
    return found[0]


def test_it_runs_weekly_and_by_hand_on_ubuntu_with_python_3_12(workflow):
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads the key `on` as True
    assert set(triggers) == {"schedule", "workflow_dispatch"}
    (cron,) = (entry["cron"] for entry in triggers["schedule"])
    minute, hour, day, month, weekday = cron.split()
    assert minute.isdigit() and hour.isdigit()  # at one time of day
    assert (day, month) == ("*", "*") and weekday.isdigit()  # once a week
    assert {job["runs-on"] for job in workflow["jobs"].values()} == {"ubuntu-latest"}
    assert step(workflow, uses="actions/setup-python")["with"]["python-version"] == "3.12"
    assert 'pip install -e ".[test]"' in step(workflow, runs="pip install")["run"]


def test_it_harvests_tests_builds_signs_verifies_publishes_and_opens_a_pull_request(workflow):
    harvest = step(workflow, runs="tools/compat_harvest.py --write --strict")
    test = step(workflow, runs="python -m pytest -n 0 tests/test_compat_data.py tests/core/compat")
    build = step(workflow, runs="tools/compat_bundle.py build --data resources/compat --out site/compat/v1")
    sign = step(workflow, runs="tools/compat_bundle.py sign --key - site/compat/v1")
    verify = step(workflow, runs="tools/compat_bundle.py verify site/compat/v1 --keys resources/compat/keys")
    upload = step(workflow, uses="actions/upload-pages-artifact")
    deploy = step(workflow, uses="actions/deploy-pages")
    pull_request = step(workflow, uses="peter-evans/create-pull-request")
    order = steps(workflow)
    assert (
        order.index(harvest)
        < order.index(test)
        < order.index(build)
        < order.index(sign)
        < order.index(verify)
        < order.index(upload)
        < order.index(deploy)
    )
    assert order.index(test) < order.index(pull_request)
    # The key comes from the secret, through the environment only.
    assert sign["env"]["COMPAT_SIGNING_KEY"] == "${{ secrets.COMPAT_SIGNING_KEY }}"
    assert "secrets." not in sign["run"]
    # What is uploaded is the site whose compat/v1/ is the default URL's folder.
    assert upload["with"]["path"] == "site"
    assert DEFAULT_COMPAT_URL.endswith("/compat/v1/bundle.json")
    assert "resources/compat" in pull_request["with"]["add-paths"]


def test_each_job_has_the_permissions_it_needs_and_no_more(workflow):
    jobs = workflow["jobs"]
    (deploying,) = (
        job for job in jobs.values() if any("deploy-pages" in s.get("uses", "") for s in job["steps"])
    )
    assert deploying["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploying["environment"]["name"] == "github-pages"
    (building,) = (job for job in jobs.values() if job is not deploying)
    assert building["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert "permissions" not in workflow  # nothing granted beyond the jobs'


def test_every_step_says_what_it_does(workflow):
    for entry in steps(workflow):
        assert entry.get("name") or entry["uses"].startswith(("actions/checkout", "actions/setup-python"))


def test_a_refused_pull_request_does_not_hold_back_the_deploy(workflow):
    # Without the repository setting "Allow GitHub Actions to create and approve pull requests"
    # the pull request fails (issue 37, point 10); the data, signed and verified, is deployed still.
    pull_request = step(workflow, uses="peter-evans/create-pull-request")
    jobs = workflow["jobs"]
    (deploying,) = (
        job for job in jobs.values() if any("deploy-pages" in s.get("uses", "") for s in job["steps"])
    )
    waited = deploying["needs"] if isinstance(deploying["needs"], list) else [deploying["needs"]]
    holding = [name for name in waited if pull_request in jobs[name]["steps"]]
    assert not holding or pull_request.get("continue-on-error") is True
    # ... and the run says what to switch on, which the header documents.
    (explaining,) = (s for s in steps(workflow) if f"steps.{pull_request['id']}.outcome" in s.get("if", ""))
    assert "== 'failure'" in explaining["if"]
    setting = "Allow GitHub Actions to create and approve pull requests"
    assert setting in explaining["run"]
    assert setting in WORKFLOW.read_text(encoding="utf-8").split("\nname:", 1)[0]
