"""Which channels the py-rattler engine will solve against (issue 23).

Only conda-forge by name, or a channel given explicitly by its URL (``file://`` for a local
channel, the conda counterpart of pip's ``--find-links``; ``https://`` for a mirror, plain
``http://`` only to this machine). Never
the retired ``pytorch`` channels (:func:`conda_channels.check_channels`), never Anaconda's
``defaults``: those need an accepted Terms of Service since July 2025 and a non-interactive
install fails without it (conda-anaconda-tos, ``CondaToSNonInteractiveError``), and
repo.anaconda.com is where they are served (docs.anaconda.com/getting-started/tos-plugin/).
``nodefaults`` (environment.yml's way to say "not defaults") is accepted and dropped: the
engine never adds a channel of its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final
from urllib.parse import urlsplit

from gpuwizard.core.envs.conda_channels import ChannelRefused, check_channels
from gpuwizard.core.envs.package_sources import LOCAL_HOSTS
from gpuwizard.core.secret_formats import mask_url  # a channel's token never reaches stderr

CONDA_FORGE: Final = "conda-forge"
NO_DEFAULTS: Final = "nodefaults"
_URL_SCHEMES: Final = ("file", "http", "https")
_DEFAULTS_NAMES: Final = frozenset({"defaults", "main", "r", "msys2", "anaconda"})
_DEFAULTS_HOSTS: Final = frozenset({"repo.anaconda.com", "repo.continuum.io"})


def rattler_channels(channels: Sequence[str], *, offline: bool = False) -> list[str]:
    """The channels to use, in order, or :class:`ChannelRefused` with a one-line reason.

    Offline, only local ``file://`` channels are allowed: nothing else can be read without
    the network (the counterpart of pip's ``--no-index --find-links``).

    >>> rattler_channels(["nodefaults", "conda-forge"])
    ['conda-forge']
    >>> rattler_channels(["file:///srv/channel"], offline=True)
    ['file:///srv/channel']
    >>> try:
    ...     rattler_channels(["defaults"])
    ... except ChannelRefused as error:
    ...     print(error)
    the 'defaults' channel is Anaconda's (Terms of Service needed); use conda-forge
    """
    check_channels(channels)
    kept: list[str] = []
    for channel in channels:
        if channel == NO_DEFAULTS:
            continue
        parts = urlsplit(channel)
        scheme = parts.scheme.lower()
        name = channel.rstrip("/").rsplit("/", 1)[-1].lower()
        if (scheme and parts.hostname in _DEFAULTS_HOSTS) or (not scheme and name in _DEFAULTS_NAMES):
            raise ChannelRefused(
                f"the {mask_url(channel)!r} channel is Anaconda's (Terms of Service needed); use conda-forge"
            )
        if scheme and scheme not in _URL_SCHEMES:
            raise ChannelRefused(
                f"the {mask_url(channel)!r} channel is not a file://, http:// or https:// URL"
            )
        if scheme == "http" and parts.hostname not in LOCAL_HOSTS:
            # As for pip mirrors (package_sources.refuse_mirror): nothing downloaded is trusted
            # without HTTPS, except from this machine.
            raise ChannelRefused(
                f"the {mask_url(channel)!r} channel is not https:// (plain http is allowed only to this machine)"
            )
        if not scheme and channel != CONDA_FORGE:
            raise ChannelRefused(
                f"the {mask_url(channel)!r} channel is not conda-forge; give another channel by its URL"
            )
        if offline and scheme != "file":
            raise ChannelRefused(
                f"the {mask_url(channel)!r} channel needs the network; offline, only file:// channels"
            )
        if channel not in kept:
            kept.append(channel)
    if not kept:
        raise ChannelRefused("no channel: name conda-forge or a channel's URL")
    return kept
