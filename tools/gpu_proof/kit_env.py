"""``environment.json``: what the run's figures depend on, kept beside them.

The Python and PyTorch (with its CUDA and cuDNN), the driver as ``nvidia-smi -q`` tells it
(when the program is there), and ``pip freeze`` of the kit's venv, which lists the machine's
packages too (the venv sees them).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from kit_common import CommandLog

#: Run with the venv's Python: PyTorch's own account of its build and devices.
TORCH_FACTS: Final = """
import json, torch
facts = {"version": torch.__version__, "cuda": torch.version.cuda,
         "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
         "cuda_available": torch.cuda.is_available(), "devices": []}
if facts["cuda_available"]:
    for index in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(index)
        facts["devices"].append({"name": props.name, "capability": f"{props.major}.{props.minor}",
                                 "memory_bytes": props.total_memory})
print(json.dumps(facts))
"""


def _text(
    log: CommandLog, name: str, argv: list[str], folder: Path, environment: Mapping[str, str]
) -> dict[str, Any]:
    stdout, stderr = folder / f"{name}.stdout", folder / f"{name}.stderr"
    done = log.run(argv, stdout=stdout, stderr=stderr, environment=environment, timeout_s=300)
    return {
        "argv": argv,
        "exit_code": done.exit_code,
        "stdout": stdout.read_text(encoding="utf-8", errors="replace"),
        "stderr": stderr.read_text(encoding="utf-8", errors="replace")[-4000:],
    }


def write_environment(
    out: Path,
    log: CommandLog,
    venv_python: Path | None,
    python_facts: Mapping[str, Any],
    environment: Mapping[str, str],
) -> None:
    """Gather the facts (each command's failure is a fact too) and write ``out/environment.json``."""
    logs = out / "logs"
    facts: dict[str, Any] = {
        "python": dict(python_facts),
        "torch": None,
        "nvidia_smi": None,
        "pip_freeze": None,
    }
    detect = _json(out / "detect.json")
    driver = detect.get("driver") if isinstance(detect, dict) else None
    facts["driver"] = driver
    if venv_python is not None:
        torch = _text(log, "environment-torch", [str(venv_python), "-c", TORCH_FACTS], logs, environment)
        facts["torch"] = _last_json(torch["stdout"]) or {"error": torch["stderr"].strip()[-500:]}
        freeze = _text(
            log,
            "environment-pip-freeze",
            [str(venv_python), "-m", "pip", "freeze", "--all"],
            logs,
            environment,
        )
        facts["pip_freeze"] = freeze["stdout"].splitlines() if freeze["exit_code"] == 0 else None
    smi = shutil.which("nvidia-smi")
    if smi is not None:
        facts["nvidia_smi"] = _text(log, "environment-nvidia-smi", [smi, "-q"], logs, environment)
    (out / "environment.json").write_text(json.dumps(facts, indent=1) + "\n", encoding="utf-8")


def _json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _last_json(text: str) -> object:
    for line in reversed(text.splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return None
