"""09: the bot as a service: HTTP and WebSocket API, an MCP server, a live viewer (``craftbt[serve]``).

``craftbt serve`` keeps one bot alive on 127.0.0.1 with a bearer token for every mutating call; this
script starts it, posts a tree, waits for the run, then talks to the same tools over MCP (``craftbt mcp``
on stdio, as an MCP client such as an editor or an agent would). Open ``/viewer`` in a browser to watch.

    pip install 'craftbt[serve]' && python examples/09_serve_and_mcp.py
"""

from __future__ import annotations

import importlib.util
import json
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

missing = [m for m in ("fastapi", "uvicorn", "mcp") if importlib.util.find_spec(m) is None]
if missing:
    print(f"skipped: {', '.join(missing)} not installed: pip install 'craftbt[serve]'")
    sys.exit(0)

import anyio  # noqa: E402 - comes with the serve extra
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

TREE = "tree: hello\nversion: 1\nroot:\n  leaf: chat\n  args: {message: hello from the service}\n"
home = tempfile.mkdtemp(prefix="craftbt-09-")
token = secrets.token_urlsafe(16)
with socket.socket() as sock:
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
url = f"http://127.0.0.1:{port}"


def call(path: str, data: bytes | None = None, content_type: str = "application/json") -> dict[str, object]:
    request = urllib.request.Request(url + path, data=data, headers={
        "Authorization": f"Bearer {token}", "Content-Type": content_type})
    with urllib.request.urlopen(request, timeout=30) as response:
        answer: dict[str, object] = json.loads(response.read())
        return answer


server = subprocess.Popen([sys.executable, "-m", "craftbt", "serve", "--port", str(port), "--token", token,
                           "--pace-ms", "0", "--home", home], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
try:
    for _ in range(600):  # up to a minute for the first start
        try:
            status = call("/api/bot/status")
            break
        except OSError:
            if server.poll() is not None:
                sys.exit(f"craftbt serve stopped: {server.stderr.read().decode() if server.stderr else ''}")
            time.sleep(0.1)
    print("bot status keys:", sorted(status)[:6], "...")
    run = call("/api/cognitive/execute", TREE.encode(), "application/yaml")
    while (detail := call(f"/api/runs/{run['run_id']}"))["job"]["state"] != "done":  # type: ignore[index]
        time.sleep(0.1)
    outcome = detail["outcome"]
    print("run over HTTP:", run["run_id"], outcome.get("status") if isinstance(outcome, dict) else outcome)
finally:
    server.terminate()
    server.wait(timeout=30)


async def over_mcp() -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "craftbt", "mcp", "--home", home])
    async with Client(params) as client:
        tools = sorted(t.name for t in (await client.list_tools()).tools)
        print(f"MCP: {len(tools)} tools, e.g. {', '.join(tools[:5])}")
        checked = await client.call_tool("validate_tree", {"tree": TREE})
        print("validate_tree over MCP:", checked.content[0].text[:80])


anyio.run(over_mcp)
