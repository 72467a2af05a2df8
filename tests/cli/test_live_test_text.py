"""``gpuwizard test``'s text: the slow preparations named, a ticker on a terminal (issue 20, point 8)."""

from __future__ import annotations

import threading

from gpuwizard.cli.text.live_test import LiveTestProgress, result_text
from gpuwizard.core.livetest.events import LIVE_TEST_EVENTS, result_from_json

IMPORT = LIVE_TEST_EVENTS.read({"event": "prepare", "stage": "import", "framework": "pytorch"})
COMPILE = LIVE_TEST_EVENTS.read({"event": "prepare", "stage": "compile", "device": "cpu", "warmup_steps": 2})
TRAIN = LIVE_TEST_EVENTS.read({"event": "phase", "phase": "train", "device": "cpu"})


def test_piped_output_names_each_preparation_on_its_own_line():
    out: list[str] = []
    view = LiveTestProgress(out.append)
    for event in (IMPORT, COMPILE, TRAIN):
        view(event)
    view.tick()  # no terminal: nothing is redrawn
    view.stop()
    assert out == [
        "  Importing PyTorch…\n",
        "  Compiling the model for the CPU…\n",
        "- Training on the CPU…\n",
    ]


def test_on_a_terminal_the_preparation_line_moves_until_the_next_line():
    out: list[str] = []
    ticked = threading.Event()

    def write(text: str) -> None:
        out.append(text)
        if text.startswith("\r") and not text.endswith("\n"):
            ticked.set()

    view = LiveTestProgress(write, live=True)
    try:
        view(COMPILE)
        assert ticked.wait(60)  # the ticker thread redraws it on its own
        view(TRAIN)
    finally:
        view.stop()
    assert out[0] == "  Compiling the model for the CPU…"
    redraws = [text for text in out if text.startswith("\r") and not text.endswith("\n")]
    assert redraws and all(text.startswith("\r  Compiling the model for the CPU… ") for text in redraws)
    assert {text.split()[-3] for text in redraws} <= set("|/-\\")  # a spinner, then the seconds
    closing = out.index("- Training on the CPU…\n") - 1
    assert out[closing].startswith("\r  Compiling the model for the CPU… ") and out[closing].endswith(
        " s   \n"
    )


def test_a_cancelled_result_says_so_and_never_broken():
    text = result_text(result_from_json({"verdict": "cancelled", "framework": "pytorch", "seconds": 4.2}))
    assert text.startswith("\nCancelled. The test was stopped before it finished: no verdict.")
    assert "broken" not in text and "Verdict" not in text
