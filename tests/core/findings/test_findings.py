"""The finding catalog: every template is usable and the contract codes exist."""

from __future__ import annotations

import re
import string

import pytest

from gpuwizard.core.findings.catalog import CATALOG, CATALOG_PARTS, DuplicateFindingCode, merge_parts
from gpuwizard.core.findings.model import UnknownFindingCode, make_finding, sort_findings

#: Detection codes named in the contract (docs/architecture.md) that `detect` produces.
DETECTION_CONTRACT_CODES = [
    "NO_NVIDIA_GPU",
    "NO_NVIDIA_DRIVER",
    "MULTIPLE_CUDA_ON_PATH",
    "LONG_PATHS_DISABLED",
    "MS_STORE_PYTHON",
    "PYTHON_32BIT",
    "NO_CUDA_ON_MACOS",
    "NVML_DRIVER_LIBRARY_MISMATCH",
]


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


@pytest.mark.parametrize("key", sorted(CATALOG))
def test_every_template_formats_with_its_own_placeholders(key: str):
    template = CATALOG[key]
    code, _, variant = key.partition(":")
    assert re.fullmatch(r"[A-Z][A-Z0-9_]*", code)
    names = placeholders(template.message) | placeholders(template.hint)
    finding = make_finding(code, variant=variant or None, **{name: f"<{name}>" for name in names})
    assert finding.code == code and finding.severity == template.severity
    assert "{" not in finding.message + finding.hint
    assert finding.hint.strip(), "a finding must say what to do"


def test_the_catalog_parts_are_disjoint_and_the_catalog_holds_them_all():
    codes = [code for part in CATALOG_PARTS for code in part]
    assert len(codes) == len(set(codes)), "a code is defined in two catalog parts"
    assert set(CATALOG) == set(codes)
    for part in CATALOG_PARTS:
        for code, template in part.items():
            assert CATALOG[code] is template


def test_a_code_defined_twice_is_refused():
    first, second = CATALOG_PARTS[0], CATALOG_PARTS[1]
    code = next(iter(first))
    with pytest.raises(DuplicateFindingCode, match=code):
        merge_parts([first, {**second, code: first[code]}])


@pytest.mark.parametrize("key", [k for k in CATALOG if ":" in k])
def test_variants_share_the_severity_of_their_code(key: str):
    assert CATALOG[key].severity == CATALOG[key.split(":", maxsplit=1)[0]].severity


@pytest.mark.parametrize("code", DETECTION_CONTRACT_CODES)
def test_contract_codes_are_in_the_catalog(code: str):
    assert code in CATALOG


def test_unknown_codes_and_missing_parameters_are_errors():
    with pytest.raises(UnknownFindingCode):
        make_finding("NOT_A_CODE")
    with pytest.raises(UnknownFindingCode):
        make_finding("NO_NVIDIA_DRIVER", variant="martian", names="x")
    with pytest.raises(KeyError):
        make_finding("PYTHON_32BIT")


def test_parameters_are_kept_as_text_for_translation():
    finding = make_finding("MULTIPLE_CUDA_ON_PATH", versions=["12.1", "11.2"], first="12.1")
    assert finding.params == {"versions": "12.1, 11.2", "first": "12.1"}
    assert "12.1, 11.2" in finding.message


def test_sorting_puts_errors_first_and_keeps_order_within_a_severity():
    info = make_finding("NO_PYTHON_FOUND")
    warning = make_finding("LONG_PATHS_DISABLED")
    error_a = make_finding("PYTHON_32BIT", executable="a")
    error_b = make_finding("PYTHON_32BIT", executable="b")
    assert sort_findings([info, error_a, warning, error_b]) == [error_a, error_b, warning, info]
