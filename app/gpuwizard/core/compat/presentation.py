"""A recommendation as people read it: the headline and the plan's lines.

One presentation, as data, for every place that shows a plan: the wizard's Choose page,
``gpuwizard recommend``'s text and ``gpuwizard apply``'s preview (what carrying a plan out
changes on the machine is :mod:`gpuwizard.core.envs.changes`). Each sentence is a
:class:`~gpuwizard.core.texts.TranslatableText`: the English sentence itself (what the command
line prints), with its template marked for Qt's ``lupdate`` in the ``plans`` context and its
parameters, so the GUI translates the template and fills it again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from gpuwizard.core.compat.plan import Plan, Recommendation, quoted_requirements
from gpuwizard.core.compat.shell_commands import CommandHost, activate_command, venv_commands
from gpuwizard.core.compat.wsl_route import WslRoute
from gpuwizard.core.frameworks import framework_title
from gpuwizard.core.gpu_kinds import NON_CUDA_KINDS
from gpuwizard.core.machine.conda_engines import DEFAULT_CONDA_CHANNELS, RATTLER_ENGINE, engine_title
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText
from gpuwizard.core.wizard_command import argument_words, both_shells

# The translation context of every sentence below; lupdate reads only literal contexts, so each
# QT_TRANSLATE_NOOP call spells it out.
_CONTEXT: Final = "plans"


def _text(template: str, **params: object) -> TranslatableText:
    return TranslatableText(_CONTEXT, template, **params)


def _joined(parts: list[str], separator: str) -> TranslatableText:
    """Parts in a line, each translated on its own (the template is only placeholders: nothing to translate)."""
    template = separator.join(f"{{part{number}}}" for number in range(len(parts)))
    return TranslatableText(
        _CONTEXT, template, **{f"part{number}": part for number, part in enumerate(parts)}
    )


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
        conda_command: What conda installs: the engine's ``create`` command, or (py-rattler, which
            has no command line) the packages and their channel; None for a venv.
        pip_command: What pip installs, and from which index.
        reasons: Why this plan, then the notes (each once).
        alternatives: Other complete plans, best first, one line each.
        freshness: The data's date and source, and newer releases it does not know yet.
    """

    headline: TranslatableText
    framework: TranslatableText
    python: str
    cuda: TranslatableText
    cuda_short: TranslatableText
    driver: TranslatableText | None
    manager: TranslatableText
    conda_command: str | None
    pip_command: str
    reasons: tuple[str, ...]
    alternatives: tuple[TranslatableText, ...]
    freshness: TranslatableText | None = None


def plan_view(rec: Recommendation, *, gpu_present: bool, install_line: str | None = None) -> PlanView:
    """The presentation of ``rec``; ``gpu_present``: a GPU frameworks train on is in the machine.

    That is an NVIDIA, AMD, Intel or Apple GPU, usable or not.

    ``install_line``: the install command as it will really run on this machine, with the
    person's mirror or the offline folder (``core/envs/package_sources.py``, ``install_line``);
    None shows the plan's own ``pip install ... --index-url``.
    """
    plan = rec.plan
    parts = [f"{framework_title(plan.framework)} {plan.framework_version}"]
    if plan.torch_variant == "cpu":
        # Said in words: "(wheel cpu)" read as untranslated jargon in every language (issue 20).
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "(CPU-only build)")))
    elif plan.torch_variant:
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "(wheel {variant})"), variant=plan.torch_variant))
    framework = _joined(parts, " ")
    manager = (
        conda_environment_text(plan)
        if plan.manager == "conda"
        else _text(QT_TRANSLATE_NOOP("plans", "venv (Python virtual environment)"))
    )
    if plan.target == "wsl2":
        manager = _text(QT_TRANSLATE_NOOP("plans", "{environment} inside WSL 2"), environment=manager)
    conda: str | None = None
    if plan.manager == "conda" and plan.conda_engine == RATTLER_ENGINE:
        conda = conda_packages_text(plan)
    elif plan.manager == "conda":
        channels = "".join(f" -c {channel}" for channel in plan.conda_channels)
        conda = f"{plan.conda_engine or 'conda'} create{channels} {' '.join(plan.conda_packages)}"
    pip = f"pip install {quoted_requirements(plan.requirements)}"
    if plan.index_url:
        pip += f"\n    --index-url {plan.index_url}"  # a line of its own rather than broken at a /
    if install_line is not None:
        pip = install_line
    # The recommender gives one reason per GPU; four identical GPUs need saying once.
    reasons = tuple(dict.fromkeys((*plan.reasons, *rec.notes)))
    return PlanView(
        headline=headline(rec, gpu_present=gpu_present),
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
        freshness=freshness_text(rec),
    )


def headline(rec: Recommendation, *, gpu_present: bool) -> TranslatableText:
    """Whether, and how, the GPU can be used with the recommended plan."""
    plan, title = rec.plan, framework_title(rec.framework)
    if plan.cpu_only:
        if not gpu_present:
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
    return _gpu_headline(rec, title)


def _gpu_headline(rec: Recommendation, title: str) -> TranslatableText:
    """The headline of a plan that uses the GPU."""
    plan = rec.plan
    if plan.driver_update_required:
        return _text(
            QT_TRANSLATE_NOOP("plans", "GPU training with {framework} is possible after a driver update."),
            framework=title,
        )
    if plan.target == "wsl2" and not (
        plan.gpu_indices and frozenset(plan.gpu_indices) <= frozenset(plan.ptx_jit)
    ):
        return _text(
            QT_TRANSLATE_NOOP(
                "plans", "GPU training with {framework} is possible inside WSL 2 (Linux on this Windows)."
            ),
            framework=title,
        )
    if plan.gpu_indices and frozenset(plan.gpu_indices) <= frozenset(plan.ptx_jit):
        # Not GPU-supported in the contract's sense (DESIGN.md section 4): it may work, through
        # the driver's JIT, outside what the official build matrices cover.
        return _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "{framework} can reach the GPU only through PTX compiled at first use: it may work, but no official build covers this GPU.",
            ),
            framework=title,
        )
    # The plan uses the GPU as it is, and so does what was picked (a build of the wished release).
    if rec.gpu_supported and rec.some_release_gpu_supported:
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
    """The CUDA and cuDNN the build uses (or ROCm, XPU, MPS); in full, also where they come from."""
    if plan.device in NON_CUDA_KINDS:
        return _device_text(plan, short=short)
    return _cuda_text(plan, short=short)


def _cuda_text(plan: Plan, *, short: bool) -> TranslatableText:  # noqa: PLR0911 - one sentence per kind of build
    if plan.cpu_only and plan.cuda is not None:
        return _cuda_build_on_the_cpu(plan.cuda, short=short)
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
    if plan.cuda_wheels is not None:
        return _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "{cuda} (NVIDIA's CUDA {runtime} and cuDNN {cudnn_runtime} wheels inside the environment: "
                "no CUDA toolkit needed)",
            ),
            cuda=cuda,
            runtime=plan.cuda_wheels.cuda,
            cudnn_runtime=plan.cuda_wheels.cudnn,
        )
    return _text(
        QT_TRANSLATE_NOOP("plans", "{cuda} (comes inside the environment: no CUDA toolkit needed)"), cuda=cuda
    )


def _cuda_build_on_the_cpu(cuda: str, *, short: bool) -> TranslatableText:
    """PyPI's CUDA build where no GPU serves it (pypi_route.py), training on the CPU.

    A CUDA build all the same: its NVIDIA wheels are downloaded.
    """
    if short:
        return _text(QT_TRANSLATE_NOOP("plans", "CUDA {cuda} build, on the CPU"), cuda=cuda)
    return _text(
        QT_TRANSLATE_NOOP(
            "plans",
            "CUDA {cuda} build, running on the processor here (its NVIDIA libraries come along, unused)",
        ),
        cuda=cuda,
    )


def _device_text(plan: Plan, *, short: bool) -> TranslatableText:
    """What a ROCm, XPU or MPS build runs on."""
    if plan.device == "rocm":
        if short:
            return _text(QT_TRANSLATE_NOOP("plans", "ROCm {rocm}"), rocm=plan.rocm or "?")
        return _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "ROCm {rocm} (comes inside the environment: only the amdgpu kernel driver is needed)",
            ),
            rocm=plan.rocm or "?",
        )
    if plan.device == "xpu":
        if short:
            return _text(QT_TRANSLATE_NOOP("plans", "Intel XPU build"))
        return _text(
            QT_TRANSLATE_NOOP(
                "plans",
                "Intel XPU build (its runtime comes inside the environment: Intel's GPU driver is needed)",
            )
        )
    if short:
        return _text(QT_TRANSLATE_NOOP("plans", "Apple GPU (MPS)"))
    return _text(
        QT_TRANSLATE_NOOP("plans", "Apple GPU through Metal (MPS), part of macOS: nothing else to install")
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


def plan_line(plan: Plan) -> TranslatableText:
    """A plan in one line: framework, CUDA, Python, manager, and what it takes."""
    parts = [f"{framework_title(plan.framework)} {plan.framework_version}", cuda_text(plan, short=True)]
    parts.append(_text(QT_TRANSLATE_NOOP("plans", "Python {python}"), python=plan.python))
    if plan.manager == "conda":
        parts.append(
            _text(
                QT_TRANSLATE_NOOP("plans", "conda through {engine}: {packages}"),
                engine=engine_title(plan.conda_engine or "conda"),
                packages=conda_packages_text(plan),
            )
        )
    else:
        parts.append(plan.manager)
    if plan.cuda_wheels is not None:
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "CUDA from NVIDIA's wheels")))
    elif plan.system_cuda_toolkit_required:
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "CUDA installed on the system")))
    if plan.target == "wsl2":
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "inside WSL 2")))
    if plan.driver_update_required:
        parts.append(_text(QT_TRANSLATE_NOOP("plans", "needs a driver update")))
    return _joined(parts, " · ")


def install_commands(
    plan: Plan, *, host: CommandHost, index_options: Sequence[str] | None = None
) -> list[str]:
    """The commands that carry the plan out by hand (the wizard runs the same steps).

    ``host``: where they run (``shell_commands.command_host``): each command is written for
    its platform and shells, the interpreter and uv as the report found them there.
    ``index_options``: pip's source options as the install will use them here (a mirror, or
    ``--no-index --find-links DIR``: ``PlanSources.index_options``); None: the plan's own index.
    """
    if plan.target == "wsl2" and plan.wsl is not None and plan.manager == "venv":
        return _wsl_commands(plan, plan.wsl, index_options)
    commands: list[str] = []
    inside = "(inside WSL 2) " if plan.target == "wsl2" else ""
    if plan.system_cuda_toolkit_required and plan.cuda:
        commands.append(f"install CUDA {plan.cuda} and cuDNN {plan.cudnn} on the system")
    commands += [f"add to PATH: {entry}" for entry in plan.path_entries]
    if plan.manager == "conda":
        commands += _conda_commands(plan, inside, host)
    else:
        commands += [f"{inside}{command}" for command in venv_commands(plan, host)]
    pip = f"{inside}pip install {quoted_requirements(plan.requirements)}"
    if index_options is not None:
        pip = _with_options(pip, index_options, windows=host.windows)
    elif plan.index_url:
        pip += f" --index-url {plan.index_url}"
    commands.append(pip)
    if plan.cuda_wheels is not None:
        # What the environment's start-up hook does (probes/cuda_dll_hook.py), for people doing it by hand.
        commands.append(
            "make the DLLs visible: the wizard adds a start-up hook to the environment; by hand, "
            "put every ENV\\Lib\\site-packages\\nvidia\\*\\bin folder on PATH before starting Python"
        )
    return commands


def _with_options(command: str, options: Sequence[str], *, windows: bool) -> str:
    """``command`` with pip's source options, quoted for the shells it runs in (a folder may hold spaces).

    An index's URL is shown as it is: it holds no blank, and a hidden login (``https://***@host``)
    is a place for the person to fill in, not a word to quote.

    >>> _with_options("pip install torch", ["--no-index", "--find-links", "/tmp/my wheels"], windows=False)
    "pip install torch --no-index --find-links '/tmp/my wheels'"
    """
    quoted = [
        (option, option) if "://" in option else argument_words(option, windows=windows) for option in options
    ]
    return both_shells(
        "".join([command, *(f" {shell}" for shell, _ in quoted)]),
        "".join([command, *(f" {powershell}" for _, powershell in quoted)]),
    )


def _wsl_commands(plan: Plan, route: WslRoute, index_options: Sequence[str] | None) -> list[str]:
    """The WSL 2 route by hand: Windows made ready, then uv inside the distribution.

    The distribution's own Python is left alone: Ubuntu's has no ``venv`` module until
    ``python3-venv`` is installed with sudo, and PEP 668 refuses ``pip install`` outside an
    environment (tensorflow/tensorflow#79370). uv's own installer puts uv in ``~/.local/bin``
    (docs.astral.sh/uv, "Installing uv": ``curl -LsSf https://astral.sh/uv/install.sh | sh``),
    and ``uv venv --python`` fetches the Python the plan names. The wizard does the same with uv's
    wheel from PyPI, checked against the digest PyPI publishes, in its own folder there.
    """
    where = "(Windows, as administrator) " if route.administrator else "(Windows) "
    commands: list[str] = []
    if route.state == "restart":
        # The restart is known to be due: first, then what is left of the installation.
        commands.append("(Windows) restart Windows: an installation of WSL waits for it")
        commands += [f"{where}{command}" for command in route.windows_commands]
    else:
        commands += [f"{where}{command}" for command in route.windows_commands]
        if route.restart:
            commands.append("(Windows) restart Windows if asked to, then go on")
    distro = route.distro
    inside = f"({distro}) "
    # --cd ~: in the Linux home, not the Windows folder the prompt is in (/mnt/c/...): an
    # environment there would be slow and outside ~ (Microsoft, "Basic commands for WSL"). Quoted:
    # PowerShell 7.5 may expand a bare ~ of a native command to the Windows home.
    commands.append(
        f'(Windows) wsl -d {distro} --cd "~"   (opens {distro}\'s shell: the lines below run there)'
    )
    uv = "~/.local/bin/uv"
    pip = f"{inside}{uv} pip install {quoted_requirements(plan.requirements)}"
    if index_options is not None:
        pip = _with_options(pip, index_options, windows=False)  # run in the distribution's shell
    elif plan.index_url:
        pip += f" --index-url {plan.index_url}"
    check = (
        "python -c \"import tensorflow as tf; print(tf.config.list_physical_devices('GPU'))\""
        if plan.framework == "tensorflow"
        else 'python -c "import torch; print(torch.cuda.is_available())"'
    )
    return [
        *commands,
        # Debian's WSL image has no curl; Ubuntu's has it.
        f"{inside}curl -LsSf https://astral.sh/uv/install.sh | sh   (without curl: sudo apt install curl)",
        f"{inside}{uv} venv --python {plan.python} ENV",
        f"{inside}source ENV/bin/activate",
        pip,
        f"{inside}{check}   (lists the GPU)",
    ]


def conda_environment_text(plan: Plan) -> TranslatableText:
    """What kind of environment a conda plan makes, and which engine makes it on this machine."""
    if plan.conda_engine == RATTLER_ENGINE:
        return _text(
            QT_TRANSLATE_NOOP(
                "plans", "conda environment, made by py-rattler inside the wizard (no conda needed)"
            )
        )
    # A plan made before plans named their engine was made by conda.
    return _text(
        QT_TRANSLATE_NOOP("plans", "conda environment, made by {engine}"), engine=plan.conda_engine or "conda"
    )


def conda_packages_text(plan: Plan) -> TranslatableText:
    """``python=3.10 cudatoolkit=11.2 cudnn=8.1.0 from conda-forge``: what the conda step installs."""
    return _text(
        QT_TRANSLATE_NOOP("plans", "{packages} from {channels}"),
        packages=" ".join(plan.conda_packages),
        channels=", ".join(plan.conda_channels or DEFAULT_CONDA_CHANNELS),
    )


def _conda_commands(plan: Plan, inside: str, host: CommandHost) -> list[str]:
    """The conda steps: the found tool's commands, or what py-rattler does and its by-hand equivalent."""
    channels = "".join(f" -c {channel}" for channel in plan.conda_channels or DEFAULT_CONDA_CHANNELS)
    packages = quoted_requirements(plan.conda_packages)
    if plan.conda_engine != RATTLER_ENGINE:
        tool = plan.conda_engine or "conda"
        return [f"{inside}{tool} create -n ENV{channels} {packages}", f"{inside}{tool} activate ENV"]
    return [
        f"{inside}the wizard makes the conda environment ENV itself with py-rattler (no conda needed): "
        f"{conda_packages_text(plan)}; by hand, with conda, mamba or micromamba: "
        f"conda create -n ENV{channels} {packages}",
        # The scripts env create writes into a py-rattler environment (adapters/envs/conda_activation.py),
        # for the shells of the platform it is on.
        f"{inside}activate it without conda: {activate_command(host)}; "
        "made by hand with conda: conda activate ENV",
    ]


def freshness_text(rec: Recommendation) -> TranslatableText:
    """The data's date and where it came from, and the newer releases it does not know yet."""
    fresh = rec.freshness
    if fresh.data_origin == "bundled":
        text = _text(
            QT_TRANSLATE_NOOP("plans", "Compatibility data of {date}, bundled with the wizard."),
            date=fresh.data_generated or "?",
        )
    else:
        text = _text(
            QT_TRANSLATE_NOOP("plans", "Compatibility data of {date}, fetched: {origin}."),
            date=fresh.data_generated or "?",
            origin=fresh.data_origin,
        )
    if fresh.unverified:
        return _text(
            QT_TRANSLATE_NOOP(
                "plans", "{data} Published but not yet verified (not recommended): {versions}."
            ),
            data=text,
            versions=", ".join(fresh.unverified),
        )
    return text
