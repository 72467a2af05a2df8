"""The machine, PATH and environment variables sections of the support view (pure).

What detection found (the operating system, Python, the driver, the GPUs, the CUDA toolkits and
cuDNN on disk, the environment managers and interpreters), then PATH as the registry holds it
and as the wizard's own process sees it, each entry marked with its problems, the PATH changes
the wizard made, and the variables that change what GPU frameworks find.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final

from gpuwizard.core.machine.system_report import SystemReport, display_name
from gpuwizard.core.support.blocks import (
    Block,
    Cell,
    Fact,
    Facts,
    Mark,
    Paragraph,
    Section,
    Table,
    code_cell,
    raw_json,
    value_text,
    when_text,
)

#: What an entry's problem names (core/pathedit/algebra.py, workflow/pathedit/request.py) mean.
PATH_PROBLEM_WORDS: Final = {
    "missing": "missing folder",
    "duplicate": "duplicate",
    "other_cuda_first": "another CUDA version comes first",
    "empty": "empty entry",
    "reg_sz_with_vars": "%VARS% in a REG_SZ value (never expanded)",
}
_FAMILY_NAMES: Final = {"windows": "Windows", "linux": "Linux", "darwin": "macOS"}


def memory_text(mib: int | None) -> str:
    """GPU memory in whole GiB ("" when unknown).

    >>> memory_text(8192), memory_text(81559), memory_text(None)
    ('8 GiB', '80 GiB', '')
    """
    return f"{mib / 1024:.0f} GiB" if mib is not None else ""


# --- the machine --------------------------------------------------------------------------------


def machine_section(report: SystemReport, system: Mapping[str, Any]) -> Section:
    """What detection found, as facts and tables, then the system report itself as raw JSON."""
    os_facts = report.os
    family = _FAMILY_NAMES.get(os_facts.family, os_facts.family)
    os_text = (
        f"{os_facts.distribution} ({family} {os_facts.release}, {os_facts.arch})"
        if os_facts.distribution
        else f"{family} {os_facts.release} ({os_facts.arch})"
    )
    extras = [
        f"WSL {os_facts.wsl_version or ''}".strip() if os_facts.wsl else "",
        "container" if os_facts.container else "",
    ]
    os_text += "".join(f", {extra}" for extra in extras if extra)
    facts = [Fact("Operating system", os_text)]
    if report.python is not None:
        bits = f", {report.python.bits}-bit" if report.python.bits else ""
        facts.append(Fact("Python", f"{report.python.version}{bits}"))
        facts.append(Fact("Python executable", report.python.executable, code=True))
    driver = report.driver
    if driver is not None:
        facts.append(Fact("NVIDIA driver", driver.version, code=True, marks=(Mark(f"from {driver.source}"),)))
        facts.append(
            Fact(
                "Highest CUDA the driver supports",
                driver.cuda_max or "unknown",
                code=True,
                marks=(Mark("the driver's limit, not an installed toolkit"),),
            )
        )
    else:
        facts.append(Fact("NVIDIA driver", "none answered", level="error" if report.nvidia_gpus else ""))
    if report.long_paths_enabled is not None:
        facts.append(Fact("Windows long paths", "enabled" if report.long_paths_enabled else "disabled"))
    if report.wizard_version:
        facts.append(Fact("Detected by", f"gpuwizard {report.wizard_version}"))
    gpus = Table(
        "GPUs",
        ("#", "Name", "Vendor", "Compute capability", "Memory", "PCI bus", "Status", "Target", "Driver"),
        tuple(
            (
                Cell(str(gpu.index)),
                Cell(display_name(gpu)),
                Cell(gpu.vendor),
                code_cell(gpu.compute_capability),
                Cell(memory_text(gpu.memory_total_mib) or "—"),
                code_cell(gpu.pci_bus_id),
                Cell(gpu.status, level="ok" if gpu.status == "ok" else "error"),
                code_cell(gpu.gfx_target),
                code_cell(gpu.driver_version or gpu.kernel_driver),
            )
            for gpu in report.gpus
        ),
        empty="No GPU was found.",
    )
    toolkits = Table(
        "CUDA toolkits on disk",
        ("Version", "On PATH", "Folder", "Version from", "Found by"),
        tuple(
            (
                code_cell(kit.version, "?"),
                Cell(
                    ("first" if kit.path_rank == 0 else f"#{(kit.path_rank or 0) + 1}")
                    if kit.on_path
                    else "no",
                    level="ok" if kit.path_rank == 0 else "",
                ),
                code_cell(kit.root),
                Cell(value_text(kit.version_source)),
                Cell(", ".join(kit.found_by) or "—"),
            )
            for kit in report.cuda_toolkits
        ),
        empty="No CUDA toolkit on disk (pip and conda builds of the frameworks bring their own CUDA).",
    )
    cudnn = Table(
        "cuDNN on disk",
        ("Version", "On the library path", "Folder", "Version from"),
        tuple(
            (
                code_cell(dnn.version, "?"),
                Cell(value_text(dnn.on_path)),
                code_cell(dnn.location),
                Cell(value_text(dnn.version_source)),
            )
            for dnn in report.cudnn
        ),
        empty="No cuDNN found outside the frameworks' own wheels.",
    )
    managers = Table(
        "Environment managers",
        ("Manager", "Executable"),
        tuple((Cell(name), code_cell(where)) for name, where in report.managers.found()),
        empty="None found besides Python's own venv.",
    )
    interpreters = Table(
        "Python interpreters",
        ("Version", "Bits", "Found by", "Executable"),
        tuple(
            (
                code_cell(python.version),
                Cell(value_text(python.bits)),
                Cell(python.source + (", Microsoft Store" if python.ms_store else "")),
                code_cell(python.executable),
            )
            for python in report.interpreters
        ),
        empty="No other interpreter was found.",
    )
    return Section(
        "machine",
        "This machine",
        (
            Facts(tuple(facts)),
            gpus,
            toolkits,
            cudnn,
            managers,
            interpreters,
            raw_json("The system report as detected (gpuwizard.system/1)", dict(system)),
        ),
    )


# --- PATH and variables -------------------------------------------------------------------------


def _entry_marks(problems: Iterable[object], cuda_version: object, cuda: bool = False) -> tuple[Mark, ...]:
    marks = [
        Mark(
            PATH_PROBLEM_WORDS.get(str(problem), str(problem)), "warning" if problem != "missing" else "error"
        )
        for problem in problems
    ]
    if cuda_version:
        marks.append(Mark(f"CUDA {cuda_version}"))
    elif cuda:
        marks.append(Mark("CUDA"))
    return tuple(marks)


def path_section(path: Mapping[str, Any]) -> Section:
    """PATH in the registry (each scope, entries marked), the wizard's journal, and the process's PATH."""
    blocks: list[Block] = []
    if path.get("note"):
        blocks.append(Paragraph(str(path["note"])))
    for scope in path.get("scopes") or []:
        if not isinstance(scope, Mapping):
            continue
        kind = scope.get("type") or "no value"
        title = f"{str(scope.get('scope')).capitalize()} PATH ({kind}, {scope.get('length', 0)} characters)"
        rows = tuple(
            (
                Cell(str(entry.get("index"))),
                Cell(str(entry.get("segment")) or "(empty)", code=True),
                Cell("", marks=_entry_marks(entry.get("problems") or [], entry.get("cuda_version"))),
            )
            for entry in scope.get("entries") or []
            if isinstance(entry, Mapping)
        )
        blocks.append(Table(title, ("#", "Entry", "Marks"), rows, empty="This PATH is empty."))
    journal = [entry for entry in path.get("journal") or [] if isinstance(entry, Mapping)]
    if path.get("registry"):
        reverted = {entry.get("reverts") for entry in journal if entry.get("reverts")}
        blocks.append(
            Table(
                "PATH changes the wizard made (journal), oldest first",
                ("When", "Scope", "Action", "Folders", "Type before → after", "State"),
                tuple(
                    (
                        Cell(when_text(entry.get("time"))),
                        Cell(value_text(entry.get("scope"))),
                        Cell(value_text(entry.get("action"))),
                        Cell(", ".join(str(f) for f in entry.get("folders") or []) or "—", code=True),
                        Cell(f"{_value_type(entry.get('old'))} → {_value_type(entry.get('new'))}"),
                        Cell("undone" if entry.get("id") in reverted else value_text(entry.get("status"))),
                    )
                    for entry in journal
                ),
                empty="The wizard has not changed this PATH.",
            )
        )
    process = path.get("process") or {}
    rows = tuple(
        (
            Cell(str(entry.get("index"))),
            Cell(str(entry.get("entry")), code=True),
            Cell(
                "",
                marks=_entry_marks(
                    [
                        p
                        for p, on in (
                            ("missing", entry.get("exists") is False),
                            ("duplicate", entry.get("duplicate")),
                        )
                        if on
                    ],
                    entry.get("cuda_version"),
                    bool(entry.get("cuda")),
                ),
            ),
        )
        for entry in process.get("entries") or []
        if isinstance(entry, Mapping)
    )
    blocks.append(
        Table(
            "PATH of the wizard's own process (what programs started like it see)",
            ("#", "Entry", "Marks"),
            rows,
        )
    )
    return Section("path", "PATH", tuple(blocks))


def _value_type(value: object) -> str:
    return str(value.get("type")) if isinstance(value, Mapping) else "none"


def variables_section(variables: Mapping[str, Any]) -> Section:
    """The environment variables of the wizard's process that matter to GPU frameworks."""
    table = Table(
        "Set in the wizard's process",
        ("Variable", "Value"),
        tuple((Cell(str(name), code=True), Cell(str(value), code=True)) for name, value in variables.items()),
        empty="None of the variables that change what GPU frameworks find is set.",
    )
    intro = Paragraph(
        "Variables that decide which GPUs a framework sees and where it finds CUDA (CUDA_*, TF_*, "
        "LD_LIBRARY_PATH, NVIDIA_*...) and which interpreter and index it uses; others are left out."
    )
    return Section("variables", "Environment variables", (intro, table))
