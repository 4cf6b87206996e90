"""MCP tasks (the ``io.modelcontextprotocol/tasks`` extension of the 2026-07-28 revision): call now, fetch later.

A client that names the extension in its per-request capabilities gets a task handle
(``resultType: "task"``) from ``run_goal``, ``run_tree`` and ``craftscript_run`` instead of a call
that blocks until the run ends; it polls ``tasks/get`` (the handle's ``pollIntervalMs``), which
carries the final ``CallToolResult`` once the run is done, and may ``tasks/cancel``. The task id is
the journal's run id. A client without the extension gets the blocking call (bounded by the server's
wall-time cap) and can poll ``get_run`` instead.

The SDK (``mcp`` 2.3.0) carries the extension's plumbing (extension result claims on the client,
extra request methods on the server) but not the extension itself; these are its wire shapes, used by
the server here, and :class:`TasksClient`, a client extension that polls a task to its end so that
``mcp.Client(..., extensions=[TasksClient()])`` runs a long goal without a call timing out (see
``docs/serve.md``). The 2025-11-25 revision's
in-core tasks are types-only in the SDK (never dispatched), so a client on the handshake era gets the
blocking call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Literal

import anyio
import mcp_types as types
from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
#: how often a client should poll a task (ms)
POLL_INTERVAL_MS = 500
#: how long a task stays readable after it was created (ms): the server keeps its runs in memory
TASK_TTL_MS = 24 * 3600 * 1000

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]


class Task(types.Result):
    """The extension's ``Task``: what every answer about a task carries."""

    task_id: str
    status: TaskStatus
    status_message: str | None = None
    created_at: str
    last_updated_at: str
    ttl_ms: int | None = TASK_TTL_MS
    poll_interval_ms: int | None = POLL_INTERVAL_MS


class TaskHandle(Task):
    """``CreateTaskResult``: answered to ``tools/call`` in lieu of the result (``resultType: "task"``)."""

    result_type: Literal["task"] = "task"


class TaskState(Task):
    """``GetTaskResult``: the task with, once ``completed``, the original call's ``CallToolResult``."""

    result_type: Literal["complete"] = "complete"
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None


class TaskIdParams(types.RequestParams):
    task_id: str


class GetTaskRequest(types.Request[TaskIdParams, Literal["tasks/get"]]):
    method: Literal["tasks/get"] = "tasks/get"
    params: TaskIdParams
    name_param = "taskId"


class CancelTaskRequest(types.Request[TaskIdParams, Literal["tasks/cancel"]]):
    method: Literal["tasks/cancel"] = "tasks/cancel"
    params: TaskIdParams
    name_param = "taskId"


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat().replace("+00:00", "Z")


def wants_tasks(capabilities: types.ClientCapabilities | None, protocol_version: str) -> bool:
    """Whether this request's client named the extension (only the 2026-07-28 wire carries a task handle)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    extensions = capabilities.extensions if capabilities is not None else None
    return protocol_version in MODERN_PROTOCOL_VERSIONS and bool(extensions) and TASKS_EXTENSION in (extensions or {})


@dataclass
class TaskRecord:
    """One task: its run, who started it, and how to render the final ``CallToolResult``."""

    task_id: str
    owner: str
    created_at: float
    #: (status, status message, ``CallToolResult`` once done) of the run now
    poll: Callable[[], Awaitable[tuple[TaskStatus, str, types.CallToolResult | None]]]
    updated_at: float = field(default=0.0)

    def handle(self) -> TaskHandle:
        return TaskHandle(task_id=self.task_id, status="working", status_message="queued",
                          created_at=iso(self.created_at), last_updated_at=iso(self.created_at))

    async def state(self) -> TaskState:
        status, message, result = await self.poll()
        result_json = result.model_dump(by_alias=True, mode="json", exclude_none=True) if result is not None else None
        return TaskState(task_id=self.task_id, status=status, status_message=message,
                         created_at=iso(self.created_at), last_updated_at=iso(self.updated_at or self.created_at),
                         result=result_json if status == "completed" else None)


class TaskFailed(RuntimeError):
    """A polled task ended ``failed`` or ``cancelled``; ``state`` is its last answer."""

    def __init__(self, state: TaskState) -> None:
        super().__init__(f"task {state.task_id} {state.status}: {state.status_message or ''}".rstrip(": "))
        self.state = state


async def poll_task(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
    """Poll ``tasks/get`` at the server's interval until the task ends; its ``CallToolResult`` when completed.

    The signature of a :class:`~mcp.client.extension.ResultClaim` resolver.
    """
    while True:
        state = await ctx.session.send_request(GetTaskRequest(params=TaskIdParams(task_id=handle.task_id)), TaskState)
        if state.status == "completed" and state.result is not None:
            return types.CallToolResult.model_validate(state.result)
        if state.status in ("failed", "cancelled"):
            raise TaskFailed(state)
        await anyio.sleep((state.poll_interval_ms or POLL_INTERVAL_MS) / 1000)


class TasksClient(ClientExtension):
    """For ``mcp.Client(extensions=[TasksClient()])``: a task handle is polled to its end, so ``call_tool`` of a
    long run answers the run's result as if it had waited, without one request waiting for minutes."""

    identifier = TASKS_EXTENSION

    def claims(self) -> Sequence[ResultClaim[Any]]:
        async def resolve(handle: TaskHandle, ctx: ClaimContext) -> types.CallToolResult:
            return await poll_task(handle, ctx)
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=resolve)]
