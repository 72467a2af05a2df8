"""Texts with a count read right in every language: "1 thing", "2 things" (issue 37, point 8).

Qt chooses a plural form only from a loaded translation; English, the sources' language, had
none, so the English wizard said "1 thing(s) changed". It now loads an English translation that
holds only the texts with a count (Qt documentation, "Handling Plurals"), also where no
translation matches the locale. Each language runs in a process of its own (a translator is
process-wide), offscreen, through the real application set-up and the Verify page.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources

import pytest

SAMPLE = str(resources.files("gpuwizard.resources").joinpath("samples/no-gpu.json"))

# The Verify page after a verify whose checks all changed (or all broke), for 1 and 2 checks;
# the Test page's list of CUDA libraries with 1 and 2 of them.
CODE = """
import json, sys
from pathlib import Path
from gpuwizard.ui.app import make_application
app = make_application(sys.argv[1] if sys.argv[1] != "-" else None)
from PySide6.QtCore import QEventLoop
from gpuwizard.core.health.checks import HealthCheck, HealthReport
from gpuwizard.core.livetest.libraries import CudaLibrary
from gpuwizard.ui.widgets.cuda_libraries import CudaLibrariesView
from gpuwizard.ui.wizard import SetupWizard
from gpuwizard.workflow.machine.system_file import load_system_report
from gpuwizard.workflow.wizard.session import WizardSession

report = load_system_report(Path(sys.argv[2]))
said = {}
for status in ("changed", "broken"):
    for n in (1, 2):
        checks = tuple(
            HealthCheck(f"driver{i}", "driver", "", status, before="550.1", after="560.2") for i in range(n)
        )
        session = WizardSession(
            detect=lambda: report, previous_setup=True, verify=lambda *_args, checks=checks: HealthReport(checks)
        )
        wizard = SetupWizard(session, start_detection=False)
        wizard.show()
        page = wizard.verify_page
        loop = QEventLoop()
        page.completeChanged.connect(lambda: page.isComplete() and loop.quit())
        if not page.isComplete():
            loop.exec()
        said[f"{status} {n}"] = page.headline.text()
        wizard.close()
libraries = CudaLibrariesView()
for n in (1, 2):
    libraries.show_libraries(tuple(CudaLibrary(f"cudart{i}.dll", f"C:/x/cudart{i}.dll") for i in range(n)), None)
    said[f"libraries {n}"] = libraries.summary_label.text()
print(json.dumps(said))
"""


def texts(lang: str | None) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", CODE, lang or "-", SAMPLE],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "QT_QPA_PLATFORM": "offscreen"},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


# "fr" has no translation of its own: the wizard speaks English there, plurals included.
@pytest.mark.parametrize("lang", ["en", "en_GB", "fr"])
def test_english_says_one_thing_and_two_things(lang: str):
    said = texts(lang)
    assert said["changed 1"] == "Everything works; 1 thing changed since the last good state."
    assert said["changed 2"] == "Everything works; 2 things changed since the last good state."
    assert said["broken 1"] == "1 check failed: something broke since the setup last worked."
    assert said["broken 2"] == "2 checks failed: something broke since the setup last worked."
    assert said["libraries 1"] == "The test loaded 1 CUDA library; it came from the file beside it."
    assert said["libraries 2"] == "The test loaded 2 CUDA libraries; each came from the file beside it."
    assert not any("(s)" in text for text in said.values())


def test_spanish_and_chinese_keep_their_own_plurals():
    spanish = texts("es")
    assert spanish["changed 1"] == "Todo funciona; 1 cosa cambió desde el último estado correcto."
    assert spanish["changed 2"] == "Todo funciona; 2 cosas cambiaron desde el último estado correcto."
    assert spanish["broken 2"].startswith("Fallaron 2 comprobaciones")
    chinese = texts("zh_CN")
    assert all("(s)" not in text and "thing" not in text for text in chinese.values())
    assert "1" in chinese["changed 1"] and "2" in chinese["changed 2"]
    assert chinese["changed 1"] != spanish["changed 1"]
