"""Seed 004's navigation policy for ``nav(start)`` and CraftScript's ``goto``: what a path may do, and the
hazard envelope that stops a walk.

* ``allow_dig`` (default false), ``max_drop`` (default 3: a fall of more than 3 blocks hurts, and the
  executor never lets the bot damage itself), ``max_step`` (0 or 1, default 1).
* Before a walk starts, the path the body would walk (``plan``: the embedded world's search, or
  mineflayer-pathfinder's searched without walking) is checked step by step: a dig the policy does not allow,
  a rise above ``max_step`` or a drop below ``max_drop`` refuses the walk (``UNREACHABLE``), a cell beside lava
  or fire refuses it (``HAZARD``). mineflayer-pathfinder also gets ``max_drop`` as its largest drop
  (``set_max_drop``, set before the check so the path checked is the one walked) and never digs.
* While walking, the hazard envelope (lava or fire in the bot's cell, above or beside it, or under its
  floor) stops it with ``HAZARD``.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from craftbt.world.body import BlockPos, Body, BodyError
from craftbt.world.terrain import BURNING  # the blocks the envelope keeps the bot out of and away from

#: the envelope: the feet and head cells and the floor, and the four cells beside the feet and the floor
ENVELOPE = ((0, 0, 0), (0, 1, 0), (0, -1, 0), (1, 0, 0), (-1, 0, 0), (0, 0, 1), (0, 0, -1),
            (1, -1, 0), (-1, -1, 0), (0, -1, 1), (0, -1, -1))


class NavFailure(StrEnum):
    """Seed 004's nav failure reasons (planner feedback)."""

    UNREACHABLE = "UNREACHABLE"
    BLOCKED = "BLOCKED"
    TIMEOUT = "TIMEOUT"
    HAZARD = "HAZARD"


class NavPolicy(BaseModel):
    """``policy`` of ``nav(start)``; CraftScript's ``goto`` takes the same fields as named arguments."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    allow_dig: bool = Field(default=False, description="The path may dig through blocks")
    max_drop: int = Field(default=3, ge=0, le=3, description="Largest drop down one step, in blocks")
    max_step: int = Field(default=1, ge=0, le=1, description="Largest step up, in blocks")


def hazard_near(read: Callable[[BlockPos], str], feet: BlockPos) -> str | None:
    """What burns in the envelope around ``feet`` (``"lava at 3,63,0"``), or None."""
    for dx, dy, dz in ENVELOPE:
        p = feet.offset(dx, dy, dz)
        name = read(p)
        if name in BURNING:
            return f"{name} at {p.x},{p.y},{p.z}"
    return None


def path_violation(body: Body, target: BlockPos, tolerance: float, policy: NavPolicy,
                   read: Callable[[BlockPos], str]) -> tuple[NavFailure, str] | None:
    """Why the planned path to ``target`` breaks ``policy``, or None (also when the body cannot show its plan:
    its goto then reports no_path itself)."""
    plan: Callable[[BlockPos, float], list[Any]] | None = getattr(body, "plan", None)
    if plan is None:
        return None
    try:
        steps = plan(target, tolerance)
    except BodyError:
        return None
    prev = body.position().block()
    for step in steps:
        here = BlockPos(*step.pos)
        where = f"{here.x},{here.y},{here.z}"
        if step.dig and not policy.allow_dig:
            d = step.dig[0]
            return NavFailure.UNREACHABLE, f"the path digs at {d[0]},{d[1]},{d[2]} (allow_dig is false)"
        rise = here.y - prev.y
        if rise > policy.max_step:
            return NavFailure.UNREACHABLE, f"a step up of {rise} at {where} (max_step {policy.max_step})"
        if -rise > policy.max_drop:
            return NavFailure.UNREACHABLE, f"a drop of {-rise} at {where} (max_drop {policy.max_drop})"
        burning = hazard_near(read, here)
        if burning is not None:
            return NavFailure.HAZARD, f"the path passes {burning}"
        prev = here
    return None


def apply_to_body(body: Body, policy: NavPolicy) -> Callable[[], None]:
    """Give a body that plans its own paths the policy's largest drop; returns how to restore the old one."""
    setter: Callable[[int], int] | None = getattr(body, "set_max_drop", None)
    if setter is None:
        return lambda: None
    old = setter(policy.max_drop)

    def restore() -> None:
        setter(old)

    return restore
