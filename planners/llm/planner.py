"""The LLM planner: prompt with the manifest and the tree schema, validate every answer, repair, never run unchecked.

Each round: the answer is parsed (JSON, then the wire schema), converted to a
tree definition, its verbs checked against :data:`ALLOWED_VERBS` (the LLM's
vocabulary, which the divergence gate holds to the registry) and the whole
definition validated against the registry. Any problem goes back to the model
as the next user message, for at most ``max_repairs`` rounds. Where the server
supports it, ``response_format`` constrains output to the wire schema; a
server that rejects ``json_schema`` is asked again with ``json_object``.
Unconfigured (no ``CRAFTBT_LLM_URL``/``CRAFTBT_LLM_MODEL``) the planner is
unavailable and the router skips it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from craftbt.planners.base import PlanningFailure, PlanningState, PlanResult
from craftbt.planners.intent import Intent
from craftbt.planners.llm.client import ChatClient, LlmConfig, LlmError
from craftbt.planners.llm.wire import WIRE_SCHEMA, WireError, leaf_capabilities, parse, to_definition
from craftbt.trees.schema import tree_schema
from craftbt.trees.validate import validate_definition

if TYPE_CHECKING:
    from craftbt.capabilities.registry import Registry

#: the verbs the LLM may emit: world work a bot plans for; no operator or combat verbs
ALLOWED_VERBS: frozenset[str] = frozenset({
    "acquire_material", "craft_recipe", "smelt", "place_workstation", "place_block", "navigate", "move_to",
    "collect_items", "consume_food", "sleep", "find_resource", "equip_tool", "chat", "wait", "place_torch",
    "harvest_crop", "plant_crop", "till_soil", "build_module", "retreat_from_threat", "sense_hostiles",
    "open_container", "transfer_items", "close_container", "introspect_recipe",
})
DEFAULT_REPAIRS = 2

SYSTEM = """You plan for a Minecraft bot. Answer with ONE JSON object and nothing else: a behavior tree in the
flat wire format (a list of nodes with child ids, JSON Schema below). Leaves name capabilities from the manifest;
args_json is the leaf's or condition's args as a JSON object in a string. Use only these capabilities: {verbs}.
Prefer the shape selector(condition: effect already holds?, sequence(conditions..., leaf)) for each step.

Wire format JSON Schema:
{wire}

Capability manifest (name, args schema, declared preconditions and effects):
{manifest}

Condition checks: {checks}

The tree format's own JSON Schema (what the converted tree must satisfy):
{tree_schema}
"""


class LlmPlanner:
    name = "llm"

    def __init__(self, config: LlmConfig | None, *, max_repairs: int = DEFAULT_REPAIRS,
                 include_tree_schema: bool = True) -> None:
        self.config = config
        self.max_repairs = max_repairs
        self.include_tree_schema = include_tree_schema
        self.transcript: list[dict[str, str]] = []

    @classmethod
    def from_env(cls) -> LlmPlanner:
        return cls(LlmConfig.from_env())

    def available(self) -> bool:
        return self.config is not None

    def can_handle(self, intent: Intent) -> bool:
        return self.available()

    def emittable_verbs(self) -> frozenset[str]:
        return ALLOWED_VERBS

    def system_prompt(self, registry: Registry) -> str:
        manifest = [
            {"name": s.name, "description": s.description[:200], "args": s.args_schema(),
             "preconditions": list(s.preconditions), "effects": list(s.effects)}
            for s in registry.latest() if s.name in ALLOWED_VERBS and not s.deprecated
        ]
        checks = [c.manifest_entry() for c in registry.checks()]
        schema = json.dumps(tree_schema(registry), separators=(",", ":")) if self.include_tree_schema else "(omitted)"
        return SYSTEM.format(verbs=", ".join(sorted(ALLOWED_VERBS)), wire=json.dumps(WIRE_SCHEMA),
                             manifest=json.dumps(manifest, separators=(",", ":")),
                             checks=json.dumps(checks, separators=(",", ":")), tree_schema=schema)

    def plan(self, intent: Intent, state: PlanningState, registry: Registry) -> PlanResult:
        if self.config is None:
            raise PlanningFailure("llm_unconfigured", "set CRAFTBT_LLM_URL and CRAFTBT_LLM_MODEL")
        client = ChatClient(self.config)
        messages = [
            {"role": "system", "content": self.system_prompt(registry)},
            {"role": "user", "content": _user_prompt(intent, state)},
        ]
        self.transcript = messages
        response_format: dict[str, Any] | None = {
            "type": "json_schema", "json_schema": {"name": "craftbt_tree", "strict": True, "schema": WIRE_SCHEMA},
        }
        problems: list[str] = []
        for round_ in range(self.max_repairs + 1):
            try:
                answer = client.complete(messages, response_format)
            except LlmError as err:
                if err.code == "http_400" and response_format is not None and "response_format" in err.detail:
                    response_format = {"type": "json_object"}
                    answer = _retry(client, messages, response_format)
                else:
                    raise PlanningFailure(f"llm_{err.code}", err.detail) from None
            messages.append({"role": "assistant", "content": answer})
            try:
                definition = to_definition(parse(answer))
                problems = _registry_problems(definition, registry)
            except WireError as err:
                problems = err.problems
            if not problems:
                leaves = leaf_capabilities(definition.root)
                return PlanResult(
                    planner=self.name, tree=definition, estimated_cost=float(len(leaves)), confidence=0.5,
                    explanation=f"{self.config.model}: valid after {round_} repair round(s); {len(leaves)} leaves",
                    steps=len(leaves), method="chat",
                )
            messages.append({"role": "user", "content": "The tree was rejected. Fix these problems and answer "
                             "with the whole corrected JSON object:\n- " + "\n- ".join(problems[:20])})
        raise PlanningFailure("llm_invalid", f"still invalid after {self.max_repairs} repair rounds: "
                              + "; ".join(problems[:5]))


def _retry(client: ChatClient, messages: list[dict[str, str]], response_format: dict[str, Any]) -> str:
    try:
        return client.complete(messages, response_format)
    except LlmError as err:
        raise PlanningFailure(f"llm_{err.code}", err.detail) from None


def _registry_problems(definition: Any, registry: Registry) -> list[str]:
    problems = [f"capability {v!r} is not allowed; use one of the listed capabilities"
                for v in dict.fromkeys(leaf_capabilities(definition.root)) if v not in ALLOWED_VERBS]
    checked = validate_definition(definition, registry)
    problems += [p.render() for p in checked.problems]
    return problems


def _user_prompt(intent: Intent, state: PlanningState) -> str:
    held = ", ".join(f"{n} {k}" for k, n in sorted(state.inventory.items()) if n > 0) or "nothing"
    seen = ", ".join(sorted(state.available_blocks)) if state.available_blocks is not None else "not surveyed"
    stations = ", ".join(sorted(state.stations)) or "none"
    return (f"Goal: {intent.goal}. Inventory: {held}. Blocks seen nearby: {seen}. Workstations in reach: "
            f"{stations}. Time of day: {state.time_of_day}. Context: {json.dumps(intent.context, default=str)}")
