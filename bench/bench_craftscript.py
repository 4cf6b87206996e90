"""Benchmark: CraftScript's cost per op against the same body calls made directly, and parse time.

Run: ``.venv/bin/python bench/bench_craftscript.py``. Two figures, each with a same-run baseline:

1. 200 ``block_info`` + ``is_air`` reads through the interpreter (parse excluded) against the same
   ``body.block_at`` calls made directly in a Python loop: ms per op and the ratio;
2. 50 ``dig`` + ``place`` pairs through the interpreter (capability leaves, guards, acceptance) against
   ``body.dig`` / ``body.place`` handles polled directly: wall ms per op and the ratio;
3. the parse time of a 1,000-line script (absolute; baseline: ``str.splitlines`` of the same text).
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable

from craftbt.capabilities.default import default_registry
from craftbt.craftscript.interp import Limits
from craftbt.craftscript.parser import parse
from craftbt.craftscript.runner import run_inline
from craftbt.world.body import ActionStatus, BlockPos, Face
from craftbt.world.scenarios.loader import load_scenario
from craftbt.world.sim.body import SimBody

FLAT = "world/scenarios/flat_empty.yaml"
READS = 200
PAIRS = 50


def _median_ms(fn: Callable[[], object], repeat: int = 5) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def _wait(body: SimBody, handle: object) -> None:
    while handle.status() is ActionStatus.RUNNING:  # type: ignore[attr-defined]
        body.advance(1)


def main() -> None:
    registry = default_registry()
    reads = parse(f"repeat(i: 0..{READS - 1}) {{ block_info(i - 100, 63, 0); }}")

    def script_reads() -> None:
        out = run_inline(reads, load_scenario(FLAT, 0), registry, limits=Limits(max_ops=100_000))
        assert out.ok

    def direct_reads() -> None:
        body = load_scenario(FLAT, 0)
        for i in range(READS):
            body.block_at(BlockPos(i - 100, 63, 0))

    s_ms, d_ms = _median_ms(script_reads), _median_ms(direct_reads)
    print(f"reads: script {s_ms / READS * 1000:.1f} us/op, direct {d_ms / READS * 1000:.1f} us/op "
          f"(includes scenario load), ratio {s_ms / d_ms:.2f}x")

    world = parse(f'repeat(i: 0..{PAIRS - 1}) {{ dig(2, 63, 0); place("dirt", 2, 63, 0); }}')

    def script_world() -> None:
        body = load_scenario(FLAT, 0)
        body.world.player.inventory.add("dirt", PAIRS)
        out = run_inline(world, body, registry, limits=Limits(max_ops=100_000))
        assert out.ok, out.error

    def direct_world() -> None:
        body = load_scenario(FLAT, 0)
        body.world.player.inventory.add("dirt", PAIRS)
        for _ in range(PAIRS):
            _wait(body, body.dig(BlockPos(2, 63, 0)))
            body.advance(1)
            _wait(body, body.place("dirt", BlockPos(2, 62, 0), Face.UP))

    s_ms, d_ms = _median_ms(script_world, 3), _median_ms(direct_world, 3)
    ops = PAIRS * 2
    print(f"dig+place: script {s_ms / ops:.2f} ms/op, direct body calls {d_ms / ops:.2f} ms/op, "
          f"ratio {s_ms / d_ms:.2f}x")

    lines = [f"let v{i} = {i} * 2 + 1; if (v{i} > 3) {{ log(\"x\", v{i}); }}" for i in range(1000)]
    text = "\n".join(lines)
    parse("log(1);")  # build the parser once, outside the timing
    p_ms = _median_ms(lambda: parse(text))
    b_ms = _median_ms(lambda: text.splitlines())
    print(f"parse of a 1,000-line script: {p_ms:.1f} ms (baseline splitlines {b_ms:.3f} ms)")


if __name__ == "__main__":
    main()
