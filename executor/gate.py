"""The feasibility gate (seed 000 "Rig G"): fail-closed check of a whole tree before it starts.

Checks, in order: the tree format version; every verb registry-known;
every leaf's args explicit and free of sentinels (the strict normalizer);
the precondition chain reachable from the current observation, threading the
declared ``effects`` of earlier leaves through sequences (a selector is
reachable when any child is). Facts an observation cannot answer
(``near:...``) are recorded as assumptions, not blocks.

The decision mirrors the seed's: proceed or a block reason, a parallelism
budget (1-3), reorderable step pairs, and whether to replan.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from craftbt.capabilities.facts import evaluate, initial_facts, instantiate
from craftbt.capabilities.registry import Registry
from craftbt.capabilities.spec import CapabilitySpec
from craftbt.executor.normalize import NormalizeResult, normalize
from craftbt.trees import model as m
from craftbt.trees.loader import Loaded
from craftbt.trees.validate import resolve_subtree_path
from craftbt.world.body import Observation

MAX_PROBLEMS = 20


class GateDecision(BaseModel):
    should_proceed: bool
    block_reason: str | None = None
    block_detail: str = ""
    suggested_parallelism: int = Field(default=1, ge=1, le=3)
    reorderable_step_pairs: list[tuple[str, str]] = Field(default_factory=list)
    should_replan: bool = False
    replan_reason: str | None = None
    assumptions: list[str] = Field(default_factory=list)
    problems: list[str] = Field(default_factory=list)
    #: the preconditions found unreachable (``has:raw_iron``), first first: what a repair must obtain
    unreachable: list[str] = Field(default_factory=list)
    certifiable: bool = True
    option_a_compat_used: bool = False


class _Walker:
    def __init__(self, registry: Registry, obs: Observation, base_dir: Path | None = None,
                 subtrees: Mapping[Path, Loaded] | None = None) -> None:
        self.registry = registry
        self.obs = obs
        self.base_dir = base_dir
        self.subtrees = subtrees or {}
        self._inside: list[Path] = []
        self.assumptions: list[str] = []
        #: problem -> the unreachable fact it names
        self.fact_of: dict[str, str] = {}
        self.leaf_count = 0
        self.pairs: list[tuple[str, str]] = []
        self.widest_parallel = 1
        #: a sequence peeks at a leaf right before walking it: the leaf and its facts, computed once for both
        self._peeked: tuple[m.LeafNode, CapabilitySpec, list[str], list[str]] | None = None

    def _facts_of(self, leaf: m.LeafNode) -> tuple[CapabilitySpec, list[str], list[str]]:
        peeked = self._peeked
        if peeked is not None and peeked[0] is leaf:
            return peeked[1], peeked[2], peeked[3]
        spec = self.registry.get(leaf.capability)
        pre = [f for f in (instantiate(p, leaf.args) for p in spec.preconditions) if f]
        eff = spec.instantiated_effects(leaf.args)
        self._peeked = (leaf, spec, pre, eff)
        return spec, pre, eff

    def _leaf_facts(self, leaf: m.LeafNode) -> tuple[str, list[str], list[str]]:
        self.leaf_count += 1
        spec, pre, eff = self._facts_of(leaf)
        name = leaf.name or f"{spec.name}#{self.leaf_count}"
        return name, pre, eff

    def _need(self, fact: str, facts: set[str], where: str) -> str | None:
        if fact in facts or "{" in fact:
            return None
        known = evaluate(fact, self.obs)
        if known is True:
            return None
        if known is None:
            if len(self.assumptions) < MAX_PROBLEMS:
                self.assumptions.append(f"{where}: {fact}")
            return None
        problem = f"{where}: precondition {fact} is unreachable"
        self.fact_of[problem] = fact  # the fact itself, so no reader parses the problem's text
        return problem

    def walk(self, node: Any, facts: set[str]) -> tuple[set[str], list[str]]:
        """The facts after ``node`` and the problems on the way. ``facts`` is updated in place (a
        sequence threads one set through its children; a selector hands each alternative a copy), so
        a long sequence does not copy an ever-growing set once per leaf."""
        if isinstance(node, m.LeafNode):
            name, pre, eff = self._leaf_facts(node)
            missing = [p for p in (self._need(f, facts, name) for f in pre) if p]
            facts.update(eff)
            return facts, missing
        if isinstance(node, m.ConditionNode):
            check = self.registry.get_check(node.check)
            fact = instantiate(check.fact, node.args) if check.fact else None
            if fact is None:
                return facts, []
            problem = self._need(fact, facts, node.name or node.check)
            if problem is None:
                facts.add(fact)
            return facts, [problem] if problem else []
        if isinstance(node, m.SequenceNode | m.ParallelNode):
            if isinstance(node, m.ParallelNode):
                self.widest_parallel = max(self.widest_parallel, sum(isinstance(c, m.LeafNode) for c in node.children))
            problems: list[str] = []
            current = facts
            previous: tuple[str, list[str], list[str], bool] | None = None
            for child in node.children:
                if isinstance(node, m.SequenceNode) and isinstance(child, m.LeafNode):
                    info = self._peek(child)
                    if previous is not None and self._independent(previous, info):
                        self.pairs.append((previous[0], info[0]))
                    previous = info
                else:
                    previous = None
                current, found = self.walk(child, current)
                problems += found
            return current, problems
        if isinstance(node, m.SelectorNode):
            # reachable when any alternative is; afterwards any alternative's effects may hold (optimistic)
            union: set[str] = set(facts)
            all_problems: list[str] = []
            reachable = False
            for child in node.children:
                after, found = self.walk(child, set(facts))
                union |= after
                reachable = reachable or not found
                all_problems += found
            return union, [] if reachable else all_problems
        if isinstance(node, m.DecoratorNode):
            after, found = self.walk(node.child, facts)
            tolerant = node.decorator in (m.DecoratorKind.INVERTER, m.DecoratorKind.FAILURE_IS_SUCCESS)
            return after, [] if tolerant else found
        if isinstance(node, m.SubtreeNode):
            return self._subtree(node, facts)
        return facts, []

    def _subtree(self, node: m.SubtreeNode, facts: set[str]) -> tuple[set[str], list[str]]:
        """Walk an included tree in place, so its effects reach the steps after it.

        The gate judges the files validation already loaded and never reads one itself: what it
        walks is exactly what will run.
        """
        base = self._inside[-1].parent if self._inside else self.base_dir
        path = resolve_subtree_path(node.path, base)
        if path is None or path.resolve() in (p.resolve() for p in self._inside):
            self.assumptions.append(f"subtree {node.path}: not walked (unresolved or cyclic)")
            return facts, []
        loaded = self.subtrees.get(path.resolve())
        inner = loaded.definition if loaded is not None and not loaded.problems else None
        if inner is None:
            self.assumptions.append(f"subtree {node.path}: not walked (not loaded or does not load)")
            return facts, []
        self._inside.append(path)
        try:
            return self.walk(inner.root, facts)
        finally:
            self._inside.pop()

    def _peek(self, leaf: m.LeafNode) -> tuple[str, list[str], list[str], bool]:
        spec, pre, eff = self._facts_of(leaf)
        name = leaf.name or f"{spec.name}#{self.leaf_count + 1}"
        return name, pre, eff, spec.world_changing

    @staticmethod
    def _independent(a: tuple[str, list[str], list[str], bool], b: tuple[str, list[str], list[str], bool]) -> bool:
        # two world-changing steps never reorder; otherwise neither may produce what the other needs
        return not (a[3] and b[3]) and set(a[2]).isdisjoint(b[1]) and set(b[2]).isdisjoint(a[1])


def assess(defn: m.TreeDefinition, registry: Registry, obs: Observation, *,
           allow_materialize: bool = False, base_dir: Path | None = None,
           subtrees: Mapping[Path, Loaded] | None = None) -> tuple[GateDecision, NormalizeResult]:
    """Rig G. Returns the decision and the normalizer's result (whose definition is what runs).

    ``subtrees`` are the files validation loaded (:attr:`trees.validate.Checked.subtrees`); a subtree
    not among them is assumed, not read.
    """
    norm = normalize(defn, registry, allow_materialize=allow_materialize)
    common: dict[str, Any] = {"certifiable": norm.certifiable, "option_a_compat_used": norm.option_a_compat_used}
    if defn.version != m.FORMAT_VERSION:
        return GateDecision(should_proceed=False, block_reason="version_mismatch",
                            block_detail=f"tree format {defn.version}, executor speaks {m.FORMAT_VERSION}",
                            **common), norm
    if norm.planning_incomplete:
        reasons = norm.planning_incomplete_reasons
        kinds = {r.reason for r in reasons}
        block = ("unknown_verb" if "unknown_leaf" in kinds else
                 "sentinel_args" if "sentinel_args" in kinds else
                 "derived_args_not_allowed_live" if "derived_args" in kinds else "planning_incomplete")
        problems = [f"{r.reason}: {r.leaf}{' ' + r.detail if r.detail else ''}" for r in reasons]
        return GateDecision(should_proceed=False, block_reason=block, block_detail="; ".join(problems[:5]),
                            problems=problems, should_replan=True, replan_reason="planning_incomplete",
                            **common), norm
    if base_dir is None and defn.source and not defn.source.startswith("planner:"):
        base_dir = Path(defn.source).parent
    walker = _Walker(registry, obs, base_dir, subtrees)
    _, problems = walker.walk(norm.definition.root, initial_facts(obs))
    parallelism = max(1, min(3, walker.widest_parallel))
    if problems:
        unreachable = [walker.fact_of[p] for p in problems if p in walker.fact_of]
        return GateDecision(should_proceed=False, block_reason="rig_g_blocked", block_detail=problems[0],
                            problems=problems[:MAX_PROBLEMS], unreachable=unreachable[:MAX_PROBLEMS],
                            should_replan=True,
                            replan_reason="precondition_unreachable", suggested_parallelism=parallelism,
                            assumptions=walker.assumptions, **common), norm
    return GateDecision(should_proceed=True, suggested_parallelism=parallelism,
                        reorderable_step_pairs=walker.pairs, assumptions=walker.assumptions, **common), norm
