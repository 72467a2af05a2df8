"""Issue 18: today's releases, the index ahead of the data, and the PTX-only contract fix."""

from __future__ import annotations

import pytest

from builders.reports import machine
from gpuwizard.core.compat.index_view import IndexReleases, final_versions, with_index
from gpuwizard.core.compat.plan import WishError, parse_wish, recommendation_to_json
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.workflow.compat.data import load_bundled

COMPAT = load_bundled()
RTX_4090 = ("NVIDIA GeForce RTX 4090", "8.9")
GTX_1080_TI = ("NVIDIA GeForce GTX 1080 Ti", "6.1")
RTX_5090 = ("NVIDIA GeForce RTX 5090", "12.0")


def index_with(*extra_torch: str) -> IndexReleases:
    """An index that has what the data knows, plus ``extra_torch``."""
    torch = tuple(r.latest for r in COMPAT.pytorch) + extra_torch
    return IndexReleases(
        {"pytorch": final_versions(torch), "tensorflow": tuple(r.latest for r in COMPAT.tensorflow)},
        "2026-11-25T08:00:00+00:00",
        "https://pypi.org/pypi",
    )


# --- the acceptance machines -------------------------------------------------------------------


def test_an_rtx_4090_with_driver_610_plans_torch_2_15_and_2_14_1_when_asked_for_2_14():
    report = machine(gpus=[RTX_4090], driver="610.43.02", python="3.12")
    newest = recommend(report, parse_wish("pytorch", python="3.12"), COMPAT)
    assert newest.gpu_supported and newest.plan.framework_version == "2.15.0"
    assert newest.plan.python == "3.12" and not newest.plan.cpu_only
    older = recommend(report, parse_wish("pytorch", "2.14", "3.12"), COMPAT)
    assert older.gpu_supported and older.plan.framework_version == "2.14.1"
    assert older.plan.requirements == ("torch==2.14.1",)


def test_a_1080_ti_asking_for_2_15_gets_why_not_and_the_2_14_1_cu126_plan():
    report = machine(gpus=[GTX_1080_TI], driver="580.95.05", python="3.12")
    rec = recommend(report, parse_wish("pytorch", "2.15"), COMPAT)
    # 2.15 has no build for it; the plan, 2.14.1 cu126, uses the GPU as it is.
    assert not rec.some_release_gpu_supported and rec.gpu_supported
    assert (rec.plan.framework_version, rec.plan.torch_variant) == ("2.14.1", "cu126")
    why = [f for f in rec.findings if f.code == "GPU_ARCH_UNSUPPORTED"]
    assert why and "PyTorch 2.15" in why[0].message and "6.1" in why[0].message
    # Without a wish the plan is the same, and the finding still says 2.15 has no build for it.
    plain = recommend(report, parse_wish("pytorch"), COMPAT)
    assert plain.gpu_supported and plain.plan.framework_version == "2.14.1"
    assert any("2.15" in f.message for f in plain.findings if f.code == "GPU_ARCH_UNSUPPORTED")


def test_torch_2_15_needs_python_3_11_or_newer():
    report = machine(gpus=[RTX_4090], driver="610.43.02", python="3.10")
    rec = recommend(report, parse_wish("pytorch", "2.15", "3.10"), COMPAT)
    assert rec.plan.framework_version == "2.15.0" and rec.plan.python == "3.11"
    assert "PYTHON_UNSUPPORTED" in {f.code for f in rec.findings}


# --- DESIGN.md section 4: PTX-JIT-only paths do not count ---------------------------------------


@pytest.mark.parametrize(
    ("os_name", "version", "python"), [("linux", "2.21", "3.12"), ("windows", "2.10", "3.10")]
)
def test_a_plan_only_ptx_serves_keeps_its_plan_but_is_not_gpu_supported(os_name, version, python):
    report = machine(os=os_name, gpus=[RTX_5090], driver="581.57", python=python)
    rec = recommend(report, parse_wish("tensorflow", version), COMPAT)
    assert not rec.plan.cpu_only and rec.plan.ptx_jit == rec.plan.gpu_indices == (0,)
    assert not rec.gpu_supported
    assert "GPU_PTX_ONLY" in {f.code for f in rec.findings}


def test_a_gpu_with_machine_code_in_the_build_is_gpu_supported():
    report = machine(gpus=[("NVIDIA GeForce RTX 4090", "8.9")], driver="580.95.05", python="3.12")
    assert recommend(report, parse_wish("tensorflow", "2.21"), COMPAT).gpu_supported


# --- the index ahead of the data ---------------------------------------------------------------


def test_a_newer_patch_on_the_index_is_planned_with_its_minors_builds():
    report = machine(gpus=[RTX_4090], driver="610.43.02", python="3.12")
    rec = recommend(report, parse_wish("pytorch", "2.14"), COMPAT, index_with("2.14.2"))
    assert rec.plan.framework_version == "2.14.2" and rec.plan.requirements == ("torch==2.14.2",)
    assert rec.plan.torch_variant in {"cu126", "cu130", "cu132"}
    assert any("2.14.2" in note and "2.14.1" in note for note in rec.notes)
    data = recommendation_to_json(rec)
    assert data["data_freshness"]["newer_patches_planned"] == [{"minor": "2.14", "version": "2.14.2"}]
    # An exact wish for that patch is a known release now.
    exact = recommend(report, parse_wish("pytorch", "2.14.2"), COMPAT, index_with("2.14.2"))
    assert exact.plan.framework_version == "2.14.2"


def test_a_newer_minor_on_the_index_is_named_not_planned():
    report = machine(gpus=[RTX_4090], driver="610.43.02", python="3.12")
    rec = recommend(report, parse_wish("pytorch"), COMPAT, index_with("2.16.0rc1", "2.16.0", "2.16.1"))
    assert rec.plan.framework_version == "2.15.0" and rec.gpu_supported
    named = [f for f in rec.findings if f.code == "RELEASE_NOT_VERIFIED"]
    assert len(named) == 1 and "2.16.1" in named[0].message and named[0].severity == "warning"
    data = recommendation_to_json(rec)
    assert data["data_freshness"]["newer_releases_unverified"] == ["2.16.1"]
    assert (
        data["data_freshness"]["generated"] == COMPAT.generated
        and data["data_freshness"]["source"] == "bundled"
    )


def test_asking_for_a_published_but_unverified_minor_offers_the_newest_verified_plan():
    report = machine(gpus=[RTX_4090], driver="610.43.02", python="3.12")
    rec = recommend(report, parse_wish("pytorch", "2.16"), COMPAT, index_with("2.16.0"))
    assert rec.plan.framework_version == "2.15.0" and not rec.gpu_supported
    finding = next(f for f in rec.findings if f.code == "RELEASE_NOT_VERIFIED")
    assert "2.16" in finding.message and "2.15.0" in finding.hint
    assert recommendation_to_json(rec)["wish"]["version"] == "2.16"


def test_a_version_the_index_does_not_have_does_not_exist():
    report = machine(gpus=[RTX_4090], driver="610.43.02")
    with pytest.raises(WishError, match=r"PyTorch 2\.99 is not a release"):
        recommend(report, parse_wish("pytorch", "2.99"), COMPAT, index_with())


def test_without_an_answer_from_the_index_a_newer_minor_is_unchecked_not_refused():
    report = machine(gpus=[RTX_4090], driver="610.43.02", python="3.12")
    offline = IndexReleases({}, "2026-11-25T08:00:00+00:00", "https://pypi.org/pypi")
    rec = recommend(report, parse_wish("pytorch", "2.16"), COMPAT, offline)
    assert rec.plan.framework_version == "2.15.0" and not rec.gpu_supported
    finding = next(f for f in rec.findings if f.code == "RELEASE_NOT_VERIFIED")
    assert "could not be asked" in finding.message


def test_without_asking_the_index_a_version_beyond_the_data_is_refused_as_before():
    report = machine(gpus=[RTX_4090], driver="610.43.02")
    with pytest.raises(WishError, match=r"not a known release .*--refresh"):
        recommend(report, parse_wish("pytorch", "2.16"), COMPAT, None)


def test_with_index_leaves_the_tables_alone_when_the_index_knows_nothing_newer():
    adjusted, news = with_index(COMPAT, index_with())
    assert [r.latest for r in adjusted.pytorch] == [r.latest for r in COMPAT.pytorch]
    assert not news.patches and not news.unverified
