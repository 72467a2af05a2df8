"""Which conda channels the wizard will not use, and why."""

from __future__ import annotations

import re
from collections.abc import Sequence

from gpuwizard.core.secret_formats import mask_url  # a channel's token never reaches stderr


class ChannelRefused(ValueError):
    """A channel that would install something stale or broken."""


def check_channels(channels: Sequence[str]) -> None:
    """Refuse the ``pytorch`` channels: PyTorch 2.5 was the last release published there.

    (github.com/pytorch/pytorch/issues/138506, "Deprecation of PyTorch's official Anaconda
    channel"); a plan with a newer PyTorch installs it with pip inside the environment.

    >>> check_channels(["conda-forge"])
    >>> try:
    ...     check_channels(["https://conda.anaconda.org/pytorch-nightly/"])
    ... except ChannelRefused as error:
    ...     print(error)
    the 'https://conda.anaconda.org/pytorch-nightly/' channel stopped at PyTorch 2.5; PyTorch comes from pip inside the environment
    """
    for channel in channels:
        # A label of a channel (`pytorch/label/nightly`) is still that channel.
        name = re.sub(r"/label/[^/]+$", "", channel.rstrip("/"))
        last = name.rsplit("/", 1)[-1].lower()
        if last in {"pytorch", "pytorch-nightly", "pytorch-test"}:
            raise ChannelRefused(
                f"the {mask_url(channel)!r} channel stopped at PyTorch 2.5; PyTorch comes from pip inside the environment"
            )
