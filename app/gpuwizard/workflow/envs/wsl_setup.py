"""The WSL 2 route carried out from Windows (issue 39, point 3): checked, made in the distro, recorded.

``gpuwizard env create NAME --framework tensorflow --wsl [DISTRO]``, and the Install page for a
``wsl2`` plan, go through here:

1. :func:`plan_wsl_setup`: the request checked against the machine's report (its ``wsl`` block)
   and the plan; nothing changes. A distribution that is not ready (WSL not installed, a WSL 1
   distribution, none at all, a restart pending) is refused with what it takes, in one line:
   the commands that make it ready are the plan's ``wsl.windows_commands``, run by the person
   (installing WSL needs the administrator and creating the distribution's Linux user is
   interactive).
2. :func:`run_wsl_setup`: uv's Linux binary fetched and checked (:mod:`.wsl_uv`), the
   environment made inside the distribution (:mod:`.wsl_create`, the same events as any
   environment), then recorded here (``manager: wsl``, the distribution, the wizard's folder
   there and its marker's id), so that ``env list`` and ``env remove`` find it by name.

:func:`remove_wsl_record` is ``env remove`` for such an environment: in the distribution only
what holds the wizard's marker with the recorded id goes (the wizard's folder there with the
last environment), then the record.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path, PureWindowsPath
from typing import Final

from gpuwizard import probes
from gpuwizard.core.compat.plan import Plan, Recommendation
from gpuwizard.core.compat.wsl_route import WslRoute, wsl_route
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.envs.uv_wheel import UvBinary
from gpuwizard.core.envs.wsl_steps import WslEnvRequest
from gpuwizard.core.events import EventSink
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.envs.prepare import SetupRefused
from gpuwizard.workflow.envs.wsl_create import (
    DistroTransport,
    WslRemoval,
    create_wsl_environment,
    read_payloads,
    remove_wsl_environment,
)
from gpuwizard.workflow.state.env_registry import (
    EnvRecord,
    drop_record,
    find_record,
    load_records,
    save_record,
)
from gpuwizard.workflow.state.wsl_pending import WslStepRun, drop_wsl_step, load_wsl_step, save_wsl_step

#: Makes the transport into a distribution (on Windows: ``adapters.wsl.distro_transport``).
TransportFactory = Callable[[str], DistroTransport]
#: Supplies uv's Linux binary for an architecture (on Windows: ``wsl_uv.fetch_wsl_uv``).
UvSupplier = Callable[[str], UvBinary]


@dataclass(frozen=True)
class WslSetup:
    """A request checked for the WSL 2 route: what will be made, where.

    Attributes:
        report: The machine (Windows, with its ``wsl`` block).
        request: The person's request.
        recommendation: The recommendation whose ``plan`` is the ``wsl2`` plan carried out.
        route: The distribution and its state (``ready`` here).
        env_request: What is sent into the distribution.
    """

    report: SystemReport
    request: SetupRequest
    recommendation: Recommendation
    route: WslRoute
    env_request: WslEnvRequest

    @property
    def plan(self) -> Plan:
        """The ``wsl2`` plan carried out."""
        return self.recommendation.plan


def with_wsl_plan(rec: Recommendation) -> Recommendation | None:
    """``rec`` with its best ``wsl2`` plan first (the plan itself, or the first such alternative); None: none."""
    if rec.plan.target == "wsl2":
        return rec
    chosen = next((plan for plan in rec.alternatives if plan.target == "wsl2"), None)
    if chosen is None:
        return None
    others = tuple(plan for plan in rec.alternatives if plan is not chosen)
    return replace(rec, plan=chosen, alternatives=(rec.plan, *others))


def distro_path(windows: Path | str) -> str:
    r"""A Windows folder as the distribution sees it: ``C:\wheels`` -> ``/mnt/c/wheels``.

    WSL mounts each fixed drive at ``/mnt/<letter>`` (Microsoft, "Working across Windows and Linux
    file systems"; ``automount.root`` in wsl.conf moves it, which the wizard does not read).

    >>> distro_path(r"C:\Users\Zoë Martín\wheels")
    '/mnt/c/Users/Zoë Martín/wheels'

    Raises:
        SetupRefused: Not a folder on a drive letter (a network share: \\server\share).
    """
    path = PureWindowsPath(str(windows))
    drive = path.drive
    if len(drive) != 2 or drive[1] != ":" or not drive[0].isalpha():
        raise SetupRefused(
            f"{windows}: the WSL 2 route reads folders on a drive (C:\\...), not {drive or 'this path'}"
        )
    return "/".join(["/mnt", drive[0].lower(), *path.parts[1:]])


def wsl_route_for(
    report: SystemReport, recommendation: Recommendation, *, distro: str | None = None
) -> tuple[Recommendation, WslRoute]:
    """The recommendation with its ``wsl2`` plan first, and the route to its distribution.

    Raises:
        SetupRefused: Not a Windows report, or no ``wsl2`` plan for the wish.
    """
    if report.os.family != "windows":
        raise SetupRefused(
            "--wsl makes an environment inside WSL 2 from Windows; inside a WSL 2 distribution, run the "
            "wizard there without --wsl"
        )
    rec = with_wsl_plan(recommendation)
    if rec is None:
        raise SetupRefused(
            f"no WSL 2 route for {recommendation.plan.framework} {recommendation.plan.framework_version} here: "
            "it runs natively on Windows (recommend shows why)"
        )
    plan = rec.plan
    route = plan.wsl if plan.wsl is not None and distro is None else wsl_route(report.wsl, distro)
    return rec, route


def plan_wsl_setup(
    report: SystemReport, request: SetupRequest, recommendation: Recommendation, *, distro: str | None = None
) -> WslSetup:
    """Check ``request`` for the WSL 2 route on the machine ``report`` describes; nothing changes.

    Raises:
        SetupRefused: The route cannot be carried out as asked (one line: why, and what to do).
    """
    rec, route = wsl_route_for(report, recommendation, distro=distro)
    plan = rec.plan
    _refuse_options(request)
    if find_record(request.name) is not None:
        raise SetupRefused(
            f"an environment called {request.name!r} exists; choose another name or remove it first"
        )
    if route.state != "ready":
        raise SetupRefused(_not_ready(route, load_wsl_step()))
    find_links = distro_path(request.find_links) if request.find_links is not None else None
    offline = request.offline
    env_request = WslEnvRequest(
        name=request.name,
        framework=plan.framework,
        framework_version=plan.framework_version,
        python=plan.python,
        requirements=(*plan.requirements, *request.extra_requirements),
        find_links=find_links,
        offline=offline,
        # uv brings the plan's Python (python-build-standalone, its own checksums): the
        # distribution's may be another (Ubuntu 24.04 has 3.12); offline nothing is fetched.
        python_download=not offline,
        seed_pip=not offline or _has_pip_wheel(request.find_links),
        distro=route.distro,
    )
    return WslSetup(report, request, rec, route, env_request)


#: The states of a route whose Windows step the wizard can run (when the person agrees).
WINDOWS_STEPS: Final = ("install_wsl", "install_distro", "convert")


def run_windows_step(route: WslRoute, run_step: Callable[[str, str], int]) -> WslStepRun:
    """Run the Windows step ``route`` needs (the person agreed); what ran, as recorded.

    Recorded before it runs and again with its exit status: installing WSL usually ends in a
    restart, after which ``wsl.exe`` cannot tell a pending installation from none; the record
    is how the next run knows what it asked and goes on (``plan_wsl_setup`` says so).
    ``run_step(step, distro)`` is ``adapters.wsl.run_windows_step`` on Windows.

    Raises:
        SetupRefused: The route needs no Windows step the wizard can run (a pending restart, an
            unknown state, or nothing at all).
    """
    if route.state not in WINDOWS_STEPS:
        raise SetupRefused(
            _not_ready(route, load_wsl_step())
            if route.state != "ready"
            else "WSL is ready: nothing to set up"
        )
    ran = WslStepRun(
        distro=route.distro,
        step=route.state,
        ran_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        exit_code=-1,
    )
    save_wsl_step(ran)
    ran = replace(ran, exit_code=run_step(route.state, route.distro))
    save_wsl_step(ran)
    return ran


def _refuse_options(request: SetupRequest) -> None:
    """What the WSL 2 route does not do, refused before anything is made."""
    refused = [
        (request.manager == "conda", "--manager conda: the WSL 2 route makes a venv with uv"),
        (request.tool not in (None, "uv"), f"--tool {request.tool}: the WSL 2 route makes the venv with uv"),
        (
            request.prefix is not None,
            "--prefix: inside the distribution, environments go in ~/.local/share/gpuwizard/envs",
        ),
        (request.replace, "--replace: remove the environment first (env remove), then make it again"),
        (bool(request.channels), "--channel: the WSL 2 route installs with uv, not conda"),
        (
            request.jupyter,
            "--jupyter: inside WSL 2, install jupyterlab into the environment (env create says how)",
        ),
        (
            request.gpus is not None,
            "--gpus: every GPU WSL 2 passes through is seen; choose with CUDA_VISIBLE_DEVICES",
        ),
    ]
    for asked, why in refused:
        if asked:
            raise SetupRefused(why)


def _not_ready(route: WslRoute, asked: WslStepRun | None = None) -> str:  # noqa: PLR0911 - one return per state
    """Why the distribution is not ready, and the commands that make it so (one line)."""
    commands = " then ".join(f"`{command}`" for command in route.windows_commands)
    if asked is not None and asked.step == "install_wsl" and route.state in ("install_wsl", "restart"):
        # After WSL's installation, until Windows restarts, wsl.exe says it is not installed.
        return (
            f"WSL's installation ran on {asked.ran_at} (exit {asked.exit_code}): restart Windows if you have "
            f"not, open {asked.distro} once to create its Linux user, then run this again"
        )
    if route.state == "install_wsl":
        return (
            f"WSL is not installed: run {commands} in an administrator PowerShell or cmd, "
            f"restart Windows if asked, open {route.distro} once to create its Linux user, then run this again"
        )
    if route.state == "install_distro":
        return (
            f"WSL has no distribution for the environment: run {commands}, create its "
            "Linux user, then run this again"
        )
    if route.state == "convert":
        return (
            f"{route.distro} runs under WSL 1, which cannot use the GPU: run {commands}, then run this again"
        )
    if route.state == "restart":
        return f"WSL's installation waits for Windows to restart: restart{', then run ' + commands if commands else ''}, then run this again"
    if route.state == "virtualization":
        return (
            "WSL 2 cannot start its virtual machine: turn virtualization on in the firmware settings (Intel VT-x "
            f"or AMD-V/SVM), run {commands} in an administrator PowerShell or cmd, restart Windows, then run this again"
        )
    return "this report does not say what WSL there is: detect again on this Windows machine"


def _has_pip_wheel(folder: Path | None) -> bool:
    return folder is not None and any(folder.glob("pip-*.whl"))


def run_wsl_setup(
    setup: WslSetup,
    on_event: EventSink,
    cancel: threading.Event,
    *,
    transport: TransportFactory,
    uv: UvSupplier,
) -> EnvResult:
    """Make the environment ``setup`` checked, inside its distribution, and record it; the result is the last event.

    ``uv`` is asked for uv's Linux binary for the machine's architecture first: a refusal (no
    HTTPS, a digest or publisher that does not match) or a failed download ends the run as
    ``failed`` with nothing changed in the distribution.
    """
    try:
        binary = uv(setup.report.os.arch)
    except Exception as error:  # noqa: BLE001 - the supplier's errors are all "no uv": said, not raised
        result = EnvResult(
            status="failed", name=setup.request.name, error=f"uv for the distribution: {error}"
        )
        on_event(result)
        return result
    creation = create_wsl_environment(
        setup.env_request, read_payloads(binary), transport(setup.route.distro), on_event, cancel
    )
    result = creation.result
    if creation.ok:
        drop_wsl_step()  # the route went past the Windows step it may have waited on
    if creation.ok and creation.home is not None:
        save_record(
            EnvRecord(
                name=setup.request.name,
                path=result.path or creation.home.env_path(setup.request.name),
                python=result.python or creation.home.env_python(setup.request.name),
                manager="wsl",
                framework=setup.plan.framework,
                framework_version=(result.framework_version or setup.plan.framework_version).split("+")[0],
                framework_build=result.framework_build or "",
                tool="uv",
                python_version=setup.plan.python,
                created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
                log=result.log,
                id=creation.env_id,
                device=setup.plan.device,
                distro=setup.route.distro,
                wsl_home=creation.home.path,
                wsl_home_id=creation.home.home_id,
            )
        )
    return result


def remove_wsl_record(record: EnvRecord, transport: TransportFactory) -> WslRemoval:
    """Remove ``record``'s environment from its distribution, then forget it when nothing of it is left.

    The wizard's folder in the distribution goes with the last of the wizard's environments
    there (and only what holds its marker). The record is kept when the environment could not
    be removed, so that a later ``env remove`` tries again.

    Raises:
        CommandNotFound: The distribution cannot be started; nothing was changed.
    """
    others = [
        r
        for r in load_records()
        if r.manager == "wsl" and r.distro == record.distro and r.name != record.name
    ]
    removal = remove_wsl_environment(
        transport(record.distro),
        probes.script("wsl_home").read_bytes(),
        record.name,
        record.id,
        home_id=None if others else (record.wsl_home_id or None),
    )
    if not removal.problems:
        drop_record(record.name)
    return removal


def run_windows_step_here(route: WslRoute) -> WslStepRun:
    """:func:`run_windows_step` on this Windows: ``wsl.exe`` from System32 (never one on PATH).

    Raises:
        SetupRefused: This Windows has no ``wsl.exe``, or the route needs no step the wizard runs.
        ElevationDeclined: The administrator prompt was declined; nothing ran.
    """
    from gpuwizard.adapters import wsl  # noqa: PLC0415 - Windows only

    exe = wsl.find_wsl_exe(os.environ)
    if exe is None:
        raise SetupRefused(
            "this Windows has no wsl.exe (Windows 10 version 2004 or newer has it): update Windows"
        )
    return run_windows_step(route, lambda step, distro: wsl.run_windows_step(str(exe), step, distro))


def not_ready_reason(route: WslRoute) -> str:
    """Why ``route``'s distribution is not ready, and what it takes (one line), the step recorded included."""
    return _not_ready(route, load_wsl_step())
