"""Benchmark: the command line starts at once. ``craftbt --version`` and ``craftbt --help`` within 2x of
``python -c "import py_trees"`` (the baseline, measured in the same run). ``craftbt validate FILE`` is printed
beside them, without a target: it builds the whole default registry (every leaf's args model), which is most
of its time.

Run: ``.venv/bin/python bench/bench_cli_startup.py``. Each command runs as a fresh process (the console
script next to this interpreter, as a user starts it), interleaved with the baseline, 5 times; the medians
are compared. Subcommands import what they use when they run (``craftbt.cli.root.COMMANDS``), so these
three never load the planners, the executor, the simulator, FastAPI, Ray or numpy.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report

ROOT = Path(__file__).resolve().parent.parent
REPS = 5
TREE = ROOT / "trees" / "library" / "greet.yaml"


def _craftbt() -> list[str]:
    script = Path(sys.executable).with_name("craftbt")
    return [str(script)] if script.exists() else [sys.executable, "-m", "craftbt"]


def _seconds(argv: list[str]) -> float:
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)},
                          check=False)
    took = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {done.returncode}: {done.stderr.decode()[-400:]}")
    return took


def main() -> None:
    craftbt = _craftbt()
    commands = {
        "baseline": [sys.executable, "-c", "import py_trees"],
        "--version": [*craftbt, "--version"],
        "--help": [*craftbt, "--help"],
        "validate": [*craftbt, "validate", str(TREE)],
    }
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm the file cache once, unmeasured
        _seconds(argv)
    for _ in range(REPS):
        for name, argv in commands.items():
            samples[name].append(_seconds(argv))
    median = {name: statistics.median(times) for name, times in samples.items()}
    base = median["baseline"]
    print(f"python -c 'import py_trees' (baseline): median {base * 1000:.0f} ms of {REPS}")
    for name in ("--version", "--help", "validate"):
        print(f"craftbt {name}: median {median[name] * 1000:.0f} ms ({median[name] / base:.2f}x)")
    for name, target in (("--version", 2.0), ("--help", 2.0)):
        report(f"craftbt {name} start-up", median[name] / base, "x", target, Direction.AT_MOST,
               absolute=f"{median[name] * 1000:.0f} ms vs {base * 1000:.0f} ms for import py_trees")


if __name__ == "__main__":
    main()
