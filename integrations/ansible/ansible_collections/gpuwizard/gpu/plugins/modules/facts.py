#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: facts
short_description: The machine's GPUs, driver, CUDA and environments as facts
version_added: "0.1.0"
description:
  - Runs C(gpuwizard detect --json) and returns the report (schema C(gpuwizard.system/1)) as
    C(ansible_facts.gpuwizard).
  - With O(verify=true) it also runs C(gpuwizard verify --json --no-record) and adds its result
    (schema C(gpuwizard.health/1)) as C(ansible_facts.gpuwizard.verify). A broken setup is a fact
    like any other and does not fail the task; use M(gpuwizard.gpu.verify) to fail on one.
  - On Windows targets the action plugin runs C(gpuwizard.exe) through M(ansible.windows.win_command)
    and parses its output on the controller; the wizard is never re-implemented in PowerShell.
  - It never changes anything.
author:
  - GPU Setup Wizard developers (!UNKNOWN)
requirements:
  - The C(gpuwizard) program on the target (the P(gpuwizard.gpu.install#role) role installs it).
  - On Windows targets, the C(ansible.windows) collection on the controller.
extends_documentation_fragment:
  - gpuwizard.gpu.wizard
options:
  verify:
    description:
      - Also run C(gpuwizard verify --json --no-record) and add its result as C(verify).
    type: bool
    default: false
  test:
    description:
      - With O(verify=true), run verify's short live test; V(false) passes C(--no-test).
    type: bool
    default: true
  env:
    description:
      - With O(verify=true), verify only these environments.
    type: list
    elements: str
attributes:
  check_mode:
    description: Runs as usual in check mode; it changes nothing.
    support: full
  diff_mode:
    description: Nothing changes, so there is no diff.
    support: none
  platform:
    description: Linux targets run the module; Windows targets run C(gpuwizard.exe) through M(ansible.windows.win_command).
    support: full
    platforms: posix, windows
seealso:
  - module: gpuwizard.gpu.setup
  - module: gpuwizard.gpu.verify
"""

EXAMPLES = r"""
- name: Gather the GPU facts
  gpuwizard.gpu.facts:

- name: Gather them with the setup's health, without the live test
  gpuwizard.gpu.facts:
    verify: true
    test: false

- name: Show the driver and the highest CUDA it supports
  ansible.builtin.debug:
    msg: "{{ ansible_facts.gpuwizard.driver.version }} (CUDA {{ ansible_facts.gpuwizard.driver.cuda_max }})"
  when: ansible_facts.gpuwizard.driver is not none
"""

RETURN = r"""
ansible_facts:
  description: The facts.
  returned: success
  type: dict
  contains:
    gpuwizard:
      description:
        - The report of C(gpuwizard detect --json) (schema C(gpuwizard.system/1)), and under C(verify)
          the result of C(gpuwizard verify --json) (schema C(gpuwizard.health/1)) when O(verify=true).
      returned: success
      type: dict
      sample: {"schema": "gpuwizard.system/1", "os": {"system": "Linux"}, "gpus": [], "driver": null}
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    FACTS_SPEC,
    detect_argv,
    executable_on_target,
    facts_outcome,
    run_on_target,
    verify_argv,
)


def main():
    module = AnsibleModule(argument_spec=FACTS_SPEC, supports_check_mode=True)
    params = module.params
    executable = executable_on_target(module)
    detect = run_on_target(module, detect_argv(executable, params["system"]), params["home"])
    verify = None
    if params["verify"] and detect[0] == 0:
        argv = verify_argv(
            executable,
            env=params["env"],
            test=params["test"],
            record=False,
            system=params["system"],
            registry=params["registry"],
        )
        verify = run_on_target(module, argv, params["home"])
    outcome = facts_outcome(detect, verify)
    if outcome.pop("failed"):
        module.fail_json(**outcome)
    module.exit_json(**outcome)


if __name__ == "__main__":
    main()
