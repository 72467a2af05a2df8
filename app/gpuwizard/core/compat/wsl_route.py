"""The WSL 2 route of a plan: which distribution, and what must change on Windows before it.

A ``wsl2`` plan runs the Linux build of a framework inside a WSL 2 distribution of this Windows
machine. What it takes depends on what ``wsl.exe`` told detection (the report's ``wsl`` block):
nothing when a WSL 2 distribution is there; converting a WSL 1 distribution; installing a
distribution; or installing WSL itself, which needs the administrator's consent, a download and
possibly a restart (Microsoft, "How to install Linux on Windows with WSL",
learn.microsoft.com/windows/wsl/install: "wsl --install" is run "in an administrator PowerShell
or Windows Command Prompt" and asks to restart; a distribution is added with
``wsl --install -d NAME``; a WSL 1 one is converted with ``wsl --set-version NAME 2``).

>>> from gpuwizard.core.machine.system_report import WslDistroFacts, WslFacts
>>> facts = WslFacts(True, True, (WslDistroFacts("docker-desktop", 2), WslDistroFacts("Ubuntu-24.04", 2, True)))
>>> route = wsl_route(facts)
>>> route.distro, route.state, route.windows_commands
('Ubuntu-24.04', 'ready', ())
>>> route = wsl_route(WslFacts(False))
>>> route.state, route.administrator, route.windows_commands
('install_wsl', True, ('wsl --install -d Ubuntu-24.04',))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from gpuwizard.core.machine.system_report import WslDistroFacts, WslFacts
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

#: The distribution installed when there is none: the newest Ubuntu LTS in WSL's online list
#: (``wsl --list --online``), the one TensorFlow's pip guide tests ("Ubuntu 16.04 or higher";
#: NVIDIA's CUDA on WSL guide uses Ubuntu throughout).
DEFAULT_DISTRO: Final = "Ubuntu-24.04"
#: Where the wizard keeps what it makes inside a distribution (its Linux home there).
DISTRO_HOME: Final = "~/.local/share/gpuwizard"
#: Distributions that WSL lists but that are other programs' engines, not a place for a person's
#: environment: Docker Desktop's (docker-desktop, docker-desktop-data), Rancher Desktop's
#: (rancher-desktop, rancher-desktop-data) and Podman's machines (podman-machine-default).
_ENGINE_PREFIXES: Final = ("docker-desktop", "rancher-desktop", "podman-machine")

#: What a route's state means, in the order a person meets them.
STATES: Final = ("ready", "convert", "install_distro", "install_wsl", "virtualization", "restart", "unknown")


@dataclass(frozen=True)
class WslRoute:
    """How a ``wsl2`` plan reaches its distribution, and what changes on Windows first.

    Attributes:
        distro: The distribution the environment is made in: a WSL 2 one already there (the
            default first), else the one to convert or install.
        state: ``ready`` (nothing to change on Windows), ``convert`` (the distribution runs
            under WSL 1), ``install_distro`` (WSL is there, no usable distribution),
            ``install_wsl`` (WSL is not installed), ``virtualization`` (WSL 2 cannot start its
            VM: virtualization is off in the firmware, or the Virtual Machine Platform feature is
            missing), ``restart`` (an installation waits for a restart), ``unknown`` (the report says nothing of WSL: made elsewhere, or by an
            older wizard).
        administrator: The Windows step needs the administrator's consent (installing WSL).
        download: The Windows step downloads (WSL, a distribution image).
        restart: Windows may have to restart before the route goes on.
        windows_commands: The commands that make the Windows side ready, in order, as they run
            in cmd and PowerShell alike (empty when ``ready``).
        home: Where the wizard keeps what it makes inside the distribution.
        virtualization_off: ``wsl.exe`` said virtualization is off: WSL 2 cannot start until it
            is turned on in the firmware (no command of the wizard's does it).
    """

    distro: str
    state: str
    administrator: bool = False
    download: bool = False
    restart: bool = False
    windows_commands: tuple[str, ...] = ()
    home: str = DISTRO_HOME
    virtualization_off: bool = False


def usable_distros(facts: WslFacts) -> tuple[WslDistroFacts, ...]:
    """The distributions a person's environment can go in: not another program's engine."""
    return tuple(d for d in facts.distros if not d.name.lower().startswith(_ENGINE_PREFIXES))


def wsl_route(facts: WslFacts | None, wished: str | None = None) -> WslRoute:  # noqa: PLR0911 - one return per state: the decision table it is
    """The route on a machine whose WSL is ``facts`` (None: unknown), to ``wished`` when named."""
    if facts is None:
        return WslRoute(distro=wished or DEFAULT_DISTRO, state="unknown")
    off = facts.virtualization is False
    if facts.needs_restart:
        # After the restart, the distribution is installed as part of WSL's installation unless
        # none was asked for: then it is a step of its own (outside check of issue 39).
        waiting = _chosen(usable_distros(facts), wished)
        distro = waiting.name if waiting is not None else wished or DEFAULT_DISTRO
        return WslRoute(
            distro=distro,
            state="restart",
            restart=True,
            windows_commands=() if waiting is not None else (f"wsl --install -d {distro}",),
            virtualization_off=off,
        )
    if off and facts.installed:
        # WSL 2 cannot start its VM: the Virtual Machine Platform feature (installed with WSL,
        # as administrator) and virtualization in the firmware (by the person, in its setup).
        chosen = _chosen(usable_distros(facts), wished)
        return WslRoute(
            distro=chosen.name if chosen is not None else wished or DEFAULT_DISTRO,
            state="virtualization",
            administrator=True,
            restart=True,
            windows_commands=("wsl --install --no-distribution",),
            virtualization_off=True,
        )
    if not facts.installed:
        distro = wished or DEFAULT_DISTRO
        return WslRoute(
            distro=distro,
            state="install_wsl",
            administrator=True,
            download=True,
            restart=True,
            windows_commands=(f"wsl --install -d {distro}",),
            virtualization_off=off,
        )
    usable = usable_distros(facts)
    chosen = _chosen(usable, wished)
    if chosen is None:
        distro = wished or DEFAULT_DISTRO
        return WslRoute(
            distro=distro,
            state="install_distro",
            download=True,
            windows_commands=(f"wsl --install -d {distro}",),
            virtualization_off=off,
        )
    if chosen.version == 1:
        return WslRoute(
            distro=chosen.name,
            state="convert",
            windows_commands=(f"wsl --set-version {chosen.name} 2",),
            virtualization_off=off,
        )
    return WslRoute(distro=chosen.name, state="ready", virtualization_off=off)


def _chosen(usable: tuple[WslDistroFacts, ...], wished: str | None) -> WslDistroFacts | None:
    """The wished distribution; else the default if WSL 2, else the first WSL 2, else the default."""
    if wished is not None:
        return next((d for d in usable if d.name.lower() == wished.lower()), None)
    wsl2 = [d for d in usable if d.version == 2]
    default = next((d for d in usable if d.default), None)
    if default is not None and default.version == 2:
        return default
    if wsl2:
        return wsl2[0]
    return default or (usable[0] if usable else None)


def wsl_route_reasons(route: WslRoute) -> list[TranslatableText]:
    """Why the route runs where it does, and what it takes on Windows first (the plan's reasons).

    In the ``reasons`` translation context, as the plans' other reasons (compat/reasons.py).
    """

    def said(template: str, **params: object) -> TranslatableText:
        return TranslatableText("reasons", template, **params)

    reasons = [
        said(
            QT_TRANSLATE_NOOP(
                "reasons", "Runs inside WSL 2 ({distro}), which uses this GPU through the Windows driver."
            ),
            distro=route.distro,
        )
    ]
    command = route.windows_commands[0] if route.windows_commands else ""
    if route.state == "install_wsl":
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "WSL is not installed. Before anything else changes, installing it ('{command}') "
                    "needs the administrator's consent and a download, and Windows may have to "
                    "restart; the wizard goes on where it stopped.",
                ),
                command=command,
            )
        )
    elif route.state == "install_distro":
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "WSL has no Linux distribution for the environment: '{command}' downloads "
                    "{distro} first (no administrator needed).",
                ),
                command=command,
                distro=route.distro,
            )
        )
    elif route.state == "convert":
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "{distro} runs under WSL 1, which has no GPU: '{command}' converts it to WSL 2 "
                    "first (its files are kept).",
                ),
                command=command,
                distro=route.distro,
            )
        )
    elif route.state == "restart":
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons", "An installation of WSL waits for Windows to restart: restart, then go on."
                )
            )
        )
    elif route.state == "virtualization":
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "WSL 2 cannot start its virtual machine: turn virtualization on in the computer's "
                    "firmware settings (Intel VT-x or AMD-V/SVM), run '{command}' as administrator for "
                    "the Virtual Machine Platform feature, and restart Windows.",
                ),
                command=command,
            )
        )
    if route.state in ("install_wsl", "install_distro"):
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "{distro}'s first start asks you for a Linux user name and password (they need not "
                    "match Windows').",
                ),
                distro=route.distro,
            )
        )
    elif route.state == "unknown":
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "This report does not say whether WSL is installed: detect again on this "
                    "Windows machine to know what the route needs first.",
                )
            )
        )
    if route.virtualization_off and route.state != "virtualization":
        reasons.append(
            said(
                QT_TRANSLATE_NOOP(
                    "reasons",
                    "WSL says virtualization is off: turn it on in the firmware settings (Intel VT-x "
                    "or AMD-V/SVM) before WSL 2 can start.",
                )
            )
        )
    reasons.append(
        said(
            QT_TRANSLATE_NOOP(
                "reasons",
                "Inside {distro}, the wizard keeps everything it makes under {home}: uv, Python and "
                "the environment (no sudo, and the distribution's own Python is left alone).",
            ),
            distro=route.distro,
            home=route.home,
        )
    )
    return reasons
