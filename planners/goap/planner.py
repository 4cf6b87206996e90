"""The GOAP planner: A* from the observed state to the goal, emitted as precondition-guarded PPA steps.

Actions are grounded from the registry (:mod:`planners.goap.actions`), costed
from SLA durations (:mod:`planners.goap.costs`) and searched with a
relaxed-plan heuristic (:mod:`planners.goap.search`). Mining actions of the
same item are gathered into dispatches of at most 8 (the leaf's limit).

:meth:`GoapPlanner.replan` is local repair: after a leaf failure the executor's
caller hands it the observation and it plans again from there for the same
intent, without going back to the router.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from craftbt.planners.base import PlanningFailure, PlanningState, PlanResult
from craftbt.planners.goap.actions import GROUNDERS, GroundAction, ground
from craftbt.planners.goap.costs import ActionCosts
from craftbt.planners.goap.search import Heuristic, SearchBudgetExceeded, astar, make_state
from craftbt.planners.htn.knowledge import Knowledge
from craftbt.planners.intent import GoalVerb, Intent
from craftbt.planners.living import HOES, harvest_step, hunt_steps, planted_for, plot_steps, seed_steps
from craftbt.planners.ppa import Check, PlanStep, carry_stations, steps_to_tree
from craftbt.planners.solver import (
    consolidate_mining,
    craft_only_refusal,
    refuse_if_elsewhere,
    refuse_if_unpayable,
    unknown_item,
    with_explores,
)
from craftbt.world.body import Observation

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

STATION_RADIUS = 6


class GoapPlanner:
    name = "goap"

    def __init__(self, *, version: str = "1.21.4", journal: Any | None = None, max_expansions: int = 20_000,
                 timeout_ms: float = 2_000) -> None:
        self.version = version
        self.journal = journal
        self.max_expansions = max_expansions
        self.timeout_ms = timeout_ms
        self.last: tuple[Intent, PlanningState, Registry] | None = None
        self.last_expanded = 0

    def available(self) -> bool:
        return True

    def can_handle(self, intent: Intent) -> bool:
        return intent.goal.verb is GoalVerb.OBTAIN

    def emittable_verbs(self) -> frozenset[str]:
        # explore steps go in before mining what is not in view; hunts and farms emit several leaves each
        return frozenset(GROUNDERS) | {"explore", "attack_entity", "till_soil", "plant_crop", "equip_weapon"}

    def plan(self, intent: Intent, state: PlanningState, registry: Registry) -> PlanResult:
        if not self.can_handle(intent):
            raise PlanningFailure("unsupported_goal", f"GOAP plans obtain goals, not {intent.goal.verb.value}")
        goal, count = intent.goal.target, intent.goal.count
        gather = state.gathers(registry)
        knowledge = Knowledge.of(state, self.version, gather, None if gather else goal)
        if not knowledge.md.has_item(goal):
            raise unknown_item(knowledge.md, goal)
        if not gather:
            refuse_if_unpayable(knowledge.md, goal, knowledge.costs)
        self.last = (intent, state, registry)
        costs = ActionCosts.from_registry(registry, self.journal)
        actions = ground(goal, knowledge, registry, costs)
        start = make_state(state.inventory, state.stations)
        try:
            found = astar(start, goal, count, actions, Heuristic(knowledge, actions),
                          max_expansions=self.max_expansions, timeout_ms=self.timeout_ms)
        except SearchBudgetExceeded as over:
            raise PlanningFailure("budget_exceeded", f"A* gave up after {over}") from None
        if found is None:
            if gather:
                refuse_if_elsewhere(knowledge.md, self.version, goal, state.inventory)
            if not gather:
                raise craft_only_refusal(self.version, state, goal, count)
            raise PlanningFailure("unobtainable", f"no action sequence reaches {count} {goal} from here")
        self.last_expanded = found.expanded
        steps = carry_stations(with_explores(consolidate_mining(_steps(found.actions, state), state.inventory), state),
                               state.stations)
        tree = steps_to_tree(
            tree_name=f"obtain_{goal}",
            description=f"Obtain {count} {goal} (GOAP A*, {len(steps)} steps)",
            goal=Check("has_item", {"item": goal, "count": count}),
            steps=steps,
        )
        tree.source = "planner:goap"
        return PlanResult(
            planner=self.name,
            tree=tree,
            estimated_cost=found.cost,
            confidence=0.8 if not knowledge.assumed else 0.6,
            explanation=(f"A* over {len(actions)} ground actions: {len(found.actions)} actions, "
                         f"{found.expanded} expansions, cost ~{found.cost / 1000:.0f} s"),
            steps=len(steps),
            method="astar_hff",
        )

    def replan(self, observation: Observation, stations: frozenset[str] | None = None) -> PlanResult:
        """Local repair: plan the last intent again from what the body now observes."""
        if self.last is None:
            raise PlanningFailure("nothing_to_repair", "replan() before any plan()")
        intent, before, registry = self.last
        state = PlanningState(
            inventory=dict(observation.inventory),
            available_blocks=before.available_blocks,
            stations=before.stations if stations is None else stations,
            position=observation.position.block(),
            time_of_day=observation.time_of_day,
            health=observation.health,
            food=observation.food,
            gathering=before.gathering,
        )
        result = self.plan(intent, state, registry)
        result.explanation = "local repair from the observed state; " + result.explanation
        return result


def _steps(actions: list[GroundAction], state: PlanningState) -> list[PlanStep]:
    held: dict[str, int] = defaultdict(int, state.inventory)
    steps: list[PlanStep] = []
    for action in actions:
        if action.hunt is not None or action.farm is not None:
            steps += _living_steps(action, held, state.available_blocks or frozenset())
            continue
        pre = [Check("has_item", {"item": i, "count": n}) for i, n in action.needs]
        if action.tools_any:
            tool = next((t for t in sorted(action.tools_any) if held[t] > 0), None)
            if tool is not None:
                pre.append(Check("has_item", {"item": tool, "count": 1}))
        pre += [Check("block_nearby", {"block": s, "radius": STATION_RADIUS}) for s in sorted(action.stations_needed)]
        for item, n in action.consumes:
            held[item] -= n
        for item, n in action.produces:
            held[item] += n
        if action.station_added:
            effect: Check | None = Check("block_nearby", {"block": action.station_added, "radius": STATION_RADIUS})
        elif action.produces:
            item = action.produces[0][0]
            effect = Check("has_item", {"item": item, "count": max(1, held[item])})
        else:
            effect = None
        steps.append(PlanStep(
            name=action.name if action.capability != "acquire_material" else f"mine {action.args['count']} "
            f"{action.args['item']}",
            capability=action.capability, args=dict(action.args), effect=effect, preconditions=pre,
            cost=action.cost, retry=2 if action.capability == "acquire_material" else None,
            produces=dict(action.produces), consumes=dict(action.consumes),
        ))
    return steps


def _living_steps(action: GroundAction, held: dict[str, int], surveyed: frozenset[str]) -> list[PlanStep]:
    """A hunt or a farm action as the leaves it stands for (the same as the solver's and HTN's); crops
    already standing in view are waited for and harvested, not planted again."""
    (item, n), = action.produces
    if action.hunt is not None:
        steps = hunt_steps(item, n, action.hunt, held[item])
        held[item] += n
        for used, spent in action.consumes:  # a milking's bucket
            held[used] -= spent
        return steps
    assert action.farm is not None
    farm = action.farm
    if farm.crop in surveyed:
        held[item] += n
        return [harvest_step(farm, n, held[item], n)]
    hoe = next((h for h in HOES if held[h] > 0), HOES[0])
    planted = planted_for(n)
    short = max(0, planted - held[farm.seed])
    steps = seed_steps(farm, short, held[farm.seed]) if short else []
    held[farm.seed] += short - planted
    held[item] += n
    return [*steps, *plot_steps(farm, n, hoe, held[item])]
