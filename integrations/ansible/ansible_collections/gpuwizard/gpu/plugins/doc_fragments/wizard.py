# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)

from __future__ import absolute_import, division, print_function

__metaclass__ = type


class ModuleDocFragment(object):
    """The options every module of the collection has: which wizard runs, on what, with which state."""

    DOCUMENTATION = r"""
options:
  executable:
    description:
      - The C(gpuwizard) program to run.
      - Default on Linux, C(gpuwizard) on PATH, then C(/opt/gpuwizard/bin/gpuwizard) and
        C(/usr/local/bin/gpuwizard) (where the install role puts it).
      - Default on Windows, C(%LOCALAPPDATA%\Programs\GPU Setup Wizard\gpuwizard.exe) then
        C(%ProgramFiles%\GPU Setup Wizard\gpuwizard.exe), expanded on the host.
    type: str
  home:
    description:
      - The wizard's state folder (C(GPUWIZARD_HOME)); default the wizard's own.
    type: str
  system:
    description:
      - A saved C(gpuwizard detect --json) report on the target to use instead of detecting the
        machine (to rehearse a setup for another machine type, or to check one).
    type: str
  registry:
    description:
      - A registry snapshot file on the target whose PATH is read (and, for M(gpuwizard.gpu.setup),
        changed) instead of the live Windows registry.
    type: str
"""
