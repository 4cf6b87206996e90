"""SIGINT and SIGTERM as one exception, so every exit path runs the same cleanup.

:func:`install` makes both signals raise :class:`Cancelled` (a
``KeyboardInterrupt``, so code that already stops cleanly on Ctrl-C stops
cleanly on SIGTERM too) in the main thread. The executor catches it, closes the
run as ``cancelled`` with its open step, and lets it go on; ``finally`` blocks
close the journal and the body; the CLI prints what happened and exits
``128 + signal`` (130 for SIGINT, 143 for SIGTERM).

Only the first signal raises: a second one while the cleanup runs is reported
and ignored (the cleanup is bounded), a third ends the process at once.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

HANDLED = (signal.SIGINT, signal.SIGTERM)


class Cancelled(KeyboardInterrupt):
    """The process was asked to stop by ``signum``; ``run_id`` is the run it cancelled, if any."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum
        self.run_id: str | None = None

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name


_received: list[int] = []
_raised: list[Cancelled] = []


def last() -> Cancelled | None:
    """The :class:`Cancelled` the first signal raised, if one did (typer turns it into exit 130 on its way out)."""
    return _raised[0] if _raised else None


def _handler(signum: int, frame: FrameType | None) -> None:
    _received.append(signum)
    if len(_received) == 1:
        cancel = Cancelled(signum)
        _raised.append(cancel)
        raise cancel
    if len(_received) == 2:
        print(f"{signal.Signals(signum).name} again: still closing the run; once more to stop at once",
              file=sys.stderr, flush=True)
        return
    os._exit(128 + signum)


def done() -> None:
    """The command has finished: a signal from now on would only turn its exit code into a death by signal."""
    for signum in HANDLED:
        try:
            signal.signal(signum, signal.SIG_IGN)
        except ValueError:
            return


def install() -> None:
    """Route SIGINT and SIGTERM through :class:`Cancelled` (main thread only; a no-op elsewhere)."""
    _received.clear()
    _raised.clear()
    for signum in HANDLED:
        try:
            signal.signal(signum, _handler)
        except ValueError:  # not the main thread: leave the signals alone
            return
