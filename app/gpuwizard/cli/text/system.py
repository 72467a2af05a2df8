"""The system report as readable text for a terminal (``gpuwizard detect``).

Presentation only: the report is data from :mod:`gpuwizard.core.machine.system_report`; this module
lays it out in aligned sections and wraps hints to the terminal's width.
"""

from __future__ import annotations

from collections.abc import Sequence

from gpuwizard.cli.text.findings import finding_lines
from gpuwizard.core.machine.system_report import SystemReport, display_name

_LABEL_WIDTH = 12


def render_report(report: SystemReport, width: int = 100) -> str:
    """Render ``report`` as text no wider than ``width`` (except long paths)."""
    lines: list[str] = [
        f"GPU Setup Wizard {report.wizard_version or ''} - machine report".replace("  ", " "),
        "",
    ]
    os_info = report.os
    machine = f"{os_info.distribution or os_info.family} ({os_info.family} {os_info.release}, {os_info.arch})"
    extras = [f"WSL {os_info.wsl_version}" if os_info.wsl else "", "container" if os_info.container else ""]
    machine += "".join(f", {extra}" for extra in extras if extra)
    lines.append(_field("Machine", machine))
    if report.driver:
        cuda = report.driver.cuda_max or "unknown"
        lines.append(_field("Driver", f"NVIDIA {report.driver.version} (from {report.driver.source})"))
        lines.append(_field("", f"supports CUDA up to {cuda} (the driver's limit, not an installed toolkit)"))
    else:
        lines.append(_field("Driver", "no NVIDIA driver answered"))
    lines.append("")

    lines.append("GPUs")
    gpu_rows = [
        [
            str(gpu.index),
            display_name(gpu),
            gpu.vendor,
            gpu.architecture or "-",
            f"{gpu.memory_total_mib / 1024:.1f} GiB" if gpu.memory_total_mib is not None else "-",
            gpu.pci_bus_id or "-",
            gpu.status,
        ]
        for gpu in report.gpus
    ]
    lines += _table(["#", "Name", "Vendor", "Compute", "Memory", "PCI bus", "Status"], gpu_rows, "none found")
    for gpu in report.gpus:
        if gpu.driver_version:
            lines.append(
                f"  #{gpu.index} driver {gpu.driver_version} (from {gpu.driver_version_source or '?'})"
            )
    for runtime in report.gpu_runtimes:
        usable = {True: "usable", False: f"not usable: {runtime.detail or '?'}", None: "access unknown"}
        where = f" in {runtime.location}" if runtime.location else ""
        lines.append(
            f"  {runtime.name} {runtime.version or '(version unknown)'}{where}"
            f" (from {runtime.source}; {usable[runtime.usable]})"
        )
    lines.append("")

    lines.append("CUDA toolkits on disk")
    kit_rows = [
        [
            kit.version or "?",
            _rank(kit.path_rank) if kit.on_path else "no",
            kit.root,
            f"{kit.version_source or '-'}; found by {', '.join(kit.found_by) or '-'}",
        ]
        for kit in report.cuda_toolkits
    ]
    lines += _table(["Version", "On PATH", "Folder", "Source"], kit_rows, "none found")
    lines.append("")

    lines.append("cuDNN")
    dnn_rows = [
        [dnn.version or "?", "yes" if dnn.on_path else "no", dnn.location, dnn.version_source or "-"]
        for dnn in report.cudnn
    ]
    lines += _table(["Version", "Loadable", "Folder", "Source"], dnn_rows, "none found")
    lines.append("")

    if report.python:
        python = report.python
        bits = f"{python.bits}-bit" if python.bits else "?-bit"
        lines.append(_field("Python", f"{python.version} {bits}  {python.executable}"))
    else:
        lines.append(_field("Python", "none found"))
    others = [
        p for p in report.interpreters if report.python is None or p.executable != report.python.executable
    ]
    for python in others:
        lines.append(_field("", f"{python.version:<8} {python.executable}  ({python.source})"))
    lines.append(
        _field(
            "Managers", ", ".join(f"{name} {path}" for name, path in report.managers.found()) or "none found"
        )
    )
    if os_info.family == "windows":
        state = {True: "on", False: "off", None: "unknown"}[report.long_paths_enabled]
        lines.append(_field("Long paths", state))
    lines.append("")

    lines.append("Findings")
    if not report.findings:
        lines.append("  nothing to report")
    for finding in report.findings:
        lines += finding_lines(finding, width)
    return "\n".join(lines) + "\n"


def _field(label: str, value: str) -> str:
    return f"{label:<{_LABEL_WIDTH}}{value}"


def _rank(rank: int | None) -> str:
    if rank is None:
        return "yes"
    return "yes, first" if rank == 0 else f"yes, #{rank + 1}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]], empty: str) -> list[str]:
    if not rows:
        return [f"  {empty}"]
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  " + "  ".join(cell.ljust(widths[i]) for i, cell in enumerate(row)).rstrip()
        for row in [header, *rows]
    ]
