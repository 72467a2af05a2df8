"""``verify --prometheus FILE``: a verification as metrics in Prometheus' text exposition format.

node_exporter's and windows_exporter's textfile collectors read every ``*.prom`` file in their
folder at each scrape (prometheus.io/docs/instrumenting/exposition_formats/, "Text-based
format"). :func:`verify_metrics` turns one run into typed :class:`MetricFamily` values and
:func:`exposition` writes them as that text; ``workflow/health/metrics.py`` writes the file.

Written here rather than with ``prometheus_client``: the format is a few lines of text, and the
client would be a new runtime dependency of the wizard (and of its frozen Windows build) for
them. Its textfile writer also does not flush to the disk before the rename; the wizard's own
atomic writer does (``adapters/atomic_files.py``). The tests read the files back with
``prometheus_client``'s parser.

Every metric is a gauge, named ``gpuwizard_...`` with its unit in the name (prometheus.io/docs/
practices/naming/); the list, with labels and meanings, is in docs/architecture.md, "Metrics for
Prometheus". A value that is not known is left out, never written as NaN.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Final

from gpuwizard.core.health.events import VerifyResult, VerifyStatus
from gpuwizard.core.health.snapshot import Snapshot, snapshot_gpus
from gpuwizard.core.livetest.events import LiveTestResult
from gpuwizard.core.machine.system_report import SystemReport

#: How a verification can end: one sample each, 1 for the run's own (a state set).
STATUSES: Final[tuple[VerifyStatus, ...]] = ("complete", "cancelled", "nothing_to_verify")


#: A sample's labels: (name, value), in order.
Labels = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Sample:
    """One sample: its labels, in order, and its value."""

    labels: Labels
    value: float


@dataclass(frozen=True)
class MetricFamily:
    """A gauge: its name, its help text and its samples."""

    name: str
    help: str
    samples: tuple[Sample, ...]


def verify_metrics(
    result: VerifyResult,
    *,
    machine: SystemReport | None,
    last_good: Snapshot | None,
    tests: Mapping[str, LiveTestResult],
    finished_s: float,
    duration_s: float,
) -> tuple[MetricFamily, ...]:
    """The metrics of one verification.

    Args:
        result: Its result (the ``gpuwizard.health/1`` report and how it ended).
        machine: The machine as it detected it (None: nothing was detected).
        last_good: The last good state after the run: the one it recorded, else the one it
            compared with (None: there is none).
        tests: This run's short live tests, by environment.
        finished_s: When it finished, in seconds since the Unix epoch.
        duration_s: How long it took.
    """
    families = [
        _gauge(
            "gpuwizard_healthy",
            "1 when the last gpuwizard verify found the setup healthy, else 0 (also when it was "
            "cancelled or there was nothing to verify).",
            [((), 1.0 if result.healthy and result.status == "complete" else 0.0)],
        ),
        _gauge(
            "gpuwizard_verify_status",
            "How the last gpuwizard verify ended: 1 for its status, 0 for the others.",
            [((("status", status),), 1.0 if result.status == status else 0.0) for status in STATUSES],
        ),
        _gauge(
            "gpuwizard_check_ok",
            "1 when a check of the last gpuwizard verify passed (ok or changed), 0 when it is "
            "broken; skipped checks are left out.",
            _check_samples(result),
        ),
    ]
    if machine is not None:
        driver = machine.driver
        if driver is not None:
            labels = (
                ("driver_version", driver.version),
                ("driver_cuda_max", driver.cuda_max or ""),
                ("vendor", "nvidia"),
            )
            families.append(
                _gauge(
                    "gpuwizard_driver_info",
                    "The NVIDIA driver gpuwizard verify detected (always 1).",
                    [(labels, 1.0)],
                )
            )
        families.append(
            _gauge(
                "gpuwizard_gpus",
                "The usable GPUs gpuwizard verify detected (NVIDIA GPUs a driver serves, and other "
                "vendors' GPUs the OS lists).",
                [((), float(len(snapshot_gpus(machine))))],
            )
        )
    recorded = _epoch_seconds(last_good.recorded) if last_good is not None else None
    if recorded is not None:
        families.append(
            _gauge(
                "gpuwizard_last_good_timestamp_seconds",
                "When the last good state was recorded, in seconds since the Unix epoch.",
                [((), recorded)],
            )
        )
    families += [
        _gauge(
            "gpuwizard_verify_timestamp_seconds",
            "When the last gpuwizard verify finished, in seconds since the Unix epoch.",
            [((), finished_s)],
        ),
        _gauge(
            "gpuwizard_verify_duration_seconds",
            "How long the last gpuwizard verify took.",
            [((), duration_s)],
        ),
        _gauge(
            "gpuwizard_live_test_speedup_ratio",
            "The last live test's training speed on the GPU over that on the CPU, per environment "
            "(this run's short test, else the one the last good state recorded).",
            [((("environment", name),), ratio) for name, ratio in _speedups(last_good, tests).items()],
        ),
    ]
    return tuple(family for family in families if family.samples)


def exposition(families: Sequence[MetricFamily]) -> str:
    r"""The families as Prometheus text: ``# HELP``, ``# TYPE gauge``, then a line per sample.

    >>> print(exposition([MetricFamily("a_b", "A \\ b.", (Sample((("l", 'x"y'),), 1.0),))]), end="")
    # HELP a_b A \\ b.
    # TYPE a_b gauge
    a_b{l="x\"y"} 1
    """
    lines: list[str] = []
    for family in families:
        lines.append(f"# HELP {family.name} {_escape_help(family.help)}")
        lines.append(f"# TYPE {family.name} gauge")
        for sample in family.samples:
            labels = ",".join(f'{name}="{_escape_label(value)}"' for name, value in sample.labels)
            series = f"{family.name}{{{labels}}}" if labels else family.name
            lines.append(f"{series} {_number(sample.value)}")
    return "".join(f"{line}\n" for line in lines)


def _gauge(name: str, help_text: str, samples: Sequence[tuple[Labels, float]]) -> MetricFamily:
    # A value that is not finite is not known: left out, never written as NaN or Inf.
    return MetricFamily(
        name, help_text, tuple(Sample(labels, value) for labels, value in samples if math.isfinite(value))
    )


def _check_samples(result: VerifyResult) -> list[tuple[Labels, float]]:
    samples: list[tuple[Labels, float]] = []
    seen: set[str] = set()
    for check in result.checks:
        if check.status == "skipped" or check.check_id in seen:
            continue  # nothing was compared; one sample per check, as the exposition format needs
        seen.add(check.check_id)
        environment = check.subject if check.check_id.startswith("env:") else ""
        labels = (("check", check.check_id), ("environment", environment))
        samples.append((labels, 0.0 if check.status == "broken" else 1.0))
    return samples


def _speedups(last_good: Snapshot | None, tests: Mapping[str, LiveTestResult]) -> dict[str, float]:
    """GPU over CPU samples/s per environment: this run's test where one ran, else the recorded one."""
    ratios: dict[str, float] = {}
    for env in last_good.environments if last_good is not None else ():
        rates = env.samples_per_s or {}
        gpu, cpu = rates.get("gpu"), rates.get("cpu")
        if gpu and cpu and gpu > 0 and cpu > 0:
            ratios[env.name] = gpu / cpu
    for name, test in tests.items():
        ratios.pop(name, None)  # this run's test is the last one, whether or not it trained on a GPU
        if test.speedup is not None and test.speedup > 0:
            ratios[name] = float(test.speedup)
    return ratios


def _epoch_seconds(moment: str) -> float | None:
    """An ISO 8601 time (``2026-01-05T10:00:00+00:00``; without a zone: UTC) as Unix seconds."""
    try:
        parsed = datetime.fromisoformat(moment)
    except ValueError:
        return None
    if parsed.tzinfo is None:
        parsed = parsed.replace(tzinfo=timezone.utc)
    return parsed.timestamp()


def _number(value: float) -> str:
    """A sample value as Prometheus reads it: whole numbers without a fraction, others as Python's repr.

    >>> _number(1.0), _number(1732000000.0), _number(0.25)
    ('1', '1732000000', '0.25')
    """
    return str(int(value)) if value.is_integer() and abs(value) < 2**53 else repr(value)


def _escape_label(value: str) -> str:
    r"""A label value escaped as the format asks: backslash, double quote and line feed.

    >>> _escape_label('C:\\CUDA "x"\n')
    'C:\\\\CUDA \\"x\\"\\n'
    """
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _escape_help(text: str) -> str:
    """A help text escaped as the format asks: backslash and line feed."""
    return text.replace("\\", "\\\\").replace("\n", "\\n")
