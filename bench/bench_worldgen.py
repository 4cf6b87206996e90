"""Natural-world generation per 16^3 section: the vectorised generator against the pure-Python reference.

Both generators build the same square of chunks of the same seeds in one run
(the fast one with its per-seed caches cleared first, so every chunk is built
cold; the reference with a fresh instance per seed), each chunk timed on its
own. A chunk's time divided by the sections it stores is one sample; the figure
is the median sample, caves, lava, ores, plants and trees included (animals are
placed by the world, not the generator, and are left out of both). Times are the
CPU time of this process (``time.process_time``): both generators run on one
thread, and on a shared machine wall time mostly measures the other processes
(wall medians are printed beside them). Also printed:
a chunk taken from the per-seed cache by a second world of the same seed, and a
256x256 region (16x16 chunks) built cold.

    .venv/bin/python bench/bench_worldgen.py [--seeds 1,2,3] [--size 6] [--reps 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from _targets import Direction, report

from craftbt.world.sim import natural_chunk
from craftbt.world.sim.natural import NaturalWorldGenerator
from craftbt.world.sim.natural_reference import NaturalWorldReference
from craftbt.world.sim.storage import BlockStore

TARGET_MS = 1.0  # issue 21: <= 1 ms median per 16^3 section of natural world, caves and ores included


def _square(size: int) -> list[tuple[int, int]]:
    half = size // 2
    return [(cx, cz) for cx in range(-half, size - half) for cz in range(-half, size - half)]


def per_section_ms(gen: NaturalWorldGenerator, chunks: list[tuple[int, int]]) -> tuple[list[float], list[float]]:
    """(CPU, wall) milliseconds per stored section of each chunk, generated in order into one store."""
    store = BlockStore()
    cpu, wall = [], []
    for cx, cz in chunks:
        before = len(store.sections)
        c0, w0 = time.process_time(), time.perf_counter()
        gen.generate_chunk(store, cx, cz)
        c1, w1 = time.process_time(), time.perf_counter()
        sections = len(store.sections) - before
        cpu.append((c1 - c0) * 1000 / sections)
        wall.append((w1 - w0) * 1000 / sections)
    return cpu, wall


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", default="1,2,3")
    ap.add_argument("--size", type=int, default=6, help="chunks per side of the square generated per seed")
    ap.add_argument("--reps", type=int, default=3, help="cold builds of each square by the fast generator")
    args = ap.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    chunks = _square(args.size)

    fast: list[float] = []
    ref: list[float] = []
    fast_wall: list[float] = []
    ref_wall: list[float] = []
    for seed in seeds:
        cpu, wall = per_section_ms(NaturalWorldReference(seed), chunks)
        ref += cpu
        ref_wall += wall
        for _ in range(args.reps):
            natural_chunk.clear_caches()
            cpu, wall = per_section_ms(NaturalWorldGenerator(seed), chunks)
            fast += cpu
            fast_wall += wall
    fast_ms, ref_ms = statistics.median(fast), statistics.median(ref)
    print(f"natural world, median CPU time per 16^3 section over {len(chunks)} chunks x {len(seeds)} seeds: "
          f"vectorised {fast_ms:.3f} ms (p90 {statistics.quantiles(fast, n=10)[-1]:.3f}), "
          f"pure-Python reference {ref_ms:.2f} ms (p90 {statistics.quantiles(ref, n=10)[-1]:.2f}) "
          f"= {ref_ms / fast_ms:.1f}x faster; wall medians {statistics.median(fast_wall):.3f} vs "
          f"{statistics.median(ref_wall):.2f} ms")

    # a second world of the same seed: the chunks come from the per-seed cache, copied into its store
    cached_ms = statistics.median(per_section_ms(NaturalWorldGenerator(seeds[-1]), chunks)[0])
    print(f"the same chunks for a second world of seed {seeds[-1]} (per-seed cache): {cached_ms * 1000:.0f} us "
          f"per section = {fast_ms / cached_ms:.0f}x faster than building them")

    natural_chunk.clear_caches()
    c0, w0 = time.process_time(), time.perf_counter()
    store = BlockStore()
    gen = NaturalWorldGenerator(seeds[0])
    for cx, cz in _square(16):
        gen.generate_chunk(store, cx, cz)
    region_cpu, region_wall = time.process_time() - c0, time.perf_counter() - w0
    print(f"a 256x256 region (16x16 chunks, y -64..{max(k[1] for k in store.sections) * 16 + 15}, "
          f"{len(store.sections)} sections) built cold in {region_cpu:.2f} s CPU ({region_wall:.2f} s wall)")

    report("natural world generation per 16^3 section (median, caves and ores included)", fast_ms, "ms",
           TARGET_MS, Direction.AT_MOST,
           absolute=f"CPU time; {ref_ms / fast_ms:.1f}x faster than the pure-Python reference's {ref_ms:.2f} ms "
                    f"in this run")


if __name__ == "__main__":
    main()
