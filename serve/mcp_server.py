"""The MCP server (official SDK, low-level ``Server``): the bot's tools and resources for LLM agents.

Tools:

* one per capability of the live registry (latest version), its input schema the capability's JSON
  Schema. A call is a one-leaf tree run by the executor, so it takes the same pipeline as any tree:
  permission profile, geofence, guards, acceptance checks, the journal;
* ``run_tree``, ``plan_goal``, ``validate_tree``, ``get_status``, ``get_run``, ``cancel_run``;
* seed 004's introspection calls ``get_vox``, ``affordances``, ``nearest``, ``block_info``,
  ``get_topography`` (read-only, run on the bot's thread between ticks) and ``nav``, whose ``start``
  runs the ``move_to`` capability through the pipeline in the background;
* CraftScript: ``craftscript_run``, ``craftscript_logs``, ``craftscript_trace`` and the six function tools of
  seed 004.

Every tool declares an output schema (JSON Schema 2020-12, :mod:`craftbt.serve.mcp_results`) and
answers ``structuredContent`` that fits it: a capability call carries the step's outcome, its
verdict and evidence and the journal's run and step ids. Each tool names the scope it needs
(:mod:`craftbt.serve.access`), and a world-changing one the permission profile and geofence it acts
under. ``run_goal``, ``run_tree`` and ``craftscript_run`` answer a task handle to a client of the
tasks extension (:mod:`craftbt.serve.mcp_tasks`). Every run is bounded by the server's tick and
wall-time caps and by its client's limits.

Resources: ``craftbt://manifest``, ``craftbt://schema/tree``, ``craftbt://runs/recent``,
``craftbt://runs/{run_id}``, ``craftbt://sla``.

The same :class:`McpTools` serves stdio (``craftbt mcp``, one local client: ``admin`` unless
``--scope`` says less) and streamable HTTP (``/mcp`` under ``craftbt serve``, the bearer token's client).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS

from craftbt._version import __version__
from craftbt.capabilities.spec import Permission
from craftbt.core.errors import CraftbtError
from craftbt.craftscript.functions import FunctionStore, FunctionStoreError, store_path
from craftbt.craftscript.introspect import Introspection
from craftbt.craftscript.records import ScriptRuns, logs_view, trace_view
from craftbt.executor.sla import build_report
from craftbt.router.router import plan_for_goal
from craftbt.serve.access import LOCAL_ADMIN, AccessError, Principal, Runs, Scope, ServiceLimits, forbidden
from craftbt.serve.bot import Bot, BusyError, CompileError, ExecuteRequest, Job, JobState
from craftbt.serve.compile import compile_tree
from craftbt.serve.mcp_results import ANY_OBJECT, CAPABILITY_RESULT, RUN_RESULT, capability_result, run_result
from craftbt.serve.mcp_tasks import (
    TASKS_EXTENSION,
    TaskHandle,
    TaskIdParams,
    TaskRecord,
    TaskState,
    TaskStatus,
    wants_tasks,
)
from craftbt.trees.paths import LIBRARY_DIR
from craftbt.trees.schema import tree_schema

#: how long a tool call waits for its run to end before answering with the run id (s)
RUN_WAIT_S = 300.0
#: principal key in an ASGI scope: the /mcp gate puts the bearer token's client there for the tools
PRINCIPAL_KEY = "craftbt.principal"


@dataclass(frozen=True)
class Call:
    """Who calls a tool, and whether their client takes a task handle in lieu of a long wait."""

    principal: Principal
    tasks: bool = False


Handler = Callable[[dict[str, Any], Call], Awaitable[Any]]


def _obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or [], "additionalProperties": False}


_INT = {"type": "integer"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}


@dataclass
class _ToolDef:
    tool: types.Tool
    handler: Handler
    scope: Scope


class ToolError(Exception):
    """Reported to the client as ``is_error`` with this payload."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload.get("error", "error"))
        self.payload = payload


class McpTools:
    def __init__(self, bot: Bot, *, runs: Runs | None = None, principal: Principal = LOCAL_ADMIN) -> None:
        self.bot = bot
        self.runs = runs or Runs(bot, ServiceLimits(max_ticks=bot.config.max_ticks))
        #: the client of a call that carries none (stdio: the user who started the process)
        self.principal = principal
        self._intro: Introspection | None = None
        self.tools: dict[str, _ToolDef] = {}
        self.tasks: dict[str, TaskRecord] = {}
        self._fixed()
        for spec in bot.registry.latest():
            if spec.name in self.tools:
                continue  # a fixed tool of the same name wins
            # every capability call is a run on the bot (it takes the one run slot): scope act, even for a sensor
            self._add(spec.name, f"[capability {spec.key}] {spec.description}", spec.args_schema(),
                      self._capability(spec.key), scope=Scope.ACT, output=CAPABILITY_RESULT,
                      world=bool(spec.permissions - {Permission.SENSE}), destructive=spec.world_changing)

    # -- plumbing -----------------------------------------------------------------------------
    def _bounds(self) -> str:
        """The permission profile and geofence a world-changing tool acts under, for its description."""
        config = self.bot.config
        fence = config.geofence
        where = (f"geofence x {fence.min_x}..{fence.max_x}, y {fence.min_y}..{fence.max_y}, z {fence.min_z}.."
                 f"{fence.max_z}" if fence is not None else "no geofence: world-changing leaves are refused")
        return f"permission profile {config.profile!r}; {where}"

    def _add(self, name: str, description: str, schema: dict[str, Any], handler: Handler, *,
             scope: Scope = Scope.READ, output: dict[str, Any] = ANY_OBJECT, world: bool = False,
             destructive: bool | None = None) -> None:
        """Register a tool; ``world``: it moves or changes the bot or the world (named with its bounds)."""
        limits = self.runs.limits
        notes = [f"Needs scope {scope.label}."]
        if world:
            notes.append(f"Acts under {self._bounds()}; a run is capped at {limits.max_ticks} ticks and "
                         f"{limits.max_wall_s:g} s.")
        tool = types.Tool(name=name, description=f"{description} {' '.join(notes)}", input_schema=schema,
                          output_schema=output,
                          annotations=types.ToolAnnotations(read_only_hint=not world and scope is Scope.READ,
                                                            destructive_hint=destructive if world else None))
        self.tools[name] = _ToolDef(tool, handler, scope)

    async def _on_worker(self, fn: Callable[[], Any]) -> Any:
        return await asyncio.wrap_future(self.bot.submit_call(fn))

    def _introspection(self) -> Introspection:
        if self._intro is None:  # built on the worker thread, like every body access
            self._intro = Introspection(self.bot.body)
        return self._intro

    def _wait_s(self) -> float:
        return min(RUN_WAIT_S, self.runs.limits.max_wall_s + 5)

    async def _run_answer(self, job: Job) -> dict[str, Any]:
        steps = await asyncio.to_thread(self._steps, job.id)
        return run_result(job, steps, self.runs.owner(job.id))

    async def _finish(self, job: Job, call: Call, wait: bool, render: Callable[[Job], Awaitable[dict[str, Any]]],
                      ) -> Any:
        """A run's answer: a task handle for a tasks client, else its result after waiting (bounded)."""
        if call.tasks and wait:
            return self._task(job, call, render)
        if wait:
            await asyncio.to_thread(job.done.wait, self._wait_s())
        return await render(job)

    def _task(self, job: Job, call: Call, render: Callable[[Job], Awaitable[dict[str, Any]]]) -> TaskRecord:
        async def poll() -> tuple[TaskStatus, str, types.CallToolResult | None]:
            if job.state is not JobState.DONE:
                return "working", job.state.value, None
            record.updated_at = job.ended_at or time.time()
            value = await render(job)
            status = (job.result or {}).get("status")
            if status == "cancelled":
                return "cancelled", f"cancelled ({job.cancel_reason or 'by the client'})", None
            return "completed", str(status), _result(value, error=value.get("ok") is False)

        record = TaskRecord(task_id=job.id, owner=call.principal.name, created_at=job.created_at, poll=poll)
        self.tasks[job.id] = record
        return record

    def _start(self, call: Call, submit: Callable[[int | None], Job], max_ticks: Any = None) -> Job:
        try:
            return self.runs.start(call.principal, submit, int(max_ticks) if max_ticks is not None else None)
        except BusyError as err:
            raise ToolError({"error": "busy", "detail": "one run at a time; cancel it or wait",
                             "active": err.active}) from None
        except CompileError as err:
            raise ToolError({"error": "invalid", "problems": err.problems}) from None
        except AccessError as err:
            raise ToolError(err.payload()) from None

    # -- capability tools -----------------------------------------------------------------------
    def _capability(self, key: str) -> Handler:
        async def render(job: Job) -> dict[str, Any]:
            steps = await asyncio.to_thread(self._steps, job.id)
            return capability_result(key, job, steps, self.runs.owner(job.id))

        async def call(args: dict[str, Any], who: Call) -> Any:
            job = self._start(who, lambda ticks: self.bot.submit_capability(key, args, ticks))
            return await self._finish(job, Call(who.principal), True, render)
        return call

    def _steps(self, run_id: str) -> list[dict[str, Any]]:
        journal = self.bot.journal()
        try:
            steps: list[dict[str, Any]] = journal.run_detail(run_id).get("steps", [])
        except KeyError:
            return []
        finally:
            journal.close()
        return steps

    # -- the fixed tools ------------------------------------------------------------------------
    def _fixed(self) -> None:
        bot = self.bot
        shipped = sorted(p.stem for p in LIBRARY_DIR.glob("*.yaml"))

        async def get_status(args: dict[str, Any], who: Call) -> Any:
            return bot.status()

        async def validate_tree(args: dict[str, Any], who: Call) -> Any:
            checked = await asyncio.to_thread(compile_tree, args["tree"], bot.registry)
            return {"ok": checked.ok, "problems": [p.to_dict() for p in checked.problems]}

        def run_with(request: Callable[[int | None], ExecuteRequest]) -> Callable[[dict[str, Any], Call], Any]:
            async def start(args: dict[str, Any], who: Call) -> Any:
                job = self._start(who, lambda ticks: bot.submit(request(ticks)), args.get("max_ticks"))
                return await self._finish(job, who, args.get("wait", True), self._run_answer)
            return start

        async def run_tree(args: dict[str, Any], who: Call) -> Any:
            text = args.get("tree")
            if args.get("library") is not None:
                name = str(args["library"])
                if name not in shipped:
                    raise ToolError({"error": "unknown_library_tree", "shipped": shipped})
                text = (LIBRARY_DIR / f"{name}.yaml").read_text(encoding="utf-8")
            if text is None:
                raise ToolError({"error": "give tree (YAML/JSON text) or library (a shipped tree name)"})
            return await run_with(lambda ticks: ExecuteRequest(tree=text, max_ticks=ticks))(args, who)

        async def plan_goal(args: dict[str, Any], who: Call) -> Any:
            goal, planner = args["goal"], args.get("planner", "auto")

            def plan() -> Any:
                return plan_for_goal(goal, bot.body, planner=planner, registry=bot.registry, seed=bot.seed)
            decision = await self._on_worker(plan)
            out = decision.model_dump(mode="json", exclude={"plan"})
            tree = decision.plan.tree
            out["tree"] = tree.model_dump(mode="json", exclude_none=True) if tree is not None else None
            return out

        async def run_goal(args: dict[str, Any], who: Call) -> Any:
            return await run_with(lambda ticks: ExecuteRequest(goal=args["goal"], planner=args.get("planner", "auto"),
                                                               max_ticks=ticks))(args, who)

        async def get_run(args: dict[str, Any], who: Call) -> Any:
            run_id = str(args["run_id"])
            job = bot.jobs.get(run_id)

            def read() -> Any:
                journal = bot.journal()
                try:
                    return journal.run_detail(run_id)
                except KeyError:
                    return None
                finally:
                    journal.close()
            detail = await asyncio.to_thread(read)
            if detail is None and job is None:
                raise ToolError({"error": "unknown_run", "run_id": run_id})
            return {"job": job.summary() if job else None, "owner": self.runs.owner(run_id), "journal": detail}

        async def cancel_run(args: dict[str, Any], who: Call) -> Any:
            try:
                return {"cancelling": self.runs.cancel(who.principal, str(args["run_id"]))}
            except AccessError as err:
                raise ToolError(err.payload()) from None

        planners = {"type": "string", "enum": ["auto", "solver", "htn", "goap", "llm"]}
        ticks = {"type": "integer", "minimum": 1, "maximum": self.runs.limits.max_ticks}
        self._add("get_status", "The bot's position, health, food, inventory and the active run.", _obj({}),
                  get_status)
        self._add("validate_tree", "Check a tree (YAML or JSON text) against the capability registry.",
                  _obj({"tree": _STR}, ["tree"]), validate_tree)
        self._add("run_tree", "Run a tree (YAML/JSON text, or a shipped library tree by name) through the executor; "
                  "waits for the end unless wait=false (a client of the tasks extension gets a task). "
                  f"Library: {', '.join(shipped)}.",
                  _obj({"tree": _STR, "library": {"type": "string", "enum": shipped}, "wait": _BOOL,
                        "max_ticks": ticks}), run_tree,
                  scope=Scope.ACT, output=RUN_RESULT, world=True, destructive=True)
        self._add("plan_goal", 'Plan a goal such as "obtain iron_pickaxe" from what the bot sees; runs nothing.',
                  _obj({"goal": _STR, "planner": planners}, ["goal"]), plan_goal)
        self._add("run_goal", "Plan a goal and run the plan through the executor; waits for the end unless "
                  "wait=false (a client of the tasks extension gets a task).",
                  _obj({"goal": _STR, "planner": planners, "wait": _BOOL, "max_ticks": ticks}, ["goal"]), run_goal,
                  scope=Scope.ACT, output=RUN_RESULT, world=True, destructive=True)
        self._add("get_run", "A run's journal: steps with verdicts, actions, decisions.",
                  _obj({"run_id": _STR}, ["run_id"]), get_run)
        self._add("cancel_run", "Cancel the active run (another client's run needs scope admin).",
                  _obj({"run_id": _STR}, ["run_id"]), cancel_run, scope=Scope.ACT)
        self._introspection_tools()
        self._craftscript_tools(run_with)

    def _introspection_tools(self) -> None:
        def reader(method: str) -> Handler:
            async def call(args: dict[str, Any], who: Call) -> Any:
                return await self._on_worker(lambda: getattr(self._introspection(), method)(**args))
            return call

        xyz = {"x": _INT, "y": _INT, "z": _INT}
        self._add("get_vox", "Blocks around the bot's feet (radius <= 8), optionally filtered by id (seed 004).",
                  _obj({"radius": {"type": "integer", "minimum": 0, "maximum": 8}, "include_air": _BOOL,
                        "grep": {"type": "array", "items": _STR}}), reader("get_vox"))
        self._add("affordances", "What is safely doable at a world position: stand, step, place faces, tool.",
                  _obj(xyz, ["x", "y", "z"]), reader("affordances"))
        self._add("nearest", "The nearest blocks or entities of a kind, with a reachability hint.",
                  _obj({"block_id": _STR, "entity_id": _STR, "radius": {"type": "integer", "minimum": 1,
                                                                        "maximum": 128},
                        "reachable": _BOOL, "limit": {"type": "integer", "minimum": 1, "maximum": 64}}),
                  reader("nearest"))
        self._add("block_info", "Facts about a block id, or about the block at x,y,z.",
                  _obj({"id": _STR, **xyz}), reader("block_info"))
        self._add("get_topography", "Surface heights and slopes around the bot (radius <= 16).",
                  _obj({"radius": {"type": "integer", "minimum": 1, "maximum": 16}}), reader("get_topography"))

        async def nav(args: dict[str, Any], who: Call) -> Any:
            action = args["action"]
            if action == "start":
                target = args.get("target") or {}
                move = {"pos": {k: int(target[k]) for k in ("x", "y", "z")}, "range": float(args.get("tol", 1.0))}
                job = self._start(who, lambda ticks: self.bot.submit_capability("move_to", move, ticks))
                return {"nav_id": job.id, "state": "planning"}
            found = self.bot.jobs.get(str(args.get("nav_id")))
            if found is None:
                raise ToolError({"error": f"unknown nav_id {args.get('nav_id')!r}"})
            job = found
            if action == "cancel":
                try:
                    self.runs.cancel(who.principal, job.id)
                except AccessError as err:
                    raise ToolError(err.payload()) from None
                await asyncio.to_thread(job.done.wait, 30)
            status = (job.result or {}).get("status")
            state = {"success": "arrived", "cancelled": "canceled", None: "moving"}.get(status, "failed")
            return {"nav_id": job.id, "state": state, "run_status": status, "position": self.bot.snapshot.get(
                "position")}

        self._add("nav", "Navigation (seed 004): start runs move_to through the executor in the background; "
                  "status and cancel take its nav_id.",
                  _obj({"action": {"type": "string", "enum": ["start", "status", "cancel"]},
                        "target": _obj({"type": _STR, **xyz}, ["x", "y", "z"]),
                        "tol": {"type": "number", "minimum": 0.5, "maximum": 16}, "nav_id": _STR}, ["action"]),
                  nav, scope=Scope.ACT, world=True, destructive=False)

    def _craftscript_tools(self, run_with: Callable[[Callable[[int | None], ExecuteRequest]],
                                                    Callable[[dict[str, Any], Call], Any]]) -> None:
        bot = self.bot

        async def run(args: dict[str, Any], who: Call) -> Any:
            return await run_with(lambda ticks: ExecuteRequest(script=args["script"], max_ticks=ticks))(args, who)

        async def script_payload(args: dict[str, Any]) -> dict[str, Any]:
            """A job's script result: this server's own job, else any script run kept in ``--home``."""
            job_id = str(args["job_id"])
            job = bot.jobs.get(job_id)
            script = (job.result or {}).get("script") if job is not None else None
            if script:
                return {**script, "run_id": job_id}

            def read() -> dict[str, Any] | None:
                records = ScriptRuns(store_path(bot.home), read_only=True)
                try:
                    return records.payload(job_id)
                finally:
                    records.close()
            kept = await asyncio.to_thread(read)
            if kept is not None:
                return kept
            if job is None:
                raise ToolError({"error": "unknown_job", "job_id": args["job_id"]})
            return {"run_id": job.id, "status": job.state.value}  # still queued or running

        async def logs(args: dict[str, Any], who: Call) -> Any:
            return logs_view(await script_payload(args))

        async def trace(args: dict[str, Any], who: Call) -> Any:
            return trace_view(await script_payload(args))

        def store_call(method: str, *names: str) -> Handler:
            async def call(args: dict[str, Any], who: Call) -> Any:
                def work() -> Any:
                    store = FunctionStore(bot.body.name, store_path(bot.home))
                    try:
                        positional = [args[n] for n in names if n in args]
                        extra = {k: v for k, v in args.items() if k not in names}
                        return getattr(store, method)(*positional, **extra)
                    except FunctionStoreError as err:
                        raise ToolError({"ok": False, "error": err.code, "message": err.message,
                                         "loc": err.loc.as_dict() if err.loc else None}) from None
                    finally:
                        store.close()
                return await asyncio.to_thread(work)
            return call

        arg_list = {"type": "array", "items": {"type": "object"}}
        ticks = {"type": "integer", "minimum": 1, "maximum": self.runs.limits.max_ticks}
        self._add("craftscript_run", "Run a CraftScript program as a journalled run; waits unless wait=false (a "
                  "client of the tasks extension gets a task).",
                  _obj({"script": _STR, "wait": _BOOL, "max_ticks": ticks}, ["script"]), run, scope=Scope.ACT,
                  output=RUN_RESULT, world=True, destructive=True)
        self._add("craftscript_logs", "A CraftScript job's status, error and ordered logs, steps and block changes.",
                  _obj({"job_id": _STR}, ["job_id"]), logs)
        self._add("craftscript_trace", "A CraftScript job's block modifications and movement (goto) traces.",
                  _obj({"job_id": _STR}, ["job_id"]), trace)
        self._add("create_craftscript_function", "Define a persistent, versioned CraftScript function.",
                  _obj({"name": _STR, "body": _STR, "description": _STR, "args": arg_list}, ["name", "body"]),
                  store_call("create", "name", "body"), scope=Scope.ADMIN)
        self._add("edit_craftscript_function", "Update a function's body (a new version).",
                  _obj({"name": _STR, "body": _STR, "change_summary": _STR, "args": arg_list}, ["name", "body"]),
                  store_call("edit", "name", "body"), scope=Scope.ADMIN)
        self._add("delete_craftscript_function", "Remove a function and all its versions.",
                  _obj({"name": _STR}, ["name"]), store_call("delete", "name"), scope=Scope.ADMIN)
        self._add("list_craftscript_functions", "List the bot's functions.", _obj({}), store_call("list"))
        self._add("get_craftscript_function", "A function's details and current body.",
                  _obj({"name": _STR}, ["name"]), store_call("get", "name"))
        self._add("list_function_versions", "A function's version history.",
                  _obj({"name": _STR, "limit": {"type": "integer", "minimum": 1}}, ["name"]),
                  store_call("versions", "name"))

    # -- dispatch -------------------------------------------------------------------------------
    async def call(self, name: str, args: dict[str, Any], call: Call | None = None
                   ) -> types.CallToolResult | TaskRecord:
        """Run a tool for ``call``'s client (default: this server's local client); a task for a tasks client."""
        who = call or Call(self.principal)
        entry = self.tools.get(name)
        if entry is None:
            return _result({"error": "unknown_tool", "tool": name}, error=True)
        if not who.principal.allows(entry.scope):
            return _result(forbidden(who.principal, entry.scope, f"tool {name}").payload(), error=True)
        try:
            value = await entry.handler(args, who)
        except ToolError as err:
            return _result(err.payload, error=True)
        except CraftbtError as err:  # a goal no planner can reach, an unknown capability, ...
            return _result({"error": err.problems[0].code.value, "problems": [p.to_dict() for p in err.problems]},
                           error=True)
        except (TypeError, ValueError, KeyError) as err:
            return _result({"error": "bad_arguments", "detail": f"{type(err).__name__}: {err}"}, error=True)
        if isinstance(value, TaskRecord):
            return value
        error = isinstance(value, dict) and (value.get("ok") is False or (
            isinstance(value.get("outcome"), dict) and value["outcome"].get("ok") is False))
        return _result(value, error=error)

    async def task_state(self, task_id: str, principal: Principal) -> TaskState:
        record = self.tasks.get(task_id)
        if record is None:
            raise ToolError({"error": "unknown_task", "task_id": task_id})
        return await record.state()

    async def cancel_task(self, task_id: str, principal: Principal) -> None:
        if task_id not in self.tasks:
            raise ToolError({"error": "unknown_task", "task_id": task_id})
        try:
            self.runs.cancel(principal, task_id)
        except AccessError as err:
            raise ToolError(err.payload()) from None

    # -- resources ------------------------------------------------------------------------------
    RESOURCES = {
        "craftbt://manifest": ("manifest", "The capability registry's manifest (names, versions, JSON Schemas)."),
        "craftbt://schema/tree": ("tree-schema", "The JSON Schema of a tree file for this registry."),
        "craftbt://runs/recent": ("recent-runs", "The 20 most recent runs in the journal."),
        "craftbt://sla": ("sla", "The SLA report: per-capability success, latency and verdict counts."),
    }
    RUN_TEMPLATE = "craftbt://runs/{run_id}"

    def read_resource(self, uri: str) -> Any:
        if uri == "craftbt://manifest":
            return self.bot.registry.manifest()
        if uri == "craftbt://schema/tree":
            return tree_schema(self.bot.registry)
        journal = self.bot.journal()
        try:
            if uri == "craftbt://runs/recent":
                return journal.list_runs(20)
            if uri == "craftbt://sla":
                return build_report(journal)
            if uri.startswith("craftbt://runs/"):
                run_id = uri.removeprefix("craftbt://runs/")
                try:
                    return journal.run_detail(run_id)
                except KeyError:
                    raise ValueError(f"unknown run {run_id}") from None
        finally:
            journal.close()
        raise ValueError(f"unknown resource {uri}")


def _result(value: Any, *, error: bool = False) -> types.CallToolResult:
    text = json.dumps(value, default=str)
    structured = value if isinstance(value, dict) else {"result": value}
    return types.CallToolResult(content=[types.TextContent(text=text)],
                                structured_content=json.loads(text) if isinstance(value, dict) else structured,
                                is_error=error)


def principal_of(ctx: ServerRequestContext[Any], tools: McpTools) -> Principal:
    """The client of a request: the bearer token's (the /mcp gate put it in the ASGI scope), else the local one."""
    request = ctx.request
    scope = getattr(request, "scope", None)
    found = scope.get(PRINCIPAL_KEY) if isinstance(scope, dict) else None
    return found if isinstance(found, Principal) else tools.principal


def build_server(tools: McpTools) -> Server[Any]:
    """The SDK's low-level server, its handlers bound to ``tools``, with the tasks extension."""

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[t.tool for t in tools.tools.values()])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
                        ) -> types.CallToolResult | TaskHandle:
        call = Call(principal_of(ctx, tools), tasks=wants_tasks(ctx.session.client_capabilities, ctx.protocol_version))
        answer = await tools.call(params.name, dict(params.arguments or {}), call)
        return answer.handle() if isinstance(answer, TaskRecord) else answer

    async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=name, description=desc, mime_type="application/json")
            for uri, (name, desc) in McpTools.RESOURCES.items()])

    async def list_templates(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourceTemplatesResult:
        return types.ListResourceTemplatesResult(resource_templates=[types.ResourceTemplate(
            uri_template=McpTools.RUN_TEMPLATE, name="run", mime_type="application/json",
            description="One run of the journal: steps with verdicts and evidence, actions, decisions.")])

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        uri = str(params.uri)
        try:
            value = await asyncio.to_thread(tools.read_resource, uri)
        except ValueError as err:
            raise MCPError(INVALID_PARAMS, str(err), {"uri": uri}) from None
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, mime_type="application/json", text=json.dumps(value, default=str))])

    async def get_task(ctx: ServerRequestContext[Any], params: TaskIdParams) -> TaskState:
        try:
            return await tools.task_state(params.task_id, principal_of(ctx, tools))
        except ToolError as err:
            raise MCPError(INVALID_PARAMS, str(err), err.payload) from None

    async def cancel_task(ctx: ServerRequestContext[Any], params: TaskIdParams) -> dict[str, Any]:
        try:
            await tools.cancel_task(params.task_id, principal_of(ctx, tools))
        except ToolError as err:
            raise MCPError(INVALID_PARAMS, str(err), err.payload) from None
        return {}

    server: Server[Any] = Server(
        "craftbt", version=__version__,
        instructions="A Minecraft bot driven through a capability registry and behaviour trees. Every tool call goes "
                     "through the executor's pipeline and lands in the journal; a capability tool answers the "
                     "step's verdict (verified, inconclusive, contradicted) and evidence.",
        on_list_tools=list_tools, on_list_resources=list_resources, on_list_resource_templates=list_templates,
        on_read_resource=read_resource)
    # tools/call may answer a task handle (the extension's resultType "task"), which on_call_tool's type leaves out
    server.add_request_handler("tools/call", types.CallToolRequestParams, call_tool)
    server.add_request_handler("tasks/get", TaskIdParams, get_task)
    server.add_request_handler("tasks/cancel", TaskIdParams, cancel_task)
    server.extensions[TASKS_EXTENSION] = {}
    return server
