"""A local OpenAI-protocol chat-completions server for tests: replays recorded answers on 127.0.0.1.

Each queued reply is ``{"content": str}`` (a 200 chat completion), ``{"status": int, "body": str}``
(an HTTP error) or ``{"delay": seconds, ...}`` (answer late, for timeouts). Requests are kept in
``requests`` so a test can read what the planner sent (prompt, response_format, repair messages).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class StubServer:
    def __init__(self) -> None:
        self.replies: list[dict[str, Any]] = []
        self.requests: list[dict[str, Any]] = []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                stub.requests.append({"path": self.path, "body": body, "auth": self.headers.get("Authorization")})
                reply: dict[str, Any] = stub.replies.pop(0) if stub.replies else {"status": 500, "body": "none left"}
                if reply.get("delay"):
                    time.sleep(float(reply["delay"]))
                if "status" in reply:
                    data = str(reply["body"]).encode()
                    self.send_response(int(reply["status"]))
                else:
                    data = json.dumps({"id": "stub", "object": "chat.completion", "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": reply["content"]},
                         "finish_reason": "stop"}]}).encode()
                    self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        port = self.server.server_address[1]
        return f"http://127.0.0.1:{port}/v1"

    def start(self) -> StubServer:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def dead_url() -> str:
    """A loopback URL with nothing listening (the port was free a moment ago)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"
