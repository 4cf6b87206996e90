"""A tiny tick loop for tests and scripts: advance the world until a handle finishes."""

from __future__ import annotations

from craftbt.world.body import ActionHandle, ActionStatus, Body


def run_until(handle: ActionHandle, body: Body, max_ticks: int = 20 * 60 * 5) -> ActionStatus:
    """Advance ``body`` one tick at a time until ``handle`` leaves RUNNING or ``max_ticks`` pass.

    Returns the handle's final status (still RUNNING if it ran out of ticks).
    """
    for _ in range(max_ticks):
        if handle.status() is not ActionStatus.RUNNING:
            break
        body.advance(1)
    return handle.status()
