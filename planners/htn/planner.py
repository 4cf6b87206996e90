"""The HTN planner: decomposes an intent with the method library and emits the decomposition as a tree.

Compound tasks become named sequences; where a task had another applicable
method of similar cost, the chosen method and that alternative become a
selector (chosen first), so a method that fails at run time falls back
without going back to the router. Every primitive step is a PPA step
(effect-guarded, precondition-checked leaf). Alternatives are ordered by
estimated cost divided by the expected success of the method in this context
(biome and time of day) from the priors store, and halved for every recent
failure the intent reports, so a method that keeps failing here drops back.
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any, Protocol

from craftbt.planners.base import PlanningFailure, PlanningState, PlanResult
from craftbt.planners.htn.domain import CROPS, SURVIVAL_NEEDS, CraftState, build_domain
from craftbt.planners.htn.engine import (
    Alternative,
    BudgetExceeded,
    CompoundNode,
    DecompNode,
    Engine,
    PrimitiveNode,
    Task,
    methods_used,
    plan_steps,
)
from craftbt.planners.htn.knowledge import Knowledge
from craftbt.planners.intent import GoalVerb, Intent, context_key
from craftbt.planners.ppa import (
    Check,
    NodeData,
    PlanStep,
    dedupe_leaf_names,
    group_attempts,
    retried,
    station_moves,
)
from craftbt.planners.solver import (
    MINE_BATCH,
    craft_only_refusal,
    explore_moves,
    merge_mining,
    rederive_effects,
    refuse_if_elsewhere,
    refuse_if_unpayable,
    unknown_item,
)
from craftbt.trees.model import TreeDefinition
from craftbt.world.mcdata import load

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

#: tasks whose runner-up method becomes a fallback branch in the tree
FALLBACK_TASKS = frozenset({"produce", "fuel_for", "survive"})
#: a runner-up is kept only when it is this close in cost and this small
FALLBACK_COST_RATIO = 1.5
FALLBACK_MAX_STEPS = 6
#: a recent failure of a method multiplies its expected success by this
RECENT_FAILURE_PENALTY = 0.5
MIN_SUCCESS = 0.02


class MethodPriors(Protocol):
    def expected_success(self, planner: str, method: str, context: str) -> float: ...


class HtnPlanner:
    name = "htn"

    def __init__(
        self,
        priors: MethodPriors | None = None,
        *,
        version: str = "1.21.4",
        max_expansions: int = 20_000,
        timeout_ms: float = 2_000,
        fallbacks: bool = True,
    ) -> None:
        self.domain = build_domain()
        self.priors = priors
        self.version = version
        self.max_expansions = max_expansions
        self.timeout_ms = timeout_ms
        self.fallbacks = fallbacks
        self._inserts: dict[int, list[PlanStep]] = {}

    def available(self) -> bool:
        return True

    def can_handle(self, intent: Intent) -> bool:
        return intent.goal.verb is not GoalVerb.EXPLORE

    def emittable_verbs(self) -> frozenset[str]:
        return self.domain.capabilities() | {"explore"}  # explore steps go in before mining what is not in view

    # -- planning -------------------------------------------------------------------------------
    def tasks_for(self, intent: Intent) -> tuple[list[Task], Check | None]:
        goal = intent.goal
        if goal.verb is GoalVerb.OBTAIN:
            return [("obtain", goal.target, goal.count)], Check("has_item", {"item": goal.target, "count": goal.count})
        if goal.verb is GoalVerb.BUILD:
            crop = goal.target.removesuffix("_farm")
            if crop in CROPS:
                return [("farm", crop)], None
            return [("build", goal.target)], None
        if goal.verb is GoalVerb.SURVIVE:
            if goal.target not in SURVIVAL_NEEDS:
                raise PlanningFailure("unknown_need", f"survive {goal.target!r}: one of {', '.join(SURVIVAL_NEEDS)}")
            return [("survive", goal.target)], None
        raise PlanningFailure("unsupported_goal", f"the HTN library has no methods for {goal.verb.value}")

    def initial_state(self, state: PlanningState, gather: bool = True, goal: str | None = None) -> CraftState:
        return CraftState(
            knowledge=Knowledge.of(state, self.version, gather, goal),
            inventory=defaultdict(int, state.inventory),
            stations=set(state.stations),
            position=state.position,
            time_of_day=state.time_of_day,
            health=state.health,
            food=state.food,
        )

    def plan(self, intent: Intent, state: PlanningState, registry: Registry) -> PlanResult:
        tasks, goal_check = self.tasks_for(intent)
        if intent.goal.verb is GoalVerb.OBTAIN and not load(self.version).has_item(intent.goal.target):
            raise unknown_item(load(self.version), intent.goal.target)
        context = context_key(intent.context, state.time_of_day)
        recent = [str(m) for m in intent.context.get("recent_failures", [])]
        engine: Engine[CraftState] = Engine(
            self.domain, self._order(context, recent), max_expansions=self.max_expansions,
            timeout_ms=self.timeout_ms,
        )
        gather = state.gathers(registry) or intent.goal.verb is not GoalVerb.OBTAIN
        start = self.initial_state(state, gather, intent.goal.target if not gather else None)
        if not gather:
            refuse_if_unpayable(start.knowledge.md, intent.goal.target, start.knowledge.costs)
        try:
            solution = engine.solve(start, tasks)
        except BudgetExceeded as over:
            raise PlanningFailure("budget_exceeded", over.reason) from None
        if solution is None:
            if intent.goal.verb is GoalVerb.OBTAIN and gather:
                refuse_if_elsewhere(load(self.version), self.version, intent.goal.target, state.inventory)
            if not gather:
                raise craft_only_refusal(self.version, state, intent.goal.target, intent.goal.count)
            raise PlanningFailure("no_decomposition", f"no method decomposes {intent.goal} from this state")
        steps = gather_up_front(plan_steps(solution.nodes), state.inventory)
        self._inserts = _inserts(steps, state)
        children = [n for n in (self._node(x, engine) for x in solution.nodes) if n is not None]
        plan: NodeData = {"kind": "sequence", "name": str(intent.goal), "memory": True, "children": children}
        root = plan if goal_check is None else {"kind": "selector", "name": f"goal: {goal_check.label()}",
                                                "memory": True, "children": [goal_check.data(), plan]}
        # built as data and validated once, whole (as ppa.steps_to_tree does)
        tree = TreeDefinition.model_validate({
            "tree": _tree_name(intent), "description": f"{intent.goal} (HTN, {len(steps)} steps)", "root": root,
            "source": "planner:htn"})
        dedupe_leaf_names(tree.root)
        methods = methods_used(solution.nodes)
        cost = sum(s.cost for s in steps)
        assumed = solution.state.knowledge.assumed
        return PlanResult(
            planner=self.name,
            tree=tree,
            estimated_cost=cost,
            confidence=0.85 if not assumed else 0.65,
            explanation=(
                f"{len(steps)} steps in {solution.expansions} expansions; cost ~{cost:.0f} ticks; context {context}; "
                f"methods: {', '.join(m for m in methods if not m.endswith(':held') and ':in_reach' not in m)[:300]}"
            ),
            steps=len(steps),
            method=methods[0] if methods else "htn",
            methods=methods,
        )

    def _order(self, context: str, recent: list[str]) -> Any:
        def order(task: Task, alternatives: list[Alternative], state: Any) -> list[Alternative]:
            if len(alternatives) < 2:
                return alternatives

            def key(alt: Alternative) -> float:
                priors = self.priors
                success = 1.0 if priors is None else priors.expected_success(self.name, alt.method_id, context)
                if recent:
                    success *= RECENT_FAILURE_PENALTY ** recent.count(alt.method_id)
                return alt.cost / max(success, MIN_SUCCESS)

            return sorted(alternatives, key=key)

        return order

    # -- emission ---------------------------------------------------------------------------------
    def _node(self, node: DecompNode, engine: Engine[CraftState]) -> NodeData | None:
        """The tree node of ``node`` as data (:meth:`PlanStep.data`), or None when it emits nothing."""
        if isinstance(node, PrimitiveNode):
            if node.step is None:
                return None
            moves = self._inserts.get(id(node.step), [])
            if not moves:
                return node.step.data()
            return {"kind": "sequence", "name": f"{node.step.name} (stations follow)", "memory": True,
                    "children": [m.data() for m in moves] + [node.step.data()]}
        emitted = [(c, n) for c, n in ((c, self._node(c, engine)) for c in node.children) if n is not None]
        children = _repeat_hunt(emitted)
        if not children:
            return None
        body = children[0] if len(children) == 1 and node.task[0] == "obtain" else {
            "kind": "sequence", "name": _label(node), "memory": True, "children": children}
        fallback = self._fallback(node, engine) if self.fallbacks else None
        if fallback is None:
            return body
        # memory: a failed method is not re-entered on the next tick while its fallback runs
        return {"kind": "selector", "name": f"{_task_label(node.task)} (methods by prior)", "memory": True,
                "children": [body, fallback]}

    def _fallback(self, node: CompoundNode, engine: Engine[CraftState]) -> NodeData | None:
        if node.task[0] not in FALLBACK_TASKS or not node.others:
            return None
        runner_up = node.others[0]
        chosen = max(node.alternative.cost, 1.0)
        if runner_up.cost > chosen * FALLBACK_COST_RATIO:
            return None
        try:
            found = engine.decompose_one(node.task, node.pre_state, runner_up)
        except BudgetExceeded:
            return None
        if found is None or len(plan_steps(found[0])) > FALLBACK_MAX_STEPS:
            return None
        branch = CompoundNode(node.task, runner_up, found[0], node.pre_state, found[1])
        children = [n for n in (self._node(c, engine) for c in branch.children) if n is not None]
        return {"kind": "sequence", "name": _label(branch), "memory": True, "children": children} if children else None


def _repeat_hunt(emitted: list[tuple[DecompNode, NodeData]]) -> list[NodeData]:
    """The nodes of a method's children; a hunt's steps whose drop is random (``PlanStep.group_attempts``), from
    its search to its pick-up, under one Retry (the sword crafted before them is not made again)."""
    steps = [c.step for c, _ in emitted if isinstance(c, PrimitiveNode) and c.step is not None]
    attempts = group_attempts(steps)
    if attempts is None:
        return [n for _, n in emitted]
    group = next(s.group for s in steps if s.group_attempts)
    first = next(i for i, (c, _) in enumerate(emitted)
                 if isinstance(c, PrimitiveNode) and c.step is not None and c.step.group == group)
    hunt = {"kind": "sequence", "name": group or "hunt", "memory": True, "children": [n for _, n in emitted[first:]]}
    return [n for _, n in emitted[:first]] + [retried(hunt, attempts)]


def _task_label(task: Task) -> str:
    name, *args = task
    shown = [str(a) for a in args if not isinstance(a, tuple)]
    return " ".join([name, *shown])


def _label(node: CompoundNode) -> str:
    alt = node.alternative
    how = alt.method.name + (f" {alt.label}" if alt.label else "")
    return f"{_task_label(node.task)} [{how}]"


def gather_up_front(steps: list[PlanStep], inventory: dict[str, int]) -> list[PlanStep]:
    """The steps that gather: each block's later mining steps folded into its first (as the solver does).

    The decomposition mines one log per batch of planks, so the iron pickaxe's sticks wanted a log after
    the long search for iron, far from any tree (seed 2: ``no spruce_log within 32 blocks``). A folded
    step stays in the tree, producing nothing in the plan: its effect then holds on the surplus gathered
    earlier, so it runs only when that surplus was lost. Returns the steps that still gather (the
    explore and station moves are worked out on those).
    """
    kept = merge_mining(steps, cap=MINE_BATCH)  # one dispatch each: a tree node cannot be split
    still = {id(s) for s in kept}
    for step in steps:
        if id(step) not in still:
            step.produces = dict.fromkeys(step.produces, 0)
            step.cost = 0.0
    rederive_effects(steps, inventory)
    return kept


def _inserts(steps: list[PlanStep], state: PlanningState) -> dict[int, list[PlanStep]]:
    """Steps to run before each of ``steps``: explore for what is not in view, and carry workstations
    along (picked up before any move, the explore steps' included, and placed again where needed)."""
    explores = explore_moves(steps, state)
    full = [s for step in steps for s in (*explores.get(id(step), ()), step)]
    stations = station_moves(full, state.stations)
    out: dict[int, list[PlanStep]] = {}
    for step in steps:
        before = [m for e in explores.get(id(step), ()) for m in (*stations.get(id(e), ()), e)]
        before += stations.get(id(step), [])
        if before:
            out[id(step)] = before
    return out


def _tree_name(intent: Intent) -> str:
    raw = f"{intent.goal.verb.value}_{intent.goal.target}"
    return "".join(c if c.isalnum() or c == "_" else "_" for c in raw.lower())
