"""What the Windows side sends into a WSL 2 distro to make, test and remove an environment there, as data.

Issue 39: TensorFlow 2.11 and later (``tensorflow[and-cuda]``) run on an NVIDIA GPU from
Windows only inside WSL 2. The wizard makes the environment there itself, in its own folder
in the distro user's home, ``~/.local/share/gpuwizard`` (:data:`HOME_PATH`): environments in
``envs/NAME``, uv in ``bin/uv``, the probes in ``probes/``, uv's Pythons and cache in
``python/`` and ``cache/``, the steps running now in ``run/``. No ``sudo`` is needed, and the
distro's own Python, which PEP 668 marks externally managed on Ubuntu 24.04, is never touched
(tensorflow/tensorflow#79370): uv makes a venv.

Each :class:`WslStep` is one program run inside the distro: an argv (a list; no shell is
involved anywhere, so a name or a path is one argument whatever it holds), the bytes it reads on
standard input, the phase and title it is shown with, what it makes, and the step that undoes
it. The steps that need care inside the distro (markers, the sha256 of uv, atomic renames,
removing only what is proven the wizard's) are commands of ``probes/wsl_home.py``, which the
distro's ``python3`` runs from standard input (:data:`HELPER_BOOT`): nothing has to be in the
distro before. The tools (uv, the probes) run under its ``run`` command, which keeps them in a
process group of their own that :func:`stop_step` ends: ending ``wsl.exe`` on Windows does not
end what it started in the distro (microsoft/WSL#2496).

The home's path is the first step's answer (:func:`home_step`): every later argv names folders
by their full path in the distro, as the environment's record on Windows will.

This module is pure: the helper's text, uv's bytes and the probes come in as values
(``workflow/envs/wsl_create.py`` reads them and runs the steps).
"""

from __future__ import annotations

import json
import posixpath
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal

from gpuwizard.core.envs.events import EnvPhaseName
from gpuwizard.core.envs.names import check_env_name
from gpuwizard.core.envs.package_sources import hide_logins
from gpuwizard.core.envs.uv_wheel import UvBinary
from gpuwizard.core.secret_formats import url_has_secret

#: The wizard's folder in the distro, below the home of the distro's default user.
HOME_PATH: Final = "~/.local/share/gpuwizard"
#: The distro's own Python, by full path: under ``wsl.exe --exec`` PATH also holds Windows
#: folders, where a bare ``python3`` may find the Microsoft Store's ``python3.exe`` when the
#: distro has none (WSL's interop appends the Windows PATH: learn.microsoft.com, "wsl.conf",
#: ``appendWindowsPath``).
DISTRO_PYTHON: Final = "/usr/bin/python3"
#: Where WSL 2 mounts the Windows driver's Linux libraries (NVIDIA's CUDA on WSL user guide).
WSL_LIB: Final = "/usr/lib/wsl/lib"
#: Run by ``python3 -I -c``: reads the helper's text from standard input (a line with its length
#: in bytes, then the text) and runs it; the rest of standard input is the command's data.
HELPER_BOOT: Final = (
    "import sys;n=int(sys.stdin.buffer.readline());"
    "exec(compile(sys.stdin.buffer.read(n),'wsl_home.py','exec'))"
)
#: What the wizard adds to every uv it runs in the distro: no colour, and its Pythons and cache
#: in the wizard's folder, so that removing the folder removes them too.
_UV_VARIABLES: Final = {"NO_COLOR": "1"}

#: How a step's output is read: one JSON answer of the helper, uv's lines, the environment
#: report probe's answer, the live test's events.
StepOutput = Literal["helper", "uv", "report", "live_test"]

#: A quick helper command; only uv's transfer of itself (tens of MB through wsl.exe) takes seconds.
_HELPER_TIMEOUT_S: Final = 600.0
#: A first ``import tensorflow`` on a slow disk takes tens of seconds; minutes means it hangs.
_PROBE_TIMEOUT_S: Final = 600.0


@dataclass(frozen=True)
class WslEnvRequest:
    """An environment to make inside a distro, as the plan and the person's choices decide it.

    Attributes:
        name: The environment's name (its folder ``envs/NAME``; checked as any venv's name).
        framework: ``tensorflow`` or ``pytorch`` (what the probes import).
        framework_version: The version the plan installs (``2.21.0``): the check after installing
            wants it.
        python: The Python version (``3.12``) uv makes the venv with.
        requirements: What ``uv pip install`` installs (``tensorflow[and-cuda]==2.21.0``).
        index_url: The index to install from instead of PyPI (a mirror), None for PyPI.
        find_links: A folder of wheels, as a path inside the distro (``/mnt/c/wheels``).
        offline: Install only from ``find_links``; fetch nothing.
        python_download: uv installs the Python first (``uv python install``): the distro has no
            Python of that version. Otherwise uv must find one there and downloads none.
        seed_pip: Install pip too, as people expect ``pip install`` to work inside (``uv venv``
            makes venvs without it); offline it must be in ``find_links``.
        distro: The distro's name, for what is said (the transport knows where it runs).
        distro_python: The distro's Python that runs the helper.
        wsl_lib: Where the Windows driver's libraries are looked for (tests give a recorded layout).
        needed_bytes: Free space the environment needs in the distro; 0 checks nothing.
    """

    name: str
    framework: str
    framework_version: str
    python: str
    requirements: tuple[str, ...]
    index_url: str | None = None
    find_links: str | None = None
    offline: bool = False
    python_download: bool = False
    seed_pip: bool = True
    distro: str = ""
    distro_python: str = DISTRO_PYTHON
    wsl_lib: str = WSL_LIB
    needed_bytes: int = 0

    def __post_init__(self) -> None:
        check_env_name(self.name)
        if self.offline and not self.find_links:
            raise ValueError("offline needs find_links: the folder of wheels inside the distro")
        if self.offline and self.python_download:
            raise ValueError("offline downloads no Python: the distro must have Python " + self.python)


@dataclass(frozen=True)
class WslPayloads:
    """What the Windows side sends into the distro: the helper's text, uv, the probes.

    Attributes:
        helper: ``probes/wsl_home.py``'s bytes.
        uv: uv's Linux binary (:func:`gpuwizard.core.envs.uv_wheel.uv_from_wheel`).
        probes: The probes' files by name (``env_report.py`` and the modules it imports).
    """

    helper: bytes = field(repr=False)
    uv: UvBinary
    probes: Mapping[str, str] = field(repr=False)


@dataclass(frozen=True)
class WslStep:
    """One program run inside the distro.

    Attributes:
        key: What the step is (``home``, ``uv``, ``env``, ``python``, ``venv``, ``install``,
            ``probes``, ``verify``, ``live_test``, ``stop``, ``remove_env``, ``remove_home``).
        title: What it does, in a few words (the progress shows it).
        phase: The creation's phase it belongs to (:data:`~gpuwizard.core.envs.events.EnvPhaseName`).
        argv: The program and its arguments, inside the distro.
        stdin: What it reads on standard input (the helper, then the command's data).
        stdin_note: What ``stdin`` is, for the log (never the bytes).
        output: How its output is read (:data:`StepOutput`).
        creates: What it makes, by full path in the distro.
        undo: The step that removes what it made, by the marker of this run's id only, so it
            is safe to run whether the step finished, failed or was stopped half-way. None:
            what it made is the home's and goes with it (uv, the probes, uv's Pythons).
        undo_only_if_made: Undo only when the step's answer says it made something now, or it
            gave none (it was stopped half-way): a home the run found, or a name it was refused
            because it is taken, is not the run's to remove.
        run_id: The id a tool runs under (``run/ID.json`` in the home); :func:`stop_step`
            with it ends the tool and all it started. None: a helper command, which is quick
            and atomic and is let finish.
        variables: What the tool's environment gets (sent on standard input, never on a
            command line); the log shows them with logins hidden.
        timeout_s: How long it may run; None: as long as it takes (an install of GBs).
    """

    key: str
    title: str
    phase: EnvPhaseName
    argv: tuple[str, ...]
    stdin: bytes | None = field(default=None, repr=False)
    stdin_note: str = ""
    output: StepOutput = "helper"
    creates: tuple[str, ...] = ()
    undo: WslStep | None = None
    undo_only_if_made: bool = False
    run_id: str | None = None
    variables: Mapping[str, str] = field(default_factory=dict)
    timeout_s: float | None = _HELPER_TIMEOUT_S

    def command_line(self) -> str:
        """The step as a shell line for the log: what a person could type in the distro (logins hidden).

        A tool's line is the tool's own, with its variables in front; the helper, which runs
        from standard input, is named by its command.
        """
        if self.run_id is not None:
            tool = list(self.argv[self.argv.index("--") + 1 :])
            variables = [f"{name}={hide_logins(value)}" for name, value in self.variables.items()]
            return " ".join([*variables, *(shlex.quote(hide_logins(part)) for part in tool)])
        boot = self.argv.index(HELPER_BOOT)
        command = " ".join(shlex.quote(part) for part in self.argv[boot + 1 :])
        note = f" < {self.stdin_note}" if self.stdin_note else ""
        return f"{shlex.quote(self.argv[0])} wsl_home.py {command}{note}"


@dataclass(frozen=True)
class WslHome:
    """The wizard's folder in the distro, as the first step answered.

    Attributes:
        path: Its full path (``/home/ana/.local/share/gpuwizard``).
        home_id: The id in its marker (the Windows side records it, to remove the folder later).
        made: The step made it now (so a rollback removes it, when nothing else is in it).
    """

    path: str
    home_id: str
    made: bool

    def env_path(self, name: str) -> str:
        """An environment's folder."""
        return posixpath.join(self.path, "envs", name)

    def env_python(self, name: str) -> str:
        """An environment's interpreter."""
        return posixpath.join(self.env_path(name), "bin", "python")

    @property
    def uv(self) -> str:
        """The uv the wizard put in its folder."""
        return posixpath.join(self.path, "bin", "uv")

    @property
    def probes(self) -> str:
        """The folder of the probes."""
        return posixpath.join(self.path, "probes")


def framed(helper: bytes, data: bytes = b"") -> bytes:
    r"""Standard input for a helper command: its text framed for :data:`HELPER_BOOT`, then ``data``.

    >>> framed(b"print(1)", b"rest")
    b'8\nprint(1)rest'
    """
    return str(len(helper)).encode("ascii") + b"\n" + helper + data


def _helper(
    key: str,
    title: str,
    phase: EnvPhaseName,
    command: Sequence[str],
    helper: bytes,
    *,
    python: str,
    data: bytes = b"",
    note: str = "",
    creates: tuple[str, ...] = (),
    undo: WslStep | None = None,
    undo_only_if_made: bool = False,
) -> WslStep:
    return WslStep(
        key=key,
        title=title,
        phase=phase,
        argv=(python, "-I", "-c", HELPER_BOOT, *command),
        stdin=framed(helper, data),
        stdin_note=note,
        output="helper",
        creates=creates,
        undo=undo,
        undo_only_if_made=undo_only_if_made,
    )


def _tool(
    key: str,
    title: str,
    phase: EnvPhaseName,
    tool: Sequence[str],
    helper: bytes,
    *,
    python: str,
    run_id: str,
    output: StepOutput,
    variables: Mapping[str, str] | None = None,
    creates: tuple[str, ...] = (),
    undo: WslStep | None = None,
    timeout_s: float | None = None,
) -> WslStep:
    """A tool run under the helper's ``run``: its group can be ended by :func:`stop_step`."""
    given = dict(variables or {})
    return WslStep(
        key=key,
        title=title,
        phase=phase,
        argv=(python, "-I", "-c", HELPER_BOOT, "run", "--run-id", run_id, "--", *tool),
        stdin=framed(helper, json.dumps({"env": given}).encode("utf-8")),
        output=output,
        creates=creates,
        undo=undo,
        run_id=run_id,
        variables=given,
        timeout_s=timeout_s,
    )


def home_step(helper: bytes, home_id: str, *, python: str = DISTRO_PYTHON, wsl_lib: str = WSL_LIB) -> WslStep:
    """Make the wizard's folder in the distro (marked with ``home_id``), or find the one there.

    Its answer (:class:`WslHome` and the distro's facts: its Python, PEP 668, the free space,
    the driver's libraries in ``wsl_lib``) decides the paths of every later step. Undone only
    when it made the folder now, and then only once nothing else is in it.
    """
    return _helper(
        "home",
        f"preparing the wizard's folder in the distro ({HOME_PATH})",
        "check",
        ("home", "--home-id", home_id, "--wsl-lib", wsl_lib),
        helper,
        python=python,
        creates=(HOME_PATH,),
        undo=home_removal_step(helper, home_id, python=python),
        undo_only_if_made=True,
    )


def creation_steps(
    request: WslEnvRequest, home: WslHome, payloads: WslPayloads, *, env_id: str
) -> tuple[WslStep, ...]:
    """The steps after :func:`home_step` that make ``request``'s environment, in order.

    uv into ``bin/uv`` (its sha256 checked inside the distro); the environment's folder with
    its marker (written first, as on Windows: ``workflow/envs/ownership.py``); the Python, when
    uv downloads one; the venv; the install; the probes; the environment report probe, which
    imports the framework and says what it sees. Each step that makes part of the environment
    is undone by removing the folder that carries ``env_id``'s marker.
    """
    python = request.distro_python
    env_path, env_python = home.env_path(request.name), home.env_python(request.name)
    remove_env = env_removal_step(payloads.helper, request.name, env_id, python=python)
    uv_variables = {
        **_UV_VARIABLES,
        "UV_PYTHON_INSTALL_DIR": posixpath.join(home.path, "python"),
        "UV_CACHE_DIR": posixpath.join(home.path, "cache"),
    }
    steps = [
        _helper(
            "uv",
            f"putting uv {payloads.uv.version or ''} in place in the distro".replace("uv  ", "uv "),
            "create",
            ("install-uv", "--sha256", payloads.uv.sha256),
            payloads.helper,
            python=python,
            data=payloads.uv.data,
            note=f"uv ({len(payloads.uv.data)} bytes, sha256 {payloads.uv.sha256})",
            creates=(home.uv,),
        ),
        _helper(
            "env",
            f"making {env_path}, marked as the wizard's",
            "create",
            ("make-env", "--name", request.name, "--id", env_id),
            payloads.helper,
            python=python,
            creates=(env_path,),
            undo=remove_env,
            undo_only_if_made=True,
        ),
    ]
    if request.python_download:
        steps.append(
            _tool(
                "python",
                f"uv installs Python {request.python} in the distro",
                "create",
                (home.uv, "python", "install", "--no-config", request.python),
                payloads.helper,
                python=python,
                run_id=_run_id(env_id, "python"),
                output="uv",
                variables={**uv_variables, "UV_PYTHON_DOWNLOADS": "automatic"},
                creates=(posixpath.join(home.path, "python"),),
            )
        )
    # uv downloads a Python only in the step above: named, and asked for by the plan.
    venv = [home.uv, "venv", "--no-config", "--allow-existing", "--no-python-downloads"]
    if request.offline:
        venv.append("--offline")
    steps.append(
        _tool(
            "venv",
            f"creating the environment with uv (Python {request.python})",
            "create",
            (*venv, "--python", request.python, env_path),
            payloads.helper,
            python=python,
            run_id=_run_id(env_id, "venv"),
            output="uv",
            variables={**uv_variables, "UV_PYTHON_DOWNLOADS": "never"},
            creates=(env_path,),
            undo=remove_env,
        )
    )
    install, install_variables = _install_command(request, home, uv_variables)
    steps.append(
        _tool(
            "install",
            f"installing {', '.join(request.requirements)}",
            "install",
            install,
            payloads.helper,
            python=python,
            run_id=_run_id(env_id, "install"),
            output="uv",
            variables=install_variables,
            creates=(env_path,),
            undo=remove_env,
        )
    )
    files = json.dumps({"files": dict(payloads.probes)}).encode("utf-8")
    steps.append(
        _helper(
            "probes",
            "copying the wizard's probes into the distro",
            "verify",
            ("install-probes",),
            payloads.helper,
            python=python,
            data=files,
            note=f"{len(payloads.probes)} probes ({', '.join(sorted(payloads.probes))})",
            creates=(home.probes,),
        )
    )
    steps.append(
        _tool(
            "verify",
            f"importing {request.framework} in the new environment and asking what it sees",
            "verify",
            (
                env_python,
                "-I",
                posixpath.join(home.probes, "env_report.py"),
                "--framework",
                request.framework,
            ),
            payloads.helper,
            python=python,
            run_id=_run_id(env_id, "verify"),
            output="report",
            timeout_s=_PROBE_TIMEOUT_S,
        )
    )
    return tuple(steps)


def _install_command(
    request: WslEnvRequest, home: WslHome, uv_variables: Mapping[str, str]
) -> tuple[tuple[str, ...], dict[str, str]]:
    """``uv pip install --python ENV/bin/python ...`` and its variables, as on Windows (``venv_backends.py``).

    An index with a login goes in ``UV_DEFAULT_INDEX`` (sent on standard input), never on a
    command line that every user of the distro, and of Windows, can read.
    """
    argv = [home.uv, "pip", "install", "--no-config", "--python", home.env_python(request.name)]
    variables = {**uv_variables, "UV_PYTHON_DOWNLOADS": "never"}
    if request.offline:
        argv += ["--offline", "--no-index"]
    elif request.index_url and url_has_secret(request.index_url):
        variables["UV_DEFAULT_INDEX"] = request.index_url
    elif request.index_url:
        argv += ["--index-url", request.index_url]
    if request.find_links:
        argv += ["--find-links", request.find_links]
    pip = ("pip",) if request.seed_pip else ()
    return (*argv, *request.requirements, *pip), variables


def live_test_step(
    helper: bytes,
    home: str,
    name: str,
    framework: str,
    *,
    run_id: str,
    probe_args: Sequence[str] = (),
    python: str = DISTRO_PYTHON,
) -> WslStep:
    """The live test (``probes/train_test.py``) in the environment ``name``; its lines are the test's events.

    ``home`` is the wizard's folder in the distro, as recorded. Its output is read as on
    Windows (``workflow/livetest/run.py``).
    """
    place = WslHome(home, "", made=False)
    return _tool(
        "live_test",
        f"the live test of {name} in the distro",
        "verify",
        (
            place.env_python(name),
            "-I",
            posixpath.join(place.probes, "train_test.py"),
            "--framework",
            framework,
            *probe_args,
        ),
        helper,
        python=python,
        run_id=run_id,
        output="live_test",
    )


def probe_step(
    helper: bytes,
    tool: Sequence[str],
    *,
    run_id: str,
    python: str = DISTRO_PYTHON,
    timeout_s: float | None = _PROBE_TIMEOUT_S,
) -> WslStep:
    """Any probe of an environment (``tool``: its interpreter, the probe's copy in the distro, its arguments).

    Run under the helper's ``run``, as the live test is, so that a cancel or a timeout stops it
    in the distro (:func:`stop_step`); its lines are the probe's own (``verify``'s environment
    report, ``test``'s events).
    """
    return _tool(
        "probe",
        "a probe of the environment in the distro",
        "verify",
        tuple(tool),
        helper,
        python=python,
        run_id=run_id,
        output="report",
        timeout_s=timeout_s,
    )


def stop_step(helper: bytes, run_id: str, *, python: str = DISTRO_PYTHON) -> WslStep:
    """End the tool that runs under ``run_id`` in the distro, and all it started (TERM, then KILL)."""
    return _helper(
        "stop",
        "stopping the step running in the distro",
        "rollback",
        ("stop", "--run-id", run_id),
        helper,
        python=python,
    )


def env_removal_step(helper: bytes, name: str, env_id: str, *, python: str = DISTRO_PYTHON) -> WslStep:
    """Remove ``envs/NAME`` if its marker is ``env_id``'s; a folder not provably so is kept and named."""
    return _helper(
        "remove_env",
        f"removing the environment {name} from the distro",
        "rollback",
        ("remove-env", "--name", name, "--id", env_id),
        helper,
        python=python,
    )


def home_removal_step(helper: bytes, home_id: str, *, python: str = DISTRO_PYTHON) -> WslStep:
    """Remove the wizard's folder if its marker is ``home_id``'s and only the wizard's own things are in it.

    uv, the probes, uv's Pythons and cache go; an environment still in ``envs/``, or a file the
    wizard did not make, keeps the folder, and is named.
    """
    return _helper(
        "remove_home",
        f"removing the wizard's folder from the distro ({HOME_PATH})",
        "rollback",
        ("remove-home", "--id", home_id),
        helper,
        python=python,
    )


def removal_steps(
    helper: bytes, name: str, env_id: str, home_id: str | None, *, python: str = DISTRO_PYTHON
) -> tuple[WslStep, ...]:
    """``env remove`` of an environment in the distro: the environment, then the wizard's folder when ``home_id``.

    The folder goes only with the last environment (it is kept, and said, while another is in it).
    """
    steps = [env_removal_step(helper, name, env_id, python=python)]
    if home_id is not None:
        steps.append(home_removal_step(helper, home_id, python=python))
    return tuple(steps)


def _run_id(env_id: str, key: str) -> str:
    # The helper takes ids of hexadecimal digits: the environment's, and the step's place.
    number = ("python", "venv", "install", "verify", "live_test").index(key)
    return f"{env_id[:30]}{number:02x}"
