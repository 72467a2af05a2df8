"""The package indexes an install will really contact, and why each (pure).

A plan names at most one index of its own (``Plan.index_url``: PyTorch's, for a build PyPI does
not serve); everything else comes from the tools' default index, PyPI. People on networks that
cannot reach one of them set a mirror, and the install must use it, say so, and be checked
against it (issue 20, point 1). :func:`plan_sources` decides, from the plan and the settings
the machine has (:class:`IndexSettings`, read by ``adapters/index_settings.py``):

- PyTorch's index, or the person's mirror of it: ``GPUWIZARD_PYTORCH_INDEX_URL``, a base URL to
  which the plan's variant (``cpu``, ``cu126``) is appended as a path segment, or substituted
  for ``{variant}`` when the URL holds it (the layout of download.pytorch.org/whl/VARIANT);
- the default index, or the person's mirror of PyPI, in the order the installing tool itself
  reads them: uv ``UV_DEFAULT_INDEX``, then the deprecated ``UV_INDEX_URL``
  (docs.astral.sh/uv/reference/environment/); pip ``PIP_INDEX_URL``, then ``index-url`` of its
  configuration files (pip.pypa.io/en/stable/topics/configuration/). uv reads no pip setting,
  but a mirror set for pip is the network's mirror all the same, so uv is given pip's when it
  has none of its own;
- nothing at all offline: only the folder of wheels.

A plan with its own index installs everything from it (``--index-url`` replaces the default
index for pip and uv alike, and PyTorch's index carries torch's dependencies); the default index
is then used only to add pip to a uv environment (``workflow/envs/create.py``, ``_seed_pip``).

A mirror the person sets must be https (http only to this machine: localhost, 127.0.0.1, ::1,
for tests and local proxies); anything else is refused (:class:`MirrorRefused`), since an index
chooses the code that is installed and plain http can be changed on its way.

A mirror's URL may carry a login or a token (``https://user:token@host/simple``, a signed URL's
``sig=``, conda's ``/t/<token>/``: ``core/secret_formats.py``). It is never shown or logged
(:func:`display_url`, :func:`hide_logins`), and never put on a tool's command line, which every
user of the machine can read: the install hands it over in the tool's own variable
(:data:`INDEX_VARIABLES`), and the command shown says so (``PIP_INDEX_URL=https://***@host/simple
pip install ...``, :meth:`PlanSources.install_line`, :func:`masked_command`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import urlsplit

from gpuwizard.core.compat.plan import quoted_requirements
from gpuwizard.core.secret_formats import mask_url, url_has_secret
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText
from gpuwizard.core.wizard_command import shell_argument

#: PyPI's simple index: what pip and uv use when nothing says otherwise
#: (pip.pypa.io/en/stable/cli/pip_install/#cmdoption-i, docs.astral.sh/uv/concepts/indexes/).
PYPI_SIMPLE: Final = "https://pypi.org/simple"
#: The wizard's setting for a mirror of PyTorch's index.
PYTORCH_MIRROR_VARIABLE: Final = "GPUWIZARD_PYTORCH_INDEX_URL"
#: Where a source comes from when the person set nothing.
ORIGIN_PLAN: Final = "plan"
ORIGIN_PYPI: Final = "pypi"
#: Hosts that are this machine: plain http to them never crosses a network.
LOCAL_HOSTS: Final = frozenset({"localhost", "127.0.0.1", "::1"})
#: The variable each tool reads its index from, used instead of ``--index-url`` for an index URL
#: that carries a login or a token: pip's ``--index-url`` as a variable
#: (pip.pypa.io/en/stable/topics/configuration/#environment-variables), uv's default index
#: (docs.astral.sh/uv/reference/environment/#uv_default_index, which uv prefers to UV_INDEX_URL).
INDEX_VARIABLES: Final = {"pip": "PIP_INDEX_URL", "uv": "UV_DEFAULT_INDEX"}
#: The variable the py-rattler engine reads its channels from (a JSON list), used instead of
#: ``--channel`` when one of them carries a login or a token (``adapters/envs/rattler_engine.py``).
RATTLER_CHANNELS_VARIABLE: Final = "GPUWIZARD_RATTLER_CHANNELS"
#: Variables that carry a source a tool was given out of its command line: a log shows them.
SOURCE_VARIABLES: Final = frozenset({*INDEX_VARIABLES.values(), RATTLER_CHANNELS_VARIABLE})

Role = Literal["pytorch", "default"]
#: What an index is contacted for: the plan's packages, or only pip for a uv environment.
NeededFor = Literal["packages", "pip"]

_CONTEXT: Final = "plans"


class MirrorRefused(ValueError):
    """A mirror the person set cannot be used (one line, exit code 2)."""


@dataclass(frozen=True)
class IndexSettings:
    """The machine's settings about package indexes, as read from its variables and pip's files.

    Attributes:
        pytorch_mirror: ``GPUWIZARD_PYTORCH_INDEX_URL``.
        uv_default_index: ``UV_DEFAULT_INDEX``.
        uv_index_url: ``UV_INDEX_URL`` (uv's older name for the same).
        pip_index_url: ``PIP_INDEX_URL``.
        pip_config_index_url: ``index-url`` in pip's configuration files (``[install]`` over
            ``[global]``, the last file read winning, as pip reads them).
        pip_config_file: The file that value came from.
    """

    pytorch_mirror: str | None = None
    uv_default_index: str | None = None
    uv_index_url: str | None = None
    pip_index_url: str | None = None
    pip_config_index_url: str | None = None
    pip_config_file: str | None = None


@dataclass(frozen=True)
class SourceIndex:
    """One index the install contacts.

    Attributes:
        url: The index as the install is given it.
        role: ``pytorch`` (PyTorch's index or a mirror of it) or ``default`` (PyPI or a mirror).
        origin: ``plan`` (the compatibility data's PyTorch index), ``pypi``, or the setting a
            mirror came from (``UV_DEFAULT_INDEX``, ``PIP_INDEX_URL``, ``pip config FILE``...).
        needed_for: ``packages`` (the plan's packages) or ``pip`` (only pip, for uv's environment).
        variant: The PyTorch build the index serves (``cpu``, ``cu126``), for the pytorch role.
    """

    url: str
    role: Role
    origin: str
    needed_for: NeededFor = "packages"
    variant: str | None = None

    @property
    def mirror(self) -> bool:
        """Whether the person chose this index (a mirror), rather than the plan or the tools."""
        return self.origin not in (ORIGIN_PLAN, ORIGIN_PYPI)

    @property
    def essential(self) -> bool:
        """Whether the install fails without it (pip for a uv environment is a nicety)."""
        return self.needed_for == "packages"

    @property
    def host(self) -> str:
        """The host (and port) the index lives on."""
        return host_of(self.url)

    @property
    def hostname(self) -> str:
        """The host alone, without a port (the name DNS is asked for)."""
        try:
            return urlsplit(self.url).hostname or self.host
        except ValueError:
            return self.host

    @property
    def shown(self) -> str:
        """The URL with any login hidden, for screens, logs and JSON."""
        return display_url(self.url)

    def project_url(self, project: str) -> str:
        """The index's page for ``project`` (PEP 503: ``<index>/<normalized name>/``)."""
        return f"{self.url.rstrip('/')}/{normalized_project(project)}/"


@dataclass(frozen=True)
class PlanSources:
    """Where an install's packages come from.

    Attributes:
        indexes: The indexes contacted, the plan's packages' first (none offline).
        find_links: A folder of wheels looked at too (or alone, offline).
        offline: Nothing is fetched from any index.
        tool: ``uv`` or ``pip``: the tool that installs the packages.
    """

    indexes: tuple[SourceIndex, ...]
    find_links: str | None = None
    offline: bool = False
    tool: str = "uv"

    @property
    def pytorch_index(self) -> str | None:
        """PyTorch's index (or the mirror of it) the install is given; None when it uses none."""
        return next((index.url for index in self.indexes if index.role == "pytorch"), None)

    @property
    def default_index(self) -> str | None:
        """The person's PyPI mirror the install is given; None: the tool's own default, PyPI."""
        return next((index.url for index in self.indexes if index.role == "default" and index.mirror), None)

    def index_options(self, *, shown: bool = False) -> tuple[str, ...]:
        """The source options as pip takes them for the plan's packages (``shown``: logins hidden)."""
        if self.offline:
            return ("--no-index", *self._links())
        url = self.pytorch_index or self.default_index
        options: tuple[str, ...] = ()
        if url is not None:
            options = ("--index-url", display_url(url) if shown else url)
        return (*options, *self._links())

    def install_line(self, requirements: Sequence[str]) -> str:
        """The install command as it will run, logins hidden, its options on a line of their own.

        The tool's own spelling: ``uv pip install`` offline also gets ``--offline``
        (docs.astral.sh/uv/reference/cli/#uv-pip-install--offline). An index that carries a
        login or a token is given in the tool's variable, as the install gives it
        (:data:`INDEX_VARIABLES`): ``PIP_INDEX_URL=https://***@host/simple pip install ...``.
        Each word is quoted as cmd, PowerShell and a POSIX shell read it alike (a folder of
        wheels may hold spaces: ``--find-links "/tmp/my wheels"``).
        """
        line, options = self._install_parts(requirements)
        return f"{line}\n    {options}" if options else line

    def install_command(self, requirements: Sequence[str]) -> str:
        """:meth:`install_line` on one line (``install_command`` in JSON), its quoted words kept as they are."""
        return " ".join(part for part in self._install_parts(requirements) if part)

    def _install_parts(self, requirements: Sequence[str]) -> tuple[str, str]:
        """The command with its requirements, and its source options (quoted; "" when none)."""
        command = "uv pip install" if self.tool == "uv" else "pip install"
        options = self.index_options(shown=True)
        url = None if self.offline else self.pytorch_index or self.default_index
        if url is not None and url_has_secret(url):
            command = f"{INDEX_VARIABLES['uv' if self.tool == 'uv' else 'pip']}={display_url(url)} {command}"
            options = self._links()
        if self.offline and self.tool == "uv":
            options = ("--offline", *options)
        line = f"{command} {quoted_requirements(requirements)}"
        return line, " ".join(shell_argument(option) for option in options)

    def _links(self) -> tuple[str, ...]:
        return ("--find-links", self.find_links) if self.find_links is not None else ()


def plan_sources(
    *,
    index_url: str | None,
    variant: str | None,
    tool: str,
    settings: IndexSettings,
    find_links: str | None = None,
    offline: bool = False,
    pip_from_folder: bool = False,
) -> PlanSources:
    """The indexes an install of a plan will contact, with where each comes from.

    ``index_url`` and ``variant`` are the plan's (``Plan.index_url``, ``Plan.torch_variant``);
    ``tool`` installs the packages (``uv``, or ``pip`` for pip and conda environments);
    ``pip_from_folder``: the folder of wheels holds pip, so a uv environment gets it from there.

    Raises:
        MirrorRefused: A mirror that is needed is not https (nor http to this machine), or a
            PyTorch mirror's template is malformed.

    >>> sources = plan_sources(index_url="https://download.pytorch.org/whl/cpu", variant="cpu",
    ...                        tool="pip", settings=IndexSettings(pytorch_mirror="https://m.example/torch"))
    >>> [(index.url, index.origin) for index in sources.indexes]
    [('https://m.example/torch/cpu', 'GPUWIZARD_PYTORCH_INDEX_URL')]
    >>> plan_sources(index_url=None, variant=None, tool="uv", settings=IndexSettings(), offline=True).indexes
    ()
    """
    if offline:
        return PlanSources((), find_links, offline=True, tool=tool)
    default = _default_index(tool, settings)
    indexes: list[SourceIndex] = []
    if index_url is not None:
        indexes.append(_pytorch_index(index_url, variant, settings))
        if tool == "uv" and not pip_from_folder:
            indexes.append(SourceIndex(default.url, "default", default.origin, "pip"))
    else:
        indexes.append(default)
    return PlanSources(tuple(indexes), find_links, offline=False, tool=tool)


def _pytorch_index(index_url: str, variant: str | None, settings: IndexSettings) -> SourceIndex:
    base = (settings.pytorch_mirror or "").strip()
    if not base:
        return SourceIndex(index_url, "pytorch", ORIGIN_PLAN, variant=variant)
    refuse_mirror(base.replace("{variant}", variant or "cpu"), PYTORCH_MIRROR_VARIABLE)
    if "{" in base.replace("{variant}", "") or "}" in base.replace("{variant}", ""):
        raise MirrorRefused(
            f"{PYTORCH_MIRROR_VARIABLE}: only {{variant}} may stand in braces: {display_url(base)}"
        )
    if variant is None:
        url = base.replace("{variant}", "")
    elif "{variant}" in base:
        url = base.replace("{variant}", variant)
    else:
        url = f"{base.rstrip('/')}/{variant}"
    return SourceIndex(url, "pytorch", PYTORCH_MIRROR_VARIABLE, variant=variant)


def _default_index(tool: str, settings: IndexSettings) -> SourceIndex:
    pip_file = f"pip config {settings.pip_config_file}" if settings.pip_config_file else "pip config"
    pip_own = [
        ("PIP_INDEX_URL", settings.pip_index_url),
        (pip_file, settings.pip_config_index_url),
    ]
    uv_own = [("UV_DEFAULT_INDEX", settings.uv_default_index), ("UV_INDEX_URL", settings.uv_index_url)]
    order = [*uv_own, *pip_own] if tool == "uv" else pip_own
    for origin, value in order:
        if value and value.strip():
            url = value.strip()
            refuse_mirror(url, origin)
            if url.rstrip("/") == PYPI_SIMPLE:
                return SourceIndex(PYPI_SIMPLE, "default", ORIGIN_PYPI)
            return SourceIndex(url, "default", origin)
    return SourceIndex(PYPI_SIMPLE, "default", ORIGIN_PYPI)


def refuse_mirror(url: str, origin: str) -> None:
    """Refuse a mirror that is not https (http only to this machine).

    Raises:
        MirrorRefused: Said in one line, naming the setting.

    >>> refuse_mirror("http://127.0.0.1:8080/simple", "PIP_INDEX_URL")
    >>> try:
    ...     refuse_mirror("http://mirror.example/simple", "PIP_INDEX_URL")
    ... except MirrorRefused as error:
    ...     print(error)
    PIP_INDEX_URL: http://mirror.example/simple is not an https:// URL (plain http is allowed only to this machine: localhost, 127.0.0.1, ::1)
    """
    why = mirror_refusal(url)
    if why is not None:
        raise MirrorRefused(f"{origin}: {display_url(url)} {why}")


def mirror_refusal(url: str) -> str | None:
    """Why ``url`` cannot be a mirror, or None."""
    try:
        parts = urlsplit(url)
        host = parts.hostname
        parts.port  # noqa: B018 - a malformed port raises here
    except ValueError:
        return "is not a URL"
    scheme = parts.scheme.lower()
    if not host:
        return "is not a URL with a host"
    if scheme == "https" or (scheme == "http" and host.lower() in LOCAL_HOSTS):
        return None
    return "is not an https:// URL (plain http is allowed only to this machine: localhost, 127.0.0.1, ::1)"


def display_url(url: str) -> str:
    """``url`` with its login, secret query parameters and conda token hidden (``core/secret_formats.py``).

    >>> display_url("https://ana:s3cret@mirror.example/simple")
    'https://***@mirror.example/simple'
    >>> display_url("https://conda.anaconda.org/t/tk-123-456/corp")
    'https://conda.anaconda.org/t/***/corp'
    """
    return mask_url(url)


_URL_IN_TEXT: Final = re.compile(r"(?<![\w+.-])[A-Za-z][A-Za-z0-9+.-]*://[^\s\"'<>]+")


def hide_logins(text: str) -> str:
    """``text`` with the login, secret query parameters and conda token of every URL in it hidden.

    >>> hide_logins("Cannot connect to proxy http://ana:pw@proxy:3128 (refused)")
    'Cannot connect to proxy http://***@proxy:3128 (refused)'
    >>> hide_logins("GET https://a.blob.core.windows.net/w?sv=1&sig=AbC%3D failed")
    'GET https://a.blob.core.windows.net/w?sv=1&sig=*** failed'
    """
    text = re.sub(r"(?<=://)[^/\s@]+@", "***@", text)
    return _URL_IN_TEXT.sub(lambda match: mask_url(match.group(0)), text)


def masked_argv(argv: Sequence[str]) -> str:
    """A command line for a log, with the login of any URL in it hidden.

    Each word is quoted as the shells read it alike (:func:`shell_argument`), judged before the
    login is hidden: an environment's interpreter in a folder with spaces stays one word.

    >>> masked_argv(["/envs/mein Labor ü/bin/python", "-m", "pip", "install", "numpy<2"])
    '"/envs/mein Labor ü/bin/python" -m pip install "numpy<2"'
    """
    return " ".join(hide_logins(shell_argument(part)) for part in argv)


def masked_command(argv: Sequence[str], env: Mapping[str, str]) -> str:
    """A command line for a log as it runs: the variables that carry a source first, logins hidden.

    An index or channel with a login is given to the tool in a variable (:data:`SOURCE_VARIABLES`),
    not on its command line; the log says so, so that its line is still a command a person can run.

    >>> masked_command(["pip", "install", "torch"], {"PIP_INDEX_URL": "https://u:t@m.example/simple", "NO_COLOR": "1"})
    'PIP_INDEX_URL=https://***@m.example/simple pip install torch'
    """
    assignments = [f"{name}={hide_logins(value)}" for name, value in env.items() if name in SOURCE_VARIABLES]
    return " ".join([*assignments, masked_argv(argv)])


def normalized_project(name: str) -> str:
    """A project's name as index pages spell it (PEP 503: runs of ``-_.`` become ``-``, lower case).

    >>> normalized_project("Typing_Extensions")
    'typing-extensions'
    """
    return re.sub(r"[-_.]+", "-", name).lower()


def requirement_project(requirement: str) -> str:
    """The project a requirement names (``torch==2.13.0`` -> ``torch``)."""
    match = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", requirement)
    return match.group(1) if match else requirement.strip()


def host_of(url: str) -> str:
    """The host (and a port that is not the scheme's own) of ``url``."""
    try:
        parts = urlsplit(url)
        host = parts.hostname or url
        port = parts.port
    except ValueError:
        return url
    return f"{host}:{port}" if port else host


def index_reason(index: SourceIndex) -> TranslatableText:
    """Why the install contacts ``index``, in a few words."""
    if index.role == "pytorch":
        if index.mirror:
            return TranslatableText(
                _CONTEXT,
                QT_TRANSLATE_NOOP("plans", "your mirror of PyTorch's index, from {origin}"),
                origin=index.origin,
            )
        return TranslatableText(
            _CONTEXT,
            QT_TRANSLATE_NOOP("plans", "PyTorch's own index, for its {variant} build"),
            variant=index.variant or "?",
        )
    if index.mirror:
        reason = TranslatableText(
            _CONTEXT, QT_TRANSLATE_NOOP("plans", "your PyPI mirror, from {origin}"), origin=index.origin
        )
    else:
        reason = TranslatableText(_CONTEXT, QT_TRANSLATE_NOOP("plans", "PyPI, the Python Package Index"))
    if index.needed_for == "pip":
        return TranslatableText(
            _CONTEXT,
            QT_TRANSLATE_NOOP("plans", "{reason}, only for pip in the new environment"),
            reason=reason,
        )
    return reason


def index_to_json(index: SourceIndex) -> dict[str, Any]:
    """One index as JSON (logins hidden)."""
    return {
        "url": index.shown,
        "role": index.role,
        "origin": index.origin,
        "mirror": index.mirror,
        "needed_for": index.needed_for,
        "why": str(index_reason(index)),
    }


def sources_to_json(sources: PlanSources, requirements: Sequence[str] = ()) -> dict[str, Any]:
    """Where the packages come from: ``recommend --json``'s ``package_sources``, ``env create``'s ``start``.

    ``install_command`` is the install as it will run (logins hidden), given the requirements.
    """
    data: dict[str, Any] = {
        "offline": sources.offline,
        "find_links": sources.find_links,
        "tool": sources.tool,
        "indexes": [index_to_json(index) for index in sources.indexes],
    }
    if requirements:
        data["install_command"] = sources.install_command(requirements)
    return data
