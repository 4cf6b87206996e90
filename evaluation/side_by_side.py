"""The same episodes on the embedded world and on the test server, side by side (``craftbt eval --body mineflayer``).

An episode on the server (world ``natural@server``) is paired with the embedded episode of the same goal,
seed, planner and world. The figure the issue asks for: of the episodes the embedded world succeeded in, the
share the server succeeded in too.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from craftbt.evaluation.episode import SERVER_SUFFIX, EpisodeResult


@dataclass(frozen=True)
class Pair:
    goal: str
    seed: int
    planner: str
    world: str
    embedded: EpisodeResult | None
    server: EpisodeResult | None


@dataclass(frozen=True)
class Agreement:
    """Counts over the pairs with both halves: successes on each side, and on both."""

    pairs: int
    embedded: int
    server: int
    both: int

    @property
    def server_share(self) -> float | None:
        """Of the episodes the embedded world succeeded in, the share the server succeeded in (None: no base)."""
        return self.both / self.embedded if self.embedded else None


def pair_up(results: Sequence[EpisodeResult]) -> list[Pair]:
    """Every (goal, seed, planner, world) that has a server episode, with its embedded twin if there is one."""
    embedded = {(r.goal, r.seed, r.planner, r.world): r for r in results if not r.world.endswith(SERVER_SUFFIX)}
    out = []
    for r in results:
        if r.world.endswith(SERVER_SUFFIX):
            world = r.world.removesuffix(SERVER_SUFFIX)
            out.append(Pair(r.goal, r.seed, r.planner, world, embedded.get((r.goal, r.seed, r.planner, world)), r))
    return sorted(out, key=lambda p: (p.goal, p.planner, p.world, p.seed))


def agreement(pairs: Sequence[Pair]) -> Agreement:
    full = [p for p in pairs if p.embedded is not None and p.server is not None]
    return Agreement(
        pairs=len(full),
        embedded=sum(p.embedded.ok for p in full if p.embedded is not None),
        server=sum(p.server.ok for p in full if p.server is not None),
        both=sum(p.embedded.ok and p.server.ok for p in full if p.embedded is not None and p.server is not None),
    )


def _cell(r: EpisodeResult | None) -> str:
    if r is None:
        return "-"
    return f"{r.status.value} ({r.wall_ms / 1000:.0f}s)" if r.ok else f"{r.status.value}: {(r.reason or '')[:40]}"


def side_by_side_text(pairs: Sequence[Pair]) -> list[str]:
    """The table (goal, seed, embedded, server) and the summary line, as lines of text."""
    lines = [f"{'goal':<24} {'planner':<8} {'world':<8} {'seed':>5}  {'embedded':<30} server"]
    for p in pairs:
        lines.append(f"{p.goal:<24} {p.planner:<8} {p.world:<8} {p.seed:>5}  {_cell(p.embedded):<30} {_cell(p.server)}")
    a = agreement(pairs)
    share = "n/a (the embedded world succeeded in none)" if a.server_share is None else f"{a.server_share:.0%}"
    lines.append(f"embedded {a.embedded}/{a.pairs}, server {a.server}/{a.pairs}; the server succeeded in "
                 f"{a.both} of the {a.embedded} episodes the embedded world succeeded in: {share}")
    return lines
