"""Finding texts of drift: what changed since the last good state (``gpuwizard verify``).

One part of :data:`gpuwizard.core.findings.catalog.CATALOG`, which merges the parts.
"""

from __future__ import annotations

from typing import Final

from gpuwizard.core.findings.template import NVIDIA_DRIVER_DOWNLOAD, FindingTemplate
from gpuwizard.core.texts import QT_TRANSLATE_NOOP

#: The templates of drift, by code (and ``CODE:variant``).
DRIFT_TEMPLATES: Final[dict[str, FindingTemplate]] = {
    # --- drift since the last good state (gpuwizard verify) ----------------------------------
    "DRIFT_DRIVER_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA driver changed since the last good state: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the other checks pass: a newer driver runs every build an older "
            "one ran (NVIDIA CUDA Compatibility guide). A healthy verify records the new driver.",
        ),
    ),
    "DRIFT_DRIVER_GONE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA driver ({before} at the last good state) no longer answers."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the NVIDIA driver from " + NVIDIA_DRIVER_DOWNLOAD + " (on Ubuntu: "
            "'sudo ubuntu-drivers install'), restart the computer, and run 'gpuwizard verify' "
            "again. An interrupted driver update, or a Linux kernel update without the driver's "
            "module, leaves this state.",
        ),
    ),
    "DRIFT_DRIVER_TOO_OLD_FOR_BUILD": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA driver {driver} is too old for the framework build of {builds}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Install driver {min_driver} or newer from " + NVIDIA_DRIVER_DOWNLOAD + " and restart; "
            "or recreate the environment with 'gpuwizard env create NAME --framework F --replace', "
            "which chooses a build this driver runs.",
        ),
    ),
    "DRIFT_GPU_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "Fewer NVIDIA GPUs answer than at the last good state: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Run 'nvidia-smi': a GPU that fell off the bus ('GPU is lost', Xid 79) needs a restart; "
            "check its power cables and seating; in a VM or container, check that the GPU is still "
            "passed through. Then run 'gpuwizard verify' again.",
        ),
    ),
    "DRIFT_GPU_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "The NVIDIA GPUs changed since the last good state: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the live test passes; a GPU of a newer generation may need a newer "
            "framework build, which 'gpuwizard recommend' names.",
        ),
    ),
    "DRIFT_ENV_INTERPRETER_BROKEN": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The Python interpreter of {env} ({python}) does not run any more: {error}"
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The Python it was made from was probably removed or upgraded, or its folder was moved. "
            "Recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_PYTHON_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP("findings", "The interpreter of {env} changed: {before} then, {after} now."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the framework still imports: the Python it was made from got a "
            "patch release.",
        ),
    ),
    "DRIFT_FRAMEWORK_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "{framework} is no longer installed in {env}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the recorded build: {reinstall}  Or recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_FRAMEWORK_BROKEN": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "{framework} no longer imports in {env}: {error}"),
        QT_TRANSLATE_NOOP(
            "findings",
            "A later install broke it. Reinstall the recorded build: {reinstall}  Or recreate the "
            "environment: {recreate}",
        ),
    ),
    "DRIFT_CPU_BUILD_SWAPPED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "A CPU build of {framework} was swapped in for the CUDA build in {env}: {before} then, "
            "{after} now; it cannot use the GPU.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the CUDA build: {reinstall}  Or recreate the environment: {recreate}  Install "
            "other packages with the environment activated, so pip and uv read its constraints file "
            "and cannot swap the build again.",
        ),
    ),
    "DRIFT_BUILD_UPDATED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} in {env} changed from {before} to {after}, the build its constraints file pins.",
        ),
        QT_TRANSLATE_NOOP(
            "findings", "Nothing to do while the live test passes: the new build was pinned on purpose."
        ),
    ),
    "DRIFT_BUILD_CHANGED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} in {env} changed from {before} to {after}, which its constraints file does not allow.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Put the pinned build back: {reinstall}  Or, to keep the new build, recreate the environment "
            "with it: {recreate}",
        ),
    ),
    "DRIFT_CONSTRAINTS_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The constraints file of {env} is missing: {path}"),
        QT_TRANSLATE_NOOP(
            "findings",
            "Without it nothing stops a later install from replacing the framework build, and the "
            "environment's pip fails because its configuration names the file. Write the line "
            "'{pin}' into {path}, or recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_CONSTRAINTS_MISSING:pin": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The constraints file of {env} no longer pins the framework: {path}"),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing stops a later install from replacing the framework build. Add the line '{pin}' "
            "to {path}, or recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_CONSTRAINTS_UNREAD": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "{tool} in {env} does not read its constraints file {path}: {source} {why}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Until it does, a later install fails or may replace the framework build. Recreate the "
            "environment: {recreate}  Or write {reference} in {source}.",
        ),
    ),
    "DRIFT_CONSTRAINTS_MISMATCH": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The constraints file of {env} pins {pin}, but {installed} is installed."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Reinstall the pinned build: {reinstall}  Or, to keep the installed build, change the "
            "line in {path} to '{wanted}'.",
        ),
    ),
    "DRIFT_CONSTRAINTS_CHANGED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "The constraints file of {env} changed its pin: {before} then, {after} now."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Nothing to do while the installed build matches it and the live test passes ({path}).",
        ),
    ),
    "DRIFT_DEVICES_LOST": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "{framework} in {env} sees fewer GPUs than at the last good state: {before} then, {after} now.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Check CUDA_VISIBLE_DEVICES (an empty value or a wrong index hides GPUs), that "
            "'nvidia-smi' lists every GPU, and that the driver is new enough for the build; then "
            "run 'gpuwizard verify' again.",
        ),
    ),
    "DRIFT_TEST_WORSE": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "The short live test in {env} gave {after}; at the last good state it gave {before}."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The test says: {reason} Fix that (the other checks above may name the cause), then run "
            "'gpuwizard test --env {env}' for the full test.",
        ),
    ),
    "DRIFT_TEST_WORSE:unrecorded": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP("findings", "The short live test in {env} gave {after}."),
        QT_TRANSLATE_NOOP(
            "findings",
            "The test says: {reason} Fix that, then run 'gpuwizard test --env {env}' for the full "
            "test; once it passes, it is recorded as the last good state.",
        ),
    ),
    "DRIFT_TEST_SLOWER": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "The GPU in {env} still trains, but no longer clearly faster than the CPU ({before} then, {after} now).",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Another program may be using the GPU, or it is throttling from heat or power saving: "
            "check 'nvidia-smi' and run 'gpuwizard test --env {env}' for the full measurement.",
        ),
    ),
    # --- NVIDIA's CUDA wheels and the DLL start-up hook (core/health/wheel_drift.py) -----------
    # A build loads only the CUDA and cuDNN majors it was made for: their file names carry the
    # major (cudart64_110.dll, cudnn64_8.dll, libcudnn.so.9; tensorflow tsl/platform/default/
    # dso_loader.cc) and TensorFlow refuses a cuDNN of another major ("CuDNN library needs to
    # have matching major version", tensorflow stream_executor/cuda/cuda_dnn.cc).
    "CUDA_WHEEL_REMOVED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "NVIDIA CUDA wheels that {env} had at the last good state are no longer installed: {wheels}.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "The framework loads its CUDA libraries from them and cannot use the GPU without them. "
            "Put them back: {reinstall}  Or recreate the environment: {recreate}",
        ),
    ),
    "CUDA_WHEEL_REPLACED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "NVIDIA CUDA wheels in {env} were replaced by another major version: {before} then, {after} now.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A framework build loads only the CUDA and cuDNN major versions it was built for (a "
            "cuDNN 8 build does not load cuDNN 9). Put the recorded ones back: {reinstall}  Or "
            "recreate the environment: {recreate}",
        ),
    ),
    # Within a major, a newer minor keeps working for a build made against an older one (NVIDIA
    # CUDA Compatibility guide, "Minor Version Compatibility"; cuDNN's API compatibility within a
    # major version), but TensorFlow refuses a cuDNN older than its build (cuda_dnn.cc above).
    "CUDA_WHEEL_CHANGED": FindingTemplate(
        "warning",
        QT_TRANSLATE_NOOP(
            "findings",
            "NVIDIA CUDA wheels in {env} changed within their major version: {before} then, {after} now.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "A newer release of the same major version usually keeps working; an older one may "
            "not. If the short live test fails, put the recorded versions back: {reinstall}",
        ),
    ),
    "DLL_HOOK_MISSING": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The start-up hook that makes the NVIDIA wheels' DLLs visible to the Python of {env} is gone.",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Without it TensorFlow finds no CUDA DLL when this environment's Python starts, unless "
            "the folders are on PATH. Recreate the environment, which writes the hook again: {recreate}",
        ),
    ),
    "DLL_HOOK_MISSING:inactive": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings",
            "The start-up hook of {env} no longer puts the NVIDIA wheels' DLL folders on the search "
            "path: {reason}",
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "Without them TensorFlow finds no CUDA DLL when this environment's Python starts. "
            "Recreate the environment: {recreate}",
        ),
    ),
    "DRIFT_PATH_ENTRY_REMOVED": FindingTemplate(
        "error",
        QT_TRANSLATE_NOOP(
            "findings", "{folder}, which the wizard added to the {scope} PATH, is no longer on it."
        ),
        QT_TRANSLATE_NOOP(
            "findings",
            "An installer or another tool rewrote PATH. Add it back: {command}  ('gpuwizard path "
            "history' shows what the wizard changed.)",
        ),
    ),
    "DRIFT_PATH_ENTRY_DROPPED": FindingTemplate(
        "info",
        QT_TRANSLATE_NOOP(
            "findings", "{folder} was removed from the {scope} PATH with gpuwizard after the last good state."
        ),
        QT_TRANSLATE_NOOP("findings", "Nothing to do if that was meant; to add it back: {command}"),
    ),
}
