"""Benchmark: cold load of the shipped registry data (world.mcdata), target < 150 ms.

Run: ``.venv/bin/python bench/bench_mcdata.py``. Prints the absolute time of a full load (read, gunzip,
parse, index) and the ratio against the baseline measured in the same run: parsing the same JSON alone,
so the ratio is the cost of building the lookup tables.
"""

from __future__ import annotations

import gzip
import json
import statistics
import sys
import time
from importlib import resources
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report

from craftbt.world import mcdata


def _best_ms(fn: object, repeat: int = 15) -> float:
    assert callable(fn)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    payload = gzip.decompress(
        (resources.files("craftbt.world") / "data" / mcdata.data_file_name("1.21.4")).read_bytes()
    )
    baseline = _best_ms(lambda: json.loads(payload))
    full = _best_ms(lambda: mcdata.McData(mcdata.read_raw("1.21.4")))
    print(f"json.loads of the data file (baseline): {baseline:.1f} ms")
    print(f"full load (read + gunzip + parse + index): {full:.1f} ms")
    print(f"ratio full/baseline: {full / baseline:.2f}x")
    report("minecraft-data cold load", full, "ms", 150.0, Direction.AT_MOST,
           absolute=f"{full / baseline:.2f}x json.loads of the same data ({baseline:.1f} ms)")


if __name__ == "__main__":
    main()
