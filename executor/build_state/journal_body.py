"""A Body proxy that journals every place, dig, craft and container put/take around its dispatch.

Places and digs go to the ``actions`` journal (reconciled from the world's
cells), crafts and container moves to the ``steps`` journal (reconciled from
the inventory delta against the count recorded before dispatch); the sim world
is persisted before any row is closed ``done``.

Write-ahead protocol (the crash-safety design, see ``router/build/runner.py``):

1. ``place``/``dig`` is called: an ``in_flight`` action row (cell, block, module)
   is **committed before** the command reaches the body;
2. the body applies the effect during ``advance``;
3. when the handle has succeeded, the row waits in memory; at the next
   :meth:`JournalingBody.flush` (every ``persist_every`` ticks, after each work
   package, before each checkpoint) the world is **persisted first** (the
   simulator: one atomic snapshot file via ``persist``; a real server persists
   by itself, and without ``persist`` rows close at once), **then** every
   waiting row is closed ``done`` with its effect, in one transaction.

A kill between 1 and 3 leaves ``in_flight`` rows: resume reconciles each from
the world (effect present → ``done``, absent → ``lost``, the step goes back to
the pending set of the recomputed micro plan). The world file is never behind
a ``done`` row, so the journal never claims a block the world lacks, and a
block the world holds is never placed again. Batching step 3 changes only how
much work a kill can undo (at most one flush interval), never what the journal
claims: a snapshot of the whole world per block cost ~3 ms of a ~0.4 ms block.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from craftbt.executor.build_state.store import BuildStore
from craftbt.world.body import FACE_OFFSETS, ActionHandle, ActionStatus, BlockPos, Body, Face


class JournalingBody:
    """Delegates everything to ``inner``; wraps ``place``, ``dig`` and ``advance``."""

    def __init__(
        self,
        inner: Body,
        store: BuildStore,
        build_id: str,
        persist: Callable[[], None] | None = None,
        persist_every: int = 200,
    ) -> None:
        self.inner = inner
        self.store = store
        self.build_id = build_id
        self.persist = persist
        self.persist_every = persist_every
        self.module_id: str | None = None
        #: The task whose steps run now (the build, or a resource sub-task), recorded with inventory steps.
        self.task_id: str | None = None
        self._pending: list[tuple[int, ActionHandle, str]] = []
        #: (row seq, kind) of succeeded actions whose world is not persisted yet: closed ``done`` by flush()
        self._succeeded: list[tuple[int, str]] = []
        self._since_persist = 0
        self.placed = 0

    def place(self, item: str, against: BlockPos, face: Face) -> ActionHandle:
        dx, dy, dz = FACE_OFFSETS[Face(face)]
        cell = (against[0] + dx, against[1] + dy, against[2] + dz)
        seq = self.store.begin_action(self.build_id, self.module_id, "place", cell, item)
        try:
            handle = self.inner.place(item, against, face)
        except Exception:
            self.store.end_action(seq, "failed", "refused")
            raise
        self._pending.append((seq, handle, "place"))
        return handle

    def dig(self, pos: BlockPos) -> ActionHandle:
        before = self.inner.block_at(pos).name
        seq = self.store.begin_action(self.build_id, self.module_id, "dig", tuple(pos), before)  # type: ignore[arg-type]
        try:
            handle = self.inner.dig(pos)
        except Exception:
            self.store.end_action(seq, "failed", "refused")
            raise
        self._pending.append((seq, handle, "dig"))
        return handle

    # Inventory steps: the effect is an inventory change, so reconciliation compares counts, not cells.
    def _count(self, item: str) -> int:
        return sum(st.count for st in self.inner.inventory() if st.name == item)

    def _step(self, kind: str, item: str, count: int, dispatch: Callable[[], ActionHandle]) -> ActionHandle:
        seq = self.store.begin_step(self.build_id, self.task_id, kind, item, count, self._count(item))
        try:
            handle = dispatch()
        except Exception:
            self.store.end_step(seq, "failed", "refused")
            raise
        self._pending.append((-seq, handle, kind))  # negative: a steps-journal row, not an actions row
        return handle

    def craft(self, item: str, count: int = 1, table: BlockPos | None = None) -> ActionHandle:
        return self._step("craft", item, count, lambda: self.inner.craft(item, count, table))

    def container_put(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        return self._step("put", item, count, lambda: self.inner.container_put(item, count, slot))

    def container_take(self, item: str, count: int, slot: str = "any") -> ActionHandle:
        return self._step("take", item, count, lambda: self.inner.container_take(item, count, slot))

    def advance(self, ticks: int = 1) -> None:
        self.inner.advance(ticks)
        self.settle()
        self._since_persist += ticks
        # between actions only, as before: a world saved mid-action is one no reconciliation was written for
        if self.persist is not None and self._since_persist >= self.persist_every and not self._pending:
            self.flush()

    def settle(self) -> None:
        """Take finished actions off the pending list: failures close now, successes wait for :meth:`flush`
        (with no ``persist``, nothing is saved by us, so they close now too)."""
        if not self._pending:
            return
        finished = [(s, h, k) for s, h, k in self._pending if h.status() is not ActionStatus.RUNNING]
        if not finished:
            return
        self._pending = [p for p in self._pending if p[1].status() is ActionStatus.RUNNING]
        for seq, handle, kind in finished:
            if handle.status() is ActionStatus.SUCCEEDED:
                self._succeeded.append((seq, kind))
                continue
            err = handle.error()
            code = err.code.value if err is not None else "failed"
            if seq < 0:  # an inventory step
                self.store.end_step(-seq, "failed", code)
            else:
                self.store.end_action(seq, "failed", code)
        if self.persist is None:
            self._close_succeeded()

    def flush(self) -> None:
        """Persist the world (when this body has a ``persist``), then close every succeeded row ``done``."""
        self.settle()
        if self.persist is not None:
            self.persist()
            self._since_persist = 0
        self._close_succeeded()

    def _close_succeeded(self) -> None:
        if not self._succeeded:
            return
        actions = [(seq, "done", "placed" if kind == "place" else "dug") for seq, kind in self._succeeded if seq > 0]
        steps = [(-seq, "done", kind) for seq, kind in self._succeeded if seq < 0]
        self.store.end_many(actions, steps)
        self.placed += sum(kind == "place" for seq, kind in self._succeeded if seq > 0)
        self._succeeded.clear()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)
