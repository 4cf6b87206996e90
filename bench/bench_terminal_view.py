"""What the terminal view costs: the same ``craftbt run`` with a terminal (the live view draws) and piped.

Run: ``.venv/bin/python bench/bench_terminal_view.py [--pairs 2] [--goal "obtain iron_pickaxe"]``.

Each pair runs ``craftbt run --goal GOAL --world natural --seed 77`` twice, in a fresh
``CRAFTBT_HOME`` each: once under a pseudo-terminal (``pty``: stdout and stderr are a terminal, 120x40,
so the live view of the running branch is drawn), once with both piped to a file (no live view: the
baseline). The two kinds alternate (piped first in odd pairs, terminal first in even ones), so drift
on a shared machine falls on both. It prints each wall time, the ratio of the summed terminal times
to the summed piped times, and the target through ``bench/_targets.py``: at most 1.15x.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._targets import Direction, report  # noqa: E402

CRAFTBT = [sys.executable, "-m", "craftbt"]
TARGET = 1.15


def _env(home: str) -> dict[str, str]:
    return {**os.environ, "CRAFTBT_HOME": home, "PYTHONPATH": str(ROOT), "TERM": "xterm-256color",
            "COLUMNS": "120", "LINES": "40"}


def run_piped(args: list[str]) -> tuple[float, int, int]:
    """Wall seconds, exit status, bytes written."""
    with tempfile.TemporaryDirectory() as home, tempfile.TemporaryFile() as sink:
        start = time.perf_counter()
        done = subprocess.run([*CRAFTBT, *args], env=_env(home), stdout=sink, stderr=sink, timeout=1800)
        wall = time.perf_counter() - start
        sink.seek(0, os.SEEK_END)
        return wall, done.returncode, sink.tell()


def run_tty(args: list[str]) -> tuple[float, int, int]:
    """The same under a pseudo-terminal; what it draws is read (and counted) as a terminal would."""
    with tempfile.TemporaryDirectory() as home:
        leader, follower = pty.openpty()
        fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))
        start = time.perf_counter()
        proc = subprocess.Popen([*CRAFTBT, *args], env=_env(home), stdin=follower, stdout=follower,
                                stderr=follower, close_fds=True)
        os.close(follower)
        drawn = 0
        while True:
            ready, _, _ = select.select([leader], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:  # the child closed the terminal
                    break
                if not chunk:
                    break
                drawn += len(chunk)
            elif proc.poll() is not None:
                break
        status = proc.wait(timeout=1800)
        wall = time.perf_counter() - start
        os.close(leader)
        return wall, status, drawn


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=2)
    parser.add_argument("--goal", default="obtain iron_pickaxe")
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--world", default="natural")
    opts = parser.parse_args()
    args = ["run", "--goal", opts.goal, "--world", opts.world, "--seed", str(opts.seed)]
    tty_total = piped_total = 0.0
    for pair in range(opts.pairs):
        order = (("piped", run_piped), ("tty", run_tty)) if pair % 2 == 0 else (("tty", run_tty), ("piped", run_piped))
        for kind, runner in order:
            wall, status, size = runner(args)
            print(f"pair {pair + 1} {kind:5}: {wall:6.2f} s (exit {status}, {size} bytes out)", flush=True)
            if kind == "tty":
                tty_total += wall
            else:
                piped_total += wall
    ratio = tty_total / piped_total
    ok = report("terminal view / piped wall time", ratio, "x", TARGET, Direction.AT_MOST,
                absolute=f"{tty_total / opts.pairs:.2f} s with a terminal vs {piped_total / opts.pairs:.2f} s piped, "
                         f"mean of {opts.pairs} interleaved pairs; {' '.join(args)}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
