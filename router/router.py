"""The cognitive task router (seed 003): intent -> task traits -> eligible planners -> one validated tree.

1. Traits from the intent (:func:`traits_of`); the routing matrix
   (:data:`ROUTING_MATRIX`) names the planners eligible for them, best first.
2. Time-critical safety takes the fast path: a fixed capability from
   :data:`FAST_PATHS`, no planning.
3. Otherwise every eligible, available planner that can handle the intent is
   asked for a plan within the intent's time budget. Each candidate is
   validated against the registry (:func:`trees.validate.validate_definition`)
   and passed through the executor's feasibility gate; a rejected candidate is
   recorded with its reason. A craft-only obtain goal (:func:`craft_only`) is
   the exception: the planners are asked in :data:`CRAFT_ONLY_ORDER` and the
   first valid plan is taken (a refusal that proves the goal impossible ends
   the route).
4. Survivors are scored ``confidence x theta x (cheapest cost / cost)``, with
   ``theta`` a Thompson draw from the Beta posterior of the planner's success in
   this context (priors store; seeded RNG). The same score with the posterior
   mean instead of a draw names the historical best; choosing anything else is
   a *disagreement*, recorded with the decision.
5. After a failure the router replans with the failure as context
   (:meth:`Router.replan`): the failed methods are penalized, and a missing
   precondition (an item, a station, fuel or a tool: :mod:`planners.subgoals`)
   becomes a subgoal spliced in front of the replanned goal; the three digests
   (seed 002) record the expansion, the resolved subgoal and the final plan.
   A tree-file run is repaired the same way (:func:`run_tree`): the subgoal's
   plan runs in front of the tree. The same precondition failing more than
   twice is not repaired again (FM-02). A step refused for a full inventory gets room made in front of
   the replanned goal instead (:func:`room_repair`).

Costs are compared in one unit for every planner: the SLA-derived expected
duration of the tree's leaves (:class:`planners.goap.costs.ActionCosts`).
"""

from __future__ import annotations

import contextlib
import math
import random
import time
import uuid
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.leaves.survival import edible
from craftbt.capabilities.registry import Registry
from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.core.runstatus import RunStatus
from craftbt.executor.backoff import unrepairable
from craftbt.executor.config import Bounds
from craftbt.executor.digests import digest, iter_leaves, plan_steps
from craftbt.executor.executor import Executor, RunOutcome
from craftbt.executor.failures import Escalation, EscalationReason, Failure
from craftbt.executor.gate import assess
from craftbt.planners.base import Planner, PlanningFailure, PlanningState, PlanResult
from craftbt.planners.building.planner import BuildingPlanner
from craftbt.planners.goap.costs import UNIT_ARG, ActionCosts
from craftbt.planners.goap.planner import GoapPlanner
from craftbt.planners.htn.planner import HtnPlanner
from craftbt.planners.intent import GoalVerb, Intent, context_key
from craftbt.planners.llm.planner import LlmPlanner
from craftbt.planners.solver import CraftingSolver, mine_sources
from craftbt.planners.subgoals import (
    Subgoal,
    SubgoalKind,
    craft_alternatives,
    crafting_order,
    listed_missing,
    subgoal_for,
)
from craftbt.router import routines
from craftbt.router.hunts import hunted_in, watching_hunts
from craftbt.router.night import MAX_NIGHTS, Night, NightWatch, sit_out_the_night
from craftbt.router.priors import PriorsStore
from craftbt.trees import model as m
from craftbt.trees.validate import validate_definition
from craftbt.world import mcdata
from craftbt.world.body import BlockPos, Body, BodyErrorCode, Observation

DEFAULT_BUDGET_MS = 5_000
FAST_PATH_URGENCY = 0.8
#: Beta pseudo-counts a plan's own confidence contributes before any history
CONFIDENCE_WEIGHT = 2.0


class Trait(StrEnum):
    NAVIGATION = "navigation"
    MULTI_STEP = "multi_step"
    AMBIGUOUS = "ambiguous"
    SAFETY = "safety"
    CONSTRUCTION = "construction"


#: seed 003's matrix, in this project's planners: trait -> eligible planners, best first
ROUTING_MATRIX: dict[Trait, tuple[str, ...]] = {
    Trait.NAVIGATION: ("goap", "solver", "llm"),
    Trait.MULTI_STEP: ("htn", "solver", "goap", "llm"),
    Trait.AMBIGUOUS: ("llm",),
    Trait.SAFETY: ("fast_path", "htn"),
    #: building goals: the building planner (templates, modules, witnesses) first
    Trait.CONSTRUCTION: ("building", "llm"),
}

#: A craft-only obtain goal (plan from what is held, :func:`craft_only`) is planned by these in turn, and the
#: first valid plan is taken. Every planner plans it from one shared knowledge of the inventory (the same
#: costs, the same refusal proofs), and on Plancraft's 580 examples the solver alone plans every solvable one
#: (bench/bench_plancraft.py); planning it three times and scoring bought nothing but time (the route cost the
#: three planners' sum and more, 8-12 times Plancraft's own planner). The solver goes first: its craft-only
#: search is exhaustive and the quickest. The priors then learn craft-only outcomes for the planner that
#: planned them; a planner that refuses without a proof is followed by the next.
CRAFT_ONLY_ORDER: tuple[str, ...] = ("solver", "htn", "goap")
#: refusal reasons that prove the goal cannot be made from what is held (the solver's expansion over the shared
#: craft-only costs, which HTN and GOAP refuse with too: :func:`planners.solver.craft_only_refusal`)
PROOFS = frozenset({"missing_ingredient", "cyclic_requirement"})

#: emergency -> (capability, args): the fast path runs these without planning
FAST_PATHS: dict[str, tuple[str, dict[str, Any]]] = {
    "threat": ("retreat_from_threat", {}),
    "danger": ("retreat_from_threat", {}),
    "hunger": ("consume_food", {}),
    "night": ("retreat_and_block", {"blockType": "dirt"}),
    "health": ("retreat_from_threat", {}),
}

def traits_of(intent: Intent) -> set[Trait]:
    traits: set[Trait] = set()
    goal = intent.goal
    if goal.verb is GoalVerb.EXPLORE:
        traits.add(Trait.NAVIGATION)
    if goal.verb is GoalVerb.OBTAIN:
        traits.add(Trait.MULTI_STEP)
    if goal.verb is GoalVerb.BUILD:
        traits.add(Trait.CONSTRUCTION)
    if goal.verb is GoalVerb.SURVIVE or intent.context.get("threat"):
        traits.add(Trait.SAFETY)
    if intent.context.get("ambiguous") or intent.context.get("social"):
        traits.add(Trait.AMBIGUOUS)
    return traits


def craft_only(intent: Intent, state: PlanningState, registry: Registry) -> bool:
    """Whether ``intent`` asks for an item to be made from what is held alone (no gathering: the state or the
    registry forbids it), the request the router hands to the first planner that plans it."""
    return intent.goal.verb is GoalVerb.OBTAIN and not state.gathers(registry)


class Candidate(BaseModel):
    planner: str
    ok: bool
    reason: str | None = None
    method: str | None = None
    cost: float | None = None
    confidence: float | None = None
    theta: float | None = None
    mean: float | None = None
    score: float | None = None
    planning_ms: float = 0.0


class RoutingDecision(BaseModel):
    intent_id: str
    goal: str
    traits: list[str]
    context: str
    chosen: str
    method: str
    fast_path: bool = False
    historical_best: str | None = None
    disagreement: bool = False
    candidates: list[Candidate] = Field(default_factory=list)
    reason: str
    routing_ms: float = 0.0
    digests: dict[str, str | None] = Field(default_factory=dict)
    plan: PlanResult

    def routing_block(self) -> dict[str, Any]:
        """What the executor's journal carries in the intent: who planned the run, by which methods, where."""
        return {"planner": self.chosen, "methods": [self.method, *self.plan.methods], "context": self.context}


def refusal_reasons(candidates: list[Candidate]) -> str:
    """Why no planner planned, each distinct reason once with the planners that gave it ("htn, solver: ..."):
    three planners refusing from one proof said it three times."""
    by_reason: dict[str, list[str]] = {}
    for c in candidates:
        by_reason.setdefault(c.reason or "no reason given", []).append(c.planner)
    return "; ".join(f"{', '.join(names)}: {reason}" for reason, names in by_reason.items()) or "no eligible planner"


def tree_cost(tree: m.TreeDefinition, costs: ActionCosts) -> float:
    return sum(costs.cost(leaf.capability.partition("@")[0], _units(leaf)) for leaf in iter_leaves(tree.root))


def _units(leaf: m.LeafNode) -> int:
    value = leaf.args.get(UNIT_ARG.get(leaf.capability.partition("@")[0], ""), 1)
    return value if isinstance(value, int) and value > 0 else 1



@dataclass
class Router:
    registry: Registry
    priors: PriorsStore
    planners: dict[str, Planner] = field(default_factory=dict)
    seed: int = 0
    costs: ActionCosts | None = None

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        #: spliced tree id -> (the plan as first expanded, the resolution spliced in front): the digests
        self._resolutions: dict[int, tuple[m.TreeDefinition, m.TreeDefinition]] = {}
        if not self.planners:
            self.planners = default_planners(self.priors)
        if self.costs is None:
            self.costs = ActionCosts.from_registry(self.registry)

    # -- routing -----------------------------------------------------------------------------------
    def route(
        self,
        intent: Intent,
        state: PlanningState,
        observation: Observation | None = None,
        *,
        planner: str | None = None,
    ) -> RoutingDecision:
        started = time.perf_counter()
        if not intent.safety.allowed:
            raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"intent refused: {intent.safety.reason}")
        traits = traits_of(intent)
        context = context_key(intent.context, state.time_of_day)
        if planner in (None, "auto", "fast_path") and Trait.SAFETY in traits and (
            intent.urgency >= FAST_PATH_URGENCY or planner == "fast_path"
        ):
            fast = self._fast_path(intent, traits, context, started)
            if fast is not None:
                return fast
        names = self._eligible(intent, traits, planner)
        first_plan = craft_only(intent, state, self.registry) and len(names) > 1
        if first_plan:
            names = sorted(names, key=lambda n: CRAFT_ONLY_ORDER.index(n) if n in CRAFT_ONLY_ORDER else len(names))
        budget_ms = intent.time_budget_ms or DEFAULT_BUDGET_MS
        candidates: list[Candidate] = []
        plans: dict[str, PlanResult] = {}
        checked: set[str] = set()
        for name in names:
            if (time.perf_counter() - started) * 1000 > budget_ms:
                candidates.append(Candidate(planner=name, ok=False, reason="time_budget_spent"))
                continue
            candidate, result = self._candidate(name, intent, state)
            candidates.append(candidate)
            if result is not None:
                plans[name] = result
            if not first_plan:
                continue
            if result is None:
                if (candidate.reason or "").partition(":")[0] in PROOFS:
                    break  # the refusal is a proof from the shared craft-only costs: every planner gives it
                continue
            rejected = self._check(result, observation)
            if rejected is None:
                checked.add(name)
                break
            candidate.ok, candidate.reason = False, rejected
            del plans[name]
        while True:
            if not plans:
                why = refusal_reasons(candidates)
                self.priors.record_decision("route_failed", {"candidates": [c.model_dump() for c in candidates]},
                                            intent_id=intent.id, goal=str(intent.goal), context=context)
                raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"no planner could plan {intent.goal}: {why}")
            chosen, best = self._score(candidates, plans, context)
            # only the tree chosen is validated and gated (the others would never run: checking all three
            # was most of a craft-only route); one that fails is rejected with its reason and the rest rescored
            rejected = None if chosen in checked else self._check(plans[chosen], observation)
            if rejected is None:
                break
            loser = next(c for c in candidates if c.planner == chosen)
            loser.ok, loser.reason, loser.score, loser.theta, loser.mean = False, rejected, None, None, None
            del plans[chosen]
        result = plans[chosen]
        decision = RoutingDecision(
            intent_id=intent.id, goal=str(intent.goal), traits=sorted(traits), context=context, chosen=chosen,
            method=result.method, historical_best=best, disagreement=chosen != best, candidates=candidates,
            reason=self._why(chosen, best, candidates, traits) + (
                f"; craft-only: the first valid plan of {', '.join(names)} in turn" if first_plan else ""),
            plan=result,
            # a fresh plan is resolved from the intent as a whole; a spliced one by its materials
            digests=_digests(result.tree, *self._resolutions.get(id(result.tree), (None, result.tree))),
        )
        decision.routing_ms = (time.perf_counter() - started) * 1000
        self._record(decision)
        return decision

    def _eligible(self, intent: Intent, traits: set[Trait], planner: str | None) -> list[str]:
        if planner not in (None, "auto"):
            if planner == "fast_path":  # reached only when the goal is not a safety goal
                raise CraftbtError.single(
                    ErrorCode.INVALID_ARGUMENT, f"--planner fast_path cannot plan {intent.goal}: it answers only "
                    "safety goals (survive, escape, eat)", expected="--planner auto, or a safety goal")
            if planner not in self.planners:
                raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT, f"unknown planner {planner!r}",
                                          expected="one of auto, " + ", ".join(self.planners))
            if not self.planners[planner].can_handle(intent):
                able = [n for n, p in self.planners.items() if p.can_handle(intent)]
                raise CraftbtError.single(
                    ErrorCode.INVALID_ARGUMENT,
                    f"--planner {planner} does not plan {intent.goal.verb.value!r} goals ({intent.goal})",
                    expected="--planner auto" + ("" if not able else " or one of " + ", ".join(able)))
            return [planner]
        ordered: list[str] = []
        for trait in sorted(traits) or [Trait.MULTI_STEP]:
            ordered += [p for p in ROUTING_MATRIX[Trait(trait)] if p in self.planners]
        return [p for p in dict.fromkeys(ordered)
                if self.planners[p].available() and self.planners[p].can_handle(intent)]

    def _candidate(self, name: str, intent: Intent, state: PlanningState) -> tuple[Candidate, PlanResult | None]:
        """``name``'s plan and its cost, or its refusal (validated and gated only if chosen: :meth:`_check`)."""
        planner = self.planners[name]
        t0 = time.perf_counter()
        try:
            result = planner.plan(intent, state, self.registry)
        except PlanningFailure as failure:
            return Candidate(planner=name, ok=False, reason=f"{failure.reason}: {failure.detail}",
                             planning_ms=(time.perf_counter() - t0) * 1000), None
        except CraftbtError as err:
            return Candidate(planner=name, ok=False, reason=err.problems[0].render(),
                             planning_ms=(time.perf_counter() - t0) * 1000), None
        if result.needs:
            try:
                result = self._resolve_needs(intent, result, state)
            except CraftbtError as err:
                return Candidate(planner=name, ok=False, reason="needs: " + err.problems[0].message,
                                 planning_ms=(time.perf_counter() - t0) * 1000), None
        ms = (time.perf_counter() - t0) * 1000
        assert self.costs is not None
        cost = max(1.0, tree_cost(result.tree, self.costs))
        return Candidate(planner=name, ok=True, method=result.method, cost=cost, confidence=result.confidence,
                         planning_ms=ms), result

    def _check(self, result: PlanResult, observation: Observation | None) -> str | None:
        """Why the tree of ``result`` must not run (registry validation, then the feasibility gate), or None."""
        checked = validate_definition(result.tree, self.registry)
        if not checked.ok:
            return "invalid: " + checked.problems[0].render()
        if observation is not None:
            gate, _ = assess(result.tree, self.registry, observation)
            if not gate.should_proceed:
                return f"gate: {gate.block_reason}: {gate.block_detail}"
        return None

    def _resolve_needs(self, intent: Intent, result: PlanResult, state: PlanningState) -> PlanResult:
        """Route an ``obtain N item`` subgoal for every item the plan needs and splice them in front."""
        subs: list[m.Node] = []
        for item, count in sorted(result.needs.items()):
            sub_intent = Intent.from_text(f"obtain {count} {item}", context=dict(intent.context),
                                          source=intent.source)
            sub = self.route(sub_intent, state, None)
            subs.append(sub.plan.tree.root.model_copy(deep=True))  # renamed below: never share nodes
        resolution = m.TreeDefinition(tree=result.tree.tree, root=m.SequenceNode(
            name=f"materials for {intent.goal}", children=subs), source="router:needs")
        spliced = m.TreeDefinition(
            tree=result.tree.tree, description=f"{result.tree.description}; materials first",
            root=m.SequenceNode(name=f"obtain materials, then {intent.goal}",
                                children=[*subs, result.tree.root]),
            blackboard=dict(result.tree.blackboard), source="router:needs",
        )
        from craftbt.planners.ppa import dedupe_leaf_names

        dedupe_leaf_names(spliced.root)
        self._resolutions[id(spliced)] = (result.tree, resolution)
        needs = ", ".join(f"{n} {i}" for i, n in sorted(result.needs.items()))
        return result.model_copy(update={"tree": spliced, "explanation": f"materials first ({needs}); "
                                         + result.explanation})

    def _score(self, candidates: list[Candidate], plans: dict[str, PlanResult], context: str) -> tuple[str, str]:
        ok = [c for c in candidates if c.ok and c.planner in plans]
        cheapest = min(c.cost or 1.0 for c in ok)
        for c in ok:
            a, b = self.priors.posterior(c.planner, "*", context)
            conf = c.confidence or 0.5
            a += CONFIDENCE_WEIGHT * conf
            b += CONFIDENCE_WEIGHT * (1 - conf)
            c.theta = self.rng.betavariate(a, b)
            c.mean = a / (a + b)
            method = self.priors.expected_success(c.planner, c.method or "*", context)
            relative = cheapest / (c.cost or 1.0)
            c.score = conf * c.theta * method * relative
            c.mean = c.mean * method * conf * relative  # the same score without exploration
        chosen = max(ok, key=lambda c: (c.score or 0.0, -ok.index(c))).planner
        best = max(ok, key=lambda c: (c.mean or 0.0, -ok.index(c))).planner
        return chosen, best

    def _why(self, chosen: str, best: str, candidates: list[Candidate], traits: set[Trait]) -> str:
        c = next(x for x in candidates if x.planner == chosen)
        rejected = [f"{x.planner} ({x.reason})" for x in candidates if not x.ok]
        text = (f"traits {', '.join(sorted(traits)) or 'none'}; {chosen} scored {c.score:.3f} "
                f"(confidence {c.confidence:.2f} x sampled success {c.theta:.2f} x cost {c.cost:.0f} ms)")
        if chosen != best:
            text += f"; exploring: the historical best is {best}"
        if rejected:
            text += "; rejected: " + ", ".join(rejected)
        return text

    def _fast_path(self, intent: Intent, traits: set[Trait], context: str, started: float
                   ) -> RoutingDecision | None:
        need = intent.goal.target if intent.goal.verb is GoalVerb.SURVIVE else str(intent.context.get("threat"))
        entry = FAST_PATHS.get(need)
        if entry is None or not self.registry.has(entry[0]):
            return None
        capability, args = entry
        tree = m.TreeDefinition(
            tree=f"fast_path_{need}", description=f"fast path: {capability} for {need}",
            root=m.SequenceNode(name=f"fast path {need}", children=[
                m.LeafNode(name=f"fast {capability}", capability=capability, args=dict(args))]),
            source="router:fast_path",
        )
        result = PlanResult(planner="fast_path", tree=tree, estimated_cost=1, confidence=0.9,
                            explanation=f"urgency {intent.urgency:.2f}: {capability} without planning", steps=1,
                            method=f"fast:{need}")
        decision = RoutingDecision(
            intent_id=intent.id, goal=str(intent.goal), traits=sorted(traits), context=context, chosen="fast_path",
            method=result.method, fast_path=True, reason=result.explanation, plan=result,
            digests=_digests(tree, None, None),
        )
        decision.routing_ms = (time.perf_counter() - started) * 1000
        self._record(decision)
        return decision

    def _record(self, d: RoutingDecision) -> None:
        self.priors.record_decision(
            "route", {"traits": d.traits, "candidates": [c.model_dump() for c in d.candidates], "reason": d.reason,
                      "fast_path": d.fast_path, "routing_ms": d.routing_ms, "digests": d.digests,
                      "historical_best": d.historical_best},
            intent_id=d.intent_id, goal=d.goal, chosen=d.chosen, method=d.method, context=d.context,
            disagreement=d.disagreement,
        )

    # -- outcomes and escalation ---------------------------------------------------------------------
    def record_outcome(self, decision: RoutingDecision, ok: bool, failure: Failure | None = None) -> None:
        """The run's outcome for the planner and every method its plan relied on; a run that failed on a
        target it found unreachable counts against the planner only (:func:`blames_methods`)."""
        methods = [decision.method, *decision.plan.methods] if failure is None or blames_methods(failure) else []
        self.priors.record_plan(decision.chosen, methods, decision.context, ok)

    @staticmethod
    def retry_intent(intent: Intent, decision: RoutingDecision, failure: Failure) -> Intent:
        """``intent`` planned again after ``decision``'s plan failed: the failure, and the methods it blames
        (:func:`blames_methods`), in its context."""
        blamed = [decision.method, *decision.plan.methods] if blames_methods(failure) else []
        recent = [*intent.context.get("recent_failures", []), *blamed]
        return intent.model_copy(update={"context": {**intent.context, "recent_failures": recent,
                                                     "failed": failure.model_dump(mode="json")}})

    def replan(self, intent: Intent, decision: RoutingDecision, failure: Failure, state: PlanningState,
               observation: Observation | None = None, *, planner: str | None = None) -> RoutingDecision:
        """Plan again with the failure as context; a missing item becomes a subgoal spliced in front, and a
        full inventory the tossing of its surplus (:func:`room_repair`).

        ``planner`` is the caller's choice, as for :meth:`route`: a forced planner plans the repair too."""
        retry = self.retry_intent(intent, decision, failure)
        main = self.route(retry, state, None, planner=planner)
        room = room_repair(failure, keep=[intent.goal.target])
        wanted = failure_subgoal(failure)
        if room is not None:
            sub_root, sub_tree, label = room.root, room, MAKE_ROOM
        elif wanted is not None:
            sub_root, sub_tree = self.subgoal_tree(wanted, state, context=retry.context, source=intent.source,
                                                   planner=planner)
            label = wanted.goal(state.inventory.get(wanted.item, 0))
        else:
            return main
        spliced = splice(main.plan.tree, sub_root, label, str(intent.goal))
        main.plan = main.plan.model_copy(update={
            "tree": spliced, "explanation": f"subgoal {label}; " + main.plan.explanation})
        main.digests = _digests(spliced, decision.plan.tree, sub_tree)
        main.reason = f"replanned after {failure.key}: subgoal {label}; " + main.reason
        if observation is not None:
            gate, _ = assess(spliced, self.registry, observation)
            if not gate.should_proceed:
                raise CraftbtError.single(ErrorCode.INVALID_ARGUMENT,
                                          f"repaired plan blocked: {gate.block_reason}: {gate.block_detail}")
        return main

    def routine(self, intent: Intent, failure: Failure, routine: m.TreeDefinition, state: PlanningState, *,
                need: Subgoal | None = None, planner: str | None = None) -> RoutingDecision:
        """The routine a caller chose from where the bot stands (:func:`stand_repair`), after ``need``, a
        subgoal it wants (:func:`rest_food`: food for a rest), as a plan of its own: the goal is routed again
        from where the routine leaves the bot (:func:`run_goal`). A goal half planned beside it, from the
        world before it, counted on what the routine changed (natural seed 7's fishing rod: the meat's
        furnace placed the carried crafting table far behind, and the rod's "place crafting table" found none
        carried)."""
        started = time.perf_counter()
        tree, label = routine, routine.description
        if need is not None:
            need_root, _ = self.subgoal_tree(need, state, context=intent.context, source=intent.source,
                                             planner=planner)
            label = f"{need.goal(state.inventory.get(need.item, 0))}, then {label}"
            tree = routine.model_copy(update={"root": m.SequenceNode(name=label, children=[need_root, routine.root]),
                                              "description": label})
        explanation = f"routine {label} after {failure.key}; then {intent.goal} is routed again"
        result = PlanResult(planner=ROUTINE, tree=tree, estimated_cost=0, confidence=1, explanation=explanation,
                            steps=sum(1 for _ in iter_leaves(tree.root)), method=f"routine:{routine.tree}")
        decision = RoutingDecision(
            intent_id=intent.id, goal=str(intent.goal), traits=[], context=context_key(intent.context,
                                                                                       state.time_of_day),
            chosen=ROUTINE, method=result.method, reason=explanation, plan=result,
            digests=_digests(tree, None, None))
        decision.routing_ms = (time.perf_counter() - started) * 1000
        self._record(decision)
        return decision

    def subgoal_tree(self, wanted: Subgoal, state: PlanningState, *, context: dict[str, Any] | None = None,
                     source: Any = None, planner: str | None = None) -> tuple[m.Node, m.TreeDefinition]:
        """The routed plan for a missing precondition (a station is placed after it is obtained)."""
        fields: dict[str, Any] = {"context": dict(context or {})}
        if source is not None:
            fields["source"] = source
        held = state.inventory.get(wanted.item, 0)
        sub = self.route(Intent.from_text(wanted.goal(held), **fields), state, None, planner=planner)
        return self._subgoal_root(wanted, sub)

    def subgoal_group_tree(self, groups: list[list[Subgoal]], state: PlanningState, *,
                           planner: str | None = None) -> tuple[list[Subgoal], m.Node]:
        """The first group of subgoals a planner can plan from what is in view, each after the other (a
        craft's other recipe variants come after the one its refusal named); else the first group it can
        plan at all (by exploring); the first planning error when none can.

        Planners now plan an exploration for what is not in view rather than refuse it, so "can plan"
        alone would pick a variant whose wood grows nowhere near (cherry) over the oak beside the bot.
        """
        first: CraftbtError | None = None
        fallback: tuple[list[Subgoal], m.Node] | None = None
        for group in groups:
            try:
                roots = [self.subgoal_tree(wanted, state, planner=planner)[0] for wanted in group]
            except CraftbtError as err:
                first = first or err
                continue
            root = roots[0] if len(roots) == 1 else m.SequenceNode(
                name="subgoals: " + ", ".join(w.goal() for w in group), children=roots)
            if not any(leaf.capability.split("@")[0] == "explore" for leaf in iter_leaves(root)):
                return group, root
            fallback = fallback or (group, root)
        if fallback is not None:
            return fallback
        assert first is not None
        raise first

    @staticmethod
    def _subgoal_root(wanted: Subgoal, sub: RoutingDecision) -> tuple[m.Node, m.TreeDefinition]:
        root: m.Node = sub.plan.tree.root
        if wanted.place:
            root = m.SequenceNode(name=f"{wanted.item} in reach", children=[root, m.LeafNode(
                name=f"place {wanted.item} (subgoal)", capability="place_workstation",
                args={"workstation": wanted.item})])
        return root, sub.plan.tree


#: the label of a full inventory's repair (the tossing leaf in front of the replanned plan)
MAKE_ROOM = "make room"
#: who planned a routine's run (:meth:`Router.routine`): no planner, and nothing the priors learn from
ROUTINE = "routine"


def room_repair(failure: Failure, keep: Collection[str] = ()) -> m.TreeDefinition | None:
    """The repair of a step the body refused for a full inventory (``inventory_full``: a craft, a smelt, a
    withdrawal with no slot for its result): ``manage_inventory``'s ``make_room`` tosses junk and dug filler
    (``leaves.common.FILLER_KEPT``: a stack of cobblestone kept), never ``keep`` (the goal's target). None for
    any other failure.

    It runs as a leaf of the repaired plan, through the pipeline like every step, so a permission profile
    without the inventory permission refuses it there; when nothing is surplus its guard refuses it and the
    goal run ends on that reason rather than on the same full inventory again."""
    if failure.code != BodyErrorCode.INVENTORY_FULL.value:
        return None
    leaf = m.LeafNode(name=MAKE_ROOM, capability="manage_inventory",
                      args={"action": "make_room", "keepItems": sorted(set(keep))})
    return m.TreeDefinition(tree="make_room", description="toss junk and surplus rubble", root=leaf,
                            source="router:replan")


def failure_subgoal(failure: Failure) -> Subgoal | None:
    """The subgoal a failure asks for: the missing precondition its step's refusal (or the gate) recorded."""
    return subgoal_for(failure.precondition, failure.missing, failure.args)


def subgoal_alternatives(failure: Failure, inventory: dict[str, int]) -> list[list[Subgoal]]:
    """Other subgoals that satisfy the same refusal: a craft's other recipe variants."""
    if not str(failure.capability or "").startswith("craft_recipe@"):
        return []
    return craft_alternatives(str(failure.args.get("recipe") or ""), int(failure.args.get("qty") or 1), inventory)


def splice(tree: m.TreeDefinition, sub_root: m.Node, label: str, goal: str) -> m.TreeDefinition:
    """``tree`` with the subgoal's plan (``label``: ``obtain crafting_table``) in front of it, leaf names
    kept unique."""
    from craftbt.planners.ppa import dedupe_leaf_names

    spliced = m.TreeDefinition(
        tree=tree.tree, description=f"{tree.description}; subgoal {label} first",
        blackboard=dict(tree.blackboard),
        root=m.SequenceNode(name=f"repair: {label}, then {goal}", children=[sub_root, tree.root]),
        source="router:replan",
    )
    dedupe_leaf_names(spliced.root)
    return spliced


#: the same precondition failing more than this many times is not repaired again (seed 003 FM-02)
MAX_SAME_GUARD_FAILURES = 2


class RepeatedFailures:
    """FM-02's detector: counts each precondition failure of a goal or tree across its repairs."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def note(self, failure: Failure) -> bool:
        """Count ``failure``; True when the same one has now failed more than twice (stop repairing).

        A failure no plan can repair (``server_unsupported``: the server lacks the feature) is True at
        once: replanning would only walk into the same wall.
        """
        key = failure.key
        if not key:
            return False
        self.counts[key] = self.counts.get(key, 0) + 1
        return unrepairable(key) or self.counts[key] > MAX_SAME_GUARD_FAILURES

    @staticmethod
    def stopped(failure: Failure) -> str:
        """Why the goal run stopped repairing after :meth:`note` said so."""
        if unrepairable(failure.key):
            return f"unrepairable: {failure.key} (no plan can clear it: {failure.detail or 'the server lacks it'})"
        return f"repeated_guard_failure: {failure.code} failed more than twice"


def _digests(final: m.TreeDefinition, expansion: m.TreeDefinition | None, resolved: m.TreeDefinition | None
             ) -> dict[str, str | None]:
    """Seed 002's three digests: what was first expanded, the spliced resolution only, what will run."""
    final_digest = digest(plan_steps(final))
    return {
        "expansion_digest": final_digest if expansion is None or expansion is final else digest(plan_steps(expansion)),
        # a fresh plan is its own resolution: the same steps, hashed once
        "intent_resolution_digest": None if resolved is None else final_digest if resolved is final
        else digest(plan_steps(resolved)),
        "executor_plan_digest": final_digest,
    }


def default_planners(priors: PriorsStore | None = None, journal: Any | None = None) -> dict[str, Planner]:
    return {
        "solver": CraftingSolver(),
        "htn": HtnPlanner(priors),
        "goap": GoapPlanner(journal=journal),
        "llm": LlmPlanner.from_env(),
        "building": BuildingPlanner(),
    }


# -- entry points for the CLI ------------------------------------------------------------------------
SURVEY_BLOCKS = (
    "oak_log", "birch_log", "spruce_log", "jungle_log", "acacia_log", "dark_oak_log", "cherry_log",
    "stone", "cobblestone", "dirt", "grass_block", "sand", "gravel", "clay",
    "coal_ore", "iron_ore", "copper_ore", "deepslate_iron_ore", "wheat",
)
SURVEY_RADIUS = 48


def survey(body: Body, avoid: Collection[BlockPos] = ()) -> PlanningState:
    """What the planners see from where the body stands, less the blocks in ``avoid`` (found unreachable)."""
    return PlanningState.survey(body, list(SURVEY_BLOCKS), radius=SURVEY_RADIUS, avoid=avoid)


#: A mining step that failed these ways reached nothing more of its material from where it stood.
NOTHING_REACHED = frozenset({"no_target", "guard_failed:no_target", "partial"})
#: ... and these after walking at targets it found no way to (the guard's refusal found none to try)
TARGET_UNREACHED = NOTHING_REACHED - {"guard_failed:no_target"}


def unreached_material(failure: Failure) -> frozenset[str]:
    """The blocks of the material a failed mining step could not reach, for the replan to explore for.

    Without this a replan saw the same log on the same cliff and planned the same step at it."""
    if str(failure.capability or "").split("@")[0] != "acquire_material":
        return frozenset()
    if failure.code not in NOTHING_REACHED:
        return frozenset()
    item = failure.args.get("item")
    if not isinstance(item, str):
        return frozenset()
    return frozenset({item, *(source.block for source in mine_sources().get(item, ()))})


def replan_view(state: PlanningState, failure: Failure) -> PlanningState:
    """What a replan sees after ``failure``: the material a mining step reached none of is out of view
    where the step looked (within its radius), so the plan explores for it; one the survey saw beyond
    that radius stays in view at its distance (the step never tried it: hiding it sent the planners
    exploring for whichever material ranks first, oak on a world of spruce)."""
    hidden = unreached_material(failure)
    radius = failure.args.get("radius")
    if isinstance(radius, int | float):
        hidden = frozenset(b for b in hidden if state.block_distance.get(b, 0.0) <= radius)
    return state.without_blocks(hidden)


def blames_methods(failure: Failure) -> bool:
    """Whether a failure counts against the methods of the plan that ran (priors, the replan's penalty).

    A mining step that reached none of its material failed on the blocks, not on a method: the replan's
    world view leaves those blocks out (:func:`unreached_material`, ``Executor.unreachable``). Blaming the
    methods as well moved the HTN off the oak it had seen 40 blocks away onto acacia no survey had seen,
    and it explored for that in vain. A guard that found none of the material in its radius at all
    (``guard_failed:no_target``) reached no target to find unreachable: the plan's choice of material is
    blamed as before (natural seed 22: the oak ran out, and the HTN planned the same oak three times)."""
    return failure.code not in TARGET_UNREACHED or not unreached_material(failure)


def with_site(intent: Intent, body: Body) -> Intent:
    """A build goal without ``at`` gets the nearest site where its template fits on the ground."""
    if intent.goal.verb is not GoalVerb.BUILD or intent.context.get("at") is not None:
        return intent
    from craftbt.router.build.site import find_site
    from craftbt.trees.structure_template import load_template

    try:
        template = load_template(intent.goal.target)
    except CraftbtError:
        return intent  # the building planner reports the unknown template
    site = find_site(body, template, intent.context.get("facing", "N"))
    if site is None:
        return intent  # the planner falls back to a spot beside the bot
    return intent.model_copy(update={"context": {**intent.context, "at": list(site), "site": "near_bot"}})


def plan_for_goal(
    goal: str,
    body: Body,
    *,
    planner: str = "auto",
    registry: Registry | None = None,
    priors: PriorsStore | None = None,
    seed: int = 0,
    context: dict[str, Any] | None = None,
    craft_only: bool = False,
) -> RoutingDecision:
    """Parse ``goal``, survey ``body`` and route: what ``craftbt plan`` and ``craftbt run --goal`` call.

    ``craft_only``: plan from the inventory and the stations in reach alone (no survey, no gathering)."""
    registry = registry or default_registry()
    priors = priors or PriorsStore()
    intent = with_site(Intent.from_text(goal, context=dict(context or {})), body)
    router = Router(registry, priors, seed=seed)
    state = PlanningState.held(body) if craft_only else survey(body)
    return router.route(intent, state, body.observe(), planner=planner)


class Attempt(BaseModel):
    """One run of a goal run's plan (or of a tree file and its repairs): who planned it and how it ended."""

    #: the planner the router chose (``tree`` for a tree file's own run)
    planner: str
    status: RunStatus
    run_id: str
    escalation: Escalation | None = None


class GoalRun(BaseModel):
    ok: bool
    attempts: list[Attempt] = Field(default_factory=list)
    decisions: list[RoutingDecision] = Field(default_factory=list)
    #: the executor's outcome of every attempt, last one last
    outcomes: list[RunOutcome] = Field(default_factory=list)
    #: subgoals spliced in front of a tree file, in order (:func:`run_tree`)
    repairs: list[str] = Field(default_factory=list)
    #: why repairing stopped before the replan budget did, if it did
    stopped: str | None = None
    #: the nights the goal run sat out in a shelter (:mod:`craftbt.router.night`), and the runs they took
    nights: list[Night] = Field(default_factory=list)
    night_outcomes: list[RunOutcome] = Field(default_factory=list)

    def sim_ticks(self) -> int:
        """Game time the whole goal run took: its attempts and its nights."""
        return sum(o.ticks for o in self.outcomes) + sum(o.ticks for o in self.night_outcomes)


def run_goal(
    goal: str | Intent,
    executor: Executor,
    *,
    planner: str = "auto",
    priors: PriorsStore | None = None,
    seed: int = 0,
    max_replans: int = 2,
    context: dict[str, Any] | None = None,
    scenario: str | None = None,
    shelter_at_night: bool = True,
    task_id: str | None = None,
    run_id: str | None = None,
    router: Router | None = None,
    on_decision: Callable[[RoutingDecision], None] | None = None,
) -> GoalRun:
    """The goal loop: route ``goal``, run the plan on ``executor``, replan after a failure, sit out the nights.

    This is the one loop every front door's goal run goes through (:class:`craftbt.bot.bot.Bot`: the command
    line, the Python API, serve and MCP, the autonomy loop, prove, eval and fleet). Every outcome updates the
    priors as it ends (:meth:`Router.record_outcome`; a run stopped for a more urgent task teaches nothing and
    ends the goal run); the journal row of each run carries the routing block in its intent. With
    ``shelter_at_night`` a tree working on the surface stops at sunset, the bot sits the night out in a roofed
    pit and the goal is routed again in the morning; a night uses no replan.

    ``goal`` is a goal's text or an :class:`Intent` made by the caller (the autonomy loop sets its urgency and
    source); ``router`` keeps one router (and its seeded draws) across goal runs; ``on_decision`` hears each
    routing decision before its tree runs; ``run_id`` names the first attempt's run.
    """
    registry = executor.registry
    if router is None:
        router = Router(registry, priors or PriorsStore(executor.home / "priors.sqlite"), seed=seed)
    body = executor.inner_body
    if isinstance(goal, Intent):
        intent = goal
    else:
        given = dict(context or {})
        biome = body.observe().biome
        if biome and "biome" not in given:
            given["biome"] = biome  # the observed biome: priors learn per biome on every body (seed 003)
        intent = Intent.from_text(goal, context=given)
    intent = with_site(intent, body)
    run = GoalRun(ok=False)
    decision = router.route(intent, survey(body, executor.unreachable), body.observe(), planner=planner)
    repeated = RepeatedFailures()
    after_routine = intent  # what a routine's success routes: the goal, with the failure that called for it
    watch = NightWatch(body) if shelter_at_night else None
    replans_left = max_replans
    while True:
        run.decisions.append(decision)
        if on_decision is not None:
            on_decision(decision)
        payload = {**intent.model_dump(mode="json"), "routing": decision.routing_block()}
        if watch is not None:
            watch.stopped = False
        with watching_hunts(executor), executor.listening(watch) if watch is not None else contextlib.nullcontext():
            outcome = executor.run(decision.plan.tree, task_id=task_id or intent.id, intent=payload, seed=seed,
                                   scenario=scenario, run_id=None if run.outcomes else run_id,
                                   intent_resolution_digest=decision.digests.get("intent_resolution_digest"))
        run.outcomes.append(outcome)
        run.attempts.append(Attempt(planner=decision.chosen, status=outcome.status, run_id=outcome.run_id,
                                    escalation=outcome.escalation))
        if outcome.status == "preempted":
            if watch is not None and watch.stopped and len(run.nights) < MAX_NIGHTS:
                night = sit_out_the_night(executor, run.night_outcomes, hunted_in(decision.plan.tree))
                run.nights.append(night)
                if not night.sheltered:  # worked through, as before
                    watch.work_through_the_night()
                routed = _route_again(router, intent, executor, planner, "the night", run)
                if routed is None:
                    break
                decision = routed
                continue
            if watch is None or not watch.stopped:
                # stopped for something more urgent (the autonomy loop's preemption): not a failure of the plan,
                # and the caller decides what runs next
                run.stopped = "preempted"
                break
        if outcome.status == "cancelled":
            run.stopped = "cancelled"  # the caller stopped the goal: no replan, and nothing learnt of the plan
            break
        if decision.chosen != ROUTINE:
            router.record_outcome(decision, outcome.ok, outcome.failure)
        if outcome.ok and decision.chosen == ROUTINE:  # the goal is planned from where the routine left the bot
            routed = _route_again(router, after_routine, executor, planner, f"the {decision.plan.tree.tree} routine",
                                  run)
            if routed is None:
                break
            decision = routed
            continue
        if outcome.ok:
            run.ok = True
            return run
        observed = body.observe()  # one reading for the goal's check and the replan (a real body pays for each)
        if goal_held(intent, observed):
            # a step after the goal's item arrived failed (the pick-up of a drop beside it, a table carried
            # away): the goal holds, and a replan would only find it so, or run out of replans first
            executor.journal.record_decision(outcome.run_id, reason="goal_held", node=str(intent.goal),
                                             detail={"failed": outcome.failure.code if outcome.failure else None})
            executor.journal.commit()
            run.ok = True
            run.stopped = f"goal_held: {intent.goal} holds after the attempt failed"
            return run
        if replans_left == 0:
            break
        replans_left -= 1
        if outcome.escalation and outcome.escalation.reason is EscalationReason.BODY_DISCONNECTED:
            break  # no plan runs on a body that is gone: the caller reconnects or reports
        failure = outcome.failure
        assert failure is not None  # the run did not succeed
        if repeated.note(failure):
            run.stopped = repeated.stopped(failure)
            break
        surveyed = replan_view(survey(body, executor.unreachable), failure)
        routine = stand_repair(failure, body, executor.config.geofence)
        try:
            if routine is not None:
                after_routine = router.retry_intent(intent, decision, failure)
                decision = router.routine(after_routine, failure, routine, surveyed,
                                          need=rest_food(failure, observed, body), planner=planner)
            else:
                decision = router.replan(intent, decision, failure, surveyed, observed, planner=planner)
        except CraftbtError as err:
            # no planner can repair from here (an HTN decomposition deeper than its bound, an exhausted
            # search): the goal run ends failed with that reason, recorded on the last attempt's run
            run.stopped = f"replan failed: {err.problems[0].message}"
            executor.journal.record_decision(outcome.run_id, reason="replan_failed", node=str(intent.goal),
                                             detail={"why": err.problems[0].message})
            executor.journal.commit()
            break
    return run


def _route_again(router: Router, intent: Intent, executor: Executor, planner: str, after: str,
                 run: GoalRun) -> RoutingDecision | None:
    """``intent`` routed from where ``after`` (the night, a routine) left the bot; None, with the reason on
    ``run``, when no planner can plan it from there."""
    body = executor.inner_body
    try:
        return router.route(intent, survey(body, executor.unreachable), body.observe(), planner=planner)
    except CraftbtError as err:
        run.stopped = f"routing after {after} failed: {err.problems[0].message}"
        return None


#: Failures of a walk that found no way: from a hole, a stair up is the repair.
NO_WAY_CODES = frozenset({"no_path", "no_target"})


def stand_repair(failure: Failure, body: Body, fence: Bounds | None) -> m.TreeDefinition | None:
    """A routine to run from where the bot stands, before the goal is planned again (:meth:`Router.routine`):
    beyond the geofence after a geofence failure, the walk back inside it (out there every step that changes the
    world is refused: natural seed 1's fishing rod, its night's stair dug out past the fence); shut in after a walk
    found no way, the stair up out of the hole (natural seed 27's compass: the morning found the bot in its pit,
    and three plans in a row had no path to a log); refused a fight for its health, a rest. None otherwise."""
    code = str(failure.code or "")
    if fence is not None and code.startswith("geofence_violation"):
        return routines.back_inside(body, fence)
    if code in NO_WAY_CODES and routines.shut_in(body):
        return routines.leave_shelter(body)
    if code.endswith(LOW_HEALTH):
        return routines.rest()
    return None


#: the failure of a fight refused, or broken off, for the bot's health
LOW_HEALTH = "low_health"
#: animals -> the cooked meat a rest fetches when nothing edible is carried (one cooked meat refills the food bar
#: and most of what healing spends; a raw one, under a quarter of it)
MEAT_ANIMALS = (("cow", "cooked_beef"), ("pig", "cooked_porkchop"), ("sheep", "cooked_mutton"),
                ("chicken", "cooked_chicken"))
#: the most cooked meat a rest fetches
MAX_REST_MEAT = 3
#: food (points and saturation) vanilla spends per point of health healed: 6 exhaustion, 4 to a point
HEAL_FOOD_COST = 1.5


def rest_food(failure: Failure, observed: Observation, body: Body) -> Subgoal | None:
    """Food to fetch before a rest (:func:`stand_repair`): after a fight refused for the bot's health, with the
    food bar too low to heal and nothing edible carried, the cooked meat of the nearest animal in view (a cow's
    when none is), enough to heal to ``routines.RESTED_HEALTH``. A fight with an animal is not refused for the
    bot's health: it does not hit back."""
    if not str(failure.code or "").endswith(LOW_HEALTH) or observed.food >= routines.REGEN_FOOD:
        return None
    md = mcdata.load_or_default(str(body.version))
    if any(edible(md, item) is not None for item in observed.inventory):
        return None
    cooks = dict(MEAT_ANIMALS)
    near = [cooks[e.name] for e in body.entities(32.0, kind="passive") if e.name in cooks]  # nearest first
    meat = near[0] if near else MEAT_ANIMALS[0][1]
    food = md.food(meat)
    assert food is not None  # a cooked meat is a food in every version's data
    spent = (routines.RESTED_HEALTH + 1 - observed.health) * HEAL_FOOD_COST + routines.REGEN_FOOD - observed.food
    count = max(1, min(MAX_REST_MEAT, math.ceil(spent / (food.food_points + food.saturation))))
    return Subgoal(kind=SubgoalKind.ITEM, item=meat, count=count, precondition=f"{LOW_HEALTH}:food")


def goal_held(intent: Intent, observed: Observation) -> bool:
    """Whether the world already shows ``intent``'s goal met: an ``obtain`` goal's count in the inventory."""
    goal = intent.goal
    return goal.verb is GoalVerb.OBTAIN and observed.count(goal.target) >= goal.count


def run_tree(
    definition: m.TreeDefinition,
    executor: Executor,
    *,
    base_dir: Any = None,
    priors: PriorsStore | None = None,
    seed: int = 0,
    max_replans: int = 2,
    scenario: str | None = None,
    planner: str | None = None,
) -> GoalRun:
    """Run a tree file; a missing precondition (item, station, fuel, tool) is planned as a subgoal and
    run in front of the tree, as for a goal (seed 003 FM-02), and a full inventory is made room in
    (:func:`room_repair`). The tree itself is never replanned: it
    is the author's, so it runs again whole after its subgoal (a tree that checks its effects first,
    like the planners' trees, skips what is already done)."""
    router: Router | None = None
    body = executor.inner_body
    run = GoalRun(ok=False)
    repeated = RepeatedFailures()
    tree = definition
    task_id = f"tree-{uuid.uuid4().hex[:12]}"  # the tree and its repairs are one task (plan-repair rate)
    for attempt in range(max_replans + 1):
        outcome = executor.run(tree, base_dir=base_dir, seed=seed, scenario=scenario, task_id=task_id)
        run.outcomes.append(outcome)
        run.attempts.append(Attempt(planner="tree", status=outcome.status, run_id=outcome.run_id,
                                    escalation=outcome.escalation))
        if outcome.ok:
            run.ok = True
            return run
        if attempt == max_replans:
            break
        # an escalation at dispatch, or the whole-tree gate's block naming an unreachable precondition
        failure = outcome.failure
        assert failure is not None  # the run did not succeed
        room = room_repair(failure)
        wanted = failure_subgoal(failure)
        if room is None and wanted is None:
            break  # not a missing precondition: nothing the router can plan for a tree it did not write
        if repeated.note(failure):
            run.stopped = repeated.stopped(failure)
            break
        if room is not None:
            tree = splice(tree, room.root, MAKE_ROOM, definition.tree)
            run.repairs.append(MAKE_ROOM)
            continue
        assert wanted is not None
        router = router or Router(executor.registry, priors or PriorsStore(executor.home / "priors.sqlite"),
                                  seed=seed)
        state = survey(body)
        groups = [crafting_order(g) for g in (listed_missing(wanted, failure.missing),
                                               *subgoal_alternatives(failure, state.inventory))]
        try:
            group, sub_root = router.subgoal_group_tree(groups, state, planner=planner)
        except CraftbtError as err:
            run.stopped = f"subgoal {wanted.goal()} could not be planned: {err.problems[0].message}"
            break
        label = ", ".join(w.goal(state.inventory.get(w.item, 0)) for w in group)
        tree = splice(tree, sub_root, label, definition.tree)  # earlier subgoals stay (they skip once met)
        run.repairs.append(label)
    return run
