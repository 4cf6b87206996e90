"""Intent: the normalized request every planner and the router reason about (seed 003, section 1).

Free text such as ``"obtain 3 iron_pickaxe"`` is parsed into a :class:`Goal`
by :func:`parse_goal`; anything that does not parse is a structured error, not
a guess.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field

from craftbt.core.errors import CraftbtError, ErrorCode
from craftbt.world.daytime import is_night


class IntentSource(StrEnum):
    USER = "user"
    SYSTEM = "system"
    MEMORY = "memory"


class GoalVerb(StrEnum):
    OBTAIN = "obtain"
    BUILD = "build"
    EXPLORE = "explore"
    SURVIVE = "survive"


#: Words a user may type for each verb; a table, not a parser.
VERB_SYNONYMS: dict[str, GoalVerb] = {
    "obtain": GoalVerb.OBTAIN,
    "get": GoalVerb.OBTAIN,
    "acquire": GoalVerb.OBTAIN,
    "craft": GoalVerb.OBTAIN,
    "make": GoalVerb.OBTAIN,
    "mine": GoalVerb.OBTAIN,
    "collect": GoalVerb.OBTAIN,
    "gather": GoalVerb.OBTAIN,
    "smelt": GoalVerb.OBTAIN,
    "build": GoalVerb.BUILD,
    "explore": GoalVerb.EXPLORE,
    "survive": GoalVerb.SURVIVE,
}

_GOAL = re.compile(r"^\s*(?P<verb>[a-z_]+)\s+(?:(?P<count>[0-9]+)\s*x?\s+)?(?P<target>[a-z0-9_:]+)\s*$", re.ASCII)
#: The most of one thing a goal may ask for: nine stacks. The plan grows with the count (2,304 sticks
#: drew a 1,152-action tree in 28 s and 1.5 GB), and capabilities take at most this many per step.
MAX_GOAL_COUNT = 576
MAX_GOAL_LENGTH = 200


class Goal(BaseModel):
    verb: GoalVerb
    target: str = Field(max_length=100)
    count: int = Field(default=1, ge=1, le=MAX_GOAL_COUNT)

    def __str__(self) -> str:
        return f"{self.verb.value} {self.count} {self.target}" if self.count > 1 else f"{self.verb.value} {self.target}"


class Safety(BaseModel):
    allowed: bool = True
    reason: str | None = None


class Intent(BaseModel):
    id: str = Field(default_factory=lambda: uuid.uuid4().hex[:12])
    source: IntentSource = IntentSource.USER
    goal: Goal
    context: dict[str, Any] = Field(default_factory=dict)
    urgency: float = Field(default=0.3, ge=0.0, le=1.0)
    safety: Safety = Field(default_factory=Safety)
    time_budget_ms: int | None = Field(default=None, gt=0)
    provenance_ref: str | None = None

    @classmethod
    def from_text(cls, text: str, **fields: Any) -> Intent:
        return cls(goal=parse_goal(text), provenance_ref=text, **fields)


def parse_goal(text: str) -> Goal:
    """``"obtain iron_pickaxe"``, ``"mine 3 oak_log"``, ``"get 12x oak_planks"`` -> :class:`Goal`."""
    if len(text) > MAX_GOAL_LENGTH:
        raise CraftbtError.single(
            ErrorCode.LIMIT_EXCEEDED, f"goal {text[:40]!r}... is {len(text)} characters long",
            expected=f"at most {MAX_GOAL_LENGTH}: '<verb> [count] <target>', e.g. 'mine 3 oak_log'")
    match = _GOAL.match(text.lower()) if text.isascii() else None
    if not match:
        raise CraftbtError.single(
            ErrorCode.INVALID_ARGUMENT,
            f"cannot read goal {text!r}",
            expected="'<verb> [count] <target>', e.g. 'obtain iron_pickaxe' or 'mine 3 oak_log'",
        )
    verb = VERB_SYNONYMS.get(match["verb"])
    if verb is None:
        from craftbt.capabilities.registry import suggest

        raise CraftbtError.single(
            ErrorCode.INVALID_ARGUMENT,
            f"unknown goal verb {match['verb']!r}",
            expected="one of " + ", ".join(sorted(VERB_SYNONYMS)),
            suggestion=suggest(match["verb"], VERB_SYNONYMS),
        )
    target = match["target"].removeprefix("minecraft:")
    raw = match["count"] or "1"
    count = int(raw) if len(raw) <= 6 else MAX_GOAL_COUNT + 1
    if not 1 <= count <= MAX_GOAL_COUNT:
        raise CraftbtError.single(
            ErrorCode.LIMIT_EXCEEDED if count > MAX_GOAL_COUNT else ErrorCode.INVALID_ARGUMENT,
            f"goal {text!r}: count {raw} is outside 1..{MAX_GOAL_COUNT}",
            expected=f"a count from 1 to {MAX_GOAL_COUNT} (nine stacks); split a larger goal into several",
        )
    return Goal(verb=verb, target=target, count=count)


def context_key(context: Mapping[str, Any], time_of_day: int | None = None) -> str:
    """``"taiga/night"``: the biome from the intent's context, the time from it or from the clock."""
    biome = str(context.get("biome") or "any")
    when = context.get("time")
    if when not in ("day", "night"):
        when = "night" if time_of_day is not None and is_night(time_of_day) else "day"
    return f"{biome}/{when}"
