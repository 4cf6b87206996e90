"""Safe by default: the bearer tokens, the loopback rule and the request-body limit.

Every mutating call needs ``Authorization: Bearer TOKEN`` (compared in constant time; what each
token may do is :mod:`craftbt.serve.access`'s). A token is generated when none is given; a bind
address that is not loopback refuses to start without an explicit one (``--token`` or
``--token-file``), so a service reachable from the network never runs with a token nobody chose.
"""

from __future__ import annotations

import ipaddress
import secrets
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # starlette comes with the 'serve' extra; the CLI imports this module without it
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

from craftbt.serve.access import Tokens, check_token

#: default request-body cap: a tree or script is a few kB; this leaves room and stops abuse
DEFAULT_MAX_BODY = 1 << 20


class SecurityError(Exception):
    """The service must not start this way."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolve_token(host: str, token: str | None) -> tuple[str, bool]:
    """The token to require and whether it was generated; refuses a non-loopback bind without one."""
    if token is not None:
        try:
            return check_token(token), False
        except ValueError as err:
            raise SecurityError(str(err)) from None
    if not is_loopback(host):
        raise SecurityError(f"binding {host} (not loopback) needs --token or --token-file (or CRAFTBT_SERVE_TOKEN, "
                            "CRAFTBT_SERVE_TOKEN_FILE): anyone who can reach the port could drive the bot")
    return secrets.token_urlsafe(24), True


def resolve_tokens(host: str, token: str | None, token_file: Path | None) -> tuple[Tokens, str | None, bool]:
    """The tokens to accept, the admin token to print (None with a token file) and whether it was generated.

    ``--token`` alone is one admin token (what it always meant); ``--token-file`` names scoped clients,
    and a ``--token`` given with it is one more admin entry.
    """
    if token_file is None:
        secret, generated = resolve_token(host, token)
        return Tokens.single(secret), secret, generated
    try:
        tokens = Tokens.load(token_file)
        if token is not None:
            tokens = Tokens.merged(tokens, Tokens.single(token))
    except ValueError as err:
        raise SecurityError(str(err)) from None
    return tokens, None, False


class BodyLimit:
    """ASGI middleware: a request body over ``limit`` bytes gets 413 before the app reads it.

    A declared ``Content-Length`` is checked first; a body without one (chunked) is read here, up
    to the limit, and handed to the app whole.
    """

    def __init__(self, app: ASGIApp, limit: int = DEFAULT_MAX_BODY) -> None:
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        declared = headers.get(b"content-length")
        if declared is not None:
            if not declared.isdigit() or int(declared) > self.limit:
                await _too_large(send, self.limit)
                return
            await self.app(scope, receive, send)
            return
        if scope.get("method") not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        chunks: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.limit:
                await _too_large(send, self.limit)
                return
            chunks.append(chunk)
            if not message.get("more_body", False):
                break
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": b"".join(chunks), "more_body": False}
            return await receive()

        await self.app(scope, replay, send)


async def _too_large(send: Send, limit: int) -> None:
    body = b'{"error":"body_too_large","limit_bytes":%d}' % limit
    headers: list[Any] = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": body})
