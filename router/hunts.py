"""Hunts in a goal run: which mob the running hunt step is after, told to the safety monitor and the night watch.

A planner emits a hunt as one group of steps per item (``planners.living.hunt_steps``): find the mob, take a
sword in hand, kill it, pick the drop up. Hostile mobs (spider, creeper, skeleton, zombie) are found only in
the dark, so a hunt for string runs at night, the hunted spider within the safety monitor's range. Without a
word from the goal run, the executor's safety fast path retreated from that spider as from any hostile, and the
night watch stopped the spider search at sunset: no night hunt could succeed.

While a step of a hunt group runs, :class:`HuntWatch` names the group's mob for the body
(:func:`craftbt.executor.preemption.set_quarry`); the monitor then does not retreat from the nearest mob of that
type (it still does from any other hostile, a second one of the type, and on a health drop), and
:func:`hunting_at_night` keeps the night watch from stopping a hunt whose mob is in view or burns at dawn (the
shelter comes after it).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

import py_trees

from craftbt.capabilities.behaviour import CapabilityBehaviour
from craftbt.executor.digests import iter_leaves
from craftbt.executor.preemption import set_quarry
from craftbt.trees import model as m
from craftbt.world import nature

if TYPE_CHECKING:
    from craftbt.executor.executor import Executor

#: the steps that name a hunt's mob, and the argument that names it
HUNT_TARGET_ARGS = {"explore": "target", "attack_entity": "entityType"}


def _named_mob(capability: str, args: Mapping[str, Any]) -> str | None:
    """The mob a step of ``capability`` (``name`` or ``name@version``) with ``args`` hunts, if it hunts one."""
    key = HUNT_TARGET_ARGS.get(capability.partition("@")[0])
    mob = args.get(key) if key is not None else None
    return mob if isinstance(mob, str) and mob in nature.MOB_LOOT else None


def _mob(leaf: py_trees.behaviour.Behaviour) -> str | None:
    return _named_mob(leaf.spec.name, leaf.raw_args) if isinstance(leaf, CapabilityBehaviour) else None


def _goal_steps(run: Any) -> list[Any]:
    """The running steps of the goal's tree (a safety fast path running meanwhile is none of them)."""
    return [s for s in tuple(run.active) if s is not run.fast_path]


def hunted(run: Any) -> str | None:
    """The mob a step of the running tree hunts: the step itself names it (a search for it, the fight), or a
    sibling in its group does (the sword taken in hand, the drop picked up)."""
    for supervisor in _goal_steps(run):
        leaf = supervisor.leaf
        mob = _mob(leaf)
        if mob is None and leaf.parent is not None:
            mob = next((m for m in map(_mob, leaf.parent.children) if m is not None), None)
        if mob is not None:
            return mob
    return None


def hunted_in(tree: m.TreeDefinition) -> frozenset[str]:
    """The mobs a plan's hunt steps are after (the search for one, the fight)."""
    mobs = (_named_mob(leaf.capability, leaf.args) for leaf in iter_leaves(tree.root))
    return frozenset(mob for mob in mobs if mob is not None)


#: a hunted mob this near is fought in the dark (the explore leaf's view of entities)
HUNT_VIEW = 32.0


def hunting_at_night(executor: Executor, run: Any) -> bool:
    """A hunt the dark is for is running: the fight and the pick-up it began, or a search for a mob in view or
    one that burns in the morning (zombie, skeleton). While a safety fast path runs, the watch waits for it.

    A search for a spider or a creeper not in view waits for the morning instead: both outlive the night, and a
    search on the surface in the dark met zombies, skeletons and creepers that the safety fast path retreated
    from until the search flapped (see docs/benchmarks.md, night hunts)."""
    if run is None:
        return False  # no run state (a watch called outside a run)
    steps = _goal_steps(run)
    if not steps:
        return run.fast_path is not None and run.fast_path in run.active  # look again when the retreat ends
    mob = hunted(run)
    if mob is None or not nature.night_only(mob):
        return False
    if any(s.leaf.spec.name != "explore" for s in steps):
        return True  # the sword, the fight, the drop: the hunt ends first
    return mob in nature.UNDEAD or any(e.name == mob for e in executor.body.entities(HUNT_VIEW, kind="hostile"))


class HuntWatch:
    """A tick listener (:meth:`Executor.listening`): names the running hunt's mob to the safety monitor. Between
    two steps (no step holds a stream) and during a fast path the quarry stays: the fight follows the search."""

    def __call__(self, executor: Executor, run: Any, root: Any) -> None:
        if _goal_steps(run):
            set_quarry(executor.body, hunted(run))


@contextmanager
def watching_hunts(executor: Executor) -> Iterator[None]:
    """Listen for hunts while the block runs; no quarry is left behind for the next run (a night's shelter)."""
    try:
        with executor.listening(HuntWatch()):
            yield
    finally:
        set_quarry(executor.body, None)
