"""The Ansible collection gpuwizard.gpu (integrations/ansible), tested for real (issue 40, point 1).

The acceptance: the collection built with ``ansible-galaxy collection build`` and installed, the
example playbook (integrations/ansible/examples/site.yml) run with ``ansible-playbook -i
localhost, -c local`` against a saved report of this machine and the test's GPUWIZARD_HOME gives
the facts, check mode's diff without creating anything, ``changed`` true then false on the second
run (a real environment from the local torch wheel folder, offline) and verify's healthy result.
Beyond it: ``ansible-test sanity`` and ``units`` pass on the collection, and the collection's code
agrees with the wizard's (its answer keys, the diff of a real preview, a real recommendation's
driver branch).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from harness.entry_point import ENTRY_POINT, gpuwizard
from integrations.ansible_harness import (
    ANSIBLE,
    COLLECTION,
    EXAMPLE,
    ansible_test,
    ansible_test_home,
    collection_copy,
    play,
)

SAMPLES = Path(__file__).resolve().parents[2] / "resources" / "samples"


# --- the playbook, for real -------------------------------------------------------------------


@pytest.mark.slow
def test_acceptance_the_example_playbook_gives_facts_a_diff_then_changed_true_false_and_verify(
    torch_folder: Path, tmp_path: Path
):
    home = Path(os.environ["GPUWIZARD_HOME"])  # a fresh one for every test (tests/conftest.py)
    report = tmp_path / "report.json"
    detected = gpuwizard("detect", "--json")
    assert detected.returncode == 0, detected.stderr
    report.write_text(detected.stdout, encoding="utf-8")  # a saved report of this machine
    variables = {
        "ansible_python_interpreter": sys.executable,
        "gpuwizard_system": str(report),
        "gpuwizard_home": str(home),
        "gpuwizard_wheels": str(torch_folder),
        "gpuwizard_executable": ENTRY_POINT,
        "gpuwizard_verify_test": False,
    }
    tasks, printed = play(tmp_path, EXAMPLE, variables)

    facts = tasks["Gather the GPU facts"]
    assert facts["status"] == "ok"
    assert facts["result"]["ansible_facts"]["gpuwizard"]["schema"] == "gpuwizard.system/1"
    assert facts["result"]["changed"] is False

    preview = tasks["What the setup would change"]
    assert (preview["status"], preview["result"]["changed"]) == ("ok", True)
    assert preview["result"]["result"]["status"] == "preview"
    headers = [diff["after_header"] for diff in preview["result"]["diff"]]
    assert headers == ["environment lab", "packages of lab"]
    assert preview["result"]["diff"][1]["after"] == "torch==2.13.0\n"
    assert "--- before: environment lab" in printed  # --diff shown by the default callback
    assert preview["home_files"] == []  # check mode created nothing

    first = tasks["Set it up"]
    assert (first["status"], first["result"]["changed"]) == ("ok", True)
    assert first["result"]["result"]["test"]["verdict"] == "cpu_only"
    assert "environments.json" in first["home_files"]

    again = tasks["Set it up again (nothing left to change)"]
    assert (again["status"], again["result"]["changed"]) == ("ok", False)
    assert ["environment", "kept"] in [
        [stage["stage"], stage["status"]] for stage in again["result"]["stages"]
    ]

    verified = tasks["Verify the setup"]
    assert verified["status"] == "ok"
    assert (verified["result"]["healthy"], verified["result"]["status"]) == (True, "complete")
    assert verified["result"]["changed"] is False
    assert "ok=7" in printed and "changed=2" in printed and "failed=0" in printed


PLAYBOOK_FOR_ANSIBLE_USERS = """\
- hosts: all
  gather_facts: false
  tasks:
    - name: A bad GPU option
      gpuwizard.gpu.setup:
        framework: pytorch
        gpus: [abc]
        system: "{{ report }}"
        home: "{{ home }}"
        executable: "{{ executable }}"
      ignore_errors: true

    - name: A preview
      gpuwizard.gpu.setup:
        framework: pytorch
        environment: lab
        system: "{{ report }}"
        home: "{{ home }}"
        executable: "{{ executable }}"
      check_mode: true
"""


@pytest.mark.slow
def test_the_module_speaks_to_ansible_users_not_command_line_ones(tmp_path: Path):
    """A refusal names the task's options, not the module's temporary answer file; check mode says so."""
    home = Path(os.environ["GPUWIZARD_HOME"])
    playbook = tmp_path / "playbook.yml"
    playbook.write_text(PLAYBOOK_FOR_ANSIBLE_USERS, encoding="utf-8")
    variables = {
        "ansible_python_interpreter": sys.executable,
        "report": str(SAMPLES / "linux-h200.json"),
        "home": str(home),
        "executable": ENTRY_POINT,
    }
    tasks, _printed = play(tmp_path, playbook, variables)
    refused = tasks["A bad GPU option"]
    assert refused["status"] == "failed"
    assert refused["result"]["msg"] == (
        "gpuwizard: error: the task's options: 'abc' is not a GPU selection (write indices such as 0,1)"
    )
    assert "ansible-tmp" not in json.dumps(refused["result"])
    preview = tasks["A preview"]
    assert preview["result"]["msg"] == "check mode: nothing was changed; the setup would change this machine"
    assert preview["result"]["result"]["message"] == "nothing was changed; add --yes to carry it out"


# --- ansible-test ------------------------------------------------------------------------------

# Sanity and units share one HOME (its virtual environments, made once) and one copy.
# ansible-test installs each sanity test's requirements into a virtual environment of its own
# (eight, from PyPI) and runs pylint: about a minute of CPU, so it is marked heavy (CI runs it).
ansible_test_group = pytest.mark.xdist_group("ansible-test")


@pytest.fixture(scope="session")
def ansible_test_workspace(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(the collection's copy, the HOME ansible-test runs with)."""
    folder = tmp_path_factory.mktemp("ansible-test")
    return collection_copy(folder / "copy"), ansible_test_home(folder / "home")


@pytest.mark.slow
@pytest.mark.heavy
@ansible_test_group
def test_ansible_test_sanity_passes(ansible_test_workspace: tuple[Path, Path]):
    copy, home = ansible_test_workspace
    done = ansible_test(["sanity"], copy, home)
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-4000:]
    assert 'Running sanity test "validate-modules"' in done.stdout


@pytest.mark.slow
@pytest.mark.heavy
@ansible_test_group
def test_ansible_test_units_pass(ansible_test_workspace: tuple[Path, Path]):
    copy, home = ansible_test_workspace
    done = ansible_test(["units", "--venv"], copy, home)
    assert done.returncode == 0, done.stdout[-8000:] + done.stderr[-4000:]
    assert "Unit test module_utils" in done.stdout and "Unit test controller" in done.stdout
    assert " failed" not in done.stdout


# --- the collection's code against the wizard's ------------------------------------------------


@pytest.fixture
def collection_code(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, ModuleType]]:
    """The collection's module_utils and filter, imported from integrations/ansible."""
    import importlib

    monkeypatch.syspath_prepend(str(ANSIBLE))
    names = {
        "utils": "ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard",
        "branches": "ansible_collections.gpuwizard.gpu.plugins.module_utils.driver_branches",
        "filter": "ansible_collections.gpuwizard.gpu.plugins.filter.nvidia_driver_branch",
    }
    yield {key: importlib.import_module(name) for key, name in names.items()}
    for name in list(sys.modules):
        if name == "ansible_collections" or name.startswith("ansible_collections."):
            del sys.modules[name]


def test_the_setup_options_are_the_answer_file_s_keys(collection_code: dict[str, ModuleType]):
    from gpuwizard.core.fleet.answers import KNOWN_KEYS, parse_answers

    utils = collection_code["utils"]
    assert set(utils.ANSWER_KEYS) == set(KNOWN_KEYS) - {"schema"}
    assert set(utils.ANSWER_KEYS) <= set(utils.SETUP_SPEC)
    options = {"framework": "pytorch", "version": "2.13", "environment": "lab", "gpus": [0, 1], "offline": True,
               "find_links": "/srv/wheels", "path_scope": "none", "test": False, "python": None}  # fmt: skip
    answers = parse_answers(utils.build_answers(options))
    assert (answers.request.name, answers.request.gpus, answers.path_scope, answers.test) == (
        "lab",
        "0,1",
        "none",
        False,
    )


def test_the_diff_of_a_real_windows_preview(collection_code: dict[str, ModuleType], tmp_path: Path):
    utils = collection_code["utils"]
    registry = tmp_path / "registry.json"
    shutil.copy(SAMPLES / "registry" / "windows-cuda12.json", registry)
    answers = tmp_path / "answers.json"
    answers.write_text(
        utils.answers_text(
            {"framework": "tensorflow", "version": "2.10", "manager": "venv", "environment": "tf"}
        ),
        encoding="utf-8",
    )
    system = SAMPLES / "windows-rtx2080super-two-cuda.json"
    done = gpuwizard(*utils.apply_argv("gpuwizard", str(answers), False, str(system), str(registry))[1:])
    assert done.returncode == 0, done.stderr
    outcome = utils.apply_outcome(done.returncode, done.stdout, done.stderr, check_mode=True, want_diff=True)
    assert (outcome["failed"], outcome["changed"]) == (False, True)
    assert [diff["after_header"].split(" ")[0] for diff in outcome["diff"]] == [
        "PATH",
        "environment",
        "packages",
    ], done.stdout
    path, environment, packages = outcome["diff"]
    assert path["before_header"] == f"PATH (user scope, file:{registry})"
    assert "C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.2\\bin\n" in path["after"]
    assert "variable: TF_FORCE_GPU_ALLOW_GROWTH=true" in environment["after"]
    assert packages["after"] == "tensorflow==2.10.1\nnumpy<1.24\n"


#: The day the branch tests judge end of life on (the collection's table gives each branch's end).
DAY = "2026-12-01"


@pytest.mark.parametrize(
    ("sample", "framework", "version", "expected"),
    [
        ("linux-h200.json", "pytorch", None, ("580", "580", "580")),
        ("linux-4xa100-one-lost.json", "pytorch", None, ("525", "525", "580")),
        # CUDA 11.8 runs on 450.80.02, an H200 (Hopper) or an RTX 4060 (Ada) on no driver older
        # than CUDA 11.8's own, 520.61.05: the plan's gpu_min_driver.
        ("linux-h200.json", "pytorch", "2.1", ("520", "525", "580")),
        ("linux-hybrid-rtx4060-intel-igpu.json", "tensorflow", "2.12", ("520", "525", "580")),
    ],
)
def test_the_driver_branch_of_a_real_recommendation(
    collection_code: dict[str, ModuleType],
    sample: str,
    framework: str,
    version: str | None,
    expected: tuple[str, str, str],
):
    """``expected``: the lowest branch, ended ones included; the lowest production one; the default."""
    lowest, production, supported = expected
    asked = ("--version", version) if version else ()
    done = gpuwizard(
        "recommend", "--framework", framework, *asked, "--system", str(SAMPLES / sample), "--json"
    )
    assert done.returncode == 0, done.stderr
    recommendation = json.loads(done.stdout)
    nvidia_driver_branch = collection_code["filter"].nvidia_driver_branch
    assert nvidia_driver_branch(recommendation, include_eol=True, as_of=DAY) == lowest
    assert nvidia_driver_branch(done.stdout, include_eol=True, as_of=DAY) == lowest  # the registered stdout
    assert (
        nvidia_driver_branch(recommendation, production_only=True, include_eol=True, as_of=DAY) == production
    )
    assert nvidia_driver_branch(recommendation, as_of=DAY) == supported
    assert nvidia_driver_branch(recommendation, production_only=True, as_of=DAY) == supported


def test_an_h200_plan_says_its_gpu_needs_more_than_its_cuda(collection_code: dict[str, ModuleType]):
    done = gpuwizard(
        "recommend",
        "--framework",
        "pytorch",
        "--version",
        "2.1",
        "--system",
        str(SAMPLES / "linux-h200.json"),
        "--json",
    )
    assert done.returncode == 0, done.stderr
    plan = json.loads(done.stdout)["plan"]
    assert (plan["min_driver"]["linux"], plan["gpu_min_driver"]["linux"]) == ("450.80.02", "520.61.05")
    branches = collection_code["branches"]
    assert branches.effective_minimum(plan) == "520.61.05"
    # The plan's minimum alone would give R450, which cannot drive an H200.
    assert branches.driver_branch(plan["min_driver"]["linux"], include_eol=True, today=DAY) == "450"


def test_each_cuda_toolkit_s_driver_is_a_release_of_its_branch_in_the_table(
    collection_code: dict[str, ModuleType],
):
    """A GPU's minimum is a toolkit's driver: its branch must be known to reach that release."""
    cuda = json.loads(
        (Path(__file__).resolve().parents[2] / "resources" / "compat" / "cuda.json").read_text("utf-8")
    )
    branches = collection_code["branches"]
    newest = {number: release for number, _kind, release, _end in branches.BRANCHES}
    for toolkit in cuda["toolkit_drivers"]:
        driver = toolkit["linux"]
        major = driver.split(".")[0] if driver else None
        if major not in newest:
            continue  # older than the table (CUDA 9.x and 10.0's R384, R396, R410)
        if major in newest and newest[major] is not None:
            assert branches.version_key(driver) <= branches.version_key(newest[major]), (
                toolkit["cuda"],
                driver,
            )
        assert branches.driver_branch(driver, include_eol=True, today=DAY) == major, (toolkit["cuda"], driver)


@pytest.mark.parametrize(
    ("sample", "says"), [("no-gpu.json", "trains on the CPU"), ("linux-mi300x.json", "not for an NVIDIA GPU")]
)
def test_a_plan_without_an_nvidia_driver_has_no_branch(
    collection_code: dict[str, ModuleType], sample: str, says: str
):
    from ansible.errors import AnsibleFilterError

    done = gpuwizard("recommend", "--framework", "pytorch", "--system", str(SAMPLES / sample), "--json")
    assert done.returncode == 0, done.stderr
    with pytest.raises(AnsibleFilterError, match=says):
        collection_code["filter"].nvidia_driver_branch(json.loads(done.stdout))


def test_a_cuda_12_minimum_is_branch_525_and_a_production_branch_skips_feature_ones(
    collection_code: dict[str, ModuleType],
):
    branch = collection_code["branches"].driver_branch
    assert branch("525.60.13", include_eol=True, today=DAY) == "525"
    assert branch("450.80.02", include_eol=True, today=DAY) == "450"
    assert (
        branch("530.30.02", include_eol=True, today=DAY),
        branch("530.30.02", production_only=True, include_eol=True, today=DAY),
    ) == ("530", "535")
    assert branch("530.30.02", today=DAY) == "580"  # R530 to R575 have ended by then


def test_the_collection_s_version_is_the_wizard_s():
    import yaml

    from gpuwizard import __version__

    galaxy = yaml.safe_load((COLLECTION / "galaxy.yml").read_text(encoding="utf-8"))
    assert (galaxy["namespace"], galaxy["name"], galaxy["version"]) == ("gpuwizard", "gpu", __version__)
