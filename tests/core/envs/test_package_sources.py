"""Which package indexes an install contacts, and why (issue 20, point 1): pure, from settings as values."""

from __future__ import annotations

import pytest

from gpuwizard.core.envs.index_reach import IndexAnswer, IndexStatus, SourcesCheck, check_findings
from gpuwizard.core.envs.package_sources import (
    PYPI_SIMPLE,
    IndexSettings,
    MirrorRefused,
    PlanSources,
    display_url,
    index_reason,
    masked_argv,
    plan_sources,
)

TORCH_CPU = "https://download.pytorch.org/whl/cpu"


def indexes(sources: PlanSources) -> list[tuple[str, str, str, str]]:
    return [(index.url, index.role, index.origin, index.needed_for) for index in sources.indexes]


def torch_sources(tool: str = "uv", **settings: str) -> PlanSources:
    return plan_sources(index_url=TORCH_CPU, variant="cpu", tool=tool, settings=IndexSettings(**settings))


def test_the_default_plan_contacts_pytorchs_index_and_pypi_only_for_pip():
    assert indexes(torch_sources()) == [
        (TORCH_CPU, "pytorch", "plan", "packages"),
        (PYPI_SIMPLE, "default", "pypi", "pip"),
    ]
    # pip environments bring their own pip (ensurepip): PyTorch's index alone.
    assert indexes(torch_sources("pip")) == [(TORCH_CPU, "pytorch", "plan", "packages")]
    # A plan without an index of its own (TensorFlow, PyPI's torch) installs from the default index.
    default = plan_sources(index_url=None, variant=None, tool="uv", settings=IndexSettings())
    assert indexes(default) == [(PYPI_SIMPLE, "default", "pypi", "packages")]


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("https://mirror.example/pytorch/whl", "https://mirror.example/pytorch/whl/cpu"),
        ("https://mirror.example/pytorch/whl/", "https://mirror.example/pytorch/whl/cpu"),
        ("https://mirror.example/{variant}/simple", "https://mirror.example/cpu/simple"),
        ("http://127.0.0.1:8080/whl", "http://127.0.0.1:8080/whl/cpu"),
        ("http://localhost/whl", "http://localhost/whl/cpu"),
        ("http://[::1]:3141/whl", "http://[::1]:3141/whl/cpu"),
    ],
)
def test_a_pytorch_mirror_takes_the_plans_variant(base: str, expected: str):
    sources = torch_sources(pytorch_mirror=base)
    assert sources.pytorch_index == expected
    assert sources.indexes[0].origin == "GPUWIZARD_PYTORCH_INDEX_URL"
    assert sources.indexes[0].mirror
    assert (
        str(index_reason(sources.indexes[0]))
        == "your mirror of PyTorch's index, from GPUWIZARD_PYTORCH_INDEX_URL"
    )


def test_pypi_mirrors_are_read_in_the_tools_own_order():
    every = {
        "uv_default_index": "https://uv-default.example/simple",
        "uv_index_url": "https://uv-index.example/simple",
        "pip_index_url": "https://pip-env.example/simple",
        "pip_config_index_url": "https://pip-file.example/simple",
        "pip_config_file": "/etc/pip.conf",
    }
    uv = plan_sources(tool="uv", settings=IndexSettings(**every), index_url=None, variant=None)
    assert indexes(uv) == [("https://uv-default.example/simple", "default", "UV_DEFAULT_INDEX", "packages")]
    # pip reads no UV_* variable; its variable wins over its files (pip.pypa.io, "Configuration").
    pip = plan_sources(tool="pip", settings=IndexSettings(**every), index_url=None, variant=None)
    assert pip.default_index == "https://pip-env.example/simple"
    assert pip.indexes[0].origin == "PIP_INDEX_URL"
    only_file = IndexSettings(
        pip_config_index_url="https://pip-file.example/simple", pip_config_file="/etc/pip.conf"
    )
    # A mirror set for pip is the network's mirror: uv, which the wizard runs, is given it too.
    uv_from_pip = plan_sources(tool="uv", settings=only_file, index_url=None, variant=None)
    assert indexes(uv_from_pip) == [
        ("https://pip-file.example/simple", "default", "pip config /etc/pip.conf", "packages")
    ]
    assert str(index_reason(uv_from_pip.indexes[0])) == "your PyPI mirror, from pip config /etc/pip.conf"
    # Naming PyPI itself is no mirror.
    pypi = plan_sources(
        tool="uv",
        settings=IndexSettings(uv_default_index="https://pypi.org/simple/"),
        index_url=None,
        variant=None,
    )
    assert indexes(pypi) == [(PYPI_SIMPLE, "default", "pypi", "packages")]


@pytest.mark.parametrize(
    ("settings", "said"),
    [
        (
            {"pytorch_mirror": "http://mirror.example/whl"},
            "GPUWIZARD_PYTORCH_INDEX_URL: http://mirror.example/whl",
        ),
        ({"pip_index_url": "http://10.0.0.5/simple"}, "PIP_INDEX_URL: http://10.0.0.5/simple"),
        (
            {"uv_default_index": "ftp://mirror.example/simple"},
            "UV_DEFAULT_INDEX: ftp://mirror.example/simple",
        ),
        ({"pytorch_mirror": "https://m.example/{build}/whl"}, "only {variant} may stand in braces"),
        ({"pip_index_url": "https://"}, "is not a URL with a host"),
    ],
)
def test_a_mirror_that_is_not_https_is_refused_in_one_line(settings: dict[str, str], said: str):
    with pytest.raises(MirrorRefused) as refused:
        torch_sources(**settings)
    assert said in str(refused.value)
    assert len(str(refused.value).splitlines()) == 1


def test_offline_nothing_is_contacted_and_the_command_says_so():
    settings = IndexSettings(
        pytorch_mirror="http://plain.example/whl", pip_index_url="http://plain.example/simple"
    )
    for tool, command in (
        ("uv", "uv pip install torch==2.13.0\n    --offline --no-index --find-links /wheels"),
        ("pip", "pip install torch==2.13.0\n    --no-index --find-links /wheels"),
    ):
        # Offline, even mirrors that could not be used are never looked at.
        sources = plan_sources(
            index_url=TORCH_CPU,
            variant="cpu",
            tool=tool,
            settings=settings,
            find_links="/wheels",
            offline=True,
        )
        assert sources.indexes == ()
        assert sources.install_line(["torch==2.13.0"]) == command
        assert sources.index_options() == ("--no-index", "--find-links", "/wheels")


def test_commands_and_urls_shown_never_carry_a_login():
    sources = torch_sources(pytorch_mirror="https://ana:s3cret@mirror.example/whl")
    assert sources.pytorch_index == "https://ana:s3cret@mirror.example/whl/cpu"  # what the tool is given
    # As it runs: the index with a login goes in uv's variable, out of the command line (issue 33).
    assert (
        sources.install_line(["torch"])
        == "UV_DEFAULT_INDEX=https://***@mirror.example/whl/cpu uv pip install torch"
    )
    assert display_url("https://ana:s3cret@mirror.example/whl") == "https://***@mirror.example/whl"
    assert (
        masked_argv(["uv", "--index-url", "https://a:b@m.example/s"])
        == "uv --index-url https://***@m.example/s"
    )


def test_an_unreachable_index_is_explained_with_the_ways_forward():
    sources = torch_sources(pytorch_mirror="https://127.0.0.1:9/whl")
    statuses = (
        IndexStatus(sources.indexes[0], IndexAnswer("https://127.0.0.1:9/whl/cpu/torch/", False, "refused")),
        IndexStatus(sources.indexes[1], IndexAnswer("https://pypi.org/simple/pip/", True, status=200)),
    )
    check = SourcesCheck(sources, statuses, check_findings(sources, statuses, "torch", None), "torch")
    assert not check.ok
    assert check.error_line() == (
        "your mirror of PyTorch's index https://127.0.0.1:9/whl/cpu cannot be reached: 127.0.0.1:9 refused the connection"
    )
    (finding,) = check.findings
    assert (finding.code, finding.params["variant"]) == ("PACKAGE_INDEX_UNREACHABLE", "refused")
    assert "GPUWIZARD_PYTORCH_INDEX_URL" in finding.hint
    assert "HTTPS_PROXY" in finding.hint and "--find-links DIR --offline" in finding.hint


def test_an_index_that_only_brings_pip_warns_but_does_not_block():
    sources = torch_sources()
    statuses = (
        IndexStatus(sources.indexes[0], IndexAnswer(TORCH_CPU + "/torch/", True, status=200)),
        IndexStatus(sources.indexes[1], IndexAnswer(PYPI_SIMPLE + "/pip/", False, "dns")),
    )
    check = SourcesCheck(sources, statuses, check_findings(sources, statuses, "torch", None), "torch")
    assert check.ok and check.error_line() == ""
    assert [(f.code, f.severity) for f in check.findings] == [("PACKAGE_INDEX_PIP_UNREACHABLE", "warning")]
