"""Planning time per planner for wooden/stone/iron pickaxe and furnace, against GTPyhop on the same domain.

Prints, per goal: the median planning time of the solver, HTN and GOAP planners
(warm caches, same survey), GTPyhop 2.0.2 running the same HTN method library
(our methods adapted to its API, its default iterative strategy), and two ratios:
the HTN search (``Engine.solve``: a plan from the same methods, which is what GTPyhop
returns) over GTPyhop, target <= 1.0 per goal, and the whole HTN ``plan()`` (search,
fallback branches for the runner-up methods, station and explore moves, the validated
tree) over GTPyhop, printed beside it. The deepest goal, diamond_pickaxe (diamond ore
added to the survey), runs too; GTPyhop gets ``GTPYHOP_LIMIT_S`` on it. Then the routing
decision time without the LLM. Targets: solver and HTN < 50 ms on iron_pickaxe, GOAP
< 200 ms, routing < 10 ms. Last, the survey
every planned goal starts with, on the starter world: ``Body.nearest_blocks``
against the per-kind ``find_blocks`` loop it replaced, and the ratio new/old.

    .venv/bin/python bench/bench_planners.py [--repeat N]
"""

from __future__ import annotations

import argparse
import functools
import io
import signal
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _targets import Direction, report

from craftbt.capabilities.default import default_registry
from craftbt.planners.base import Planner, PlanningFailure, PlanningState
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
#: the deepest goal of the HTN domain, on a survey that has diamond ore
DEEP_GOAL = "diamond_pickaxe"
DEEP_WORLD = PlanningState(available_blocks=frozenset({*(WORLD.available_blocks or ()), "diamond_ore"}))
#: seconds GTPyhop gets per find_plan before it is stopped
GTPYHOP_LIMIT_S = 10.0


class Stopped(Exception):
    """GTPyhop ran past GTPYHOP_LIMIT_S."""


def within(limit_s: float, fn: Callable[[], Any]) -> Any:
    """``fn()``, stopped with :class:`Stopped` after ``limit_s`` seconds (SIGALRM: main thread only)."""
    def stop(signum: int, frame: Any) -> None:
        raise Stopped

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, limit_s)
    try:
        return fn()
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def htn_search(htn: HtnPlanner, goal: str, world: PlanningState) -> Callable[[], int]:
    """The HTN search alone, as ``HtnPlanner.plan`` runs it: the same engine, order and initial state."""
    intent = Intent.from_text(f"obtain {goal}")
    tasks, _ = htn.tasks_for(intent)

    def solve() -> int:
        engine: Engine[CraftState] = Engine(htn.domain, htn._order("any/day", []), max_expansions=htn.max_expansions,
                                            timeout_ms=htn.timeout_ms)
        solution = engine.solve(htn.initial_state(world), tasks)
        assert solution is not None, goal
        return len(solution.nodes)

    return solve


def timed(fn: Callable[[], Any], repeat: int) -> float:
    fn()  # warm caches
    samples = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
    return statistics.median(samples)


def planned(fn: Callable[[], Any], repeat: int, what: str) -> float:
    """Median ms of ``fn``, or NaN (said on the output) when the planner cannot plan the goal."""
    try:
        return timed(fn, repeat)
    except PlanningFailure as failure:
        print(f"  {what}: {failure.reason}: {failure.detail}")
        return float("nan")


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


def gtpyhop_solver(htn: HtnPlanner, world: PlanningState = WORLD) -> Callable[[str], int]:
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
        state.craft = htn.initial_state(world)
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
    print(f"{'goal':16} {'solver ms':>10} {'htn ms':>10} {'goap ms':>10} {'gtpyhop ms':>11} {'search ms':>10}"
          f" {'search/gtpyhop':>15} {'htn/gtpyhop':>12}")
    for goal in (*GOALS, DEEP_GOAL):
        world = DEEP_WORLD if goal == DEEP_GOAL else WORLD
        intent = Intent.from_text(f"obtain {goal}")
        planners: tuple[Planner, ...] = (solver, htn, goap)
        row = [planned(functools.partial(p.plan, intent, world, registry), args.repeat, f"{p.name} {goal}")
               for p in planners]
        search = timed(htn_search(htn, goal, world), args.repeat)
        base = float("nan")
        stopped = False
        if baseline is not None:
            solve = gtpyhop_solver(HtnPlanner(fallbacks=False), world)
            try:
                base = timed(lambda g=goal, f=solve: within(GTPYHOP_LIMIT_S, lambda: f(g)),  # type: ignore[misc]
                             max(3, args.repeat // 4))
            except Stopped:
                base, stopped = GTPYHOP_LIMIT_S * 1000, True
        shown = f"> {base:.0f}" if stopped else f"{base:.2f}"
        print(f"{goal:16} {row[0]:10.2f} {row[1]:10.2f} {row[2]:10.2f} {shown:>11} {search:10.2f}"
              f" {search / base:15.2f} {row[1] / base:12.2f}")
        if goal == "iron_pickaxe":
            for name, value, limit in (("solver", row[0], 50.0), ("HTN", row[1], 50.0), ("GOAP", row[2], 200.0)):
                report(f"{name} plans iron_pickaxe", value, "ms", limit, Direction.AT_MOST,
                       absolute=f"median of {args.repeat}")
        if baseline is not None:
            bound = "at most " if stopped else ""
            report(f"HTN search vs GTPyhop, {goal}", search / base, "x", 1.0, Direction.AT_MOST,
                   absolute=f"{search:.2f} ms vs {bound and '> '}{base:.2f} ms"
                            f"{' (GTPyhop stopped: no plan within the limit)' if stopped else ''};"
                            f" whole plan() {row[1]:.2f} ms = {bound}{row[1] / base:.2f}x")
    router = Router(registry, PriorsStore(":memory:"), seed=0)
    intent = Intent.from_text("obtain iron_pickaxe")
    full = timed(lambda: router.route(intent, WORLD), max(5, args.repeat // 4))
    fast = timed(lambda: router.route(Intent.from_text("survive threat", urgency=0.95), WORLD), args.repeat)
    one = timed(lambda: router.route(intent, WORLD, planner="solver"), args.repeat)
    print(f"routing iron_pickaxe, all planners (solver+htn+goap, validate, score): {full:.2f} ms")
    print(f"routing iron_pickaxe, one planner: {one:.2f} ms; fast path: {fast:.3f} ms")
    alone = timed(lambda: solver.plan(intent, WORLD, registry), args.repeat)
    print(f"routing overhead beyond planning (one planner): {one - alone:.2f} ms")
    report("routing overhead beyond planning, iron_pickaxe", one - alone, "ms", 10.0, Direction.AT_MOST,
           absolute=f"one planner {one:.2f} ms vs the solver alone {alone:.2f} ms; all planners {full:.2f} ms")
    bench_survey(args.repeat)


if __name__ == "__main__":
    main()
