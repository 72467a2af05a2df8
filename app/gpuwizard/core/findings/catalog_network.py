"""Finding texts about package indexes: the check before an install, and install logs that show one failing.

What the wizard says when an index a plan needs cannot be reached (issue 20, point 1): which
index, what failed, and the ways forward. The same texts serve ``gpuwizard diagnose`` on a uv or
pip log (the variants are the ways a connection fails). One part of
:data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts.

Facts the hints rely on: pip and uv take a proxy from ``HTTPS_PROXY``/``HTTP_PROXY``/``NO_PROXY``
(pip.pypa.io/en/stable/user_guide/#using-a-proxy-server, docs.astral.sh/uv/reference/environment/
"HTTPS_PROXY"), with a login written in the proxy's URL; uv takes extra certificates from
``SSL_CERT_FILE`` or the system's store with ``UV_NATIVE_TLS`` (docs.astral.sh/uv/concepts/
authentication/certificates/), pip from ``PIP_CERT`` (pip.pypa.io/en/stable/topics/https-
certificates/), requests from ``REQUESTS_CA_BUNDLE`` (requests.readthedocs.io/en/latest/user/
advanced/#ssl-cert-verification).
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The templates of package indexes, by code (and ``CODE:variant``).
NETWORK_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    "PACKAGE_INDEX_UNREACHABLE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The package index {index} cannot be reached: {detail}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "If this network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. "
            "Or use a mirror of this index that the network reaches (set {setting} to its address), "
            "or install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; "
            "on the Choose page, a folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:dns": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The package index {index} cannot be reached: the name {host} cannot be looked up (DNS).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "This network's name server does not know {host}, or blocks it. If the network needs a "
            "proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this "
            "index that the network reaches (set {setting} to its address), or install from a folder "
            "of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a "
            "folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:refused": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The package index {index} cannot be reached: {host} refused the connection."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing accepts connections at that address, or a firewall rejects them. If the network "
            "needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of "
            "this index that the network reaches (set {setting} to its address), or install from a "
            "folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose "
            "page, a folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:timeout": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The package index {index} cannot be reached: {host} did not answer in time."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A firewall may drop the traffic without a word, or the network is very slow. If the "
            "network needs a proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a "
            "mirror of this index that the network reaches (set {setting} to its address), or "
            "install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; "
            "on the Choose page, a folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:network": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The package index {index} cannot be reached: there is no network route to {host}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "This machine is offline, or its network does not lead there. If the network needs a "
            "proxy, set HTTPS_PROXY (and NO_PROXY), which pip and uv read. Or use a mirror of this "
            "index that the network reaches (set {setting} to its address), or install from a folder "
            "of wheels (gpuwizard env create NAME --find-links DIR --offline; on the Choose page, a "
            "folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:tls": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The package index {index} cannot be reached safely: the certificate {host} showed cannot be verified (TLS).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Company networks often inspect encrypted traffic with a certificate authority of their "
            "own. Give its certificate (a PEM file from your IT department) to the tools: "
            "SSL_CERT_FILE for uv (or UV_NATIVE_TLS=1 to use the system's certificates), PIP_CERT "
            "for pip, REQUESTS_CA_BUNDLE for the wizard's own check. Do not turn certificate checks "
            "off: an index decides what code is installed. Or use a mirror of this index (set "
            "{setting} to its address), or install from a folder of wheels (gpuwizard env create "
            "NAME --find-links DIR --offline; on the Choose page, a folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:proxy": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The package index {index} cannot be reached: the proxy {proxy} does not let the request through.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check the proxy settings HTTPS_PROXY, HTTP_PROXY and NO_PROXY: the proxy's address and "
            "port, and whether it runs. Or use a mirror of this index that the network reaches (set "
            "{setting} to its address), or install from a folder of wheels (gpuwizard env create "
            "NAME --find-links DIR --offline; on the Choose page, a folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:proxy_auth": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The package index {index} cannot be reached: the proxy {proxy} asks for a login (HTTP 407).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Put the login in the proxy's address, as pip and uv read it: "
            "HTTPS_PROXY=http://USER:PASSWORD@PROXY:PORT (your IT department knows the proxy). Or use "
            "a mirror of this index that the network reaches (set {setting} to its address), or "
            "install from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; "
            "on the Choose page, a folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_UNREACHABLE:http": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The package index {index} answered HTTP {status} when asked for {project}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The index answers but does not serve {project} there: the address may be wrong, a "
            "mirror may not carry it, or it needs a login (401, 403). Check {setting}, or install "
            "from a folder of wheels (gpuwizard env create NAME --find-links DIR --offline; on the "
            "Choose page, a folder of wheels).",
        ),
    ),
    "PACKAGE_INDEX_PIP_UNREACHABLE": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings", "{index} cannot be reached ({detail}), so the new environment will have no pip."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Only pip comes from there: the framework comes from the plan's own index. Without pip, "
            "install more packages with 'uv pip install --python ENV_PYTHON PACKAGE'; or set "
            "{setting} to a mirror this network reaches.",
        ),
    ),
    "PYPI_BUILD_AVAILABLE": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "PyPI has the same release, PyTorch {version}, as its {build} build, which uses this machine's GPU too.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install it from PyPI instead of PyTorch's index: gpuwizard env create {name} --framework "
            "pytorch --version {version} --from-pypi.",
        ),
    ),
    # PyPI's Linux torch wheel is a CUDA build whose NVIDIA libraries come as separate wheels
    # (nvidia-*-cu12/cu13 in its METADATA); torch runs on the CPU when no GPU answers
    # (pytorch.org/get-started/locally/: the default pip wheel for Linux is a CUDA build).
    "PYPI_BUILD_AVAILABLE:cpu": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "PyPI has the same release, PyTorch {version}, as its {build} build: a CUDA build that runs on the CPU too, but downloads several GB more (the NVIDIA libraries come as separate packages).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install it from PyPI instead of PyTorch's index: gpuwizard env create {name} --framework "
            "pytorch --version {version} --from-pypi.",
        ),
    ),
    "WHEEL_FOLDER_NEEDS_OFFLINE": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "The folder of wheels {folder} is looked at beside the index, not instead of it."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Add --offline to install from the folder alone (on the Choose page: only from this "
            "folder), when it holds the plan's build and all its dependencies for this Python.",
        ),
    ),
}
