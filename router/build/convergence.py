"""Repairs that converge (seed 001 failure card "replan thrash"): never re-run an identical work package.

A work package is worth running again only when something it depends on has
changed since the last attempt: the world at the module's witness cells, the
package itself (its content-addressed step ids) or the materials it needs. The
:class:`AttemptGuard` keeps one digest of those per target (a module, or an
invariant's repair) and says when an attempt would repeat the last one; the
runner then stops and reports the module blocked with :func:`stuck_report` —
the cells that cannot be placed and why — instead of looping to the attempt cap.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from craftbt.capabilities.structures import ModuleWitness
from craftbt.executor.executor import RunOutcome
from craftbt.planners.building.decompose import BuildStep, materials_for

#: How many stuck cells a blocked reason names (the event carries them all).
CELLS_SHOWN = 6


def attempt_digest(diff: ModuleWitness, steps: list[BuildStep], inventory: dict[str, int]) -> str:
    """Content address of one attempt: observed witness cells + step ids + the materials it needs in hand."""
    need = materials_for(steps)
    body = {
        "world": diff.evidence_digest,
        "steps": sorted(s.step_id for s in steps),
        "have": {item: inventory.get(item, 0) for item in sorted(need)},
    }
    return "sha256:" + hashlib.sha256(json.dumps(body, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


@dataclass
class AttemptGuard:
    """The last attempt's digest per target; ``repeats`` is true when nothing changed since."""

    last: dict[str, str] = field(default_factory=dict)

    def repeats(self, target: str, digest: str) -> bool:
        if self.last.get(target) == digest:
            return True
        self.last[target] = digest
        return False

    def forget(self, target: str) -> None:
        self.last.pop(target, None)


def why(outcome: RunOutcome | None) -> str:
    """The reason class of the last failed run: the escalation's or the last failure's code and detail."""
    if outcome is None:
        return "no attempt ran"
    if outcome.escalation:
        e = outcome.escalation
        return f"{e.code or e.reason.value}: {e.detail} (at {e.node})".strip()
    if outcome.failures:
        f = outcome.failures[-1]
        return f"{f.key} (at {f.node})"
    return f"run ended {outcome.status}"


def stuck_report(module_id: str, diff: ModuleWitness, outcome: RunOutcome | None) -> dict[str, Any]:
    """The cells a module still lacks (missing, wrong, obstructed) and the reason the last attempt gave."""
    cells = [
        {"pos": [c.x, c.y, c.z], "expected": c.expected, "observed": c.observed, "issue": issue}
        # wrong and obstructing blocks first: they are what a package digs first, so what stops it
        for issue, group in (("wrong", diff.wrong), ("obstructed", diff.obstructed), ("missing", diff.missing))
        for c in group
    ]
    shown = ", ".join(
        f"{tuple(c['pos'])} missing {c['expected']}"
        if c["issue"] == "missing"
        else f"{tuple(c['pos'])} {c['issue']}: {c['observed']} (want {c['expected']})"
        for c in cells[:CELLS_SHOWN]
    )
    more = f" (+{len(cells) - CELLS_SHOWN} more)" if len(cells) > CELLS_SHOWN else ""
    reason = why(outcome)
    text = f"no_progress:{module_id}: {len(cells)} cells cannot be completed: {shown}{more}; last attempt {reason}"
    return {
        "moduleId": module_id,
        "cells": cells,
        "why": reason,
        "text": text,
    }
