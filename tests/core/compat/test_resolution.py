"""What an install would bring: pip's report read, and the cache's JSON written and read back."""

from __future__ import annotations

import json

import pytest

from gpuwizard.core.compat.resolution import (
    Resolution,
    ResolutionFailed,
    read_pip_report,
    resolution_from_json,
    resolution_to_json,
)

# Cut down from a real `pip install --dry-run --report` of tensorflow[and-cuda] (pip 23.2.1).
REPORT = {
    "version": "1",
    "pip_version": "23.2.1",
    "install": [
        {
            "download_info": {
                "url": "https://files.pythonhosted.org/.../tensorflow-2.20.0-cp312-cp312-manylinux_2_17_x86_64.whl"
            },
            "is_direct": False,
            "requested": True,
            "requested_extras": ["and-cuda"],
            "metadata": {"metadata_version": "2.1", "name": "tensorflow", "version": "2.20.0"},
        },
        {"metadata": {"name": "nvidia-cudnn-cu12", "version": "9.28.0.42"}},
        {"metadata": {"name": "Markdown", "version": "3.11.3"}},
        {"metadata": {"name": "typing_extensions", "version": "4.16.0"}},
        {"metadata": {"name": "ml.dtypes", "version": "0.6.0"}},
    ],
    "environment": {"python_version": "3.11", "sys_platform": "linux"},
}


def test_the_report_gives_every_distribution_by_its_pep_503_name():
    assert read_pip_report(REPORT) == {
        "tensorflow": "2.20.0",
        "nvidia-cudnn-cu12": "9.28.0.42",
        "markdown": "3.11.3",
        "typing-extensions": "4.16.0",
        "ml-dtypes": "0.6.0",
    }


def test_entries_without_a_name_or_version_are_passed_over():
    report = {
        "install": [
            {"metadata": {"name": "fakelib", "version": "1.5"}},
            {"metadata": {"name": "noversion"}},
            {"metadata": {"version": "1.0"}},
            {"metadata": {"name": "", "version": "1.0"}},
            {"metadata": {"name": "numbered", "version": 2}},
            {"download_info": {}},
        ]
    }
    assert read_pip_report(report) == {"fakelib": "1.5"}


def test_an_empty_install_list_is_an_answer_nothing_to_install():
    assert read_pip_report({"version": "1", "install": []}) == {}


@pytest.mark.parametrize(
    ("report", "said"),
    [
        ([], "not a JSON object but a list"),
        ({"version": "1"}, 'no "install" list (found null)'),
        ({"install": {"tensorflow": "2.20.0"}}, 'no "install" list (found an object)'),
        ({"install": ["tensorflow==2.20.0"]}, "install[0] is a string, not an object"),
        ({"install": [{"metadata": ["tensorflow", "2.20.0"]}]}, "install[0].metadata is a list"),
        ({"version": "2", "install": []}, "format version 2, not 1"),
    ],
)
def test_a_report_of_another_shape_is_refused_in_one_line(report: object, said: str):
    with pytest.raises(ResolutionFailed) as caught:
        read_pip_report(report)  # type: ignore[arg-type]
    assert said in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_later_minor_format_version_is_read():
    assert read_pip_report({"version": "1.1", "install": [{"metadata": {"name": "a", "version": "1"}}]}) == {
        "a": "1"
    }


RESOLUTION = Resolution(
    requirements=("tensorflow[and-cuda]==2.21.0",),
    platform="linux",
    python="3.12",
    versions={"tensorflow": "2.21.0", "Nvidia_Cudnn_Cu12": "9.28.0.42"},
    resolved_on="2026-05-09",
    source="pip",
)


def test_a_resolution_keeps_canonical_names_and_cannot_be_changed_through_its_dict():
    versions = {"Nvidia_Cudnn_Cu12": "9.28.0.42"}
    resolution = Resolution(("x",), "linux", "3.12", versions, "2026-05-09", "pip")
    versions["Nvidia_Cudnn_Cu12"] = "9.3.0.75"
    assert dict(resolution.versions) == {"nvidia-cudnn-cu12": "9.28.0.42"}
    assert resolution.version_of("nvidia_cudnn_cu12") == "9.28.0.42"
    assert resolution.version_of("nvidia-cublas-cu12") is None
    with pytest.raises(TypeError):
        resolution.versions["nvidia-cudnn-cu12"] = "9.3.0.75"  # type: ignore[index]
    assert hash(resolution) == hash(Resolution(("x",), "linux", "3.12", {}, "2026-05-09", "pip"))


def test_the_json_round_trip_gives_the_same_resolution():
    text = json.dumps(resolution_to_json(RESOLUTION))
    assert resolution_from_json(json.loads(text)) == RESOLUTION
    assert json.loads(text)["versions"] == {"nvidia-cudnn-cu12": "9.28.0.42", "tensorflow": "2.21.0"}


def test_read_back_with_another_source_says_so():
    back = resolution_from_json(resolution_to_json(RESOLUTION), source="cache")
    assert back.source == "cache"
    assert back.versions == RESOLUTION.versions


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ({"requirements": "tensorflow"}, '"requirements" is a list of strings'),
        ({"versions": {"tensorflow": 2}}, '"versions" maps names to version strings'),
        ({"versions": None}, '"versions" maps names to version strings'),
        ({"python": 3.12}, '"python" is a string, not a number'),
        ({"resolved_on": None}, '"resolved_on" is a string, not null'),
    ],
)
def test_json_of_another_shape_is_refused(change: dict[str, object], said: str):
    data = {**resolution_to_json(RESOLUTION), **change}
    with pytest.raises(ResolutionFailed, match=said):
        resolution_from_json(data)


def test_json_that_is_no_object_is_refused():
    with pytest.raises(ResolutionFailed, match="not a list"):
        resolution_from_json([])
