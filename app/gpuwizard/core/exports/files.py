"""The plan as files for other targets: a pip requirements file and a conda ``environment.yml``.

Pure: a plan (from :func:`~gpuwizard.core.compat.recommend.recommend`, or the exact build of an
environment the wizard made) in, file text out. The Dockerfile lives beside this in
:mod:`gpuwizard.core.exports.docker`, because a container is a Linux machine whatever the host is
and gets a plan of its own.

The pins are exact: a wheel from the PyTorch index is pinned with its local label
(``torch==2.13.0+cu126``), which only that index serves (PyPI takes no local versions, PEP 440
"Local version identifiers": https://peps.python.org/pep-0440/#local-version-identifiers),
together with the ``--index-url`` line, the form PyTorch's own install commands use
(https://pytorch.org/get-started/locally/). pip reads that option line inside a requirements
file (https://pip.pypa.io/en/stable/reference/requirements-file-format/#global-options), and
conda hands an ``environment.yml``'s ``pip:`` list to pip as such a file, option lines
included (conda's own example: https://github.com/conda/conda/blob/main/tests/conda_env/support/advanced-pip/environment.yml).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

from gpuwizard.core.compat.plan import Plan, Recommendation, describe_min_driver, plan_build_name
from gpuwizard.core.compat.tables import CompatData, minor_of
from gpuwizard.core.machine.system_report import SystemReport, gpu_list
from gpuwizard.core.wizard_command import argument_words, shell_command

#: The formats ``gpuwizard export --format`` writes.
EXPORT_FORMATS: Final = ("dockerfile", "environment.yml", "requirements")

#: The conda channels of every exported environment: conda-forge only. ``nodefaults`` keeps a
#: user's configured ``defaults`` channel out (conda's docs, "Creating an environment file
#: manually": https://docs.conda.io/projects/conda/en/latest/user-guide/tasks/manage-environments.html).
#: The ``pytorch`` channel is not used: its last release was 2.5 (policies.json,
#: ``pytorch_conda_channel_ended``), so PyTorch comes from pip inside the environment.
CONDA_CHANNELS: Final = ("conda-forge", "nodefaults")

_OS_NAMES: Final = {"windows": "Windows", "linux": "Linux", "darwin": "macOS"}


class ExportError(ValueError):
    """The plan cannot be written in the asked format (one line; exit code 2)."""


@dataclass(frozen=True)
class Export:
    """What one exported file describes.

    Attributes:
        plan: The plan written out (its pins are exact, see :func:`pinned_requirements`).
        machine: The machine it was made for (its GPUs and driver).
        origin: Where the plan comes from, for the header (``the recommendation for ...``).
        name: The environment or image name.
        recommendation: The recommendation the plan was taken from, for its findings.
    """

    plan: Plan
    machine: SystemReport
    origin: str
    name: str
    recommendation: Recommendation | None = None


# --- the plan of an environment the wizard made ----------------------------------------------


def plan_with_build(recommendation: Recommendation, build: str | None, compat: CompatData) -> Plan:
    """The plan of an environment whose framework build is ``build`` (``2.13.0+cu126``).

    The recommended plan or an alternative that installs the same build when there is one;
    otherwise the plan with its pins, variant, CUDA and minimum driver set to that build's
    (the environment is what it is, whatever would be recommended now).
    """
    plan = recommendation.plan
    if not build or plan.framework != "pytorch":
        return plan
    version, _, label = build.partition("+")
    for candidate in (plan, *recommendation.alternatives):
        if candidate.framework_version != version:
            continue
        if not label and candidate.index_url is None:
            return candidate
        if label and candidate.torch_variant == label:
            # A local label comes only from the PyTorch index, even where PyPI has the same variant.
            return replace(candidate, index_url=compat.torch_index_url.format(variant=label))
    if not label:
        # No local label: the build PyPI serves by default for that release.
        return replace(plan, framework_version=version, requirements=(f"torch=={version}",), index_url=None)
    release = next((r for r in compat.pytorch if r.version == minor_of(version)), None)
    variant = next((v for v in release.variants if v.name == label), None) if release else None
    if variant is None:
        raise ExportError(
            f"the environment's build torch {build} is not in the compatibility data; "
            "run gpuwizard recommend --refresh or export with --framework instead of --env"
        )
    return replace(
        plan,
        framework_version=version,
        cpu_only=variant.is_cpu,
        cuda=variant.cuda,
        cudnn=variant.cudnn,
        torch_variant=variant.name,
        requirements=(f"torch=={version}",),
        index_url=compat.torch_index_url.format(variant=variant.name),
        min_driver=(
            {
                "linux": compat.min_driver(variant.cuda, "linux"),
                "windows": compat.min_driver(variant.cuda, "windows"),
            }
            if variant.cuda
            else None
        ),
        summary=f"PyTorch {build} for Python {plan.python}",
    )


# --- pins -------------------------------------------------------------------------------------


def pinned_requirements(plan: Plan) -> tuple[str, ...]:
    """The plan's requirements, each pinned to the exact build.

    A torch wheel from the PyTorch index gets its local label (``torch==2.13.0+cu126``): the
    same pin selects exactly that file, and fails loudly on any index that lacks it.

    >>> plan = Plan("pytorch", "2.13.0", "3.12", False, "12.6", "9.10", "cu126", ("torch==2.13.0",),
    ...             "https://download.pytorch.org/whl/cu126")
    >>> pinned_requirements(plan)
    ('torch==2.13.0+cu126',)
    """
    if plan.framework != "pytorch" or plan.index_url is None or not plan.torch_variant:
        return plan.requirements
    return tuple(
        f"{line}+{plan.torch_variant}" if re.fullmatch(r"torch==[0-9.]+", line) else line
        for line in plan.requirements
    )


def pip_option_lines(plan: Plan) -> tuple[str, ...]:
    """The pip option lines the requirements need (the PyTorch index), before them."""
    return (f"--index-url {plan.index_url}",) if plan.index_url else ()


# --- headers ----------------------------------------------------------------------------------


def describe_machine(report: SystemReport) -> str:
    """``Windows, NVIDIA GeForce RTX 3060 (8.6), driver 546.33`` for headers."""
    os_name = _OS_NAMES.get(report.os.family, report.os.family)
    if report.os.wsl:
        os_name += " (WSL 2)"
    gpus = report.nvidia_gpus
    named = gpu_list(gpus) if gpus else "no NVIDIA GPU"
    capabilities = sorted({g.compute_capability for g in gpus if g.compute_capability})
    if capabilities:
        named += f" (compute capability {', '.join(capabilities)})"
    driver = f"driver {report.driver.version}" if report.driver else "no NVIDIA driver"
    return f"{os_name}, {named}, {driver}"


def driver_line(plan: Plan, machine: SystemReport) -> str | None:
    """The NVIDIA driver the plan needs, and how the machine's compares; None for a CPU build."""
    if plan.cpu_only or not plan.min_driver:
        return None
    now = f"this machine has {machine.driver.version}" if machine.driver else "this machine has none"
    update = ": update the driver first" if plan.driver_update_required else ""
    return f"NVIDIA driver needed: {describe_min_driver(plan.min_driver)} or newer ({now}{update})."


def notable_findings(recommendation: Recommendation | None) -> list[str]:
    """The recommendation's errors and warnings (``CODE: message``) and its notes, one line each."""
    if recommendation is None:
        return []
    return [
        f"{finding.code}: {finding.message}"
        for finding in recommendation.findings
        if finding.severity in ("error", "warning")
    ] + list(recommendation.notes)


def comment_block(lines: Sequence[str]) -> str:
    """``lines`` as ``#`` comments (an empty line stays a bare ``#``)."""
    return "".join(f"# {line}\n" if line else "#\n" for line in lines)


def _common_header(export: Export) -> list[str]:
    plan = export.plan
    lines = [
        f"Written by gpuwizard export from {export.origin}.",
        f"Machine: {describe_machine(export.machine)}.",
    ]
    driver = driver_line(plan, export.machine)
    if driver:
        lines.append(driver)
    if plan.system_cuda_toolkit_required and plan.cuda:
        lines.append(
            f"Needs CUDA {plan.cuda} and cuDNN {plan.cudnn} installed on the system"
            + (f", with these folders on PATH: {'; '.join(plan.path_entries)}." if plan.path_entries else ".")
        )
    if plan.dlls_expected:
        lines.append(f"DLLs the framework loads at run time: {', '.join(plan.dlls_expected)}.")
    if plan.cuda_wheels is not None:
        # A requirements file cannot carry the start-up hook gpuwizard env create writes
        # (probes/cuda_dll_hook.py): say what it does, so an install from this file works too.
        lines.append(
            f"CUDA {plan.cuda_wheels.cuda} and cuDNN {plan.cuda_wheels.cudnn} come from NVIDIA's wheels below; "
            "TensorFlow finds their DLLs only when every ENV\\Lib\\site-packages\\nvidia\\*\\bin folder is "
            "on PATH. gpuwizard env create adds a start-up hook that does this for every start of the "
            "environment's Python; installing from this file by hand, add those folders to PATH yourself."
        )
    lines += [f"Why: {reason}" for reason in plan.reasons]
    lines += [f"Note: {finding}" for finding in notable_findings(export.recommendation)]
    return lines


def _windows(export: Export) -> bool:
    """The file's commands are for cmd and PowerShell: the machine it is made for runs Windows.

    Its file name is quoted as that machine's shells read it (``--out "req ü.txt"``).
    """
    return export.machine.os.family == "windows"


# --- requirements -----------------------------------------------------------------------------


def render_requirements(export: Export, file_name: str) -> str:
    """A pip requirements file: a header, the index line, the exact pins."""
    plan = export.plan
    lines = [f"pip requirements for {plan_build_name(plan)}, Python {plan.python}.", *_common_header(export)]
    conda_extra = [p for p in plan.conda_packages if not p.startswith("python=")]
    if plan.manager == "conda":
        channels = " ".join(f"-c {c}" for c in plan.conda_channels or CONDA_CHANNELS[:1])
        lines.append(
            f"First make the conda environment: conda create -n {export.name} {channels} "
            + " ".join((f"python={plan.python}", *conda_extra))
        )
    install = shell_command(["python", "-m", "pip", "install", "-r", file_name], windows=_windows(export))
    lines.append(f"Install, with Python {plan.python}: {install}")
    if plan.index_url:
        lines.append(
            "The PyTorch index also serves torch's dependencies; for packages from PyPI add "
            "--extra-index-url https://pypi.org/simple"
        )
    body = [*pip_option_lines(plan), *pinned_requirements(plan)]
    return comment_block(lines) + "".join(f"{line}\n" for line in body)


# --- environment.yml --------------------------------------------------------------------------

#: A YAML plain scalar that needs no quotes: starts with no indicator, holds no ``: `` or `` #``.
_PLAIN_YAML: Final = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_.+=<>!~*/:\[\], -]*|--[A-Za-z0-9-]+ [^\s#]+")
#: Characters of the plain scalars YAML 1.1 reads as numbers, dates and times (PyYAML's resolvers,
#: https://yaml.org/type/): a plain scalar must hold some other character to stay a string.
_NUMBER_LIKE: Final = frozenset("0123456789-+._: eExXoObBtTzZaAcCdDfF")
#: The words YAML 1.1 reads as booleans or null (https://yaml.org/type/bool.html, /null.html).
_YAML_WORDS: Final = frozenset({"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"})


def yaml_scalar(text: str) -> str:
    """``text`` as a YAML scalar: plain when that reads back as the same string, else double-quoted.

    The double-quoted form escapes as YAML 1.2 section 5.7 allows: https://yaml.org/spec/1.2.2/#57-escaped-characters.

    >>> yaml_scalar("torch==2.13.0+cu126"), yaml_scalar("a: b"), yaml_scalar("1.10")
    ('torch==2.13.0+cu126', '"a: b"', '"1.10"')
    """
    plain = (
        _PLAIN_YAML.fullmatch(text) is not None
        and ": " not in text
        and not text.endswith((":", " "))
        and not set(text) <= _NUMBER_LIKE
        and text.lower() not in _YAML_WORDS
        and re.fullmatch(r"[-+]?\.(inf|nan)", text, re.IGNORECASE) is None
    )
    return text if plain else _double_quoted(text)


def _double_quoted(text: str) -> str:
    """A YAML double-quoted scalar; what YAML may not hold raw is escaped (YAML 1.2, 5.1 and 5.7)."""
    out = []
    for char in text:
        code = ord(char)
        if char in '"\\':
            out.append("\\" + char)
        elif 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD or code >= 0x10000:
            out.append(char)
        else:
            out.append(f"\\u{code:04x}")
    return '"' + "".join(out) + '"'


def render_environment_yml(export: Export, file_name: str) -> str:
    """A conda ``environment.yml``: conda-forge, the Python pin, the framework from pip."""
    plan = export.plan
    conda = [p for p in plan.conda_packages if not p.startswith("python=")]
    channels = [c for c in (*plan.conda_channels, *CONDA_CHANNELS) if c]
    windows = _windows(export)
    lines = [
        f"conda environment for {plan_build_name(plan)}, Python {plan.python}.",
        *_common_header(export),
        f"Create: {shell_command(['conda', 'env', 'create', '-f', file_name], windows=windows)}"
        f"  (or mamba / micromamba create -f {argument_words(file_name, windows=windows)[0]})",
    ]
    pip = [*pip_option_lines(plan), *pinned_requirements(plan)]
    text = comment_block(lines)
    text += f"name: {yaml_scalar(export.name)}\n"
    text += "channels:\n" + "".join(f"  - {yaml_scalar(c)}\n" for c in dict.fromkeys(channels))
    text += "dependencies:\n"
    text += "".join(f"  - {yaml_scalar(p)}\n" for p in (f"python={plan.python}", *conda, "pip"))
    text += "  - pip:\n" + "".join(f"      - {yaml_scalar(line)}\n" for line in pip)
    return text


# --- names ------------------------------------------------------------------------------------

_NAME: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,127}")


def check_name(name: str) -> str:
    """A name usable for a conda environment and a Docker image (lower case, no paths).

    Raises:
        ExportError: It is not.
    """
    if not _NAME.fullmatch(name):
        raise ExportError(
            f"{name!r} cannot name an environment and an image: use lower-case letters, digits, '.', '_' and '-'"
        )
    return name


def default_name(plan: Plan, environment: str | None = None) -> str:
    """The environment's own name made safe, else ``pytorch-2.13.0-cu126`` / ``tensorflow-2.21.0-gpu``."""
    if environment:
        safe = re.sub(r"[^a-z0-9._-]+", "-", environment.lower()).strip("-._")
        if safe:
            return safe[:128]
    kind = plan.torch_variant or ("cpu" if plan.cpu_only else "gpu")
    return f"{plan.framework}-{plan.framework_version}-{kind}"
