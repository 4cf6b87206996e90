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

Resources: ``craftbt://manifest``, ``craftbt://schema/tree``, ``craftbt://runs/recent``.

The same :class:`McpTools` serves stdio (``craftbt mcp``) and streamable HTTP (``/mcp`` under
``craftbt serve``).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
from mcp.server import Server
from mcp.server.context import ServerRequestContext

from craftbt._version import __version__
from craftbt.core.errors import CraftbtError
from craftbt.craftscript.functions import FunctionStore, FunctionStoreError, store_path
from craftbt.craftscript.introspect import Introspection
from craftbt.craftscript.records import ScriptRuns, logs_view, trace_view
from craftbt.router.router import plan_for_goal
from craftbt.serve.bot import Bot, BusyError, CompileError, ExecuteRequest, Job, JobState
from craftbt.serve.compile import compile_tree
from craftbt.trees.paths import LIBRARY_DIR
from craftbt.trees.schema import tree_schema

#: how long a tool call waits for its run to end before answering with the run id (s)
RUN_WAIT_S = 300.0

Handler = Callable[[dict[str, Any]], Awaitable[Any]]


def _obj(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required or [], "additionalProperties": False}


_INT = {"type": "integer"}
_STR = {"type": "string"}
_BOOL = {"type": "boolean"}


@dataclass
class _ToolDef:
    tool: types.Tool
    handler: Handler


class ToolError(Exception):
    """Reported to the client as ``is_error`` with this payload."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__(payload.get("error", "error"))
        self.payload = payload


class McpTools:
    def __init__(self, bot: Bot) -> None:
        self.bot = bot
        self._intro: Introspection | None = None
        self.tools: dict[str, _ToolDef] = {}
        self._fixed()
        for spec in bot.registry.latest():
            if spec.name in self.tools:
                continue  # a fixed tool of the same name wins
            self._add(spec.name, f"[capability {spec.key}] {spec.description}", spec.args_schema(),
                      self._capability(spec.key), read_only=not spec.world_changing)

    # -- plumbing -----------------------------------------------------------------------------
    def _add(self, name: str, description: str, schema: dict[str, Any], handler: Handler, *,
             read_only: bool = False) -> None:
        tool = types.Tool(name=name, description=description, input_schema=schema,
                          annotations=types.ToolAnnotations(read_only_hint=read_only))
        self.tools[name] = _ToolDef(tool, handler)

    async def _on_worker(self, fn: Callable[[], Any]) -> Any:
        return await asyncio.wrap_future(self.bot.submit_call(fn))

    def _introspection(self) -> Introspection:
        if self._intro is None:  # built on the worker thread, like every body access
            self._intro = Introspection(self.bot.body)
        return self._intro

    async def _wait(self, job: Job, wait: bool) -> dict[str, Any]:
        if wait:
            await asyncio.to_thread(job.done.wait, RUN_WAIT_S)
        out = {"run_id": job.id, **job.summary()}
        if job.state is JobState.DONE and job.result is not None:
            out["outcome"] = job.result
        return out

    def _submit(self, fn: Callable[[], Job]) -> Job:
        try:
            return fn()
        except BusyError as err:
            raise ToolError({"error": "busy", "detail": "one run at a time; cancel it or wait",
                             "active": err.active}) from None
        except CompileError as err:
            raise ToolError({"error": "invalid", "problems": err.problems}) from None

    # -- capability tools -----------------------------------------------------------------------
    def _capability(self, key: str) -> Handler:
        async def call(args: dict[str, Any]) -> Any:
            job = self._submit(lambda: self.bot.submit_capability(key, args))
            out = await self._wait(job, True)
            detail = await asyncio.to_thread(self._steps, job.id)
            out["steps"] = detail
            return out
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

        async def get_status(args: dict[str, Any]) -> Any:
            return bot.status()

        async def validate_tree(args: dict[str, Any]) -> Any:
            checked = await asyncio.to_thread(compile_tree, args["tree"], bot.registry)
            return {"ok": checked.ok, "problems": [p.to_dict() for p in checked.problems]}

        async def run_tree(args: dict[str, Any]) -> Any:
            text = args.get("tree")
            if args.get("library") is not None:
                name = str(args["library"])
                if name not in shipped:
                    raise ToolError({"error": "unknown_library_tree", "shipped": shipped})
                text = (LIBRARY_DIR / f"{name}.yaml").read_text(encoding="utf-8")
            if text is None:
                raise ToolError({"error": "give tree (YAML/JSON text) or library (a shipped tree name)"})
            request = ExecuteRequest(tree=text, max_ticks=args.get("max_ticks"))
            job = self._submit(lambda: bot.submit(request))
            return await self._wait(job, args.get("wait", True))

        async def plan_goal(args: dict[str, Any]) -> Any:
            goal, planner = args["goal"], args.get("planner", "auto")

            def plan() -> Any:
                return plan_for_goal(goal, bot.body, planner=planner, registry=bot.registry, seed=bot.seed)
            decision = await self._on_worker(plan)
            out = decision.model_dump(mode="json", exclude={"plan"})
            tree = decision.plan.tree
            out["tree"] = tree.model_dump(mode="json", exclude_none=True) if tree is not None else None
            return out

        async def run_goal(args: dict[str, Any]) -> Any:
            request = ExecuteRequest(goal=args["goal"], planner=args.get("planner", "auto"),
                                     max_ticks=args.get("max_ticks"))
            job = self._submit(lambda: bot.submit(request))
            return await self._wait(job, args.get("wait", True))

        async def get_run(args: dict[str, Any]) -> Any:
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
            return {"job": job.summary() if job else None, "journal": detail}

        async def cancel_run(args: dict[str, Any]) -> Any:
            return {"cancelling": bot.cancel(str(args["run_id"]))}

        self._add("get_status", "The bot's position, health, food, inventory and the active run.", _obj({}),
                  get_status, read_only=True)
        self._add("validate_tree", "Check a tree (YAML or JSON text) against the capability registry.",
                  _obj({"tree": _STR}, ["tree"]), validate_tree, read_only=True)
        self._add("run_tree", "Run a tree (YAML/JSON text, or a shipped library tree by name) through the executor; "
                  f"waits for the end unless wait=false. Library: {', '.join(shipped)}.",
                  _obj({"tree": _STR, "library": {"type": "string", "enum": shipped}, "wait": _BOOL,
                        "max_ticks": {"type": "integer", "minimum": 1}}), run_tree)
        self._add("plan_goal", 'Plan a goal such as "obtain iron_pickaxe" from what the bot sees; runs nothing.',
                  _obj({"goal": _STR, "planner": {"type": "string", "enum": ["auto", "solver", "htn", "goap", "llm"]}},
                       ["goal"]), plan_goal, read_only=True)
        self._add("run_goal", "Plan a goal and run the plan through the executor.",
                  _obj({"goal": _STR, "planner": {"type": "string", "enum": ["auto", "solver", "htn", "goap", "llm"]},
                        "wait": _BOOL, "max_ticks": {"type": "integer", "minimum": 1}}, ["goal"]), run_goal)
        self._add("get_run", "A run's journal: steps with verdicts, actions, decisions.",
                  _obj({"run_id": _STR}, ["run_id"]), get_run, read_only=True)
        self._add("cancel_run", "Cancel the active run.", _obj({"run_id": _STR}, ["run_id"]), cancel_run)
        self._introspection_tools()
        self._craftscript_tools()

    def _introspection_tools(self) -> None:
        def reader(method: str) -> Handler:
            async def call(args: dict[str, Any]) -> Any:
                return await self._on_worker(lambda: getattr(self._introspection(), method)(**args))
            return call

        xyz = {"x": _INT, "y": _INT, "z": _INT}
        self._add("get_vox", "Blocks around the bot's feet (radius <= 8), optionally filtered by id (seed 004).",
                  _obj({"radius": {"type": "integer", "minimum": 0, "maximum": 8}, "include_air": _BOOL,
                        "grep": {"type": "array", "items": _STR}}), reader("get_vox"), read_only=True)
        self._add("affordances", "What is safely doable at a world position: stand, step, place faces, tool.",
                  _obj(xyz, ["x", "y", "z"]), reader("affordances"), read_only=True)
        self._add("nearest", "The nearest blocks or entities of a kind, with a reachability hint.",
                  _obj({"block_id": _STR, "entity_id": _STR, "radius": {"type": "integer", "minimum": 1,
                                                                        "maximum": 128},
                        "reachable": _BOOL, "limit": {"type": "integer", "minimum": 1, "maximum": 64}}),
                  reader("nearest"), read_only=True)
        self._add("block_info", "Facts about a block id, or about the block at x,y,z.",
                  _obj({"id": _STR, **xyz}), reader("block_info"), read_only=True)
        self._add("get_topography", "Surface heights and slopes around the bot (radius <= 16).",
                  _obj({"radius": {"type": "integer", "minimum": 1, "maximum": 16}}), reader("get_topography"),
                  read_only=True)

        async def nav(args: dict[str, Any]) -> Any:
            action = args["action"]
            if action == "start":
                target = args.get("target") or {}
                move = {"pos": {k: int(target[k]) for k in ("x", "y", "z")}, "range": float(args.get("tol", 1.0))}
                job = self._submit(lambda: self.bot.submit_capability("move_to", move))
                return {"nav_id": job.id, "state": "planning"}
            found = self.bot.jobs.get(str(args.get("nav_id")))
            if found is None:
                raise ToolError({"error": f"unknown nav_id {args.get('nav_id')!r}"})
            job = found
            if action == "cancel":
                self.bot.cancel(job.id)
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
                  nav)

    def _craftscript_tools(self) -> None:
        bot = self.bot

        async def run(args: dict[str, Any]) -> Any:
            request = ExecuteRequest(script=args["script"], max_ticks=args.get("max_ticks"))
            job = self._submit(lambda: bot.submit(request))
            return await self._wait(job, args.get("wait", True))

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

        async def logs(args: dict[str, Any]) -> Any:
            return logs_view(await script_payload(args))

        async def trace(args: dict[str, Any]) -> Any:
            return trace_view(await script_payload(args))

        def store_call(method: str, *names: str) -> Handler:
            async def call(args: dict[str, Any]) -> Any:
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
        self._add("craftscript_run", "Run a CraftScript program as a journalled run; waits unless wait=false.",
                  _obj({"script": _STR, "wait": _BOOL, "max_ticks": {"type": "integer", "minimum": 1}}, ["script"]),
                  run)
        self._add("craftscript_logs", "A CraftScript job's status, error and ordered logs, steps and block changes.",
                  _obj({"job_id": _STR}, ["job_id"]), logs, read_only=True)
        self._add("craftscript_trace", "A CraftScript job's block modifications and movement (goto) traces.",
                  _obj({"job_id": _STR}, ["job_id"]), trace, read_only=True)
        self._add("create_craftscript_function", "Define a persistent, versioned CraftScript function.",
                  _obj({"name": _STR, "body": _STR, "description": _STR, "args": arg_list}, ["name", "body"]),
                  store_call("create", "name", "body"))
        self._add("edit_craftscript_function", "Update a function's body (a new version).",
                  _obj({"name": _STR, "body": _STR, "change_summary": _STR, "args": arg_list}, ["name", "body"]),
                  store_call("edit", "name", "body"))
        self._add("delete_craftscript_function", "Remove a function and all its versions.",
                  _obj({"name": _STR}, ["name"]), store_call("delete", "name"))
        self._add("list_craftscript_functions", "List the bot's functions.", _obj({}), store_call("list"),
                  read_only=True)
        self._add("get_craftscript_function", "A function's details and current body.",
                  _obj({"name": _STR}, ["name"]), store_call("get", "name"), read_only=True)
        self._add("list_function_versions", "A function's version history.",
                  _obj({"name": _STR, "limit": {"type": "integer", "minimum": 1}}, ["name"]),
                  store_call("versions", "name"), read_only=True)

    # -- dispatch -------------------------------------------------------------------------------
    async def call(self, name: str, args: dict[str, Any]) -> types.CallToolResult:
        entry = self.tools.get(name)
        if entry is None:
            return _result({"error": "unknown_tool", "tool": name}, error=True)
        try:
            value = await entry.handler(args)
        except ToolError as err:
            return _result(err.payload, error=True)
        except CraftbtError as err:  # a goal no planner can reach, an unknown capability, ...
            return _result({"error": err.problems[0].code.value, "problems": [p.to_dict() for p in err.problems]},
                           error=True)
        except (TypeError, ValueError, KeyError) as err:
            return _result({"error": "bad_arguments", "detail": f"{type(err).__name__}: {err}"}, error=True)
        error = isinstance(value, dict) and (value.get("ok") is False or (
            isinstance(value.get("outcome"), dict) and value["outcome"].get("ok") is False))
        return _result(value, error=error)

    # -- resources ------------------------------------------------------------------------------
    RESOURCES = {
        "craftbt://manifest": ("manifest", "The capability registry's manifest (names, versions, JSON Schemas)."),
        "craftbt://schema/tree": ("tree-schema", "The JSON Schema of a tree file for this registry."),
        "craftbt://runs/recent": ("recent-runs", "The 20 most recent runs in the journal."),
    }

    def read_resource(self, uri: str) -> Any:
        if uri == "craftbt://manifest":
            return self.bot.registry.manifest()
        if uri == "craftbt://schema/tree":
            return tree_schema(self.bot.registry)
        if uri == "craftbt://runs/recent":
            journal = self.bot.journal()
            try:
                return journal.list_runs(20)
            finally:
                journal.close()
        raise ValueError(f"unknown resource {uri}")


def _result(value: Any, *, error: bool = False) -> types.CallToolResult:
    text = json.dumps(value, default=str)
    structured = value if isinstance(value, dict) else {"result": value}
    return types.CallToolResult(content=[types.TextContent(text=text)],
                                structured_content=json.loads(text) if isinstance(value, dict) else structured,
                                is_error=error)


def build_server(tools: McpTools) -> Server[Any]:
    """The SDK's low-level server, its handlers bound to ``tools``."""

    async def list_tools(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                         ) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[t.tool for t in tools.tools.values()])

    async def call_tool(ctx: ServerRequestContext[Any], params: types.CallToolRequestParams) -> types.CallToolResult:
        return await tools.call(params.name, dict(params.arguments or {}))

    async def list_resources(ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
                             ) -> types.ListResourcesResult:
        return types.ListResourcesResult(resources=[
            types.Resource(uri=uri, name=name, description=desc, mime_type="application/json")
            for uri, (name, desc) in McpTools.RESOURCES.items()])

    async def read_resource(ctx: ServerRequestContext[Any], params: types.ReadResourceRequestParams
                            ) -> types.ReadResourceResult:
        uri = str(params.uri)
        value = await asyncio.to_thread(tools.read_resource, uri)
        return types.ReadResourceResult(contents=[
            types.TextResourceContents(uri=uri, mime_type="application/json", text=json.dumps(value, default=str))])

    return Server("craftbt", version=__version__,
                  instructions="A Minecraft bot driven through a capability registry and behaviour trees. "
                               "Every tool call goes through the executor's pipeline and lands in the journal.",
                  on_list_tools=list_tools, on_call_tool=call_tool, on_list_resources=list_resources,
                  on_read_resource=read_resource)
