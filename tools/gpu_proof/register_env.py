"""Run with the kit venv's Python: record that venv as an environment the wizard made.

Why: ``gpuwizard test`` records the last good state only for an environment the wizard made
(``--env``, not ``--python``), and ``gpuwizard verify`` says "nothing to verify" where the wizard
made none (docs/architecture.md, "The verdict rule"). The kit's venv is made by the kit, not by
``gpuwizard env create`` (which would download PyTorch), so it is recorded here, in the kit's
own GPUWIZARD_HOME, with the fields ``env create`` writes (workflow/envs/create.py): the public
version and the installed build of torch, read from its metadata.

Usage: ``python register_env.py NAME``; exit 0 recorded, 1 not (the reason on stderr).
"""

from __future__ import annotations

import datetime
import importlib.metadata
import json
import platform
import sys


def main(argv: list[str]) -> int:
    """Record the running venv under ``argv[0]``'s name."""
    from gpuwizard.workflow.state.env_registry import EnvRecord, registry_path, save_record  # noqa: PLC0415

    name = argv[0] if argv else "gpu-proof"
    try:
        build = importlib.metadata.version("torch")
    except importlib.metadata.PackageNotFoundError:
        print("torch is not installed where this venv can see it", file=sys.stderr)
        return 1
    record = EnvRecord(
        name=name,
        path=sys.prefix,
        python=sys.executable,
        manager="venv",
        framework="pytorch",
        framework_version=build.split("+")[0],
        framework_build=build,
        tool="pip",
        python_version=platform.python_version(),
        created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    )
    save_record(record)
    print(json.dumps({"registered": name, "registry": str(registry_path()), "record": record.to_json()}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
