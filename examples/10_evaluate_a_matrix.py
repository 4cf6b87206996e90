"""10: evaluate a goal x seed x planner x world matrix, resumable, with an HTML report.

``craftbt eval`` runs every episode once (in this process with one worker; on Ray with ``--workers N``
or ``--address``, which needs ``craftbt[eval]``), streams results into ``OUT/results.sqlite`` and writes
``OUT/report.html``. Running the same command again resumes: finished episodes are skipped.

    python examples/10_evaluate_a_matrix.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

out = Path(tempfile.mkdtemp(prefix="craftbt-10-")) / "eval"
command = [sys.executable, "-m", "craftbt", "eval", "--goals", "obtain stick", "--seeds", "0-1",
           "--planner", "solver", "--world", "starter", "--out", str(out), "--json"]
first = subprocess.run(command, capture_output=True, text=True, check=True, timeout=600)
summary = json.loads(first.stdout)
print(f"ran {summary['ran']} episodes ({summary['backend']})")
for cell in summary["cells"]:
    print(f"  {cell['goal']:14} {cell['planner']:7} {cell['world']:8} {cell['successes']}/{cell['episodes']} "
          f"median {cell['median_sim_minutes']} game minutes")
again = json.loads(subprocess.run(command, capture_output=True, text=True, check=True, timeout=600).stdout)
print(f"the same command again: ran {again['ran']}, skipped {again['skipped']} (resumed from the store)")
print("report:", summary["report"])
assert summary["ran"] == 2 and again["ran"] == 0 and again["skipped"] == 2
assert (out / "results.sqlite").is_file()
