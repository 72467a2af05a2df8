"""Running the Ansible collection (integrations/ansible) as its users and its CI run it.

``ansible-galaxy``, ``ansible-playbook`` and ``ansible-test`` are the venv's (ansible-core from
PyPI, pyproject's test extra). Every run keeps Ansible's own state in the test's folder
(``ANSIBLE_HOME``, its temporary folders), never the developer's ``~/.ansible``.

``ansible-test`` needs one work-around here and in CI, where only the package registries are
reachable: to make the virtual environments its sanity tests (and ``units --venv``) run in, it
downloads a pip bootstrap script from ci-files.testing.ansible.com, and uses a copy in
``~/.ansible/test/cache/get_pip_<version>.py`` when there is one. :func:`ansible_test_home`
makes a HOME holding a stand-in there: it installs the pip asked for with the pip this test run
has (pure Python, the same interpreter version), so nothing but PyPI is asked for anything.
``ansible-test`` also needs the collection under an ``ansible_collections/NAMESPACE/NAME``
path, and writes ``tests/output`` into it: it runs on a copy (:func:`collection_copy`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
ANSIBLE = ROOT / "integrations" / "ansible"
COLLECTION = ANSIBLE / "ansible_collections" / "gpuwizard" / "gpu"
EXAMPLE = ANSIBLE / "examples" / "site.yml"
VENV_BIN = Path(sys.executable).parent

#: How long one ansible-test or ansible-playbook run may take (installs from PyPI; a real setup).
RUN_LIMIT_S = 1200

GET_PIP_STAND_IN = '''\
"""Stand-in for get-pip.py: the test run's own pip (PIP_HOME, pure Python) installs the pip asked for."""
import sys
sys.path.insert(0, PIP_HOME)
from pip._internal.cli.main import main
args = [arg for arg in sys.argv[1:] if arg not in ("--no-setuptools", "--no-wheel")]
sys.exit(main(["install", "--upgrade", "--force-reinstall", *args]))
'''


#: An Ansible callback (enabled as ``record_results``): each task's result as a JSON line in the
#: file GPUWIZARD_ANSIBLE_RECORD names, with the files under GPUWIZARD_HOME as the task ended, so
#: a test sees what a task left behind (check mode: nothing) while the playbook still runs. Kept
#: as text and written into a folder of its own by :func:`record_callback`: importing
#: ``ansible.plugins.callback`` outside Ansible (as pytest's doctest collection would import a
#: module file here) fails with a circular import.
RECORD_CALLBACK = r'''"""Each task's result as a JSON line, with GPUWIZARD_HOME's files then (tests/integrations/ansible_harness.py)."""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ansible.plugins.callback import CallbackBase


class CallbackModule(CallbackBase):
    CALLBACK_VERSION = 2.0
    CALLBACK_TYPE = "aggregate"
    CALLBACK_NAME = "record_results"
    CALLBACK_NEEDS_ENABLED = True

    def _record(self, status: str, result: Any) -> None:
        home = Path(os.environ["GPUWIZARD_HOME"])
        line = {
            "task": result._task.get_name(),
            "status": status,
            "result": result._result,
            "home_files": sorted(str(path.relative_to(home)) for path in home.rglob("*") if path.is_file()),
        }
        with Path(os.environ["GPUWIZARD_ANSIBLE_RECORD"]).open("a", encoding="utf-8") as record:
            record.write(json.dumps(line, default=str) + "\n")

    def v2_runner_on_ok(self, result: Any) -> None:
        self._record("ok", result)

    def v2_runner_on_failed(self, result: Any, ignore_errors: bool = False) -> None:
        self._record("failed", result)

    def v2_runner_on_skipped(self, result: Any) -> None:
        self._record("skipped", result)
'''


def record_callback(folder: Path) -> Path:
    """A folder holding only the ``record_results`` callback, for ANSIBLE_CALLBACK_PLUGINS."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "record_results.py").write_text(RECORD_CALLBACK, encoding="utf-8")
    return folder


def program(name: str) -> str:
    """One of the venv's Ansible programs."""
    return str(VENV_BIN / name)


def ansible_env(folder: Path, **extra: str) -> dict[str, str]:
    """This process's environment, the venv's programs first, Ansible's state in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    return {
        **os.environ,
        "PATH": os.pathsep.join([str(VENV_BIN), os.environ.get("PATH", os.defpath)]),
        "ANSIBLE_HOME": str(folder / "ansible-home"),
        "ANSIBLE_LOCAL_TEMP": str(folder / "ansible-local-tmp"),
        "ANSIBLE_REMOTE_TEMP": str(folder / "ansible-remote-tmp"),
        "ANSIBLE_NOCOLOR": "1",
        "ANSIBLE_LOCALHOST_WARNING": "false",
        "ANSIBLE_INVENTORY_UNPARSED_WARNING": "false",
        **extra,
    }


def run(argv: list[str], env: dict[str, str], cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``argv`` (a list: no shell); never raises on failure."""
    return subprocess.run(
        argv, env=env, cwd=cwd, capture_output=True, text=True, timeout=RUN_LIMIT_S, check=False
    )


def play(folder: Path, playbook: Path, variables: dict[str, object]) -> tuple[dict[str, dict[str, Any]], str]:
    """Build and install the collection, run ``playbook`` on localhost with ``variables``.

    Returns each task's record (:data:`RECORD_CALLBACK`) by its name, and what ansible-playbook
    printed; the run must succeed.
    """
    record = folder / "record.jsonl"
    env = ansible_env(
        folder,
        ANSIBLE_COLLECTIONS_PATH=str(build_and_install(folder)),
        ANSIBLE_CALLBACK_PLUGINS=str(record_callback(folder / "callbacks")),
        ANSIBLE_CALLBACKS_ENABLED="record_results",
        GPUWIZARD_ANSIBLE_RECORD=str(record),
    )
    argv = [program("ansible-playbook"), "-i", "localhost,", "-c", "local", "-e", json.dumps(variables)]
    done = run([*argv, str(playbook)], env)
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-3000:]
    lines = [json.loads(line) for line in record.read_text(encoding="utf-8").splitlines()]
    return {line["task"]: line for line in lines}, done.stdout


def build_and_install(folder: Path) -> Path:
    """``ansible-galaxy collection build`` of the repository's collection, installed into ``folder``.

    Returns the folder to put in ANSIBLE_COLLECTIONS_PATH.
    """
    env = ansible_env(folder)
    built = run(
        [
            program("ansible-galaxy"),
            "collection",
            "build",
            str(COLLECTION),
            "--output-path",
            str(folder / "build"),
        ],
        env,
    )
    assert built.returncode == 0, built.stdout + built.stderr
    (tarball,) = (folder / "build").glob("gpuwizard-gpu-*.tar.gz")
    installed = folder / "collections"
    done = run([program("ansible-galaxy"), "collection", "install", str(tarball), "-p", str(installed)], env)
    assert done.returncode == 0, done.stdout + done.stderr
    return installed


def pip_version_asked() -> str:
    """The pip version ansible-test bootstraps its virtual environments with (24.2 for 2.19)."""
    from ansible_test._internal.python_requirements import get_venv_packages

    return get_venv_packages(SimpleNamespace(version=f"{sys.version_info[0]}.{sys.version_info[1]}"))["pip"]


def ansible_test_home(folder: Path) -> Path:
    """A HOME whose ansible-test cache holds the get-pip stand-in (see the module's docstring)."""
    cache = folder / ".ansible" / "test" / "cache"
    cache.mkdir(parents=True, exist_ok=True)
    name = f"get_pip_{pip_version_asked().replace('.', '_')}.py"
    # A copy of this run's pip package alone (every venv has pip, whereas a Debian Python's
    # ensurepip carries no wheels): without its dist-info, the pip it runs sees no pip installed.
    import pip

    pip_home = folder / ".ansible" / "test" / "pip-source"
    if not (pip_home / "pip").is_dir():
        shutil.copytree(
            Path(pip.__file__).resolve().parent,
            pip_home / "pip",
            ignore=shutil.ignore_patterns("__pycache__"),
        )
    (cache / name).write_text(GET_PIP_STAND_IN.replace("PIP_HOME", repr(str(pip_home))), encoding="utf-8")
    return folder


def collection_copy(folder: Path) -> Path:
    """A copy of the collection at ``folder/ansible_collections/gpuwizard/gpu``."""
    copy = folder / "ansible_collections" / "gpuwizard" / "gpu"
    shutil.copytree(COLLECTION, copy, ignore=shutil.ignore_patterns("__pycache__", "output", "*.tar.gz"))
    return copy


def ansible_test(command: list[str], copy: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """``ansible-test COMMAND --python X.Y --requirements`` in the collection's copy.

    The Python is this one (the venv's bin comes first on PATH); ``units`` runs with ``--venv``
    so that its requirements (pytest-mock, ...) go into a virtual environment of its own, never
    into the project's venv.
    """
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    argv = [program("ansible-test"), *command, "--python", python, "--requirements", "--color", "no"]
    return run(argv, ansible_env(home, HOME=str(home)), cwd=copy)
