# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""gpuwizard.gpu.setup: the module on POSIX hosts; ``gpuwizard.exe apply ... --json`` on Windows ones.

On Windows the answer file is put in the task's temporary folder on the host; check mode runs
apply without ``--yes`` (its preview), and ``--diff`` shows what it would change, as on Linux.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    SETUP_MUTUALLY_EXCLUSIVE,
    SETUP_REQUIRED_ONE_OF,
    SETUP_SPEC,
    answers_text,
    apply_argv,
    apply_outcome,
)
from ansible_collections.gpuwizard.gpu.plugins.plugin_utils.wizard_action import WizardAction


class ActionModule(WizardAction):
    MODULE = "gpuwizard.gpu.setup"
    ARGUMENT_SPEC = SETUP_SPEC
    MUTUALLY_EXCLUSIVE = SETUP_MUTUALLY_EXCLUSIVE
    REQUIRED_ONE_OF = SETUP_REQUIRED_ONE_OF

    def run_windows(self, args, task_vars):
        executable = self.windows_executable(args["executable"], task_vars)
        written = None if args["answers"] else self.put_file("answers.json", answers_text(args))
        answers = args["answers"] or written
        check_mode = bool(self._task.check_mode)
        argv = apply_argv(executable, answers, not check_mode, args["system"], args["registry"])
        rc, stdout, stderr = self.run_wizard(argv, args["home"], task_vars)
        return apply_outcome(rc, stdout, stderr, check_mode, bool(self._task.diff), answers_written=written)
