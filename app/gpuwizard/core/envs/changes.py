"""What carrying a plan out changes on this machine, and what it leaves to the person.

Shown before anything changes: on the Choose page and in ``gpuwizard apply``'s preview. Each
:class:`Change` is a :class:`~gpuwizard.core.texts.TranslatableText` in the ``plans`` context
(the sentences of :mod:`gpuwizard.core.compat.presentation` are there too), and says which of
its parameters are code (folders, packages, settings), so a page can set them apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.core.compat.plan import Plan, Recommendation
from gpuwizard.core.compat.presentation import driver_minimum
from gpuwizard.core.envs.package_sources import PlanSources, index_reason
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.variables import GpuSelectionError, activation_variables
from gpuwizard.core.machine.conda_engines import CONDA_ENGINES, DEFAULT_CONDA_CHANNELS, RATTLER_ENGINE
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

# The translation context of every sentence below; lupdate reads only literal contexts.
_CONTEXT: Final = "plans"


def _text(template: str, **params: object) -> TranslatableText:
    return TranslatableText(_CONTEXT, template, **params)


@dataclass(frozen=True)
class Change:
    """One thing carrying the plan out changes (or that the person must do).

    Attributes:
        text: The sentence.
        code: The names of its parameters that are code (folders, packages, settings).
        items: Folders listed under it, one a line.
        strong: The line that matters most (a preview: nothing changes).
    """

    text: TranslatableText
    code: tuple[str, ...] = ()
    items: tuple[str, ...] = ()
    strong: bool = False

    def plain(self) -> str:
        """As plain text: the sentence, then its items indented."""
        return "".join([str(self.text), *(f"\n    {item}" for item in self.items)])


def plan_changes(
    rec: Recommendation,
    request: SetupRequest,
    *,
    envs_folder: str,
    preview: bool = False,
    sources: PlanSources | None = None,
) -> tuple[Change, ...]:
    """What carrying out ``rec`` for ``request`` changes on this machine, and what it leaves to the person.

    ``envs_folder``: where venv environments go (the wizard's home); ``preview``: a saved report
    is shown, so nothing here changes; ``sources``: the package indexes the install will
    contact (``core/envs/package_sources.py``), each said with why.
    """
    plan, name = rec.plan, request.name
    lines: list[Change] = []
    if preview:
        lines.append(
            Change(
                _text(QT_TRANSLATE_NOOP("plans", "Nothing: this is a preview; below is what it would do.")),
                strong=True,
            )
        )
    if plan.target == "wsl2":
        return (*lines, *_wsl_changes(plan, request))
    if request.replace:
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "The existing environment {name} is replaced: it is moved aside, and put back if "
                        "the new one fails.",
                    ),
                    name=name,
                )
            )
        )
    lines.append(_environment_change(plan, request, envs_folder=envs_folder, preview=preview))
    if request.offline and request.find_links is not None:
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP("plans", "Packages come only from {folder}; nothing is downloaded."),
                    folder=str(request.find_links),
                ),
                code=("folder",),
            )
        )
    elif sources is not None:
        lines += [
            Change(
                _text(
                    QT_TRANSLATE_NOOP("plans", "Packages are downloaded from {index} ({why})."),
                    index=index.shown,
                    why=index_reason(index),
                ),
                code=("index",),
            )
            for index in sources.indexes
        ]
    lines += _setting_changes(plan, request)
    lines += _your_part(rec)
    return tuple(lines)


def _wsl_changes(plan: Plan, request: SetupRequest) -> list[Change]:
    """A ``wsl2`` plan: what Windows needs first (done by the person), then what changes in the distribution."""
    route = plan.wsl
    distro = route.distro if route is not None else "WSL 2"
    home = route.home if route is not None else "~/.local/share/gpuwizard"
    lines: list[Change] = []
    if route is not None and route.state == "unknown":
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "This report does not say what WSL there is: detect again on this Windows machine "
                        "to see what the route needs first.",
                    )
                )
            )
        )
    elif route is not None and route.state != "ready":
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "First, on Windows, you make WSL ready (the wizard does not run these): {commands}. "
                        "Then come back here.",
                    ),
                    commands=" ; ".join(route.windows_commands) or "restart Windows",
                ),
                code=("commands",),
                strong=True,
            )
        )
    packages = ", ".join([*plan.requirements, *request.extra_requirements])
    lines += [
        Change(
            _text(
                QT_TRANSLATE_NOOP(
                    "plans",
                    "Inside {distro}: a new folder {folder} holding a Python {python} environment with {packages}, "
                    "made by uv; uv and Python {python} go in {home} too. No sudo: nothing else in the "
                    "distribution changes, its own Python included.",
                ),
                distro=distro,
                folder=f"{home}/envs/{request.name}",
                python=plan.python,
                packages=packages,
                home=home,
            ),
            code=("folder", "packages", "home"),
        ),
        Change(
            _text(
                QT_TRANSLATE_NOOP(
                    "plans",
                    "Downloads: uv's Linux build from PyPI (checked against the digest PyPI publishes), "
                    "Python {python} by uv, and the packages from PyPI; CUDA and cuDNN come as pip packages.",
                ),
                python=plan.python,
            )
        ),
        Change(
            _text(
                QT_TRANSLATE_NOOP(
                    "plans",
                    "Nothing in Windows: no PATH change, no CUDA toolkit; the Windows NVIDIA driver serves WSL 2.",
                )
            )
        ),
    ]
    return lines


def _environment_change(plan: Plan, request: SetupRequest, *, envs_folder: str, preview: bool) -> Change:
    packages = ", ".join([*plan.requirements, *(["ipykernel"] if request.jupyter else [])])
    if plan.manager == "conda":
        return _conda_change(plan, request, packages, envs_folder=envs_folder, preview=preview)
    if preview:
        # A saved report is another machine's: its wizard home is not this one's.
        return Change(
            _text(
                QT_TRANSLATE_NOOP(
                    "plans",
                    "A new folder {folder} in the wizard's home folder, holding a Python {python} environment with {packages}.",
                ),
                folder=f"envs/{request.name}",
                python=plan.python,
                packages=packages,
            ),
            code=("folder", "packages"),
        )
    return Change(
        _text(
            QT_TRANSLATE_NOOP(
                "plans", "A new folder {folder} holding a Python {python} environment with {packages}."
            ),
            folder=str(request.prefix if request.prefix is not None else Path(envs_folder) / request.name),
            python=plan.python,
            packages=packages,
        ),
        code=("folder", "packages"),
    )


def _conda_change(
    plan: Plan, request: SetupRequest, packages: str, *, envs_folder: str, preview: bool
) -> Change:
    """The conda environment, and the engine that makes it: a tool asked for, else the plan's."""
    # A tool asked for makes it; else the plan's engine (a plan that names none: conda's).
    engine = request.tool if request.tool in CONDA_ENGINES else (plan.conda_engine or "conda")
    conda_packages = " ".join(plan.conda_packages)
    if engine == RATTLER_ENGINE:
        # py-rattler has no environments folder of its own: the environment goes where venvs go.
        if preview:
            folder = f"envs/{request.name}"  # a saved report is another machine's: not this home
        else:
            folder = str(request.prefix if request.prefix is not None else Path(envs_folder) / request.name)
        return Change(
            _text(
                QT_TRANSLATE_NOOP(
                    "plans",
                    "A new conda environment in {folder}, made by py-rattler inside the wizard (no conda "
                    "needed), with {conda_packages} from {channels}, then {packages} from pip.",
                ),
                folder=folder,
                conda_packages=conda_packages,
                channels=", ".join(plan.conda_channels or DEFAULT_CONDA_CHANNELS),
                packages=packages,
            ),
            code=("folder", "conda_packages", "channels", "packages"),
        )
    return Change(
        _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "A new conda environment {name} (in {engine}'s environments folder), made by {engine}, "
                "with {conda_packages}, then {packages} from pip.",
            ),
            name=request.name,
            engine=engine,
            conda_packages=conda_packages,
            packages=packages,
        ),
        code=("name", "conda_packages", "packages"),
    )


def _setting_changes(plan: Plan, request: SetupRequest) -> list[Change]:
    lines: list[Change] = []
    try:
        variables: Mapping[str, str] = activation_variables(
            plan.framework, plan.cpu_only, request.gpus, plan.device
        )
    except GpuSelectionError:
        variables = {}
    if variables:
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans", "Settings that apply only while the environment is active: {settings}."
                    ),
                    settings=", ".join(f"{key}={value}" for key, value in variables.items()),
                ),
                code=("settings",),
            )
        )
    if request.jupyter:
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP("plans", "A Jupyter kernel for this environment, for your user only.")
                )
            )
        )
    if plan.cuda_wheels is not None:
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "Inside the environment, a start-up hook (_gpuwizard_cuda_dlls.pth) that puts the "
                        "NVIDIA wheels' DLL folders on the DLL search path of its own Python processes only: "
                        "the machine's PATH is not changed.",
                    )
                )
            )
        )
    if plan.path_entries:
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "Your user PATH gets these folders (the next page shows the change first, "
                        "and it can be undone):",
                    )
                ),
                items=tuple(plan.path_entries),
            )
        )
    return lines


def _your_part(rec: Recommendation) -> list[Change]:
    plan = rec.plan
    lines: list[Change] = []
    if plan.system_cuda_toolkit_required and plan.cuda:
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "You install yourself, the wizard does not: CUDA {cuda} and cuDNN {cudnn} from NVIDIA.",
                    ),
                    cuda=plan.cuda,
                    cudnn=plan.cudnn or "?",
                )
            )
        )
    if plan.driver_update_required:
        minimum = driver_minimum(rec)
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "You install yourself, the wizard does not: an NVIDIA driver {minimum} or newer.",
                    ),
                    minimum=minimum,
                )
                if minimum
                else _text(
                    QT_TRANSLATE_NOOP(
                        "plans", "You install yourself, the wizard does not: a newer NVIDIA driver."
                    )
                )
            )
        )
    nothing_else = (
        _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "Nothing else: drivers and system files stay as they are. No administrator rights are needed.",
            )
        )
        if plan.path_entries
        else _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "Nothing else: PATH, drivers and system files stay as they are. No administrator rights are needed.",
            )
        )
    )
    lines.append(Change(nothing_else))
    return lines
