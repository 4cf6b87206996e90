"""Ten bots on one flying-squid server against one bot alone: time to first action per bot, in one run.

Starts a private flying-squid on loopback, runs the greet tree ``--rounds`` times on one bot
(in-process: the baseline), then on ``--bots`` bots at once (each a Ray actor with its own
Node bridge, body, executor and journal), and prints each bot's TTFA p95 (dispatch to first
body command, from the journals) against the single bot's, plus the absolute figures. The
journal counts TTFA in game ticks, so these figures have a 50 ms resolution (one tick);
``bench_ttfa_mineflayer.py`` measures one bot's TTFA in wall milliseconds. The server and
the actors stop at the end.

Run: .venv/bin/python bench/bench_fleet.py [--bots 10] [--rounds 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from craftbt.evaluation.fleet import BodyKind, FleetSpec, ItemResult, WorkItem, run_fleet
from craftbt.executor.sla import percentile
from craftbt.world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES, missing_packages, setup_hint
from craftbt.world.mineflayer.server import FlyingSquid

GREET = str(Path(__file__).resolve().parents[1] / "trees" / "library" / "greet.yaml")


def p95(values: list[float]) -> float:
    """The SLA report's nearest-rank percentile (NaN for no samples)."""
    found = percentile(values, 95)
    return float("nan") if found is None else found


def per_bot(results: list[ItemResult]) -> dict[int, list[float]]:
    out: dict[int, list[float]] = {}
    for r in results:
        out.setdefault(r.bot, []).extend(r.ttfa_ms)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bots", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    missing = missing_packages(BODY_PACKAGES + SERVER_PACKAGES)
    if missing:
        print(f"skipped: {setup_hint(missing)}")
        return 0
    server = FlyingSquid().start()
    try:
        spec = FleetSpec(bots=1, body=BodyKind.MINEFLAYER, host=server.host, port=server.port)
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            alone = run_fleet(spec, [WorkItem(kind="tree", text=GREET)] * args.rounds, Path(tmp) / "one")
            t1 = time.perf_counter()
            many_spec = spec.model_copy(update={"bots": args.bots})
            items = [WorkItem(kind="tree", text=GREET)] * (args.bots * args.rounds)
            many = run_fleet(many_spec, items, Path(tmp) / "many", workers=args.bots)
            t2 = time.perf_counter()
    finally:
        server.stop()
    base = p95([t for r in alone for t in r.ttfa_ms])
    ok_alone = sum(r.status == "success" for r in alone)
    ok_many = sum(r.status == "success" for r in many)
    print(f"greet x{args.rounds} per bot on one flying-squid server (loopback)")
    print(f"  1 bot           : TTFA p95 {base:6.2f} ms, {ok_alone}/{len(alone)} runs succeeded, {t1 - t0:.1f} s"
          "  [baseline]")
    print(f"  {args.bots} bots at once : {ok_many}/{len(many)} runs succeeded, {t2 - t1:.1f} s (Ray start-up included)")
    for bot, values in sorted(per_bot(many).items()):
        print(f"    bot {bot:2d}: TTFA p95 {p95(values):6.2f} ms  ({p95(values) / base:.2f}x the single bot),"
              f" median {statistics.median(values):.2f} ms over {len(values)} steps")
    worst = max(p95(v) for v in per_bot(many).values())
    print(f"  worst bot's TTFA p95: {worst:.2f} ms = {worst / base:.2f}x the single bot")
    return 0 if ok_many == len(many) and ok_alone == len(alone) else 1


if __name__ == "__main__":
    sys.exit(main())
