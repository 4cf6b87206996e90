"""CraftScript on a real server: `craftbt script run --body mineflayer` against flying-squid.

The commands flying-squid supports (goto, dig, block_info, scan, log) run through the same capability
leaves and executor as on the embedded world; the script's own report says what changed in the world.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.e2e

FENCE = "--geofence=-200,-64,-200:200,320,200"


def script(server: Any, text: str, home: Path, username: str) -> dict[str, Any]:
    craftbt = str(Path(sys.executable).parent / "craftbt")
    done = subprocess.run(
        [craftbt, "script", "run", "-e", text, "--body", "mineflayer", "--host", server.host,
         "--port", str(server.port), "--username", username, FENCE, "--json"],
        capture_output=True, text=True, timeout=180, env={**os.environ, "CRAFTBT_HOME": str(home)},
    )
    assert done.returncode in (0, 1), done.stderr
    report: dict[str, Any] = json.loads(done.stdout[done.stdout.index("{"):])
    return report


def test_move_dig_and_look_on_flying_squid(mc_server: Any, tmp_path: Path) -> None:
    # its own name and its own spot: the server is shared by the session's other tests
    report = script(mc_server, 'log("start"); goto(31, 5, -27, tol: 1); dig(d1); block_info(d1); scan(r: 2);',
                    tmp_path, "csdigger")
    assert report["ok"] is True and report["status"] == "completed", report
    assert report["error"] is None
    dug = [c for c in report["block_changes"] if c["command"] == "dig"]
    assert len(dug) == 1 and dug[0]["after"].endswith("air") and not dug[0]["before"].endswith("air"), dug
    assert report["logs"][0] == {"kind": "log", "text": "start", "line": 1}, report["logs"][:2]
    ops = [entry["op"] for entry in report["logs"] if entry.get("kind") == "ok"]
    assert ops == ["log", "goto", "dig", "block_info", "scan"], ops
    x, _, z = report["position"]
    assert abs(x - 31) <= 2 and abs(z + 27) <= 2, report["position"]
    assert report["run_id"].startswith("run-")


def test_a_script_error_on_the_server_is_located(mc_server: Any, tmp_path: Path) -> None:
    report = script(mc_server, "log(1);\ndig(nowhere);", tmp_path, "csbad")
    assert report["ok"] is False
    problem = (report.get("errors") or [report.get("error")])[0]
    assert problem["loc"]["line"] == 2, problem
