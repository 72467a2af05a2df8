# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""NVIDIA's Linux driver branches, and the lowest one whose driver a plan and its GPUs can use.

NVIDIA's ``nvidia.nvidia_driver`` role (github.com/NVIDIA/ansible-role-nvidia-driver,
defaults/main.yml @ f68d4a70, 2026-02-05) takes ``nvidia_driver_branch`` as the branch's
number in quotes (its default is ``"515"``) and installs the newest driver of that branch:
``nvidia-headless-<branch>-server`` from Ubuntu's archive, ``cuda-drivers-<branch>`` from
NVIDIA's CUDA repository, ``nvidia-driver-branch-<branch>`` (RHEL 7) or the DNF module stream
``nvidia-driver:<branch>-dkms`` (RHEL 8+). The role keeps no list of branches.

Two minimums decide the branch. The plan's (``plan.min_driver.linux``) says which drivers run
the build's CUDA; it does not say which GPUs a driver knows: an H200 (Hopper) runs no driver
older than R520, though a CUDA 11.8 build's minimum is 450.80.02 (minor-version
compatibility). The wizard says the GPUs' own minimum as ``plan.gpu_min_driver.linux`` (the
driver that the first CUDA toolkit compiling for the machine's newest GPU shipped with:
CUDA 11.8's 520.61.05 for Hopper and Ada; NVIDIA's "CUDA Toolkit, Driver, and Architecture
Matrix", https://docs.nvidia.com/datacenter/tesla/drivers/cuda-toolkit-driver-and-architecture-matrix.html,
gives each architecture's first CUDA); the branch meets the higher of the two.

The table below: each Linux branch, its kind in NVIDIA's data center driver lifecycle, its
newest Linux release known when the table was written (every branch's first releases are older
than that; a branch meets a minimum when its newest release does), and its end of life
(``YYYY-MM``: from that month on; ``YYYY-MM-DD``: from that day on; None: none known). A branch
past its end of life gets no fixes, security ones included: it is never given unless asked for
(``include_eol``).

Kinds: ``ltsb`` Long Term Support Branch, ``pb`` Production Branch, ``nfb`` New Feature Branch
(``production_only`` never gives one), None: not a branch of the data center lifecycle.
Sources:

- NVIDIA's data center LTSBs are R418, R450, R470, R535, R580 and R620: NVIDIA CUDA and Drivers
  Support, RN-08625-001 v02, March 2021,
  https://docs.nvidia.com/datacenter/tesla/pdf/NVIDIA_CUDA_Drivers_Support.pdf (R418 LTSB, end
  of life March 2022; R440 New Feature Branch, November 2020; R450 LTSB, July 2023; R455
  Evaluation/Developer Branch, "for evaluation purposes", no support period; R460 Production
  Branch, January 2022); "Supported Drivers and CUDA Toolkit Versions", the R615 edition,
  https://docs.nvidia.com/datacenter/tesla/drivers/615/supported-drivers-and-cuda-toolkit-versions.html
  (R535 LTSB, June 2026; R580 LTSB, June 2028; R595 Production Branch, March 2027; R610 New
  Feature Branch, August 2026) and the R620 edition (R620 LTSB, September 2029; "Only Long Term
  Support and Production branches are listed": R615, absent, is a New Feature Branch); R470
  (July 2024): NVIDIA/gpu-operator#927; R550 (June 2025): NVIDIA/gpu-driver-container#381; R570
  (February 2026): NVIDIA/gpu-operator#2207; R575 (ended by 2025-07-17, "a short-lived branch"):
  NVIDIA/gpu-driver-container#381; each an NVIDIA engineer citing that page.
- R390 is no LTSB of NVIDIA's data center lifecycle (which begins with R418): it is the legacy
  Unix branch for Fermi GPUs, "no longer being maintained" (NVIDIA's "Current graphics driver
  releases", forums.developer.nvidia.com/t/current-graphics-driver-releases/28500), last release
  390.157 of 2022-11-22; endoflife.date's ``lts: true`` for it is that site's own label.
- The other kinds, newest releases and end-of-life days: NVIDIA's release list,
  https://docs.nvidia.com/datacenter/tesla/drivers/releases.json, as endoflife.date keeps it
  (github.com/endoflife-date/endoflife.date, products/nvidia-driver.md @ aa544fad, 2026-08-07;
  "R570-Linux (PB)", "R575-Linux (NFB)", its ``eol`` days for the New Feature Branches). R560
  and R565 are New Feature Branches, though endoflife.date labels them PB: releases.json's own
  ``type`` (Azure/aks-gpu#113, 2025-07-10, filtering on it: "Feature branches: 465, 495, 520,
  560, 565, 575") and SUSE's NVIDIA packager (openSUSE/nvidia-driver-G06#39: "560/565 is a
  feature branch driver"). R590 is a New Feature Branch (NVIDIA's "Current graphics driver
  releases": "Current new feature branch release: 590.48.01"); New Feature Branches "do not have
  an end-of-life date" (the R620 edition), so R590's and R615's are None.
- R520's newest release: 520.61.05, the driver CUDA 11.8 ships with (its release notes, Table 3;
  the wizard's cuda.json ``toolkit_drivers``), newer than the list's 520.56.06. Every other
  toolkit's driver in that table is at most its branch's newest release here (a test checks it).
- R615's number: CUDA 13.4 Update 1's release notes name it as CUDA 13.4's driver branch (the
  wizard's resources/compat/cuda.json, "CUDA 13.4 | R615"); its newest release and R620's are not
  known here (None).

A branch not in the table is never chosen; add new ones here as NVIDIA lists them.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import datetime
import json
import re

#: (branch, kind, newest Linux release known, end of life) in increasing order; see the sources.
BRANCHES = (
    ("390", None, "390.157", "2022-11-22"),
    ("418", "ltsb", "418.197.02", "2022-03"),
    ("440", "nfb", None, "2020-11"),
    ("450", "ltsb", "450.248.02", "2023-07"),
    ("455", "nfb", None, "2021-03"),  # "for evaluation purposes": never supported in production
    ("460", "pb", "460.106.00", "2022-01"),
    ("465", "nfb", "465.24.02", "2022-04-19"),
    ("470", "ltsb", "470.256.02", "2024-07"),
    ("495", "nfb", "495.46", "2022-10-12"),
    ("510", "pb", "510.108.03", "2023-01-01"),
    ("515", "pb", "515.105.01", "2023-05-01"),
    ("520", "nfb", "520.61.05", "2023-10-01"),  # CUDA 11.8's own driver, newer than the list's 520.56.06
    ("525", "pb", "525.147.05", "2023-12-01"),
    ("530", "nfb", "530.41.03", "2023-06-24"),
    ("535", "ltsb", "535.309.01", "2026-06"),
    ("545", "nfb", "545.29.06", "2024-10-01"),
    ("550", "pb", "550.163.01", "2025-06"),
    ("555", "nfb", "555.58.02", "2025-06-01"),
    ("560", "nfb", "560.35.03", "2025-08-22"),
    ("565", "nfb", "565.57.01", "2025-10-01"),
    ("570", "pb", "570.211.01", "2026-02"),
    ("575", "nfb", "575.57.08", "2025-07"),
    ("580", "ltsb", "580.178.04", "2028-06"),
    ("590", "nfb", "590.48.01", None),
    ("595", "pb", "595.91.07", "2027-03"),
    ("610", "nfb", "610.57.04", "2026-08"),
    ("615", "nfb", None, None),
    ("620", "ltsb", None, "2029-09"),
)

#: The kinds that are production branches (every LTSB is one).
PRODUCTION_KINDS = ("pb", "ltsb")

_VERSION = re.compile(r"^\s*R?(\d+)(?:\.(\d+))?(?:\.(\d+))?\s*$", re.IGNORECASE)
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class DriverBranchError(ValueError):
    """No branch can be given for this input (said in one sentence)."""


def version_key(version):
    """``"525.60.13"`` as (525, 60, 13); a branch alone (``"580"``, ``"R580"``) as (580,)."""
    match = _VERSION.match(str(version))
    if not match:
        raise DriverBranchError("%r is not an NVIDIA driver version such as 525.60.13" % (version,))
    return tuple(int(part) for part in match.groups() if part is not None)


def _plan_of(value):
    """The plan (or ``min_driver`` mapping, or version text) in ``value``, JSON text read."""
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
    return value.get("plan") if isinstance(value.get("plan"), dict) else value


def linux_minimum(value):
    """The plan's own Linux minimum driver in ``value``: recommend --json, its plan, or a version.

    ``value`` may be the ``gpuwizard.recommendation/1`` document (or its JSON text), its
    ``plan``, a ``min_driver`` mapping, or a plain version such as ``"525.60.13"``.
    """
    plan = _plan_of(value)
    if isinstance(plan, str):
        return plan
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


def gpu_minimum(value):
    """The Linux driver the machine's GPUs need (``plan.gpu_min_driver.linux``), or None.

    None for a plain version or ``min_driver`` mapping, and for a plan of a wizard older than
    the field or whose GPUs need no more than the oldest CUDA its tables know.
    """
    plan = _plan_of(value)
    if isinstance(plan, str):
        return None
    floor = plan.get("gpu_min_driver")
    if isinstance(floor, dict) and floor.get("linux"):
        return str(floor["linux"])
    return None


def effective_minimum(value):
    """The Linux driver to meet: the higher of the plan's minimum and its GPUs' (:func:`gpu_minimum`)."""
    minimum = linux_minimum(value)
    gpus = gpu_minimum(value)
    if gpus is not None and version_key(gpus) > version_key(minimum):
        return gpus
    return minimum


def as_date(value):
    """``value`` (a date, or ``YYYY-MM-DD`` text) as a date; None: today."""
    if value is None or value == "":
        return datetime.date.today()
    if isinstance(value, datetime.datetime):
        return value.date()
    if isinstance(value, datetime.date):
        return value
    text = str(value).strip()
    if _DAY.match(text):
        try:
            return datetime.date(*(int(part) for part in text.split("-")))
        except ValueError:
            pass
    raise DriverBranchError("%r is not a day written as YYYY-MM-DD" % (value,))


def ended(end_of_life, today):
    """Whether a branch whose end of life is ``end_of_life`` (``YYYY-MM`` or ``YYYY-MM-DD``) has ended on ``today``."""
    if end_of_life is None:
        return False
    return today.isoformat() >= end_of_life  # "2026-06" sorts before every day of June 2026


def driver_branch(value, production_only=False, include_eol=False, today=None):
    """The lowest Linux branch in :data:`BRANCHES` whose driver the plan and its GPUs can use.

    The branch's newest release meets :func:`effective_minimum`. With ``production_only``, only
    production branches (Production and Long Term Support); without ``include_eol``, no branch
    past its end of life on ``today`` (a date or ``YYYY-MM-DD``; None: today).
    """
    minimum = effective_minimum(value)
    wanted = version_key(minimum)
    day = as_date(today)
    for branch, kind, newest, end_of_life in BRANCHES:
        if production_only and kind not in PRODUCTION_KINDS:
            continue
        if not include_eol and ended(end_of_life, day):
            continue
        major = int(branch)
        if major < wanted[0]:
            continue
        if major == wanted[0] and newest is not None and version_key(newest) < wanted:
            continue  # the branch never reached the minimum release
        return branch
    kinds = "production branch" if production_only else "branch"
    if include_eol:
        raise DriverBranchError(
            "no NVIDIA Linux driver %s at or above %s is known (the newest known is R%s); "
            "the table in gpuwizard.gpu's module_utils/driver_branches.py needs the newer branches"
            % (kinds, minimum, BRANCHES[-1][0])
        )
    raise DriverBranchError(
        "no NVIDIA Linux driver %s at or above %s is known that is still supported on %s (the newest known is R%s); "
        "include_eol=true allows a branch past its end of life, and the table in gpuwizard.gpu's "
        "module_utils/driver_branches.py may need the newer branches"
        % (kinds, minimum, day.isoformat(), BRANCHES[-1][0])
    )
