"""How long a test waits for something it expects: a guard against hangs, never an expectation.

A test waits on events (a signal, a line of output, a condition), and these limits only stop a
test whose event never comes. They are long on purpose: on a loaded 2-core machine, with four
test workers each training a network, a Qt worker or a child process can take many seconds to
do what takes milliseconds alone, and a limit close to the usual time turns a slow run into a
red one (docs/architecture.md, "Tests"). `tests/test_project_rules.py` keeps shorter limits out.
"""

from __future__ import annotations

from typing import Final

#: For ``qtbot.waitUntil`` / ``waitSignal`` and the like, in milliseconds.
EVENT_MS: Final = 120_000
#: For ``threading.Event.wait``, ``Popen.wait``, ``communicate`` and ``join``, in seconds.
EVENT_S: Final = 120
#: What a test lets pass to show that something does *not* happen (a negative check: a slow
#: machine can only make it pass, never fail).
QUIET_S: Final = 0.3
