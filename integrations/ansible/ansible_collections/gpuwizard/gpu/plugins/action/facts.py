# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""gpuwizard.gpu.facts: the module on POSIX hosts; ``gpuwizard.exe detect --json`` on Windows ones."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    FACTS_SPEC,
    detect_argv,
    facts_outcome,
    verify_argv,
)
from ansible_collections.gpuwizard.gpu.plugins.plugin_utils.wizard_action import WizardAction


class ActionModule(WizardAction):
    MODULE = "gpuwizard.gpu.facts"
    ARGUMENT_SPEC = FACTS_SPEC

    def run_windows(self, args, task_vars):
        executable = self.windows_executable(args["executable"], task_vars)
        detect = self.run_wizard(detect_argv(executable, args["system"]), args["home"], task_vars)
        verify = None
        if args["verify"] and detect[0] == 0:
            argv = verify_argv(
                executable,
                env=args["env"],
                test=args["test"],
                record=False,
                system=args["system"],
                registry=args["registry"],
            )
            verify = self.run_wizard(argv, args["home"], task_vars)
        return facts_outcome(detect, verify)
