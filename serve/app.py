"""The FastAPI application: seed 003's endpoints, the journal and registry, the WebSocket, the viewer, /mcp.

Reads are open; every mutating call (execute, cancel, signals, viewer control, and all of /mcp)
needs ``Authorization: Bearer TOKEN`` of the scope the route names (:mod:`craftbt.serve.access`:
read, act, admin). Host headers are checked (a DNS-rebinding page cannot reach a loopback service),
a WebSocket from a page of another origin is refused, and request bodies are capped by
:class:`~craftbt.serve.security.BodyLimit`. ``/openapi.json`` describes all of it
(:mod:`craftbt.serve.openapi`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

from fastapi import Depends, FastAPI, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import BaseModel, ConfigDict, Field, StrictBool
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.trustedhost import TrustedHostMiddleware
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from craftbt._version import __version__
from craftbt.executor.sla import build_report, render_html
from craftbt.serve.access import AccessError, Principal, Runs, ServiceLimits, Tokens, forbidden
from craftbt.serve.access import Scope as Access
from craftbt.serve.bot import Bot, BusyError, CompileError, ExecuteRequest
from craftbt.serve.compile import compile_tree
from craftbt.serve.events import EventType
from craftbt.serve.mcp_server import PRINCIPAL_KEY, McpTools, build_server
from craftbt.serve.openapi import (
    AllowedMethods,
    BadRun,
    JsonInt,
    JsonNumber,
    answers,
    execute_body,
    guarded,
    install,
    parse_run,
)
from craftbt.serve.security import DEFAULT_MAX_BODY, BodyLimit, is_loopback
from craftbt.trees.schema import tree_schema
from craftbt.trees.treeview import script as treeview_script

#: a WebSocket waits this long for an event before checking whether the server is stopping (s)
WS_POLL_S = 0.5


class SignalRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    text: str = Field(min_length=1, max_length=2000, description="A suggestion, e.g. 'get some iron'")
    source: str = Field(default="user", pattern="^(user|system)$")
    execute: StrictBool = Field(default=False,
                                description="When accepted and the bot is idle, plan and run the goal now")


class ValidateRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    tree: str = Field(description="A tree in YAML or JSON text")


class ControlRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str = Field(pattern="^(pause|resume|step|pace)$")
    steps: JsonInt = Field(default=1, ge=1, le=100_000)
    pace_ms: JsonNumber = Field(default=0.0, ge=0, le=10_000)


def allowed_hosts(host: str) -> list[str]:
    """Host headers to accept: a loopback bind accepts only loopback names (DNS-rebinding guard)."""
    if not is_loopback(host):
        return ["*"]
    return sorted({"127.0.0.1", "localhost", "[::1]", "::1", host})


def create_app(bot: Bot, *, token: str | None = None, tokens: Tokens | None = None, limits: ServiceLimits | None = None,
               host: str = "127.0.0.1", max_body: int = DEFAULT_MAX_BODY,
               extra_hosts: list[str] | None = None) -> FastAPI:
    """The service around ``bot`` (started and stopped with the app's lifespan).

    ``tokens`` names the clients and their scopes; ``token`` alone is one admin token. ``limits`` caps
    every run (default: the bot's tick budget and :data:`~craftbt.serve.access.DEFAULT_MAX_WALL_S`).
    """
    if tokens is None:
        if token is None:
            raise ValueError("create_app needs token or tokens")
        tokens = Tokens.single(token)
    known = tokens
    runs = Runs(bot, limits or ServiceLimits(max_ticks=bot.config.max_ticks))
    tools = McpTools(bot, runs=runs)
    mcp_server = build_server(tools)
    hosts = allowed_hosts(host) + list(extra_hosts or [])
    security = None if "*" in hosts else TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[f"{h}:*" for h in hosts] + hosts,
        allowed_origins=[f"http://{h}:*" for h in hosts])
    sessions = StreamableHTTPSessionManager(app=mcp_server, security_settings=security, max_request_body_size=max_body)
    state: dict[str, Any] = {"stopping": False}

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if not bot.alive:
            await asyncio.to_thread(bot.start)
        async with sessions.run():
            yield
        state["stopping"] = True
        await asyncio.to_thread(bot.stop)

    app = FastAPI(title="craftbt serve", version=__version__, lifespan=lifespan,
                  description="A Minecraft bot as a service: behaviour trees, goals and CraftScript through one "
                              "capability registry. Reads are open; a mutating call needs `Authorization: Bearer "
                              "TOKEN` of the scope its operation names (`x-craftbt-scope`: read, act or admin).")
    app.state.bot = bot
    app.state.tools = tools
    app.state.runs = runs
    app.state.flags = state

    def need(scope: Access) -> Any:
        """A dependency: the caller's client, when its token allows ``scope`` (401 without one, 403 under it)."""
        def check(request: Request) -> Principal:
            principal = known.lookup(request.headers.get("authorization"))
            if principal is None:
                raise HTTPException(401, detail={"error": "unauthorized",
                                                 "detail": "send Authorization: Bearer TOKEN (printed by craftbt "
                                                           "serve)"},
                                    headers={"WWW-Authenticate": "Bearer"})
            if not principal.allows(scope):
                raise HTTPException(403, detail=forbidden(principal, scope, f"{request.method} {request.url.path}")
                                    .payload())
            return principal
        return Depends(check)

    act = need(Access.ACT)

    def refused(err: AccessError) -> HTTPException:
        retry = err.extra.get("retry_after_s")
        return HTTPException(err.status, detail=err.payload(),
                             headers={"Retry-After": str(retry)} if retry is not None else None)

    # -- seed 003 ---------------------------------------------------------------------------------
    @app.get("/api/bot/status", tags=["bot"])
    async def bot_status() -> dict[str, Any]:
        """Position, health, food, inventory and the active run (a snapshot the bot keeps fresh)."""
        return bot.status()

    @app.get("/api/cognitive/health", tags=["bot"])
    async def health() -> dict[str, Any]:
        return {"ok": bot.alive and "error" not in bot.snapshot, "worker_alive": bot.alive,
                "body": bot.body_kind, "body_error": bot.snapshot.get("error"),
                "capabilities": len(bot.registry.latest()), "events_seq": bot.hub.last_seq,
                "uptime_s": round(time.time() - bot.started_at, 3), "version": __version__,
                "limits": {"max_ticks": runs.limits.max_ticks, "max_wall_s": runs.limits.max_wall_s}}

    @app.post("/api/cognitive/execute", status_code=202, tags=["runs"],
              openapi_extra={**execute_body(runs.limits.max_ticks), **guarded(Access.ACT)},
              responses=answers(400, 401, 403, 409, 413, 422, 429))
    async def execute(request: Request, principal: Principal = act) -> dict[str, Any]:
        """Start a tree, a goal or a CraftScript text in the background; returns the run id.

        JSON takes exactly one of ``{"tree": TEXT}``, ``{"goal": "obtain iron_pickaxe"}`` or
        ``{"script": TEXT}`` (with ``max_ticks``, and ``planner`` for a goal); a YAML (or text/plain)
        body is a tree file as-is: ``curl --data-binary @tree.yaml``. The run is capped by the server's
        tick and wall-time limits and the client's own (``max_ticks`` over them: 422 ``over_limit``;
        too many runs this hour: 429).
        """
        raw = await request.body()
        kind = request.headers.get("content-type", "application/json").split(";")[0].strip().lower()
        try:
            if kind in ("application/yaml", "application/x-yaml", "text/yaml", "text/x-yaml", "text/plain"):
                text = raw.decode("utf-8")
                if not text.strip():
                    raise BadRun("the tree file is empty")
                body = ExecuteRequest(tree=text)
            else:
                body = parse_run(raw)
        except (BadRun, UnicodeDecodeError) as err:
            detail = err.detail if isinstance(err, BadRun) else str(err)
            raise HTTPException(422, detail={"error": "bad_request", "detail": detail}) from None
        try:
            job = await asyncio.to_thread(
                runs.start, principal, lambda ticks: bot.submit(body.model_copy(update={"max_ticks": ticks})),
                body.max_ticks)
        except CompileError as err:
            raise HTTPException(422, detail={"error": "invalid", "problems": err.problems}) from None
        except BusyError as err:
            raise HTTPException(409, detail={"error": "busy", "active": err.active}) from None
        except AccessError as err:
            raise refused(err) from None
        return {"run_id": job.id, "kind": job.kind.value, "state": job.state.value, "owner": principal.name,
                "links": {"run": f"/api/runs/{job.id}", "cancel": f"/api/runs/{job.id}/cancel", "events": "/ws"}}

    @app.post("/api/cognitive/signals", tags=["bot"], openapi_extra=guarded(Access.ACT),
              responses=answers(400, 401, 403, 413, 422))
    async def signals(request: SignalRequest, principal: Principal = act) -> dict[str, Any]:
        """Feed the intrusive-thought filter; accepted or rejected, with the reason."""
        decision = bot.signal(request.text, request.source)
        out: dict[str, Any] = {"accepted": decision.accepted, "reason": decision.reason,
                               "intent": decision.intent.model_dump(mode="json") if decision.intent else None}
        if decision.accepted and request.execute and decision.intent is not None:
            goal = str(decision.intent.goal)
            try:
                job = await asyncio.to_thread(runs.start, principal,
                                              lambda ticks: bot.submit(ExecuteRequest(goal=goal, max_ticks=ticks)),
                                              None)
                out["run_id"] = job.id
            except (BusyError, CompileError, AccessError) as err:
                out["run_id"] = None
                out["not_started"] = str(err)
        return out

    @app.get("/api/cognitive/signals", tags=["bot"], responses=answers(422))
    async def signal_log(limit: int = Query(50, ge=1, le=500)) -> dict[str, Any]:
        """Recent verdicts, and the accepted suggestions waiting for a consumer (the autonomy loop)."""
        return {"decisions": [d.model_dump(mode="json") for d in bot.thoughts.log[-limit:]],
                "pending": [d.model_dump(mode="json") for d in bot.suggestions]}

    @app.get("/api/viewer/control", tags=["viewer"])
    async def viewer_state() -> dict[str, Any]:
        return bot.control.as_dict()

    @app.post("/api/viewer/control", tags=["viewer"], openapi_extra=guarded(Access.ACT),
              responses=answers(400, 401, 403, 413, 422))
    async def viewer_control(request: ControlRequest, principal: Principal = act) -> dict[str, Any]:
        """Debugging controls: pause and resume the running tree, single-step N ticks, set the pace."""
        control = bot.control
        if request.action == "pause":
            control.paused = True
        elif request.action == "resume":
            control.paused, control.steps = False, 0
        elif request.action == "step":
            control.paused, control.steps = True, control.steps + request.steps
        else:
            control.pace_ms = request.pace_ms
        return control.as_dict()

    # -- runs and the journal -------------------------------------------------------------------
    @app.get("/api/runs", tags=["runs"], responses=answers(422))
    def list_runs(limit: int = Query(50, ge=1, le=1000)) -> dict[str, Any]:
        journal = bot.journal()
        try:
            rows = journal.list_runs(limit)
        finally:
            journal.close()
        active = bot.active
        return {"active": active.summary() if active else None, "runs": rows}

    @app.get("/api/runs/{run_id}", tags=["runs"], responses=answers(404))
    def run_detail(run_id: str) -> dict[str, Any]:
        """One run: the service's view (state, outcome, owner) and the journal's (steps, verdicts, decisions)."""
        job = bot.jobs.get(run_id)
        # The job's view first: a job ends only after its run is closed in the journal, so a finished job is
        # never paired with a journal still saying running (reading the journal first raced a run's end).
        summary = job.summary() if job else None
        outcome = job.result if job else None
        journal = bot.journal()
        try:
            detail: dict[str, Any] | None = journal.run_detail(run_id)
        except KeyError:
            detail = None
        finally:
            journal.close()
        if detail is None and job is None:
            raise HTTPException(404, detail={"error": "unknown_run", "run_id": run_id})
        return {"run_id": run_id, "job": summary, "owner": runs.owner(run_id), "outcome": outcome,
                "journal": detail}

    @app.post("/api/runs/{run_id}/cancel", status_code=202, tags=["runs"], openapi_extra=guarded(Access.ACT),
              responses=answers(401, 403, 409))
    async def cancel(run_id: str, principal: Principal = act) -> dict[str, Any]:
        """Cancel a run: the client's own with scope act, another client's with admin."""
        try:
            cancelling = runs.cancel(principal, run_id)
        except AccessError as err:
            raise refused(err) from None
        if not cancelling:
            active = bot.active
            raise HTTPException(409, detail={"error": "not_active", "run_id": run_id,
                                             "active": active.id if active else None})
        return {"run_id": run_id, "cancelling": True}

    @app.get("/api/sla", tags=["journal"], responses=answers(422))
    def sla(since: float | None = None, capability: str | None = None) -> dict[str, Any]:
        journal = bot.journal()
        try:
            return build_report(journal, since=since, capability=capability)
        finally:
            journal.close()

    @app.get("/api/sla.html", response_class=HTMLResponse, tags=["journal"])
    def sla_html() -> str:
        """The SLA report's charts (the same page as ``craftbt sla --html``)."""
        journal = bot.journal()
        try:
            return render_html(build_report(journal))
        finally:
            journal.close()

    # -- the registry -----------------------------------------------------------------------------
    @app.get("/api/capabilities", tags=["registry"])
    async def capabilities() -> dict[str, Any]:
        return bot.registry.manifest()

    @app.get("/api/schema", tags=["registry"])
    def schema() -> dict[str, Any]:
        """The JSON Schema of a tree for this registry."""
        return tree_schema(bot.registry)

    @app.post("/api/trees/validate", tags=["registry"], responses=answers(400, 413, 422))
    def validate(request: ValidateRequest) -> dict[str, Any]:
        checked = compile_tree(request.tree, bot.registry)
        return {"ok": checked.ok, "tree": checked.definition.tree if checked.definition else None,
                "problems": [p.to_dict() for p in checked.problems]}

    # -- events -----------------------------------------------------------------------------------
    @app.websocket("/ws")
    async def events(websocket: WebSocket, since: int | None = None) -> None:
        """Seed 003's events plus per-tick tree status; ``?since=SEQ`` replays what a client missed."""
        if not _same_origin(websocket):
            await websocket.close(code=1008, reason="cross-origin WebSocket refused")
            return
        await websocket.accept()
        sub, backlog = bot.hub.subscribe(since)
        last = since or 0

        async def until_closed() -> None:
            # the client sends nothing; a disconnect (theirs, or uvicorn's at shutdown) ends the stream
            while (await websocket.receive())["type"] != "websocket.disconnect":
                pass

        closed = asyncio.create_task(until_closed())
        try:
            await websocket.send_json({"seq": bot.hub.last_seq, "type": "hello", "ts": time.time(),
                                       "data": {"status": bot.status(), "view": bot.view_state()}})
            for event in backlog:
                await websocket.send_json(event)
                last = event["seq"]
            while not closed.done() and not state["stopping"]:
                try:
                    event = await asyncio.wait_for(sub.queue.get(), WS_POLL_S)
                except TimeoutError:
                    continue
                if event["type"] == EventType.LAGGED.value:
                    sub.lagged_from = None
                    await websocket.send_json(event)
                    for missed in bot.hub.since(last):
                        await websocket.send_json(missed)
                        last = missed["seq"]
                    continue
                if event["seq"] <= last:
                    continue
                await websocket.send_json(event)
                last = event["seq"]
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            closed.cancel()
            bot.hub.unsubscribe(sub)

    # -- the viewer -----------------------------------------------------------------------------
    @app.get("/", include_in_schema=False)
    async def root() -> RedirectResponse:
        return RedirectResponse("/viewer")

    @app.get("/viewer", response_class=HTMLResponse, tags=["viewer"])
    async def viewer() -> HTMLResponse:
        page = resources.files("craftbt.serve").joinpath("viewer.html").read_text(encoding="utf-8")
        return HTMLResponse(page, headers={
            # the page builds its DOM with textContent; the policy is the second line of defence
            "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
                                       "style-src 'self' 'unsafe-inline'; connect-src 'self' ws: wss:; "
                                       "img-src 'self' data:; frame-src 'self'; object-src 'none'; base-uri 'none'",
            "X-Content-Type-Options": "nosniff"})

    @app.get("/viewer/treeview.js", include_in_schema=False)
    async def viewer_treeview() -> Response:
        # the tree drawing the viewer shares with `craftbt render -f html` (craftbt/trees/treeview.js)
        return Response(treeview_script(), media_type="text/javascript", headers={"X-Content-Type-Options": "nosniff"})

    @app.get("/ws", include_in_schema=False, responses=answers(422, 426))
    async def events_over_http(since: int | None = Query(None, ge=0)) -> JSONResponse:
        """A plain GET of /ws: it speaks WebSocket only."""
        return JSONResponse({"error": "upgrade_required", "detail": "/ws is a WebSocket: connect with ws://"},
                            status_code=426, headers={"Upgrade": "websocket", "Connection": "Upgrade"})

    # -- MCP over streamable HTTP -----------------------------------------------------------------
    mcp_asgi = _TokenGate(sessions.handle_request, known)
    app.router.routes.append(Route("/mcp", endpoint=mcp_asgi, methods=["GET", "POST", "DELETE"]))

    @app.exception_handler(StarletteHTTPException)  # FastAPI's own 400 (a body it cannot parse) included
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        body = exc.detail if isinstance(exc.detail, dict) else {"error": str(exc.detail)}
        return JSONResponse(body, status_code=exc.status_code, headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        # the one error shape of every route (ErrorBody), with the located problems
        detail = json.loads(json.dumps(exc.errors(), default=str))
        for problem in detail:
            problem.pop("url", None)
        return JSONResponse({"error": "bad_request", "detail": detail}, status_code=422)

    install(app)
    app.add_middleware(AllowedMethods, routes=lambda: app.routes)
    app.add_middleware(TrustedHostMiddleware, allowed_hosts=hosts)
    app.add_middleware(BodyLimit, limit=max_body)
    return app


def _same_origin(websocket: WebSocket) -> bool:
    """A browser always sends Origin; other clients need not. A page of another site must not listen in."""
    origin = websocket.headers.get("origin")
    if origin is None:
        return True
    return urlsplit(origin).netloc == websocket.headers.get("host")


class _TokenGate:
    """An ASGI wrapper: /mcp answers 401 without a known bearer token; the token's client rides in the scope.

    Each tool then checks the client's scope (:meth:`~craftbt.serve.mcp_server.McpTools.call`).
    """

    def __init__(self, app: Any, tokens: Tokens) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers") or []}
        principal = self.tokens.lookup(headers.get("authorization"))
        scope[PRINCIPAL_KEY] = principal
        if principal is None:
            body = b'{"error":"unauthorized"}'
            await send({"type": "http.response.start", "status": 401, "headers": [
                (b"content-type", b"application/json"), (b"www-authenticate", b"Bearer")]})
            await send({"type": "http.response.body", "body": body})
            return
        await self.app(scope, receive, send)

