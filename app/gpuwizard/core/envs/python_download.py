"""The new environment's Python when this machine has none of the plan's version: where uv gets it (pure).

uv makes a venv with the Python version it is asked for and, when none is installed, downloads a
managed CPython build first (docs.astral.sh/uv/concepts/python-versions/, "Requesting a version":
uv "will ensure that Python 3.11.6 is available — downloading and installing it if necessary").
That download comes from another host than the package indexes, so it is named in the preview
and asked before anything is made, as the indexes are (issue 37, point 6;
``workflow/envs/index_check.py``):

- the builds are python-build-standalone's, published as GitHub release assets under
  :data:`PBS_GITHUB` (GitHub hands each file out from another host of its own, which the check
  follows); recent uv releases (the one the wizard ships among them) fetch them from Astral's
  mirror of those releases first, :data:`PBS_ASTRAL`, and turn to GitHub when it does not answer
  (docs.astral.sh/uv/reference/environment/, ``UV_ASTRAL_MIRROR_URL``: once that is set, "uv uses
  only the configured mirror URL and does not fall back to GitHub");
- ``UV_PYTHON_INSTALL_MIRROR`` replaces :data:`PBS_GITHUB` in those URLs
  (docs.astral.sh/uv/reference/environment/; docs.rs/uv-settings, ``PythonInstallMirrors``), and
  uv then uses it alone; a ``file://`` mirror is a folder of this machine: nothing is contacted.

Which file uv would download is asked of the uv the install runs (``uv python list X.Y
--only-downloads --output-format json``: ``adapters/python_downloads.py``), which applies those
settings itself; :func:`download_from_listing` reads its answer, and :func:`default_download`
stands in for a uv too old to say.

When a Python of the plan's version is installed, uv is given its path and told to download
none (``--no-python-downloads``, ``adapters/envs/venv_backends.py``), and none of this applies.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final
from urllib.parse import urlsplit

from gpuwizard.core.compat.shell_commands import program_command
from gpuwizard.core.envs.package_sources import PlanSources, display_url, host_of, index_reason
from gpuwizard.core.texts import QT_TRANSLATE_NOOP, TranslatableText

#: Where python-build-standalone's builds are published (GitHub release assets).
PBS_GITHUB: Final = "https://github.com/astral-sh/python-build-standalone/releases/download"
#: Astral's mirror of those releases, which recent uv releases try first.
PBS_ASTRAL: Final = "https://releases.astral.sh/github/python-build-standalone/releases/download"
#: The person's mirror of python-build-standalone's builds (it replaces :data:`PBS_GITHUB`).
PYTHON_MIRROR_VARIABLE: Final = "UV_PYTHON_INSTALL_MIRROR"
#: The person's mirror of everything uv fetches from releases.astral.sh.
ASTRAL_MIRROR_VARIABLE: Final = "UV_ASTRAL_MIRROR_URL"
#: The builds' source when the person set no mirror: uv's own choice.
ORIGIN_UV: Final = "uv"
#: Where python.org's installers are, by OS family (the ways forward name them).
PYTHON_ORG_DOWNLOADS: Final = {
    "windows": "https://www.python.org/downloads/windows/",
    "darwin": "https://www.python.org/downloads/macos/",
}

_CONTEXT: Final = "plans"


@dataclass(frozen=True)
class ContactedHost:
    """One host an install contacts: which, why, and the address asked there.

    Attributes:
        host: The host (and port, when not the scheme's own).
        why: Why the install contacts it, in a few words (a
            :class:`~gpuwizard.core.texts.TranslatableText`: English in JSON, translated on a page).
        url: The address (login hidden).
    """

    host: str
    why: str
    url: str

    def to_json(self) -> dict[str, str]:
        """As JSON: ``host``, ``why``, ``url``."""
        return {"host": self.host, "why": str(self.why), "url": self.url}


@dataclass(frozen=True)
class PythonDownload:
    """The Python build uv downloads for the new environment, and from where.

    Attributes:
        python: The Python asked for (the plan's, ``3.13``).
        url: The build's file as uv would fetch it; when uv could not say (:attr:`exact` is
            False), the folder its builds are in.
        origin: ``uv`` (its own choice), or the setting that chose the place:
            ``UV_PYTHON_INSTALL_MIRROR``, ``UV_ASTRAL_MIRROR_URL``.
        version: The build's full version (``3.13.9``); None when uv could not say.
        fallback_url: GitHub's copy of the file, which uv turns to when Astral's mirror does
            not answer; None when uv uses one place only.
    """

    python: str
    url: str
    origin: str = ORIGIN_UV
    version: str | None = None
    fallback_url: str | None = None

    @property
    def exact(self) -> bool:
        """Whether :attr:`url` is the very file uv would download (uv said so)."""
        return self.version is not None

    @property
    def mirror(self) -> bool:
        """Whether the person chose the place (a mirror), rather than uv."""
        return self.origin != ORIGIN_UV

    @property
    def local(self) -> bool:
        """Whether the builds come from a folder of this machine (``file://``): nothing is contacted."""
        return _scheme(self.url) == "file"

    @property
    def urls(self) -> tuple[str, ...]:
        """The addresses uv may fetch from, in the order it tries them (none when local)."""
        if self.local:
            return ()
        return (self.url, self.fallback_url) if self.fallback_url else (self.url,)

    @property
    def shown(self) -> str:
        """:attr:`url` with any login hidden."""
        return display_url(self.url)

    def hosts(self) -> tuple[ContactedHost, ...]:
        """The hosts uv contacts for it, each with why (none when the builds are in a local folder)."""
        if self.local:
            return ()
        found = [ContactedHost(host_of(self.url), python_reason(self), self.shown)]
        if self.fallback_url:
            found.append(
                ContactedHost(
                    host_of(self.fallback_url), fallback_reason(self), display_url(self.fallback_url)
                )
            )
        return tuple(found)


def python_reason(download: PythonDownload) -> TranslatableText:
    """Why the install contacts the place of ``download``, in a few words."""
    if download.mirror:
        return TranslatableText(
            _CONTEXT,
            QT_TRANSLATE_NOOP(
                "plans",
                "your mirror of Python builds, from {origin}: uv downloads Python {python} there, none is installed here",
            ),
            origin=download.origin,
            python=download.python,
        )
    return TranslatableText(
        _CONTEXT,
        QT_TRANSLATE_NOOP(
            "plans",
            "uv downloads Python {python} from there (a python-build-standalone build): none is installed here",
        ),
        python=download.python,
    )


def fallback_reason(download: PythonDownload) -> TranslatableText:
    """Why GitHub is contacted too: uv turns to it when its first place does not answer."""
    return TranslatableText(
        _CONTEXT,
        QT_TRANSLATE_NOOP(
            "plans", "GitHub's copy of the same build, which uv tries when {host} does not answer"
        ),
        host=host_of(download.url),
    )


def download_from_listing(
    python: str, listing: object, environ: Mapping[str, str] | None = None
) -> PythonDownload | None:
    """The build uv would download for Python ``python``, from ``uv python list --output-format json``.

    ``listing`` is the parsed answer of ``uv python list X.Y --only-downloads``: uv lists this
    platform's builds newest first, CPython's beside PyPy's and free-threaded ones; ``uv venv
    --python X.Y`` takes the newest CPython of the default variant. None: uv has no such build.

    >>> answer = [{"key": "cpython-3.13.9-linux-x86_64-gnu", "version": "3.13.9", "implementation": "cpython",
    ...            "variant": "default", "url": PBS_ASTRAL + "/20261110/cpython-3.13.9.tar.gz"}]
    >>> found = download_from_listing("3.13", answer, {})
    >>> found.version, found.fallback_url
    ('3.13.9', 'https://github.com/astral-sh/python-build-standalone/releases/download/20261110/cpython-3.13.9.tar.gz')
    >>> download_from_listing("3.99", answer, {}) is None
    True
    """
    env = {} if environ is None else environ
    entries: Sequence[object] = listing if isinstance(listing, list) else []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        url, version, key = entry.get("url"), str(entry.get("version") or ""), str(entry.get("key") or "")
        if not isinstance(url, str) or not url or str(entry.get("implementation", "")).lower() != "cpython":
            continue
        # Older uv releases write no "variant": the key then says "+freethreaded" or "+debug".
        variant = str(entry.get("variant") or ("default" if "+" not in key else key.split("+", 1)[1]))
        if variant != "default" or ".".join(version.split(".")[:2]) != python:
            continue
        origin = _origin(url, env)
        fallback = None
        if origin == ORIGIN_UV and url.startswith(PBS_ASTRAL + "/"):
            fallback = PBS_GITHUB + url[len(PBS_ASTRAL) :]
        return PythonDownload(python, url, origin, version, fallback)
    return None


def default_download(python: str, environ: Mapping[str, str] | None = None) -> PythonDownload:
    """Where a uv too old to say (no ``--only-downloads``) takes Python ``python`` from: its mirror, or GitHub."""
    env = {} if environ is None else environ
    mirror = (env.get(PYTHON_MIRROR_VARIABLE) or "").strip()
    if mirror:
        return PythonDownload(python, mirror.rstrip("/") + "/", PYTHON_MIRROR_VARIABLE)
    return PythonDownload(python, PBS_GITHUB + "/")


def _origin(url: str, environ: Mapping[str, str]) -> str:
    """The setting ``url`` comes from, by its start (uv put the mirror there), else ``uv``."""
    for variable in (PYTHON_MIRROR_VARIABLE, ASTRAL_MIRROR_VARIABLE):
        value = (environ.get(variable) or "").strip().rstrip("/")
        if value and url.startswith(value + "/"):
            return variable
    return ORIGIN_UV


def contacted_hosts(sources: PlanSources | None, python: PythonDownload | None) -> tuple[ContactedHost, ...]:
    """Every host the install contacts, with why: the package indexes, then the Python's places."""
    hosts: list[ContactedHost] = []
    if sources is not None and not sources.offline:
        hosts += [ContactedHost(index.host, index_reason(index), index.shown) for index in sources.indexes]
    if python is not None:
        hosts += python.hosts()
    return tuple(hosts)


def download_to_json(download: PythonDownload) -> dict[str, Any]:
    """The Python download as JSON (logins hidden): what ``start`` and ``sources`` carry."""
    return {
        "python": download.python,
        "version": download.version,
        "url": download.shown,
        "exact": download.exact,
        "origin": download.origin,
        "mirror": download.mirror,
        "fallback_url": display_url(download.fallback_url) if download.fallback_url else None,
        "why": str(python_reason(download)),
    }


def provide_python(python: str, *, family: str, uv: str | None) -> str:
    """How to install Python ``python`` oneself, every command as that family's shells run it.

    ``family`` is the OS family (``windows``, ``darwin``, ``linux``); ``uv`` the uv the wizard
    found (it installs a build the wizard then finds among uv's, ``adapters/interpreters.py``).
    On Windows, the Python install manager's ``py install X.Y``
    (docs.python.org/3/using/windows.html, "Installing runtimes") or python.org's installer.

    >>> provide_python("3.13", family="linux", uv="/opt/uv")
    "your distribution's package of Python 3.13, or while online: /opt/uv python install 3.13"
    >>> provide_python("3.13", family="windows", uv=None)
    'with the Python install manager: py install 3.13; or the installer from https://www.python.org/downloads/windows/'
    """
    windows = family == "windows"
    ways: list[str] = []
    if windows:
        ways.append(f"with the Python install manager: py install {python}")
        ways.append(f"or the installer from {PYTHON_ORG_DOWNLOADS['windows']}")
    elif family == "darwin":
        ways.append(f"the installer from {PYTHON_ORG_DOWNLOADS['darwin']}")
    else:
        ways.append(f"your distribution's package of Python {python}")
    if uv:
        ways.append(f"or while online: {program_command(uv, f'python install {python}', windows=windows)}")
    return "; ".join(ways) if windows else ", ".join(ways)


def _scheme(url: str) -> str:
    try:
        return urlsplit(url).scheme.lower()
    except ValueError:
        return ""
