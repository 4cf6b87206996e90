"""How a run can be: the one closed set of run statuses the executor, the journal, the API and the reports share."""

from __future__ import annotations

from enum import StrEnum


class RunStatus(StrEnum):
    """A run's status; every one but ``running`` is terminal."""

    RUNNING = "running"
    SUCCESS = "success"
    FAILURE = "failure"
    #: refused before a leaf ran: the feasibility gate, a tree that does not build, Option A
    BLOCKED = "blocked"
    #: a step escalated to the router (its retries spent, a deterministic block, the body gone)
    ESCALATED = "escalated"
    #: the stuckness detector stopped a run that made no progress
    HUNG = "hung"
    #: the game-tick budget ran out
    BUDGET_EXHAUSTED = "budget_exhausted"
    #: a safety signal stopped the goal tree (the router replans around the night, the autonomy loop resumes it)
    PREEMPTED = "preempted"
    #: SIGINT or SIGTERM (or a cancel request) ended it; its open step is closed ``cancelled``
    CANCELLED = "cancelled"
    #: the process that ran it is gone (killed); the next command that opens the journal records it
    ABANDONED = "abandoned"

    @property
    def terminal(self) -> bool:
        return self is not RunStatus.RUNNING


#: every status a finished run can have
TERMINAL: frozenset[RunStatus] = frozenset(s for s in RunStatus if s.terminal)
