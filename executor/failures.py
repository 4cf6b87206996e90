"""What the executor hands up when a run did not succeed: typed, so the router reads fields, not text.

* :class:`Escalation` — a leaf's local repair is exhausted (I3): its step, why (:class:`EscalationReason`), the
  capability's error code and the step's args and unmet precondition (:class:`EscalationContext`);
* :class:`Failure` — what a goal run replans from (:meth:`Failure.of`): the run's escalation, else its last
  failure decision (the whole-tree gate's block names the unreachable preconditions it found), else its status.

The router's repairs (a subgoal for a missing precondition, a survey that skips unreachable material, the
repeated-failure detector) and the reports read these fields; none parses a message.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, Field


class EscalationReason(StrEnum):
    """Why a supervisor gave up on a step and handed it to the router."""

    LOCAL_REPAIR_EXHAUSTED = "local_repair_exhausted"
    NON_RETRYABLE_FAILURE = "non_retryable_failure"
    TRANSIENT_BLOCK_EXHAUSTED = "transient_block_exhausted"
    DETERMINISTIC_BLOCK = "deterministic_block"
    NAVIGATION_NEVER_ENDED = "navigation_never_ended"
    BODY_DISCONNECTED = "body_disconnected"


class EscalationContext(BaseModel):
    """The step an escalation came from: its args, what the body reported, and the precondition it lacked."""

    observables: dict[str, Any] = Field(default_factory=dict)
    args: dict[str, Any] = Field(default_factory=dict)
    #: ``precond_missing`` when a guard kept refusing the step (FM-02: a subgoal, not another retry)
    effects_unmet: str | None = None
    #: the refusal's precondition code, e.g. ``precond_missing:item:stick``
    precondition: str | None = None
    #: how often this step's guard refused with this code in the run
    guard_failures: int | None = None


class Escalation(BaseModel):
    """What the executor hands the router when local repair is exhausted (I3)."""

    run_id: str
    node: str
    capability: str
    reason: EscalationReason
    code: str | None
    detail: str
    attempts: int
    tick: int
    context: EscalationContext = Field(default_factory=EscalationContext)

    def as_dict(self) -> dict[str, Any]:
        """The JSON of the journal summary and the golden-run report (an unset context field is left out)."""
        data = self.model_dump(mode="json", exclude={"context"})
        data["context"] = self.context.model_dump(mode="json", exclude_none=True)
        return data


class FailureSource(StrEnum):
    ESCALATION = "escalation"
    #: a failure decision of the run: a block at the gate or at dispatch, a detector's trip
    DECISION = "decision"
    #: neither: the run's status says all (``hung``, ``budget_exhausted``...)
    STATUS = "status"


class Failure(BaseModel):
    """Why a run failed, as the router replans from it."""

    source: FailureSource
    #: the escalation's reason, the decision's reason, or the run's status
    reason: str
    #: the capability's error code (an escalation), or the gate's ``rig_g_blocked:<fact>``
    code: str | None = None
    capability: str | None = None
    node: str | None = None
    detail: str = ""
    #: the failed step's args
    args: dict[str, Any] = Field(default_factory=dict)
    #: the precondition the step or the tree lacked (``precond_missing:table``, ``has:raw_iron``)
    precondition: str | None = None

    @classmethod
    def of(cls, escalation: Escalation | None, failures: list[dict[str, Any]], status: str) -> Failure:
        """The run's escalation, else its last failure decision, else its status."""
        if escalation is not None:
            return cls(source=FailureSource.ESCALATION, reason=escalation.reason.value, code=escalation.code,
                       capability=escalation.capability, node=escalation.node, detail=escalation.detail,
                       args=escalation.context.args, precondition=escalation.context.precondition)
        if not failures:
            return cls(source=FailureSource.STATUS, reason=status)
        last = failures[-1]
        unreachable = last.get("unreachable") or []
        detail = last.get("detail")
        return cls(source=FailureSource.DECISION, reason=str(last.get("reason") or status),
                   code=f"{last.get('reason')}:{unreachable[0]}" if unreachable else last.get("code"),
                   capability=last.get("capability"), node=last.get("node"),
                   detail=detail if isinstance(detail, str) else "",
                   precondition=unreachable[0] if unreachable else None)

    @property
    def key(self) -> str:
        """What the repeated-failure detector counts: the code, else the reason."""
        return self.code or self.reason
