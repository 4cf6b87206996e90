"""Action handles of the simulated body: polled by the caller, stepped by ``SimBody.advance``.

Every handle reports its duration in ticks and wall seconds in ``result()``
(``ticks`` and ``seconds``). A handle finishes on the first tick whose work
completes; the earliest is the next ``advance``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from craftbt.world.body import TICKS_PER_SECOND, ActionStatus, BodyError, BodyErrorCode


class SimHandle:
    """Base handle: RUNNING until :meth:`succeed`, :meth:`fail` or :meth:`cancel`."""

    def __init__(self, kind: str, start_tick: int) -> None:
        self._kind = kind
        self._status = ActionStatus.RUNNING
        self._error: BodyError | None = None
        self._result: dict[str, Any] = {}
        self.start_tick = start_tick
        self.elapsed = 0
        self.on_finish: Callable[[SimHandle], None] | None = None

    @property
    def kind(self) -> str:
        return self._kind

    def status(self) -> ActionStatus:
        return self._status

    def error(self) -> BodyError | None:
        return self._error

    def result(self) -> dict[str, Any]:
        return dict(self._result)

    @property
    def running(self) -> bool:
        return self._status is ActionStatus.RUNNING

    def cancel(self, reason: str = "cancelled") -> None:
        if not self.running:
            return
        code = BodyErrorCode.PREEMPTED if reason == "preempted" else BodyErrorCode.CANCELLED
        self._finish(ActionStatus.CANCELLED, BodyError(code, f"{self._kind} {reason}"), {"reason": reason})

    def succeed(self, **result: Any) -> None:
        self._finish(ActionStatus.SUCCEEDED, None, result)

    def fail(self, code: BodyErrorCode, detail: str, *, retryable: bool = False, **result: Any) -> None:
        self._finish(ActionStatus.FAILED, BodyError(code, detail, retryable=retryable), result)

    def fail_with(self, error: BodyError) -> None:
        self._finish(ActionStatus.FAILED, error, {})

    def _finish(self, status: ActionStatus, error: BodyError | None, result: dict[str, Any]) -> None:
        self._status = status
        self._error = error
        self._result = {**result, "ticks": self.elapsed, "seconds": self.elapsed / TICKS_PER_SECOND}
        if self.on_finish is not None:
            self.on_finish(self)

    def step(self) -> None:
        """One tick of work; subclasses override."""
        self.elapsed += 1


class TimedHandle(SimHandle):
    """Waits ``duration`` ticks (at least one), then runs ``apply``; a BodyError from it fails the handle.

    ``check`` runs every tick before completion; it raises BodyError when the
    action can no longer finish (the player moved away, the block changed).
    """

    def __init__(
        self,
        kind: str,
        start_tick: int,
        duration: int,
        apply: Callable[[], dict[str, Any]],
        check: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(kind, start_tick)
        self.duration = max(1, duration)
        self._apply = apply
        self._check = check

    def step(self) -> None:
        self.elapsed += 1
        try:
            if self._check is not None:
                self._check()
            if self.elapsed >= self.duration:
                self.succeed(**self._apply())
        except BodyError as err:
            self.fail_with(err)
