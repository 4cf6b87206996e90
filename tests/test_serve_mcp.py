"""The MCP server, driven by the official SDK's own client: over stdio (``craftbt mcp``) and over HTTP (/mcp)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from tests.servekit import AUTH, HELLO_TREE, bot, live_server

CRAFTBT = Path(sys.executable).parent / "craftbt"


def payload(result: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(result.content[0].text)
    return data


async def exercise(client: Client) -> dict[str, Any]:
    """List the tools, call a read-only one, run a small tree, craft through the capability tool."""
    tools = {t.name: t for t in (await client.list_tools()).tools}
    out: dict[str, Any] = {"tools": tools}
    out["status"] = payload(await client.call_tool("get_status", {}))
    out["tree"] = payload(await client.call_tool("run_tree", {"tree": HELLO_TREE}))
    crafted = await client.call_tool("craft_recipe", {"recipe": "oak_planks", "qty": 4})
    out["craft_error"] = crafted.is_error
    out["craft"] = payload(crafted)
    out["after"] = payload(await client.call_tool("get_status", {}))
    out["vox"] = payload(await client.call_tool("get_vox", {"radius": 1}))
    out["bad"] = await client.call_tool("craft_recipe", {"recipe": ""})
    resources = await client.list_resources()
    out["resources"] = [r.uri for r in resources.resources]
    manifest = await client.read_resource("craftbt://manifest")
    out["manifest"] = json.loads(manifest.contents[0].text)  # type: ignore[union-attr]
    return out


def check(out: dict[str, Any]) -> None:
    tools = out["tools"]
    assert {"craft_recipe", "move_to", "run_tree", "plan_goal", "validate_tree", "get_status", "get_vox", "nav",
            "craftscript_run", "craftscript_logs", "create_craftscript_function"} <= set(tools)
    # a capability tool's input schema is the capability's own JSON Schema
    assert tools["craft_recipe"].input_schema["required"] == ["recipe"]
    assert tools["get_status"].annotations.read_only_hint is True
    assert out["status"]["bot"]["inventory"]["oak_log"] == 4
    assert out["tree"]["outcome"]["status"] == "success"
    assert not out["craft_error"] and out["craft"]["outcome"]["status"] == "success"
    assert out["craft"]["steps"][0]["capability"] == "craft_recipe"  # journalled like any run
    assert out["after"]["bot"]["inventory"]["oak_planks"] == out["status"]["bot"]["inventory"]["oak_planks"] + 4
    assert out["vox"]["window"]["radius"] == 1 and out["vox"]["voxels"]
    assert out["bad"].is_error and payload(out["bad"])["error"] == "invalid"
    assert "craftbt://manifest" in out["resources"]
    assert any(c["name"] == "craft_recipe" for c in out["manifest"]["capabilities"])


@pytest.mark.slow
def test_mcp_over_stdio(tmp_path: Path) -> None:
    if not CRAFTBT.exists():
        pytest.skip(f"no {CRAFTBT}: install the package (pip install -e .)")
    params = StdioServerParameters(command=str(CRAFTBT), args=["mcp", "--scenario", "no_crafting_table", "--home",
                                                               str(tmp_path)])

    async def main() -> dict[str, Any]:
        async with Client(params) as client:
            return await exercise(client)
    check(anyio.run(main))


def test_mcp_over_http_needs_the_token_and_runs_tools(tmp_path: Path) -> None:
    with live_server(bot(tmp_path, scenario="no_crafting_table")) as live:
        assert httpx2.post(f"{live.url}/mcp", json={}).status_code == 401

        async def main() -> dict[str, Any]:
            http = httpx2.AsyncClient(headers=AUTH, timeout=httpx2.Timeout(30, read=300))
            async with http, Client(streamable_http_client(f"{live.url}/mcp", http_client=http)) as client:
                return await exercise(client)
        check(anyio.run(main))


def test_craftscript_functions_nav_and_plans_in_process(tmp_path: Path) -> None:
    from craftbt.craftscript.records import ScriptRuns
    from craftbt.serve.mcp_server import McpTools, build_server

    dug = {"pos": [1, 2, 3], "before": "minecraft:dirt", "after": "minecraft:air", "action": "destroyed",
           "command": "dig", "timestamp": 1}
    kept = ScriptRuns(tmp_path / "craftscript.sqlite")  # a script run of another process (craftbt script run)
    kept.save("run-fromcli", "cli.cs", {"ok": True, "status": "completed", "ops": 1, "error": None,
                                         "run_id": "run-fromcli", "logs": [{"kind": "log", "text": "from the cli"}],
                                         "steps": [], "block_changes": [dug]})
    kept.close()
    b = bot(tmp_path, scenario="flat_empty")
    b.start()
    try:
        server = build_server(McpTools(b))

        async def main() -> dict[str, Any]:
            out: dict[str, Any] = {}
            async with Client(server) as client:
                out["created"] = payload(await client.call_tool("create_craftscript_function", {
                    "name": "greet", "body": 'log("hello from a function");', "description": "says hello"}))
                out["listed"] = payload(await client.call_tool("list_craftscript_functions", {}))
                out["dup"] = await client.call_tool("create_craftscript_function", {"name": "greet", "body": "x"})
                out["run"] = payload(await client.call_tool("craftscript_run", {"script": "greet();"}))
                out["logs"] = payload(await client.call_tool("craftscript_logs", {"job_id": out["run"]["run_id"]}))
                placed = payload(await client.call_tool("craftscript_run", {
                    "script": "goto(3, 64, 3);"}))
                out["trace"] = payload(await client.call_tool("craftscript_trace", {"job_id": placed["run_id"]}))
                out["kept_logs"] = payload(await client.call_tool("craftscript_logs", {"job_id": "run-fromcli"}))
                out["kept_trace"] = payload(await client.call_tool("craftscript_trace", {"job_id": "run-fromcli"}))
                out["no_job"] = await client.call_tool("craftscript_trace", {"job_id": "run-nosuchrun"})
                out["nav"] = payload(await client.call_tool("nav", {"action": "start",
                                                                    "target": {"x": 3, "y": 64, "z": 0}}))
                out["nav_done"] = payload(await client.call_tool("get_run", {"run_id": out["nav"]["nav_id"]}))
                out["plan"] = await client.call_tool("plan_goal", {"goal": "obtain quartz"})  # the Nether: out of reach
                out["unknown"] = await client.call_tool("no_such_tool", {})
            return out
        out = anyio.run(main)
    finally:
        b.stop()
    assert out["created"]["ok"] and out["created"]["version"] == 1
    assert [f["name"] for f in out["listed"]["functions"]] == ["greet"]
    assert out["dup"].is_error
    assert out["run"]["outcome"]["status"] == "success"
    assert [e["text"] for e in out["logs"]["logs"] if e["kind"] == "log"] == ["hello from a function"]
    assert out["trace"]["block_changes"] == []
    assert out["trace"]["movement"] and out["trace"]["movement"][0]["to"] == [3, 64, 3]
    assert [e["text"] for e in out["kept_logs"]["logs"]] == ["from the cli"]
    assert out["kept_trace"]["changes"] == [{"action": "destroyed", "x": 1, "y": 2, "z": 3,
                                             "block_id": "minecraft:dirt", "before": "minecraft:dirt",
                                             "after": "minecraft:air", "command": "dig", "timestamp": 1}]
    assert out["no_job"].is_error
    assert out["nav"]["state"] == "planning"
    assert out["nav_done"]["job"]["kind"] == "capability" and out["nav_done"]["job"]["label"].startswith("move_to")
    assert out["plan"].is_error and "no planner could plan" in payload(out["plan"])["problems"][0]["message"]
    assert out["unknown"].is_error
