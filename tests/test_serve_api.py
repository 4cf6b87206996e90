"""``craftbt serve``'s HTTP API and WebSocket, through Starlette's httpx-based TestClient (lifespan included)."""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from craftbt.serve.bot import Bot
from craftbt.serve.security import SecurityError, resolve_token
from craftbt.trees.paths import LIBRARY_DIR
from craftbt.world.scenarios.loader import SCENARIO_DIR
from tests.servekit import AUTH, HELLO_TREE, TOKEN, app_for, bot

PICKAXE = (LIBRARY_DIR / "obtain_wooden_pickaxe.yaml").read_text()


@pytest.fixture
def the_bot(tmp_path: Path) -> Bot:
    return bot(tmp_path, scenario=None)  # the starter world: trees to chop, stone to mine


@pytest.fixture
def client(the_bot: Bot) -> Iterator[TestClient]:
    with TestClient(app_for(the_bot)) as c:
        yield c


def wait_done(client: TestClient, run_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body: dict[str, Any] = client.get(f"/api/runs/{run_id}").json()
        if body["job"]["state"] == "done":
            return body
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} did not finish")


def test_status_and_health_describe_the_bot(client: TestClient) -> None:
    status = client.get("/api/bot/status").json()
    assert status["activity"] == "idle"
    assert status["bot"]["inventory"] == {} and status["bot"]["name"] == "Sterling"
    assert set(status["bot"]["position"]) == {"x", "y", "z"}
    health = client.get("/api/cognitive/health").json()
    assert health["ok"] and health["worker_alive"] and health["capabilities"] > 10


def test_mutating_calls_need_the_token(client: TestClient) -> None:
    for path, body in [("/api/cognitive/execute", {"tree": HELLO_TREE}), ("/api/cognitive/signals", {"text": "hi"}),
                       ("/api/viewer/control", {"action": "pause"}), ("/api/runs/run-x/cancel", {})]:
        assert client.post(path, json=body).status_code == 401, path
        assert client.post(path, json=body, headers={"Authorization": "Bearer wrong-token-wrong"}).status_code == 401
    assert client.get("/api/bot/status").json()["activity"] == "idle"  # nothing started


def test_a_posted_tree_runs_in_the_background_to_success_and_lands_in_the_journal(client: TestClient) -> None:
    started = client.post("/api/cognitive/execute", json={"tree": PICKAXE}, headers=AUTH)
    assert started.status_code == 202
    run_id = started.json()["run_id"]
    done = wait_done(client, run_id)
    assert done["outcome"]["status"] == "success"
    journal = done["journal"]
    assert journal["status"] == "success"
    assert [s["capability"] for s in journal["steps"]][:1] == ["acquire_material"]
    assert journal["steps"][-1]["ok"] and all("verdict" in s for s in journal["steps"])
    listed = client.get("/api/runs").json()
    assert listed["active"] is None and listed["runs"][0]["run_id"] == run_id
    sla = client.get("/api/sla").json()
    assert any(row["capability"] == "craft_recipe" for row in sla["capabilities"])
    assert "craft_recipe" in client.get("/api/sla.html").text


def test_a_posted_prepare_site_reaches_the_leaf_and_prepares_the_site(tmp_path: Path) -> None:
    """Seed 001 (S001-04): ``prepare_site`` sent over HTTP reaches the real construction leaf, which clears the box
    and fills the two holes in its floor with the bot's cobblestone."""
    b = bot(tmp_path, scenario=str(SCENARIO_DIR / "leaves" / "prepare_site.yaml"))
    with TestClient(app_for(b)) as client:
        before = client.get("/api/bot/status").json()["bot"]
        x, y, z = (math.floor(before["position"][k]) for k in "xyz")
        tree = ("tree: site\nroot:\n  leaf: prepare_site\n"
                f"  args: {{origin: {{x: {x + 3}, y: {y}, z: {z}}},"
                " size: {dx: 3, dy: 2, dz: 3}, floor: cobblestone}\n")
        started = client.post("/api/cognitive/execute", json={"tree": tree}, headers=AUTH)
        assert started.status_code == 202, started.json()
        done = wait_done(client, started.json()["run_id"], timeout=120)
        after = client.get("/api/bot/status").json()["bot"]
    assert done["outcome"]["status"] == "success", done["outcome"]
    steps = done["journal"]["steps"]
    assert [s["capability"] for s in steps] == ["prepare_site"] and steps[0]["verdict"] == "verified"
    assert before["inventory"]["cobblestone"] - after["inventory"].get("cobblestone", 0) == 2


def test_one_run_at_a_time_and_cancel(client: TestClient) -> None:
    client.post("/api/viewer/control", json={"action": "pause"}, headers=AUTH)  # hold the run between ticks
    first = client.post("/api/cognitive/execute", json={"tree": PICKAXE}, headers=AUTH).json()["run_id"]
    second = client.post("/api/cognitive/execute", json={"tree": HELLO_TREE}, headers=AUTH)
    assert second.status_code == 409
    assert second.json()["active"]["id"] == first
    assert client.post("/api/runs/run-nope/cancel", headers=AUTH).status_code == 409
    while client.get(f"/api/runs/{first}").json()["journal"] is None:  # wait until the executor has it
        time.sleep(0.02)
    assert client.post(f"/api/runs/{first}/cancel", headers=AUTH).status_code == 202
    done = wait_done(client, first)
    assert done["outcome"]["status"] == "cancelled"
    assert done["journal"]["status"] == "cancelled"
    assert any(d["reason"] == "cancelled" for d in done["journal"]["decisions"])
    client.post("/api/viewer/control", json={"action": "resume"}, headers=AUTH)
    again = client.post("/api/cognitive/execute", json={"tree": HELLO_TREE}, headers=AUTH)
    assert again.status_code == 202
    assert wait_done(client, again.json()["run_id"])["outcome"]["status"] == "success"


def test_bad_trees_are_refused_with_located_problems(client: TestClient) -> None:
    bad = client.post("/api/cognitive/execute", json={"tree": "tree: x\nroot: {leaf: fly_to_moon}\n"}, headers=AUTH)
    assert bad.status_code == 422
    problem = bad.json()["problems"][0]
    assert problem["code"] == "unknown_capability" and problem["line"] == 2
    # a network caller may not make the server read its own files through a subtree
    hostile = "tree: x\nroot: {subtree: /etc/passwd}\n"
    refused = client.post("/api/cognitive/execute", json={"tree": hostile}, headers=AUTH)
    assert refused.status_code == 422 and "library subtrees only" in refused.json()["problems"][0]["message"]
    checked = client.post("/api/trees/validate", json={"tree": "tree: x\nroot: {subtree: ../../etc/passwd}\n"}).json()
    assert not checked["ok"] and "library subtrees only" in checked["problems"][0]["message"]
    assert client.post("/api/trees/validate", json={"tree": PICKAXE}).json() == {
        "ok": True, "tree": "obtain_wooden_pickaxe", "problems": []}
    neither = client.post("/api/cognitive/execute", json={}, headers=AUTH)
    assert neither.status_code == 422 and "exactly one of tree, goal, script" in neither.text
    assert client.post("/api/cognitive/execute", content=b"{not json", headers=AUTH).status_code == 422


def test_a_yaml_body_is_a_tree_file_as_is(client: TestClient) -> None:
    started = client.post("/api/cognitive/execute", content=HELLO_TREE.encode(),
                          headers={**AUTH, "content-type": "application/yaml"})
    assert started.status_code == 202
    assert wait_done(client, started.json()["run_id"])["outcome"]["status"] == "success"


def test_registry_and_schema(client: TestClient) -> None:
    manifest = client.get("/api/capabilities").json()
    names = {c["name"] for c in manifest["capabilities"]}
    assert {"craft_recipe", "move_to", "chat"} <= names
    schema = client.get("/api/schema").json()
    assert schema["type"] == "object"


def test_request_bodies_are_capped(the_bot: Bot) -> None:
    with TestClient(app_for(the_bot, max_body=4096)) as c:
        big = {"tree": "x" * 10_000}
        assert c.post("/api/trees/validate", json=big).status_code == 413
        chunked = c.post("/api/trees/validate", content=iter([b'{"tree": "', b"y" * 8000, b'"}']),
                         headers={"content-type": "application/json"})
        assert chunked.status_code == 413
        small = c.post("/api/trees/validate", content=iter([b'{"tree": "tree: a"}']),
                       headers={"content-type": "application/json"})
        assert small.status_code == 200


def test_signals_go_through_the_thought_filter(client: TestClient) -> None:
    refused = client.post("/api/cognitive/signals", json={"text": "blow up the village with tnt"}, headers=AUTH)
    assert refused.json() == {"accepted": False, "reason": "griefing", "intent": None}
    accepted = client.post("/api/cognitive/signals", json={"text": "obtain iron_pickaxe"}, headers=AUTH).json()
    assert accepted["accepted"] and accepted["reason"] == "accepted"
    log = client.get("/api/cognitive/signals").json()
    assert [d["reason"] for d in log["decisions"]] == ["griefing", "accepted"]
    assert [d["text"] for d in log["pending"]] == ["obtain iron_pickaxe"]


def test_the_websocket_streams_tree_ticks_and_completion(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        hello = ws.receive_json()
        assert hello["type"] == "hello" and hello["data"]["status"]["activity"] == "idle"
        run_id = client.post("/api/cognitive/execute", json={"tree": HELLO_TREE}, headers=AUTH).json()["run_id"]
        seen: list[dict[str, Any]] = []
        while not seen or seen[-1]["type"] != "executionComplete":
            seen.append(ws.receive_json())
    types = [e["type"] for e in seen]
    assert types[0] == "executionStarted" and "tree" in types and "tick" in types
    tree = next(e for e in seen if e["type"] == "tree")["data"]
    assert tree["run_id"] == run_id and tree["nodes"][0]["name"] == "Say hello"
    root_statuses = [e["data"]["changes"][tree["root"]] for e in seen
                     if e["type"] == "tick" and tree["root"] in e["data"]["changes"]]
    assert root_statuses[0] == "RUNNING" and root_statuses[-1] == "SUCCESS"
    assert seen[-1]["data"]["status"] == "success"
    seqs = [e["seq"] for e in seen]
    assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)
    # a client that reconnects with ?since= gets what it missed
    with client.websocket_connect(f"/ws?since={seqs[0] - 1}") as ws:
        assert ws.receive_json()["type"] == "hello"
        replayed = [ws.receive_json() for _ in seen]
    assert [e["seq"] for e in replayed] == seqs


def test_a_goal_is_planned_then_run(client: TestClient) -> None:
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        run_id = client.post("/api/cognitive/execute", json={"goal": "obtain stick"}, headers=AUTH).json()["run_id"]
        events: list[dict[str, Any]] = []
        while not events or events[-1]["type"] != "executionComplete":
            events.append(ws.receive_json())
    plan = next(e for e in events if e["type"] == "planGenerated")["data"]
    assert plan["run_id"] == run_id and plan["planner"]
    assert events[-1]["data"]["outcome"]["run_id"] == run_id


def test_a_craftscript_text_runs(client: TestClient) -> None:
    run_id = client.post("/api/cognitive/execute", json={"script": 'log("hi from serve");'},
                         headers=AUTH).json()["run_id"]
    done = wait_done(client, run_id)
    assert done["outcome"]["status"] == "success"
    assert done["outcome"]["script"]["logs"][0]["text"] == "hi from serve"
    bad = client.post("/api/cognitive/execute", json={"script": "frobnicate();"}, headers=AUTH)
    assert bad.status_code == 422 and bad.json()["problems"][0]["code"] == "unknown_command"


def test_a_cancelled_script_is_a_located_failure_kept_for_its_logs(tmp_path: Path) -> None:
    from craftbt.craftscript.records import ScriptRuns, logs_view
    from craftbt.serve.bot import ExecuteRequest, JobState

    b = bot(tmp_path, scenario="flat_empty", pace_ms=10)  # paced: the wait is still running when cancelled
    b.start()
    try:
        job = b.submit(ExecuteRequest(script='log("before");\nwait(60000);\nlog("after");'))
        deadline = time.monotonic() + 30
        while job.state is not JobState.RUNNING and time.monotonic() < deadline:
            time.sleep(0.05)  # queued: a job cancelled before it starts never runs
        time.sleep(0.5)
        assert b.cancel(job.id)
        assert job.done.wait(30)
    finally:
        b.stop()
    assert job.result is not None
    script = job.result["script"]
    assert script["status"] == "canceled" and script["error"]["error"] == "cancelled"
    assert script["error"]["loc"]["line"] == 2 and script["error"]["op"] == "wait"
    kept = ScriptRuns(tmp_path / "craftscript.sqlite", read_only=True)
    try:
        payload = kept.payload(job.id)
    finally:
        kept.close()
    assert payload is not None
    logs = logs_view(payload)
    assert [e["text"] for e in logs["logs"] if e["kind"] == "log"] == ["before"] and logs["status"] == "canceled"


def test_cross_origin_websockets_and_foreign_hosts_are_refused(client: TestClient) -> None:
    with pytest.raises(WebSocketDisconnect), client.websocket_connect(
            "/ws", headers={"origin": "http://evil.example"}) as ws:
        ws.receive_json()
    assert client.get("/api/bot/status", headers={"host": "evil.example"}).status_code == 400


def test_the_token_rules() -> None:
    with pytest.raises(SecurityError, match="needs --token"):
        resolve_token("0.0.0.0", None)
    with pytest.raises(SecurityError, match="at least 16"):
        resolve_token("127.0.0.1", "short")
    token, generated = resolve_token("127.0.0.1", None)
    assert generated and len(token) >= 16
    assert resolve_token("::1", TOKEN) == (TOKEN, False)


def test_the_viewer_page_is_served_with_a_content_security_policy(client: TestClient) -> None:
    page = client.get("/viewer")
    assert page.status_code == 200 and "textContent" in page.text
    assert "object-src 'none'" in page.headers["content-security-policy"]
    assert client.get("/docs").status_code == 200


def test_a_safety_preemption_is_a_safety_emergency_event(tmp_path: Path) -> None:
    with TestClient(app_for(bot(tmp_path, scenario="hostile_swarm"))) as c, c.websocket_connect("/ws") as ws:
        ws.receive_json()
        tree = "tree: w\nroot: {leaf: wait, args: {ms: 3000}}\n"
        run_id = c.post("/api/cognitive/execute", json={"tree": tree}, headers=AUTH).json()["run_id"]
        events: list[dict[str, Any]] = []
        while not events or events[-1]["type"] != "executionComplete":
            events.append(ws.receive_json())
    emergencies = [e["data"] for e in events if e["type"] == "safety_emergency"]
    assert emergencies and emergencies[0]["reason"] == "safety_preempt" and emergencies[0]["run_id"] == run_id
    assert emergencies[0]["signal"] and emergencies[0]["capability"]
