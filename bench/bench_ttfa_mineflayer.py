"""Time to first action on the mineflayer body, against a flying-squid started here.

Prints, median and p95:
- one poll round trip (``status()`` of a running goto: Python -> Node -> Python),
  against the bare bridge baseline (the adapter's cheapest call, ``status``);
- goto() dispatch: from the call until the handle is back (the body command is sent);
- goto() to first movement: from the call until the bot's position first changes,
  against the seed's 2 s budget and our 500 ms target.

Run: .venv/bin/python bench/bench_ttfa_mineflayer.py [--rounds N]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from world.body import ActionStatus, BlockPos
from world.mineflayer.body import MineflayerBody
from world.mineflayer.node_env import BODY_PACKAGES, SERVER_PACKAGES, missing_packages, setup_hint
from world.mineflayer.server import FlyingSquid

TARGET_MS = 500.0
SEED_BUDGET_MS = 2000.0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def line(label: str, values: list[float]) -> str:
    return f"{label:<34} median {statistics.median(values):8.3f} ms   p95 {pct(values, 0.95):8.3f} ms   n={len(values)}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args()
    missing = missing_packages(BODY_PACKAGES + SERVER_PACKAGES)
    if missing:
        print(f"cannot run: {setup_hint(missing)}", file=sys.stderr)
        return 1
    with FlyingSquid() as server:
        body = MineflayerBody.connect(server.host, server.port, "bench", timeout_s=30)
        try:
            baseline = []
            for _ in range(300):
                t = time.perf_counter()
                body.status()
                baseline.append((time.perf_counter() - t) * 1000)
            polls: list[float] = []
            dispatch: list[float] = []
            first_move: list[float] = []
            origin = body.position().block()
            for i in range(args.rounds):
                target = BlockPos(origin.x + (6 if i % 2 == 0 else 0), origin.y, origin.z)
                t_wall = time.time()
                t = time.perf_counter()
                handle = body.goto(target, tolerance=0.0)
                dispatch.append((time.perf_counter() - t) * 1000)
                while True:
                    t = time.perf_counter()
                    status = handle.status()
                    polls.append((time.perf_counter() - t) * 1000)
                    if status is not ActionStatus.RUNNING:
                        break
                    time.sleep(0.005)
                if status is not ActionStatus.SUCCEEDED:
                    print(f"round {i}: goto {status.value}: {handle.error()}", file=sys.stderr)
                    return 1
                moved = handle.timing["first_move"]
                if moved is not None:
                    first_move.append(moved - t_wall * 1000)
        finally:
            body.close()
    base_med = statistics.median(baseline)
    poll_med = statistics.median(polls)
    move_p95 = pct(first_move, 0.95)
    print(line("bridge baseline (status call)", baseline))
    print(line("poll round trip (action status)", polls) + f"   x{poll_med / base_med:.2f} baseline")
    print(line("goto() dispatch (TTFA)", dispatch) + f"   x{statistics.median(dispatch) / base_med:.2f} baseline")
    print(line("goto() -> first movement", first_move))
    print(
        f"first movement p95 {move_p95:.1f} ms = {move_p95 / TARGET_MS:.2f} of the {TARGET_MS:.0f} ms target, "
        f"{move_p95 / SEED_BUDGET_MS:.2f} of the seed's {SEED_BUDGET_MS:.0f} ms budget"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
