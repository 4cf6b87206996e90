"""Symbolic facts (``has:oak_log``, ``near:crafting_table``) from capability preconditions and effects.

A spec declares facts with ``{arg}`` placeholders. :func:`instantiate` fills
them from a leaf's args; :func:`evaluate` answers a fact from an observation
when it can (``True``/``False``) and returns ``None`` when an observation cannot
tell (the fact is then assumed, and the gate records the assumption).
"""

from __future__ import annotations

import re
from typing import Any

from world.body import Observation

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")


def _lookup(args: dict[str, Any], dotted: str) -> Any:
    value: Any = args
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            raise KeyError(dotted)
        value = value[part]
    return value


def instantiate(fact: str, args: dict[str, Any]) -> str | None:
    """Fill ``{arg}`` placeholders; ``None`` when an arg is missing or not a scalar."""
    try:
        def fill(match: re.Match[str]) -> str:
            value = _lookup(args, match.group(1))
            if isinstance(value, dict | list) or value is None:
                raise KeyError(match.group(1))
            return str(value)

        return PLACEHOLDER.sub(fill, fact)
    except KeyError:
        return None


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
