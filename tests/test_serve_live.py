"""``craftbt serve --live``: the autonomy loop behind the service; /api/cognitive/signals feeds its suggestions."""

from __future__ import annotations

import time
from pathlib import Path

from fastapi.testclient import TestClient

from craftbt.serve.launch import BotOptions, make_bot
from tests.servekit import AUTH, app_for


def test_a_suggestion_posted_to_the_service_becomes_a_goal_of_the_running_loop(tmp_path: Path) -> None:
    bot = make_bot(BotOptions(seed=4, pace_ms=0.0, home=tmp_path, live_days=2.0))
    with TestClient(app_for(bot)) as client:
        deadline = time.monotonic() + 60
        while bot.live is None or not bot.living:
            assert time.monotonic() < deadline, "the loop did not start"
            time.sleep(0.05)
        home = bot.live.home_pos.block()
        target = f"go to {home.x + 6} {home.y} {home.z + 3}"
        # a run cannot start while the loop drives the bot
        busy = client.post("/api/cognitive/execute", json={"goal": "obtain stick"}, headers=AUTH)
        assert busy.status_code == 409 and busy.json()["active"]["state"] == "living", busy.json()
        assert client.post("/api/cognitive/signals", json={"text": "go to 9000 70 9000"},
                           headers=AUTH).json()["reason"] == "leave_geofence"  # the loop's fence, not words
        answer = client.post("/api/cognitive/signals", json={"text": target}, headers=AUTH).json()
        assert answer["accepted"], answer
        taken = [s for s in bot.live.report.suggestions if s["text"] == target]
        while not taken or not any(g.source == "user" for g in bot.live.report.goals_completed):
            assert time.monotonic() < deadline, f"the loop did not act on {target!r}: {bot.live.report.suggestions}"
            time.sleep(0.05)
            taken = [s for s in bot.live.report.suggestions if s["text"] == target]
        assert taken[0]["accepted"]
        done = [g for g in bot.live.report.goals_completed if g.source == "user"]
        assert done[0].goal == f"explore {home.x + 6},{home.y},{home.z + 3}"
        assert client.get("/api/bot/status").json()["bot"]["tick"] > 0  # the status stays fresh meanwhile
    # the service stopped the loop at a safe point, with the session not finished
    assert bot.live is not None and not bot.live.report.finished and not bot.alive
