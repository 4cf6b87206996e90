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
"""

from __future__ import annotations

import statistics
import tempfile
import time
from pathlib import Path

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
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        blocks, ticks, wall, latencies = protocol_build(tmp)
        rblocks, rticks, rwall = raw_build()
        per_min, raw_per_min = blocks / (ticks / TICKS_PER_MINUTE), rblocks / (rticks / TICKS_PER_MINUTE)
        print(f"shelter ({blocks} blocks): {per_min:.1f} blocks/sim-minute, {blocks / wall:.1f} blocks/wall-second")
        print(f"  baseline raw leaves: {raw_per_min:.1f} blocks/sim-minute, {rblocks / rwall:.1f} blocks/wall-second")
        print(
            f"  ratio protocol/raw: sim-time {per_min / raw_per_min:.2f}x, "
            f"wall {(blocks / wall) / (rblocks / rwall):.2f}x"
        )
        resume_ms, full_ms = resume_scan(tmp)
        print(f"resume scan, cottage (303 blocks, cursor 5/6): {resume_ms:.2f} ms (target < 100 ms)")
        print(f"  baseline full witness scan of every module: {full_ms:.2f} ms; ratio {resume_ms / full_ms:.2f}x")
        ck = statistics.median(latencies)
        bare = bare_insert(tmp)
        print(f"checkpoint write latency (median of {len(latencies)}): {ck:.2f} ms")
        print(f"  baseline bare SQLite insert: {bare:.3f} ms; ratio {ck / bare:.1f}x")


if __name__ == "__main__":
    main()
