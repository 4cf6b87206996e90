"""Capability SLA reports (seed 003 "Health & SLA for each capability") and executor metrics.

The JSON form (``craftbt sla --format json``) is a stable contract for dashboards,
``schema: craftbt_sla_v1``; fields are only ever added::

    {
      "schema": "craftbt_sla_v1",
      "generated_at": <epoch s>, "since": <epoch s | null>, "capability_filter": <str | null>,
      "capabilities": [            # one row per capability@version and lifecycle, sorted by key
        {"key": "craft_recipe@1.0.0", "capability": "craft_recipe", "version": "1.0.0",
         "lifecycle": "active" | "shadow",            # shadow = canary observations on a forked world
         "attempts": int, "successes": int, "failures": int, "success_rate": float (0..1),
         "duration_ms": {"mean", "p50", "p95", "max"},   # game-time ms, null when no attempts
         "ttfa_ms": {"p50", "p95"},                       # time to first actuator command
         "retries": int,          # attempts that were local re-dispatches (attempt > 0)
         "timeouts": int,         # error_code == "timeout"
         "stuck_loops": int,      # error_code == "stuck.loop"
         "verdicts": {"verified": int, "inconclusive": int, "contradicted": int},
         "last_failures": [{"run_id", "node", "code", "detail", "at"}],   # newest first, N (--last-failures)
         "durations_ms": [float],                  # up to 500 most recent, for the distribution plot
         "timeline": [{"at": epoch s, "ok": bool}]  # up to 500 most recent, for success over time
        }],
      "executor": {"runs", "runs_by_status": {status: int}, "actions", "sim_hours",
                   "actions_per_s", "plan_repair_rate", "local_retry_success_rate",
                   "steps_to_success": {tree: mean dispatches of successful runs},
                   "timeouts_per_hour", "stuck_loops_per_hour", "ttfa_ms": {"p50", "p95"}}
    }

Durations and rates are measured in game time (the simulator's clock; a real
server's clock runs at wall speed). Rows written by global shadow mode (nothing
dispatched) and dispatches interrupted by the tree or a preemption are
excluded; canary rows appear with ``lifecycle: "shadow"``.
"""

from __future__ import annotations

import html
import math
import time
from collections import defaultdict
from typing import Any

from rich.table import Column, Table

from craftbt.executor.journal import Journal, StepOutcome, step_outcome

SCHEMA = "craftbt_sla_v1"
MAX_SERIES = 500


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (``q`` in 0..100); ``None`` for no values."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def _row(key: tuple[str, str, str], steps: list[dict[str, Any]], last_n: int) -> dict[str, Any]:
    name, version, lifecycle = key
    durations = [float(s["duration_ms"] or 0.0) for s in steps]
    ttfas = [float(s["ttfa_ms"]) for s in steps if s["ttfa_ms"] is not None]
    oks = [step_outcome(s) is StepOutcome.OK for s in steps]
    failures = [s for s in steps if step_outcome(s) is StepOutcome.FAILED]
    verdicts = {"verified": 0, "inconclusive": 0, "contradicted": 0}
    for s in steps:
        if s["verdict"] in verdicts:
            verdicts[s["verdict"]] += 1
    return {
        "key": f"{name}@{version}",
        "capability": name,
        "version": version,
        "lifecycle": lifecycle,
        "attempts": len(steps),
        "successes": sum(oks),
        "failures": len(failures),
        "success_rate": sum(oks) / len(steps) if steps else 0.0,
        "duration_ms": {
            "mean": sum(durations) / len(durations) if durations else None,
            "p50": percentile(durations, 50),
            "p95": percentile(durations, 95),
            "max": max(durations) if durations else None,
        },
        "ttfa_ms": {"p50": percentile(ttfas, 50), "p95": percentile(ttfas, 95)},
        "retries": sum(1 for s in steps if s["attempt"] > 0),
        "timeouts": sum(1 for s in steps if s["error_code"] == "timeout"),
        "stuck_loops": sum(1 for s in steps if s["error_code"] == "stuck.loop"),
        "verdicts": verdicts,
        "last_failures": [
            {"run_id": s["run_id"], "node": s["node"], "code": s["error_code"], "detail": s["error_detail"],
             "at": s["ended_at"]}
            for s in reversed(failures[-last_n:])
        ] if last_n > 0 else [],
        "durations_ms": durations[-MAX_SERIES:],
        "timeline": [{"at": s["ended_at"], "ok": bool(s["ok"])} for s in steps[-MAX_SERIES:]],
    }


def _grouped(journal: Journal, since: float | None, capability: str | None) -> dict[tuple[str, str, str],
                                                                                      list[dict[str, Any]]]:
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
    for s in journal.step_rows(since=since, capability=capability):
        if s["shadow"] and s["lifecycle"] != "shadow":
            continue  # global shadow mode: nothing ran, nothing to measure
        if step_outcome(s) is not StepOutcome.OK and step_outcome(s) is not StepOutcome.FAILED:
            continue  # ended by the tree or a preemption, not by the capability (docs/watching.md)
        groups[(s["capability"], s["version"], s["lifecycle"])].append(s)
    return groups


def capability_sla(journal: Journal, name: str, version: str, *, lifecycle: str = "active",
                   last_n: int = 5) -> dict[str, Any] | None:
    steps = _grouped(journal, None, f"{name}@{version}").get((name, version, lifecycle))
    return _row((name, version, lifecycle), steps, last_n) if steps else None


#: the tree source of a run the router repaired (``router.router.splice``)
REPAIRED_SOURCE = "router:replan"


def executor_metrics(journal: Journal, since: float | None) -> dict[str, Any]:
    runs = journal.run_rows(since=since)
    finished = [r for r in runs if r["summary"]]
    metrics = [r["summary"].get("metrics", {}) for r in finished]
    ticks = sum(r["sim_ticks"] or 0 for r in finished)
    sim_hours = ticks / 20 / 3600
    actions = sum(m.get("actions", 0) for m in metrics)
    retries = sum(m.get("local_retries", 0) for m in metrics)
    retry_ok = sum(m.get("local_retry_successes", 0) for m in metrics)
    timeouts = sum(m.get("timeouts", 0) for m in metrics)
    stuck = sum(m.get("stuck_loops", 0) for m in metrics)
    by_status: dict[str, int] = defaultdict(int)
    for r in runs:
        by_status[r["status"]] += 1
    # a task is every run of one goal or tree file (its replans share the task id); repaired: one ran a
    # router repair (seed 003 plan-repair rate: tasks that needed a replan, not local retries)
    tasks: dict[str, bool] = {}
    for r in finished:
        key = r["task_id"] or r["run_id"]
        tasks[key] = tasks.get(key, False) or r["tree_source"] == REPAIRED_SOURCE
    per_goal: dict[str, list[int]] = defaultdict(list)
    for r in finished:
        if r["status"] == "success":
            per_goal[r["tree_name"] or "?"].append(int(r["summary"].get("dispatches", 0)))
    ttfa = [float(s["ttfa_ms"]) for s in journal.step_rows(since=since) if s["ttfa_ms"] is not None]
    return {
        "runs": len(runs),
        "runs_by_status": dict(sorted(by_status.items())),
        "actions": actions,
        "sim_hours": sim_hours,
        "actions_per_s": actions / (ticks / 20) if ticks else 0.0,
        "plan_repair_rate": sum(tasks.values()) / len(tasks) if tasks else 0.0,
        "local_retries_per_run": retries / len(finished) if finished else 0.0,
        "local_retry_success_rate": retry_ok / retries if retries else None,
        "steps_to_success": {goal: sum(v) / len(v) for goal, v in sorted(per_goal.items())},
        "timeouts_per_hour": timeouts / sim_hours if sim_hours else 0.0,
        "stuck_loops_per_hour": stuck / sim_hours if sim_hours else 0.0,
        "ttfa_ms": {"p50": percentile(ttfa, 50), "p95": percentile(ttfa, 95)},
    }


def build_report(journal: Journal, *, since: float | None = None, capability: str | None = None,
                 last_n: int = 5) -> dict[str, Any]:
    groups = _grouped(journal, since, capability)
    return {
        "schema": SCHEMA,
        "generated_at": time.time(),
        "since": since,
        "capability_filter": capability,
        "capabilities": [_row(k, groups[k], last_n) for k in sorted(groups)],
        "executor": executor_metrics(journal, since),
    }


def _fmt(value: float | None, unit: str = "") -> str:
    return "—" if value is None else f"{value:.0f}{unit}"


def render_table(report: dict[str, Any]) -> Table:
    # keys and figures are never cut short; the last failure's code folds into the room that is left
    fixed = [Column(name, no_wrap=True) for name in ("capability", "stage", "attempts", "success", "mean", "p50",
                                                     "p95", "ttfa p50/p95", "retries", "timeouts")]
    table = Table(*fixed, Column("last failure", overflow="fold", min_width=14), title="capability SLA")
    for row in report["capabilities"]:
        d, t = row["duration_ms"], row["ttfa_ms"]
        last = row["last_failures"][0] if row["last_failures"] else None
        table.add_row(row["key"], row["lifecycle"], str(row["attempts"]), f"{row['success_rate']:.0%}",
                      _fmt(d["mean"], " ms"), _fmt(d["p50"], " ms"), _fmt(d["p95"], " ms"),
                      f"{_fmt(t['p50'])}/{_fmt(t['p95'])} ms", str(row["retries"]), str(row["timeouts"]),
                      f"{last['code']}" if last else "")
    executor = report.get("executor", {})
    router = report.get("router") or {}
    rate = router.get("disagreement_rate")
    table.caption = (f"plan repair rate {executor.get('plan_repair_rate', 0.0):.0%} of tasks · router disagreement "
                     + ("n/a" if rate is None else f"{rate:.0%} of {router.get('routed', 0)} routed"))
    return table


# -- HTML -------------------------------------------------------------------------------------------
W, H = 420, 200
#: room for the axes: left (y labels), right, top, bottom (x labels and the axis title)
L, R, T, B = 46, 14, 16, 44


def _empty_svg(ident: str) -> str:
    return f'<svg class="chart empty" id="{ident}" width="{W}" height="{H}"><text x="10" y="20">no data</text></svg>'


def _nice_ticks(top: float, count: int = 4) -> list[float]:
    """Round tick values from 0 to at least ``top`` (1, 2, 2.5 or 5 times a power of ten apart)."""
    if top <= 0:
        return [0.0, 1.0]
    raw = top / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    return [step * k for k in range(0, math.ceil(top / step - 1e-9) + 1)]


def human_ms(ms: float | None) -> str:
    """``850 ms``, ``12.5 s``, ``3 min 20 s``, ``2 h 05 min``; ``—`` for none."""
    if ms is None:
        return "—"
    if ms < 1000:
        return f"{ms:.0f} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.3g} s"
    minutes, sec = divmod(round(seconds), 60)
    return f"{minutes} min {sec:02d} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60:02d} min"


def _axes(x_title: str, y_title: str) -> str:
    return (f'<line x1="{L}" y1="{H - B}" x2="{W - R}" y2="{H - B}" class="axis"/>'
            f'<line x1="{L}" y1="{T}" x2="{L}" y2="{H - B}" class="axis"/>'
            f'<text class="title" x="{(L + W - R) / 2:.0f}" y="{H - 6}" text-anchor="middle">'
            f'{html.escape(x_title)}</text>'
            f'<text class="title" x="12" y="{(T + H - B) / 2:.0f}" text-anchor="middle" '
            f'transform="rotate(-90 12 {(T + H - B) / 2:.0f})">{html.escape(y_title)}</text>')


def _histogram_svg(values: list[float], ident: str) -> str:
    """Step durations: a bar per bin with its count on top; x in human time units, y in steps."""
    if not values:
        return _empty_svg(ident)
    lo, hi = min(values), max(values)
    bins = min(12, max(1, len(set(values))))
    width = (hi - lo) / bins or 1.0
    counts = [0] * bins
    for v in values:
        counts[min(bins - 1, int((v - lo) / width))] += 1
    ticks = _nice_ticks(max(counts), 4)
    top = ticks[-1]
    plot_w, plot_h = W - L - R, H - T - B
    bw = plot_w / bins
    parts = [_axes("step duration", "steps")]
    for t in ticks:
        y = H - B - plot_h * t / top
        parts.append(f'<line x1="{L - 3}" y1="{y:.1f}" x2="{L}" y2="{y:.1f}" class="axis"/>'
                     f'<text x="{L - 5}" y="{y + 3:.1f}" text-anchor="end">{t:g}</text>')
    for i, c in enumerate(counts):
        h = plot_h * c / top
        x, y = L + i * bw, H - B - h
        parts.append(f'<rect class="bar" x="{x + 1:.1f}" y="{y:.1f}" width="{max(1.0, bw - 2):.1f}" height="{h:.1f}">'
                     f"<title>{human_ms(lo + i * width)} to {human_ms(lo + (i + 1) * width)}: {c} steps</title></rect>")
        if c:
            parts.append(f'<text class="count" x="{x + bw / 2:.1f}" y="{y - 2:.1f}" text-anchor="middle">{c}</text>')
    for k in range(0, bins + 1, max(1, bins // 4)):
        x = L + k * bw
        parts.append(f'<line x1="{x:.1f}" y1="{H - B}" x2="{x:.1f}" y2="{H - B + 3}" class="axis"/>'
                     f'<text x="{x:.1f}" y="{H - B + 14}" text-anchor="middle">{human_ms(lo + k * width)}</text>')
    return (f'<svg class="chart histogram" id="{ident}" width="{W}" height="{H}" viewBox="0 0 {W} {H}"'
            f' role="img" aria-label="step durations: {len(values)} steps from {human_ms(lo)} to {human_ms(hi)}">'
            + "".join(parts) + "</svg>")


def _clock(ts: float, span: float) -> str:
    fmt = "%H:%M:%S" if span < 600 else "%H:%M" if span < 86400 else "%m-%d %H:%M"
    return time.strftime(fmt, time.localtime(ts))


def _timeline_svg(points: list[dict[str, Any]], ident: str) -> str:
    """Success rate so far, against the time each step ended (a time axis, not the step's index)."""
    if not points:
        return _empty_svg(ident)
    times = [float(p["at"] or 0.0) for p in points]
    t0, t1 = min(times), max(times)
    span = (t1 - t0) or 1.0
    plot_w, plot_h = W - L - R, H - T - B
    parts = [_axes("when the step ended", "success so far")]
    for pct in (0, 50, 100):
        y = H - B - plot_h * pct / 100
        parts.append(f'<line x1="{L - 3}" y1="{y:.1f}" x2="{L}" y2="{y:.1f}" class="axis"/>'
                     f'<text x="{L - 5}" y="{y + 3:.1f}" text-anchor="end">{pct}%</text>')
    for k in range(4):
        ts = t0 + span * k / 3
        x = L + plot_w * k / 3
        parts.append(f'<line x1="{x:.1f}" y1="{H - B}" x2="{x:.1f}" y2="{H - B + 3}" class="axis"/>'
                     f'<text x="{x:.1f}" y="{H - B + 14}" text-anchor="middle">{_clock(ts, span)}</text>')
    ok = 0
    coords = []
    for i, (p, ts) in enumerate(zip(points, times, strict=True)):
        ok += 1 if p["ok"] else 0
        coords.append((L + plot_w * (ts - t0) / span, H - B - plot_h * ok / (i + 1), bool(p["ok"]), ts, ok, i + 1))
    path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y, *_rest) in enumerate(coords))
    parts.append(f'<path class="line" d="{path}"/>')
    for x, y, good, ts, k, n in coords[-200:]:
        parts.append(f'<circle class="{"ok" if good else "bad"}" cx="{x:.1f}" cy="{y:.1f}" r="2.5">'
                     f"<title>{_clock(ts, 86400 * 2)}: {k} of {n} succeeded</title></circle>")
    return (f'<svg class="chart timeline" id="{ident}" width="{W}" height="{H}" viewBox="0 0 {W} {H}"'
            f' role="img" aria-label="success rate over time: {ok} of {len(points)} steps succeeded">'
            + "".join(parts) + "</svg>")


#: the executor's figures as a person reads them: a label and how to show the value
EXECUTOR_ROWS: tuple[tuple[str, str, str], ...] = (
    ("runs", "runs", "count"), ("runs_by_status", "runs by status", "counts"),
    ("sim_hours", "game time run", "hours"), ("actions", "body actions", "count"),
    ("actions_per_s", "body actions per game second", "rate"),
    ("plan_repair_rate", "tasks that needed a replan", "pct"),
    ("local_retries_per_run", "local retries per run", "rate"),
    ("local_retry_success_rate", "local retries that succeeded", "pct"),
    ("steps_to_success", "dispatches per successful run", "per_goal"),
    ("timeouts_per_hour", "timeouts per game hour", "rate"),
    ("stuck_loops_per_hour", "stuck loops per game hour", "rate"),
    ("ttfa_ms", "time to first action (p50 / p95)", "ttfa"),
)


def executor_rows(executor: dict[str, Any]) -> list[tuple[str, str]]:
    """(label, value) pairs in human units: ``2 h 05 min``, ``37%``, ``success 3, failure 1``."""
    out: list[tuple[str, str]] = []
    for key, label, kind in EXECUTOR_ROWS:
        if key not in executor:
            continue
        value = executor[key]
        if kind == "count":
            text = f"{value:,}"
        elif kind == "counts":
            text = ", ".join(f"{k} {v}" for k, v in value.items()) or "none"
        elif kind == "hours":
            text = human_ms(value * 3_600_000)
        elif kind == "pct":
            text = "—" if value is None else f"{value:.0%}"
        elif kind == "rate":
            text = f"{value:.2f}"
        elif kind == "per_goal":
            text = "; ".join(f"{goal}: {mean:.1f}" for goal, mean in value.items()) or "—"
        else:
            text = f"{human_ms(value.get('p50'))} / {human_ms(value.get('p95'))}"
        out.append((label, text))
    return out


CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:4px 8px;text-align:right;white-space:nowrap}
th:first-child,td:first-child{text-align:left}section{margin:2em 0;border-top:1px solid #ddd}
.bar{fill:#4a7bd0}.line{fill:none;stroke:#2a9d55;stroke-width:2}.ok{fill:#2a9d55}.bad{fill:#d04a4a}
.axis{stroke:#888}svg text{font-size:10px;fill:#555}svg text.title{font-size:11px;fill:#333}
svg text.count{fill:#222}.charts{display:flex;gap:2em;flex-wrap:wrap}
"""

#: marks each chart rendered once the browser has laid it out (the headless test reads it)
JS = """
document.addEventListener('DOMContentLoaded', function () {
  var n = 0;
  document.querySelectorAll('svg.chart').forEach(function (svg) {
    var box = svg.getBBox();
    if (box.width > 0 && box.height > 0) { svg.setAttribute('data-rendered', 'true'); n++; }
  });
  document.body.setAttribute('data-charts-rendered', String(n));
});
"""


def render_html(report: dict[str, Any]) -> str:
    """One self-contained page: summary tables and inline SVG plots, no external resources."""
    e = html.escape
    ex = report["executor"]
    rows = []
    sections = []
    for i, row in enumerate(report["capabilities"]):
        d = row["duration_ms"]
        rows.append(f"<tr><td>{e(row['key'])}</td><td>{e(row['lifecycle'])}</td><td>{row['attempts']}</td>"
                    f"<td>{row['success_rate']:.0%}</td><td>{human_ms(d['mean'])}</td><td>{human_ms(d['p50'])}</td>"
                    f"<td>{human_ms(d['p95'])}</td><td>{human_ms(row['ttfa_ms']['p50'])} / "
                    f"{human_ms(row['ttfa_ms']['p95'])}</td>"
                    f"<td>{row['retries']}</td><td>{row['timeouts']}</td></tr>")
        failures = "".join(f"<li><code>{e(str(f['code']))}</code> {e(str(f['detail'] or ''))} "
                           f"<small>{e(str(f['run_id']))} {e(str(f['node']))}</small></li>"
                           for f in row["last_failures"])
        sections.append(
            f'<section id="cap-{i}"><h2>{e(row["key"])} <small>{e(row["lifecycle"])}</small></h2>'
            f'<div class="charts"><figure><figcaption>how long its steps took ({len(row["durations_ms"])} steps)'
            f'</figcaption>'
            f'{_histogram_svg(row["durations_ms"], f"dur-{i}")}</figure>'
            f'<figure><figcaption>success rate over time</figcaption>'
            f'{_timeline_svg(row["timeline"], f"ok-{i}")}</figure></div>'
            f'{"<h3>last failures</h3><ul>" + failures + "</ul>" if failures else ""}</section>')
    metrics = "".join(f"<tr><td>{e(k)}</td><td>{e(v)}</td></tr>" for k, v in executor_rows(ex))
    generated = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(report["generated_at"]))
    return (
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>craftbt capability SLA</title>"
        f"<style>{CSS}</style></head><body><h1>Capability SLA</h1><p>generated {e(generated)}, schema "
        f"<code>{SCHEMA}</code></p><table><tr><th>capability</th><th>stage</th><th>attempts</th><th>success</th>"
        "<th>mean</th><th>p50</th><th>p95</th><th>ttfa p50 / p95</th><th>retries</th><th>timeouts</th></tr>"
        + "".join(rows) + "</table><h2>executor</h2><table>" + metrics + "</table>" + "".join(sections)
        + f"<script>{JS}</script></body></html>"
    )
