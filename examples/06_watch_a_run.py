"""06: watch a run afterwards: every step's capability, status and acceptance verdict from the journal.

Every run is journalled (SQLite under the bot's ``home``): each dispatch, its result and the acceptance
check's verdict. ``bot.journal`` reads them back; ``craftbt show RUN_ID`` and ``craftbt render --run RUN_ID``
do the same on the command line, ``craftbt run --groot2 PORT`` serves a run live to Groot2 or btview, and
``craftbt serve`` shows it in its viewer.

    python examples/06_watch_a_run.py
"""

from __future__ import annotations

import tempfile

import craftbt

home = tempfile.mkdtemp(prefix="craftbt-06-")
with craftbt.create_bot(seed=0, home=home) as bot:
    outcome = bot.run_tree(craftbt.library_tree("obtain_wooden_pickaxe"))
    steps = bot.journal.run_detail(outcome.run_id)["steps"]
    recent = bot.journal.list_runs(5)

for step in steps:
    result = "ok" if step["ok"] else f"failed {step['error_code']}"
    print(f"  {step['node']:28} {step['capability']:18} {result:8} verdict={step['verdict']} "
          f"ticks {step['started_tick']}-{step['ended_tick']}")
print(f"{len(steps)} steps; report: {outcome.report_path}")
print("the journal's runs:", [(r["run_id"], r["status"]) for r in recent])
print(f"see it drawn: craftbt render --run {outcome.run_id} -f unicode   (with CRAFTBT_HOME={home})")
assert outcome.ok and len(steps) == outcome.dispatches
assert recent[0]["run_id"] == outcome.run_id
