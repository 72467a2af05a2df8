# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""gpuwizard.gpu.verify: the module on POSIX hosts; ``gpuwizard.exe verify --json`` on Windows ones."""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    VERIFY_SPEC,
    verify_argv,
    verify_outcome,
)
from ansible_collections.gpuwizard.gpu.plugins.plugin_utils.wizard_action import WizardAction


class ActionModule(WizardAction):
    MODULE = "gpuwizard.gpu.verify"
    ARGUMENT_SPEC = VERIFY_SPEC

    def run_windows(self, args, task_vars):
        check_mode = bool(self._task.check_mode)
        argv = verify_argv(
            self.windows_executable(args["executable"], task_vars),
            env=args["env"],
            test=args["test"],
            record=args["record"] and not check_mode,
            prometheus=None if check_mode else args["prometheus"],
            system=args["system"],
            registry=args["registry"],
        )
        return verify_outcome(*self.run_wizard(argv, args["home"], task_vars))
