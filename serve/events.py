"""The event hub: the bot's worker thread publishes, every WebSocket client gets its own queue.

Events are numbered (``seq``) and the last :data:`HISTORY` of them are kept, so a client that
reconnects with ``?since=SEQ`` gets what it missed instead of losing it. Publishing never blocks
the worker: a client whose queue is full is told it lagged (a ``lagged`` event with the first
missing ``seq``) and can replay from the history or read the journal.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

#: events kept for replay after a reconnect
HISTORY = 5000
#: events buffered per client before it is marked as lagging
QUEUE_SIZE = 10_000


class EventType(StrEnum):
    """The seed's four events, plus the tree viewer's own."""

    BOT_EVENT = "botEvent"  # position, health, food, inventory changed
    PLAN_GENERATED = "planGenerated"  # a goal was planned: chosen planner, reason, candidates
    EXECUTION_STARTED = "executionStarted"
    EXECUTION_COMPLETE = "executionComplete"  # a run ended: status, run id, failures
    SAFETY_EMERGENCY = "safety_emergency"  # a safety signal preempted (or was deferred by) the goal tree
    TREE = "tree"  # the structure of the tree that started ticking
    TICK = "tick"  # node statuses that changed this tick, the current leaf, the blackboard when it changed
    DECISION = "decision"  # an executor decision (retry, block, escalation, ...)
    SIGNAL = "signal"  # an outside suggestion and the thought filter's verdict
    LAGGED = "lagged"


@dataclass
class _Subscriber:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[dict[str, Any]]
    lagged_from: int | None = None


@dataclass
class EventHub:
    history: deque[dict[str, Any]] = field(default_factory=lambda: deque(maxlen=HISTORY))
    _subs: list[_Subscriber] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _seq: int = 0

    @property
    def last_seq(self) -> int:
        return self._seq

    def publish(self, kind: EventType, data: dict[str, Any]) -> dict[str, Any]:
        """Number the event, keep it, hand it to every subscriber; safe from any thread."""
        with self._lock:
            self._seq += 1
            event = {"seq": self._seq, "type": kind.value, "ts": time.time(), "data": data}
            self.history.append(event)
            subs = list(self._subs)
        for sub in subs:
            try:
                sub.loop.call_soon_threadsafe(self._deliver, sub, event)
            except RuntimeError:  # the client's loop is closed: it is going away
                self.unsubscribe(sub)
        return event

    @staticmethod
    def _deliver(sub: _Subscriber, event: dict[str, Any]) -> None:
        if sub.lagged_from is not None:
            return
        try:
            sub.queue.put_nowait(event)
        except asyncio.QueueFull:
            sub.lagged_from = event["seq"]
            # make room for the notice itself; the client replays from ``since`` anyway
            sub.queue.get_nowait()
            sub.queue.put_nowait({"seq": event["seq"], "type": EventType.LAGGED.value, "ts": time.time(),
                                  "data": {"since": event["seq"] - 1}})

    def subscribe(self, since: int | None = None) -> tuple[_Subscriber, list[dict[str, Any]]]:
        """A new subscriber on the running loop, and the kept events after ``since`` (none if not given)."""
        sub = _Subscriber(asyncio.get_running_loop(), asyncio.Queue(QUEUE_SIZE))
        with self._lock:
            self._subs.append(sub)
            backlog = [e for e in self.history if since is not None and e["seq"] > since]
        return sub, backlog

    def unsubscribe(self, sub: _Subscriber) -> None:
        with self._lock:
            if sub in self._subs:
                self._subs.remove(sub)

    def since(self, seq: int) -> list[dict[str, Any]]:
        with self._lock:
            return [e for e in self.history if e["seq"] > seq]
