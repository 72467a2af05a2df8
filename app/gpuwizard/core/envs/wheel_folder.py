"""Whether a folder of wheels can install a plan offline, and what to fetch when it cannot.

An offline install (``--find-links DIR --offline``, the Choose page's "From a folder of wheels")
uses only the wheels in one folder. It fails part-way when the folder lacks the plan's build,
holds it for another Python or platform, or lacks one of its dependencies (uv then says "no
solution found"). The workflow (:mod:`gpuwizard.workflow.envs.wheel_folder`) asks the installer
to resolve the plan against the folder alone, without installing (:mod:`.wheel_folder_tools`
builds those commands and reads their answers; :mod:`.wheel_tags` knows targets and wheel
names); this module turns that answer into the verdict, :class:`WheelFolderCheck`: what the
folder holds, or what it lacks in plain words, with the ``pip download`` command that fetches
it (:func:`download_command`) and where that command can run (:meth:`WheelFolderCheck.fetch_where`).

Where a build can be fetched from is the compatibility table's fact: a plan names PyTorch's own
index exactly when its build is not the one PyPI serves for the OS (``pypi_default`` in
``resources/compat/pytorch.json``, read from PyPI's wheels: the CPU build on Windows and macOS,
a CUDA build on Linux, where PyPI has no ``+cpu`` build). So a plan without an index (every
TensorFlow plan, PyPI's own PyTorch build) is fetched from PyPI, and so are the dependencies of a
framework wheel the folder already has; only a build missing from the folder that lives on
PyTorch's index alone needs a machine that reaches it.

Sentences are :class:`~gpuwizard.core.texts.TranslatableText` in the ``wheel_folder`` context.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Final, Literal
from urllib.parse import urlsplit

from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.wheel_folder_tools import Resolution
from gpuwizard.core.envs.wheel_tags import (
    FolderWheel,
    WheelTarget,
    best_wheel,
    download_platforms,
    parse_requirement,
)
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

#: The index pip falls back to for what a framework's own index does not mirror (ipykernel and
#: the packages a person adds): PyPI's simple API (pip.pypa.io/en/stable/cli/pip_install/,
#: "--extra-index-url").
PYPI_SIMPLE: Final = "https://pypi.org/simple"

Status = Literal["ok", "missing", "unchecked"]


@dataclass(frozen=True)
class WheelFolderCheck:
    """Whether the folder can install the plan offline, and if not, what it lacks.

    Attributes:
        status: ``ok``; ``missing`` (it cannot: ``problems`` say why); ``unchecked`` (the check
            itself could not run: ``problems`` hold the reason; the install will tell).
        folder: The folder, as given.
        target: The Python and platform checked for.
        build: The plan's framework build, ``torch 2.13.0+cpu``.
        tool: ``uv`` or ``pip``, the resolver asked; None when none could be.
        wheels: The wheels the install would use (``ok`` only).
        total_bytes: Their size on disk.
        extras: What the request adds to the plan (``ipykernel``, ``--with`` packages).
        problems: What is wrong, one sentence each.
        missing: Names of the packages the folder has no wheel of.
        notes: What is worth knowing but blocks nothing (a CUDA build where a CPU one is planned).
        download: The command that fetches the plan into the folder, as an argv list.
        fetch_index: The index ``download`` fetches from; None: PyPI (or the pip configuration's
            index, which a person who set one wants).
        found: The framework releases the folder holds for the target instead of the plan's
            (``2.13.0+cpu``), the newest first.
        offer_version: The ``--version`` that plans the release the folder holds (``2.13``),
            when the compatibility table knows it and its plan takes the wheel (set by the
            workflow, which has the table).
    """

    status: Status
    folder: str
    target: WheelTarget
    build: str
    tool: str | None = None
    wheels: int = 0
    total_bytes: int = 0
    extras: tuple[str, ...] = ()
    problems: tuple[TranslatableText, ...] = ()
    missing: tuple[str, ...] = ()
    notes: tuple[TranslatableText, ...] = ()
    download: tuple[str, ...] = ()
    fetch_index: str | None = None
    found: tuple[str, ...] = ()
    offer_version: str | None = None

    @property
    def ok(self) -> bool:
        """True when the folder holds everything the plan needs."""
        return self.status == "ok"

    @property
    def blocks(self) -> bool:
        """True when the install must not start: the folder certainly lacks something."""
        return self.status == "missing"

    def summary(self) -> TranslatableText:
        """One sentence: what the folder holds, or that it cannot install the plan."""
        size = format_size(self.total_bytes)
        if self.status == "ok":
            # Worded around the number of wheels, so no plural form depends on it (but one).
            if self.wheels <= 1:
                template = QT_TRANSLATE_NOOP(
                    "wheel_folder", "Holds {build} for Python {python} ({size}); it needs nothing else."
                )
            elif self.extras:
                template = QT_TRANSLATE_NOOP(
                    "wheel_folder",
                    "Holds {build}, {extras} and everything they need for Python {python}: {count} wheels, "
                    "{size}.",
                )
            else:
                template = QT_TRANSLATE_NOOP(
                    "wheel_folder",
                    "Holds {build} and everything it needs for Python {python}: {count} wheels, {size}.",
                )
            return TranslatableText(
                "wheel_folder",
                template,
                build=self.build,
                extras=", ".join(self.extras),
                count=self.wheels,
                python=self.target.python,
                size=size,
            )
        if self.status == "unchecked":
            return TranslatableText(
                "wheel_folder",
                QT_TRANSLATE_NOOP(
                    "wheel_folder", "The folder could not be checked; the install will say what is missing."
                ),
            )
        return TranslatableText(
            "wheel_folder",
            QT_TRANSLATE_NOOP(
                "wheel_folder", "This folder cannot install {build} for Python {python} on {platform}."
            ),
            build=self.build,
            python=self.target.python,
            platform=self.target.platform,
        )

    def download_line(self) -> str:
        """The fetch command as one line to copy (quoted for a POSIX shell or cmd alike)."""
        return command_line(self.download)

    def fetch_where(self) -> TranslatableText | None:
        """Where :attr:`download` fetches from, and so which machine can run it."""
        if not self.download:
            return None
        if self.fetch_index is None:
            return _sentence(
                QT_TRANSLATE_NOOP(
                    "wheel_folder",
                    "The fetch command downloads from PyPI: run it here if this machine reaches pypi.org, "
                    "else on one that does.",
                )
            )
        return _sentence(
            QT_TRANSLATE_NOOP(
                "wheel_folder",
                "The fetch command downloads from {index} ({build} is not on PyPI): run it on a machine "
                "that reaches {host}.",
            ),
            host=urlsplit(self.fetch_index).hostname or self.fetch_index,
            build=self.build,
            index=self.fetch_index,
        )

    def offer_line(self) -> str | None:
        """The release the folder holds, as the version that plans it (English); None without an offer.

        Worded for ``env create`` (its option) and ``apply`` (an answer file's ``version``) alike.
        """
        if self.offer_version is None or not self.found:
            return None
        version = self.offer_version
        return (
            f"To install the release it holds ({self.found[0]}) instead, ask for version {version} "
            f"(--version {version})."
        )

    def reason(self, *, commands: bool = True) -> str:
        """One line for the command line's refusal: what is wrong, and how to go on (English).

        Args:
            commands: Include the fetch command (False where it is shown on a line of its own).
        """
        head = (
            f"the folder of wheels {self.folder} cannot install {self.build} for Python "
            f"{self.target.python} on {self.target.platform}:"
        )
        parts = [head, *(str(problem) for problem in self.problems)]
        offer = self.offer_line()
        if offer is not None:
            parts.append(offer)
        where = self.fetch_where()
        if commands and where is not None:
            parts += [f"{'Or fetch' if offer else 'Fetch'} what is missing into the folder.", str(where)]
            parts.append(f"The fetch command: {self.download_line()}")
        return " ".join(parts)


def format_size(size: int) -> str:
    """Decimal units, as file managers and pip show sizes.

    >>> format_size(1_130_000_000), format_size(5_300_000), format_size(900)
    ('1.1 GB', '5.3 MB', '1 kB')
    """
    if size >= 1_000_000_000:
        return f"{size / 1e9:.1f} GB"
    if size >= 1_000_000:
        return f"{size / 1e6:.1f} MB"
    return f"{max(round(size / 1e3), 1)} kB"


def command_line(argv: Sequence[str]) -> str:
    """``argv`` as one line a person can paste; parts with spaces or quotes are double-quoted.

    >>> command_line(["pip", "download", "--dest", "/my wheels", "torch==2.13.0+cpu"])
    'pip download --dest "/my wheels" torch==2.13.0+cpu'
    """
    return " ".join(f'"{part}"' if re.search(r"[\s\"'&|<>^;]", part) or not part else part for part in argv)


@dataclass(frozen=True)
class PlanWants:
    """What the plan needs from the folder: its framework build and the request's additions.

    Attributes:
        name: The framework's distribution (``torch``).
        version: Its release, without a local label (``2.13.0``).
        label: The local label the plan's index gives the build (``cpu`` from the PyTorch
            index); None for PyPI's builds, which carry none.
        variant: The plan's PyTorch variant (``cpu``, ``cu126``); None for TensorFlow.
        cpu_only: The plan's build uses no GPU.
        requirements: The plan's requirements and the request's additions.
        extras: The request's additions alone.
        index_url: The plan's index (None: PyPI).
    """

    name: NormalizedName
    version: Version
    label: str | None
    variant: str | None
    cpu_only: bool
    requirements: tuple[str, ...]
    extras: tuple[str, ...] = ()
    index_url: str | None = None

    @property
    def build(self) -> str:
        """``torch 2.13.0+cpu``: the build the plan installs."""
        return f"{self.name} {self.version}+{self.label}" if self.label else f"{self.name} {self.version}"

    @property
    def pinned(self) -> str:
        """``torch==2.13.0+cpu``: the build as a requirement (what the fetch command asks for)."""
        return self.build.replace(" ", "==")

    def accepts(self, version: Version) -> bool:
        """Whether a wheel of ``version`` can stand for the plan's build.

        ``torch==2.13.0`` matches ``2.13.0+cu126`` too (PEP 440, "Local version identifiers"),
        so the variant is read from the label. For a GPU plan another variant is refused: a
        ``cpu`` build never uses the GPU, another CUDA may need a newer driver or lack the GPU's
        architecture. For a CPU plan any variant runs (a CUDA build falls back to the CPU), so
        it is only noted (:meth:`differs`). A wheel without a label (PyPI's, or one built
        locally) cannot be told apart and is taken as the plan's.
        """
        if Version(version.public) != self.version:
            return False
        return self.cpu_only or version.local in (None, self.variant)

    def differs(self, version: Version) -> bool:
        """Whether ``version`` is labelled as another variant than the plan's."""
        return version.local is not None and self.variant is not None and version.local != self.variant


def plan_wants(plan: Plan, extras: Sequence[str] = ()) -> PlanWants:
    """The framework build ``plan`` installs, and everything the folder must hold for it."""
    first = parse_requirement(plan.requirements[0]) if plan.requirements else None
    name = canonicalize_name(first.name if first is not None else plan.framework)
    # The PyTorch index labels its wheels with the variant (2.13.0+cpu); PyPI's have no label.
    label = plan.torch_variant if plan.index_url else None
    return PlanWants(
        name=name,
        version=Version(Version(plan.framework_version).public),
        label=label,
        variant=plan.torch_variant,
        cpu_only=plan.cpu_only,
        requirements=(*plan.requirements, *extras),
        extras=tuple(extras),
        index_url=plan.index_url,
    )


#: The longest fetch command :func:`download_command` writes, not counting the folder's path
#: (named twice at most): a line a person can read and copy (issue 41, point 8: it was 400).
DOWNLOAD_LIMIT: Final = 240


def download_command(
    folder: str, target: WheelTarget, wants: PlanWants, have: FolderWheel | None = None
) -> tuple[tuple[str, ...], str | None]:
    """``pip download`` of what the folder lacks for the plan, for the target, and the index it uses.

    pip.pypa.io/en/stable/cli/pip_download/: ``--dest`` the folder, ``--only-binary=:all:``
    (required with ``--platform``/``--python-version``, and an offline install cannot build),
    ``--python-version`` and ``--platform`` select wheels for the target rather than the
    machine pip runs on (the ABI follows the Python version: ``cp311``; the few platform tags:
    :func:`download_platforms`). pip skips files the folder already has ("File was already
    downloaded"), so the same command fills any gap.

    Where it fetches from (the module's docstring): ``have``, the plan's framework wheel already
    in the folder, is taken from the folder (``--find-links``) and everything it needs from
    PyPI; a build on PyPI comes from PyPI; only a missing build that PyPI does not have comes
    from the plan's index (which also serves its dependencies), with PyPI beside it for the
    request's additions.

    Returns:
        The argv, and the index it names (None: PyPI, or the index pip is configured with).
    """
    argv = ["pip", "download", "--dest", folder]
    index: str | None = None
    if have is not None:
        argv += ["--find-links", folder]
        pinned = f"{wants.name}=={have.version}"
    else:
        pinned = wants.pinned
        index = wants.index_url
    argv += ["--only-binary=:all:", "--python-version", target.python]
    own = tuple(tag.platform for tag in have.tags) if have is not None else ()
    for platform in download_platforms(target, own):
        argv += ["--platform", platform]
    if index:
        argv += ["--index-url", index]
        if wants.extras:
            argv += ["--extra-index-url", PYPI_SIMPLE]
    rest = [text for text in wants.requirements[1:] if not text.startswith("-")]
    return (*argv, pinned, *rest), index


def _sentence(template: str, **params: object) -> TranslatableText:
    return TranslatableText("wheel_folder", template, **params)


def _grouped_elsewhere(wheels: Sequence[FolderWheel], target: WheelTarget) -> TranslatableText | None:
    """Which Python and platforms the folder's wheels of a name are for, when none fits the target."""
    if not wheels:
        return None
    pythons = sorted({tag.interpreter for wheel in wheels for tag in wheel.tags})
    platforms = sorted({tag.platform for wheel in wheels for tag in wheel.tags})
    theirs = f"{', '.join(pythons)} / {', '.join(platforms)}"
    if len(wheels) == 1:
        return _sentence(
            QT_TRANSLATE_NOOP("wheel_folder", "Its {name} wheel is for {theirs}, not {ours}."),
            name=wheels[0].name,
            theirs=theirs,
            ours=target.label,
        )
    return _sentence(
        QT_TRANSLATE_NOOP("wheel_folder", "Its {count} {name} wheels are for {theirs}, not {ours}."),
        count=len(wheels),
        name=wheels[0].name,
        theirs=theirs,
        ours=target.label,
    )


def _framework_problem(
    wants: PlanWants, wheels: Sequence[FolderWheel], target: WheelTarget, resolved: Mapping[str, str]
) -> TranslatableText | None:
    """What is wrong with the folder's framework build, or None.

    Absent, another release or variant (``cu126`` for ``cpu``), or wheels for another Python or
    platform only.
    """
    own = [wheel for wheel in wheels if wheel.name == wants.name]
    pinned = resolved.get(wants.name)
    if not own:
        return _sentence(
            QT_TRANSLATE_NOOP("wheel_folder", "It has no {name} wheel at all (the plan needs {build})."),
            name=wants.name,
            build=wants.build,
        )
    if pinned is not None:
        # torch==2.13.0 also matches 2.13.0+cu126 (PEP 440, "Local version identifiers"), which
        # the install would then take: the check sees the build the resolver chose.
        if wants.accepts(Version(pinned)):
            return None
        return _sentence(
            QT_TRANSLATE_NOOP(
                "wheel_folder",
                "Its {name} {found} would be installed, not the plan's {build}: remove that wheel "
                "and add the plan's.",
            ),
            name=wants.name,
            found=pinned,
            build=wants.build,
        )
    release = [wheel for wheel in own if Version(wheel.version.public) == wants.version]
    fitting = [wheel for wheel in release if wheel.tags & set(target.tags())]
    if release and not fitting:
        return _grouped_elsewhere(release, target)
    if not any(wants.accepts(wheel.version) for wheel in fitting):
        found = ", ".join(sorted({str(wheel.version) for wheel in fitting or own}, key=Version))
        return _sentence(
            QT_TRANSLATE_NOOP("wheel_folder", "It has {name} {found}, not {build}."),
            name=wants.name,
            found=found,
            build=wants.build,
        )
    return None


def _framework_wheel(
    wants: PlanWants, wheels: Sequence[FolderWheel], target: WheelTarget
) -> FolderWheel | None:
    """The folder's wheel of the plan's build for the target (the newest fitting one), or None."""
    accepted = set(target.tags())
    fitting = [
        wheel
        for wheel in wheels
        if wheel.name == wants.name and wheel.tags & accepted and wants.accepts(wheel.version)
    ]
    return max(fitting, key=lambda wheel: wheel.version, default=None)


def _other_releases(wants: PlanWants, wheels: Sequence[FolderWheel], target: WheelTarget) -> tuple[str, ...]:
    """The framework releases the folder holds for the target other than the plan's, the newest first."""
    accepted = set(target.tags())
    versions = {
        wheel.version
        for wheel in wheels
        if wheel.name == wants.name
        and wheel.tags & accepted
        and Version(wheel.version.public) != wants.version
    }
    return tuple(str(version) for version in sorted(versions, reverse=True))


def _variant_notes(wants: PlanWants, pinned: str | None) -> tuple[TranslatableText, ...]:
    """A note when the build that will be installed is another variant that still serves the plan."""
    if pinned is None or not wants.differs(Version(pinned)):
        return ()
    note = _sentence(
        QT_TRANSLATE_NOOP(
            "wheel_folder",
            "Its {name} {found} will be installed rather than the plan's {build}: it runs on the CPU "
            "too, but is a larger download.",
        ),
        name=wants.name,
        found=pinned,
        build=wants.build,
    )
    return (note,)


def judge(
    folder: str,
    target: WheelTarget,
    wants: PlanWants,
    *,
    wheels: Sequence[FolderWheel],
    resolution: Resolution,
    missing_names: Sequence[str] = (),
) -> WheelFolderCheck:
    """The verdict on ``folder`` from the resolver's answer and what the folder holds.

    Args:
        folder: The folder, as given.
        target: The Python and platform checked for.
        wants: What the plan needs (:func:`plan_wants`).
        wheels: The folder's wheels (:func:`folder_wheels`).
        resolution: The resolver's answer (:mod:`.wheel_folder_tools`).
        missing_names: Every dependency the folder has no wheel of (:func:`missing_in_closure`),
            added to the one the resolver names.
    """
    resolved = {str(canonicalize_name(name)): version for name, version in resolution.resolved}
    framework = _framework_problem(wants, wheels, target, resolved)
    in_folder = None if framework is not None else _framework_wheel(wants, wheels, target)
    download, index = download_command(folder, target, wants, in_folder)
    base = WheelFolderCheck(
        status="missing",
        folder=folder,
        target=target,
        build=wants.build,
        tool=resolution.tool,
        extras=wants.extras,
        download=download,
        fetch_index=index,
        found=_other_releases(wants, wheels, target) if framework is not None else (),
    )
    if resolution.unchecked:
        return replace(
            base,
            status="unchecked",
            problems=(_unchecked(resolution.message),),
            download=(),
            fetch_index=None,
        )
    problems = [framework] if framework is not None else []
    if not resolution.failed and not problems:
        notes = _variant_notes(wants, resolved.get(wants.name))
        used = [best_wheel(wheels, target, name, Version(version)) for name, version in resolution.resolved]
        return replace(
            base,
            status="ok",
            wheels=len(resolution.resolved),
            total_bytes=sum(wheel.size for wheel in used if wheel is not None),
            download=(),
            fetch_index=None,
            notes=notes,
        )
    have = {wheel.name for wheel in wheels}
    accepted = set(target.tags())
    named = dict.fromkeys(canonicalize_name(name) for name in (*resolution.missing, *missing_names))
    named.pop(wants.name, None)  # the framework's own problems are said above
    missing = [name for name in named if name not in have]
    for name in named:
        # Wheels of the name, none for this target: say which Python and platform they are for.
        if name in have and not any(wheel.tags & accepted for wheel in wheels if wheel.name == name):
            elsewhere = _grouped_elsewhere([wheel for wheel in wheels if wheel.name == name], target)
            if elsewhere is not None:
                problems.append(elsewhere)
    if missing:
        problems.append(
            _sentence(
                QT_TRANSLATE_NOOP(
                    "wheel_folder", "It has no wheel of {names}, which the plan's packages need."
                ),
                names=", ".join(missing),
            )
        )
    if resolution.failed and not problems:
        problems.append(
            _sentence(
                QT_TRANSLATE_NOOP("wheel_folder", "The installer found no way to install from it: {message}"),
                message=resolution.message,
            )
        )
    return replace(base, problems=tuple(problems), missing=tuple(missing))


def _unchecked(message: str) -> TranslatableText:
    return _sentence(QT_TRANSLATE_NOOP("wheel_folder", "Checking it failed: {message}"), message=message)


def unchecked(folder: str, target: WheelTarget, wants: PlanWants, message: str) -> WheelFolderCheck:
    """A check that could not run (no uv and no pip, a tool that failed to start)."""
    return WheelFolderCheck(
        status="unchecked", folder=folder, target=target, build=wants.build, problems=(_unchecked(message),)
    )
