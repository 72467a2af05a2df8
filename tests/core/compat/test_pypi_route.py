"""The same PyTorch release from PyPI as a way forward, only where it is a correct build for the machine."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

from gpuwizard.core.compat.plan import Recommendation, parse_wish
from gpuwizard.core.compat.presentation import cuda_text
from gpuwizard.core.compat.pypi_route import NoPypiBuild, PypiBuild, pypi_build
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.envs.space import download_bytes
from gpuwizard.core.machine.system_report import SystemReport
from gpuwizard.workflow.compat.data import load_compat
from gpuwizard.workflow.machine.system_file import load_system_report

SAMPLES = Path(str(resources.files("gpuwizard.resources").joinpath("samples")))
REPORTS = Path(__file__).parents[2] / "fixtures" / "reports"


def report(path: Path) -> SystemReport:
    return load_system_report(path)


def route(path: Path, version: str = "2.13") -> tuple[Recommendation, PypiBuild]:
    compat = load_compat()
    machine = report(path)
    rec = recommend(machine, parse_wish("pytorch", version), compat)
    return rec, pypi_build(rec, machine, compat)


def test_without_a_gpu_pypis_cuda_build_trains_on_the_cpu_but_is_larger():
    rec, build = route(SAMPLES / "no-gpu.json")
    assert (rec.plan.torch_variant, rec.plan.index_url) == ("cpu", "https://download.pytorch.org/whl/cpu")
    # pytorch.json: PyPI's Linux wheel of 2.13 is its cu130 build.
    assert (build.variant, build.on_gpu, build.larger) == ("cu130", False, True)
    plan = build.plan
    assert plan.index_url is None and plan.framework_version == "2.13.0" and plan.cpu_only
    assert (plan.torch_variant, plan.cuda) == ("cu130", "13.0")
    assert "several GB larger" in plan.reasons[-1]
    # Said as what it is, a CUDA build on the CPU, and sized as one (not as the CPU build).
    assert cuda_text(plan, short=True) == "CUDA 13.0 build, on the CPU"
    assert "CPU build" not in cuda_text(plan)
    assert not plan.cpu_build and rec.plan.cpu_build
    assert download_bytes("pytorch", plan.cpu_build) > 10 * download_bytes("pytorch", rec.plan.cpu_build)


def test_with_a_driver_new_enough_it_is_the_recommenders_gpu_plan():
    _, build = route(SAMPLES / "linux-4xa100-one-lost.json", "2.8")
    assert (build.variant, build.on_gpu, build.larger) == ("cu128", True, False)
    assert build.plan.index_url is None and build.plan.gpu_indices and not build.plan.cpu_only


@pytest.mark.parametrize(
    ("path", "said"),
    [
        # A driver too old for PyPI's CUDA build: not offered (pytorch.org's driver table).
        (
            REPORTS / "linux-k80-470.256.02.json",
            "needs an NVIDIA driver 525.60.13 or newer; this machine has 470.256.02",
        ),
        (
            SAMPLES / "linux-4xa100-one-lost.json",
            "needs an NVIDIA driver 580 or newer; this machine has 555.42.02",
        ),
        # PyPI's Windows wheel is the CPU build: it would lose the GPU.
        (
            SAMPLES / "windows-rtx2080super-two-cuda.json",
            "for windows is the CPU build; this plan needs its cu130 build",
        ),
        # A Maxwell GPU (5.2) that PyPI's cu130 build has no code for.
        (SAMPLES / "linux-gtx970-nouveau.json", "has no code for this machine's GPU"),
    ],
)
def test_pypis_build_is_not_offered_where_it_is_not_correct(path: Path, said: str):
    with pytest.raises(NoPypiBuild, match=said.replace("(", r"\(").replace(")", r"\)")):
        route(path)


def test_tensorflow_is_always_from_pypi():
    compat = load_compat()
    machine = report(SAMPLES / "no-gpu.json")
    with pytest.raises(NoPypiBuild, match="other frameworks always come from PyPI"):
        pypi_build(recommend(machine, parse_wish("tensorflow"), compat), machine, compat)
