# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""What the facts, setup and verify action plugins share: one module on POSIX, gpuwizard.exe on Windows.

On a POSIX host the action runs the collection's own module as any module runs. On a Windows
host (a PowerShell or cmd connection shell) nothing of the wizard is re-implemented in
PowerShell: the answer file is put on the host, ``gpuwizard.exe ... --json`` runs through
``ansible.windows.win_command`` (its ``argv``: no shell), and its output is parsed here on the
controller by the same module_utils code the modules use, so the result has the same shape.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import contextlib

from ansible.errors import AnsibleActionFail, AnsibleError
from ansible.plugins.action import ActionBase
from ansible.utils.vars import merge_hash
from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    WINDOWS_INSTALL_LOCATIONS,
    command_env,
)

WIN_COMMAND = "ansible.windows.win_command"
WIN_STAT = "ansible.windows.win_stat"


class WizardAction(ActionBase):
    """An action that is the module on POSIX hosts and ``gpuwizard.exe`` through win_command on Windows."""

    #: The collection's module run on POSIX hosts, and whose options are validated on Windows.
    MODULE = None
    ARGUMENT_SPEC = None
    MUTUALLY_EXCLUSIVE = None
    REQUIRED_ONE_OF = None

    _supports_check_mode = True
    _supports_async = True

    def run(self, tmp=None, task_vars=None):
        result = super(WizardAction, self).run(tmp, task_vars)
        del tmp  # no longer used (ActionBase.run)
        if not self.on_windows():
            wrap_async = self._task.async_val and not self._connection.has_native_async
            result = merge_hash(
                result,
                self._execute_module(
                    module_name=self.MODULE, module_args=self._task.args, task_vars=task_vars, wrap_async=wrap_async
                ),
            )
            if not wrap_async:
                self._remove_tmp_path(self._connection._shell.tmpdir)
            return result
        if self._task.async_val:
            raise AnsibleActionFail("%s runs gpuwizard.exe through win_command on Windows hosts, without async" % self.MODULE)
        args = self.validate_argument_spec(
            argument_spec=self.ARGUMENT_SPEC,
            mutually_exclusive=self.MUTUALLY_EXCLUSIVE,
            required_one_of=self.REQUIRED_ONE_OF,
        )[1]
        try:
            outcome = self.run_windows(args, task_vars or {})
        finally:
            self._remove_tmp_path(self._connection._shell.tmpdir)
        return merge_hash(result, outcome)

    def run_windows(self, args, task_vars):
        """The result on a Windows host (each action's own)."""
        raise NotImplementedError

    # --- on Windows hosts ---------------------------------------------------------------------

    def on_windows(self):
        """Whether the host is Windows: its connection's shell is PowerShell (or cmd)."""
        return getattr(self._connection._shell, "SHELL_FAMILY", "") in ("powershell", "cmd")

    def remote_tmp(self):
        """The task's temporary folder on the host, made when there is none yet."""
        if self._connection._shell.tmpdir is None:
            self._make_tmp_path()
        return self._connection._shell.tmpdir

    def put_file(self, name, text):
        """Put ``text`` in the task's temporary folder on the host; its path there."""
        path = self._connection._shell.join_path(self.remote_tmp(), name)
        self._transfer_data(path, text)
        return path

    def windows_executable(self, explicit, task_vars):
        """gpuwizard.exe on the host: the option, else where the installer puts it, expanded there.

        ``%VAR%`` is expanded on the host by ansible.windows.win_stat (its path option expands
        environment variables), as win_command's argv does not.
        """
        candidates = [explicit] if explicit else list(WINDOWS_INSTALL_LOCATIONS)
        for candidate in candidates:
            if explicit and "%" not in candidate:
                return candidate  # a plain name or path: win_command resolves it (PATH, .exe)
            stat = self.host_module(WIN_STAT, dict(path=candidate, get_checksum=False), task_vars).get("stat") or {}
            if stat.get("exists"):
                return stat.get("path") or candidate
        raise AnsibleActionFail(
            "gpuwizard.exe was not found at %s; install it (the gpuwizard.gpu.install role) "
            "or give the executable option" % " nor ".join(candidates)
        )

    def run_wizard(self, argv, home, task_vars):
        """Run ``argv`` on the host through win_command; (rc, stdout, stderr).

        The wizard's runs here change nothing unless asked to (apply without --yes, verify with
        --no-record), so they run in check mode too: win_command itself would skip in check mode.
        ``home`` reaches the program as GPUWIZARD_HOME through the task's environment, which is
        how a Windows module gets variables.
        """
        with self._for_real(), self._with_environment(command_env(home)):
            done = self.host_module(WIN_COMMAND, dict(argv=argv), task_vars)
        stderr = done.get("stderr") or ""
        if not done.get("stdout") and not stderr and done.get("msg"):
            stderr = done["msg"]  # win_command could not start it (no such file)
        return done.get("rc", 1), done.get("stdout") or "", stderr

    def host_module(self, name, module_args, task_vars):
        """Run another collection's module on the host; a clear failure when it is not installed."""
        try:
            return self._execute_module(module_name=name, module_args=module_args, task_vars=task_vars)
        except AnsibleError as error:
            if "was not found" in str(error) or "could not be found" in str(error):
                raise AnsibleActionFail(
                    "%s needs the ansible.windows collection on the controller for Windows hosts "
                    "(ansible-galaxy collection install ansible.windows): %s" % (self.MODULE, error)
                )
            raise

    @contextlib.contextmanager
    def _for_real(self):
        saved = self._task.check_mode
        self._task.check_mode = False
        try:
            yield
        finally:
            self._task.check_mode = saved

    @contextlib.contextmanager
    def _with_environment(self, variables):
        if not variables:
            yield
            return
        saved = self._task.environment
        current = saved if isinstance(saved, list) else ([saved] if saved else [])
        self._task.environment = list(current) + [variables]  # the task's own come first; these win
        try:
            yield
        finally:
            self._task.environment = saved
