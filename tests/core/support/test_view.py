"""The support view on its own: small hand-made ``gpuwizard.support/1`` documents, laid out for reading.

Each test builds a document (the dict the workflow gathers and redacts), calls
:func:`support_view`, and looks at the summary at a glance, the findings and the sections'
blocks; the end-to-end runs through ``gpuwizard report`` live in tests/workflow and tests/cli.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpuwizard.core.support.blocks import (
    Cell,
    Fact,
    Facts,
    Findings,
    Mark,
    Paragraph,
    Raw,
    Section,
    SupportView,
    Table,
)
from gpuwizard.core.support.view import support_view

RTX = "NVIDIA GeForce RTX 4070 Laptop GPU"
DEMO = "/home/~/envs/demo"


def finding(severity: str, code: str) -> dict[str, str]:
    return {"severity": severity, "code": code, "message": f"{code} message", "hint": f"{code} hint"}


def system(**changes: Any) -> dict[str, Any]:
    """A ``gpuwizard.system/1`` report: Ubuntu under WSL 2 with one working RTX 4070 and two toolkits."""
    data: dict[str, Any] = {
        "schema": "gpuwizard.system/1",
        "os": {"family": "linux", "wsl": True, "release": "5.15.153", "arch": "x86_64", "wsl_version": 2,
               "container": False, "distribution": "Ubuntu 22.04"},
        "python": {"version": "3.11.9", "executable": "/usr/bin/python3", "bits": 64, "ms_store": False,
                   "source": "self"},
        "driver": {"version": "560.94", "cuda_max": "12.6", "source": "nvml"},
        "gpus": [{"index": 0, "vendor": "nvidia", "name": RTX, "compute_capability": "8.9",
                  "memory_total_mib": 8188, "pci_bus_id": "00000000:01:00.0", "status": "ok"}],
        "cuda_toolkits": [
            {"version": "12.4", "root": "/usr/local/cuda-12.4", "on_path": True, "path_rank": 0,
             "version_source": "version.json", "found_by": ["PATH", "default folder"]},
            {"version": "11.8", "root": "/usr/local/cuda-11.8", "on_path": True, "path_rank": 2,
             "version_source": "nvcc", "found_by": ["default folder"]},
            {"version": None, "root": "/opt/cuda", "on_path": False, "path_rank": None,
             "version_source": None, "found_by": []},
        ],
        "cudnn": [{"version": "9.1.0", "location": "/usr/lib/x86_64-linux-gnu", "on_path": True,
                   "version_source": "cudnn_version.h"}],
        "managers": {"uv": "/home/~/.local/bin/uv", "conda": None, "mamba": None, "micromamba": None},
        "findings": [],
        "interpreters": [{"version": "3.12.3", "executable": "/usr/bin/python3.12", "bits": 64,
                          "ms_store": False, "source": "PATH"}],
        "long_paths_enabled": None,
        "wizard_version": "0.9.0",
    }  # fmt: skip
    data.update(changes)
    return data


def no_gpu_system() -> dict[str, Any]:
    return system(
        driver=None,
        gpus=[{"index": 0, "vendor": "intel", "name": "Intel UHD Graphics 630", "status": "ok"}],
        cuda_toolkits=[],
    )


def env(name: str = "demo", **changes: Any) -> dict[str, Any]:
    """An environment entry as the document holds it: folder and interpreter there, probed, torch on CUDA 12.4."""
    data: dict[str, Any] = {
        "name": name,
        "path": f"/home/~/envs/{name}",
        "python": f"/home/~/envs/{name}/bin/python",
        "manager": "uv",
        "tool": "venv",
        "framework": "pytorch",
        "framework_version": "2.5.1",
        "framework_build": "2.5.1+cu124",
        "python_version": "3.11.9",
        "created": "2026-04-01T09:30:00+00:00",
        "folder_exists": True,
        "interpreter_exists": True,
        "probed": True,
        "probe": {
            "ok": True,
            "framework_version": "2.5.1+cu124",
            "built_with_cuda": True,
            "cuda_build": "12.4",
            "cudnn_build": "90100",
            "arch_list": ["sm_50", "sm_80", "sm_90"],
            "gpus": [{"name": RTX, "compute_capability": "8.9", "arch_in_build": False, "ptx_only": True}],
            "warnings": [],
        },
        "packages": [{"name": "numpy", "version": "2.1.0"}, {"name": "torch", "version": "2.5.1+cu124"}],
        "last_good": None,
        "last_test": None,
        "findings": [],
    }
    data.update(changes)
    return data


def last_test(verdict: str, recorded: str = "2026-05-01T10:00:00+00:00", **result: Any) -> dict[str, Any]:
    return {"recorded": recorded, "result": {"verdict": verdict, **result}}


def recorded_test(name: str | None, verdict: str, recorded: str, **changes: Any) -> dict[str, Any]:
    """One of the document's ``tests``: the most recent live test of ``name`` (None: of an interpreter)."""
    data: dict[str, Any] = {
        "env": name,
        "python": f"/home/~/envs/{name}/bin/python" if name else "/usr/bin/python3",
        "framework": "pytorch",
        "recorded": recorded,
        "short": False,
        "result": {"verdict": verdict, "findings": []},
    }
    data.update(changes)
    return data


def document(**changes: Any) -> dict[str, Any]:
    """A whole support document: the machine above, no environments, tests or PATH facts."""
    data: dict[str, Any] = {
        "schema": "gpuwizard.support/1",
        "generated": "2026-05-02T08:15:30+00:00",
        "wizard_version": "0.9.0",
        "redaction": {"rules": ["Home folders read ~."], "counts": {"home_folder": 4}},
        "sources": {"system": "file", "registry": None, "probed": True},
        "system": system(),
        "variables": {},
        "path": {"registry": None, "scopes": [], "findings": [], "journal": [], "process": {"entries": []}},
        "environments": [],
        "last_good": None,
        "tests": [],
    }
    data.update(changes)
    return data


# --- reading the view ---------------------------------------------------------------------------


def summary_fact(view: SupportView, label: str) -> Fact:
    (fact,) = [fact for fact in view.summary.facts if fact.label == label]
    return fact


def section(view: SupportView, anchor: str) -> Section:
    (found,) = [section for section in view.sections if section.anchor == anchor]
    return found


def subsection(view: SupportView, anchor: str) -> Section:
    (found,) = [
        block
        for section in view.sections
        for block in section.blocks
        if isinstance(block, Section) and block.anchor == anchor
    ]
    return found


def facts(block_holder: Section) -> dict[str, Fact]:
    """The facts of every Facts block of a section, by label (later blocks win)."""
    return {
        fact.label: fact for block in block_holder.blocks if isinstance(block, Facts) for fact in block.facts
    }


def table(block_holder: Section, caption: str) -> Table:
    (found,) = [
        block for block in block_holder.blocks if isinstance(block, Table) and block.caption == caption
    ]
    return found


def texts(row: tuple[Cell, ...]) -> list[str]:
    return [cell.text for cell in row]


def paragraphs(block_holder: Section) -> list[tuple[str, str]]:
    return [(block.text, block.level) for block in block_holder.blocks if isinstance(block, Paragraph)]


# --- the header and the summary at a glance -----------------------------------------------------


def test_the_header_says_when_by_which_version_and_what_was_redacted():
    view = support_view(
        document(
            redaction={
                "rules": ["Home folders read ~.", "User names read <user>."],
                "counts": {"gpu_uuid": 1, "home_folder": 3, "user_name": 0, "host_name": 2, "mystery": 5},
            }
        )
    )
    assert view.title == "GPU Setup Wizard support report"
    assert view.generated == "2026-05-02 08:15 UTC"
    assert view.wizard_version == "0.9.0"
    assert view.redaction == (
        "Replaced before writing: 1 GPU UUID, 3 home-folder paths, 2 computer names.",
        "Home folders read ~.",
        "User names read <user>.",
    )


@pytest.mark.parametrize(
    ("redaction", "lines"),
    [
        (None, ("Nothing was redacted.",)),
        ("all of it", ("Nothing was redacted.",)),
        ({"rules": [], "counts": {}}, ("Replaced before writing: nothing (none was found).",)),
        (
            {"counts": {"url_credentials": 1, "serial_number": "2"}},
            ("Replaced before writing: 1 URL login.",),
        ),
    ],
)
def test_redaction_lines_when_nothing_or_little_was_redacted(redaction: object, lines: tuple[str, ...]):
    assert support_view(document(redaction=redaction)).redaction == lines


def test_summary_names_the_gpu_the_driver_and_the_toolkits_in_path_order():
    view = support_view(document())
    assert summary_fact(view, "GPU") == Fact("GPU", f"{RTX}, compute 8.9, 8 GiB", level="ok")
    assert summary_fact(view, "Driver") == Fact("Driver", "560.94, supports CUDA up to 12.6", level="ok")
    assert (
        summary_fact(view, "CUDA toolkits").value == "12.4 (first on PATH), 11.8 (on PATH), ? (not on PATH)"
    )
    assert view.summary.detail == f"GPU frameworks can use {RTX} through the NVIDIA driver."
    assert [fact.label for fact in view.summary.facts] == [
        "GPU",
        "Driver",
        "CUDA toolkits",
        "Environments",
        "Last live test",
    ]


def test_summary_of_a_machine_without_an_nvidia_gpu():
    view = support_view(document(system=no_gpu_system()))
    # An Intel GPU is not an error: whether a build (XPU) uses it is the recommendation's answer.
    assert summary_fact(view, "GPU") == Fact("GPU", "no NVIDIA GPU; Intel UHD Graphics 630", level="")
    assert summary_fact(view, "Driver") == Fact("Driver", "no NVIDIA driver answered", level="")
    assert summary_fact(view, "CUDA toolkits").value == (
        "none on disk (pip and conda builds bring their own CUDA)"
    )
    assert view.summary.detail == (
        "No NVIDIA GPU; Intel UHD Graphics 630: the recommendation says which build (ROCm, XPU, MPS) "
        "uses it, and the live test whether it trains."
    )


def test_summary_of_an_nvidia_gpu_that_no_driver_serves():
    gpu = {"index": 0, "vendor": "nvidia", "name": RTX, "compute_capability": None, "status": "no-driver"}
    view = support_view(document(system=system(driver=None, gpus=[gpu])))
    assert summary_fact(view, "GPU") == Fact("GPU", f"{RTX} (no-driver)", level="error")
    assert summary_fact(view, "Driver") == Fact("Driver", "no NVIDIA driver answered", level="error")
    assert view.summary.detail == "This machine has an NVIDIA GPU, but frameworks cannot use it as it is now."


def test_summary_lists_each_environment_with_its_last_verdict_and_first_error():
    environments = [
        env("good", last_test=last_test("gpu_ok")),
        env("slow", last_test=last_test("gpu_slow")),
        env("fresh", last_good={"test_verdict": "gpu_ok"}),
        env("gone", folder_exists=False, interpreter_exists=False,
            findings=[finding("warning", "OLD_DRIVER"), finding("error", "PYTHON_NOT_FOUND"),
                      finding("error", "SECOND_ERROR")]),
    ]  # fmt: skip
    fact = summary_fact(support_view(document(environments=environments)), "Environments")
    assert fact.value == (
        "4: good (gpu_ok), slow (gpu_slow), fresh (gpu_ok in the last good state), "
        "gone (not tested; PYTHON_NOT_FOUND)"
    )
    assert fact.level == "error"  # the worst of them


@pytest.mark.parametrize(
    ("machine", "environment", "level"),
    [
        (system(), env(last_test=last_test("gpu_ok")), "ok"),
        (system(), env(last_test=last_test("gpu_slow")), "warning"),
        (system(), env(last_test=last_test("cpu_only")), "warning"),  # a GPU it does not use
        (no_gpu_system(), env(last_test=last_test("cpu_only")), "ok"),  # the CPU is all there is
        (system(), env(last_test=last_test("broken")), "error"),
        (system(), env(), ""),  # not tested, nothing wrong
        (system(), env(findings=[finding("warning", "W")]), "warning"),
        (system(), env(last_test=last_test("gpu_ok"), findings=[finding("warning", "W")]), "ok"),
        (system(), env(last_test=last_test("gpu_ok"), findings=[finding("error", "E")]), "error"),
    ],
)
def test_an_environments_level_in_the_summary(
    machine: dict[str, Any], environment: dict[str, Any], level: str
):
    assert (
        summary_fact(support_view(document(system=machine, environments=[environment])), "Environments").level
        == level
    )


def test_summary_shows_the_latest_live_test_with_its_rates():
    tests = [
        recorded_test("demo", "gpu_ok", "2026-05-01T10:00:00+00:00",
                      result={"verdict": "gpu_ok", "samples_per_s": {"gpu": 12345.6, "cpu": 900}, "speedup": 13.7}),
        recorded_test("old", "broken", "2026-04-01T10:00:00+00:00"),
    ]  # fmt: skip
    fact = summary_fact(support_view(document(tests=tests)), "Last live test")
    assert fact == Fact(
        "Last live test",
        "demo: gpu_ok (the GPU trains, clearly faster than the CPU), GPU 12,346 samples/s, "
        "CPU 900 samples/s, 13.7x the CPU, 2026-05-01 10:00 UTC",
        level="ok",
    )


def test_summary_names_an_interpreters_test_by_its_python_and_a_broken_one_is_an_error():
    tests = [recorded_test(None, "broken", "2026-05-01T10:00:00+00:00")]
    fact = summary_fact(support_view(document(tests=tests)), "Last live test")
    assert fact == Fact(
        "Last live test",
        "/usr/bin/python3: broken (training does not work in this environment), 2026-05-01 10:00 UTC",
        level="error",
    )


@pytest.mark.parametrize(
    ("counts", "level", "headline"),
    [
        ({"error": 2, "warning": 1}, "error", "Something is broken: 2 errors below, each with what to do."),
        ({"error": 1}, "error", "Something is broken: 1 error below, each with what to do."),
        ({"warning": 1, "info": 3}, "warning", "Nothing is broken; 1 warning to look at."),
        ({"warning": 2}, "warning", "Nothing is broken; 2 warnings to look at."),
        ({"info": 1}, "ok", "No problems found."),
        ({}, "ok", "No problems found."),
    ],
)
def test_summary_level_and_headline_follow_the_finding_counts(
    counts: dict[str, int], level: str, headline: str
):
    path_findings = [
        finding(severity, f"{severity.upper()}_{i}") for severity, n in counts.items() for i in range(n)
    ]
    path = {"registry": None, "scopes": [], "findings": path_findings, "journal": [], "process": {}}
    view = support_view(document(path=path))
    assert view.summary.level == level
    assert view.summary.headline == headline
    assert dict(view.summary.counts) == {"error": 0, "warning": 0, "info": 0, **counts}


# --- findings -----------------------------------------------------------------------------------


def test_findings_from_every_source_errors_first_each_with_where_it_was_found():
    machine = system(findings=[finding("info", "DETECTED_INFO"), finding("warning", "DETECTED_WARNING")])
    path = {
        "registry": None,
        "scopes": [],
        "journal": [],
        "process": {},
        "findings": [finding("warning", "PATH_WARNING"), "not a finding", {"code": "NO_SEVERITY"}],
    }
    environments = [env("demo", findings=[finding("info", "ENV_INFO"), finding("error", "ENV_ERROR")])]
    tests = [
        recorded_test("demo", "broken", "2026-05-01T10:00:00+00:00",
                      result={"verdict": "broken", "findings": [finding("error", "TEST_ERROR")]}),
        recorded_test(None, "gpu_slow", "2026-05-01T11:00:00+00:00",
                      result={"verdict": "gpu_slow", "findings": [finding("critical", "ODD_SEVERITY")]}),
    ]  # fmt: skip
    view = support_view(document(system=machine, path=path, environments=environments, tests=tests))
    assert [(item.severity, item.code, item.where) for item in view.findings] == [
        ("error", "ENV_ERROR", "environment demo"),
        ("error", "TEST_ERROR", "live test of demo"),
        ("warning", "DETECTED_WARNING", "detection"),
        ("warning", "PATH_WARNING", "PATH"),
        ("info", "DETECTED_INFO", "detection"),
        ("info", "NO_SEVERITY", "PATH"),
        ("info", "ENV_INFO", "environment demo"),
        ("critical", "ODD_SEVERITY", "live test of /usr/bin/python3"),
    ]
    first = view.findings[0]
    assert (first.message, first.hint) == ("ENV_ERROR message", "ENV_ERROR hint")
    # The environment's own subsection lists its findings errors first too.
    (own,) = [block for block in subsection(view, "env-demo").blocks if isinstance(block, Findings)]
    assert [item.code for item in own.items] == ["ENV_ERROR", "ENV_INFO"]


# --- the sections -------------------------------------------------------------------------------


def test_the_sections_in_order():
    view = support_view(document())
    assert [(s.anchor, s.title, s.level) for s in view.sections] == [
        ("machine", "This machine", 2),
        ("environments", "Environments", 2),
        ("tests", "Live tests", 2),
        ("last-good", "Last good state", 2),
        ("path", "PATH", 2),
        ("variables", "Environment variables", 2),
    ]


def test_the_machine_section_has_its_facts_tables_and_the_report_itself():
    machine = section(support_view(document(system=system(long_paths_enabled=False))), "machine")
    found = facts(machine)
    assert found["Operating system"].value == "Ubuntu 22.04 (Linux 5.15.153, x86_64), WSL 2"
    assert found["Python"].value == "3.11.9, 64-bit"
    assert found["Python executable"] == Fact("Python executable", "/usr/bin/python3", code=True)
    assert found["NVIDIA driver"].marks == (Mark("from nvml"),)
    assert found["Highest CUDA the driver supports"].value == "12.6"
    assert found["Windows long paths"].value == "disabled"
    assert found["Detected by"].value == "gpuwizard 0.9.0"
    (gpu,) = table(machine, "GPUs").rows
    assert texts(gpu) == ["0", RTX, "nvidia", "8.9", "8 GiB", "00000000:01:00.0", "ok", "—", "—"]
    assert gpu[6].level == "ok"
    toolkits = table(machine, "CUDA toolkits on disk").rows
    assert [texts(row)[:3] for row in toolkits] == [
        ["12.4", "first", "/usr/local/cuda-12.4"],
        ["11.8", "#3", "/usr/local/cuda-11.8"],
        ["?", "no", "/opt/cuda"],
    ]
    assert toolkits[0][0].code and not toolkits[2][0].code  # an unknown version is no code
    assert [texts(row) for row in table(machine, "cuDNN on disk").rows] == [
        ["9.1.0", "yes", "/usr/lib/x86_64-linux-gnu", "cudnn_version.h"]
    ]
    assert [texts(row) for row in table(machine, "Environment managers").rows] == [
        ["uv", "/home/~/.local/bin/uv"]
    ]
    assert [texts(row) for row in table(machine, "Python interpreters").rows] == [
        ["3.12.3", "64", "PATH", "/usr/bin/python3.12"]
    ]
    (raw,) = [block for block in machine.blocks if isinstance(block, Raw)]
    assert raw.summary == "The system report as detected (gpuwizard.system/1)"
    assert json.loads(raw.text) == system(long_paths_enabled=False)


def test_the_machine_section_without_a_driver_or_gpu_says_so():
    machine = section(support_view(document(system=no_gpu_system())), "machine")
    assert facts(machine)["NVIDIA driver"] == Fact("NVIDIA driver", "none answered", level="")
    assert "Highest CUDA the driver supports" not in facts(machine)
    assert "Windows long paths" not in facts(machine)  # unknown off Windows
    assert table(machine, "CUDA toolkits on disk").rows == ()
    assert table(machine, "CUDA toolkits on disk").empty.startswith("No CUDA toolkit on disk")


def test_an_environment_subsection_with_what_its_interpreter_reports():
    demo = env(
        "demo",
        constraints="/home/~/envs/demo/constraints.txt",
        jupyter_kernel="demo-kernel",
        variables={"CUDA_VISIBLE_DEVICES": "0"},
        last_good={
            "test_verdict": "gpu_ok",
            "samples_per_s": {"gpu": 5000.0},
            "tested": "2026-04-02T08:00:00+00:00",
        },
        last_test=last_test("gpu_slow", samples_per_s={"gpu": 1000.0, "cpu": 900.0}, speedup=1.1),
    )
    view = support_view(document(environments=[demo]))
    sub = subsection(view, "env-demo")
    assert (sub.title, sub.level) == ("Environment demo", 3)
    found = facts(sub)
    assert found["Folder"] == Fact("Folder", DEMO, code=True, marks=(Mark("exists", "ok"),))
    assert found["Interpreter"].marks == (Mark("exists", "ok"),)
    assert found["Made with"].value == "uv / venv"
    assert found["Framework"].value == "pytorch 2.5.1+cu124"
    assert found["Created"].value == "2026-04-01 09:30 UTC"
    assert found["Constraints file"] == Fact(
        "Constraints file", "/home/~/envs/demo/constraints.txt", code=True
    )
    assert found["Jupyter kernel"].value == "demo-kernel"
    assert found["Activation variables"].value == "CUDA_VISIBLE_DEVICES=0"
    assert found["Built with CUDA"] == Fact("Built with CUDA", "12.4", code=True)
    assert found["GPU code in the build"].value == "sm_50 sm_80 sm_90"
    assert found["GPUs the framework sees"] == Fact(
        "GPUs the framework sees", f"{RTX} (compute 8.9, no code for it in the build, through PTX only)"
    )
    assert found["Last good state"] == Fact(
        "Last good state", "gpu_ok, GPU 5,000 samples/s (2026-04-02 08:00 UTC)", level="ok"
    )
    assert found["Last live test"] == Fact(
        "Last live test",
        "gpu_slow: the GPU trains, but not clearly faster than the CPU; GPU 1,000 samples/s, "
        "CPU 900 samples/s, 1.1x the CPU (2026-05-01 10:00 UTC)",
        level="warning",
    )
    packages = table(sub, "Packages that matter for GPU frameworks")
    assert [texts(row) for row in packages.rows] == [["numpy", "2.1.0"], ["torch", "2.5.1+cu124"]]
    assert paragraphs(sub) == [("What its interpreter reports now:", "")]
    (raw,) = [block for block in sub.blocks if isinstance(block, Raw)]
    assert raw.summary == "What the interpreter of demo reported (env_report probe)"
    assert json.loads(raw.text)["cuda_build"] == "12.4"


def test_an_environment_whose_folder_is_missing():
    gone = env(
        "gone",
        folder_exists=False,
        interpreter_exists=False,
        probed=False,  # as with --no-probe: not run, and no need to say so, as its finding does
        probe=None,
        packages=None,
        findings=[finding("error", "PYTHON_NOT_FOUND")],
    )
    view = support_view(document(environments=[gone]))
    sub = subsection(view, "env-gone")
    assert facts(sub)["Folder"].marks == (Mark("missing", "error"),)
    assert facts(sub)["Interpreter"].marks == (Mark("missing", "error"),)
    assert paragraphs(sub) == []  # nothing from an interpreter that is not there; its finding says so
    assert not [block for block in sub.blocks if isinstance(block, (Table, Raw))]
    (own,) = [block for block in sub.blocks if isinstance(block, Findings)]
    assert [(item.code, item.where) for item in own.items] == [("PYTHON_NOT_FOUND", "environment gone")]
    assert summary_fact(view, "Environments") == Fact(
        "Environments", "1: gone (not tested; PYTHON_NOT_FOUND)", level="error"
    )
    assert view.summary.level == "error"


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        ({"probed": False, "probe": None}, [("Its interpreter was not run (--no-probe).", "")]),
        (
            {"probe": None, "probe_error": "timed out after 60 s"},
            [("Its interpreter did not answer: timed out after 60 s", "error")],
        ),
        ({"probe": None}, []),
        (
            {"probe": {"ok": False, "error": "ImportError: libcudnn.so.9"}},
            [("The framework does not import: ImportError: libcudnn.so.9", "error")],
        ),
        ({"probe": {"ok": False}}, [("The framework does not import: unknown error", "error")]),
    ],
)
def test_what_an_environment_says_when_its_interpreter_does_not_report(
    changes: dict[str, Any], said: list[tuple[str, str]]
):
    sub = subsection(support_view(document(environments=[env("demo", **changes)])), "env-demo")
    assert paragraphs(sub) == said
    assert "Built with CUDA" not in facts(sub)


def test_a_traceback_and_import_warnings_are_raw_text():
    broken = env("broken", probe={"ok": False, "error": "boom", "traceback": "Traceback...\nboom"})
    warned = env("warned", probe={**env()["probe"], "warnings": ["UserWarning: old", "UserWarning: slow"]})
    view = support_view(document(environments=[broken, warned]))
    raws = [block for block in subsection(view, "env-broken").blocks if isinstance(block, Raw)]
    assert (raws[0].summary, raws[0].text) == ("Traceback", "Traceback...\nboom")
    raws = [block for block in subsection(view, "env-warned").blocks if isinstance(block, Raw)]
    assert (raws[0].summary, raws[0].text) == (
        "2 warnings while importing",
        "UserWarning: old\nUserWarning: slow",
    )
    one = env("one", probe={**env()["probe"], "warnings": ["UserWarning: old"]})
    raws = [block for block in subsection(support_view(document(environments=[one])), "env-one").blocks if isinstance(block, Raw)]  # fmt: skip
    assert raws[0].summary == "1 warning while importing"  # English plurals (issue 37, point 8)


def test_a_cpu_build_that_sees_no_gpu_is_a_warning_only_where_the_machine_has_one():
    cpu_probe = {"ok": True, "framework_version": "2.5.1+cpu", "built_with_cuda": False, "gpus": []}
    on_gpu = facts(subsection(support_view(document(environments=[env(probe=cpu_probe)])), "env-demo"))
    assert on_gpu["Built with CUDA"] == Fact("Built with CUDA", "no (a CPU build)", code=False)
    assert on_gpu["GPU code in the build"].value == "—"
    assert on_gpu["GPUs the framework sees"] == Fact("GPUs the framework sees", "none", level="warning")
    view = support_view(document(system=no_gpu_system(), environments=[env(probe=cpu_probe)]))
    assert facts(subsection(view, "env-demo"))["GPUs the framework sees"].level == ""


def test_a_report_with_no_environments_and_no_tests():
    view = support_view(document())
    assert summary_fact(view, "Environments") == Fact("Environments", "none made by the wizard")
    assert summary_fact(view, "Last live test") == Fact("Last live test", "none recorded")
    assert section(view, "environments").blocks == (
        Paragraph("The wizard has made no environment on this machine (gpuwizard env create)."),
    )
    tests = table(section(view, "tests"), "Live tests, newest first")
    assert (tests.rows, tests.empty) == ((), "No live test was recorded.")
    assert section(view, "last-good").blocks == (
        Paragraph("None recorded yet: it is recorded when a live test passes."),
    )
    assert view.findings == ()
    assert (view.summary.level, view.summary.headline) == ("ok", "No problems found.")


def test_the_tests_section_newest_first_with_rates_and_a_short_mark():
    tests = [
        recorded_test("demo", "gpu_ok", "2026-05-01T10:00:00+00:00", short=True,
                      result={"verdict": "gpu_ok", "framework_version": "2.5.1+cu124", "device": "cuda",
                              "samples_per_s": {"gpu": 12345.6, "cpu": 900.0}, "speedup": 13.7, "seconds": 41.5}),
        recorded_test(None, "cpu_only", "2026-05-03T10:00:00+00:00"),
    ]  # fmt: skip
    table_ = table(section(support_view(document(tests=tests)), "tests"), "Live tests, newest first")
    assert table_.columns == ("Environment", "When", "Verdict", "Build", "Device", "GPU samples/s",
                              "CPU samples/s", "Speed-up", "Seconds")  # fmt: skip
    newest, older = table_.rows
    assert texts(newest) == ["/usr/bin/python3", "2026-05-03 10:00 UTC", "cpu_only", *["—"] * 6]
    assert newest[0].code and newest[2].level == "warning" and newest[2].marks == ()
    assert texts(older) == [
        "demo", "2026-05-01 10:00 UTC", "gpu_ok", "2.5.1+cu124", "cuda", "12,346", "900", "13.7x", "41.5",
    ]  # fmt: skip
    assert not older[0].code
    assert (older[2].level, older[2].marks) == ("ok", (Mark("short"),))


def test_the_last_good_section():
    snapshot = {
        "schema": "gpuwizard.snapshot/1",
        "recorded": "2026-04-02T08:00:00+00:00",
        "driver_version": "550.54",
        "driver_cuda_max": "12.4",
        "gpus": [{"name": RTX}, {"name": "NVIDIA A100"}],
        "environments": [{"name": "demo", "framework_build": "2.5.1+cu124", "test_verdict": "gpu_ok",
                          "samples_per_s": {"gpu": 5000.0, "cpu": 800}, "tested": "2026-04-02T07:59:00+00:00"}],
        "path_entries": [{"registry": "live", "scope": "user", "folder": "C:\\cuda\\v12.4\\bin"}],
    }  # fmt: skip
    good = section(support_view(document(last_good=snapshot)), "last-good")
    assert {label: fact.value for label, fact in facts(good).items()} == {
        "Recorded": "2026-04-02 08:00 UTC",
        "Driver": "550.54, supports CUDA up to 12.4",
        "GPUs": f"{RTX}, NVIDIA A100",
    }
    assert [texts(row) for row in table(good, "Environments in the last good state").rows] == [
        ["demo", "2.5.1+cu124", "gpu_ok", "5,000", "800", "2026-04-02 07:59 UTC"]
    ]
    assert [texts(row) for row in table(good, "PATH folders the wizard added").rows] == [
        ["live", "user", "C:\\cuda\\v12.4\\bin"]
    ]
    no_driver = section(support_view(document(last_good={**snapshot, "driver_version": None})), "last-good")
    assert facts(no_driver)["Driver"].value == "none"
    no_limit = section(support_view(document(last_good={**snapshot, "driver_cuda_max": None})), "last-good")
    assert facts(no_limit)["Driver"].value == "550.54, supports CUDA up to unknown"


def test_path_entries_with_problems_are_marked():
    path = {
        "registry": "file:registry.json",
        "note": "Read from a registry snapshot.",
        "findings": [],
        "scopes": [
            {"scope": "system", "type": "REG_EXPAND_SZ", "length": 120, "entries": [
                {"index": 0, "segment": "C:\\cuda\\v12.4\\bin", "problems": [], "cuda_version": "12.4"},
                {"index": 1, "segment": "C:\\gone", "problems": ["missing"], "cuda_version": None},
                {"index": 2, "segment": "C:\\cuda\\v11.8\\bin", "problems": ["duplicate", "other_cuda_first"],
                 "cuda_version": "11.8"},
                {"index": 3, "segment": "", "problems": ["empty"]},
                {"index": 4, "segment": "%X%", "problems": ["reg_sz_with_vars", "new_problem"]},
            ]},
            {"scope": "user", "type": None, "entries": []},
        ],
        "journal": [
            {"id": "j1", "time": "2026-04-01T09:00:00+00:00", "scope": "user", "action": "add",
             "folders": ["C:\\cuda\\v12.4\\bin"], "old": {"type": "REG_SZ"}, "new": {"type": "REG_EXPAND_SZ"},
             "status": "applied"},
            {"id": "j2", "time": "2026-04-01T09:05:00+00:00", "scope": "user", "action": "undo", "reverts": "j1",
             "old": None, "status": "applied"},
        ],
        "process": {"entries": [
            {"index": 0, "entry": "/usr/local/cuda/bin", "exists": True, "cuda": True, "cuda_version": None,
             "duplicate": False},
            {"index": 1, "entry": "/nowhere", "exists": False, "cuda": False, "cuda_version": None,
             "duplicate": True},
        ]},
    }  # fmt: skip
    path_section = section(support_view(document(path=path)), "path")
    assert paragraphs(path_section) == [("Read from a registry snapshot.", "")]
    system_path = table(path_section, "System PATH (REG_EXPAND_SZ, 120 characters)")
    assert [(texts(row)[:2], row[2].marks) for row in system_path.rows] == [
        (["0", "C:\\cuda\\v12.4\\bin"], (Mark("CUDA 12.4"),)),
        (["1", "C:\\gone"], (Mark("missing folder", "error"),)),
        (["2", "C:\\cuda\\v11.8\\bin"], (Mark("duplicate", "warning"),
                                          Mark("another CUDA version comes first", "warning"), Mark("CUDA 11.8"))),
        (["3", "(empty)"], (Mark("empty entry", "warning"),)),
        (["4", "%X%"], (Mark("%VARS% in a REG_SZ value (never expanded)", "warning"),
                        Mark("new_problem", "warning"))),
    ]  # fmt: skip
    user_path = table(path_section, "User PATH (no value, 0 characters)")
    assert (user_path.rows, user_path.empty) == ((), "This PATH is empty.")
    journal = table(path_section, "PATH changes the wizard made (journal), oldest first")
    assert [texts(row) for row in journal.rows] == [
        ["2026-04-01 09:00 UTC", "user", "add", "C:\\cuda\\v12.4\\bin", "REG_SZ → REG_EXPAND_SZ", "undone"],
        ["2026-04-01 09:05 UTC", "user", "undo", "—", "none → none", "applied"],
    ]
    process = table(path_section, "PATH of the wizard's own process (what programs started like it see)")
    assert [(texts(row)[:2], row[2].marks) for row in process.rows] == [
        (["0", "/usr/local/cuda/bin"], (Mark("CUDA"),)),
        (["1", "/nowhere"], (Mark("missing folder", "error"), Mark("duplicate", "warning"))),
    ]


def test_without_a_registry_the_path_section_has_no_journal():
    path_section = section(support_view(document()), "path")
    assert [block.caption for block in path_section.blocks if isinstance(block, Table)] == [
        "PATH of the wizard's own process (what programs started like it see)"
    ]


def test_the_variables_section():
    variables = {"CUDA_VISIBLE_DEVICES": "0", "LD_LIBRARY_PATH": "/usr/local/cuda/lib64"}
    set_ = table(
        section(support_view(document(variables=variables)), "variables"), "Set in the wizard's process"
    )
    assert set_.rows == (
        (Cell("CUDA_VISIBLE_DEVICES", code=True), Cell("0", code=True)),
        (Cell("LD_LIBRARY_PATH", code=True), Cell("/usr/local/cuda/lib64", code=True)),
    )
    none_set = table(section(support_view(document()), "variables"), "Set in the wizard's process")
    assert (none_set.rows, none_set.empty) == (
        (),
        "None of the variables that change what GPU frameworks find is set.",
    )


# --- missing and malformed parts ----------------------------------------------------------------


def test_an_empty_document_still_reads():
    view = support_view({})
    assert (view.generated, view.wizard_version, view.redaction) == ("—", "", ("Nothing was redacted.",))
    assert summary_fact(view, "GPU") == Fact("GPU", "none found", level="warning")
    assert summary_fact(view, "Driver").value == "no NVIDIA driver answered"
    assert [s.anchor for s in view.sections] == [
        "machine",
        "environments",
        "tests",
        "last-good",
        "path",
        "variables",
    ]
    assert facts(section(view, "machine"))["Operating system"].value == "unknown  ()"
    (raw,) = [block for block in section(view, "machine").blocks if isinstance(block, Raw)]
    assert json.loads(raw.text) == {}


def test_malformed_optional_parts_are_skipped_not_fatal():
    odd_env = env(
        "odd",
        findings=["not a finding"],
        packages="not a list",
        variables="not a mapping",
        probe="not a mapping",
        last_good="not a mapping",
        last_test={"recorded": "2026-05-01T10:00:00+00:00", "result": "not a mapping"},
    )
    bare_env = {"name": "bare"}  # only a name: every other field missing
    view = support_view(
        document(
            generated="yesterday",
            redaction={"counts": {"gpu_uuid": "1", "home_folder": 2}, "rules": None},
            environments=[odd_env, "not an environment", None, bare_env],
            tests=[
                "not a test",
                recorded_test("odd", "gpu_slow", "2026-05-01T10:00:00+00:00",
                              result={"verdict": "gpu_slow", "samples_per_s": None, "speedup": True}),
                {"result": {}},
            ],
            path={"registry": "live", "scopes": ["not a scope", {"scope": "user", "entries": ["x", None]}],
                  "journal": ["not an entry"], "process": {"entries": [7]}},
            last_good={"recorded": None, "gpus": ["x"], "environments": [None, "x"], "path_entries": [3]},
        )
    )  # fmt: skip
    assert view.generated == "yesterday"
    assert view.redaction == ("Replaced before writing: 2 home-folder paths.",)
    assert summary_fact(view, "Environments").value == "2: odd (not tested), bare (not tested)"
    assert summary_fact(view, "Last live test").value == (
        "odd: gpu_slow (the GPU trains, but not clearly faster than the CPU), 2026-05-01 10:00 UTC"
    )
    odd = subsection(view, "env-odd")
    assert "Activation variables" not in facts(odd)
    assert "Last good state" not in facts(odd) and "Last live test" not in facts(odd)
    assert not [block for block in odd.blocks if isinstance(block, (Table, Findings, Raw))]
    bare = facts(subsection(view, "env-bare"))
    assert (bare["Folder"].value, bare["Folder"].marks, bare["Framework"].value) == ("—", (), "?")
    assert bare["Made with"].value == "—"
    tests = table(section(view, "tests"), "Live tests, newest first").rows
    assert [texts(row)[:3] for row in tests] == [
        ["odd", "2026-05-01 10:00 UTC", "gpu_slow"],
        ["—", "—", "None"],
    ]
    path_section = section(view, "path")
    assert table(path_section, "User PATH (no value, 0 characters)").rows == ()
    assert table(path_section, "PATH changes the wizard made (journal), oldest first").rows == ()
    good = section(view, "last-good")
    assert facts(good)["GPUs"].value == "none"
    assert facts(good)["Driver"].value == "none"
    assert table(good, "Environments in the last good state").rows == ()
    assert table(good, "PATH folders the wizard added").rows == ()


def test_an_amd_gpu_is_named_with_its_target_and_driver():
    amd = {
        "index": 0, "vendor": "amd", "name": "AMD Radeon RX 7900 XTX", "status": "ok",
        "gfx_target": "gfx1100", "kernel_driver": "amdgpu", "pci_id": "1002:744c",
    }  # fmt: skip
    view = support_view(document(system=system(driver=None, gpus=[amd])))
    assert summary_fact(view, "GPU") == Fact(
        "GPU", "no NVIDIA GPU; AMD Radeon RX 7900 XTX, gfx1100, kernel driver amdgpu", level=""
    )
    (row,) = table(section(view, "machine"), "GPUs").rows
    assert texts(row)[-2:] == ["gfx1100", "amdgpu"]
