"""Symbolic facts (``has:oak_log``, ``near:crafting_table``) from capability preconditions and effects.

A spec declares facts with ``{arg}`` placeholders. :func:`instantiate` fills
them from a leaf's args; :func:`evaluate` answers a fact from an observation
when it can (``True``/``False``) and returns ``None`` when an observation cannot
tell (the fact is then assumed, and the gate records the assumption). The
executor's gate and pipeline and the GOAP planner read them.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from craftbt.world.body import Observation

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_.]*)\}")

#: a template split once: literal text, then (dotted path, literal text) pairs
Template = tuple[str, tuple[tuple[tuple[str, ...], str], ...]]


@lru_cache(maxsize=4096)
def _template(fact: str) -> Template:
    # the gate and the pipeline fill the same few declared facts for every leaf: parse each once
    pieces = PLACEHOLDER.split(fact)
    fills = tuple((tuple(pieces[i].split(".")), pieces[i + 1]) for i in range(1, len(pieces), 2))
    return pieces[0], fills


def instantiate(fact: str, args: dict[str, Any]) -> str | None:
    """Fill ``{arg}`` placeholders; ``None`` when an arg is missing or not a scalar."""
    head, fills = _template(fact)
    if not fills:
        return fact
    out = [head]
    for path, tail in fills:
        value: Any = args
        for part in path:
            if not isinstance(value, dict) or part not in value:
                return None
            value = value[part]
        if isinstance(value, dict | list) or value is None:
            return None
        out.append(str(value))
        out.append(tail)
    return "".join(out)


def held_fact(fact: str) -> tuple[str, int] | None:
    """``has:<item>[*<n>]`` -> (item, n); None for any other fact."""
    kind, _, subject = fact.partition(":")
    if kind != "has" or not subject:
        return None
    item, _, count = subject.partition("*")
    return item, int(count) if count.isascii() and count.isdigit() else 1


def evaluate(fact: str, obs: Observation) -> bool | None:
    held = held_fact(fact)
    if held is not None:
        return obs.count(held[0]) >= held[1]
    kind, _, subject = fact.partition(":")
    if kind == "not_has" and subject:
        return obs.count(subject) == 0
    return None


def initial_facts(obs: Observation) -> set[str]:
    return {f"has:{item}" for item, n in obs.inventory.items() if n > 0}
