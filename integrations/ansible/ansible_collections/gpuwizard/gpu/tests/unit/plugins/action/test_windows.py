# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)
"""The action plugins on a Windows host: gpuwizard.exe through win_command, the same result shape.

Nothing reaches a host: ``_execute_module`` (win_stat, win_command), ``_transfer_data`` and the
temporary folder's calls are mocked, and the test asserts what they were asked to do.
"""

from __future__ import absolute_import, division, print_function

__metaclass__ = type

import json
import ntpath
import os

import pytest

from ansible.errors import AnsibleActionFail
from ansible_collections.gpuwizard.gpu.plugins.action.facts import ActionModule as FactsAction
from ansible_collections.gpuwizard.gpu.plugins.action.setup import ActionModule as SetupAction
from ansible_collections.gpuwizard.gpu.plugins.action.verify import ActionModule as VerifyAction

try:
    from unittest.mock import MagicMock
except ImportError:  # pragma: no cover - Python 2
    from mock import MagicMock

FIXTURES = os.path.join(os.path.dirname(__file__), "..", "module_utils", "fixtures")
EXE = "C:\\Users\\ana\\AppData\\Local\\Programs\\GPU Setup Wizard\\gpuwizard.exe"
TMP = "C:\\Users\\ana\\AppData\\Local\\Temp\\ansible-tmp-1"


def fixture(name):
    with open(os.path.join(FIXTURES, name)) as handle:
        return handle.read()


class Host:
    """What the Windows host answers: win_stat finds the per-user install; win_command prints ``stdout``."""

    def __init__(self, stdout, rc=0, stderr=""):
        self.stdout, self.rc, self.stderr = stdout, rc, stderr
        self.calls = []

    def __call__(self, module_name=None, module_args=None, task_vars=None, **kwargs):
        self.calls.append((module_name, dict(module_args), self.task.check_mode, list(self.task.environment)))
        if module_name == "ansible.windows.win_stat":
            exists = module_args["path"].startswith("%LOCALAPPDATA%")
            return {"stat": {"exists": exists, "path": EXE if exists else None}}
        assert module_name == "ansible.windows.win_command"
        return {"rc": self.rc, "stdout": self.stdout, "stderr": self.stderr, "failed": self.rc != 0}


def windows_action(cls, args, stdout, rc=0, check_mode=False, diff=False):
    task = MagicMock()
    task.args = args
    task.check_mode = check_mode
    task.diff = diff
    task.async_val = 0
    task.environment = [{"PROXY": "x"}]
    connection = MagicMock()
    connection._shell.SHELL_FAMILY = "powershell"
    connection._shell.tmpdir = None
    connection._shell.join_path = ntpath.join
    action = cls(task, connection, MagicMock(), MagicMock(), MagicMock(), MagicMock())
    host = Host(stdout, rc)
    host.task = task
    action._execute_module = host

    def make_tmp_path(*args, **kwargs):
        connection._shell.tmpdir = TMP
        return TMP

    action._make_tmp_path = MagicMock(side_effect=make_tmp_path)
    action._transfer_data = MagicMock()
    action._remove_tmp_path = MagicMock()
    return action, host


def commands(host):
    return [call for call in host.calls if call[0] == "ansible.windows.win_command"]


def test_setup_puts_the_answers_on_the_host_and_runs_apply_with_yes():
    args = {"framework": "pytorch", "version": "2.13", "environment": "lab", "home": "D:\\gpuwizard"}
    action, host = windows_action(SetupAction, args, fixture("apply-first.jsonl"))
    result = action.run(task_vars={})
    path, answers = action._transfer_data.call_args[0]
    assert path == TMP + "\\answers.json"
    assert json.loads(answers) == {"schema": "gpuwizard.answers/1", "framework": "pytorch", "version": "2.13", "environment": "lab"}
    ((dummy, module_args, check_mode, environment),) = commands(host)
    assert module_args == {"argv": [EXE, "apply", "--answers", TMP + "\\answers.json", "--yes", "--json"]}
    assert environment == [{"PROXY": "x"}, {"GPUWIZARD_HOME": "D:\\gpuwizard"}]
    assert action._task.environment == [{"PROXY": "x"}]  # put back
    assert (result["changed"], result["failed"], result["result"]["status"]) == (True, False, "ok")
    action._remove_tmp_path.assert_called_once_with(TMP)


def test_setup_in_check_mode_runs_the_preview_for_real_and_gives_the_diff():
    args = {"framework": "tensorflow", "version": "2.10", "registry": "C:\\snap\\registry.json"}
    action, host = windows_action(SetupAction, args, fixture("apply-preview-windows.jsonl"), check_mode=True, diff=True)
    result = action.run(task_vars={})
    ((dummy, module_args, check_mode, dummy_environment),) = commands(host)
    assert "--yes" not in module_args["argv"]
    assert module_args["argv"][-2:] == ["--registry", "C:\\snap\\registry.json"]
    assert check_mode is False  # win_command would skip in check mode; the preview changes nothing
    assert action._task.check_mode is True
    assert result["changed"] is True
    assert [diff["before_header"].split(" ")[0] for diff in result["diff"]] == ["PATH", "environment", "packages"]


def test_setup_with_an_answer_file_on_the_host_transfers_nothing():
    action, host = windows_action(SetupAction, {"answers": "C:\\fleet\\answers.toml"}, fixture("apply-again.jsonl"))
    result = action.run(task_vars={})
    action._transfer_data.assert_not_called()
    assert commands(host)[0][1]["argv"][2:4] == ["--answers", "C:\\fleet\\answers.toml"]
    assert result["changed"] is False


def test_a_refusal_fails_with_the_wizard_s_line():
    action, host = windows_action(SetupAction, {"framework": "pytorch"}, fixture("apply-refused.jsonl"), rc=2)
    host.stderr = fixture("apply-refused.stderr")
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"].startswith("gpuwizard: error: ")


def test_answer_options_and_an_answer_file_together_are_refused():
    action, host = windows_action(SetupAction, {"answers": "a.toml", "framework": "pytorch"}, "")
    with pytest.raises(AnsibleActionFail, match="mutually exclusive"):
        action.run(task_vars={})
    assert host.calls == []


def test_the_executable_option_is_used_as_given_and_expanded_when_it_holds_a_variable():
    action, host = windows_action(VerifyAction, {"executable": "D:\\tools\\gpuwizard.exe", "test": False}, fixture("verify-healthy.jsonl"))
    result = action.run(task_vars={})
    assert [call[0] for call in host.calls] == ["ansible.windows.win_command"]
    assert commands(host)[0][1]["argv"] == ["D:\\tools\\gpuwizard.exe", "verify", "--json", "--no-test"]
    assert (result["failed"], result["healthy"], result["changed"]) == (False, True, False)

    action, host = windows_action(VerifyAction, {"executable": "%ProgramFiles%\\GPU Setup Wizard\\gpuwizard.exe"}, "")
    with pytest.raises(AnsibleActionFail, match="gpuwizard.exe was not found at %ProgramFiles%"):
        action.run(task_vars={})


def test_verify_fails_with_each_drift_and_records_nothing_in_check_mode():
    action, host = windows_action(VerifyAction, {"prometheus": "C:\\metrics\\gpu.prom"}, fixture("verify-broken.jsonl"), rc=1, check_mode=True)
    result = action.run(task_vars={})
    argv = commands(host)[0][1]["argv"]
    assert argv == [EXE, "verify", "--json", "--no-record"]
    assert result["failed"] is True
    assert result["drifts"][0]["check_id"] == "env:lab:constraints"


def test_facts_run_detect_and_verify_without_recording():
    report = {"schema": "gpuwizard.system/1", "gpus": [], "driver": None}
    action, host = windows_action(FactsAction, {"verify": True, "test": False}, json.dumps(report))
    outputs = iter([json.dumps(report), fixture("verify-healthy.jsonl")])
    original = host.__call__

    def answer(module_name=None, module_args=None, task_vars=None, **kwargs):
        done = original(module_name, module_args, task_vars)
        if module_name == "ansible.windows.win_command":
            done["stdout"] = next(outputs)
        return done

    action._execute_module = answer
    result = action.run(task_vars={})
    assert [call[1]["argv"][1:] for call in commands(host)] == [
        ["detect", "--json"], ["verify", "--json", "--no-test", "--no-record"]]
    facts = result["ansible_facts"]["gpuwizard"]
    assert facts["schema"] == "gpuwizard.system/1" and facts["verify"]["healthy"] is True
    assert result["changed"] is False


def test_on_a_posix_host_the_module_runs():
    action, host = windows_action(FactsAction, {}, "")
    action._connection._shell.SHELL_FAMILY = "sh"
    action._connection.has_native_async = False
    action._execute_module = MagicMock(return_value={"ansible_facts": {"gpuwizard": {}}, "changed": False})
    result = action.run(task_vars={"a": 1})
    assert action._execute_module.call_args[1]["module_name"] == "gpuwizard.gpu.facts"
    assert result["ansible_facts"] == {"gpuwizard": {}}


def test_a_refused_option_is_named_as_the_task_s_not_by_the_answer_file_s_path_on_the_host():
    action, host = windows_action(SetupAction, {"framework": "pytorch", "gpus": ["abc"]}, "", rc=2)
    host.stderr = "gpuwizard: error: %s\\answers.json: 'abc' is not a GPU selection (write indices such as 0,1)\n" % TMP
    result = action.run(task_vars={})
    assert result["failed"] is True
    assert result["msg"] == "gpuwizard: error: the task's options: 'abc' is not a GPU selection (write indices such as 0,1)"


def test_check_mode_says_so_in_ansible_s_words_and_keeps_the_wizard_s_result():
    action, host = windows_action(SetupAction, {"framework": "tensorflow"}, fixture("apply-preview-windows.jsonl"), check_mode=True)
    result = action.run(task_vars={})
    assert result["msg"] == "check mode: nothing was changed; the setup would change this machine"
    assert result["result"]["message"] == "nothing was changed; add --yes to carry it out"
