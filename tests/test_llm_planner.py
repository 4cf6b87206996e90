"""The LLM planner against a local OpenAI-protocol stub: valid, repaired, unknown verb, malformed, timeout, down."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from craftbt.capabilities.default import default_registry
from craftbt.planners.base import PlanningFailure, PlanningState
from craftbt.planners.intent import Intent
from craftbt.planners.llm.client import LlmConfig
from craftbt.planners.llm.planner import ALLOWED_VERBS, LlmPlanner
from craftbt.planners.llm.wire import WireError, parse, to_definition
from craftbt.trees import model as m
from tests.openai_stub import StubServer, dead_url


@pytest.fixture()
def stub() -> Iterator[StubServer]:
    server = StubServer().start()
    yield server
    server.stop()


def node(id_: str, kind: str, children: list[str] | None = None, **kw: Any) -> dict[str, Any]:
    return {"id": id_, "kind": kind, "name": kw.get("name"), "capability": kw.get("capability"),
            "check": kw.get("check"), "args_json": json.dumps(kw["args"]) if "args" in kw else None,
            "children": children or []}


def answer(capability: str = "craft_recipe", args: dict[str, Any] | None = None) -> str:
    return json.dumps({"tree": "obtain_stick", "description": "sticks", "root": "r", "nodes": [
        node("r", "selector", ["have", "make"]),
        node("have", "condition", check="has_item", args={"item": "stick", "count": 4}),
        node("make", "leaf", capability=capability, args=args or {"recipe": "stick", "qty": 4}),
    ]})


def planner(url: str, timeout: float = 5.0, repairs: int = 2) -> LlmPlanner:
    return LlmPlanner(LlmConfig(url=url, model="stub-model", key="sekrit", timeout_s=timeout), max_repairs=repairs,
                      include_tree_schema=False)


def plan(p: LlmPlanner) -> Any:
    return p.plan(Intent.from_text("obtain 4 stick"), PlanningState(inventory={"oak_planks": 2}), default_registry())


def test_valid_answer_becomes_a_tree_and_the_request_is_constrained(stub: StubServer) -> None:
    stub.replies = [{"content": answer()}]
    result = plan(planner(stub.url))
    assert isinstance(result.tree.root, m.SelectorNode)
    leaf = result.tree.root.children[1]
    assert isinstance(leaf, m.LeafNode) and leaf.capability == "craft_recipe" and leaf.args["qty"] == 4
    sent = stub.requests[0]
    assert sent["auth"] == "Bearer sekrit" and sent["body"]["model"] == "stub-model"
    assert sent["body"]["response_format"]["type"] == "json_schema"
    assert "craft_recipe" in sent["body"]["messages"][0]["content"]  # the manifest is in the prompt


def test_invalid_then_repaired_feeds_the_errors_back(stub: StubServer) -> None:
    stub.replies = [{"content": answer(args={"recipe": "stick", "qty": "many"})}, {"content": answer()}]
    result = plan(planner(stub.url))
    assert "1 repair" in result.explanation
    repair = stub.requests[1]["body"]["messages"][-1]
    assert repair["role"] == "user" and "qty" in repair["content"]


def test_unknown_verb_is_never_accepted(stub: StubServer) -> None:
    stub.replies = [{"content": answer(capability="teleport_home", args={})} for _ in range(3)]
    with pytest.raises(PlanningFailure) as info:
        plan(planner(stub.url))
    assert info.value.reason == "llm_invalid" and "teleport_home" in info.value.detail
    assert len(stub.requests) == 3  # one answer and two repair rounds, then give up


def test_malformed_json_then_valid(stub: StubServer) -> None:
    stub.replies = [{"content": "{not json"}, {"content": answer()}]
    assert plan(planner(stub.url)).tree.tree == "obtain_stick"
    assert "not JSON" in stub.requests[1]["body"]["messages"][-1]["content"]


def test_timeout_is_a_planning_failure(stub: StubServer) -> None:
    stub.replies = [{"delay": 1.5, "content": answer()}]
    with pytest.raises(PlanningFailure) as info:
        plan(planner(stub.url, timeout=0.3))
    assert info.value.reason == "llm_timeout"


def test_server_down_is_a_planning_failure() -> None:
    with pytest.raises(PlanningFailure) as info:
        plan(planner(dead_url()))
    assert info.value.reason == "llm_unreachable"


def test_json_schema_refused_falls_back_to_json_object(stub: StubServer) -> None:
    stub.replies = [{"status": 400, "body": "response_format json_schema unsupported"}, {"content": answer()}]
    plan(planner(stub.url))
    assert stub.requests[1]["body"]["response_format"] == {"type": "json_object"}


def test_unconfigured_is_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("CRAFTBT_LLM_URL", raising=False)
    monkeypatch.delenv("CRAFTBT_LLM_MODEL", raising=False)
    assert not LlmPlanner.from_env().available()


def test_allowed_verbs_are_registered() -> None:
    registry = default_registry()
    assert all(registry.has(v) for v in ALLOWED_VERBS)


@pytest.mark.parametrize("nodes,root,fragment", [
    ([node("a", "sequence", ["b"])], "a", "child 'b'"),
    ([node("a", "sequence", ["a"])], "a", "cycle"),
    ([node("a", "sequence", ["b"]), node("b", "leaf", capability="wait", args={}), node("c", "sequence", ["b"])],
     "a", "two parents"),
    ([node("a", "leaf", capability="wait", args={}), node("z", "leaf", capability="wait", args={})], "a",
     "not reachable"),
    ([node("a", "leaf", capability="wait")], "x", "root"),
])
def test_wire_graph_must_be_a_tree(nodes: list[dict[str, Any]], root: str, fragment: str) -> None:
    with pytest.raises(WireError) as info:
        to_definition(parse(json.dumps({"tree": "t", "description": "", "root": root, "nodes": nodes})))
    assert fragment in str(info.value)
