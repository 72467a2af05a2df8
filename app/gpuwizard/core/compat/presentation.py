"""A recommendation as people read it: the headline, the plan's lines, what it will change here.

One presentation, as data, for every place that shows a plan: the wizard's Choose page,
``gpuwizard recommend``'s text and ``gpuwizard apply``'s preview. Each sentence is a
:class:`~gpuwizard.core.texts.TranslatableText`: the English sentence itself (what the command
line prints), with its template marked for Qt's ``lupdate`` in the ``plans`` context and its
parameters, so the GUI translates the template and fills it again. A :class:`Change` also says
which parameters are code (folders, packages, commands), so a page can set them apart.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from gpuwizard.core.compat.plan import Plan, Recommendation
from gpuwizard.core.envs.request import SetupRequest
from gpuwizard.core.envs.variables import GpuSelectionError, activation_variables
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

# The translation context of every sentence below; lupdate reads only literal contexts, so each
# QT_TRANSLATE_NOOP call spells it out.
_CONTEXT: Final = "plans"


def _text(template: str, **params: object) -> TranslatableText:
    return TranslatableText(_CONTEXT, template, **params)


@dataclass(frozen=True)
class PlanView:
    """The plan's lines, in the order the Choose page and ``recommend`` show them.

    Attributes:
        headline: Whether, and how, the GPU can be used (one sentence).
        framework: ``PyTorch 2.13.0 (wheel cu126)``.
        python: The Python version of the environment.
        cuda: What the build uses and where it comes from; ``cuda_short`` without the where.
        driver: The driver the plan needs, against the one installed; None for CPU builds.
        manager: What kind of environment, and where it runs (WSL 2).
        conda_command: What conda installs; None for a venv.
        pip_command: What pip installs, and from which index.
        reasons: Why this plan, then the notes (each once).
        alternatives: Other complete plans, best first, one line each.
    """

    headline: TranslatableText
    framework: str
    python: str
    cuda: TranslatableText
    cuda_short: TranslatableText
    driver: TranslatableText | None
    manager: TranslatableText
    conda_command: str | None
    pip_command: str
    reasons: tuple[str, ...]
    alternatives: tuple[str, ...]


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


def plan_view(rec: Recommendation, *, nvidia_gpu_present: bool) -> PlanView:
    """The presentation of ``rec``; ``nvidia_gpu_present``: an NVIDIA GPU is in the machine (usable or not)."""
    plan = rec.plan
    version = plan.framework_version
    framework = f"{framework_title(plan.framework)} {version}"
    if plan.torch_variant:
        framework += " " + _text(QT_TRANSLATE_NOOP("plans", "(wheel {variant})"), variant=plan.torch_variant)
    manager = (
        _text(QT_TRANSLATE_NOOP("plans", "conda environment"))
        if plan.manager == "conda"
        else _text(QT_TRANSLATE_NOOP("plans", "venv (Python virtual environment)"))
    )
    if plan.target == "wsl2":
        manager = _text(QT_TRANSLATE_NOOP("plans", "{environment} inside WSL 2"), environment=manager)
    conda = None
    if plan.manager == "conda":
        channels = "".join(f" -c {channel}" for channel in plan.conda_channels)
        conda = f"conda create{channels} {' '.join(plan.conda_packages)}"
    pip = f"pip install {' '.join(plan.requirements)}"
    if plan.index_url:
        pip += f"\n    --index-url {plan.index_url}"  # a line of its own rather than broken at a /
    # The recommender gives one reason per GPU; four identical GPUs need saying once.
    reasons = tuple(dict.fromkeys((*plan.reasons, *rec.notes)))
    return PlanView(
        headline=headline(rec, nvidia_gpu_present=nvidia_gpu_present),
        framework=framework,
        python=plan.python,
        cuda=cuda_text(plan),
        cuda_short=cuda_text(plan, short=True),
        driver=driver_text(rec),
        manager=manager,
        conda_command=conda,
        pip_command=pip,
        reasons=reasons,
        alternatives=tuple(plan_line(alternative) for alternative in rec.alternatives),
    )


def headline(rec: Recommendation, *, nvidia_gpu_present: bool) -> TranslatableText:
    """Whether, and how, the GPU can be used with the recommended plan."""
    plan, title = rec.plan, framework_title(rec.framework)
    if plan.cpu_only:
        if not nvidia_gpu_present:
            return _text(
                QT_TRANSLATE_NOOP(
                    "plans", "No NVIDIA GPU here: {framework} will train on the CPU (slower, but it works)."
                ),
                framework=title,
            )
        return _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "{framework} will train on the CPU only: the GPU cannot be used (the reasons are below).",
            ),
            framework=title,
        )
    if plan.driver_update_required:
        return _text(
            QT_TRANSLATE_NOOP("plans", "GPU training with {framework} is possible after a driver update."),
            framework=title,
        )
    if plan.target == "wsl2":
        return _text(
            QT_TRANSLATE_NOOP(
                "plans", "GPU training with {framework} is possible inside WSL 2 (Linux on this Windows)."
            ),
            framework=title,
        )
    if rec.gpu_supported:
        return _text(
            QT_TRANSLATE_NOOP("plans", "GPU training with {framework} is possible on this machine as it is."),
            framework=title,
        )
    return _text(
        QT_TRANSLATE_NOOP(
            "plans",
            "GPU training with {framework} is possible with the plan below, not with exactly what you picked.",
        ),
        framework=title,
    )


def cuda_text(plan: Plan, *, short: bool = False) -> TranslatableText:
    """The CUDA and cuDNN the build uses; in full, also where they come from."""
    if plan.cpu_only or plan.cuda is None:
        if short:
            return _text(QT_TRANSLATE_NOOP("plans", "CPU build"))
        return _text(QT_TRANSLATE_NOOP("plans", "CPU build: no CUDA, runs on the processor"))
    if plan.cudnn:
        cuda = _text(
            QT_TRANSLATE_NOOP("plans", "CUDA {cuda}, cuDNN {cudnn}"), cuda=plan.cuda, cudnn=plan.cudnn
        )
    else:
        cuda = _text(QT_TRANSLATE_NOOP("plans", "CUDA {cuda}"), cuda=plan.cuda)
    if short:
        return cuda
    if plan.system_cuda_toolkit_required:
        return _text(
            QT_TRANSLATE_NOOP(
                "plans", "{cuda} (must be installed on the system: the wizard does not install it)"
            ),
            cuda=cuda,
        )
    return _text(
        QT_TRANSLATE_NOOP("plans", "{cuda} (comes inside the environment: no CUDA toolkit needed)"), cuda=cuda
    )


def driver_minimum(rec: Recommendation) -> str | None:
    """The lowest NVIDIA driver the plan needs on the OS whose driver serves it (None: no GPU build)."""
    plan = rec.plan
    if plan.cpu_only or not plan.min_driver:
        return None
    # In WSL 2 the driver is the Windows one.
    driver_os = "windows" if plan.target == "wsl2" else rec.cuda_numbers.driver_os
    return plan.min_driver.get(driver_os)


def driver_text(rec: Recommendation) -> TranslatableText | None:
    """The driver the plan needs, against the one this machine has."""
    minimum = driver_minimum(rec)
    if minimum is None:
        return None
    installed = rec.cuda_numbers.driver
    if installed is None:
        return _text(
            QT_TRANSLATE_NOOP("plans", "{minimum} or newer; no NVIDIA driver answers now"), minimum=minimum
        )
    if rec.plan.driver_update_required:
        return _text(
            QT_TRANSLATE_NOOP("plans", "{minimum} or newer; you have {driver}: update it first"),
            minimum=minimum,
            driver=installed,
        )
    return _text(
        QT_TRANSLATE_NOOP("plans", "{minimum} or newer; you have {driver} (fine)"),
        minimum=minimum,
        driver=installed,
    )


def plan_line(plan: Plan) -> str:
    """A plan in one line: framework, CUDA, Python, manager, and what it takes."""
    parts = [f"{framework_title(plan.framework)} {plan.framework_version}", cuda_text(plan, short=True)]
    parts.append(_text(QT_TRANSLATE_NOOP("plans", "Python {python}"), python=plan.python))
    parts.append(plan.manager)
    if plan.target == "wsl2":
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "inside WSL 2")))
    if plan.driver_update_required:
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "needs a driver update")))
    return " · ".join(parts)


def install_commands(plan: Plan) -> list[str]:
    """The commands that carry the plan out by hand (the wizard runs the same steps)."""
    commands: list[str] = []
    inside = "(inside WSL 2) " if plan.target == "wsl2" else ""
    if plan.system_cuda_toolkit_required and plan.cuda:
        commands.append(f"install CUDA {plan.cuda} and cuDNN {plan.cudnn} on the system")
    commands += [f"add to PATH: {entry}" for entry in plan.path_entries]
    if plan.manager == "conda":
        channels = "".join(f" -c {channel}" for channel in plan.conda_channels)
        commands.append(f"{inside}conda create -n ENV{channels} {' '.join(plan.conda_packages)}")
        commands.append(f"{inside}conda activate ENV")
    else:
        commands.append(f"{inside}python{plan.python} -m venv ENV   (or: uv venv --python {plan.python} ENV)")
    pip = f"{inside}pip install {' '.join(plan.requirements)}"
    if plan.index_url:
        pip += f" --index-url {plan.index_url}"
    commands.append(pip)
    return commands


def plan_changes(
    rec: Recommendation, request: SetupRequest, *, envs_folder: str, preview: bool = False
) -> tuple[Change, ...]:
    """What carrying out ``rec`` for ``request`` changes on this machine, and what it leaves to the person.

    ``envs_folder``: where venv environments go (the wizard's home); ``preview``: a saved report
    is shown, so nothing here changes.
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
        lines.append(
            Change(
                _text(
                    QT_TRANSLATE_NOOP(
                        "plans",
                        "Nothing in Windows: this plan runs inside WSL 2. Start the wizard inside "
                        "your WSL 2 Linux to set it up there.",
                    )
                )
            )
        )
        return tuple(lines)
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
    lines += _setting_changes(plan, request)
    lines += _your_part(rec)
    return tuple(lines)


def _environment_change(plan: Plan, request: SetupRequest, *, envs_folder: str, preview: bool) -> Change:
    packages = ", ".join([*plan.requirements, *(["ipykernel"] if request.jupyter else [])])
    if plan.manager == "conda":
        return Change(
            _text(
                QT_TRANSLATE_NOOP(
                    "plans",
                    "A new conda environment {name} (in conda's environments folder) with {conda_packages}, "
                    "then {packages} from pip.",
                ),
                name=request.name,
                conda_packages=" ".join(plan.conda_packages),
                packages=packages,
            ),
            code=("name", "conda_packages", "packages"),
        )
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


def _setting_changes(plan: Plan, request: SetupRequest) -> list[Change]:
    lines: list[Change] = []
    try:
        variables: Mapping[str, str] = activation_variables(plan.framework, plan.cpu_only, request.gpus)
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
