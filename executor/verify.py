"""Tri-state verification policy (seed 000 "Receipt-Anchored Verification").

One implementation: :class:`capabilities.behaviour.CapabilityBehaviour` runs the
acceptance check and probes inconclusive verdicts; this module is the policy
table the executor applies to the outcome, and the reader for recorded verdicts.

| verdict      | what the executor does                                                  |
|--------------|-------------------------------------------------------------------------|
| verified     | accept, move to the next step                                           |
| inconclusive | probe again only (never re-dispatch); accept when the probe budget ends |
| contradicted | fail (``verification_contradicted``, retryable) -> local re-dispatch    |
"""

from __future__ import annotations

from enum import StrEnum

from craftbt.capabilities.spec import ActionResult, Verdict


class Next(StrEnum):
    ACCEPT = "accept"
    PROBE_AGAIN = "probe_again"
    REDISPATCH = "redispatch"


POLICY: dict[Verdict, Next] = {
    Verdict.VERIFIED: Next.ACCEPT,
    Verdict.INCONCLUSIVE: Next.PROBE_AGAIN,
    Verdict.CONTRADICTED: Next.REDISPATCH,
}


def accepted_on_probe_timeout(result: ActionResult) -> bool:
    v = result.verification
    return bool(v and v.verdict is Verdict.INCONCLUSIVE and v.evidence.get("accepted_on_probe_timeout"))


def outcome(result: ActionResult) -> str:
    """A one-word verification outcome for summaries: verified, inconclusive_accepted, contradicted, none."""
    v = result.verification
    if v is None:
        return "none"
    if accepted_on_probe_timeout(result):
        return "inconclusive_accepted"
    return v.verdict.value
