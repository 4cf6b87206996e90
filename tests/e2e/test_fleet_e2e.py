"""Several bots on one flying-squid server, each with its own connection, executor and journal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from craftbt.evaluation.fleet import BodyKind, FleetSpec, WorkItem, run_fleet

pytestmark = pytest.mark.e2e

GREET = str(Path(__file__).resolve().parents[2] / "trees" / "library" / "greet.yaml")


def test_three_bots_on_one_server_each_run_a_tree(mc_server: Any, tmp_path: Path) -> None:
    spec = FleetSpec(bots=3, body=BodyKind.MINEFLAYER, host=mc_server.host, port=mc_server.port,
                     version=mc_server.version)
    results = run_fleet(spec, [WorkItem(kind="tree", text=GREET)] * 3, tmp_path)
    assert [r.status for r in results] == ["success"] * 3, [r.model_dump() for r in results]
    assert sorted(r.bot for r in results) == [0, 1, 2]
    assert all(r.ttfa_ms for r in results)
