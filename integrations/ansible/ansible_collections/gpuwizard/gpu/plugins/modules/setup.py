#!/usr/bin/python
# -*- coding: utf-8 -*-
# Copyright: (c) 2026, GPU Setup Wizard developers
# MIT License (see https://opensource.org/licenses/MIT)

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r"""
---
module: setup
short_description: Set up a GPU framework environment the way the wizard does, unattended
version_added: "0.1.0"
description:
  - Runs C(gpuwizard apply --answers FILE --yes --json) - detect, plan, PATH (Windows), the
    environment and the live test - with the answers given as options (or an answer file on the
    target), and reports C(changed) as the wizard's result says it.
  - In check mode it runs apply's preview (without C(--yes)) - nothing changes, C(changed) says
    whether the real run would change anything, and with C(--diff) the diff shows what - the PATH
    folders added, the environment (folder, tool, interpreter, variables) and the packages it is
    made with (as the plan names them, such as C(torch==2.13.0); the constraints file written
    afterwards pins the build installed, such as C(torch==2.13.0+cpu)). C(msg) says that check mode
    changed nothing; C(result) is the wizard's preview result as it is.
  - A refusal of options the module put in its own answer file names them as the task's options.
  - A second run on a machine already set up keeps the environment and reports C(changed=false);
    a damaged environment of the same plan is made again.
  - It fails when apply exits 1 (a problem, such as a live test that did not pass; the setup is kept
    for diagnosis), 2 (the answers were refused; nothing changed), 3 (a step failed and this run's
    changes were undone) or 130 (cancelled), with the result's message and its findings.
  - On Windows targets the action plugin copies the answer file to the host and runs
    C(gpuwizard.exe) through M(ansible.windows.win_command); the wizard is never re-implemented in PowerShell.
author:
  - GPU Setup Wizard developers (!UNKNOWN)
requirements:
  - The C(gpuwizard) program on the target (the P(gpuwizard.gpu.install#role) role installs it).
  - On Windows targets, the C(ansible.windows) collection on the controller.
notes:
  - The answers and their meaning are the wizard's answer file's (docs/fleet/answers.toml in the
    wizard's repository); an unknown value is refused by the wizard before anything changes.
  - A real run takes minutes (it installs a framework and trains a small network); use the task
    keywords C(async) and C(poll) for long runs on many hosts.
extends_documentation_fragment:
  - gpuwizard.gpu.wizard
options:
  answers:
    description:
      - An answer file (C(.toml) or C(.json)) on the target, instead of the answer options.
    type: str
  framework:
    description:
      - The framework (C(framework) of the answer file).
    type: str
    choices: [pytorch, tensorflow, tensorflow-gpu]
  version:
    description:
      - The framework's release, such as C("2.13"); default the recommended one. Quote it in YAML.
    type: str
  python:
    description:
      - The preferred Python version; the plan may choose another, and says why.
    type: str
  manager:
    description:
      - The environment manager.
    type: str
    choices: [venv, conda]
  tool:
    description:
      - The tool that makes the environment; default the best one found.
    type: str
    choices: [uv, pip, conda, mamba, micromamba, rattler]
  environment:
    description:
      - The environment's name (the wizard's default is C(gpu)).
    type: str
    aliases: [name]
  prefix:
    description:
      - The environment's folder; default under the wizard's data folder.
    type: str
  gpus:
    description:
      - The GPUs the environment sees (C(CUDA_VISIBLE_DEVICES) inside it) - C(all), a list such as
        C([0, 1]), or text such as C("0,1").
    type: raw
  path_scope:
    description:
      - Where the plan's CUDA folders go on Windows.
    type: str
    choices: [user, system, none]
  other_cuda:
    description:
      - What happens to another CUDA version's PATH entries.
    type: str
    choices: [keep, end, remove]
  find_links:
    description:
      - A folder of wheels (an offline mirror) on the target.
    type: str
  channel:
    description:
      - A local conda channel (conda environments only).
    type: str
  offline:
    description:
      - Fetch nothing from any index; needs O(find_links).
    type: bool
  jupyter:
    description:
      - Register a Jupyter kernel.
    type: bool
  replace:
    description:
      - Replace an environment of the same name made with another plan or other answers.
    type: bool
  test:
    description:
      - Run the live training test at the end (the wizard's default is V(true)).
    type: bool
  require_gpu:
    description:
      - Fail (before changing anything) when the framework cannot use a GPU here, and when the
        live test does not train on one.
    type: bool
attributes:
  check_mode:
    description: Runs apply's preview; nothing changes.
    support: full
  diff_mode:
    description: The PATH folders added, the environment and the packages it is made with.
    support: full
  platform:
    description: Linux targets run the module; Windows targets run C(gpuwizard.exe) through M(ansible.windows.win_command).
    support: full
    platforms: posix, windows
seealso:
  - module: gpuwizard.gpu.facts
  - module: gpuwizard.gpu.verify
"""

EXAMPLES = r"""
- name: PyTorch 2.13 in an environment named lab, from a local folder of wheels
  gpuwizard.gpu.setup:
    framework: pytorch
    version: "2.13"
    environment: lab
    find_links: /srv/wheels
    offline: true
    require_gpu: true

- name: The same from an answer file already on the host
  gpuwizard.gpu.setup:
    answers: /etc/gpuwizard/answers.toml

- name: What would change (run with --check --diff)
  gpuwizard.gpu.setup:
    framework: tensorflow
    version: "2.10"
    path_scope: user
  check_mode: true
  diff: true
"""

RETURN = r"""
result:
  description:
    - The wizard's result (schema C(gpuwizard.apply/1)) - C(status), C(exit_code), C(changed), the environment,
      the live test's figures and C(findings).
  returned: when the wizard gave one (not when it refused the answers with exit 2)
  type: dict
  sample: {"schema": "gpuwizard.apply/1", "status": "ok", "exit_code": 0, "changed": true, "framework": "pytorch"}
stages:
  description: The run's C(stage) events (C(detect), C(plan), C(sources), C(path), C(environment), C(test)) in order.
  returned: always
  type: list
  elements: dict
findings:
  description: The findings that explain a failure or accompany a success (each with C(code), C(severity), C(message), C(hint)).
  returned: always
  type: list
  elements: dict
rc:
  description: The wizard's exit code.
  returned: always
  type: int
  sample: 0
"""

import os

from ansible.module_utils.basic import AnsibleModule
from ansible_collections.gpuwizard.gpu.plugins.module_utils.gpuwizard import (
    SETUP_MUTUALLY_EXCLUSIVE,
    SETUP_REQUIRED_ONE_OF,
    SETUP_SPEC,
    answers_text,
    apply_argv,
    apply_outcome,
    executable_on_target,
    run_on_target,
)


def main():
    module = AnsibleModule(
        argument_spec=SETUP_SPEC,
        mutually_exclusive=SETUP_MUTUALLY_EXCLUSIVE,
        required_one_of=SETUP_REQUIRED_ONE_OF,
        supports_check_mode=True,
    )
    params = module.params
    executable = executable_on_target(module)
    answers = params["answers"]
    written = None
    if answers is None:
        # The answers as the wizard reads them: a JSON answer file in the module's own temporary folder.
        answers = written = os.path.join(module.tmpdir, "answers.json")
        with open(answers, "w") as handle:
            handle.write(answers_text(params))
    argv = apply_argv(executable, answers, not module.check_mode, params["system"], params["registry"])
    rc, stdout, stderr = run_on_target(module, argv, params["home"])
    outcome = apply_outcome(rc, stdout, stderr, module.check_mode, module._diff, answers_written=written)
    if outcome.pop("failed"):
        module.fail_json(**outcome)
    module.exit_json(**outcome)


if __name__ == "__main__":
    main()
