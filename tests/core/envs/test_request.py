"""Setup requests: what ``env create`` accepts, what it refuses in one line, and the wish it carries."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from gpuwizard.cli.main import build_parser
from gpuwizard.core.compat.plan import Wish
from gpuwizard.core.envs.request import TOOL_MANAGERS, SetupRequest, SetupRequestError


def from_command_line(*argv: str) -> SetupRequest:
    """The request ``gpuwizard env create ARGV`` makes (as cli/env.py builds it)."""
    args = build_parser().parse_args(["env", "create", *argv])
    return SetupRequest.checked(
        framework=args.framework,
        version=args.framework_version,
        python=args.python,
        manager=args.manager,
        name=args.name,
        tool=args.tool,
        prefix=args.prefix,
        find_links=args.find_links,
        offline=args.offline,
        jupyter=args.jupyter,
        gpus=args.gpus,
        replace=args.replace,
        extra_requirements=tuple(args.extra),
    )


# --- accepted ----------------------------------------------------------------------------------


def test_the_plainest_request():
    request = SetupRequest.checked(framework="pytorch")
    assert request == SetupRequest(framework="pytorch", requested_name="pytorch")
    assert (request.name, request.version, request.python, request.manager, request.tool) == (
        "gpu",
        None,
        None,
        None,
        None,
    )
    assert (request.offline, request.jupyter, request.replace, request.gpus) == (False, False, False, None)


def test_everything_the_command_line_takes():
    request = from_command_line(
        "torch 2.13",
        "--framework",
        "pytorch",
        "--version",
        "2.13",
        "--python",
        "3.11.4",
        "--manager",
        "venv",
        "--tool",
        "uv",
        "--prefix",
        "/data/envs/torch",
        "--find-links",
        "/data/wheels",
        "--offline",
        "--jupyter",
        "--gpus",
        " 0, 1 ",
        "--with",
        "numpy",
        "--with",
        "pandas",
        "--replace",
    )
    assert request == SetupRequest(
        framework="pytorch",
        version="2.13",
        python="3.11",
        manager="venv",
        name="torch 2.13",
        tool="uv",
        prefix=Path("/data/envs/torch"),
        find_links=Path("/data/wheels"),
        offline=True,
        jupyter=True,
        gpus="0,1",
        replace=True,
        extra_requirements=("numpy", "pandas"),
        requested_name="pytorch",
    )


@pytest.mark.parametrize("tool", sorted(TOOL_MANAGERS))
def test_every_tool_the_command_line_offers_is_accepted(tool: str):
    request = from_command_line("demo", "--framework", "pytorch", "--tool", tool)
    assert request.tool == tool
    assert request.manager is None
    assert request.wanted_manager == TOOL_MANAGERS[tool]


def test_the_command_lines_tools_are_the_requests_tools(capsys: pytest.CaptureFixture[str]):
    # What `env create --help` offers (its --tool line names each tool); the test above takes
    # every tool the requests know through the command line.
    with pytest.raises(SystemExit):
        build_parser().parse_args(["env", "create", "--help"])
    offered = re.search(r"--tool TOOL +(.*)", capsys.readouterr().out)
    assert offered is not None
    assert set(re.findall(r"[a-z]+", offered.group(1))) - {"or", "venv"} == set(TOOL_MANAGERS)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"framework": "PyTorch "}, {"framework": "pytorch", "requested_name": "pytorch"}),
        ({"framework": "torch"}, {"framework": "pytorch", "requested_name": "torch"}),
        ({"framework": "pytorch", "version": " 2.10.1 "}, {"version": "2.10.1"}),
        ({"framework": "pytorch", "python": "3.12.1"}, {"python": "3.12"}),
        ({"framework": "pytorch", "python": "3.9"}, {"python": "3.9"}),
        ({"framework": "tensorflow", "manager": "conda"}, {"manager": "conda"}),
        ({"framework": "tensorflow", "tool": "micromamba", "manager": "conda"}, {"tool": "micromamba"}),
        ({"framework": "pytorch", "tool": "pip", "manager": "venv"}, {"tool": "pip", "manager": "venv"}),
        ({"framework": "pytorch", "name": "torch-2.13 cu126"}, {"name": "torch-2.13 cu126"}),
        ({"framework": "pytorch", "gpus": "2"}, {"gpus": "2"}),
        ({"framework": "pytorch", "gpus": "GPU-8f6c2e1a-0000-1111"}, {"gpus": "GPU-8f6c2e1a-0000-1111"}),
        ({"framework": "pytorch", "find_links": Path("/w")}, {"find_links": Path("/w"), "offline": False}),
        ({"framework": "pytorch", "prefix": Path("/opt/env")}, {"prefix": Path("/opt/env")}),
    ],
)
def test_accepted_and_normalised(options: dict[str, Any], expected: dict[str, Any]):
    request = SetupRequest.checked(**options)
    assert {key: getattr(request, key) for key in expected} == expected


def test_tensorflow_gpu_becomes_tensorflow_and_is_remembered():
    request = SetupRequest.checked(framework="tensorflow-gpu", version="2.10", name="tf")
    assert request.framework == "tensorflow"
    assert request.requested_name == "tensorflow-gpu"
    assert request.wish == Wish(
        framework="tensorflow", version="2.10", python=None, manager=None, requested_name="tensorflow-gpu"
    )


# --- refused, in one line ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"framework": "caffe"}, "unknown framework 'caffe' (choose pytorch, tensorflow or tensorflow-gpu)"),
        ({"framework": ""}, "unknown framework '' (choose pytorch, tensorflow or tensorflow-gpu)"),
        ({"version": "latest"}, "'latest' is not a framework version (write it as 2.10 or 2.10.1)"),
        ({"version": "2"}, "'2' is not a framework version (write it as 2.10 or 2.10.1)"),
        (
            {"version": "2.10.1.post1"},
            "'2.10.1.post1' is not a framework version (write it as 2.10 or 2.10.1)",
        ),
        ({"python": "2.7"}, "'2.7' is not a Python version (write it as 3.11)"),
        ({"python": "three"}, "'three' is not a Python version (write it as 3.11)"),
        ({"manager": "poetry"}, "unknown environment manager 'poetry' (choose venv or conda)"),
        ({"tool": "poetry"}, "unknown tool 'poetry' (choose uv, pip, conda, mamba, micromamba or rattler)"),
        ({"tool": "mamba", "manager": "venv"}, "tool 'mamba' does not make venv environments"),
        ({"tool": "conda", "manager": "venv"}, "tool 'conda' does not make venv environments"),
        ({"tool": "uv", "manager": "conda"}, "tool 'uv' does not make conda environments"),
        ({"tool": "pip", "manager": "conda"}, "tool 'pip' does not make conda environments"),
        ({"name": "con"}, "'con' is a device name Windows reserves in every folder"),
        ({"name": "../x"}, "'../x' is not a plain name: it must not contain / \\ or start with a dot"),
        ({"name": ""}, "the environment name is empty"),
        ({"name": "demo."}, "'demo.' must not end with a dot or a space (Windows drops them)"),
        ({"name": "my env", "tool": "conda"}, "'my env': conda environment names cannot contain spaces"),
        ({"name": "my env", "manager": "conda"}, "'my env': conda environment names cannot contain spaces"),
        ({"gpus": "first"}, "'first' is not a GPU selection (write indices such as 0,1)"),
        ({"gpus": ""}, "'' is not a GPU selection (write indices such as 0,1)"),
        ({"gpus": "0,0"}, "'0,0' names a GPU twice"),
        ({"offline": True}, "--offline needs --find-links DIR: the folder of wheels to install from"),
        ({"channels": ("/srv/ch",), "manager": "venv"}, "--channel is for conda environments"),
        ({"channels": ("/srv/ch",), "tool": "uv"}, "--channel is for conda environments"),
    ],
)
def test_refused_in_one_line(options: dict[str, Any], message: str):
    with pytest.raises(SetupRequestError) as refused:
        SetupRequest.checked(**{"framework": "pytorch", **options})
    assert str(refused.value).startswith(message)
    assert "\n" not in str(refused.value)
    assert isinstance(refused.value, ValueError)
    assert refused.value.__cause__ is None


def test_a_tool_is_checked_before_the_wish():
    with pytest.raises(SetupRequestError, match="unknown tool 'poetry'"):
        SetupRequest.checked(framework="caffe", tool="poetry")


# --- the manager and the wish ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("manager", "tool", "wanted"),
    [
        (None, None, None),
        ("venv", None, "venv"),
        ("conda", None, "conda"),
        (None, "uv", "venv"),
        (None, "pip", "venv"),
        (None, "conda", "conda"),
        (None, "mamba", "conda"),
        (None, "micromamba", "conda"),
        ("conda", "mamba", "conda"),
    ],
)
def test_wanted_manager(manager: str | None, tool: str | None, wanted: str | None):
    request = SetupRequest.checked(framework="pytorch", manager=manager, tool=tool)
    assert request.manager == manager
    assert request.wanted_manager == wanted
    assert request.wish.manager == wanted


def test_the_wish_carries_what_the_recommender_needs():
    request = SetupRequest.checked(
        framework="tensorflow",
        version="2.15",
        python="3.11",
        tool="mamba",
        name="tf",
        jupyter=True,
        gpus="1",
        extra_requirements=("pandas",),
    )
    assert request.wish == Wish(
        framework="tensorflow", version="2.15", python="3.11", manager="conda", requested_name="tensorflow"
    )


def test_a_request_made_directly_wishes_by_its_framework():
    assert SetupRequest("pytorch").wish == Wish("pytorch", requested_name="pytorch")
    assert SetupRequest("tensorflow", tool="uv").wish.manager == "venv"
