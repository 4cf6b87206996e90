"""``/openapi.json`` that describes the service exactly: bodies, every status a route answers, scopes, /ws and /mcp.

* request bodies are closed models (unknown fields are refused, as the schema says); ``execute``'s
  body is ``oneOf`` a tree, a goal or a script run (:func:`parse_run`);
* every error is one :class:`ErrorBody` shape (``{"error": CODE, ...}``), and each route lists the
  statuses it can answer (:func:`answers`);
* a route that needs a token carries the ``bearer`` security scheme and ``x-craftbt-scope``;
* :class:`AllowedMethods` answers ``OPTIONS`` and fixes ``Allow`` on 405 for paths served by more
  than one route (Starlette names only the first route's methods);
* ``/ws`` (the event stream) and ``/mcp`` (MCP over Streamable HTTP) are documented as the HTTP
  operations they are.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, Strict, ValidationError
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from craftbt.serve.access import Scope as Access
from craftbt.serve.bot import ExecuteRequest

#: the most a request may name as a run's tick budget before the server's own cap applies
TICKS_CEILING = 10_000_000


def _no_text_or_bool(value: Any) -> Any:
    if isinstance(value, str | bool):
        raise ValueError("not an integer")
    return value


#: an integer as JSON Schema means it: 140 and 140.0, never "140" or true (lax pydantic takes both)
JsonInt = Annotated[int, BeforeValidator(_no_text_or_bool)]
#: a run's tick budget: the bounds come before the validator, so they land on the integer's schema as ``minimum``
#: and ``maximum`` (after it, or on the optional field, pydantic published its own ``ge``/``le``, which no JSON
#: Schema client reads)
RunTicks = Annotated[int, Field(ge=1, le=TICKS_CEILING), BeforeValidator(_no_text_or_bool)]
_TICKS: Any = Field(default=None,
                    description="Game-tick budget of this run (at most the server's and the client's cap)")
#: a number as JSON Schema means it: 3 and 3.5, never false or "3"
JsonNumber = Annotated[float, Strict()]


class _Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TreeRun(_Closed):
    """Run a tree."""

    tree: str = Field(min_length=1, description="A tree in YAML or JSON text (library subtrees may be used)")
    max_ticks: RunTicks | None = _TICKS


class GoalRun(_Closed):
    """Plan a goal, then run the plan."""

    goal: str = Field(min_length=1, description='A goal, e.g. "obtain stone_pickaxe"')
    planner: Literal["auto", "solver", "htn", "goap", "llm"] = "auto"
    max_ticks: RunTicks | None = _TICKS


class ScriptRun(_Closed):
    """Run a CraftScript program."""

    script: str = Field(min_length=1, description="A CraftScript program")
    max_ticks: RunTicks | None = _TICKS


RUN_KINDS: dict[str, type[_Closed]] = {"tree": TreeRun, "goal": GoalRun, "script": ScriptRun}


class ErrorBody(BaseModel):
    """Every error the service answers: a code, and what else says why (problems, the active run, the limit)."""

    model_config = ConfigDict(extra="allow")
    error: str
    detail: Any = None


class BadRun(ValueError):
    """An execute body that is not exactly one of a tree, a goal or a script run; ``detail`` says why."""

    def __init__(self, detail: Any) -> None:
        super().__init__(str(detail))
        self.detail = detail


def parse_run(raw: bytes) -> ExecuteRequest:
    """``execute``'s JSON body, validated against the ``oneOf`` the schema states; raises :class:`BadRun`."""
    try:
        data = json.loads(raw or b"null")
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise BadRun(f"not JSON: {err}") from None
    if not isinstance(data, dict):
        raise BadRun("the body is a JSON object with exactly one of tree, goal, script")
    given = [k for k in RUN_KINDS if k in data]
    if len(given) != 1:
        raise BadRun(f"give exactly one of tree, goal, script (got {', '.join(given) or 'none'})")
    try:
        run = RUN_KINDS[given[0]].model_validate(data)
    except ValidationError as err:
        raise BadRun(json.loads(err.json(include_url=False))) from None
    return ExecuteRequest(**run.model_dump(exclude_none=True))


_DESCRIPTIONS = {
    400: "Bad request", 401: "No token, or not one the server knows (send Authorization: Bearer TOKEN)",
    403: "The token's scope does not allow this", 404: "No such run", 405: "Method not allowed",
    406: "Not acceptable (Accept must name application/json and text/event-stream)",
    409: "A run is active (or this one is not)", 413: "Request body over the server's limit",
    415: "Unsupported content type", 422: "The request is malformed, or does not compile (located problems)",
    426: "Upgrade required: /ws speaks WebSocket", 429: "The client's run limit is reached (retry_after_s)",
}


def answers(*codes: int) -> dict[int | str, dict[str, Any]]:
    """The ``responses=`` of a route: each status with the error body."""
    return {code: {"model": ErrorBody, "description": _DESCRIPTIONS[code]} for code in codes}


def guarded(scope: Access) -> dict[str, Any]:
    """``openapi_extra`` of a route that needs a token of ``scope``."""
    return {"security": [{"bearer": []}], "x-craftbt-scope": scope.label}


def execute_body(max_ticks: int) -> dict[str, Any]:
    """``execute``'s request body: ``oneOf`` the three run kinds (JSON), or a tree file's text (YAML)."""
    variants = []
    for kind, model in RUN_KINDS.items():
        schema = model.model_json_schema()
        ticks = schema["properties"]["max_ticks"]
        for option in ticks.get("anyOf", []):
            if option.get("type") == "integer":
                option["maximum"] = max_ticks
        variants.append({**schema, "title": model.__name__, "description": f"{model.__doc__} ({kind})"})
    return {"requestBody": {"required": True, "content": {
        "application/json": {"schema": {"oneOf": variants}},
        "application/yaml": {"schema": {"type": "string", "minLength": 1,
                                        "description": "A tree file's text, as-is"}}}}}


def _error_ref() -> dict[str, Any]:
    return {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}


def _extra_paths() -> dict[str, Any]:
    """/ws and /mcp: not FastAPI operations, documented as the HTTP they speak."""
    bearer: list[dict[str, list[str]]] = [{"bearer": []}]
    error = _error_ref()
    mcp_common = {
        "tags": ["mcp"], "security": bearer, "x-craftbt-scope": "read",
        "externalDocs": {"url": "https://modelcontextprotocol.io/specification/2026-07-28",
                         "description": "MCP 2026-07-28, Streamable HTTP"},
    }
    mcp_errors = {str(c): {"description": _DESCRIPTIONS[c], "content": error} for c in (401,)}
    rpc = {"type": "object", "description": "A JSON-RPC 2.0 message (MCP)"}
    return {
        "/ws": {"get": {
            "tags": ["events"], "summary": "Event stream (WebSocket)", "operationId": "events_ws",
            "description": "Upgrade to a WebSocket for seed 003's events and per-tick tree status; `?since=SEQ` "
                           "replays what a client missed. A page of another origin is refused (close 1008).",
            "parameters": [{"name": "since", "in": "query", "required": False,
                            "schema": {"type": "integer", "minimum": 0}}],
            "responses": {"101": {"description": "Switching protocols: JSON events, one a message "
                                                 "(`{seq, type, ts, data}`)"},
                          "422": {"description": _DESCRIPTIONS[422], "content": error},
                          "426": {"description": _DESCRIPTIONS[426], "content": error}}}},
        "/mcp": {
            "post": {**mcp_common, "summary": "MCP request (Streamable HTTP)", "operationId": "mcp_post",
                     "description": "A JSON-RPC request to the MCP server: every tool needs the scope its "
                                    "description names (a 403-equivalent is the tool's `forbidden` error).",
                     "requestBody": {"required": True, "content": {"application/json": {"schema": rpc}}},
                     "responses": {"200": {"description": "The JSON-RPC response (JSON or an SSE stream)",
                                           "content": {"application/json": {"schema": rpc},
                                                       "text/event-stream": {"schema": {"type": "string"}}}},
                                   "202": {"description": "A notification or response accepted"},
                                   **{str(c): {"description": _DESCRIPTIONS.get(c, "Refused by the MCP "
                                                                                   "transport")}
                                      for c in (400, 404, 406, 413, 415)},
                                   **mcp_errors}},
            "get": {**mcp_common, "summary": "MCP server-to-client stream (SSE)", "operationId": "mcp_get",
                    "responses": {"200": {"description": "An SSE stream",
                                          "content": {"text/event-stream": {"schema": {"type": "string"}}}},
                                  **{str(c): {"description": _DESCRIPTIONS.get(c, "Refused by the MCP transport")}
                                     for c in (400, 404, 405, 406)},
                                  **mcp_errors}},
            "delete": {**mcp_common, "summary": "End an MCP session", "operationId": "mcp_delete",
                       "responses": {"200": {"description": "Session ended"},
                                     **{str(c): {"description": _DESCRIPTIONS.get(c, "Refused by the MCP "
                                                                                     "transport")}
                                        for c in (400, 404, 405)},
                                     **mcp_errors}},
        },
    }


def install(app: FastAPI) -> None:
    """Replace ``app.openapi`` with the exact document: the bearer scheme, the error body, /ws and /mcp."""

    def document() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes,
                          tags=app.openapi_tags)
        components = doc.setdefault("components", {})
        components.setdefault("securitySchemes", {})["bearer"] = {
            "type": "http", "scheme": "bearer",
            "description": "A token of scope read, act or admin (`craftbt serve --token` is admin; "
                           "`--token-file` names scoped clients). `x-craftbt-scope` on an operation names the "
                           "least scope it needs."}
        components.setdefault("schemas", {})["ErrorBody"] = ErrorBody.model_json_schema()
        doc["paths"].update(_extra_paths())
        app.openapi_schema = doc
        return doc

    app.openapi = document  # type: ignore[method-assign]


def _route_methods(routes: list[BaseRoute]) -> list[tuple[re.Pattern[str], set[str]]]:
    table: dict[str, tuple[re.Pattern[str], set[str]]] = {}
    for route in routes:
        if isinstance(route, Route) and route.methods:
            table.setdefault(route.path, (route.path_regex, set()))[1].update(route.methods)
        elif isinstance(route, WebSocketRoute):
            table.setdefault(route.path, (route.path_regex, set()))[1].add("GET")
    return list(table.values())


class AllowedMethods:
    """ASGI middleware: ``OPTIONS`` answers 204 with ``Allow``; a 405 names every method of its path."""

    def __init__(self, app: ASGIApp, routes: Callable[[], list[BaseRoute]]) -> None:
        self.app = app
        self._routes = routes
        self._table: list[tuple[re.Pattern[str], set[str]]] | None = None

    def allowed(self, path: str) -> set[str] | None:
        if self._table is None:  # routes are all added by the first request
            self._table = _route_methods(self._routes())
        for pattern, methods in self._table:
            if pattern.match(path):
                return methods
        return None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        methods = self.allowed(scope["path"])
        if methods is None:
            await self.app(scope, receive, send)
            return
        allow = ", ".join(sorted(methods | {"OPTIONS"} | ({"HEAD"} if "GET" in methods else set())))
        if scope["method"] == "OPTIONS":
            await send({"type": "http.response.start", "status": 204, "headers": [(b"allow", allow.encode())]})
            await send({"type": "http.response.body", "body": b""})
            return

        async def fix_allow(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 405:
                headers = [(k, v) for k, v in message.get("headers", []) if k.lower() != b"allow"]
                message = {**message, "headers": [*headers, (b"allow", allow.encode())]}
            await send(message)

        await self.app(scope, receive, fix_allow)
