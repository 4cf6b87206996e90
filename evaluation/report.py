"""The evaluation report: success rates per goal, planner and world, as tables, a chart and one HTML page.

Every value the page shows passes through ``html.escape``: goals and failure reasons are user
input and planner output.
"""

from __future__ import annotations

import html
import statistics
from collections import defaultdict
from collections.abc import Sequence

from pydantic import BaseModel

from craftbt.evaluation.episode import EpisodeResult, EpisodeStatus

TICKS_PER_MINUTE = 20 * 60


class Cell(BaseModel):
    """One goal x planner x world row of the matrix."""

    goal: str
    planner: str
    world: str
    episodes: int
    successes: int
    errors: int
    median_sim_minutes: float | None
    median_wall_s: float
    reasons: dict[str, int]

    @property
    def rate(self) -> float:
        return self.successes / self.episodes if self.episodes else 0.0


def summarize(results: Sequence[EpisodeResult]) -> list[Cell]:
    groups: dict[tuple[str, str, str], list[EpisodeResult]] = defaultdict(list)
    for r in results:
        groups[(r.goal, r.planner, r.world)].append(r)
    cells = []
    for (goal, planner, world), rows in sorted(groups.items()):
        wins = [r for r in rows if r.ok]
        reasons: dict[str, int] = defaultdict(int)
        for r in rows:
            if not r.ok:
                reasons[r.reason or r.status.value] += 1
        cells.append(Cell(
            goal=goal, planner=planner, world=world, episodes=len(rows), successes=len(wins),
            errors=sum(r.status is EpisodeStatus.ERROR for r in rows),
            median_sim_minutes=statistics.median(r.sim_ticks / TICKS_PER_MINUTE for r in wins) if wins else None,
            median_wall_s=statistics.median(r.wall_ms / 1000 for r in rows),
            reasons=dict(sorted(reasons.items(), key=lambda kv: -kv[1])),
        ))
    return cells


def _bar_chart(cells: Sequence[Cell]) -> str:
    """An inline SVG bar per row: the success rate, labelled; no plotting library, no script."""
    row_h, label_w, bar_w = 22, 360, 300
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 60}" '
             f'height="{row_h * len(cells) + 10}" role="img" aria-label="success rate per row">']
    for i, cell in enumerate(cells):
        y = 5 + i * row_h
        label = html.escape(f"{cell.goal} · {cell.planner} · {cell.world}")
        width = round(bar_w * cell.rate)
        parts.append(f'<text x="0" y="{y + 15}" font-size="12">{label}</text>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{bar_w}" height="14" fill="#eeeeee"/>')
        parts.append(f'<rect x="{label_w}" y="{y + 3}" width="{width}" height="14" fill="#5cb85c"/>')
        parts.append(f'<text x="{label_w + bar_w + 6}" y="{y + 15}" font-size="12">{cell.rate:.0%}</text>')
    parts.append("</svg>")
    return "\n".join(parts)


def html_report(results: Sequence[EpisodeResult], *, title: str = "craftbt evaluation") -> str:
    cells = summarize(results)
    e = html.escape
    rows = "\n".join(
        f"<tr><td>{e(c.goal)}</td><td>{e(c.planner)}</td><td>{e(c.world)}</td><td>{c.episodes}</td>"
        f"<td>{c.successes}</td><td>{c.rate:.0%}</td>"
        f"<td>{'' if c.median_sim_minutes is None else f'{c.median_sim_minutes:.1f}'}</td>"
        f"<td>{c.median_wall_s:.2f}</td><td>{c.errors}</td>"
        f"<td>{e(', '.join(f'{k} x{v}' for k, v in c.reasons.items()))}</td></tr>"
        for c in cells
    )
    episodes = "\n".join(
        f"<tr><td>{e(r.goal)}</td><td>{r.seed}</td><td>{e(r.planner)}</td><td>{e(r.world)}</td>"
        f"<td>{e(r.status.value)}</td><td>{e(r.chosen_planner or '')}</td><td>{r.sim_ticks / TICKS_PER_MINUTE:.1f}</td>"
        f"<td>{e(r.run_id or '')}</td><td>{e((r.executor_plan_digest or '')[:23])}</td>"
        f"<td>{e(r.reason or '')}</td></tr>"
        for r in results
    )
    return f"""<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{e(title)}</title>
<style>body{{font-family:sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:3px 8px;text-align:left}}</style></head>
<body><h1>{e(title)}</h1>
<p>{len(results)} episodes, {sum(r.ok for r in results)} succeeded.</p>
{_bar_chart(cells)}
<h2>Success rate</h2>
<table><tr><th>goal</th><th>planner</th><th>world</th><th>episodes</th><th>successes</th><th>rate</th>
<th>median simulated min (successes)</th><th>median wall s</th><th>errors</th><th>why the others failed</th></tr>
{rows}
</table>
<h2>Episodes</h2>
<table><tr><th>goal</th><th>seed</th><th>planner</th><th>world</th><th>status</th><th>chosen</th><th>simulated min</th>
<th>run</th><th>plan digest</th><th>reason</th></tr>
{episodes}
</table>
</body></html>
"""
