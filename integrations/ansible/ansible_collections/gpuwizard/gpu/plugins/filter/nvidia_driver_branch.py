# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""The ``nvidia_driver_branch`` filter; its documentation is nvidia_driver_branch.yml beside it."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible.errors import AnsibleFilterError
from ansible_collections.gpuwizard.gpu.plugins.module_utils.driver_branches import (
    DriverBranchError,
    driver_branch,
)


def nvidia_driver_branch(recommendation, production_only=False, include_eol=False, as_of=None):
    """The ``nvidia_driver_branch`` of NVIDIA's nvidia.nvidia_driver role for a recommendation's plan."""
    try:
        return driver_branch(
            recommendation, production_only=bool(production_only), include_eol=bool(include_eol), today=as_of
        )
    except DriverBranchError as error:
        raise AnsibleFilterError("gpuwizard.gpu.nvidia_driver_branch: %s" % error)


class FilterModule(object):
    def filters(self):
        return {"nvidia_driver_branch": nvidia_driver_branch}
