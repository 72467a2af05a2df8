"""Reading ``wsl.exe``'s outputs: every recorded one (tests/fixtures/wsl), in every language."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from gpuwizard.core.machine.system_report import OsFacts, SystemReport, report_from_json, report_to_json
from gpuwizard.core.machine.wsl_listing import (
    STATES,
    WslGpuMinimums,
    WslOutput,
    WslStatus,
    WslVersions,
    bundled_gpu_minimums,
    decode_output,
    error_codes,
    gpu_compute,
    normalise_state,
    parse_listing,
    parse_status,
    parse_version,
    read_message,
    windows_build,
    wsl_facts,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "wsl"
INDEX: dict[str, dict[str, object]] = json.loads((FIXTURES / "index.json").read_text(encoding="utf-8"))
RENDERED_LANGUAGES = sorted({str(entry["language"]) for entry in INDEX.values() if not entry["recorded"]})


def text(name: str) -> str:
    return decode_output((FIXTURES / f"{name}.out").read_bytes())


def output(name: str) -> WslOutput:
    return WslOutput(text(name), int(str(INDEX[name]["returncode"])))


# --- the fixtures themselves -----------------------------------------------------------------


def test_every_fixture_is_utf16_as_a_pipe_gets_it_and_has_its_source():
    assert len(INDEX) >= 40
    for name, entry in INDEX.items():
        data = (FIXTURES / f"{name}.out").read_bytes()
        assert data[1::2].count(0) > 0 and not data.startswith(b"\xff\xfe"), name  # UTF-16LE, no BOM
        assert b"\r\x00\n\x00" in data, name  # CRLF line ends
        assert str(entry["source"]).startswith("https://github.com/"), name
    readme = (FIXTURES / "README.md").read_text(encoding="utf-8")
    assert all(f"`{name}.out`" in readme for name, entry in INDEX.items() if entry["recorded"])


@pytest.mark.parametrize("name", sorted(INDEX))
def test_every_fixture_reads_without_stray_characters(name: str):
    decoded = text(name)
    assert "\x00" not in decoded and "\r" not in decoded and "\ufeff" not in decoded
    assert "\ufffd" not in decoded  # nothing lost in decoding, whatever the language
    # Every reader takes every output, whatever it is (a failure's text is no listing).
    parse_listing(decoded), parse_status(decoded), parse_version(decoded), read_message(decoded)


# --- decoding --------------------------------------------------------------------------------


def test_decoding_tells_utf16_from_utf8_and_drops_marks():
    russian = "Версия WSL: 2.4.11.0\r\n"
    assert decode_output(russian.encode("utf-16-le")) == "Версия WSL: 2.4.11.0\n"
    assert decode_output(b"\xff\xfe" + russian.encode("utf-16-le")) == "Версия WSL: 2.4.11.0\n"
    assert decode_output(russian.encode("utf-8")) == "Версия WSL: 2.4.11.0\n"  # WSL_UTF8=1
    assert decode_output(b"\xef\xbb\xbf" + russian.encode("utf-8")) == "Версия WSL: 2.4.11.0\n"
    assert decode_output("默认版本: 2".encode("utf-16-le") + b"\x00") == "默认版本: 2"  # a cut-off byte
    assert decode_output(b"") == ""


# --- the listing ------------------------------------------------------------------------------


def test_listing_with_wsl1_and_wsl2_distributions():
    rows = parse_listing(text("en-list-verbose"))
    assert [(d.name, d.default, d.state, d.version) for d in rows] == [
        ("Ubuntu", True, "running", 2),
        ("Legacy", False, "stopped", 1),
        ("Ubuntu-18.04", False, "stopped", 1),
        ("docker-desktop", False, "running", 2),
    ]
    assert all(d.libcuda is None and d.python is None for d in rows)  # inside: not read by listing


def test_listing_pasted_out_of_alignment_is_read_by_fields():
    rows = parse_listing(text("en-list-verbose-docker"))
    assert [(d.name, d.default) for d in rows] == [
        ("Ubuntu", True),
        ("docker-desktop", False),
        ("docker-desktop-data", False),
    ]


def test_listing_without_a_default_marks_none():
    rows = parse_listing(text("en-list-verbose-no-default"))
    assert [d.name for d in rows] == ["MyPengwin", "WLinux", "docker-desktop", "docker-desktop-data"]
    assert not any(d.default for d in rows)


@pytest.mark.parametrize(
    "header",
    [
        "  NAME      STATE           VERSION",
        "  NAME      ZUSTAND         VERSION",  # a translated header is skipped as well
        "  名称      状态            版本",
    ],
)
def test_the_header_is_skipped_whatever_its_words(header: str):
    rows = parse_listing(f"{header}\n* Ubuntu    Wird ausgeführt 2\n  Debian    正在运行        1\n")
    assert [(d.name, d.state, d.version) for d in rows] == [
        ("Ubuntu", "running", 2),
        ("Debian", "running", 1),
    ]


def test_a_failure_or_usage_text_is_no_listing():
    for name in (
        "en-list-no-distros",
        "ru-list-no-distros",
        "de-status-invalid-option",
        "en-install-old-wsl",
    ):
        assert parse_listing(text(name)) == (), name


@pytest.mark.parametrize(
    ("words", "state"),
    [
        ("Running", "running"),
        ("Stopped", "stopped"),
        ("Installing", "installing"),
        ("Converting", "converting"),
        ("Uninstalling", "uninstalling"),
        ("Wird ausgeführt", "running"),  # de
        ("Beendet", "stopped"),
        ("En cours d’exécution", "running"),  # fr, typographic apostrophe
        ("Arrêté", "stopped"),
        ("En ejecución", "running"),  # es
        ("Detenido", "stopped"),
        ("正在运行", "running"),  # zh-CN
        ("已停止", "stopped"),
        ("実行中", "running"),  # ja
        ("停止", "stopped"),
        ("Em execução", "running"),  # pt-BR
        ("Parado", "stopped"),
        ("Выполняется", "running"),  # ru
        ("Остановлено", "stopped"),
        ("In esecuzione", "running"),  # it
        ("Arrestato", "stopped"),
        ("실행 중", "running"),  # ko
        ("중지됨", "stopped"),
        ("Exporting", None),  # a state WSL prints that the report has no name for
        ("Hibernating", None),
    ],
)
def test_states_are_normalised_from_any_language(words: str, state: str | None):
    assert normalise_state(words) == state
    assert state is None or state in STATES


# --- status and version ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "status"),
    [
        ("en-status", WslStatus("Debian", 2)),
        ("en-status-inbox", WslStatus("Ubuntu-20.04", 2, "5.10.102.1")),
        ("en-status-no-default", WslStatus(None, 1)),
        ("de-status-invalid-option", WslStatus()),
    ],
)
def test_status(name: str, status: WslStatus):
    assert parse_status(text(name)) == status


@pytest.mark.parametrize("language", RENDERED_LANGUAGES)
def test_status_in_every_language(language: str):
    name = f"resw-{language}-status-no-virtualization"
    assert parse_status(text(name)) == WslStatus("Ubuntu-24.04", 2)
    message = read_message(text(name))
    assert message.virtualization_off and not message.not_installed and not message.needs_restart


@pytest.mark.parametrize(
    ("name", "versions"),
    [
        ("en-version", WslVersions("2.2.4.0", "5.15.153.1-2")),
        ("en-version-windows10", WslVersions("1.2.5.0", "5.15.90.1")),
        ("ru-version", WslVersions("2.4.11.0", "5.15.167.4-1")),
        ("de-version", WslVersions("1.0.3.0", "5.15.79.1")),
        ("en-not-installed-component", WslVersions()),
        ("en-install-old-wsl", WslVersions()),  # the inbox WSL answers an unknown option with its usage
    ],
)
def test_version(name: str, versions: WslVersions):
    assert parse_version(text(name)) == versions


@pytest.mark.parametrize("language", RENDERED_LANGUAGES)
def test_version_in_every_language(language: str):
    assert parse_version(text(f"resw-{language}-version")) == WslVersions("2.3.26.0", "5.15.167.4-1")


def test_full_width_colons_of_older_translations():
    old_chinese = "WSL 版本： 2.1.5.0\n内核版本： 5.15.146.1-2\nWSLg 版本： 1.0.60\n"
    assert parse_version(old_chinese) == WslVersions("2.1.5.0", "5.15.146.1-2")


# --- what went wrong -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "flags"),
    [
        ("en-list-no-distros", "no_distros"),
        ("en-list-no-distros-inbox", "no_distros"),
        ("ru-list-no-distros", "no_distros"),
        ("en-install-needs-restart", "needs_restart"),
        ("en-install-reboot-pending", "needs_restart"),
        ("en-virtualization-off", "virtualization_off"),
        ("en-virtualization-off-0x80370102", "virtualization_off"),
        ("en-virtualization-off-inbox", "virtualization_off"),
        ("en-vm-platform-required", "virtualization_off"),
        ("en-not-installed-component", "not_installed"),
        ("en-not-installed-inbox", "not_installed"),
        ("en-install-old-wsl", ""),
        ("de-status-invalid-option", ""),
        ("en-list-verbose", ""),
        ("en-status", ""),
        ("en-version", ""),
    ],
)
def test_what_each_recorded_output_says_of_wsl(name: str, flags: str):
    message = read_message(text(name))
    said = {
        flag
        for flag in ("not_installed", "no_distros", "needs_restart", "virtualization_off")
        if getattr(message, flag)
    }
    assert said == ({flags} if flags else set())


@pytest.mark.parametrize("language", RENDERED_LANGUAGES)
def test_no_distribution_in_every_language(language: str):
    message = read_message(text(f"resw-{language}-list-no-distros"))
    assert message.no_distros and not message.problem
    assert "WSL_E_DEFAULT_DISTRO_NOT_FOUND" in message.codes


def test_error_codes_are_found_whatever_the_language():
    assert error_codes(text("en-virtualization-off"))[-1] == "HCS_E_HYPERV_NOT_INSTALLED"
    assert error_codes(text("en-virtualization-off-0x80370102")) == ("0x80370102",)
    assert "Wsl/WSL_E_DEFAULT_DISTRO_NOT_FOUND" in error_codes(text("resw-ja-JP-list-no-distros"))


@pytest.mark.parametrize(
    "said",
    [
        "Der angeforderte Vorgang wurde erfolgreich abgeschlossen. Änderungen werden erst nach einem "
        "Neustart des Systems wirksam.",
        "L’opération demandée est réussie. Les modifications ne seront pas effectives avant que le "
        "système ne soit réamorcé.",
        "请求的操作成功。直到重新启动系统前更改将不会生效。",
        "要求された操作は正常に終了しました。次のシステムの再起動後に変更が有効になります。",
        "Error code: Wsl/InstallDistro/ERROR_SUCCESS_REBOOT_REQUIRED",
    ],
)
def test_a_pending_restart_in_the_languages_seen(said: str):
    assert read_message(said).needs_restart


def test_may_need_a_restart_is_no_pending_restart():
    # "The system may need to be restarted" (a missing component) is not Windows' 3010 answer.
    message = read_message(text("en-not-installed-component"))
    assert message.not_installed and not message.needs_restart


# --- the whole picture -----------------------------------------------------------------------


def test_facts_of_a_working_wsl():
    facts = wsl_facts(
        output("en-list-verbose"), output("en-status"), output("en-version"), windows_build=22631, gpu=True
    )
    assert facts.installed and facts.gpu_compute is True and facts.windows_build == 22631
    assert [d.name for d in facts.distros] == ["Ubuntu", "Legacy", "Ubuntu-18.04", "docker-desktop"]
    assert facts.default_distro is not None and facts.default_distro.name == "Ubuntu"
    assert (facts.default_version, facts.wsl_version, facts.kernel_version) == (2, "2.2.4.0", "5.15.153.1-2")
    assert facts.virtualization is True  # a WSL 2 distribution runs
    assert not facts.needs_restart and facts.detail is None


def test_facts_of_the_inbox_wsl_without_version_option():
    facts = wsl_facts(output("en-list-wsl1"), output("en-status-inbox"), output("en-install-old-wsl"))
    assert facts.installed and facts.wsl_version is None
    assert facts.kernel_version == "5.10.102.1"  # from --status, where the inbox WSL says it
    assert facts.virtualization is None  # only a WSL 1 distribution runs


def test_facts_of_wsl_without_distributions_and_virtualization_off():
    facts = wsl_facts(
        output("resw-zh-CN-list-no-distros"),
        output("resw-zh-CN-status-no-virtualization"),
        output("resw-zh-CN-version"),
    )
    assert facts.installed and facts.distros == ()
    assert facts.virtualization is False and facts.default_version == 2
    assert facts.detail == "适用于 Linux 的 Windows 子系统没有已安装的分发。"  # the listing's own words


def test_facts_when_wsl_is_not_installed():
    facts = wsl_facts(
        output("en-not-installed-component"),
        output("en-not-installed-component"),
        output("en-not-installed-component"),
        windows_build=19045,
    )
    assert not facts.installed and facts.distros == ()
    assert facts.detail == "This application requires the Windows Subsystem for Linux Optional Component."


def test_facts_when_nothing_answered():
    facts = wsl_facts(None, None, None, detail="wsl.exe --list --verbose: no answer within the 8 s for WSL")
    assert not facts.installed and facts.detail is not None and "no answer" in facts.detail


def test_facts_are_a_valid_report_block_and_round_trip():
    schema = json.loads(
        resources.files("gpuwizard.resources").joinpath("schemas/system-1.schema.json").read_text()
    )
    facts = wsl_facts(
        output("en-list-verbose"), output("en-status"), output("en-version"), windows_build=22631
    )
    report = SystemReport(os=OsFacts("windows", False, "10.0.22631", "x86_64"), wsl=facts)
    data = report_to_json(report)
    jsonschema.validate(data, schema)
    assert report_from_json(json.loads(json.dumps(data))).wsl == facts


def test_an_older_report_without_wsl_still_loads():
    older = json.loads(
        (
            Path(__file__).resolve().parents[2] / "fixtures" / "reports" / "windows-rtx3060-546.33.json"
        ).read_text()
    )
    assert "wsl" not in older
    assert report_from_json(older).wsl is None


# --- GPU compute in WSL 2 --------------------------------------------------------------------


def test_gpu_compute_minimums_are_the_compatibility_policy():
    policies = json.loads(
        resources.files("gpuwizard.resources").joinpath("compat/policies.json").read_text(encoding="utf-8")
    )["policies"]
    policy = next(p for p in policies if p["id"] == "wsl2_gpu")
    assert bundled_gpu_minimums() == WslGpuMinimums(
        int(policy["min_windows_build"]), policy["windows_driver_min_for_tensorflow"]
    )


@pytest.mark.parametrize(
    ("build", "driver", "nvidia", "expected"),
    [
        (22631, "581.57", True, True),
        (19044, "528.33", True, True),  # Windows 10 21H2 and the floor driver exactly
        (19043, "581.57", True, False),  # Windows 10 21H1
        (26100, "528.24", True, False),  # a CUDA 12.0 driver below the floor
        (26100, None, True, False),  # an NVIDIA GPU without a driver
        (26100, "581.57", False, None),  # no NVIDIA GPU: nothing to tell
        (None, "581.57", True, None),  # build unknown
    ],
)
def test_gpu_compute(build: int | None, driver: str | None, nvidia: bool, expected: bool | None):
    assert gpu_compute(build, driver, nvidia) is expected


def test_gpu_compute_follows_minimums_handed_in():
    assert gpu_compute(22000, "560.94", True, WslGpuMinimums(22621, "528.33")) is False
    assert gpu_compute(22621, "560.94", True, WslGpuMinimums(22621, "560.94")) is True


def test_windows_build():
    assert (windows_build("10.0.26100"), windows_build("10.0"), windows_build("")) == (26100, None, None)
