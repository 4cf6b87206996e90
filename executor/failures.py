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

from pydantic import BaseModel, ConfigDict, Field, model_validator


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
    #: what the refusal lacked, as data (item -> how many more): the leaf's :attr:`GuardResult.missing`
    missing: dict[str, int] = Field(default_factory=dict)


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
        data["context"] = self.context.model_dump(mode="json", exclude_none=True,
                                                  exclude={"missing"} if not self.context.missing else None)
        return data


GUARD_PREFIX = "guard_failed:"
PRECONDITION_PREFIX = "precond_missing"
GATE_PREFIX = "rig_g_blocked:"


def precondition_of(code: str | None) -> str | None:
    """The precondition a refusal code names, or None: ``guard_failed:precond_missing:item:stick`` ->
    ``precond_missing:item:stick``; a feasibility block ``rig_g_blocked:has:raw_iron`` -> the fact
    ``has:raw_iron``. Codes are stable identifiers the leaves and stages choose (never message text)."""
    if not code:
        return None
    code = code.removeprefix(GUARD_PREFIX)
    if code.startswith(PRECONDITION_PREFIX):
        return code
    if code.startswith(GATE_PREFIX) and ":" in code[len(GATE_PREFIX):]:
        return code[len(GATE_PREFIX):]
    return None


class FailureSource(StrEnum):
    ESCALATION = "escalation"
    #: a failure decision of the run: a block at the gate or at dispatch, a detector's trip
    DECISION = "decision"
    #: neither: the run's status says all (``hung``, ``budget_exhausted``...)
    STATUS = "status"


#: the fields :meth:`Failure.decided` sets itself; the payload's other keys become fields or extras by name
_SET_BY_DECIDED = frozenset({"source", "reason", "node", "capability", "tick", "code", "detail", "precondition",
                             "missing", "args"})


class Failure(BaseModel):
    """Why a run failed, as the router replans from it; also each failure decision of a run
    (:attr:`RunOutcome.failures <craftbt.executor.executor.RunOutcome.failures>`), built where it is decided.

    The typed fields are what readers use; a decision's other journal fields (``stage``, ``why``,
    ``attempts``, ``unreachable``...) ride along as extra fields, so its JSON keeps every key it had."""

    model_config = ConfigDict(extra="allow")

    #: where it came from (a record read back from JSON that predates the field is a decision)
    source: FailureSource = FailureSource.DECISION
    #: the escalation's reason, the decision's reason, or the run's status
    reason: str
    #: the capability's error code (an escalation), or the gate's ``rig_g_blocked:<fact>``
    code: str | None = None
    capability: str | None = None
    node: str | None = None
    #: for humans: never parsed (the fields below carry what a repair needs)
    detail: str = ""
    #: the failed step's args
    args: dict[str, Any] = Field(default_factory=dict)
    #: the precondition the step or the tree lacked (``precond_missing:table``, ``has:raw_iron``)
    precondition: str | None = None
    #: what the step lacked, as data: item -> how many more (``{"oak_planks": 3}``)
    missing: dict[str, int] = Field(default_factory=dict)
    #: the game tick of a decision
    tick: int | None = None
    #: the dispatch stage that refused the step (``guard``, ``geofence``, ``permissions``, ``feasibility_gate``...)
    stage: str | None = None
    #: the server command a refusal kept from the server (``give``)
    command: str | None = None

    @model_validator(mode="after")
    def _named_precondition(self) -> Failure:
        """A code that names a precondition names it here too (one reading of codes, for every maker)."""
        if self.precondition is None:
            self.precondition = precondition_of(self.code) or precondition_of(self.reason)
        return self

    @classmethod
    def decided(cls, reason: str, *, node: str | None, capability: str | None, tick: int | None,
                payload: dict[str, Any]) -> Failure:
        """A run's decision as it is recorded (:meth:`RunState.decide <craftbt.executor.state.RunState.decide>`):
        ``payload`` is the journal's detail of it, whose keys the record keeps."""
        unreachable = payload.get("unreachable") or []
        code = payload.get("code")
        detail = payload.get("detail")
        missing = payload.get("missing")
        args = payload.get("args")
        # the whole-tree gate: the first fact it found unreachable is what a repair obtains
        precondition = str(unreachable[0]) if unreachable else None
        if unreachable:
            code = f"{reason}:{unreachable[0]}"
        extra = {k: v for k, v in payload.items() if k not in _SET_BY_DECIDED}
        return cls(source=FailureSource.DECISION, reason=reason, node=node, capability=capability, tick=tick,
                   code=code if isinstance(code, str) else None, detail=detail if isinstance(detail, str) else "",
                   precondition=precondition, missing=missing if isinstance(missing, dict) else {},
                   args=args if isinstance(args, dict) else {}, **extra)

    @classmethod
    def of(cls, escalation: Escalation | None, failures: list[Failure], status: str) -> Failure:
        """The run's escalation, else its last failure decision, else its status."""
        if escalation is not None:
            return cls(source=FailureSource.ESCALATION, reason=escalation.reason.value, code=escalation.code,
                       capability=escalation.capability, node=escalation.node, detail=escalation.detail,
                       args=escalation.context.args, precondition=escalation.context.precondition,
                       missing=escalation.context.missing, tick=escalation.tick)
        if not failures:
            return cls(source=FailureSource.STATUS, reason=str(status))
        return failures[-1]

    @property
    def key(self) -> str:
        """What the repeated-failure detector counts: the code, else the reason."""
        return self.code or self.reason
