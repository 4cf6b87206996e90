"""Test helper for ``craftbt serve``: a bot on the embedded world, and the app on a real port.

:func:`live_server` runs uvicorn in a thread on 127.0.0.1 and a free port, and stops it (and the
bot) when the ``with`` block ends; the MCP-over-HTTP and the browser tests need a real socket,
the API tests use Starlette's httpx-based TestClient.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import uvicorn
from fastapi import FastAPI

from craftbt.serve.app import create_app
from craftbt.serve.bot import Bot
from craftbt.serve.launch import BotOptions, make_bot

TOKEN = "test-token-0123456789abcdef"
AUTH = {"Authorization": f"Bearer {TOKEN}"}

HELLO_TREE = """\
tree: hello
root:
  sequence:
    name: Say hello
    children:
      - leaf: chat
        args: {message: "hello"}
      - leaf: wait
        args: {ms: 150}
"""


def bot(home: Path, scenario: str | None = "crafting_table_nearby", pace_ms: float = 0.0) -> Bot:
    return make_bot(BotOptions(scenario=Path(scenario) if scenario else None, pace_ms=pace_ms, home=home))


def app_for(b: Bot, **kw: object) -> FastAPI:
    return create_app(b, token=TOKEN, extra_hosts=["testserver"], **kw)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Live:
    url: str
    bot: Bot


@contextmanager
def live_server(b: Bot, **kw: object) -> Iterator[Live]:
    port = free_port()
    config = uvicorn.Config(app_for(b, **kw), host="127.0.0.1", port=port, log_level="warning", lifespan="on",
                            timeout_graceful_shutdown=2)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield Live(f"http://127.0.0.1:{port}", b)
    finally:
        server.should_exit = True
        thread.join(15)
