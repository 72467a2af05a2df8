#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: verify
short_description: Check that the wizard's setup still works, and fail with each drift when it does not
version_added: "0.1.0"
description:
  - Runs C(gpuwizard verify --json) - the driver, the GPUs, each environment the wizard made
    (its interpreter, the framework's import and build, its pins, the GPUs it sees, NVIDIA's CUDA
    wheels, a short live test) and the PATH folders it added - against the last good state.
  - Fails when the setup is broken, returning each drift with its before -> after and fix.
  - On a machine the wizard has not set up it does not fail; C(status) is C(nothing_to_verify) and C(msg) says so.
  - It reports C(changed=false) always; a healthy run records the new last good state (unless
    O(record=false)) and writes O(prometheus), which is the wizard's own bookkeeping, not a change
    to the setup.
  - On Windows targets the action plugin runs C(gpuwizard.exe) through M(ansible.windows.win_command)
    and parses its output on the controller.
author:
  - GPU Setup Wizard developers (!UNKNOWN)
requirements:
  - The C(gpuwizard) program on the target (the P(gpuwizard.gpu.install#role) role installs it).
  - On Windows targets, the C(ansible.windows) collection on the controller.
extends_documentation_fragment:
  - gpuwizard.gpu.wizard
options:
  env:
    description:
      - Verify only these environments; default every environment the wizard made.
    type: list
    elements: str
  test:
    description:
      - Run the short live test in each environment; V(false) passes C(--no-test) (fast, no network).
    type: bool
    default: true
  record:
    description:
      - Record a healthy result as the new last good state; V(false) passes C(--no-record).
      - In check mode nothing is recorded.
    type: bool
    default: true
  prometheus:
    description:
      - Also write the result for node_exporter's or windows_exporter's textfile collector to this
        file on the target (C(--prometheus FILE)); passed only when given, and not in check mode.
    type: str
attributes:
  check_mode:
    description: Runs with C(--no-record) and without O(prometheus); nothing is written.
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
  - module: gpuwizard.gpu.facts
"""

EXAMPLES = r"""
- name: Verify the setup after the driver role ran
  gpuwizard.gpu.verify:

- name: A fast check without the live test, with metrics for node_exporter
  gpuwizard.gpu.verify:
    test: false
    prometheus: /var/lib/node_exporter/textfile_collector/gpuwizard.prom
"""

RETURN = r"""
result:
  description: The wizard's result (schema C(gpuwizard.health/1)) with C(healthy), C(status), C(checks), C(counts), C(drifted) and C(saved).
  returned: when the wizard gave one
  type: dict
healthy:
  description: No check is broken.
  returned: always
  type: bool
  sample: true
status:
  description: C(complete), C(cancelled) or C(nothing_to_verify).
  returned: when the wizard gave a result
  type: str
  sample: complete
drifts:
  description: Each check that moved since the last good state (C(broken) fails the task; C(changed) still works).
  returned: always
  type: list
  elements: dict
  contains:
    check_id:
      description: The check, such as C(driver) or C(env:lab:build).
      type: str
    kind:
      description: What it looks at.
      type: str
    subject:
      description: The environment, the GPUs or the folder.
      type: str
    status:
      description: C(broken) or C(changed).
      type: str
    before:
      description: The recorded value.
      type: str
    after:
      description: The value now.
      type: str
    code:
      description: The finding's code.
      type: str
    message:
      description: What changed or broke.
      type: str
    fix:
      description: What to do (the finding's hint).
      type: str
rc:
  description: The wizard's exit code.
  returned: always
  type: int
  sample: 0
"""

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    VERIFY_SPEC,
    executable_on_target,
    run_on_target,
    verify_argv,
    verify_outcome,
)


def main():
    module = AnsibleModule(argument_spec=VERIFY_SPEC, supports_check_mode=True)
    params = module.params
    argv = verify_argv(
        executable_on_target(module),
        env=params["env"],
        test=params["test"],
        record=params["record"] and not module.check_mode,
        prometheus=None if module.check_mode else params["prometheus"],
        system=params["system"],
        registry=params["registry"],
    )
    outcome = verify_outcome(*run_on_target(module, argv, params["home"]))
    if outcome.pop("failed"):
        module.fail_json(**outcome)
    module.exit_json(**outcome)


if __name__ == "__main__":
    main()
