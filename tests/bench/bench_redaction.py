"""Benchmark: redaction of a support report's text is linear, whatever the text repeats.

Each case repeats one unit (a pip log line, or the start of a rule: ``https://``, ``a@``,
``=a:``, ``-----BEGIN``, ``/t/``, ``--token `` ...) up to SIZE, then up to four times SIZE, and
prints the time and the throughput of each; a rule that scanned back over what it had read
would show a throughput falling with the size (catastrophic backtracking: a 64 MiB log would
never end). Prints figures; asserts nothing.

    python tests/bench/bench_redaction.py [--size BYTES] [--quick] [CASE...]
"""

from __future__ import annotations

import argparse
import time

from gpuwizard.core.support.redaction import Identities, redact_text

WHO = Identities(user_names=("ana",), home_folders=("/home/ana",), host_names=("ana-laptop",))
LOG_LINE = (
    "Collecting torch==2.13.0+cu121 (from -r requirements.txt (line 1)) Downloading "
    "https://download.pytorch.org/whl/cu121/torch-2.13.0%2Bcu121-cp311-cp311-linux_x86_64.whl (2.3 GB) "
    "sha256=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef\n"
)
CASES = {
    "pip log": LOG_LINE, "letters": "a", "words": "abc ", "sk-": "sk-", "https://": "https://", "a@": "a@",
    "=a:": "=a:", "pass: x ": "pass: x ", "machine ": "machine ", "PEM begin": "-----BEGIN PRIVATE KEY-----\n",
    "/t/ in URL": "https://h/t/", "/t/a": "/t/a", "?sig=": "?sig=", "eyJa.": "eyJa.", "x=": "x=",
    "TOKEN=": "TOKEN=", " : ": " : ", "@h.com/": "@h.com/", "Bearer ": "Bearer ", "GPU-": "GPU-0123abcd-",
    "a-": "a-", "a.": "a.", "--token ": "--token ", "AWS_KEY x1 ": "AWS_KEY x1 ", "u:p@": "u:p@",
    "&sig=": "&sig=", "-u a:": "-u a:", "password ": "password ", "://": "://", "a:": "a:", "ana ": "ana ",
    "/home/ana/": "/home/ana/",
    "base64": "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0123456789+/",
}  # fmt: skip


def seconds(text: str) -> float:
    started = time.perf_counter()
    redact_text(text, WHO)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=1 << 18, help="bytes of the smaller text")
    parser.add_argument("--quick", action="store_true", help="4 KiB texts (tests/bench/test_benches_run.py)")
    parser.add_argument("cases", nargs="*", help=f"cases to run (default: all): {', '.join(CASES)}")
    args = parser.parse_args()
    if args.quick:
        args.size = 1 << 12
    print(f"{'case':14} {'MB':>6} {'s':>7} {'MB/s':>6} | {'MB':>6} {'s':>7} {'MB/s':>6} | growth")
    for name, unit in CASES.items():
        if args.cases and name not in args.cases:
            continue
        small = unit * (args.size // len(unit))
        large = unit * (4 * args.size // len(unit))
        first, second = seconds(small), seconds(large)
        print(
            f"{name:14} {len(small) / 1e6:6.2f} {first:7.2f} {len(small) / 1e6 / first:6.2f} | "
            f"{len(large) / 1e6:6.2f} {second:7.2f} {len(large) / 1e6 / second:6.2f} | x{second / first:.1f}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
