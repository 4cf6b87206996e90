"""``craftbt eval --body mineflayer``: server episodes beside their embedded twins (no server needed here).

The e2e test (``tests/e2e/test_eval_server_e2e.py``) runs the command against flying-squid.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from typer.testing import CliRunner

from craftbt.cli import app
from craftbt.evaluation.episode import EpisodeBody, EpisodeResult, EpisodeSpec, EpisodeStatus, WorldKind
from craftbt.evaluation.server_episode import bot_name, fence_blocks, served_radius
from craftbt.evaluation.side_by_side import agreement, pair_up, side_by_side_text


def result(goal: str, seed: int, world: str, ok: bool) -> EpisodeResult:
    return EpisodeResult(key=f"{goal}{seed}{world}", goal=goal, seed=seed, planner="auto", world=world,
                         status=EpisodeStatus.SUCCESS if ok else EpisodeStatus.FAILURE,
                         reason=None if ok else "acquire_material:no_target", wall_ms=1500.0)


def test_embedded_keys_are_unchanged_and_server_episodes_have_their_own() -> None:
    spec = EpisodeSpec(goal="obtain stick", seed=3, world=WorldKind.NATURAL)
    old = hashlib.sha256(b"obtain stick\x1f3\x1fauto\x1fnatural\x1f24000").hexdigest()[:20]
    assert spec.key == old  # a resumed evaluation from before --body still skips what it ran
    server = spec.model_copy(update={"body": EpisodeBody.MINEFLAYER})
    other = server.model_copy(update={"server": "127.0.0.1:25565", "geofence": "0,0,0:9,9,9"})
    assert len({spec.key, server.key, other.key}) == 3
    assert (spec.world_label, server.world_label) == ("natural", "natural@server")
    assert bot_name(server) != bot_name(other) and len(bot_name(server)) <= 16


def test_the_served_region_holds_the_embedded_fence() -> None:
    for world in WorldKind:
        assert served_radius(world) * 16 >= fence_blocks(world) + 15
    assert fence_blocks(WorldKind.NATURAL) == 192 and served_radius(WorldKind.NATURAL) == 13


def test_pairs_and_the_share_of_embedded_successes() -> None:
    results = [
        result("obtain wooden_pickaxe", 1, "natural", True), result("obtain wooden_pickaxe", 1, "natural@server", True),
        result("obtain iron_pickaxe", 1, "natural", True), result("obtain iron_pickaxe", 1, "natural@server", False),
        result("obtain iron_pickaxe", 2, "natural", False), result("obtain iron_pickaxe", 2, "natural@server", True),
        result("obtain stick", 9, "natural", True),  # no server twin: not a pair
    ]
    pairs = pair_up(results)
    assert [(p.goal, p.seed) for p in pairs] == [("obtain iron_pickaxe", 1), ("obtain iron_pickaxe", 2),
                                               ("obtain wooden_pickaxe", 1)]
    a = agreement(pairs)
    assert (a.pairs, a.embedded, a.server, a.both) == (3, 2, 2, 1) and a.server_share == 0.5
    text = side_by_side_text(pairs)
    assert "embedded" in text[0] and "server" in text[0]
    assert text[-1] == ("embedded 2/3, server 2/3; the server succeeded in 1 of the 2 episodes the embedded world "
                        "succeeded in: 50%")
    assert "failure: acquire_material:no_target" in text[1]


def test_cli_refuses_a_server_without_a_fence_and_a_bad_body(tmp_path: Path) -> None:
    runner = CliRunner()
    done = runner.invoke(app, ["eval", "--goals", "obtain stick", "--seeds", "1", "--body", "mineflayer",
                               "--host", "127.0.0.1", "--out", str(tmp_path / "o")])
    assert done.exit_code == 2 and "--geofence" in done.output
    done = runner.invoke(app, ["eval", "--goals", "obtain stick", "--seeds", "1", "--body", "robot",
                               "--out", str(tmp_path / "o")])
    assert done.exit_code == 2 and "sim, mineflayer" in done.output
    assert not (tmp_path / "o" / "results.sqlite").exists()
