"""Symbolic facts (``has:oak_log``, ``near:crafting_table``) from capability preconditions and effects.

A spec declares facts with ``{arg}`` placeholders. :func:`instantiate` fills
them from a leaf's args; :func:`evaluate` answers a fact from an observation
when it can (``True``/``False``) and returns ``None`` when an observation cannot
tell (the fact is then assumed, and the gate records the assumption).
"""

from __future__ import annotations

from craftbt.capabilities.facts import PLACEHOLDER, instantiate
from craftbt.world.body import Observation

__all__ = ["PLACEHOLDER", "evaluate", "initial_facts", "instantiate"]

def evaluate(fact: str, obs: Observation) -> bool | None:
    kind, _, subject = fact.partition(":")
    if kind == "has" and subject:
        item, _, count = subject.partition("*")
        return obs.count(item) >= (int(count) if count.isdigit() else 1)
    if kind == "not_has" and subject:
        return obs.count(subject) == 0
    return None


def initial_facts(obs: Observation) -> set[str]:
    return {f"has:{item}" for item, n in obs.inventory.items() if n > 0}
