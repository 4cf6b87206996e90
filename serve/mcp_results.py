"""What the MCP tools answer: their output schemas (JSON Schema 2020-12) and the structured results that fit them.

A capability call answers the step's outcome as the executor verified it: the tri-state verdict
(``verified``, ``inconclusive``, ``contradicted``; ``null`` when no acceptance check ran, e.g. the
leaf was refused), the acceptance evidence, and the journal's run and step ids, so an agent can
quote ``craftbt runs show RUN`` for any claim it makes. A run (tree, goal, script) answers its state,
status, the verdict counts and one line per step.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from craftbt.executor.failures import Failure
from craftbt.serve.bot import Job, JobState

SCHEMA_2020_12 = "https://json-schema.org/draft/2020-12/schema"
VERDICTS = ("verified", "inconclusive", "contradicted")

_STR: dict[str, Any] = {"type": "string"}
_NSTR: dict[str, Any] = {"type": ["string", "null"]}
_NINT: dict[str, Any] = {"type": ["integer", "null"]}
_NNUM: dict[str, Any] = {"type": ["number", "null"]}
_NBOOL: dict[str, Any] = {"type": ["boolean", "null"]}
_NOBJ: dict[str, Any] = {"type": ["object", "null"]}
_VERDICT: dict[str, Any] = {"enum": [*VERDICTS, None],
                            "description": "The acceptance check's verdict; null when none ran (refused, cancelled)"}


def _obj(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required}


def output_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"$schema": SCHEMA_2020_12, **_obj(properties, required)}


#: the output schema of a tool whose answer is a JSON object of its own shape
ANY_OBJECT: dict[str, Any] = {"$schema": SCHEMA_2020_12, "type": "object"}

STEP = _obj({
    "step_id": {"type": "integer"}, "node": _STR, "capability": _STR, "version": _STR, "ok": _NBOOL,
    "verdict": _VERDICT, "evidence": _NOBJ, "error_code": _NSTR, "error_detail": _NSTR, "effects": _NOBJ,
    "started_tick": _NINT, "ended_tick": _NINT, "duration_ms": _NNUM,
}, ["step_id", "capability", "ok", "verdict"])

_VERDICT_COUNTS = _obj({v: {"type": "integer", "minimum": 0} for v in VERDICTS}, list(VERDICTS))

_RUN_PROPERTIES: dict[str, Any] = {
    "run_id": {"type": "string", "description": "The journal's run id (craftbt runs show RUN_ID)"},
    "kind": {"enum": ["tree", "goal", "script", "capability"]},
    "label": _STR,
    "owner": {**_NSTR, "description": "The client that started the run"},
    "state": {"enum": [s.value for s in JobState], "description": "queued, running or done"},
    "status": {**_NSTR, "description": "The run's end: success, failure, cancelled, no_plan, error; null while "
                                       "it runs"},
    "ok": {**_NBOOL, "description": "Whether the run succeeded; null while it runs"},
    "verdicts": _VERDICT_COUNTS,
    "steps": {"type": "array", "items": STEP},
    "outcome": {**_NOBJ, "description": "The executor's full run result once done"},
}

RUN_RESULT = output_schema(_RUN_PROPERTIES, ["run_id", "kind", "state", "status", "ok", "verdicts", "steps"])

CAPABILITY_RESULT = output_schema({
    **_RUN_PROPERTIES,
    "capability": {"type": "string", "description": "The capability called (name@version)"},
    "step_id": {**_NINT, "description": "The journal's step id of the call's last attempt; null if it never ran"},
    "verdict": _VERDICT,
    "evidence": {**_NOBJ, "description": "What the acceptance check saw (e.g. items gained, the block placed)"},
    "error": {"type": ["object", "null"], "properties": {"code": _STR, "detail": _NSTR}},
    "effects": _NOBJ,
}, ["run_id", "capability", "step_id", "state", "status", "ok", "verdict", "evidence", "error", "verdicts", "steps"])


def step_view(row: dict[str, Any]) -> dict[str, Any]:
    """A journal step row as the tools show it (``ok`` a boolean; the JSON columns decoded)."""
    ok = row.get("ok")
    return {"step_id": int(row["step_id"]), "node": str(row.get("node", "")), "capability": str(row["capability"]),
            "version": str(row.get("version", "")), "ok": None if ok is None else bool(ok),
            "verdict": row.get("verdict") if row.get("verdict") in VERDICTS else None,
            "evidence": row.get("evidence") if isinstance(row.get("evidence"), dict) else None,
            "error_code": row.get("error_code"), "error_detail": row.get("error_detail"),
            "effects": row.get("effects") if isinstance(row.get("effects"), dict) else None,
            "started_tick": row.get("started_tick"), "ended_tick": row.get("ended_tick"),
            "duration_ms": row.get("duration_ms")}


def run_result(job: Job, steps: list[dict[str, Any]], owner: str | None) -> dict[str, Any]:
    """A run's structured answer (fits :data:`RUN_RESULT`)."""
    viewed = [step_view(s) for s in steps]
    counts = dict.fromkeys(VERDICTS, 0)
    for step in viewed:
        if step["verdict"] is not None:
            counts[step["verdict"]] += 1
    done = job.state is JobState.DONE and job.result is not None
    result = job.result or {}
    return {"run_id": job.id, "kind": job.kind.value, "label": job.label, "owner": owner, "state": job.state.value,
            "status": result.get("status") if done else None, "ok": bool(result.get("ok")) if done else None,
            "verdicts": counts, "steps": viewed, "outcome": result if done else None}


def first_failure(result: dict[str, Any] | None) -> Failure | None:
    """A job's first failure decision, typed again from its JSON (a run outcome's ``failures``)."""
    failures = (result or {}).get("failures")
    if not isinstance(failures, list) or not failures or not isinstance(failures[0], dict):
        return None
    try:
        return Failure.model_validate(failures[0])
    except ValidationError:  # not a run outcome's failure record: the job's status says it
        return None


def capability_result(key: str, job: Job, steps: list[dict[str, Any]], owner: str | None) -> dict[str, Any]:
    """A capability call's structured answer (fits :data:`CAPABILITY_RESULT`): its last step's verdict and evidence."""
    out = run_result(job, steps, owner)
    name = key.partition("@")[0]
    mine = [s for s in out["steps"] if s["capability"] == name]
    last = mine[-1] if mine else None
    error = None
    if last is not None and last["error_code"]:
        error = {"code": last["error_code"], "detail": last["error_detail"]}
    elif out["ok"] is False:
        first = first_failure(job.result)
        error = {"code": first.code or out["status"] if first else out["status"],
                 "detail": first.detail or None if first else None}
    return {**out, "capability": key, "step_id": last["step_id"] if last else None,
            "verdict": last["verdict"] if last else None, "evidence": last["evidence"] if last else None,
            "error": error, "effects": last["effects"] if last else None}
