"""Running ``apply`` again with a changed answer: the environment is not kept as if nothing changed.

The environment's creation is the wizard's swappable step, standing in for ``env create``: it
records the environment as the real one does (``environments.json``, with the activation
variables the plan's setup gives, among them ``CUDA_VISIBLE_DEVICES``), and leaves an
interpreter and an installed framework where apply looks for them. The machine is a saved
Linux report with two GPUs; nothing is fetched or installed.
"""

from __future__ import annotations

import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from builders.reports import machine
from gpuwizard.cli.apply import exit_code
from gpuwizard.core.envs.result import EnvResult
from gpuwizard.core.events import EventSink
from gpuwizard.core.fleet.answers import parse_answers
from gpuwizard.core.fleet.events import ApplyResult
from gpuwizard.core.machine.system_report import SystemReport, report_from_json, report_to_json
from gpuwizard.workflow.envs.setup import Setup
from gpuwizard.workflow.fleet.apply import ApplySteps, ApplyUsageError, apply_answers
from gpuwizard.workflow.state.env_registry import EnvRecord, find_record, save_record


def two_gpus() -> SystemReport:
    """A Linux machine with two GPUs whose Python 3.11 is this one (environments are made from it)."""
    report = machine(gpus=[("NVIDIA GeForce RTX 3060", "8.6")] * 2, driver="560.35.03", cuda_max="12.6")
    data = report_to_json(report)
    data["interpreters"] = [
        {"version": "3.11.7", "executable": sys.executable, "bits": 64, "ms_store": False, "source": "self"}
    ]
    return report_from_json(data)


TWO_GPUS = two_gpus()


class StandInCreate:
    """Records an environment as env create does, with an interpreter and a framework where apply looks.

    Its files go to a folder of their own under ``folder`` (the record's ``path``), not to the
    planned one: a real creation leaves its ownership marker there, which a replacement checks.
    """

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.made: list[dict[str, str]] = []

    def __call__(self, setup: Setup, _on_event: EventSink, _cancel: threading.Event) -> EnvResult:
        prepared = setup.prepared
        path = self.folder / f"made-{len(self.made)}"
        (path / "lib" / "python3.11" / "site-packages" / "torch-2.13.0.dist-info").mkdir(parents=True)
        python = path / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text("")
        save_record(
            EnvRecord(
                name=prepared.request.name, path=str(path), python=str(python), manager="venv",
                framework="pytorch", framework_version=prepared.plan.framework_version,
                python_version=f"{prepared.plan.python}.7", variables=dict(prepared.variables),
            )
        )  # fmt: skip
        self.made.append(dict(prepared.variables))
        return EnvResult(
            status="ok", name=prepared.request.name, path=str(path), python=str(python),
            framework="pytorch", framework_version=prepared.plan.framework_version,
        )  # fmt: skip


def apply(create: StandInCreate, **answers: Any) -> ApplyResult:
    # No index is asked: GPUWIZARD_NO_INDEX_CHECK=1 for every test (tests/conftest.py).
    table = {"framework": "pytorch", "version": "2.13", "environment": "lab", "test": False, **answers}
    steps = ApplySteps(detect=lambda: TWO_GPUS, create_env=create)
    return apply_answers(
        parse_answers(table), confirmed=True, steps=steps, path_store=None,
        on_event=lambda _event: None, cancel=threading.Event(),
    )  # fmt: skip


def visible(name: str = "lab") -> str | None:
    record = find_record(name)
    assert record is not None
    return record.variables.get("CUDA_VISIBLE_DEVICES")


def test_the_same_answers_again_keep_the_environment(tmp_path: Path):
    create = StandInCreate(tmp_path)
    first = apply(create, gpus=[0])
    assert (first.status, first.changed) == ("ok", True)
    again = apply(create, gpus="0")  # the same selection, written another way
    assert (again.status, again.changed) == ("ok", False)
    assert len(create.made) == 1 and visible() == "0"


@pytest.mark.parametrize(
    ("before", "after", "said"),
    [
        ([0], [0, 1], "gpus: it sees GPUs 0, the answers ask for GPUs 0,1"),
        ([0], "all", "gpus: it sees GPUs 0, the answers ask for every GPU"),
        (None, [1], "gpus: it sees every GPU, the answers ask for GPUs 1"),
    ],
    ids=["more", "all", "fewer"],
)
def test_changed_gpus_are_refused_unless_replace_then_made_again_and_said_changed(
    before: Any, after: Any, said: str, tmp_path: Path
):
    create = StandInCreate(tmp_path)
    first = apply(create, **({"gpus": before} if before is not None else {}))
    assert first.status == "ok"
    kept = find_record("lab")
    with pytest.raises(ApplyUsageError) as refused:
        apply(create, gpus=after)
    assert said in str(refused.value)
    assert "replace = true" in str(refused.value)
    assert find_record("lab") == kept and len(create.made) == 1  # nothing changed

    replaced = apply(create, gpus=after, replace=True)
    assert (replaced.status, exit_code(replaced), replaced.changed) == ("ok", 0, True)
    assert len(create.made) == 2
    assert visible() == (None if after == "all" else ",".join(str(gpu) for gpu in after))
    assert apply(create, gpus=after).changed is False  # and now it matches


def test_other_stated_answers_the_environment_does_not_match_are_named(tmp_path: Path):
    create = StandInCreate(tmp_path)
    assert apply(create).status == "ok"
    for answers, said in (
        ({"python": "3.10"}, "python: it has Python 3.11, the plan has Python 3.10"),
        ({"manager": "conda"}, "manager: it is a venv environment, the answers ask for conda"),
        ({"prefix": str(tmp_path / "elsewhere")}, f"prefix: it is in {find_record('lab').path}"),  # type: ignore[union-attr]
        ({"jupyter": True}, "jupyter: it has no Jupyter kernel, the answers ask for one"),
    ):
        with pytest.raises(ApplyUsageError, match="does not match the answers") as refused:
            apply(create, **answers)
        assert said in str(refused.value), answers
    assert len(create.made) == 1
