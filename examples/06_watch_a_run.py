"""06: watch a run afterwards: every step's capability, status and acceptance verdict from the journal.

Every run is journalled (SQLite under ``home``): each dispatch, its result and the acceptance check's
verdict. ``run_steps`` reads them back; ``craftbt show RUN_ID`` and ``craftbt render --run RUN_ID`` do the
same on the command line, and ``craftbt serve`` shows a run live in its viewer.

    python examples/06_watch_a_run.py
"""

from __future__ import annotations

import tempfile

import craftbt

home = tempfile.mkdtemp(prefix="craftbt-06-")
outcome = craftbt.run_tree(craftbt.library_tree("obtain_wooden_pickaxe"), craftbt.starter_world(seed=0), home=home)
steps = craftbt.run_steps(outcome.run_id, home=home)
for step in steps:
    result = "ok" if step["ok"] else f"failed {step['error_code']}"
    print(f"  {step['node']:28} {step['capability']:18} {result:8} verdict={step['verdict']} "
          f"ticks {step['started_tick']}-{step['ended_tick']}")
print(f"{len(steps)} steps; report: {outcome.report_path}")
print(f"see it drawn: craftbt render --run {outcome.run_id} -f unicode   (with CRAFTBT_HOME={home})")
assert outcome.ok and len(steps) == outcome.dispatches
