"""Router: matrix, scoring with Thompson sampling, priors change the choice, fast path, replan, thoughts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.core.errors import CraftbtError
from craftbt.executor.failures import Failure, FailureSource
from craftbt.planners.base import PlanningState
from craftbt.planners.intent import Intent, Safety, context_key
from craftbt.router.priors import PriorsStore
from craftbt.router.router import Router, Trait, traits_of
from craftbt.router.thoughts import ThoughtProcessor
from craftbt.trees import model as m

WORLD = frozenset({"oak_log", "birch_log", "stone", "coal_ore", "iron_ore", "dirt"})
STATE = PlanningState(available_blocks=WORLD)


def router(priors: PriorsStore | None = None, seed: int = 7) -> Router:
    return Router(default_registry(), priors or PriorsStore(":memory:"), seed=seed)


def test_traits_and_matrix() -> None:
    assert traits_of(Intent.from_text("obtain iron_pickaxe")) == {Trait.MULTI_STEP}
    assert Trait.SAFETY in traits_of(Intent.from_text("survive threat", urgency=0.9))
    decision = router().route(Intent.from_text("obtain stone_pickaxe"), STATE)
    assert {c.planner for c in decision.candidates} == {"htn", "solver", "goap"}  # llm unconfigured: skipped
    assert decision.chosen in {"htn", "solver", "goap"} and decision.plan.tree.tree == "obtain_stone_pickaxe"


def test_repeated_failures_in_a_context_change_the_choice() -> None:
    priors = PriorsStore(":memory:")
    night = {"biome": "taiga", "time": "night"}
    for _ in range(10):
        priors.record_plan("solver", ["recipe_graph"], "taiga/night", ok=True)
    first = router(priors).route(Intent.from_text("obtain furnace", context=night), STATE)
    assert first.chosen == "solver"
    for _ in range(25):
        priors.record_plan("solver", ["recipe_graph"], "taiga/night", ok=False)
    second = router(priors).route(Intent.from_text("obtain furnace", context=night), STATE)
    assert second.chosen != "solver"
    day = router(priors).route(Intent.from_text("obtain furnace", context={"biome": "taiga", "time": "day"}), STATE)
    assert day.candidates and priors.decisions("route")[0]["chosen"] == day.chosen


def test_decisions_and_disagreement_are_recorded() -> None:
    priors = PriorsStore(":memory:")
    r = router(priors, seed=1)
    for _ in range(12):
        r.route(Intent.from_text("obtain stick"), STATE)
    rows = priors.decisions("route")
    assert len(rows) == 12 and all(row["detail"]["historical_best"] for row in rows)
    assert 0.0 <= priors.disagreement_rate() <= 1.0
    assert any(row["disagreement"] for row in rows) == (priors.disagreement_rate() > 0)


def test_same_seed_same_choice() -> None:
    a = [router(seed=3).route(Intent.from_text("obtain furnace"), STATE).chosen for _ in range(3)]
    assert len(set(a)) == 1


def test_fast_path_skips_planning() -> None:
    decision = router().route(Intent.from_text("survive threat", urgency=0.95), STATE)
    assert decision.fast_path and decision.chosen == "fast_path" and not decision.candidates
    leaf = decision.plan.tree.root.children[0]  # type: ignore[union-attr]
    assert isinstance(leaf, m.LeafNode) and leaf.capability == "retreat_from_threat"


def test_routing_without_llm_is_fast() -> None:
    r = router()
    r.route(Intent.from_text("obtain iron_pickaxe"), STATE)  # warm caches
    decision = r.route(Intent.from_text("obtain iron_pickaxe"), STATE, planner="solver")
    assert decision.routing_ms < 1000  # the bench holds the 10 ms target; this only guards regressions


def test_unknown_planner_and_refused_intent_are_structured_errors() -> None:
    with pytest.raises(CraftbtError):
        router().route(Intent.from_text("obtain stick"), STATE, planner="magic")
    refused = Intent.from_text("obtain stick", safety=Safety(allowed=False, reason="refused upstream"))
    with pytest.raises(CraftbtError):
        router().route(refused, STATE)


def test_missing_precondition_becomes_a_spliced_subgoal() -> None:
    r = router()
    intent = Intent.from_text("obtain stone_pickaxe")
    first = r.route(intent, STATE, planner="htn")
    failure = Failure(source=FailureSource.ESCALATION, reason="local_repair_exhausted",
                      code="guard_failed:precond_missing:item:coal", detail="have 0 of 1")
    repaired = r.replan(intent, first, failure, STATE)
    root = repaired.plan.tree.root
    assert isinstance(root, m.SequenceNode) and root.name is not None and "obtain coal" in root.name
    assert repaired.digests["intent_resolution_digest"] is not None
    assert repaired.digests["expansion_digest"] != repaired.digests["executor_plan_digest"]


def test_an_outcome_counts_for_the_planner_and_its_methods_unless_the_target_was_unreachable(
        tmp_path: Path) -> None:
    """What a goal run's outcome teaches the priors (``Router.record_outcome``, called as each run ends): the
    planner and every method its plan relied on; a run that failed on a log it found unreachable counts against
    the planner only (the methods were not at fault), and the counts persist."""
    priors = PriorsStore(tmp_path / "p.sqlite")
    r = router(priors)
    decision = r.route(Intent.from_text("obtain stick"), STATE, planner="htn")
    methods = decision.plan.methods
    assert methods, decision.plan
    r.record_outcome(decision, True)
    unreached = Failure(source=FailureSource.ESCALATION, reason="local_repair_exhausted", code="no_target",
                        capability="acquire_material@1.0.0", args={"item": "oak_log"})
    r.record_outcome(decision, False, unreached)
    r.record_outcome(decision, False, unreached.model_copy(update={"code": "died"}))
    context = decision.context
    assert priors.counts("htn", "*", context) == (1.0, 2.0)
    assert priors.counts("htn", methods[0], context) == (1.0, 1.0)  # the unreachable log blamed no method
    assert PriorsStore(tmp_path / "p.sqlite").counts("htn", methods[0], context) == (1.0, 1.0)  # persisted


def test_context_key() -> None:
    assert context_key({"biome": "taiga"}, 18_000) == "taiga/night"
    assert context_key({}, 1000) == "any/day"


# -- intrusive thoughts -------------------------------------------------------------------------------
@pytest.mark.parametrize("text,reason", [
    ("kill that player", "attack_player"),
    ("attack steve", "attack_player"),
    ("blow up the village with tnt", "griefing"),
    ("grief the spawn", "griefing"),
    ("burn it all", "griefing"),
    ("break their house", "destroy_others_build"),
    ("kill the cow", "attack_passive_mob"),
    ("/give @s diamond 64", "server_command"),
    ("  /op me", "server_command"),
])
def test_harmful_suggestions_are_refused(text: str, reason: str) -> None:
    decision = ThoughtProcessor().process(text)
    assert not decision.accepted and decision.reason == reason and decision.intent is None


def test_helpful_suggestion_becomes_an_intent_and_everything_is_recorded() -> None:
    priors = PriorsStore(":memory:")
    thoughts = ThoughtProcessor(priors)
    ok = thoughts.process("craft 4 stick")
    assert ok.accepted and ok.intent is not None and str(ok.intent.goal) == "obtain 4 stick"
    hungry = thoughts.process("kill the cow for food", food=6)
    assert hungry.reason != "attack_passive_mob"
    assert len(priors.decisions("thought")) == 2


def test_thoughts_are_rate_limited() -> None:
    now = [0.0]
    thoughts = ThoughtProcessor(max_per_window=2, window_s=10, clock=lambda: now[0])
    assert [thoughts.process("get stick").accepted for _ in range(3)] == [True, True, False]
    assert thoughts.log[-1].reason == "rate_limited"
    now[0] = 11.0
    assert thoughts.process("get stick").accepted


def test_gibberish_is_not_understood() -> None:
    assert ThoughtProcessor().process("please dance").reason.startswith("not_understood")


def test_route_timing_budget_respected() -> None:
    intent = Intent.from_text("obtain iron_pickaxe", time_budget_ms=1)
    t0 = time.perf_counter()
    decision = router().route(intent, STATE)
    assert any(c.reason == "time_budget_spent" for c in decision.candidates) or decision.candidates
    assert time.perf_counter() - t0 < 5


def test_a_forced_planner_plans_the_repair_too() -> None:
    r = router()
    intent = Intent.from_text("obtain stone_pickaxe")
    failure = Failure(source=FailureSource.ESCALATION, reason="local_repair_exhausted",
                      code="guard_failed:precond_missing:item:coal", detail="have 0 of 1")
    for forced in ("htn", "goap"):
        first = r.route(intent, STATE, planner=forced)
        repaired = r.replan(intent, first, failure, STATE, planner=forced)
        assert first.chosen == forced and repaired.chosen == forced
    automatic = r.replan(intent, r.route(intent, STATE), failure, STATE)
    assert automatic.chosen in {"solver", "htn", "goap"}


def test_geofence_rule_checks_the_configured_bounds_not_the_words() -> None:
    from craftbt.executor.config import Bounds

    fence = Bounds.parse("-50,-64,-50:50,320,50")
    thoughts = ThoughtProcessor(bounds=fence)
    far = thoughts.process("go to 5000 64 5000")
    assert not far.accepted and far.reason == "leave_geofence"
    # a far place written without the words the old pattern looked for is still refused
    assert thoughts.process("please visit 60, 70, 0").reason == "leave_geofence"
    near = thoughts.process("go to 10 64 -20")
    assert near.accepted and near.intent is not None and str(near.intent.goal) == "explore 10,64,-20"
    # no configured bounds: any named place is refused (fail closed)
    assert ThoughtProcessor().process("go to 10 64 -20").reason == "geofence_unconfigured"
    # words alone are not a geofence test: they are judged like any other suggestion
    assert ThoughtProcessor(bounds=fence).process("wander away from the base").reason.startswith("not_understood")


def test_every_fast_path_names_a_registered_capability() -> None:
    from craftbt.executor.preemption import FAST_PATHS as SAFETY_FAST_PATHS
    from craftbt.router.router import FAST_PATHS as ROUTER_FAST_PATHS

    registry = default_registry()
    missing = [e.capability for e in SAFETY_FAST_PATHS if not registry.has(e.capability)]
    missing += [cap for cap, _ in ROUTER_FAST_PATHS.values() if not registry.has(cap)]
    assert missing == []


class _Fixed:
    """A planner that returns one given tree (a cheap one, so the router chooses it first)."""

    def __init__(self, name: str, leaf: m.LeafNode, cost: float = 1.0) -> None:
        self.name, self.leaf, self.cost = name, leaf, cost

    def available(self) -> bool:
        return True

    def can_handle(self, intent: Intent) -> bool:
        return True

    def emittable_verbs(self) -> frozenset[str]:
        return frozenset({self.leaf.capability})

    def plan(self, intent: Intent, state: PlanningState, registry: Any) -> Any:
        from craftbt.planners.base import PlanResult

        tree = m.TreeDefinition(tree=self.name, root=m.SequenceNode(name=self.name, children=[self.leaf]))
        return PlanResult(planner=self.name, tree=tree, estimated_cost=self.cost, confidence=1.0, explanation="")


def test_only_the_chosen_tree_is_validated_and_an_invalid_one_never_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Validating every candidate was most of a craft-only route: only the chosen tree is checked, and one
    that fails is rejected with its reason and the next best chosen (it never reaches a caller)."""
    import craftbt.router.router as routing

    bad = _Fixed("htn", m.LeafNode(name="bad", capability="craft_recipe", args={"recipe": "stick", "qty": "x"}))
    good = _Fixed("solver", m.LeafNode(name="ok", capability="craft_recipe", args={"recipe": "stick", "qty": 2}))
    r = Router(default_registry(), PriorsStore(":memory:"), planners={"htn": bad, "solver": good})  # type: ignore[dict-item]
    checked: list[str] = []
    real = routing.validate_definition
    monkeypatch.setattr(routing, "validate_definition",
                        lambda tree, registry: (checked.append(tree.tree), real(tree, registry))[1])
    monkeypatch.setattr(routing, "tree_cost", lambda tree, costs: 1.0 if tree.tree == "htn" else 100.0)
    decision = r.route(Intent.from_text("obtain stick"), STATE)
    assert decision.chosen == "solver", decision.candidates
    rejected = next(c for c in decision.candidates if c.planner == "htn")
    assert not rejected.ok and rejected.reason is not None and rejected.reason.startswith("invalid:"), rejected
    assert checked == ["htn", "solver"]
    checked.clear()
    monkeypatch.setattr(routing, "tree_cost", lambda tree, costs: 100.0 if tree.tree == "htn" else 1.0)
    assert r.route(Intent.from_text("obtain stick"), STATE).chosen == "solver" and checked == ["solver"]
    alone = Router(default_registry(), PriorsStore(":memory:"), planners={"htn": bad})  # type: ignore[dict-item]
    with pytest.raises(CraftbtError, match="invalid"):
        alone.route(Intent.from_text("obtain stick"), STATE)


class _Refusing(_Fixed):
    """A planner that refuses with ``reason`` (and counts how often it was asked)."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(name, m.LeafNode(name="x", capability="craft_recipe", args={"recipe": "stick"}))
        self.reason, self.asked = reason, 0

    def plan(self, intent: Intent, state: PlanningState, registry: Any) -> Any:
        from craftbt.planners.base import PlanningFailure

        self.asked += 1
        raise PlanningFailure(self.reason, "from what is held")


def test_a_craft_only_goal_takes_the_first_valid_plan_solver_first() -> None:
    """Craft-only (nothing gathered), the router asks the solver, then HTN, then GOAP, and takes the first valid
    plan: the planners share one knowledge of the inventory, so planning three times bought only time. A
    refusal that proves the goal cannot be made ends the route; any other refusal, or an invalid tree, passes
    to the next planner. A gathering goal still asks every planner."""
    held = PlanningState(inventory={"oak_planks": 2}, available_blocks=frozenset(), gathering=False)
    stick = m.LeafNode(name="ok", capability="craft_recipe", args={"recipe": "stick", "qty": 1})
    planners: dict[str, Any] = {"htn": _Fixed("htn", stick), "goap": _Fixed("goap", stick),
                                "solver": _Fixed("solver", stick)}
    r = Router(default_registry(), PriorsStore(":memory:"), planners=planners)
    decision = r.route(Intent.from_text("obtain stick"), held)
    assert decision.chosen == "solver" and [c.planner for c in decision.candidates] == ["solver"], decision.candidates
    assert decision.reason.endswith("craft-only: the first valid plan of solver, htn, goap in turn"), decision.reason
    assert [c.planner for c in r.route(Intent.from_text("obtain stick"), STATE).candidates] == ["htn", "solver", "goap"]
    bad = m.LeafNode(name="bad", capability="craft_recipe", args={"recipe": "stick", "qty": "x"})
    planners.update(solver=_Refusing("solver", "budget_exceeded"), htn=_Fixed("htn", bad))
    decision = r.route(Intent.from_text("obtain stick"), held)
    assert decision.chosen == "goap", decision.candidates
    assert [(c.planner, c.ok, (c.reason or "")[:7]) for c in decision.candidates] == [
        ("solver", False, "budget_"), ("htn", False, "invalid"), ("goap", True, "")]
    proof = planners["solver"] = _Refusing("solver", "missing_ingredient")
    planners["htn"] = _Refusing("htn", "missing_ingredient")
    with pytest.raises(CraftbtError, match="missing_ingredient"):
        r.route(Intent.from_text("obtain stick"), held)
    assert proof.asked == 1 and planners["htn"].asked == 0
