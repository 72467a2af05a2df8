#!/bin/bash
# GPU Setup Wizard: a Slurm Prolog that keeps jobs off a node whose GPU setup is broken
# (integrations/slurm/README.md).
#
#   slurm.conf:  Prolog=/etc/slurm/prolog.d/gpuwizard.sh
#
# Runs `gpuwizard verify --no-test --oneline` (no live test, no network: it compares the driver,
# the GPUs and the wizard's environments with the last good state) before the first step of each
# job on the node, and exits
#   0  healthy, or nothing to verify (the wizard set nothing up on this node);
#   1  broken, or the gate cannot tell (the program is missing or fails, or gives no answer within
#      GPUWIZARD_TIMEOUT seconds): slurmd then drains the node and requeues the job (slurm.conf(5),
#      Prolog).
# The one line goes to stdout; slurmd writes it to its log when the prolog fails ("prolog failed:
# rc:1 output:gpuwizard: broken: ..."). The drain reason itself is slurmctld's "Prolog error":
# Slurm's Prolog and Epilog Guide asks prologs not to call Slurm commands such as scontrol, so this
# script does not set one. healthcheck.sh, run as the HealthCheckProgram, drains a broken node with
# the line as its reason.
#
# Settings, from the environment or from the file GPUWIZARD_SETTINGS (default
# /etc/default/gpuwizard, read when present: slurmd gives a prolog almost no environment):
#   GPUWIZARD          the program (default: gpuwizard, searched on PATH, /usr/local/bin and /usr/bin)
#   GPUWIZARD_HOME     the wizard's state folder, when the node was set up with one
#   GPUWIZARD_GATE     off: pass at once (for nodes the wizard does not manage: slurm.conf, and
#                      so this script, is the same on every node)
#   GPUWIZARD_TIMEOUT  seconds to wait for the answer (default 30)

set -u

settings="${GPUWIZARD_SETTINGS:-/etc/default/gpuwizard}"
if [[ -r "$settings" ]]; then
    # shellcheck source=/dev/null
    . "$settings"
fi
# A prolog runs without a search path (Slurm's Prolog and Epilog Guide).
export PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
if [[ -n "${GPUWIZARD_HOME:-}" ]]; then
    export GPUWIZARD_HOME
fi
# The gate checks the node, not the job: slurmd gives a Prolog the job's own GPU selection
# (CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL, ROCR_VISIBLE_DEVICES: "Specifies the GPU devices for
# the job allocation", Slurm's Prolog and Epilog Guide, https://slurm.schedmd.com/prolog_epilog.html;
# ZE_AFFINITY_MASK with gres.conf(5) Flags=intel_gpu_env). With a 1-GPU job's selection on a
# 4-GPU node, verify would see one GPU, call the others lost and drain the node, and no two jobs'
# prologs would see the same GPUs. So every device-selection variable CUDA, ROCm, HIP, OpenCL,
# Level Zero, oneAPI and NVIDIA's container runtime read goes, wherever it came from.
unset CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES \
    GPU_DEVICE_ORDINAL ZE_AFFINITY_MASK ONEAPI_DEVICE_SELECTOR
if [[ "${GPUWIZARD_GATE:-on}" == "off" ]]; then
    exit 0
fi
gpuwizard="${GPUWIZARD:-gpuwizard}"
limit="${GPUWIZARD_TIMEOUT:-30}"

line="$(timeout "$limit" "$gpuwizard" verify --no-test --oneline)"
status=$?
line="${line%%$'\n'*}"
case "$status" in
    0 | 1) ;;
    124) line="gpuwizard: gate error: verify gave no answer within ${limit} s" ;;
    126 | 127) line="gpuwizard: gate error: cannot run ${gpuwizard}" ;;
    *) line="gpuwizard: gate error: verify exited ${status}${line:+: ${line}}" ;;
esac
if [[ "$status" -eq 1 && -z "$line" ]]; then
    line="gpuwizard: broken"
fi
printf '%s\n' "${line:0:200}"
if [[ "$status" -eq 0 ]]; then
    exit 0
fi
exit 1
