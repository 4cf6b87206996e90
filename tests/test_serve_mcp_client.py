"""Judged by a real client: the SDK's own ``ClientSession`` on the 2026-07-28 wire, over stdio and Streamable HTTP.

It lists the tools (each with an output schema), calls a world-changing tool and reads the step's
verdict from ``structuredContent`` (the SDK validates it against the declared schema), runs
``obtain stone_pickaxe`` as a task of the tasks extension, polls ``tasks/get`` to completion and reads
the result; and a read-scope client cannot move the bot.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest
from mcp import ClientSession
from mcp.client.extension import ClaimContext, ResultClaim
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from mcp_types import REQUEST_TIMEOUT

from craftbt.serve.access import Tokens
from craftbt.serve.mcp_tasks import (
    TASKS_EXTENSION,
    CancelTaskRequest,
    GetTaskRequest,
    TaskHandle,
    TaskIdParams,
    TaskState,
)
from tests.servekit import AUTH, TOKEN, bot, live_server

CRAFTBT = Path(sys.executable).parent / "craftbt"
READER = "reader-token-0123456789abcdef"
AGENT = "agent-token-0123456789abcdef"


async def _unresolved(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
    raise AssertionError("the test polls the task itself")


def session_for(read: Any, write: Any) -> ClientSession:
    """A client of the tasks extension: a ``resultType: "task"`` answer parses as :class:`TaskHandle`."""
    claim = ResultClaim(result_type="task", model=TaskHandle, resolve=_unresolved)
    return ClientSession(read, write, extensions={TASKS_EXTENSION: {}}, result_claims={TASKS_EXTENSION: [claim]})


async def discover(session: ClientSession) -> types.DiscoverResult:
    """``server/discover`` (the stateless 2026-07-28 core: no initialize, no session id).

    The SDK gives the probe 10 s; ``craftbt mcp`` reads stdin only once its bot is built, which on a
    busy machine takes about that long, so a timed-out probe is sent again (the server is up by then).
    """
    for _ in range(5):
        try:
            return await session.discover()
        except MCPError as err:
            if err.code != REQUEST_TIMEOUT:
                raise
    raise AssertionError("server/discover never answered")


async def judge(session: ClientSession) -> dict[str, Any]:
    discovered = await discover(session)
    out: dict[str, Any] = {"version": session.protocol_version,
                           "extensions": (discovered.capabilities.extensions or {})}
    tools = {t.name: t for t in (await session.list_tools()).tools}
    out["tools"] = tools
    crafted = await session.call_tool("craft_recipe", {"recipe": "oak_planks", "qty": 4})
    assert isinstance(crafted, types.CallToolResult)
    out["craft"] = crafted
    handle = await session.call_tool("run_goal", {"goal": "obtain stone_pickaxe"}, allow_claimed=True)
    assert isinstance(handle, TaskHandle), handle
    out["handle"] = handle
    polls: list[str] = []
    with anyio.fail_after(240):
        while True:
            state = await session.send_request(GetTaskRequest(params=TaskIdParams(task_id=handle.task_id)),
                                               TaskState)
            polls.append(state.status)
            if state.status not in ("working", "input_required"):
                break
            await anyio.sleep((state.poll_interval_ms or 500) / 1000)
    out["polls"], out["final"] = polls, state
    # the task's result is the tool's CallToolResult: the SDK checks it against run_goal's output schema
    await session.validate_tool_result("run_goal", types.CallToolResult.model_validate(state.result))
    out["unknown_task"] = None
    try:
        await session.send_request(GetTaskRequest(params=TaskIdParams(task_id="run-nosuchtask")), TaskState)
    except Exception as err:
        out["unknown_task"] = str(err)
    out["run"] = await session.read_resource(f"craftbt://runs/{handle.task_id}")
    out["sla"] = await session.read_resource("craftbt://sla")
    out["templates"] = (await session.list_resource_templates()).resource_templates
    return out


def check(out: dict[str, Any]) -> None:
    assert out["version"] == "2026-07-28"
    assert TASKS_EXTENSION in out["extensions"]
    tools = out["tools"]
    assert [n for n, t in tools.items() if not t.output_schema] == []
    craft_schema = tools["craft_recipe"].output_schema
    assert craft_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert {"verdict", "evidence", "run_id", "step_id"} <= set(craft_schema["required"])
    # the tool names its scope, the permission profile and the geofence it acts under
    assert "Needs scope act" in tools["craft_recipe"].description
    move = tools["move_to"].description
    assert "Needs scope act" in move and "permission profile 'survival'" in move and "geofence x" in move
    assert "Needs scope admin" in tools["create_craftscript_function"].description
    crafted = out["craft"].structured_content
    assert not out["craft"].is_error
    assert crafted["verdict"] == "verified" and crafted["ok"] is True
    assert crafted["evidence"]["gained"] == 4 and crafted["evidence"]["item"] == "oak_planks"
    assert crafted["run_id"].startswith("run-") and isinstance(crafted["step_id"], int)
    handle = out["handle"]
    assert handle.status == "working" and handle.poll_interval_ms
    assert out["polls"][-1] == "completed" and "working" in out["polls"][:1]
    final = types.CallToolResult.model_validate(out["final"].result)
    result = final.structured_content
    assert result is not None and not final.is_error
    assert result["run_id"] == handle.task_id and result["status"] == "success" and result["ok"] is True
    assert result["verdicts"]["verified"] >= 5 and result["verdicts"]["contradicted"] == 0
    assert any(s["capability"] == "craft_recipe" and s["verdict"] == "verified" for s in result["steps"])
    assert (out["unknown_task"] and "unknown_task" in out["unknown_task"]) or "run-nosuchtask" in out["unknown_task"]
    assert handle.task_id in out["run"].contents[0].text  # the journal's run, as a resource
    assert "craft_recipe" in out["sla"].contents[0].text  # the SLA report counts the verified craft
    assert [t.uri_template for t in out["templates"]] == ["craftbt://runs/{run_id}"]


@pytest.mark.slow
def test_the_sdk_client_over_stdio_runs_a_goal_as_a_task(tmp_path: Path) -> None:
    if not CRAFTBT.exists():
        pytest.skip(f"no {CRAFTBT}: install the package (pip install -e .)")
    params = StdioServerParameters(command=str(CRAFTBT), args=["mcp", "--scenario", "no_crafting_table",
                                                               "--home", str(tmp_path)],
                                   env=dict(os.environ))  # the SDK passes a minimal environment: keep PYTHONPATH

    async def main() -> dict[str, Any]:
        async with stdio_client(params) as (read, write), session_for(read, write) as session:
            return await judge(session)
    check(anyio.run(main))


@asynccontextmanager
async def http_session(url: str, token: str) -> AsyncIterator[ClientSession]:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=httpx2.Timeout(30, read=300))
    async with http, streamable_http_client(f"{url}/mcp", http_client=http) as (read, write), \
            session_for(read, write) as session:
        yield session


@pytest.mark.slow  # a goal of 500 ticks and three clients: about 20 s on a busy machine
def test_the_sdk_client_over_http_runs_a_goal_as_a_task_and_scopes_hold(tmp_path: Path) -> None:
    tokens = Tokens.parse(f"admin root {TOKEN}\nread dash {READER}\nact agent {AGENT}\n")
    with live_server(bot(tmp_path, scenario="no_crafting_table"), tokens=tokens) as live:
        assert httpx2.post(f"{live.url}/mcp", json={}).status_code == 401

        async def main() -> dict[str, Any]:
            async with http_session(live.url, AGENT) as session:
                out = await judge(session)
            async with http_session(live.url, READER) as session:
                await session.discover()
                before = live.bot.status()["bot"]["position"]
                out["read_move"] = await session.call_tool("move_to", {"pos": {"x": 3, "y": 64, "z": 3}})
                out["read_goal"] = await session.call_tool("run_goal", {"goal": "obtain stick"})
                out["read_status"] = await session.call_tool("get_status", {})
                out["moved"] = live.bot.status()["bot"]["position"] != before
            async with http_session(live.url, AGENT) as session:
                await session.discover()
                out["agent_function"] = await session.call_tool("create_craftscript_function",
                                                                {"name": "greet", "body": 'log("hi");'})
            return out
        out = anyio.run(main)
    check(out)
    for refused in ("read_move", "read_goal"):
        assert out[refused].is_error and out[refused].structured_content["error"] == "forbidden", out[refused]
        assert out[refused].structured_content["needed_scope"] == "act"
    assert not out["moved"]
    assert not out["read_status"].is_error
    assert out["agent_function"].is_error and out["agent_function"].structured_content["needed_scope"] == "admin"
    assert AUTH  # the admin token of servekit is this file's admin entry


def test_a_task_is_cancelled_by_its_owner_not_by_another_act_client(tmp_path: Path) -> None:
    tokens = Tokens.parse(f"admin root {TOKEN}\nact agent {AGENT}\nact other other-token-0123456789abcdef\n")
    with live_server(bot(tmp_path, scenario="no_crafting_table", pace_ms=20), tokens=tokens) as live:

        async def main() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with http_session(live.url, AGENT) as mine:
                await mine.discover()
                handle = await mine.call_tool("run_goal", {"goal": "obtain stone_pickaxe"}, allow_claimed=True)
                assert isinstance(handle, TaskHandle)
                async with http_session(live.url, "other-token-0123456789abcdef") as theirs:
                    await theirs.discover()
                    try:
                        await theirs.send_request(CancelTaskRequest(params=TaskIdParams(task_id=handle.task_id)),
                                                  types.EmptyResult)
                    except Exception as err:
                        out["other"] = str(err)
                out["running"] = live.bot.active is not None and live.bot.active.id == handle.task_id
                await mine.send_request(CancelTaskRequest(params=TaskIdParams(task_id=handle.task_id)),
                                        types.EmptyResult)
                with anyio.fail_after(60):
                    poll = GetTaskRequest(params=TaskIdParams(task_id=handle.task_id))
                    while (state := await mine.send_request(poll, TaskState)).status == "working":
                        await anyio.sleep(0.2)
                out["final"] = state.status
            return out
        out = anyio.run(main)
    assert "forbidden" in out["other"] or "admin" in out["other"], out
    assert out["running"]
    assert out["final"] == "cancelled"


def test_mcp_client_with_the_tasks_extension_gets_a_long_run_s_result_by_polling(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mcp import Client

    from craftbt.serve import mcp_tasks

    polled: list[str] = []
    real_poll = mcp_tasks.poll_task

    async def counting(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
        polled.append(handle.task_id)
        return await real_poll(handle, ctx)
    monkeypatch.setattr(mcp_tasks, "poll_task", counting)
    with live_server(bot(tmp_path, scenario="no_crafting_table")) as live:

        async def main() -> types.CallToolResult:
            http = httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(30, read=300))
            async with http, Client(streamable_http_client(f"{live.url}/mcp", http_client=http),
                                    extensions=[mcp_tasks.TasksClient()]) as client:
                return await client.call_tool("run_goal", {"goal": "obtain stick"})
        result = anyio.run(main)
    assert not result.is_error and result.structured_content is not None
    assert result.structured_content["status"] == "success"
    assert polled == [result.structured_content["run_id"]]  # the server answered a task, the client polled it
