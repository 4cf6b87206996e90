"""The tech tree on the test server against the embedded world: ``craftbt eval --body mineflayer`` as a benchmark.

Every episode runs twice: on the embedded natural world for its seed (the baseline, measured in this run) and
on flying-squid serving that same world (one server and one bot per episode, the time of day fixed at 1000;
see ``craftbt.evaluation.server_episode``). Target (issue: the tech tree on the real server): the server
succeeds in at least 90 % of the episodes the embedded world succeeds in.

Not in ``make bench`` (its name does not match ``bench_*.py``): the server episodes dig in real time, about
an hour for the default matrix. Run: .venv/bin/python bench/eval_server.py [--seeds 1-5] [--goals ...] [--out DIR]
Results resume from --out like ``craftbt eval``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _targets import Direction, report

from craftbt.cli.eval_cmds import parse_goals, parse_seeds
from craftbt.evaluation.episode import EpisodeBody, EpisodeResult
from craftbt.evaluation.runner import evaluate, expand
from craftbt.evaluation.side_by_side import agreement, pair_up, side_by_side_text
from craftbt.evaluation.store import ResultStore

GOALS = "obtain wooden_pickaxe,obtain stone_pickaxe,obtain iron_pickaxe"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goals", default=GOALS)
    parser.add_argument("--seeds", default="1-5")
    parser.add_argument("--max-ticks", type=int, default=36_000)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    out = args.out or Path(tempfile.mkdtemp(prefix="craftbt-eval-server-"))
    specs = expand(parse_goals(args.goals), parse_seeds(args.seeds), ["auto"], ["natural"], args.max_ticks)
    specs += [s.model_copy(update={"body": EpisodeBody.MINEFLAYER}) for s in specs]
    started = time.perf_counter()

    def seen(r: EpisodeResult) -> None:
        print(f"  {r.goal} seed {r.seed} {r.world}: {r.status.value} ({r.wall_ms / 1000:.0f} s)", flush=True)

    evaluate(specs, out, on_result=seen)
    store = ResultStore(out / "results.sqlite")
    try:
        wanted = {s.key for s in specs}
        results = [r for r in store.results() if r.key in wanted]
    finally:
        store.close()
    pairs = pair_up(results)
    for line in side_by_side_text(pairs):
        print(line)
    a = agreement(pairs)
    walls = {side: [r.wall_ms / 1000 for r in results if r.world.endswith("@server") == (side == "server") and r.ok]
             for side in ("embedded", "server")}
    medians = {k: statistics.median(v) if v else float("nan") for k, v in walls.items()}
    print(f"wall time {time.perf_counter() - started:.0f} s; median successful episode: embedded "
          f"{medians['embedded']:.1f} s, server {medians['server']:.1f} s; results {out}")
    share = a.server_share if a.server_share is not None else 0.0
    ok = report("eval_server_share", share, "x", 0.9, Direction.AT_LEAST,
                absolute=f"server {a.server}/{a.pairs} vs embedded {a.embedded}/{a.pairs} (baseline, same run); "
                         f"both {a.both}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
