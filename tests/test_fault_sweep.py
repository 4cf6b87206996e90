"""The fault sweep: every front door killed (SIGKILL) at every journal commit of a short run, and failed with a
disk I/O error at each, as SQLite sweeps its own writes. After each fault the next command must record the run
terminal, keep everything already committed, leave every journal sound, and (for a command that resumes) not
repeat a completed step. ``tests/fault_sweep_driver.py`` does the sweep for one command in one process that
forks a child per trial; the number of fault points per command is printed (``-s`` shows it).

Slow (minutes): each door runs its command twice per fault point.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]
DRIVER = ROOT / "tests" / "fault_sweep_driver.py"

TREE = """\
tree: short
root:
  sequence:
    children:
      - leaf: wait
        args: {ms: 200}
      - leaf: acquire_material
        args: {item: oak_log, count: 1}
"""

#: door -> (its command line, whether the next command resumes the faulted run and must repeat none of its
#: completed steps). ``live`` on the embedded world resumes from the world snapshot saved when the task began:
#: the world itself rewinds, so the task's steps are done again by design (the same plan, the same keys), and
#: only the other checks apply to it.
DOORS: dict[str, tuple[list[str], bool]] = {
    "run": (["run", "{tree}"], False),
    "run --goal": (["run", "--goal", "obtain stick"], False),
    "build": (["build", "hut", "--at", "3,64,3"], True),
    "script run": (["script", "run", "-e", "repeat(3) { wait(500); }", "--world", "flat"], False),
    "live": (["live", "--days", "0.01"], False),
}


@pytest.mark.parametrize("door", sorted(DOORS))
def test_a_fault_at_every_journal_write_loses_nothing(tmp_path: Path, door: str) -> None:
    args, resumes = DOORS[door]
    tree = tmp_path / "short.yaml"
    tree.write_text(TREE, encoding="utf-8")
    argv = [a.replace("{tree}", str(tree)) for a in args]
    done = subprocess.run([sys.executable, str(DRIVER), str(tmp_path / "home"), "kill,eio",
                           *(["--resumes"] if resumes else []), "--", *argv],
                          capture_output=True, text=True, timeout=1800, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    print(f"{door}: {report['points']} journal writes, each killed and failed once")
    assert report["points"] >= 2, report
    assert report["violations"] == [], report["violations"][:10]
