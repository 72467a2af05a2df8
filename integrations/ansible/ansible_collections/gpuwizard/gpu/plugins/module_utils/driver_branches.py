# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""NVIDIA's Linux driver branches, and the lowest one whose driver meets a plan's minimum.

NVIDIA's ``nvidia.nvidia_driver`` role (github.com/NVIDIA/ansible-role-nvidia-driver,
defaults/main.yml @ f68d4a70, 2026-02-05) takes ``nvidia_driver_branch`` as the branch's
number in quotes (its default is ``"515"``) and installs the newest driver of that branch:
``nvidia-headless-<branch>-server`` from Ubuntu's archive, ``cuda-drivers-<branch>`` from
NVIDIA's CUDA repository, ``nvidia-driver-branch-<branch>`` (RHEL 7) or the DNF module stream
``nvidia-driver:<branch>-dkms`` (RHEL 8+). The role keeps no list of branches.

The table below: each Linux branch, its kind in NVIDIA's data center driver lifecycle, and its
newest Linux release known when the table was written (every branch's first releases are older
than that; a branch meets a minimum when its newest release does).

Sources:

- Branches, kinds (``ltsb``: Long Term Support Branch; ``pb``: Production Branch; ``nfb``:
  New Feature Branch) and newest releases: NVIDIA's own list,
  https://docs.nvidia.com/datacenter/tesla/drivers/releases.json, as endoflife.date keeps it
  (github.com/endoflife-date/endoflife.date, products/nvidia-driver.md @ aa544fad, 2026-08-07:
  "R535-Linux" with ``lts: true``, "R570-Linux (PB)", "R575-Linux (NFB)", ...).
- The lifecycle: https://docs.nvidia.com/datacenter/tesla/drivers/driver-lifecycle.html
  ("Every LTSB is a production branch, but not every production branch is an LTSB") and
  https://docs.nvidia.com/datacenter/tesla/drivers/supported-drivers-and-cuda-toolkit-versions.html
  (R535 and R580 Long Term Support Branch, R570 Production Branch; R440, R455 and R410 among
  the older branches, all end of life).
- R440 (Production Branch) and R455 (New Feature Branch, CUDA 11.1's 455.23): NVIDIA's Data
  Center Drivers overview, https://docs.nvidia.com/datacenter/tesla/drivers/index.html, 2021
  edition; their newest releases are not in the list above (None).
- R615: CUDA 13.4 Update 1's release notes name it as CUDA 13.4's driver branch (the wizard's
  resources/compat/cuda.json, "CUDA 13.4 | R615"); NVIDIA's list does not classify it yet, so
  its kind is None and ``production_only`` never picks it.

A branch not in the table is never chosen; add new ones here as NVIDIA lists them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import re

#: (branch, kind, newest Linux release known) in increasing order; see the module's sources.
BRANCHES = (
    ("390", "ltsb", "390.157"),
    ("418", "ltsb", "418.197.02"),
    ("440", "pb", None),
    ("450", "ltsb", "450.248.02"),
    ("455", "nfb", None),
    ("460", "pb", "460.106.00"),
    ("465", "nfb", "465.24.02"),
    ("470", "ltsb", "470.256.02"),
    ("495", "nfb", "495.46"),
    ("510", "pb", "510.108.03"),
    ("515", "pb", "515.105.01"),
    ("520", "nfb", "520.56.06"),
    ("525", "pb", "525.147.05"),
    ("530", "nfb", "530.41.03"),
    ("535", "ltsb", "535.309.01"),
    ("545", "nfb", "545.29.06"),
    ("550", "pb", "550.163.01"),
    ("555", "nfb", "555.58.02"),
    ("560", "pb", "560.35.03"),
    ("565", "pb", "565.57.01"),
    ("570", "pb", "570.211.01"),
    ("575", "nfb", "575.57.08"),
    ("580", "ltsb", "580.178.04"),
    ("590", "nfb", "590.48.01"),
    ("595", "pb", "595.91.07"),
    ("610", "nfb", "610.57.04"),
    ("615", None, None),
)

#: The kinds that are production branches (every LTSB is one).
PRODUCTION_KINDS = ("pb", "ltsb")

_VERSION = re.compile(r"^\s*R?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$", re.IGNORECASE)


class DriverBranchError(ValueError):
    """No branch can be given for this input (said in one sentence)."""


def version_key(version):
    """``"525.60.13"`` as (525, 60, 13); a branch alone (``"580"``, ``"R580"``) as (580,)."""
    match = _VERSION.match(str(version))
    if not match:
        raise DriverBranchError("%r is not an NVIDIA driver version such as 525.60.13" % (version,))
    return tuple(int(part) for part in match.groups() if part is not None)


def linux_minimum(value):
    """The Linux minimum driver in ``value``: recommend --json, its plan, or a version.

    ``value`` may be the ``gpuwizard.recommendation/1`` document (or its JSON text), its
    ``plan``, a ``min_driver`` mapping, or a plain version such as ``"525.60.13"``.
    """
    if isinstance(value, (bytes, bytearray)):
        value = value.decode("utf-8")
    if isinstance(value, str) and value.strip().startswith("{"):
        try:
            value = json.loads(value)
        except ValueError:
            raise DriverBranchError("the text given is neither a driver version nor gpuwizard's JSON")
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        value = str(value)
    if isinstance(value, str):
        if not value.strip():
            raise DriverBranchError("no driver version was given")
        return value.strip()
    if not isinstance(value, dict):
        raise DriverBranchError(
            "give recommend --json's document, its plan, or a driver version such as 525.60.13, not %s"
            % type(value).__name__
        )
    plan = value.get("plan") if isinstance(value.get("plan"), dict) else value
    if "min_driver" in plan:
        minimum = plan.get("min_driver")
    elif "linux" in plan or "windows" in plan:
        minimum = plan
    else:
        raise DriverBranchError("this is not gpuwizard's recommendation or plan: it has no min_driver")
    described = plan.get("summary") or plan.get("framework") or "the plan"
    if not minimum:
        device = plan.get("device")
        if plan.get("cpu_only") or device == "cpu":
            raise DriverBranchError("%s trains on the CPU: it needs no NVIDIA driver, so there is no branch to install" % described)
        raise DriverBranchError(
            "%s is not for an NVIDIA GPU (%s): NVIDIA's driver role does not apply" % (described, device or "no driver minimum")
        )
    linux = minimum.get("linux")
    if not linux:
        windows = minimum.get("windows")
        if windows:
            raise DriverBranchError(
                "%s gives only a Windows minimum driver (%s); nvidia.nvidia_driver installs Linux drivers" % (described, windows)
            )
        raise DriverBranchError("%s gives no Linux minimum driver" % described)
    return str(linux)


def driver_branch(value, production_only=False):
    """The lowest Linux branch in :data:`BRANCHES` whose driver meets ``value``'s Linux minimum.

    With ``production_only``, only production branches (Production and Long Term Support).
    """
    minimum = linux_minimum(value)
    wanted = version_key(minimum)
    for branch, kind, newest in BRANCHES:
        if production_only and kind not in PRODUCTION_KINDS:
            continue
        major = int(branch)
        if major < wanted[0]:
            continue
        if major == wanted[0] and newest is not None and version_key(newest) < wanted:
            continue  # the branch never reached the minimum release
        return branch
    kinds = "production branch" if production_only else "branch"
    raise DriverBranchError(
        "no NVIDIA Linux driver %s at or above %s is known (the newest known is R%s); "
        "the table in gpuwizard.gpu's module_utils/driver_branches.py needs the newer branches"
        % (kinds, minimum, BRANCHES[-1][0])
    )
