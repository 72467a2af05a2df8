"""The package indexes and conda channels a plan may install from: an allow-list.

Why a list at all: the compatibility data can be refreshed from a URL (``recommend --refresh``),
and ``pytorch.json``'s ``index_url`` goes straight into ``pip install --index-url``. A tampered
or mistaken bundle must not point every later install at another server, so a bundle naming any
index or channel outside this list is refused (``workflow/compat/bundle.py``), and a plan falls
back to the official PyTorch index when its data names another (:func:`plan_index_url`).

The list is the official homes of what the wizard installs:

- PyPI (``https://pypi.org/simple``, pip's default index; ``https://pypi.org/`` itself);
- the PyTorch wheel index, ``https://download.pytorch.org/whl/...`` (one folder per variant,
  https://pytorch.org/get-started/locally/);
- conda-forge, by its channel name or its URL ``https://conda.anaconda.org/conda-forge``
  (the channel TensorFlow's own install guide uses for cudatoolkit and cuDNN).

>>> is_allowed_index("https://download.pytorch.org/whl/{variant}")
True
>>> is_allowed_index("https://evil.example/whl/{variant}")
False
>>> plan_index_url("https://evil.example/whl/{variant}", "cu126")
'https://download.pytorch.org/whl/cu126'
>>> is_allowed_channel("conda-forge"), is_allowed_channel("pytorch")
(True, False)
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal
from urllib.parse import urlsplit

#: The PyTorch wheel index, one folder per variant (``cu126``, ``cpu``): what a plan uses when
#: the data names an index outside the list.
DEFAULT_TORCH_INDEX_TEMPLATE: Final = "https://download.pytorch.org/whl/{variant}"

#: Host -> (paths allowed as they are, paths allowed with everything under them).
_INDEX_PATHS: Final[Mapping[str, tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "pypi.org": (("",), ("/simple",)),
    "download.pytorch.org": ((), ("/whl",)),
}
_CHANNEL_NAMES: Final = frozenset({"conda-forge"})
_CHANNEL_URLS: Final = frozenset({"https://conda.anaconda.org/conda-forge"})
#: A value that is a URL (a scheme, then ``://``).
_URL: Final = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
#: Keys whose values are package indexes, and keys whose values are conda channels.
_INDEX_KEYS: Final = ("index_url", "index_urls", "extra_index_url", "extra_index_urls", "find_links")
_CHANNEL_KEYS: Final = ("channel", "channels", "conda_channel", "conda_channels")
#: Keys whose URLs are documents people read, not places anything is installed from
#: (``sources.json``'s ``url`` of each source).
_DOCUMENT_KEYS: Final = frozenset({"url"})


def is_allowed_index(url: str) -> bool:
    """Whether ``url`` (or a template with ``{variant}``) is a package index on the list.

    Only https, the exact host (no user, no port), no query or fragment, and a path on the
    list with no ``..``, ``%`` or backslash that could lead elsewhere on the way.
    """
    probe = url.replace("{variant}", "cu126")
    try:
        parts = urlsplit(probe)
    except ValueError:
        return False
    if parts.scheme != "https" or parts.query or parts.fragment or "{" in probe or "}" in probe:
        return False
    path = parts.path.rstrip("/")
    if ".." in path or "%" in path or "\\" in path:
        return False
    allowed = _INDEX_PATHS.get(parts.netloc)  # netloc, not hostname: a user or port is refused too
    if allowed is None:
        return False
    exact, trees = allowed
    return path in exact or any(path == root or path.startswith(root + "/") for root in trees)


def is_allowed_channel(channel: str) -> bool:
    """Whether ``channel`` (a name or a URL) is a conda channel on the list."""
    text = channel.strip()
    return text in _CHANNEL_NAMES or text.rstrip("/") in _CHANNEL_URLS


def plan_index_template(template: str) -> str:
    """The index template a plan may use: ``template`` when allowed, else the official PyTorch one."""
    return template if is_allowed_index(template) else DEFAULT_TORCH_INDEX_TEMPLATE


def plan_index_url(template: str, variant: str) -> str:
    """The index URL a plan may use for ``variant``: the data's own when it is on the list.

    ``template`` is ``pytorch.json``'s ``index_url`` (with ``{variant}``); when it, or the URL it
    makes for ``variant``, is not on the list, the official PyTorch index is used instead.
    """
    made = plan_index_template(template).replace("{variant}", variant)
    return made if is_allowed_index(made) else DEFAULT_TORCH_INDEX_TEMPLATE.replace("{variant}", variant)


@dataclass(frozen=True)
class Disallowed:
    """An index or channel that a set of compatibility files names and the list does not allow."""

    kind: Literal["index", "channel"]
    #: Where: ``pytorch.json: index_url``.
    where: str
    value: str


def disallowed_in(files: Mapping[str, Any]) -> list[Disallowed]:
    """Every package index and conda channel named anywhere in ``files`` that is not on the list.

    ``files`` maps a file's name (``pytorch``) to its parsed content. Looked at: values of keys
    that name indexes (``index_url``, ``find_links``, ...) or channels (``channels``, ...), the
    channel of conda package specs (``conda-forge::cudnn``), and any other value that is a URL,
    except the documents ``sources.json`` cites.
    """
    found: list[Disallowed] = []
    for name, data in files.items():
        for path, key, value in _strings(data, ()):
            where = f"{name}.json: {'/'.join(path) or '(top level)'}"
            found.extend(_judge(where, key, value, documents=name == "sources"))
    return found


def _judge(where: str, key: str, value: str, *, documents: bool) -> Iterator[Disallowed]:
    kind: Literal["index", "channel"]
    if key in _INDEX_KEYS:
        allowed, kind = is_allowed_index(value), "index"
    elif key in _CHANNEL_KEYS:
        allowed, kind = is_allowed_channel(value), "channel"
    elif key == "conda_packages":
        allowed, kind = _allowed_conda_package(value), "channel"
    elif _URL.match(value) and not (documents and key in _DOCUMENT_KEYS):
        allowed, kind = is_allowed_index(value) or _under_allowed_channel(value), "index"
    else:
        return
    if not allowed:
        yield Disallowed(kind, where, value)


def _allowed_conda_package(spec: str) -> bool:
    # conda's `channel::package` names the channel a package comes from; a package may also be
    # given as the URL of its file.
    if "::" in spec:
        return is_allowed_channel(spec.split("::", 1)[0])
    return not _URL.match(spec) or _under_allowed_channel(spec)


def _under_allowed_channel(url: str) -> bool:
    return is_allowed_channel(url) or any(url.startswith(channel + "/") for channel in _CHANNEL_URLS)


def _strings(data: object, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], str, str]]:
    """Every string in ``data``: its path, the nearest key above it, and the string."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            if isinstance(value, str):
                yield (*path, str(key)), str(key), value
            else:
                yield from _strings_under(value, (*path, str(key)), str(key))
    elif isinstance(data, list):
        yield from _strings_under(data, path, "")


def _strings_under(
    data: object, path: tuple[str, ...], key: str
) -> Iterator[tuple[tuple[str, ...], str, str]]:
    if isinstance(data, list):
        for index, item in enumerate(data):
            if isinstance(item, str):
                yield (*path, str(index)), key, item
            else:
                yield from _strings_under(item, (*path, str(index)), key)
    else:
        yield from _strings(data, path)
