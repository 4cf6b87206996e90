"""Planning time per planner for wooden/stone/iron pickaxe and furnace, against GTPyhop on the same domain.

Prints, per goal: the median planning time of the solver, HTN and GOAP planners
(warm caches, same survey), GTPyhop 2.0.2 running the same HTN method library
(our methods adapted to its API, its default iterative strategy), and the ratio
ours/GTPyhop. Then the routing decision time without the LLM. Targets: solver and
HTN < 50 ms on iron_pickaxe, GOAP < 200 ms, routing < 10 ms. Last, the survey
every planned goal starts with, on the starter world: ``Body.nearest_blocks``
against the per-kind ``find_blocks`` loop it replaced, and the ratio new/old.

    .venv/bin/python bench/bench_planners.py [--repeat N]
"""

from __future__ import annotations

import argparse
import functools
import io
import statistics
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from typing import Any

from craftbt.capabilities.default import default_registry
from craftbt.planners.base import Planner, PlanningState
from craftbt.planners.goap.planner import GoapPlanner
from craftbt.planners.htn.domain import CraftState
from craftbt.planners.htn.engine import Engine
from craftbt.planners.htn.planner import HtnPlanner
from craftbt.planners.intent import Intent
from craftbt.planners.solver import CraftingSolver
from craftbt.router.priors import PriorsStore
from craftbt.router.router import SURVEY_BLOCKS, SURVEY_RADIUS, Router
from craftbt.world.body import Body
from craftbt.world.scenarios import starter_world

GOALS = ("wooden_pickaxe", "stone_pickaxe", "furnace", "iron_pickaxe")
WORLD = PlanningState(available_blocks=frozenset({"oak_log", "stone", "coal_ore", "iron_ore", "dirt"}))


def timed(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm caches
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def survey_per_kind(body: Body, candidates: list[str], radius: int) -> dict[str, float]:
    """The survey's block distances the way ``PlanningState.survey`` took them before nearest_blocks:
    one capped find_blocks query per kind (the baseline)."""
    here = body.observe().position
    distance: dict[str, float] = {}
    for name in dict.fromkeys(candidates):
        nearest = body.find_blocks([name], radius, max_count=1, exposed=True)
        if nearest:
            distance[name] = round(nearest[0].distance_to(here), 1)
    return distance


def bench_survey(repeat: int) -> None:
    """Survey time on the starter world: one nearest_blocks pass against the per-kind loop."""
    body = starter_world(0)
    candidates = list(SURVEY_BLOCKS)
    state = PlanningState.survey(body, candidates, radius=SURVEY_RADIUS)  # also generates the chunks
    if state.block_distance != survey_per_kind(body, candidates, SURVEY_RADIUS):
        raise RuntimeError("nearest_blocks and the per-kind loop disagree on the starter world")
    new = timed(lambda: PlanningState.survey(body, candidates, radius=SURVEY_RADIUS), repeat)
    old = timed(lambda: survey_per_kind(body, candidates, SURVEY_RADIUS), max(3, repeat // 4))
    print(
        f"survey, starter world, {len(candidates)} kinds, radius {SURVEY_RADIUS}: nearest_blocks {new:.2f} ms, "
        f"per-kind find_blocks {old:.2f} ms, new/old {new / old:.3f}"
    )


def gtpyhop_solver(htn: HtnPlanner) -> Callable[[str], int]:
    """Our HTN method library declared to GTPyhop: same tasks, methods and operators."""
    import gtpyhop

    with redirect_stdout(io.StringIO()):
        gtpyhop.Domain("craftbt_bench")  # becomes GTPyhop's current (global) domain
    gtpyhop.verbose = 0
    domain_obj = htn.domain

    def wrap_op(name: str) -> Callable[..., Any]:
        op = domain_obj.operators[name]

        def action(state: Any, *args: Any) -> Any:
            after: CraftState = state.craft.copy()
            if op.apply(after, *args) is False:
                return False
            state.craft = after
            return state

        action.__name__ = name.replace("!", "a_")
        return action

    engine: Engine[CraftState] = Engine(domain_obj, htn._order("any/day", []))

    def wrap_task(task: str) -> Callable[..., Any]:
        # GTPyhop's default strategy commits to the first method that applies and never backtracks;
        # so it gets our cheapest-first choice as its one method per task
        def m(state: Any, *args: Any) -> Any:
            alternatives = engine.alternatives((task, *args), state.craft)
            if not alternatives:
                return False
            return [(t[0].replace("!", "a_"), *t[1:]) for t in alternatives[0].subtasks]

        m.__name__ = f"m_{task}"
        return m

    gtpyhop.declare_actions(*[wrap_op(n) for n in domain_obj.operators])
    for task in domain_obj.methods:
        gtpyhop.declare_task_methods(task, wrap_task(task))

    def solve(goal: str) -> int:
        state = gtpyhop.State("s")
        state.craft = htn.initial_state(WORLD)
        with redirect_stdout(io.StringIO()):
            plan = gtpyhop.find_plan(state, [("obtain", goal, 1)])
        if not plan:
            raise RuntimeError(f"GTPyhop found no plan for {goal}")
        return len(plan)

    return solve


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    registry = default_registry()
    solver, htn, goap = CraftingSolver(), HtnPlanner(), GoapPlanner()
    try:
        baseline: Callable[[str], int] | None = gtpyhop_solver(HtnPlanner(fallbacks=False))
    except ImportError:
        baseline = None
        print("gtpyhop not installed: `.venv/bin/pip install gtpyhop==2.0.2` for the baseline")
    print(f"{'goal':16} {'solver ms':>10} {'htn ms':>10} {'goap ms':>10} {'gtpyhop ms':>11} {'htn/gtpyhop':>12}")
    for goal in GOALS:
        intent = Intent.from_text(f"obtain {goal}")
        planners: tuple[Planner, ...] = (solver, htn, goap)
        row = [timed(functools.partial(p.plan, intent, WORLD, registry), args.repeat) for p in planners]
        base = timed(functools.partial(baseline, goal), max(3, args.repeat // 4)) if baseline else float("nan")
        print(f"{goal:16} {row[0]:10.2f} {row[1]:10.2f} {row[2]:10.2f} {base:11.2f} {row[1] / base:12.2f}")
    router = Router(registry, PriorsStore(":memory:"), seed=0)
    intent = Intent.from_text("obtain iron_pickaxe")
    full = timed(lambda: router.route(intent, WORLD), max(5, args.repeat // 4))
    fast = timed(lambda: router.route(Intent.from_text("survive threat", urgency=0.95), WORLD), args.repeat)
    one = timed(lambda: router.route(intent, WORLD, planner="solver"), args.repeat)
    print(f"routing iron_pickaxe, all planners (solver+htn+goap, validate, score): {full:.2f} ms")
    print(f"routing iron_pickaxe, one planner: {one:.2f} ms; fast path: {fast:.3f} ms")
    alone = timed(lambda: solver.plan(intent, WORLD, registry), args.repeat)
    print(f"routing overhead beyond planning (one planner): {one - alone:.2f} ms")
    bench_survey(args.repeat)


if __name__ == "__main__":
    main()
