"""The mineflayer body's batched reads on a real server: one view per tick serves every read, with the
right inventory, and an action renews it; the planning survey answers on the bridge, so ``craftbt prove
--body mineflayer`` gets past F1 and proves a goal the flat world can give.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from craftbt.router.router import SURVEY_BLOCKS, SURVEY_RADIUS, survey
from craftbt.world.body import ActionStatus
from craftbt.world.mineflayer.body import MineflayerBody
from craftbt.world.mineflayer.server import FlyingSquid
from tests.clikit import cli
from tests.e2e.squidkit import Arena, McServer, finish

pytestmark = pytest.mark.e2e


def test_a_ticks_reads_come_from_one_view_and_an_action_renews_it(
    spawned: Arena, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = spawned.body
    spawned.give("cobblestone", 5)
    spawned.give("bread", 3)
    monkeypatch.setattr(body, "now_ticks", lambda: 7)  # one tick, however long the reads take
    before = dict(body.round_trips)
    obs = body.observe()
    stacks = body.inventory()
    reads = (body.position(), body.health(), body.food(), body.time_of_day(), body.entities(16),
             body.entities(32, kind="player"), body.open_window())
    made = {k: v - before.get(k, 0) for k, v in body.round_trips.items() if v != before.get(k, 0)}
    assert made == {"view": 1}
    assert reads[:4] == (obs.position, obs.health, obs.food, obs.time_of_day)
    carried = {s.name: 0 for s in stacks}
    for s in stacks:
        carried[s.name] += s.count
    assert carried == obs.inventory
    assert obs.count("cobblestone") == 5 and obs.count("bread") == 3
    # an action starts: what the bot does may change what it sees, so the next read asks again, even
    # within the tick, and that view carries the action's state
    handle = body.equip("bread")
    body.observe()
    assert handle.status() in (ActionStatus.RUNNING, ActionStatus.SUCCEEDED)
    assert body.round_trips["view"] == before.get("view", 0) + 2
    monkeypatch.undo()  # time runs again: each tick's view says how the action is doing
    assert finish(handle) is ActionStatus.SUCCEEDED
    assert body.observe().held_item == "bread"
    assert body.round_trips["actionState"] == before.get("actionState", 0)  # no poll of its own
    body.entities(64)  # wider than a view carries: the adapter's own call
    assert body.round_trips["entities"] == before.get("entities", 0) + 1


def test_the_planning_survey_answers_on_the_bridge(body: MineflayerBody, mc_server: McServer) -> None:
    state = survey(body)  # every kind at once, exposed only, within 48 blocks: one adapter call
    here = body.position()
    if mc_server.is_squid:  # superflat: grass under the bot's feet
        assert state.block_distance["grass_block"] <= 1.5
    # the same answer as asking one kind at a time
    for name in SURVEY_BLOCKS:
        one = body.find_blocks([name], SURVEY_RADIUS, 1, exposed=True)
        assert (name in state.available_blocks) is bool(one), name
        if one:
            assert state.block_distance[name] == round(one[0].distance_to(here), 1)


def test_prove_on_mineflayer_plans_dispatches_and_verifies(squid_only_server: FlyingSquid, tmp_path: Path) -> None:
    server, home = squid_only_server, tmp_path
    args = ["prove", "--body", "mineflayer", "--host", server.host, "--port", str(server.port), "--json"]
    fenced = [*args, "--geofence=-64,0,-64:64,40,64", "--goal", "obtain dirt"]
    done = cli(fenced, env={"CRAFTBT_HOME": str(home)})
    report = json.loads(done.out)
    assert report["A_result"]["ok"], report["A_result"]  # the survey answered: not F1
    assert report["failure"] is None and report["proof_passed"], (report["failure"], report["failure_reason"])
    assert done.code == 0
    assert report["D_verification"]["detail"]["verdicts"] == {"verified": report["C_dispatch"]["detail"]["count"]}
    # no geofence on a real server: the plan is made, but nothing that moves is dispatched (F4)
    unfenced = json.loads(cli(args, env={"CRAFTBT_HOME": str(home)}).out)
    assert unfenced["A_result"]["ok"] and unfenced["failure"] == "F4"
