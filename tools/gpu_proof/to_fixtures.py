r"""Turn a GPU proof kit run into test fixtures: ``python tools/gpu_proof/to_fixtures.py RUN_DIR --name NAME``.

RUN_DIR is the kit's output folder (tools/gpu_proof/README.md). Three of its files become
recorded material that the tests replay, so the wizard's GPU path is checked in CI against a real
run rather than a hand-made one (tools/gpu_proof/FIXTURES.md says which tests replay what):

- ``nvml.json`` (tools/gpu_proof/nvml_record.py) -> ``tests/fixtures/nvml/NAME.json``, an NVML
  scenario for ``tests/fakes/fake_pynvml.py``; refused (exit 2) when NVML was not available;
- ``test.jsonl`` (``gpuwizard test --json``) -> ``resources/samples/runs/test-torch-NAME.jsonl``,
  beside the other recorded runs, replayed by ``gpuwizard.workflow.wizard.replay``;
- ``detect.json`` (``gpuwizard detect --json``) -> ``tests/fixtures/reports/NAME.json``, a saved
  system report as the recommendation and diagnosis tests read them.

Each gets its source noted where that folder keeps sources: the scenario's ``source`` field,
and a row of the section "Recorded by the GPU proof kit" of ``resources/samples/runs/README.md``
and ``tests/fixtures/reports/README.md`` (date, GPUs, driver, torch version, verdict).

What identifies a person or a card is masked on the way, as the repository's recorded material
is (tests/fixtures/recorded/diagnose/SOURCES.md: "the user folder ... replaced by ``<user>``"):
user names in home paths (``/home/NAME``, ``/Users/NAME``, ``C:\Users\NAME``) become ``<user>``,
and the same names elsewhere as whole words; host names (from the run's ``environment.json`` and
``summary.json`` fields named like ``hostname``, and each ``--mask`` text) become ``<host>``; GPU
UUIDs become ``GPU-00000000-0000-0000-0000-00000000000N`` (numbered, so GPUs stay distinct, in the
form the existing scenarios use); credentials in URLs and access tokens (``hf_…``, ``ghp_…``,
``nvapi-…``) become ``<credentials>`` and ``<token>``.

An existing fixture is never overwritten without ``--replace``; bad input is one line and exit 2,
with nothing written. ``--root`` names the repository (default: the one holding this script).
Standard library only; Python 3.10 or later.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

ROOT: Final = Path(__file__).resolve().parents[2]
NVML_DIR: Final = Path("tests/fixtures/nvml")
REPORTS_DIR: Final = Path("tests/fixtures/reports")
RUNS_DIR: Final = Path("resources/samples/runs")
SAMPLES_DIR: Final = Path("resources/samples")
SECTION: Final = "## Recorded by the GPU proof kit"
#: The name becomes part of three file names: keep it to letters that need no quoting anywhere.
_NAME: Final = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")

USER: Final = "<user>"
HOST: Final = "<host>"
#: Accounts that are no one in particular: hidden as path components, never as words of a sentence
#: (the wizard's own list, app/gpuwizard/core/support/redaction.py GENERIC_ACCOUNTS).
GENERIC_ACCOUNTS: Final = frozenset(
    {"root", "admin", "administrator", "user", "users", "guest", "default", "public", "runner",
     "ubuntu", "debian", "vagrant", "docker", "nobody", "localhost", "system"}
)  # fmt: skip
_HOST_KEYS: Final = re.compile(r"^(?:host|hostname|host_name|node|nodename|computer_?name)$", re.IGNORECASE)
_HOME_PATHS: Final = (
    re.compile(r"(?<![\w.~-])/home/(?P<name>[^/\\\s\"'`:;,|<>]+)"),
    re.compile(r"(?<![\w.~-])/Users/(?P<name>[^/\\\s\"'`:;,|<>]+)"),
    re.compile(r"(?i)(?<![\w])[a-z]:[\\/]+Users[\\/]+(?P<name>[^/\\\s\"'`:;,|<>]+)"),
)
# GPU-<8>-<4>-<4>-<4>-<12> (NVML's nvmlDeviceGetUUID, docs.nvidia.com/deploy/nvml-api), and MIG
# devices' MIG-<uuid> (driver R470 and later, docs.nvidia.com/datacenter/tesla/mig-user-guide).
_UUID: Final = (
    r"(?<![\w-])(?:MIG-GPU-|MIG-|GPU-)[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}(?![\w-])"
)
_URL_LOGIN: Final = r"(?<=://)[^/@\s:\"']+:[^/@\s\"']+@"
# Hugging Face (hf_), GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_) and NVIDIA NGC (nvapi-)
# tokens by their published prefixes.
_TOKEN: Final = (
    r"(?<![\w-])(?:hf_[A-Za-z0-9]{20,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|nvapi-[\w-]{20,})"  # noqa: S105 - a pattern of tokens, not one
)


class Refused(Exception):
    """Bad input: said in one line, exit 2, nothing written."""


@dataclass(frozen=True)
class Fixture:
    """One file to write, relative to the repository root."""

    path: Path
    text: str


class Masker:
    """Replaces, in one pass per string, what identifies a person, a machine or a card.

    Args:
        user_names: Account names seen in home paths.
        host_names: The machine's names.
        keep: Whole strings left as they are: the GPUs' names, which identify no one, and which a
            short host or user name (``h200``, ``nvidia``) must not turn into a placeholder.
    """

    def __init__(
        self, user_names: Iterable[str], host_names: Iterable[str], keep: Iterable[str] = ()
    ) -> None:
        self.keep = frozenset(keep)
        self.users = sorted({name for name in user_names if name and name != USER}, key=len, reverse=True)
        hosts = sorted({name for name in host_names if len(name) >= 2}, key=len, reverse=True)
        self.uuids: dict[str, str] = {}
        parts = [f"(?P<uuid>{_UUID})", f"(?P<login>{_URL_LOGIN})", f"(?P<token>{_TOKEN})"]
        for index, pattern in enumerate(_HOME_PATHS):
            # The home path keeps its form; only the user's folder name goes.
            parts.append(f"(?P<home{index}>{pattern.pattern.replace('(?P<name>', f'(?P<name{index}>')})")
        words = [name for name in self.users if len(name) >= 3 and name.lower() not in GENERIC_ACCOUNTS]
        if words:
            parts.append(r"(?P<word>(?<![\w-])(?:" + "|".join(map(re.escape, words)) + r")(?![\w-]))")
        if hosts:
            parts.append(r"(?P<host>(?<![\w-])(?:" + "|".join(map(re.escape, hosts)) + r")(?![\w-]))")
        self.pattern = re.compile("|".join(part.replace("(?i)", "") for part in parts), re.IGNORECASE)

    #: What a match of each plain kind becomes.
    _PLACEHOLDERS: Final = {"login": "<credentials>@", "token": "<token>", "word": USER, "host": HOST}

    def _replace(self, match: re.Match[str]) -> str:
        kind = match.lastgroup or ""
        text = match.group(0)
        if kind in self._PLACEHOLDERS:
            return self._PLACEHOLDERS[kind]
        if kind == "uuid":
            upper = text.upper()
            prefix = next(form for form in ("MIG-GPU-", "MIG-", "GPU-") if upper.startswith(form))
            number = self.uuids.setdefault(text.lower(), f"{len(self.uuids):012x}")
            return f"{prefix}00000000-0000-0000-0000-{number}"
        for index in range(len(_HOME_PATHS)):
            name = match.group(f"name{index}")
            if name is not None:
                start = match.start(f"name{index}") - match.start(0)
                return text[:start] + USER + text[start + len(name) :]
        return text  # pragma: no cover - every alternative is named above

    def text(self, value: str) -> str:
        """``value`` with every identifying part replaced."""
        if value in self.keep:
            return value
        return self.pattern.sub(self._replace, value)

    def data(self, value: object) -> Any:  # noqa: ANN401 - JSON in, JSON out
        """Every string inside ``value`` (a JSON value) masked; keys and numbers kept."""
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self.data(item) for item in value]
        if isinstance(value, dict):
            return {key: self.data(item) for key, item in value.items()}
        return value


def _strings(value: object) -> Iterable[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _strings(item)


def _host_names(value: object) -> Iterable[str]:
    """Values of fields named like a host name (``hostname``, ``node``...), anywhere in ``value``."""
    if isinstance(value, list):
        for item in value:
            yield from _host_names(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if _HOST_KEYS.match(str(key)) and isinstance(item, str) and item.strip():
                name = item.strip()
                yield name
                yield name.split(".")[0]
            else:
                yield from _host_names(item)


def user_names_in(values: Iterable[Any]) -> set[str]:
    """The account names that home paths inside ``values`` show."""
    names: set[str] = set()
    for value in values:
        for text in _strings(value):
            for pattern in _HOME_PATHS:
                names.update(match.group("name") for match in pattern.finditer(text))
    return names


# --- reading the run ---------------------------------------------------------------------------


def _read_json(path: Path) -> object:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise Refused(f"{path} is missing: is this a GPU proof kit run's folder?") from None
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
        raise Refused(f"{path} cannot be read as JSON: {error}") from None


def _optional_json(path: Path) -> object:
    if not path.is_file():
        return None
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None


def _read_events(path: Path) -> list[dict[str, Any]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise Refused(f"{path} is missing: is this a GPU proof kit run's folder?") from None
    except (OSError, UnicodeDecodeError) as error:
        raise Refused(f"{path} cannot be read: {error}") from None
    events = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            raise Refused(f"{path}, line {number}, is not a JSON event") from None
        if not isinstance(event, dict) or not isinstance(event.get("event"), str):
            raise Refused(f"{path}, line {number}, is not an event (an object with an 'event' name)")
        events.append(event)
    # The replay refuses a recording without its result (gpuwizard.workflow.wizard.replay).
    if not events or events[-1]["event"] != "result":
        raise Refused(f"{path} does not end in a result event: the live test did not finish")
    return events


@dataclass(frozen=True)
class Run:
    """The parts of a kit run that become fixtures, as read."""

    folder: Path
    nvml: dict[str, Any]
    detect: dict[str, Any]
    events: list[dict[str, Any]]
    summary: dict[str, Any]
    environment: Any

    @property
    def result(self) -> dict[str, Any]:
        """The ``result`` event (the last one: :func:`read_run` checks it)."""
        return self.events[-1]


def read_run(folder: Path) -> Run:
    """Read the run folder; refuse a run without NVML, or without its detect report or test events."""
    if not folder.is_dir():
        raise Refused(f"no run folder {folder}")
    nvml = _read_json(folder / "nvml.json")
    if not isinstance(nvml, dict):
        raise Refused(f"{folder / 'nvml.json'} is not an NVML recording (tools/gpu_proof/nvml_record.py)")
    if nvml.get("available") is not True:
        raise Refused(
            f"{folder / 'nvml.json'} says NVML was not available ({nvml.get('error', 'no reason given')}): "
            "there is nothing to record; run the kit on a machine with an NVIDIA GPU and its driver"
        )
    if not isinstance(nvml.get("devices"), list) or not isinstance(nvml.get("system"), dict):
        raise Refused(f"{folder / 'nvml.json'} has no 'system' and 'devices': not an NVML recording")
    detect = _read_json(folder / "detect.json")
    if not isinstance(detect, dict) or detect.get("schema") != "gpuwizard.system/1":
        raise Refused(
            f"{folder / 'detect.json'} is not a gpuwizard.system/1 report (gpuwizard detect --json)"
        )
    events = _read_events(folder / "test.jsonl")
    summary = _optional_json(folder / "summary.json")
    return Run(
        folder=folder,
        nvml=nvml,
        detect=detect,
        events=events,
        summary=summary if isinstance(summary, dict) else {},
        environment=_optional_json(folder / "environment.json"),
    )


# --- the source note ---------------------------------------------------------------------------


def _gpu_name_list(run: Run) -> list[str]:
    """The NVIDIA GPUs' names, one per GPU: from the detect report, else from NVML."""
    names = [
        str(gpu.get("name"))
        for gpu in run.detect.get("gpus") or []
        if isinstance(gpu, dict) and gpu.get("vendor") == "nvidia" and gpu.get("name")
    ]
    if not names:
        names = [
            device["nvmlDeviceGetName"]
            for device in run.nvml["devices"]
            if isinstance(device.get("nvmlDeviceGetName"), str)
        ]
    return names


def _gpu_names(run: Run) -> str:
    counts = Counter(_gpu_name_list(run))
    return ", ".join(f"{count} x {name}" for name, count in counts.items()) or "no NVIDIA GPU"


def _torch_version(run: Run) -> str:
    start = next((event for event in run.events if event.get("event") == "start"), {})
    version = start.get("framework_version")
    if not version:
        torch = run.summary.get("torch")
        version = torch.get("version") if isinstance(torch, dict) else torch
    return str(version) if version else "unknown"


def source_note(run: Run) -> str:
    """One line: ``gpu proof kit run on DATE, GPUs, driver, torch version``, and the verdict."""
    started = run.summary.get("started") or (run.nvml.get("recorded") or {}).get("date") or ""
    date = str(started)[:10] if re.match(r"\d{4}-\d{2}-\d{2}", str(started)) else "an unrecorded date"
    driver = run.detect.get("driver") or {}
    version = driver.get("version") or run.nvml["system"].get("nvmlSystemGetDriverVersion") or "unknown"
    cuda = f" (CUDA {driver['cuda_max']})" if driver.get("cuda_max") else ""
    # The probe's start event names the Python version; the result names its executable.
    python = next((event.get("python") for event in run.events if event.get("event") == "start"), None)
    python_text = f", Python {python}" if python else ""
    return (
        f"gpu proof kit run on {date}, {_gpu_names(run)}, driver {version}{cuda}, "
        f"torch {_torch_version(run)}{python_text}; verdict {run.result.get('verdict')}"
    )


# --- the fixtures ------------------------------------------------------------------------------


def _json_text(value: object) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _machine(detect: dict[str, Any]) -> str:
    os_facts = detect.get("os") or {}
    family = {"linux": "Linux", "windows": "Windows", "macos": "macOS"}.get(str(os_facts.get("family")), "?")
    if os_facts.get("wsl"):
        family = "WSL 2"
    distribution = os_facts.get("distribution")
    return f"{family}{f' ({distribution})' if distribution else ''}"


def build(
    run: Run, name: str, masks: Iterable[str] = ()
) -> tuple[list[Fixture], list[tuple[Path, str, str]], str]:
    """The fixture files, README rows (``(readme, file name, row)``) and source note of a run."""
    everything = [run.nvml, run.detect, run.events, run.summary, run.environment]
    hosts = [*masks, *_host_names(run.environment), *_host_names(run.summary)]
    nvml_names = [device.get("nvmlDeviceGetName") for device in run.nvml["devices"]]
    keep = [*_gpu_name_list(run), *(name for name in nvml_names if isinstance(name, str))]
    masker = Masker(user_names_in(everything), hosts, keep=keep)
    # The note is made of the GPUs' names, versions, a date and the verdict: nothing to mask.
    note = source_note(run)
    scenario = masker.data(run.nvml)
    recorded = scenario.get("recorded") if isinstance(scenario.get("recorded"), dict) else {}
    scenario = {
        "source": f"{note}. Recorded by {recorded.get('tool', 'tools/gpu_proof/nvml_record.py')} "
        f"(nvidia-ml-py {recorded.get('binding_version') or 'unknown'}) and turned into this scenario by "
        "tools/gpu_proof/to_fixtures.py; GPU UUIDs, user and host names masked.",
        **{key: value for key, value in scenario.items() if key != "source"},
    }
    scenario["recorded"] = {**recorded, "fixture_name": name}
    events = [masker.data(event) for event in run.events]
    run_file = f"test-torch-{name}.jsonl"
    fixtures = [
        Fixture(NVML_DIR / f"{name}.json", _json_text(scenario)),
        Fixture(
            RUNS_DIR / run_file, "".join(json.dumps(event, ensure_ascii=False) + "\n" for event in events)
        ),
        Fixture(REPORTS_DIR / f"{name}.json", _json_text(masker.data(run.detect))),
    ]
    command = "`gpuwizard test --python PY --framework pytorch --json`"
    verdict = run.result.get("verdict")
    rows = [
        (
            RUNS_DIR / "README.md",
            run_file,
            f"| `{run_file}` | {command} (verdict `{_cell(str(verdict))}`) | {_cell(note)} |",
        ),
        (
            REPORTS_DIR / "README.md",
            f"{name}.json",
            f"| `{name}.json` | {_cell(_machine(run.detect))}, {_cell(_gpu_names(run))} "
            f"| `gpuwizard detect --json` in a {_cell(note)} |",
        ),
    ]
    return fixtures, rows, note


_SECTION_TEXT: Final = (
    "Written by `tools/gpu_proof/to_fixtures.py` from a GPU proof kit run's folder\n"
    "(`tools/gpu_proof/FIXTURES.md`): real runs on a machine with an NVIDIA GPU, with user names,\n"
    "host names and GPU UUIDs masked. Keep each row: it is the file's source.\n\n"
    "| file | what | source |\n|---|---|---|\n"
)


def with_row(readme: str, file_name: str, row: str) -> str:
    """``readme`` with ``row`` in the kit's section (made if absent), replacing the file's old row."""
    lines = [line for line in readme.splitlines() if not line.startswith(f"| `{file_name}` |")]
    text = "\n".join(lines).rstrip("\n") + "\n"
    if SECTION not in text:
        text += f"\n{SECTION}\n\n{_SECTION_TEXT}"
    lines = text.splitlines()
    heading = lines.index(SECTION)
    last = heading
    for index in range(heading + 1, len(lines)):
        if lines[index].startswith("|"):
            last = index
        elif last > heading and lines[index].strip():
            break
    lines.insert(last + 1, row)
    return "\n".join(lines) + "\n"


def write(root: Path, fixtures: list[Fixture], rows: list[tuple[Path, str, str]], *, replace: bool) -> None:
    """Write every fixture and README row, after checking that none would be overwritten unasked."""
    for fixture in fixtures:
        if not (root / fixture.path.parent).is_dir():
            raise Refused(f"no folder {root / fixture.path.parent}: is {root} the repository?")
    report = next(fixture.path for fixture in fixtures if fixture.path.parent == REPORTS_DIR)
    if (root / SAMPLES_DIR / report.name).exists():
        # Tests find saved reports by file name in both folders (tests/core/compat/test_presentation.py).
        raise Refused(f"{SAMPLES_DIR / report.name} is a shipped sample of that name: choose another --name")
    existing = [fixture.path for fixture in fixtures if (root / fixture.path).exists()]
    if existing and not replace:
        raise Refused(f"{existing[0]} already exists: pass --replace to overwrite the fixtures of this name")
    for fixture in fixtures:
        (root / fixture.path).write_text(fixture.text, encoding="utf-8")
    for readme, file_name, row in rows:
        path = root / readme
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        path.write_text(with_row(old, file_name, row), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """Turn the run into fixtures; exit 2 with one line on bad input."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", type=Path, help="the kit's output folder")
    parser.add_argument("--name", required=True, help="the fixtures' name, e.g. h200-610.43: [a-z0-9._-]")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository root (default: this one)")
    parser.add_argument("--replace", action="store_true", help="overwrite fixtures of the same name")
    parser.add_argument(
        "--mask", action="append", default=[], metavar="TEXT", help="also replace TEXT by <host> (repeatable)"
    )
    args = parser.parse_args(argv)
    try:
        if not _NAME.fullmatch(args.name):
            raise Refused(f"bad --name {args.name!r}: use 1 to 64 of a-z, 0-9, '.', '_', '-'")
        run = read_run(args.run_dir)
        fixtures, rows, note = build(run, args.name, args.mask)
        write(args.root, fixtures, rows, replace=args.replace)
    except Refused as refusal:
        print(f"to_fixtures: error: {refusal}", file=sys.stderr)
        return 2
    for fixture in fixtures:
        print(f"wrote {fixture.path}")
    for readme, _file, _row in rows:
        print(f"noted the source in {readme}")
    print(f"source: {note}")
    print(
        "next: pytest tests/adapters/test_nvml.py tests/tools/test_gpu_proof_fixtures.py (tools/gpu_proof/FIXTURES.md)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
