"""The wizard's own folder inside a WSL 2 distro, kept by the distro's ``python3``.

The Windows side makes environments inside a distro (issue 39) in ``~/.local/share/gpuwizard``
of the distro's user: ``envs/NAME`` (the environments), ``bin/uv`` (uv, sent from Windows),
``probes/`` (the probes beside this file), ``python/`` and ``cache/`` (uv's Pythons and cache),
``run/`` (the steps running now). This script does the parts that need care inside the distro:
the markers, the atomic writes, the sha256 check of uv, running a step so that it can be
stopped, and removing only what provably is the wizard's. It never touches anything outside
that folder (every path is derived here from the user's home, none is taken from the caller).

Run by the distro's ``python3`` (3.8 or later), stdlib only, Python 3.7 syntax like the probes
beside it, never imports gpuwizard. Nothing needs to be in the distro beforehand: the Windows
side starts ``python3 -I -c BOOT COMMAND ARGS`` where BOOT reads this file's text from standard
input (one line with its length in bytes, then the text) and runs it; what follows on standard
input is the command's own data (uv's bytes, the probes). ``core/envs/wsl_steps.py`` builds
those commands.

The marker rule is the Windows one (``workflow/envs/ownership.py``): a folder is the wizard's
only when it holds the wizard's marker (``gpuwizard-env.json`` in an environment,
``gpuwizard-home.json`` in the home) with the id the Windows side recorded, made for that very
place; anything else is kept and named. A marker is written before anything else goes into a
folder, and removed last.

Commands (each prints one JSON line, ``{"helper": "wsl_home", "command": ..., "ok": ...}``,
and exits 0, or 1 with ``ok: false`` and ``error``; 2 for bad arguments):

- ``home --home-id ID [--wsl-lib DIR]``: make the home (marked with ID) unless it is there and
  the wizard's; says its path, its id, whether it was made now, the distro's Python, whether
  PEP 668 marks that Python externally managed, the free space, and what ``/usr/lib/wsl/lib``
  (or DIR) holds: the Windows driver's ``libcuda.so*`` and ``nvidia-smi``. A folder holding
  files the wizard did not make is refused and left as it is, except the state folder of the
  wizard installed inside the distro (``environments.json``: the same path on Linux), which is
  marked and shared, never made nor removed from Windows;
- ``install-uv --sha256 HEX``: uv's bytes on standard input; refused, and nothing written,
  unless their sha256 is HEX; written beside ``bin/uv``, tried (``--version``) and renamed
  over it;
- ``make-env --name NAME --id ID``: ``envs/NAME`` made holding its marker (made beside it and
  renamed into place, so it is never there without one);
- ``install-probes``: ``{"files": {"NAME.py": text}}`` on standard input, into ``probes/``;
- ``run --run-id ID -- ARGV...``: run ARGV in a process group of its own, recorded in
  ``run/ID.json`` while it runs, with ``{"env": {...}}`` from standard input added to its
  environment (a package index's login never is on a command line); its output is ARGV's, its
  exit status ARGV's;
- ``stop --run-id ID``: end that group (TERM, then KILL) if ``run/ID.json`` still names a
  living process of it: ending ``wsl.exe`` on Windows does not end what it started in the
  distro (microsoft/WSL#2496), so a cancel ends it here;
- ``remove-env --name NAME --id ID``: remove ``envs/NAME`` if its marker is ID's;
- ``remove-home --id ID``: remove the home if its marker is ID's and it holds nothing else than
  the wizard's own folders; an environment left in ``envs/`` or a file the wizard did not make
  keeps it, and is named.
"""

import hashlib
import json
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

SCHEMA = "gpuwizard.owner-marker/1"
ENV_MARKER = "gpuwizard-env.json"
HOME_MARKER = "gpuwizard-home.json"
HOME_KIND = "wsl-home"
ENV_KIND = "environment"
#: The home, below the user's home folder (not $XDG_DATA_HOME: the uninstaller names one place).
HOME_PARTS = (".local", "share", "gpuwizard")
#: What the wizard makes in its home; ``envs`` is removed only once empty.
WIZARD_FOLDERS = ("bin", "probes", "run", "python", "cache")
#: Names of the wizard's own passing files in its home and in ``envs/`` (a run's staging).
_PASSING = re.compile(
    r"^\.(?:gpuwizard-making-[0-9a-f]{16}(?:\.marker)?|probes-(?:new|old)-[0-9a-f]{16}|uv-[0-9a-f]{16}\.tmp)$"
)
_ID = re.compile(r"^[0-9a-f]{16,64}$")
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_PROBE_FILE = re.compile(r"^[A-Za-z0-9_]+\.py$")
_MARKER_LIMIT = 64 * 1024
#: How long a stopped group gets to exit after TERM, then after KILL.
_GRACE_S = 5.0
#: ``uv --version`` answers at once; a minute means the binary does not run here.
_VERSION_TIMEOUT_S = 60


class Refused(Exception):
    """The command cannot be carried out; nothing (more) was changed. The text says why."""


# --- answers -------------------------------------------------------------------------------


def _answer(command: str, ok: bool, **fields: object) -> None:
    line = {"helper": "wsl_home", "command": command, "ok": ok}
    line.update(fields)
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()


# --- the home and its markers --------------------------------------------------------------


def wizard_home() -> Path:
    """``~/.local/share/gpuwizard`` of the user running this; refused without a real home."""
    home = Path.home()
    if not home.is_absolute() or home == Path("/"):
        raise Refused("this user has no home folder (HOME is %r)" % str(home))
    return home.joinpath(*HOME_PARTS)


def _marker(kind: str, owner: str, name: str, place: Path) -> "dict":
    # The fields of workflow/envs/ownership.py's marker, so both sides read each other's.
    return {"schema": SCHEMA, "kind": kind, "id": owner, "name": name, "place": str(place), "given": False}


def read_marker(folder: Path, file_name: str, kind: str) -> "dict | None":
    """The marker in ``folder`` (a real folder, not a link), or None when there is none to trust."""
    if folder.is_symlink() or not folder.is_dir():
        return None
    path = folder / file_name
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with path.open("rb") as file:
            data = json.loads(file.read(_MARKER_LIMIT + 1)[:_MARKER_LIMIT].decode("utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA or data.get("kind") != kind:
        return None
    if not isinstance(data.get("id"), str) or len(data["id"]) < 16 or not isinstance(data.get("place"), str):
        return None
    return data


def owned(folder: Path, file_name: str, kind: str, owner: str, place: "Path | None" = None) -> bool:
    """Whether ``folder`` holds the marker of ``owner``, made for ``place`` (``folder`` itself)."""
    marker = read_marker(folder, file_name, kind)
    return (
        marker is not None
        and marker["id"] == owner
        and os.path.normpath(marker["place"]) == os.path.normpath(str(place or folder))
    )


def _write_atomically(path: Path, data: bytes, mode: int = 0o644) -> None:
    """``path`` holds ``data`` whole or is as it was: written beside it, then renamed over it."""
    passing = path.with_name(".%s.%s.tmp" % (path.name, os.urandom(8).hex()))
    try:
        descriptor = os.open(str(passing), os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        passing.replace(path)
    finally:
        if passing.exists():
            passing.unlink()


def _make_marked(target: Path, file_name: str, marker: "dict") -> None:
    """Make ``target`` (absent) holding ``marker``: made beside it, marked, then renamed into place.

    A kill at any instant leaves ``target`` absent or marked, and the passing folder beside it
    marked too (``remove-env`` and ``remove-home`` know its name).
    """
    staging = target.with_name(".gpuwizard-making-" + marker["id"][:16])
    loose = staging.with_name(staging.name + ".marker")
    with loose.open("xb") as file:
        file.write(json.dumps(marker).encode("utf-8"))
        file.flush()
        os.fsync(file.fileno())
    try:
        staging.mkdir()
        loose.replace(staging / file_name)
        if target.exists() or target.is_symlink():
            raise Refused("%s appeared while it was being made; it is left as it is" % target)
        staging.rename(target)
    except BaseException:
        if loose.exists():
            loose.unlink()
        if staging.is_dir() and not staging.is_symlink():
            marker_file = staging / file_name
            if marker_file.exists():
                marker_file.unlink()
            staging.rmdir()
        raise


def _owned_home(home: Path) -> "dict":
    marker = read_marker(home, HOME_MARKER, HOME_KIND)
    if marker is None:
        raise Refused("%s is not the wizard's folder (no marker): nothing was changed" % home)
    return marker


# --- removing --------------------------------------------------------------------------------


def remove_tree(path: Path) -> "list":
    """Remove ``path`` (a link itself, never what it points to); returns what could not be removed.

    uv leaves some files and folders read-only in its cache: a folder is made writable again
    for its entries to be removed.
    """

    def retry(function: object, failed: str, _info: object) -> None:
        parent = Path(failed).parent
        parent.chmod(parent.stat().st_mode | stat.S_IRWXU)
        if Path(failed).is_dir() and not Path(failed).is_symlink():
            Path(failed).chmod(Path(failed).stat().st_mode | stat.S_IRWXU)
        function(failed)  # type: ignore[operator]

    try:
        if path.is_symlink() or not path.is_dir():
            path.unlink()
        elif sys.version_info >= (3, 12):
            shutil.rmtree(str(path), onexc=retry)  # type: ignore[call-arg,unused-ignore]
        else:
            shutil.rmtree(str(path), onerror=retry)
    except FileNotFoundError:
        return []
    except OSError as error:
        return ["could not remove %s: %s" % (path, error)]
    return []


def _remove_marked(folder: Path, file_name: str) -> "list":
    """Remove everything in ``folder``, then its marker, then the folder."""
    problems = []  # type: list
    for child in sorted(folder.iterdir()):
        if child.name != file_name:
            problems += remove_tree(child)
    if problems:
        return problems
    try:
        (folder / file_name).unlink()
        folder.rmdir()
    except OSError as error:
        return ["could not remove %s: %s" % (folder, error)]
    return []


# --- commands --------------------------------------------------------------------------------


def command_home(options: "dict") -> int:
    """``home``: make the wizard's home, or find it; say what the distro offers."""
    home_id = _checked_id(options.get("--home-id"))
    home = wizard_home()
    made = shared = False
    if home.is_symlink() or (home.exists() and not home.is_dir()):
        raise Refused("%s is not a folder: nothing was changed" % home)
    if not home.exists():
        # ~/.local/share is the user's data folder (XDG): made if missing, and always kept.
        home.parent.mkdir(parents=True, exist_ok=True)
        try:
            _make_marked(home, HOME_MARKER, _marker(HOME_KIND, home_id, "gpuwizard", home))
            made = True
        except (Refused, FileExistsError):
            pass  # another wizard made it this instant: it is judged below like any other
    elif read_marker(home, HOME_MARKER, HOME_KIND) is None and not any(home.iterdir()):
        _write_atomically(
            home / HOME_MARKER, json.dumps(_marker(HOME_KIND, home_id, "gpuwizard", home)).encode()
        )
        made = True
    elif read_marker(home, HOME_MARKER, HOME_KIND) is None and (home / "environments.json").is_file():
        # The wizard installed inside the distro keeps its own state in this very folder
        # (workflow/state/home.py, platformdirs' user data folder): shared, marked, never made
        # here, so its files are kept by every removal from Windows.
        _write_atomically(
            home / HOME_MARKER, json.dumps(_marker(HOME_KIND, home_id, "gpuwizard", home)).encode()
        )
        shared = True
    marker = read_marker(home, HOME_MARKER, HOME_KIND)
    if marker is None or os.path.normpath(marker["place"]) != str(home):
        raise Refused("%s holds files the wizard did not make; it is left as it is" % home)
    for name in ("envs", "bin", "probes", "run"):
        (home / name).mkdir(exist_ok=True)
    usage = shutil.disk_usage(str(home))
    _answer(
        "home",
        True,
        home=str(home),
        home_id=marker["id"],
        made=made,
        shared=shared or (home / "environments.json").is_file(),
        python="%d.%d.%d" % sys.version_info[:3],
        python_executable=sys.executable,
        externally_managed=_externally_managed(),
        free_bytes=usage.free,
        wsl_lib=_wsl_lib(Path(options.get("--wsl-lib") or "/usr/lib/wsl/lib")),
    )
    return 0


def _externally_managed() -> bool:
    # PEP 668: the file EXTERNALLY-MANAGED in the interpreter's stdlib folder forbids pip there.
    stdlib = sysconfig.get_path("stdlib")
    return bool(stdlib) and (Path(stdlib) / "EXTERNALLY-MANAGED").is_file()


def _wsl_lib(folder: Path) -> "dict":
    """What the folder WSL 2 mounts the Windows driver's Linux libraries in holds.

    NVIDIA's CUDA on WSL guide: the driver's ``libcuda.so`` comes from Windows through
    ``/usr/lib/wsl/lib``; a Linux driver must not be installed inside the distro.
    """
    try:
        names = sorted(entry.name for entry in folder.iterdir()) if folder.is_dir() else []
    except OSError:
        names = []
    return {
        "dir": str(folder),
        "present": folder.is_dir(),
        "libcuda": [name for name in names if name.startswith("libcuda.so")],
        "nvidia_smi": "nvidia-smi" in names,
    }


def command_install_uv(options: "dict") -> int:
    """``install-uv``: uv's bytes from standard input into ``bin/uv`` if their sha256 is the one given."""
    wanted = str(options.get("--sha256") or "").lower()
    if not _SHA256.match(wanted):
        raise Refused("--sha256 needs 64 hexadecimal digits")
    data = sys.stdin.buffer.read()
    found = hashlib.sha256(data).hexdigest()
    if found != wanted:
        raise Refused(
            "the uv sent (%d bytes) has sha256 %s, not the published %s: refused, nothing was written"
            % (len(data), found, wanted)
        )
    home = wizard_home()
    _owned_home(home)
    target = home / "bin" / "uv"
    if target.is_file() and not target.is_symlink() and _file_sha256(target) == wanted:
        _answer("install-uv", True, uv=str(target), version=_uv_version(target), changed=False, sha256=found)
        return 0
    passing = target.with_name(".uv-%s.tmp" % os.urandom(8).hex())
    try:
        descriptor = os.open(str(passing), os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o755)
        with os.fdopen(descriptor, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        version = _uv_version(passing)  # a binary of another architecture fails here, not later
        passing.replace(target)
    finally:
        if passing.exists():
            passing.unlink()
    _answer("install-uv", True, uv=str(target), version=version, changed=True, sha256=found)
    return 0


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _uv_version(path: Path) -> str:
    try:
        done = subprocess.run(
            [str(path), "--version"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            timeout=_VERSION_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        raise Refused("the uv sent does not run in this distro: %s" % error) from None
    text = done.stdout.decode("utf-8", "replace").strip()
    if done.returncode != 0:
        raise Refused(
            "the uv sent does not run in this distro (exit status %d): %s" % (done.returncode, text[-300:])
        )
    return text


def command_make_env(options: "dict") -> int:
    """``make-env``: the environment's folder, holding its marker before anything else."""
    name = _checked_name(options.get("--name"))
    owner = _checked_id(options.get("--id"))
    home = wizard_home()
    _owned_home(home)
    target = home / "envs" / name
    if target.exists() or target.is_symlink():
        marker = read_marker(target, ENV_MARKER, ENV_KIND)
        what = (
            "the wizard's environment %r" % marker.get("name") if marker else "files the wizard did not make"
        )
        raise Refused("%s already exists and holds %s; it is left as it is" % (target, what))
    _make_marked(target, ENV_MARKER, _marker(ENV_KIND, owner, name, target))
    _answer("make-env", True, path=str(target), python=str(target / "bin" / "python"), made=True)
    return 0


def command_install_probes(_options: "dict") -> int:
    """``install-probes``: the probes from standard input into ``probes/``."""
    try:
        files = json.loads(sys.stdin.buffer.read().decode("utf-8"))["files"]
    except (ValueError, KeyError, TypeError) as error:
        raise Refused("the probes sent are not readable: %s" % error) from None
    if not isinstance(files, dict) or not files:
        raise Refused("no probes were sent")
    for name, text in files.items():
        if not isinstance(name, str) or not _PROBE_FILE.match(name) or not isinstance(text, str):
            raise Refused("%r is not a probe's file name" % (name,))
    home = wizard_home()
    _owned_home(home)
    token = os.urandom(8).hex()
    fresh, old, probes = home / (".probes-new-" + token), home / (".probes-old-" + token), home / "probes"
    fresh.mkdir()
    try:
        for name, text in sorted(files.items()):
            (fresh / name).write_text(text, encoding="utf-8")
        if probes.exists() or probes.is_symlink():
            probes.rename(old)
        fresh.rename(probes)
    finally:
        for passing in (fresh, old):
            if passing.exists() or passing.is_symlink():
                remove_tree(passing)
    _answer("install-probes", True, probes=str(probes), files=sorted(files))
    return 0


def command_run(options: "dict", argv: "list") -> int:
    """``run``: ARGV in a group of its own that ``stop`` can end; its exit status."""
    run_id = _checked_id(options.get("--run-id"))
    if not argv:
        raise Refused("nothing to run")
    given = sys.stdin.buffer.read()
    try:
        env_extra = json.loads(given.decode("utf-8")).get("env", {}) if given.strip() else {}
    except (ValueError, AttributeError) as error:
        raise Refused("the environment sent is not readable: %s" % error) from None
    home = wizard_home()
    _owned_home(home)
    env = dict(os.environ)
    env.update((str(key), str(value)) for key, value in env_extra.items())
    record = home / "run" / (run_id + ".json")
    record.parent.mkdir(exist_ok=True)
    try:
        # A group of its own: `stop` ends it and all it started (uv's build backends, a probe).
        child = subprocess.Popen(argv, env=env, stdin=subprocess.DEVNULL, start_new_session=True)
    except OSError as error:
        sys.stdout.write("gpuwizard: cannot start %s: %s\n" % (argv[0], error))
        sys.stdout.flush()
        return 127
    ended = []  # type: list

    def end(signum: int, _frame: object) -> None:
        # Told to stop (wsl --terminate, a kill of this process): the group goes with it.
        ended.append(signum)
        stop_group(child.pid, reap=child)

    for signum in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
        signal.signal(signum, end)
    try:
        _write_atomically(
            record, json.dumps({"pid": child.pid, "start": _start_time(child.pid), "argv0": argv[0]}).encode()
        )
        status = child.wait()
    finally:
        if record.exists():
            record.unlink()
    if ended:
        return 128 + ended[0]
    return status if status >= 0 else 128 - status


def command_stop(options: "dict") -> int:
    """``stop``: end the group a ``run`` of this id started, if it still runs."""
    run_id = _checked_id(options.get("--run-id"))
    record = wizard_home() / "run" / (run_id + ".json")
    try:
        data = json.loads(record.read_text(encoding="utf-8"))
        pid, start = int(data["pid"]), data.get("start")
    except (OSError, ValueError, KeyError, TypeError):
        _answer("stop", True, running=False, stopped=False)
        return 0
    # The same process only while it started when recorded: a pid can be reused.
    if pid <= 1 or _start_time(pid) is None or _start_time(pid) != start:
        record.unlink()
        _answer("stop", True, running=False, stopped=False)
        return 0
    left = stop_group(pid)
    _answer(
        "stop", not left, running=True, stopped=not left, error="group %d did not end" % pid if left else None
    )
    return 0 if not left else 1


def stop_group(pgid: int, reap: "subprocess.Popen | None" = None) -> bool:
    """End process group ``pgid`` (TERM, then KILL); True when some of it is still there."""
    for signum in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pgid, signum)
        except (ProcessLookupError, PermissionError):
            return False
        deadline = time.monotonic() + _GRACE_S
        while time.monotonic() < deadline:
            if reap is not None:
                reap.poll()
            if not _group_alive(pgid):
                return False
            time.sleep(0.05)
    return _group_alive(pgid)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    # killpg(…, 0) also answers for members that are only waiting to be reaped.
    return any(_alive_member(entry.name, pgid) for entry in Path("/proc").iterdir() if entry.name.isdigit())


def _alive_member(pid: str, pgid: int) -> bool:
    fields = _stat_fields(pid)
    return fields is not None and fields[2] != "Z" and fields[4] == str(pgid)


def _stat_fields(pid: "str | int") -> "list | None":
    # proc(5), /proc/PID/stat: "pid (comm) state ppid pgrp ..."; comm may hold spaces and ")".
    try:
        text = Path("/proc/%s/stat" % pid).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    head, _, rest = text.rpartition(")")
    if not head:
        return None
    return [head.split(" (", 1)[0], head.split(" (", 1)[-1], *rest.split()]


def _start_time(pid: int) -> "str | None":
    fields = _stat_fields(pid)
    # Field 22, starttime (proc(5)): after "pid (comm)" it is the 20th of the rest.
    return fields[21] if fields is not None and len(fields) > 21 else None


def command_remove_env(options: "dict") -> int:
    """``remove-env``: remove the environment if its marker is the id given; else keep it and say why."""
    name = _checked_name(options.get("--name"))
    owner = _checked_id(options.get("--id"))
    home = wizard_home()
    envs = home / "envs"
    target = envs / name
    removed, kept, problems = [], [], []  # type: list, list, list
    # What a killed creation of this id left beside it: its passing folder and loose marker.
    staging = envs / (".gpuwizard-making-" + owner[:16])
    loose = staging.with_name(staging.name + ".marker")
    if loose.is_file() and not loose.is_symlink():
        loose.unlink()
    if owned(staging, ENV_MARKER, ENV_KIND, owner, place=target):
        problems += _remove_marked(staging, ENV_MARKER)
    if not target.exists() and not target.is_symlink():
        state = "absent"
    elif owned(target, ENV_MARKER, ENV_KIND, owner):
        problems += _remove_marked(target, ENV_MARKER)
        state = "removed" if not problems else "failed"
        if not problems:
            removed.append(str(target))
    else:
        kept.append({"path": str(target), "why": _not_proven(target)})
        state = "kept"
    _answer("remove-env", not problems, state=state, removed=removed, kept=kept, problems=problems)
    return 0 if not problems else 1


def _environments_left(envs: Path) -> "list":
    """What is in ``envs`` besides a run's passing files: each kept, with why."""
    kept = []
    for child in sorted(envs.iterdir()):
        if _PASSING.match(child.name):
            continue
        mark = read_marker(child, ENV_MARKER, ENV_KIND)
        if mark is not None and os.path.normpath(mark["place"]) == str(child):
            why = "the wizard's environment %r is still there (remove it first)" % mark.get("name")
        else:
            why = _not_proven(child)
        kept.append({"path": str(child), "why": why})
    return kept


def _not_proven(folder: Path) -> str:
    """Why ``folder`` is not provably the environment asked for: the words of what is kept."""
    marker = read_marker(folder, ENV_MARKER, ENV_KIND)
    if marker is None:
        return "it does not carry the wizard's marker"
    if os.path.normpath(marker["place"]) != os.path.normpath(str(folder)):
        return "its marker was made for another folder (%s): a copy proves nothing" % marker["place"]
    return "it carries the marker of another of the wizard's environments (%r), not this one's" % (
        marker.get("name"),
    )


def command_remove_home(options: "dict") -> int:
    """``remove-home``: remove the home if its marker is the id given and nothing else is in it."""
    owner = _checked_id(options.get("--id"))
    home = wizard_home()
    removed, kept, problems = [], [], []  # type: list, list, list
    if not home.exists() and not home.is_symlink():
        _answer(
            "remove-home", True, state="absent", home=str(home), removed=removed, kept=kept, problems=problems
        )
        return 0
    marker = read_marker(home, HOME_MARKER, HOME_KIND)
    if marker is None or not owned(home, HOME_MARKER, HOME_KIND, owner):
        state = "other" if marker is not None else "kept"
        why = (
            "it is the wizard's folder of another installation (another id)"
            if marker is not None
            else "it does not carry the wizard's marker"
        )
        kept.append({"path": str(home), "why": why})
        _answer(
            "remove-home", True, state=state, home=str(home), removed=removed, kept=kept, problems=problems
        )
        return 0
    for entry in sorted(home.iterdir()):
        if entry.name == HOME_MARKER:
            continue
        if entry.name == "envs" and entry.is_dir() and not entry.is_symlink():
            left = _environments_left(entry)
            kept += left
            if not left:
                problems += remove_tree(entry)
        elif entry.name in (*WIZARD_FOLDERS, "envs") or _PASSING.match(entry.name):
            problems += remove_tree(entry)
            if not problems:
                removed.append(str(entry))
        else:
            kept.append({"path": str(entry), "why": "the wizard's steps from Windows did not make it"})
    if not kept and not problems:
        problems += _remove_marked(home, HOME_MARKER)
        if not problems:
            removed.append(str(home))
    state = "removed" if not kept and not problems else "kept" if not problems else "failed"
    _answer(
        "remove-home",
        not problems,
        state=state,
        home=str(home),
        removed=removed,
        kept=kept,
        problems=problems,
    )
    return 0 if not problems else 1


# --- arguments -------------------------------------------------------------------------------


def _checked_id(value: object) -> str:
    if not isinstance(value, str) or not _ID.match(value):
        raise Refused("an id is 16 to 64 lowercase hexadecimal digits, not %r" % (value,))
    return value


def _checked_name(value: object) -> str:
    # One plain folder name (the Windows side checked it further: core/envs/names.py).
    if (
        not isinstance(value, str)
        or not value.strip()
        or "/" in value
        or "\0" in value
        or value.startswith(".")
        or len(value.encode("utf-8")) > 255
    ):
        raise Refused("%r is not a plain environment name" % (value,))
    return value


COMMANDS = {
    "home": command_home,
    "install-uv": command_install_uv,
    "make-env": command_make_env,
    "install-probes": command_install_probes,
    "stop": command_stop,
    "remove-env": command_remove_env,
    "remove-home": command_remove_home,
}


def parse(args: "list") -> "tuple":
    """``COMMAND --option value ... [-- ARGV...]`` as (command, options, argv)."""
    if not args:
        return None, {}, []
    command, rest = args[0], list(args[1:])
    argv = []  # type: list
    if "--" in rest:
        argv = rest[rest.index("--") + 1 :]
        rest = rest[: rest.index("--")]
    if len(rest) % 2:
        raise Refused("options come in pairs: %s" % " ".join(rest))
    options = {rest[index]: rest[index + 1] for index in range(0, len(rest), 2)}
    return command, options, argv


def main(args: "list") -> int:
    """Run one command (``args`` without the program's name); the exit status."""
    command = args[0] if args else ""
    if sys.version_info < (3, 8):
        _answer(
            command,
            False,
            error="the distro's python3 is %d.%d; 3.8 or later is needed" % sys.version_info[:2],
        )
        return 1
    try:
        command, options, argv = parse(args)
        if command == "run":
            return command_run(options, argv)
        if command not in COMMANDS:
            _answer(str(command), False, error="usage: wsl_home.py %s ..." % "|".join(["run", *COMMANDS]))
            return 2
        return COMMANDS[command](options)
    except Refused as refusal:
        _answer(str(command), False, error=str(refusal))
        return 1
    except OSError as error:
        _answer(str(command), False, error="%s: %s" % (type(error).__name__, error))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
