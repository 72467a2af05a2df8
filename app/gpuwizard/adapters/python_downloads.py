"""Asking uv which Python build it would download, and from where (issue 37, point 6).

``uv python list X.Y --only-downloads --output-format json`` lists the builds of that version uv
can download for this platform, each with its URL as uv would fetch it: the person's
``UV_PYTHON_INSTALL_MIRROR`` (or ``UV_ASTRAL_MIRROR_URL``) already applied
(docs.astral.sh/uv/reference/cli/#uv-python-list). It is asked with ``UV_OFFLINE=1``, so that
asking fetches nothing itself, and with ``--no-config``, as ``uv venv`` is run
(``adapters/envs/venv_backends.py``). What the answer means is decided purely, in
:mod:`gpuwizard.core.envs.python_download`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Final

from gpuwizard.adapters.runner import Runner, RunnerError
from gpuwizard.core.envs.python_download import PythonDownload, default_download, download_from_listing

#: A listing is read from uv's own data: it answers within a second, even on a slow disk.
_LIST_TIMEOUT_S: Final = 30.0


class NoPythonBuild(LookupError):
    """uv has no build of the Python asked for, for this platform: it cannot download one."""


def find_python_download(
    uv: str, python: str, runner: Runner, environ: Mapping[str, str] | None = None
) -> PythonDownload:
    """The build of Python ``python`` (``3.13``) that ``uv venv --python 3.13`` would download here.

    A uv too old to list downloads (or that does not answer) gets the place its builds are
    published (:func:`~gpuwizard.core.envs.python_download.default_download`).

    Raises:
        NoPythonBuild: uv listed this platform's downloads and has none of that Python.
    """
    env = os.environ if environ is None else environ
    argv = [uv, "python", "list", python, "--only-downloads", "--output-format", "json", "--no-config"]
    try:
        done = runner.run(argv, timeout=_LIST_TIMEOUT_S, env_overrides={"UV_OFFLINE": "1", "NO_COLOR": "1"})
    except RunnerError:
        return default_download(python, env)
    if not done.ok:
        return default_download(python, env)
    try:
        listing = json.loads(done.stdout or "[]")
    except ValueError:
        return default_download(python, env)
    found = download_from_listing(python, listing, env)
    if found is None:
        raise NoPythonBuild(python)
    return found
