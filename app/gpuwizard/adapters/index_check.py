"""Asking a package index whether it answers: the probe the workflow is given (and tests replace).

An :data:`IndexProbe` takes the URL of an index's project page and answers with an
:class:`~gpuwizard.core.envs.index_reach.IndexAnswer`, or None when it asked nothing. The real
one is :func:`gpuwizard.adapters.http.probe_index`; :func:`probe_download_from_environment` asks
a file to be downloaded the same way, following its redirects (issue 37, point 6: the Python
build uv downloads). ``GPUWIZARD_NO_INDEX_CHECK=1`` turns asking
off (the tests set it, so that no test reaches the network unless it means to; a person may set
it where a check cannot pass but the install can, such as an index only the tools can reach).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Final

from gpuwizard.core.envs.index_reach import IndexAnswer

#: Probes an index page's URL; None: not asked.
IndexProbe = Callable[[str], "IndexAnswer | None"]

#: The variable that turns the check off.
NO_CHECK_VARIABLE: Final = "GPUWIZARD_NO_INDEX_CHECK"


def checks_enabled() -> bool:
    """Whether indexes are asked (``GPUWIZARD_NO_INDEX_CHECK=1`` says no)."""
    return os.environ.get(NO_CHECK_VARIABLE) != "1"


def probe_from_environment(url: str) -> IndexAnswer | None:
    """Ask ``url`` for real, unless the environment turns checks off (read at each call)."""
    if not checks_enabled():
        return None
    from gpuwizard.adapters.http import probe_index  # noqa: PLC0415 - requests only when asking

    return probe_index(url)


#: Redirects followed when a download is asked: GitHub sends a release file on once, to the host
#: that serves it; a few more leave room for a mirror that does the same.
DOWNLOAD_REDIRECTS: Final = 5


def probe_download_from_environment(url: str) -> IndexAnswer | None:
    """Ask for the file at ``url`` as a download of it starts (its redirects followed), unless turned off."""
    if not checks_enabled():
        return None
    from gpuwizard.adapters.http import probe_index  # noqa: PLC0415 - requests only when asking

    return probe_index(url, follow_redirects=DOWNLOAD_REDIRECTS)
