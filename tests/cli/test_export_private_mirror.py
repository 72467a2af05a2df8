"""A mirror's login or token stays out of what `gpuwizard export` and `recommend` write (issue 33).

`export` writes the plan's own index (the compatibility data's, never a mirror) into files a
person shares or commits, and `recommend --json` shows the person's mirror with its login
hidden; neither may carry the token of a mirror set in the environment, whatever its kind.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from harness.entry_point import gpuwizard

WINDOWS_RTX = Path(__file__).parent.parent / "fixtures" / "reports" / "windows-rtx3060-546.33.json"
SECRET = "Mirr0r-T0ken-33"  # noqa: S105 - made up
MIRRORS = {
    "GPUWIZARD_PYTORCH_INDEX_URL": f"https://ci-user:{SECRET}@torch-mirror.example/whl",
    "PIP_INDEX_URL": f"https://pypi-mirror.example/simple?sv=2022-11-02&sig={SECRET}",
    "UV_DEFAULT_INDEX": f"https://ci-user:{SECRET}@uv-mirror.example/simple",
}


@pytest.mark.slow
@pytest.mark.parametrize(("fmt", "name"), [("requirements", "r.txt"), ("environment.yml", "environment.yml"),
                                           ("dockerfile", "Dockerfile")])  # fmt: skip
def test_export_writes_no_mirror_token(tmp_path: Path, fmt: str, name: str):
    out = tmp_path / name
    done = gpuwizard(
        "export", "--format", fmt, "--out", str(out), "--framework", "pytorch", "--system", str(WINDOWS_RTX),
        env=MIRRORS,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert SECRET not in out.read_text(encoding="utf-8") + done.stdout + done.stderr


@pytest.mark.slow
def test_recommend_shows_the_mirrors_with_their_tokens_hidden():
    done = gpuwizard(
        "recommend", "--framework", "pytorch", "--system", str(WINDOWS_RTX), "--json", env=MIRRORS
    )
    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    sources = json.loads(done.stdout)["package_sources"]
    assert next(index["origin"] for index in sources["indexes"]) == "GPUWIZARD_PYTORCH_INDEX_URL"
    variable = {"uv": "UV_DEFAULT_INDEX", "pip": "PIP_INDEX_URL"}[sources["tool"]]
    assert sources["install_command"].startswith(f"{variable}=https://***@torch-mirror.example/whl/")
