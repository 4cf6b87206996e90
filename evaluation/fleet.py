"""A fleet of bots sharing one queue of work: each bot a Ray actor with its own body, executor and journal.

Work items are goals (``"obtain stick"``, planned and run through the router) or tree files.
On the embedded world each bot has a world of its own (seed + bot index: the simulator holds
one player); on a server every bot joins the same server under its own name. Without Ray,
or with one worker, the bots take turns in this process, one item at a time.
"""

from __future__ import annotations

import os
import time
from collections import deque
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from craftbt.bot.body import BodyKind as BodyKind  # re-exported: a fleet names its body kind
from craftbt.bot.body import BodySpec
from craftbt.bot.bot import bot_for
from craftbt.core.errors import CraftbtError
from craftbt.core.extras import Extra, import_extra
from craftbt.executor.config import Bounds
from craftbt.router.priors import PriorsStore
from craftbt.trees.validate import validate_path

MAX_BOTS = 64


class FleetSpec(BaseModel):
    bots: int = Field(ge=1, le=MAX_BOTS)
    body: BodyKind = BodyKind.SIM
    seed: int = Field(default=0, ge=0, le=2**62)
    host: str = "127.0.0.1"
    port: int = Field(default=25565, ge=1, le=65535)
    version: str = "1.21.4"
    #: on a server, world-changing leaves run only inside a fence the user gives (fail-closed)
    geofence: Bounds | None = None
    max_ticks: int = Field(default=24_000, ge=1, le=10_000_000)


class WorkItem(BaseModel):
    kind: str  # "goal" | "tree"
    text: str


class ItemResult(BaseModel):
    bot: int
    item: WorkItem
    status: str
    run_id: str | None = None
    sim_ticks: int = 0
    wall_ms: float = 0.0
    #: dispatch to first body command of each step, from the bot's journal (ms)
    ttfa_ms: list[float] = Field(default_factory=list)
    reason: str | None = None


class Bot:
    """One bot: its body, executor and journal (under ``home``). Wrapped as a Ray actor by :func:`run_fleet`."""

    def __init__(self, spec_data: dict[str, Any], index: int, home: str) -> None:
        spec = FleetSpec.model_validate(spec_data)
        self.index = index
        if spec.body is BodyKind.SIM:
            body = BodySpec(world="starter", seed=spec.seed + index)
        else:
            body = BodySpec(body=BodyKind.MINEFLAYER, host=spec.host, port=spec.port, version=spec.version,
                            username=f"craftbt{index}")
        self.bot = bot_for(body, geofence=spec.geofence, home=Path(home) / f"bot{index}", max_ticks=spec.max_ticks,
                           priors=PriorsStore(":memory:"))
        self.body = self.bot.body
        self.executor = self.bot.executor

    def run_item(self, item_data: dict[str, Any]) -> dict[str, Any]:
        item = WorkItem.model_validate(item_data)
        started = time.perf_counter()
        try:
            if item.kind == "goal":
                goal_run = self.bot.run_goal(item.text)
                outcome = goal_run.outcomes[-1] if goal_run.outcomes else None
            else:
                checked = validate_path(item.text, self.executor.registry)
                checked.raise_for_problems()
                assert checked.definition is not None
                outcome = self.bot.run_tree(checked.definition, base_dir=Path(item.text).parent)
        except CraftbtError as err:
            return ItemResult(bot=self.index, item=item, status="error", reason=err.problems[0].message,
                              wall_ms=(time.perf_counter() - started) * 1000).model_dump(mode="json")
        if outcome is None:
            return ItemResult(bot=self.index, item=item, status="no_plan").model_dump(mode="json")
        steps = self.executor.journal.steps(outcome.run_id)
        return ItemResult(
            bot=self.index, item=item, status=outcome.status, run_id=outcome.run_id, sim_ticks=outcome.ticks,
            wall_ms=(time.perf_counter() - started) * 1000,
            ttfa_ms=[s.ttfa_ms for s in steps if s.ttfa_ms is not None],
        ).model_dump(mode="json")

    def work(self, queue: Any) -> list[dict[str, Any]]:
        """Take items from the shared queue until it is empty."""
        from ray.util.queue import Empty

        done: list[dict[str, Any]] = []
        while True:
            try:
                item = queue.get(block=False)
            except Empty:
                return done
            done.append(self.run_item(item))

    def pid(self) -> int:
        return os.getpid()

    def close(self) -> None:
        self.executor.journal.close()
        close = getattr(self.body, "close", None)
        if callable(close):
            close()


def run_fleet(spec: FleetSpec, items: list[WorkItem], home: Path, *, workers: int = 1) -> list[ItemResult]:
    """Run every item once on some bot; results in the order they finished."""
    if workers <= 1:
        return _run_here(spec, items, home)
    ray = import_extra("ray", Extra.EVAL, "a fleet on more than one worker")
    from ray.util.queue import Queue

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(num_cpus=max(workers, spec.bots), include_dashboard=False, log_to_driver=False,
                 _node_ip_address="127.0.0.1", configure_logging=False)
    actors: list[Any] = []
    try:
        queue = Queue()
        for item in items:
            queue.put(item.model_dump(mode="json"))
        remote_bot = ray.remote(num_cpus=0)(Bot)
        actors = [remote_bot.remote(spec.model_dump(mode="json"), i, str(home)) for i in range(spec.bots)]
        batches = ray.get([a.work.remote(queue) for a in actors])
        return [ItemResult.model_validate(r) for batch in batches for r in batch]
    finally:
        if actors:
            ray.get([a.close.remote() for a in actors])
            for actor in actors:
                ray.kill(actor)
        if started_here:
            ray.shutdown()


def _run_here(spec: FleetSpec, items: list[WorkItem], home: Path) -> list[ItemResult]:
    bots = [Bot(spec.model_dump(mode="json"), i, str(home)) for i in range(spec.bots)]
    try:
        queue = deque(items)
        results = []
        turn = 0
        while queue:  # the bots take turns, one item each
            results.append(ItemResult.model_validate(bots[turn % len(bots)].run_item(queue.popleft().model_dump())))
            turn += 1
        return results
    finally:
        for bot in bots:
            bot.close()
