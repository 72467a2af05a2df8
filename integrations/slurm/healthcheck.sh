#!/bin/bash
# GPU Setup Wizard: a Slurm HealthCheckProgram that drains a node whose GPU setup is broken, with
# the wizard's one line as the reason (integrations/slurm/README.md).
#
#   slurm.conf:  HealthCheckProgram=/etc/slurm/gpuwizard-healthcheck.sh
#                HealthCheckInterval=300
#                HealthCheckNodeState=ANY
#
# Runs `gpuwizard verify --no-test --oneline` (no live test, no network). Healthy, or nothing to
# verify (the wizard set nothing up on this node): exit 0, nothing else. Broken, or the gate cannot
# tell (the program is missing or fails, or gives no answer within GPUWIZARD_TIMEOUT seconds):
#   scontrol update NodeName=<this node> State=DRAIN Reason=<the line>
# and exit 1. Slurm leaves every action to the program ("Any action to be taken must be explicitly
# performed by the program", slurm.conf(5), HealthCheckProgram). It never resumes a node: an
# administrator does, once the setup is mended (`gpuwizard verify` says what drifted and the fix).
# A node the controller already counts as unhealthy (SLURM_NODE_IS_HEALTHY=no: down, drained,
# draining, failing or in maintenance) keeps its reason: the line is printed, nothing is changed.
#
# Settings, from the environment or from the file GPUWIZARD_SETTINGS (default /etc/default/gpuwizard,
# read when present):
#   GPUWIZARD          the program (default: gpuwizard, searched on PATH, /usr/local/bin and /usr/bin)
#   GPUWIZARD_HOME     the wizard's state folder, when the node was set up with one
#   GPUWIZARD_GATE     off: pass at once (for nodes the wizard does not manage: slurm.conf, and
#                      so this script, is the same on every node)
#   GPUWIZARD_TIMEOUT  seconds to wait for the answer (default 30; Slurm kills the program after
#                      HealthCheckTimeout, 60 s by default)
#   SCONTROL           the scontrol program (default: scontrol on PATH)

set -u

settings="${GPUWIZARD_SETTINGS:-/etc/default/gpuwizard}"
if [[ -r "$settings" ]]; then
    # shellcheck source=/dev/null
    . "$settings"
fi
export PATH="${PATH:+$PATH:}/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
if [[ -n "${GPUWIZARD_HOME:-}" ]]; then
    export GPUWIZARD_HOME
fi
# The gate checks the node, not a job: a GPU selection in the environment (slurmd's own, the
# settings file's, or a job's where this script also serves as the Prolog: slurmd gives a Prolog
# CUDA_VISIBLE_DEVICES, GPU_DEVICE_ORDINAL and ROCR_VISIBLE_DEVICES, "the GPU devices for the job
# allocation", Slurm's Prolog and Epilog Guide, https://slurm.schedmd.com/prolog_epilog.html;
# ZE_AFFINITY_MASK with gres.conf(5) Flags=intel_gpu_env) would make verify see fewer GPUs, call
# the others lost and drain the node. So every device-selection variable CUDA, ROCm, HIP, OpenCL,
# Level Zero, oneAPI and NVIDIA's container runtime read goes, wherever it came from.
unset CUDA_VISIBLE_DEVICES NVIDIA_VISIBLE_DEVICES ROCR_VISIBLE_DEVICES HIP_VISIBLE_DEVICES \
    GPU_DEVICE_ORDINAL ZE_AFFINITY_MASK ONEAPI_DEVICE_SELECTOR
if [[ "${GPUWIZARD_GATE:-on}" == "off" ]]; then
    exit 0
fi
gpuwizard="${GPUWIZARD:-gpuwizard}"
limit="${GPUWIZARD_TIMEOUT:-30}"
scontrol="${SCONTROL:-scontrol}"

line="$(timeout "$limit" "$gpuwizard" verify --no-test --oneline)"
status=$?
line="${line%%$'\n'*}"
case "$status" in
    0) exit 0 ;;
    1) line="${line:-gpuwizard: broken}" ;;
    124) line="gpuwizard: gate error: verify gave no answer within ${limit} s" ;;
    126 | 127) line="gpuwizard: gate error: cannot run ${gpuwizard}" ;;
    *) line="gpuwizard: gate error: verify exited ${status}${line:+: ${line}}" ;;
esac
line="${line:0:200}"
printf '%s\n' "$line"

if [[ "${SLURM_NODE_IS_HEALTHY:-}" == "no" ]]; then
    exit 1
fi
node="${SLURMD_NODENAME:-$(hostname -s)}"
if ! "$scontrol" update "NodeName=${node}" State=DRAIN "Reason=${line}"; then
    printf 'gpuwizard: %s could not drain %s\n' "$scontrol" "$node" >&2
fi
exit 1
