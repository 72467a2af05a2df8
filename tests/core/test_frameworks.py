"""The frameworks table, and the probes' own copies of it (they cannot import the package)."""

from __future__ import annotations

import pytest

from gpuwizard.core.compat.plan import FRAMEWORK_NAMES
from gpuwizard.core.frameworks import FRAMEWORKS, framework_module, framework_title
from gpuwizard.probes import env_report, framework_import, train_test

TENSORFLOW_DISTRIBUTIONS = (
    "tensorflow",
    "tensorflow-cpu",
    "tensorflow-gpu",
    "tensorflow-intel",
    "tensorflow-macos",
)


def test_the_frameworks_the_wizard_sets_up():
    assert list(FRAMEWORKS) == ["pytorch", "tensorflow"]
    assert all(framework.key == key for key, framework in FRAMEWORKS.items())


@pytest.mark.parametrize(
    ("key", "title", "module"),
    [("pytorch", "PyTorch", "torch"), ("tensorflow", "TensorFlow", "tensorflow")],
)
def test_titles_and_modules(key: str, title: str, module: str):
    assert framework_title(key) == title
    assert framework_module(key) == module
    assert (FRAMEWORKS[key].title, FRAMEWORKS[key].module) == (title, module)


@pytest.mark.parametrize("name", ["jax", "tensorflow-gpu", "", "PyTorch"])
def test_an_unknown_name_is_given_back_as_it_is(name: str):
    assert framework_title(name) == name
    assert framework_module(name) == name


def test_the_distributions_main_one_first():
    assert FRAMEWORKS["pytorch"].distributions == ("torch",)
    assert FRAMEWORKS["tensorflow"].distributions == TENSORFLOW_DISTRIBUTIONS
    for framework in FRAMEWORKS.values():
        assert framework.distributions[0] == framework.module


def test_dist_info_prefixes_write_dashes_as_underscores():
    assert FRAMEWORKS["pytorch"].dist_info_prefixes() == ("torch",)
    assert FRAMEWORKS["tensorflow"].dist_info_prefixes() == (
        "tensorflow",
        "tensorflow_cpu",
        "tensorflow_gpu",
        "tensorflow_intel",
        "tensorflow_macos",
    )
    for framework in FRAMEWORKS.values():
        assert len(framework.dist_info_prefixes()) == len(framework.distributions)
        assert not any("-" in prefix for prefix in framework.dist_info_prefixes())


def test_every_framework_can_be_wished_for_by_its_key():
    for key in FRAMEWORKS:
        assert FRAMEWORK_NAMES[key] == key
    assert set(FRAMEWORK_NAMES.values()) == set(FRAMEWORKS)


# --- the probes' copies -------------------------------------------------------------------------


def test_framework_import_knows_the_distributions_of_every_module():
    assert {
        framework.module: framework.distributions for framework in FRAMEWORKS.values()
    } == framework_import._DISTRIBUTIONS


def test_env_report_knows_every_framework_and_its_module():
    assert tuple(FRAMEWORKS) == env_report.FRAMEWORKS
    assert {key: framework.module for key, framework in FRAMEWORKS.items()} == env_report._MODULES


@pytest.mark.parametrize("key", list(FRAMEWORKS))
def test_the_training_probe_takes_every_framework(key: str):
    assert train_test.parse_args(["--framework", key])["framework"] == key


def test_the_training_probe_refuses_what_is_no_framework():
    assert train_test.parse_args(["--framework", "tensorflow-gpu"])["framework"] == "tensorflow"
    with pytest.raises(train_test.UsageError):
        train_test.parse_args(["--framework", "jax"])
