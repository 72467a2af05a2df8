"""A login or token of an index or channel never goes on a tool's command line (issue 33).

Every user of the machine reads a process's command line (``ps``, ``/proc/PID/cmdline``); only
its owner reads its environment. So an index URL with a login, a signed URL's ``sig=`` or a
conda ``/t/<token>/`` goes to pip in ``PIP_INDEX_URL``, to uv in ``UV_DEFAULT_INDEX`` and to
the py-rattler engine in ``GPUWIZARD_RATTLER_CHANNELS``; conda, mamba and micromamba, which take
channels only on their command line, refuse such a channel. The commands as the backends build
them are checked for every kind of secret, and real pip and uv install from a 127.0.0.1 index
that answers only with the right login, with every command line they ran recorded; the real
py-rattler engine makes an environment from a channel that exists only under its token's path.
"""

from __future__ import annotations

import base64
import json
import shutil
import sys
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from builders.conda_channels import CondaPackage, build_channel
from builders.requests import planned
from builders.wheels import bundled_pip_wheel, tiny_torch
from gpuwizard.adapters.envs.base import CondaSpec, PackageSource
from gpuwizard.adapters.envs.conda import CondaBackend
from gpuwizard.adapters.envs.rattler_backend import RattlerBackend
from gpuwizard.adapters.envs.venv_backends import PipBackend, UvBackend
from gpuwizard.adapters.interpreters import own_python
from gpuwizard.adapters.runner import StreamingSubprocessRunner
from gpuwizard.core.compat.plan import Plan
from gpuwizard.core.envs.conda_channels import ChannelRefused
from gpuwizard.core.envs.events import EnvStart
from gpuwizard.core.envs.package_sources import (
    INDEX_VARIABLES,
    RATTLER_CHANNELS_VARIABLE,
    IndexSettings,
    masked_command,
    plan_sources,
    sources_to_json,
)
from gpuwizard.core.events import Event, to_json
from gpuwizard.core.machine.system_report import ManagerFacts
from gpuwizard.workflow.envs.create import create_environment
from gpuwizard.workflow.envs.prepare import EnvTools, prepare_environment
from harness.conda_channel_server import serve_channel
from harness.http_server import serve
from harness.waits import EVENT_S

SECRET = "Pr1vate-T0ken-77"  # noqa: S105 - made up
#: An index or channel URL with each kind of secret a URL carries.
SECRET_URLS = {
    "login": f"https://ci-user:{SECRET}@mirror.example/simple",
    "azure-sas": f"https://acct.blob.core.windows.net/simple?sv=2022-11-02&sig={SECRET}",
    "conda-token": f"https://conda.anaconda.org/t/{SECRET}/corp",
}
BACKENDS = {"uv": UvBackend("uv"), "pip": PipBackend(), "conda's pip": CondaBackend("conda", "conda")}
UV = shutil.which("uv", path=str(Path(sys.executable).parent))


def _sources(url: str) -> list[PackageSource]:
    return [PackageSource(index_url=url), PackageSource(default_index_url=url)]


@pytest.mark.parametrize("url", SECRET_URLS.values(), ids=SECRET_URLS.keys())
@pytest.mark.parametrize("name", BACKENDS)
def test_an_index_with_a_secret_goes_in_the_tools_variable(name: str, url: str, tmp_path: Path):
    backend = BACKENDS[name]
    variable = INDEX_VARIABLES["uv" if backend.tool == "uv" else "pip"]
    for source in _sources(url):
        command = backend.install_command(tmp_path / "env", ["torch==2.13.0"], source, None)
        assert not [part for part in command.argv if SECRET in part], command.argv
        assert "--index-url" not in command.argv
        assert command.env[variable] == url
        shown = masked_command(command.argv, command.env)
        assert SECRET not in shown
        assert shown.startswith(f"{variable}=https://") and "torch==2.13.0" in shown


@pytest.mark.parametrize("name", BACKENDS)
def test_an_index_without_a_secret_stays_on_the_command_line(name: str, tmp_path: Path):
    url = "https://mirror.example/simple"
    command = BACKENDS[name].install_command(tmp_path / "env", ["torch"], PackageSource(index_url=url), None)
    assert command.argv[command.argv.index("--index-url") + 1] == url
    assert not set(INDEX_VARIABLES.values()) & set(command.env)


@pytest.mark.parametrize("url", SECRET_URLS.values(), ids=SECRET_URLS.keys())
def test_the_install_command_shown_names_the_variable_with_the_secret_hidden(url: str):
    for tool in ("uv", "pip"):
        sources = plan_sources(
            index_url=None,
            variant=None,
            tool=tool,
            settings=IndexSettings(pip_index_url=url, uv_default_index=url),
        )
        line = sources.install_line(["torch==2.13.0"])
        assert SECRET not in line and SECRET not in json.dumps(sources_to_json(sources, ["torch==2.13.0"]))
        assert line.startswith(f"{INDEX_VARIABLES[tool]}=https://"), line
        assert "--index-url" not in line


@pytest.mark.parametrize("url", SECRET_URLS.values(), ids=SECRET_URLS.keys())
def test_rattler_gets_channels_with_a_secret_in_its_environment(url: str, tmp_path: Path):
    channels = ("conda-forge", url)
    command = RattlerBackend().create_command(
        tmp_path / "env", "3.11", PackageSource(), CondaSpec((), channels)
    )
    assert not [part for part in command.argv if SECRET in part], command.argv
    assert "--channel" not in command.argv
    assert json.loads(command.env[RATTLER_CHANNELS_VARIABLE]) == list(channels)
    assert SECRET not in masked_command(command.argv, command.env)
    plain = RattlerBackend().create_command(
        tmp_path / "env", "3.11", PackageSource(), CondaSpec((), ("conda-forge",))
    )
    assert plain.argv[plain.argv.index("--channel") + 1] == "conda-forge"
    assert RATTLER_CHANNELS_VARIABLE not in plain.env


@pytest.mark.parametrize("tool", ["conda", "mamba", "micromamba"])
def test_conda_refuses_a_channel_with_a_secret_and_says_what_to_do(tool: str, tmp_path: Path):
    backend = CondaBackend(tool, tool)
    for url in SECRET_URLS.values():
        with pytest.raises(ChannelRefused, match="--tool rattler") as refused:
            backend.create_command(tmp_path / "env", "3.11", PackageSource(), CondaSpec((), (url,)))
        assert SECRET not in str(refused.value)
        assert "\n" not in str(refused.value)


# --- for real: pip and uv against an index that wants a login, py-rattler against a token path ---

USER = "ci-user"
PASSWORD = "s3cr/t@Pw-" + SECRET  # "/" and "@" as people's passwords hold them, percent-encoded in the URL


@contextmanager
def _index_with_login(wheel: Path) -> Iterator[tuple[str, list[tuple[str, bool]]]]:
    """A PEP 503 index of ``wheel`` on 127.0.0.1 that answers 401 without the Basic login."""
    seen: list[tuple[str, bool]] = []
    expected = "Basic " + base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    files = {
        "/whl/cpu/simple/torch/": (f'<a href="/files/{wheel.name}">{wheel.name}</a>'.encode(), "text/html"),
        f"/files/{wheel.name}": (wheel.read_bytes(), "application/octet-stream"),
    }

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            allowed = self.headers.get("Authorization") == expected
            seen.append((self.path, allowed))
            body, kind = files.get(self.path, (b"", ""))
            status = 401 if not allowed else 200 if kind else 404
            self.send_response(status)
            if status == 401:
                self.send_header("WWW-Authenticate", 'Basic realm="mirror"')
            self.send_header("Content-Length", str(len(body) if status == 200 else 0))
            if kind:
                self.send_header("Content-Type", kind)
            self.end_headers()
            if status == 200:
                self.wfile.write(body)

        def do_HEAD(self) -> None:
            self.send_response(405)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    quoted = PASSWORD.replace("/", "%2F").replace("@", "%40")
    try:
        yield f"http://{USER}:{quoted}@127.0.0.1:{server.server_address[1]}/whl", seen
    finally:
        server.shutdown()


class RecordingRunner(StreamingSubprocessRunner):
    """The real runner, keeping every command line and the variables each was given."""

    def __init__(self) -> None:
        super().__init__()
        self.commands: list[tuple[tuple[str, ...], dict[str, str]]] = []

    def stream(  # type: ignore[override] - whatever else the workflow passes goes on unchanged
        self,
        argv: Sequence[str],
        on_line: Callable[[str], None],
        *,
        env_overrides: Mapping[str, str] | None = None,
        **options: Any,
    ) -> int:
        self.commands.append((tuple(str(part) for part in argv), dict(env_overrides or {})))
        return super().stream(argv, on_line, env_overrides=env_overrides, **options)


def _plan() -> Plan:
    return Plan(
        framework="pytorch", framework_version="2.13.0", python=f"{sys.version_info.major}.{sys.version_info.minor}",
        cpu_only=True, cuda=None, cudnn=None, torch_variant="cpu", requirements=("torch==2.13.0",),
        index_url="https://download.pytorch.org/whl/cpu",
    )  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("tool", ["pip", *(["uv"] if UV else [])])
def test_pip_and_uv_log_in_to_the_mirror_with_no_login_on_their_command_lines(
    tool: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    pip_only = tmp_path / "pip-only"
    pip_only.mkdir()
    shutil.copy(bundled_pip_wheel(), pip_only)
    events: list[Event] = []
    with _index_with_login(tiny_torch(tmp_path, "2.13.0")) as (mirror, seen):
        monkeypatch.setenv("GPUWIZARD_PYTORCH_INDEX_URL", f"{mirror}/{{variant}}/simple")
        runner = RecordingRunner()
        tools = EnvTools(runner=runner, interpreters=[own_python()], managers=ManagerFacts(uv=UV))
        prepared = prepare_environment(*planned("private", _plan(), tool=tool, find_links=pip_only), tools)
        result = create_environment(prepared, tools, events.append, threading.Event())
    assert result.status == "ok", result
    # The mirror was asked with the login, and the install came from it.
    assert ("/whl/cpu/simple/torch/", True) in seen
    assert any(path.startswith("/files/") and allowed for path, allowed in seen)
    # No command line held the password; the install's variables did.
    assert not [argv for argv, _env in runner.commands if any(SECRET in part for part in argv)]
    install = [env for argv, env in runner.commands if "install" in argv and "torch==2.13.0" in argv]
    assert install and SECRET in install[0][INDEX_VARIABLES[tool]]
    # Nor did the log, the events, or the command they show.
    assert result.log is not None and SECRET not in Path(result.log).read_text(encoding="utf-8")
    assert SECRET not in json.dumps([to_json(event) for event in events])
    start = next(event for event in events if isinstance(event, EnvStart))
    assert start.package_sources is not None
    assert start.package_sources["install_command"].startswith(
        f"{INDEX_VARIABLES[tool]}=http://***@127.0.0.1"
    )


@pytest.mark.slow
def test_the_rattler_engine_reads_a_token_channel_it_was_given_privately(tmp_path: Path):
    token = "tk-" + SECRET
    root = build_channel(tmp_path / "channel", [CondaPackage("demo", "2.0")])
    lines: list[str] = []
    with serve() as site:
        # The channel exists only under /t/<token>/: without the token there is nothing to install.
        url = site.url + serve_channel(site, root, prefix=f"/t/{token}")
        command = RattlerBackend(cache_dir=tmp_path / "cache").create_command(
            tmp_path / "env", "3.11", PackageSource(), CondaSpec(("demo",), (url,))
        )
        # Only the one package: the engine is asked for demo, not python and pip.
        argv = [part for part in command.argv if not part.startswith(("python=", "pip"))]
        assert not [part for part in argv if token in part]
        status = StreamingSubprocessRunner().stream(
            argv,
            lines.append,
            cancel=threading.Event(),
            timeout=EVENT_S,
            env_overrides={**command.env, "NO_PROXY": "127.0.0.1", "no_proxy": "127.0.0.1"},
        )
    events = [json.loads(line) for line in lines if line.startswith("{")]
    assert status == 0, lines
    assert events[-1]["event"] == "done" and "demo==2.0" in events[-1]["packages"]
    assert any(path.startswith(f"/t/{token}/ch/noarch/") for path in site.seen)
    # What it printed names the channel with the token hidden.
    assert token not in "\n".join(lines)
    assert any("/t/***/ch" in str(event.get("channels")) for event in events)
