"""Build protocol benchmark (embedded world).

Prints, each with a ratio against a baseline measured in the same run:

* blocks placed per simulated minute and per wall second building the shelter
  through the checkpointed runner (baseline: the same blocks with raw
  ``place_block_at`` leaves ticked directly, no journal, no checkpoints, no
  world persistence) — the ratio is the protocol's overhead;
* the resume scan (reconcile + site + stations + every completed witness +
  the current module) for the 303-block cottage (target < 100 ms); baseline:
  one full ``verify_module``-style witness scan of the whole structure;
* checkpoint write latency (invariants + persisted world + append); baseline:
  a bare SQLite insert of the same checkpoint body.

Both builds run once untimed first (imports, registry, caches), then ``--reps`` times interleaved;
medians are printed. Targets (``report``): protocol wall rate >= 0.5x the raw leaves', resume
scan < 100 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report

from craftbt.capabilities.context import CapabilityContext
from craftbt.capabilities.default import default_registry
from craftbt.executor.build_state.models import checkpoint_id
from craftbt.executor.build_state.store import BuildStore
from craftbt.router.build.runner import BuildRunner, atomic_sim_persist
from craftbt.trees.build import build
from craftbt.trees.structure_template import load_template
from craftbt.trees.structure_witness import scan
from craftbt.world.body import BlockPos
from craftbt.world.sim.body import SimBody

AT = BlockPos(3, 64, 3)
TICKS_PER_MINUTE = 20 * 60


def protocol_build(tmp: Path) -> tuple[int, int, float, list[float]]:
    tpl = load_template("shelter")
    body = SimBody(seed=1)
    for item, n in tpl.materials().items():
        body.give(item, n)
    tmp.mkdir(parents=True, exist_ok=True)
    store = BuildStore(tmp / "p.sqlite")
    runner = BuildRunner(store, body, tpl, AT, "N", persist=atomic_sim_persist(body, tmp / "w.snap"), home=tmp / "ex")
    latencies: list[float] = []
    original = runner.checkpoint

    def timed(meta, mid):  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        ok = original(meta, mid)
        latencies.append((time.perf_counter() - t) * 1000)
        return ok

    runner.checkpoint = timed  # type: ignore[method-assign]
    t0, tick0 = time.perf_counter(), body.now_ticks()
    runner.run()
    return tpl.block_count(), body.now_ticks() - tick0, time.perf_counter() - t0, latencies


def raw_build() -> tuple[int, int, float]:
    """Baseline: the same place_block_at leaves in one tree, ticked directly."""
    from craftbt.planners.building.planner import BuildingPlanner

    tpl = load_template("shelter")
    body = SimBody(seed=1)
    for item, n in tpl.materials().items():
        body.give(item, n)
    plan = BuildingPlanner().plan_build(tpl, AT, "N")
    ctx = CapabilityContext(body=body, registry=default_registry())
    root = build(plan.tree, ctx).root
    t0, tick0 = time.perf_counter(), body.now_ticks()
    for _ in range(200_000):
        root.tick_once()
        if root.status.value in ("SUCCESS", "FAILURE"):
            break
        body.advance(1)
    return tpl.block_count(), body.now_ticks() - tick0, time.perf_counter() - t0


def resume_scan(tmp: Path) -> tuple[float, float]:
    tpl = load_template("cottage")
    body = SimBody(seed=1)
    store = BuildStore(tmp / "c.sqlite")
    runner = BuildRunner(store, body, tpl, AT, "N", home=tmp / "ex2")
    for w in runner.witnesses.values():
        for pos, block in w.absolute_placements():
            body.set_block(pos, block)
    meta = runner.load_or_create()
    meta.module_cursor = 5
    meta.completed_modules = meta.module_order[:5]
    resumes = []
    for _ in range(5):
        resumes.append(runner.resume(meta).scan_ms)
    read = lambda p: body.block_at(p).name  # noqa: E731
    full = []
    for _ in range(5):
        t = time.perf_counter()
        for w in runner.witnesses.values():
            scan(w, read)
        full.append((time.perf_counter() - t) * 1000)
    return statistics.median(resumes), statistics.median(full)


def bare_insert(tmp: Path) -> float:
    store = BuildStore(tmp / "b.sqlite")
    body = '{"x": 1}' * 40
    times = []
    for i in range(20):
        t = time.perf_counter()
        store.db.execute(
            "INSERT INTO checkpoints (build_id, checkpoint_id, module_cursor, body, saved_at) VALUES (?, ?, ?, ?, ?)",
            ("b", checkpoint_id("d", i, []), i, body, 0.0),
        )
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        protocol_build(tmp / "warm")  # imports and caches outside the timing, for both ways
        raw_build()
        runs = []
        latencies: list[float] = []
        for i in range(args.reps):  # interleaved, so drift on a shared machine hits both alike
            blocks, ticks, wall, lat = protocol_build(tmp / f"p{i}")
            rblocks, rticks, rwall = raw_build()
            latencies += lat
            runs.append((blocks, ticks, wall, rblocks, rticks, rwall))
        blocks, ticks, _, rblocks, rticks, _ = runs[0]
        wall = statistics.median(r[2] for r in runs)
        rwall = statistics.median(r[5] for r in runs)
        per_min, raw_per_min = blocks / (ticks / TICKS_PER_MINUTE), rblocks / (rticks / TICKS_PER_MINUTE)
        rate, raw_rate = blocks / wall, rblocks / rwall
        print(f"shelter ({blocks} blocks, median of {args.reps}): {per_min:.1f} blocks/sim-minute, "
              f"{rate:.1f} blocks/wall-second")
        print(f"  baseline raw leaves: {raw_per_min:.1f} blocks/sim-minute, {raw_rate:.1f} blocks/wall-second")
        print(f"  ratio protocol/raw: sim-time {per_min / raw_per_min:.2f}x, wall {rate / raw_rate:.2f}x")
        report("build protocol wall rate vs raw leaves", rate / raw_rate, "x", 0.5, Direction.AT_LEAST,
               absolute=f"{rate:.0f} vs {raw_rate:.0f} blocks per wall second")
        resume_ms, full_ms = resume_scan(tmp)
        print(f"resume scan, cottage (303 blocks, cursor 5/6): {resume_ms:.2f} ms")
        print(f"  baseline full witness scan of every module: {full_ms:.2f} ms; ratio {resume_ms / full_ms:.2f}x")
        report("build resume scan, cottage", resume_ms, "ms", 100.0, Direction.AT_MOST,
               absolute=f"{resume_ms / full_ms:.2f}x a full witness scan ({full_ms:.2f} ms)")
        ck = statistics.median(latencies)
        bare = bare_insert(tmp)
        print(f"checkpoint write latency (median of {len(latencies)}): {ck:.2f} ms "
              "(invariants, repairs, world persisted, checkpoint row, build row, event)")
        print(f"  baseline bare SQLite insert: {bare:.3f} ms; ratio {ck / bare:.1f}x")


if __name__ == "__main__":
    main()
