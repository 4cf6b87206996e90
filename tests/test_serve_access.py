"""Scoped tokens and limits over HTTP: read cannot move the bot, act cannot cancel another client's run, caps hold."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from craftbt.serve.access import WALL_TIME_REASON, Scope, ServiceLimits, Tokens
from craftbt.serve.app import create_app
from craftbt.serve.security import SecurityError, resolve_tokens
from tests.servekit import TOKEN, bot

READER, AGENT, OTHER = "reader-token-0123456789abcdef", "agent-token-0123456789abcdef", "other-token-0123456789abcdef"
TOKEN_FILE = f"""\
# scope  client  token  limits
admin root {TOKEN}
read  dash  {READER}
act   agent {AGENT}   runs_per_hour=2
act   other {OTHER}   max_ticks=500
"""
WALK = {"tree": "tree: walk\nroot:\n  leaf: wait\n  args: {ms: 20000}\n"}  # 400 ticks
LONG = {"tree": "tree: long\nroot:\n  leaf: wait\n  args: {ms: 60000}\n"}  # 1200 ticks


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(bot(tmp_path, pace_ms=5), tokens=Tokens.parse(TOKEN_FILE),
                     limits=ServiceLimits(max_ticks=2000, max_wall_s=60), extra_hosts=["testserver"])
    with TestClient(app) as c:
        yield c


def wait_idle(client: TestClient, run_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job: dict[str, Any] = client.get(f"/api/runs/{run_id}").json()["job"]
        if job["state"] == "done":
            return job
        time.sleep(0.05)
    raise AssertionError(f"{run_id} did not end")


def test_the_token_file_names_clients_with_located_errors(tmp_path: Path) -> None:
    tokens = Tokens.parse(TOKEN_FILE)
    assert {(p.name, p.scope) for p in tokens.principals()} == {
        ("root", Scope.ADMIN), ("dash", Scope.READ), ("agent", Scope.ACT), ("other", Scope.ACT)}
    agent = tokens.lookup(f"Bearer {AGENT}")
    assert agent is not None and agent.limits.runs_per_hour == 2 and agent.allows(Scope.READ)
    assert not agent.allows(Scope.ADMIN)
    assert tokens.lookup("Bearer nope") is None and tokens.lookup(None) is None and tokens.lookup(AGENT) is None
    for text, message in [("write bob bob-token-0123456789abcdef", "F:1: unknown scope 'write'"),
                          ("act bob short", "F:1: a token must be at least 16"),
                          (f"act a {AGENT}\nact a {OTHER}", "F:2: client 'a' is named twice"),
                          (f"act a {AGENT} max_ticks=0", "F:1: 'max_ticks=0' is not"),
                          ("# nothing", "F: no tokens")]:
        with pytest.raises(ValueError, match=message):
            Tokens.parse(text, "F")
    path = tmp_path / "tokens"
    path.write_text(TOKEN_FILE)
    loaded, shown, generated = resolve_tokens("0.0.0.0", None, path)  # a token file is an explicit choice
    assert shown is None and not generated and len(loaded.principals()) == 4
    with pytest.raises(SecurityError, match=r"(?i)no such file"):
        resolve_tokens("127.0.0.1", None, tmp_path / "missing")
    single, shown, _ = resolve_tokens("127.0.0.1", TOKEN, None)
    assert shown == TOKEN and single.lookup(f"Bearer {TOKEN}") == Tokens.single(TOKEN).principals()[0]
    assert single.principals()[0].scope is Scope.ADMIN  # --token keeps meaning everything


def test_a_read_token_cannot_move_the_bot(client: TestClient) -> None:
    before = client.get("/api/bot/status").json()["bot"]["position"]
    for body in (WALK, {"goal": "obtain stick"}, {"script": "goto(3, 64, 3);"}):
        refused = client.post("/api/cognitive/execute", json=body, headers=auth(READER))
        assert refused.status_code == 403, refused.text
        assert refused.json()["error"] == "forbidden" and refused.json()["needed_scope"] == "act"
    assert client.post("/api/viewer/control", json={"action": "pause"}, headers=auth(READER)).status_code == 403
    assert client.post("/api/cognitive/signals", json={"text": "get wood"}, headers=auth(READER)).status_code == 403
    assert client.get("/api/bot/status").json()["bot"]["position"] == before
    assert client.get("/api/runs").json()["active"] is None


def test_an_act_token_cancels_its_own_run_but_not_another_clients(client: TestClient) -> None:
    started = client.post("/api/cognitive/execute", json=WALK, headers=auth(OTHER))
    assert started.status_code == 202 and started.json()["owner"] == "other"
    run_id = started.json()["run_id"]
    theirs = client.post(f"/api/runs/{run_id}/cancel", headers=auth(AGENT))
    assert theirs.status_code == 403 and theirs.json()["needed_scope"] == "admin"
    assert client.post(f"/api/runs/{run_id}/cancel", headers=auth(READER)).status_code == 403
    assert client.get(f"/api/runs/{run_id}").json()["job"]["state"] in ("queued", "running")
    assert client.post(f"/api/runs/{run_id}/cancel", headers=auth(OTHER)).status_code == 202
    assert wait_idle(client, run_id)["status"] == "cancelled"
    # admin cancels anyone's
    run_id = client.post("/api/cognitive/execute", json=WALK, headers=auth(AGENT)).json()["run_id"]
    assert client.post(f"/api/runs/{run_id}/cancel", headers=auth(TOKEN)).status_code == 202
    assert wait_idle(client, run_id)["status"] == "cancelled"


def test_tick_caps_and_the_hourly_run_limit(client: TestClient) -> None:
    over = client.post("/api/cognitive/execute", json={**WALK, "max_ticks": 2001}, headers=auth(TOKEN))
    assert over.status_code == 422 and over.json()["error"] == "over_limit" and over.json()["max_ticks"] == 2000
    mine = client.post("/api/cognitive/execute", json={**WALK, "max_ticks": 501}, headers=auth(OTHER))
    assert mine.status_code == 422 and mine.json()["max_ticks"] == 500
    # a client's own cap is the run's budget when it names none: the 1200-tick wait ends at 500 ticks
    capped = client.post("/api/cognitive/execute", json=LONG, headers=auth(OTHER)).json()["run_id"]
    job = wait_idle(client, capped)
    assert job["status"] != "success"
    detail = client.get(f"/api/runs/{capped}").json()
    assert detail["outcome"]["ticks"] <= 501
    for _ in range(2):
        short = {"tree": "tree: t\nroot:\n  leaf: wait\n  args: {ms: 50}\n"}
        run_id = client.post("/api/cognitive/execute", json=short, headers=auth(AGENT)).json()["run_id"]
        wait_idle(client, run_id)
    limited = client.post("/api/cognitive/execute", json=WALK, headers=auth(AGENT))
    assert limited.status_code == 429 and limited.json()["error"] == "rate_limited"
    assert int(limited.headers["retry-after"]) > 0


def test_the_server_stops_a_run_at_its_wall_time_cap(tmp_path: Path) -> None:
    app = create_app(bot(tmp_path, pace_ms=5), token=TOKEN, limits=ServiceLimits(max_ticks=100_000, max_wall_s=0.5),
                     extra_hosts=["testserver"])
    with TestClient(app) as client:
        run_id = client.post("/api/cognitive/execute", json=WALK, headers=auth(TOKEN)).json()["run_id"]
        started = time.monotonic()
        job = wait_idle(client, run_id)
        assert job["status"] == "cancelled" and time.monotonic() - started < 10
        assert client.app.state.bot.jobs[run_id].cancel_reason == WALL_TIME_REASON  # type: ignore[attr-defined]


def test_craftbt_mcp_scope_limits_the_local_client(tmp_path: Path) -> None:
    import anyio

    from craftbt.serve.access import Principal
    from craftbt.serve.mcp_server import McpTools

    b = bot(tmp_path)
    b.start()
    try:
        reader = McpTools(b, principal=Principal("local", Scope.READ))

        async def main() -> list[Any]:
            return [await reader.call("move_to", {"pos": {"x": 3, "y": 64, "z": 3}}),
                    await reader.call("get_status", {})]
        moved, status = anyio.run(main)
    finally:
        b.stop()
    assert moved.is_error and moved.structured_content["needed_scope"] == "act"  # type: ignore[union-attr]
    assert not status.is_error  # type: ignore[union-attr]
    assert b.jobs == {}  # nothing ran
