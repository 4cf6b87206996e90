"""The backoff taxonomy (seed 002): deterministic blocks wait 5 minutes, transient ones 30 seconds.

Deterministic blocks do not clear without a plan change (unknown verb, derived
or sentinel args, invalid args, planning incomplete, no mapped action, ...);
transient ones clear when the world or runtime changes (rate limited,
feasibility gate blocked, safety preempted). Every block sets
``next_eligible_at``; :class:`TaskBoard` selection never returns a task before
that time, so a blocked task cannot hot-loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

DETERMINISTIC_BLOCK_BACKOFF_MS = 300_000
TRANSIENT_BLOCK_BACKOFF_MS = 30_000


class BlockClass(StrEnum):
    DETERMINISTIC = "deterministic"
    TRANSIENT = "transient"
    NONE = "none"


#: reason code (before any ``:detail`` suffix) -> backoff class. Anything absent is not a block.
REASON_CLASS: dict[str, BlockClass] = {
    "unknown_verb": BlockClass.DETERMINISTIC,
    "unknown_leaf": BlockClass.DETERMINISTIC,
    "invalid_args": BlockClass.DETERMINISTIC,
    "derived_args_not_allowed_live": BlockClass.DETERMINISTIC,
    "sentinel_args": BlockClass.DETERMINISTIC,
    "args_not_plain_object": BlockClass.DETERMINISTIC,
    "planning_incomplete": BlockClass.DETERMINISTIC,
    "no_mapped_action": BlockClass.DETERMINISTIC,
    "unknown_blackboard_key": BlockClass.DETERMINISTIC,
    "guard_failed": BlockClass.DETERMINISTIC,
    "geofence_unconfigured": BlockClass.DETERMINISTIC,
    "geofence_violation": BlockClass.DETERMINISTIC,
    "permission_denied": BlockClass.DETERMINISTIC,
    "capability_revoked": BlockClass.DETERMINISTIC,
    "unsupported_body": BlockClass.DETERMINISTIC,
    "server_unsupported": BlockClass.DETERMINISTIC,
    "rate_limited": BlockClass.TRANSIENT,
    "rig_g_blocked": BlockClass.TRANSIENT,
    "safety_preempted": BlockClass.TRANSIENT,
}

#: reasons no replan can clear: the server lacks what the step needs (world.body's SERVER_UNSUPPORTED),
#: so a goal run stops at the first one instead of planning the same step again
UNREPAIRABLE: frozenset[str] = frozenset({"server_unsupported"})

BACKOFF_MS: dict[BlockClass, int] = {
    BlockClass.DETERMINISTIC: DETERMINISTIC_BLOCK_BACKOFF_MS,
    BlockClass.TRANSIENT: TRANSIENT_BLOCK_BACKOFF_MS,
    BlockClass.NONE: 0,
}


def reason_code(reason: str) -> str:
    """``guard_failed:no_table`` -> ``guard_failed``."""
    return reason.split(":", 1)[0]


def classify(reason: str) -> BlockClass:
    return REASON_CLASS.get(reason_code(reason), BlockClass.NONE)


def unrepairable(reason: str) -> bool:
    """Whether no plan change can clear ``reason`` (see :data:`UNREPAIRABLE`)."""
    return reason_code(reason) in UNREPAIRABLE


def next_eligible_at(reason: str, now_ms: int) -> int:
    return now_ms + BACKOFF_MS[classify(reason)]


@dataclass
class Task:
    """A unit the executor may select: a tree to run, with its block state."""

    task_id: str
    priority: float = 0.5
    blocked_reason: str | None = None
    next_eligible_at: int = 0
    blocks: int = 0
    payload: dict[str, Any] = field(default_factory=dict)


class TaskBoard:
    """Task selection that respects ``next_eligible_at`` (the seed's isTaskEligible)."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}

    def add(self, task: Task) -> Task:
        self._tasks[task.task_id] = task
        return task

    def remove(self, task_id: str) -> None:
        self._tasks.pop(task_id, None)

    def get(self, task_id: str) -> Task:
        return self._tasks[task_id]

    def __len__(self) -> int:
        return len(self._tasks)

    @staticmethod
    def eligible(task: Task, now_ms: int) -> bool:
        return now_ms >= task.next_eligible_at

    def select(self, now_ms: int) -> Task | None:
        """The highest-priority eligible task (ties: task id, for determinism)."""
        ready = [t for t in self._tasks.values() if self.eligible(t, now_ms)]
        if not ready:
            return None
        return min(ready, key=lambda t: (-t.priority, t.task_id))

    def block(self, task_id: str, reason: str, now_ms: int) -> Task:
        task = self._tasks[task_id]
        task.blocked_reason = reason
        task.next_eligible_at = next_eligible_at(reason, now_ms)
        task.blocks += 1
        return task

    def clear(self, task_id: str) -> None:
        task = self._tasks[task_id]
        task.blocked_reason = None
        task.next_eligible_at = 0
