"""The recommender against every row of the tables (light-the-torch style: tests from the data).

For each build: a machine with a GPU of each listed architecture and a driver exactly at the
build's minimum gets a GPU plan for that release; a driver just below every minimum of a
release does not run it without an update.
"""

from __future__ import annotations

import pytest

from builders.reports import machine
from gpuwizard.core.compat.plan import parse_wish
from gpuwizard.core.compat.recommend import recommend
from gpuwizard.core.compat.tables import Architectures, version_key
from gpuwizard.workflow.compat.data import load_bundled

COMPAT = load_bundled()


def below(version: str) -> str:
    """A driver version just below ``version`` (525.60.13 -> 525.60.12, 580 -> 579.99)."""
    parts = version.split(".")
    if len(parts) == 1:
        return f"{int(parts[0]) - 1}.99"
    last = int(parts[-1])
    if last > 0:
        return ".".join([*parts[:-1], str(last - 1)])
    return f"{int(parts[0]) - 1}.99"


def covered_capabilities(archs: Architectures) -> list[str]:
    return list(archs.sass)


TORCH_BUILDS = [
    (release, variant, os_name)
    for release in COMPAT.pytorch
    for variant in release.variants
    if not variant.is_cpu
    for os_name in variant.platforms
]


@pytest.mark.parametrize(
    ("release", "variant", "os_name"),
    TORCH_BUILDS,
    ids=lambda x: getattr(x, "version", getattr(x, "name", x)),
)
def test_every_pytorch_build_serves_its_architectures_at_its_minimum_driver(release, variant, os_name):
    minimum = COMPAT.min_driver(variant.cuda, os_name)
    for capability in covered_capabilities(variant.platforms[os_name]):
        if COMPAT.libraries_exclude(variant.cuda, variant.cudnn, capability):
            continue  # code for it, but a bundled library dropped it: the test below
        report = machine(
            os=os_name, gpus=[("Test GPU", capability)], driver=minimum, python=release.python.max
        )
        rec = recommend(report, parse_wish("pytorch", release.version), COMPAT)
        assert rec.gpu_supported, (variant.name, capability, [f.code for f in rec.findings])
        assert rec.plan.framework_version == release.latest and not rec.plan.cpu_only
        assert not rec.driver_update_required
        assert rec.plan.min_driver and version_key(rec.plan.min_driver[os_name]) <= version_key(minimum)
        assert rec.plan.python == release.python.max
        expected_index = (
            None
            if release.pypi_default.get(os_name) == rec.plan.torch_variant
            else COMPAT.torch_index_url.format(variant=rec.plan.torch_variant)
        )
        assert rec.plan.index_url == expected_index


@pytest.mark.parametrize("release", COMPAT.pytorch, ids=lambda r: r.version)
@pytest.mark.parametrize("os_name", ["linux", "windows"])
def test_a_driver_below_every_minimum_of_a_pytorch_release_needs_an_update(release, os_name):
    gpu_variants = [v for v in release.variants if not v.is_cpu and os_name in v.platforms]
    if not gpu_variants:
        pytest.skip("no GPU build on this OS")
    lowest = min((COMPAT.min_driver(v.cuda, os_name) for v in gpu_variants), key=version_key)
    capability = gpu_variants[0].platforms[os_name].sass[-1]
    report = machine(
        os=os_name, gpus=[("Test GPU", capability)], driver=below(lowest), python=release.python.max
    )
    rec = recommend(report, parse_wish("pytorch", release.version), COMPAT)
    assert not rec.gpu_supported
    if rec.plan.framework_version == release.latest and not rec.plan.cpu_only:
        assert rec.driver_update_required
        assert "DRIVER_TOO_OLD" in {f.code for f in rec.findings}


TF_BUILDS = [
    (release, os_name, build) for release in COMPAT.tensorflow for os_name, build in release.gpu.items()
]


@pytest.mark.parametrize(
    ("release", "os_name", "build"),
    TF_BUILDS,
    ids=lambda x: getattr(x, "version", x if isinstance(x, str) else "build"),
)
def test_every_tensorflow_build_serves_its_architectures_at_its_minimum_driver(release, os_name, build):
    minimum = COMPAT.min_driver(build.cuda, os_name)
    for capability in [*build.archs.sass, *([build.archs.ptx] if build.archs.ptx else [])]:
        report = machine(
            os=os_name, gpus=[("Test GPU", capability)], driver=minimum, python=release.python.min
        )
        rec = recommend(report, parse_wish("tensorflow", release.version), COMPAT)
        codes = [f.code for f in rec.findings]
        native = build.archs.runs_natively_on(capability)
        # A GPU only the build's PTX serves is not GPU-supported (DESIGN.md section 4: PTX-JIT-only
        # paths do not count), but it keeps the plan and says why (GPU_PTX_ONLY).
        assert rec.gpu_supported is native, (release.version, capability, codes)
        assert ("GPU_PTX_ONLY" in codes) is not native, (release.version, capability, codes)
        assert (
            rec.plan.framework_version == release.latest
            and rec.plan.cuda == build.cuda
            and rec.plan.cudnn == build.cudnn
        )
        if build.cuda_supply == "and-cuda":
            # Plus a pin below the library release that dropped the GPU, where the build's range
            # resolves to one (issue 36: cuDNN 9.11 and newer need 7.5).
            dropped = [
                f"{r.package}<{floor.version_from}"
                for r in build.library_ranges
                if (
                    floor := COMPAT.libraries_exclude(None, r.resolved, capability)
                    if r.library == "cudnn"
                    else None
                )
            ]
            assert rec.plan.requirements == (f"tensorflow[and-cuda]=={release.latest}", *dropped)
            assert not rec.plan.system_cuda_toolkit_required
        if os_name == "windows":
            assert rec.plan.dlls_expected == build.dlls


@pytest.mark.parametrize(
    "release",
    [r for r in COMPAT.tensorflow if "linux" in r.gpu and "windows" not in r.gpu],
    ids=lambda r: r.version,
)
def test_tensorflow_past_the_windows_end_goes_to_wsl2_with_a_windows_driver_minimum(release):
    report = machine(os="windows", gpus=[("NVIDIA GeForce RTX 3060", "8.6")], driver="999.99")
    rec = recommend(report, parse_wish("tensorflow", release.version), COMPAT)
    assert not rec.gpu_supported
    assert "TF_NATIVE_WINDOWS_GPU_ENDED" in {f.code for f in rec.findings}
    assert rec.plan.target == "wsl2" and rec.plan.framework_version == release.latest
    policy_min = COMPAT.policy("wsl2_gpu")["windows_driver_min_for_tensorflow"]
    assert rec.plan.min_driver and version_key(rec.plan.min_driver["windows"]) >= version_key(policy_min)


@pytest.mark.parametrize("framework", ["pytorch", "tensorflow"])
def test_every_release_outside_its_python_range_picks_one_inside_and_says_so(framework):
    releases = COMPAT.pytorch if framework == "pytorch" else COMPAT.tensorflow
    for release in releases:
        too_new = f"3.{int(release.python.max.split('.')[1]) + 1}"
        report = machine(gpus=[], driver=None)
        rec = recommend(report, parse_wish(framework, release.version, python=too_new), COMPAT)
        assert rec.plan.python == release.python.max, release.version
        assert "PYTHON_UNSUPPORTED" in {f.code for f in rec.findings}


@pytest.mark.parametrize("floor", COMPAT.driver_floors, ids=lambda f: f"{f.cuda_from}-{f.cuda_to}")
def test_minimum_drivers_come_from_the_minor_version_compatibility_rows(floor):
    for os_name, value in (("linux", floor.linux), ("windows", floor.windows)):
        assert COMPAT.min_driver(floor.cuda_from, os_name) == value
        assert COMPAT.min_driver(floor.cuda_to, os_name) == value


@pytest.mark.parametrize("toolkit", COMPAT.toolkit_drivers, ids=lambda t: t.cuda)
def test_a_driver_version_alone_tells_the_cuda_it_supports(toolkit):
    for os_name, value in (("linux", toolkit.linux), ("windows", toolkit.windows)):
        if value:
            derived = COMPAT.cuda_max_for_driver(value, os_name)
            assert derived is not None and version_key(derived) >= version_key(toolkit.cuda)
            assert COMPAT.cuda_max_for_driver(below(value), os_name) != toolkit.cuda


def test_driver_versions_alone_match_what_nvml_reports():
    # Recorded NVML/nvidia-smi pairs (tests/fixtures/recorded): driver -> "CUDA Version".
    pairs = [
        ("546.12", "windows", "12.3"),
        ("555.42.02", "linux", "12.5"),
        ("470.57.02", "linux", "11.4"),
        ("450.57", "linux", "11.0"),
        ("550.127.05", "linux", "12.4"),
        ("580.82.09", "linux", "13.0"),
        ("610.62", "windows", "13.0"),
    ]
    for driver, os_name, cuda in pairs:
        derived = COMPAT.cuda_max_for_driver(driver, os_name)
        assert derived is not None and version_key(derived) <= version_key("13.3")
        if os_name == "linux" or cuda != "13.0":
            assert derived == cuda, (driver, derived, cuda)


def test_tables_without_any_build_for_the_os_give_a_clear_error():
    from dataclasses import replace

    from gpuwizard.core.compat.plan import WishError

    empty = replace(COMPAT, pytorch=tuple(replace(r, variants=()) for r in COMPAT.pytorch))
    with pytest.raises(WishError, match="lists no PyTorch build for linux"):
        recommend(machine(os="linux"), parse_wish("pytorch"), empty)


def test_a_gpu_a_bundled_library_dropped_is_not_served_by_the_build():
    """A K80 (3.7): PyTorch 2.4's cu118 wheels carry sm_37, but their cuDNN 9.1 lists 5.0 and newer."""
    release = next(r for r in COMPAT.pytorch if r.version == "2.4")
    cu118 = next(v for v in release.variants if v.name == "cu118")
    assert cu118.platforms["linux"].runs_natively_on("3.7") and cu118.cudnn.startswith("9.")
    report = machine(os="linux", gpus=[("Tesla K80", "3.7")], driver="560.35.03", python="3.10")
    rec = recommend(report, parse_wish("pytorch", "2.4"), COMPAT)
    # No build of 2.4 serves it; the plan (another release) is judged on its own.
    assert not rec.some_release_gpu_supported
    assert rec.gpu_supported == (not rec.plan.cpu_only and bool(rec.plan.gpu_indices))
    library = [f for f in rec.findings if f.code == "GPU_ARCH_UNSUPPORTED" and "cuDNN 9.1.0.70" in f.message]
    assert library, [f.message for f in rec.findings]
    assert all(
        plan.cpu_only or plan.torch_variant != "cu118" or plan.framework_version < "2.4"
        for plan in (rec.plan,)
    )


def test_cublas_of_cuda_13_rules_out_volta_even_with_code_for_it():
    floor = COMPAT.libraries_exclude("13.0", None, "7.0")
    assert floor is not None and floor.library == "cublas" and floor.compute_capability_min == "7.5"
    assert COMPAT.libraries_exclude("12.6", "9.10.2.21", "5.0") is None
    assert COMPAT.libraries_exclude("12.8", "9.17.1.4", "6.1") is not None
