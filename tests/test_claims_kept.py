"""Claims the README and the seed make, kept: transfer_items swap, wait up to 5 minutes."""

from __future__ import annotations

from pathlib import Path

import pytest
from pydantic import ValidationError

from craftbt.capabilities.leaves.containers import TransferItemsArgs
from craftbt.capabilities.leaves.sensing import WaitArgs
from craftbt.capabilities.spec import Verdict
from tests.leafkit import run_leaf
from tests.simkit import sim_body


def test_transfer_items_swap_puts_one_item_in_and_takes_another_out() -> None:
    body, origin = sim_body()
    chest = origin.offset(dx=2)
    body.run_command(f"/setblock {chest.x} {chest.y} {chest.z} chest")
    body.run_command("/give @s apple 10")
    assert run_leaf(body, "open_container", {"containerType": "chest"}).ok
    assert run_leaf(body, "transfer_items", {"item": "apple", "count": 10, "mode": "deposit"}).ok
    body.run_command("/give @s bread 4")
    swap = run_leaf(body, "transfer_items", {"item": "bread", "count": 4, "mode": "swap", "swap_for": "apple",
                                             "swap_count": 3})
    assert swap.ok and swap.verdict is Verdict.VERIFIED, swap.result
    after = body.observe()
    assert after.count("bread") == 0 and after.count("apple") == 3
    missing = run_leaf(body, "transfer_items", {"item": "apple", "count": 1, "mode": "swap",
                                                "swap_for": "diamond"})
    assert missing.code == "guard_failed:precond_missing:container_item:diamond"


def test_swap_args_need_both_sides() -> None:
    with pytest.raises(ValidationError, match="swap needs"):
        TransferItemsArgs(item="bread", mode="swap")
    with pytest.raises(ValidationError, match="belong to mode swap"):
        TransferItemsArgs(item="bread", mode="deposit", swap_for="apple")


def test_wait_accepts_five_minutes_and_no_more() -> None:
    assert WaitArgs(ms=300_000).ms == 300_000
    with pytest.raises(ValidationError):
        WaitArgs(ms=300_001)


def test_a_two_minute_wait_runs_to_the_end() -> None:
    body, _ = sim_body()
    run = run_leaf(body, "wait", {"ms": 120_000}, max_ticks=2_600)
    assert run.ok and run.verdict is Verdict.VERIFIED and run.result.verification is not None
    assert run.result.verification.evidence["elapsed_ms"] >= 120_000


def test_dig_block_is_remapped_to_acquire_material_with_original_leaf(tmp_path: Path) -> None:
    from craftbt.capabilities.default import default_registry
    from craftbt.executor.config import ExecutorConfig, scenario_fence
    from craftbt.executor.executor import Executor
    from craftbt.trees import model as m
    from craftbt.world.scenarios.loader import starter_world

    body = starter_world(0)
    ex = Executor(default_registry(), body, config=ExecutorConfig(geofence=scenario_fence(body),
                                                                  remap_deprecated=True), home=tmp_path)
    tree = m.TreeDefinition(tree="dig", root=m.SequenceNode(children=[
        m.LeafNode(capability="dig_block", name="dig a log", args={"blockType": "oak_log"})]))
    out = ex.run(tree)
    detail = ex.journal.run_detail(out.run_id)
    report = ex.recorder.get_report(out.run_id)
    ex.journal.close()
    assert out.status == "success", out.failures
    assert [s["capability"] for s in detail["steps"]] == ["acquire_material"]
    remapped = [d for d in detail["decisions"] if d["reason"] == "leaf_remapped"]
    assert remapped and remapped[0]["detail"]["original_leaf"] == "dig_block@1.0.0"
    assert report is not None
    assert report["execution"]["dispatched_steps"][0]["original_leaf"] == "dig_block@1.0.0"
    assert body.observe().count("oak_log") >= 1  # acquire_material collects the drop; dig_block did not


def test_dig_block_at_a_position_is_not_remapped() -> None:
    from craftbt.capabilities.contracts import remap_deprecated

    assert remap_deprecated("dig_block", {"pos": {"x": 1, "y": 2, "z": 3}}) is None
    mapped = remap_deprecated("dig_block", {"blockType": "stone", "tool": "wooden_pickaxe"})
    assert mapped is not None and mapped.leaf == "acquire_material" and mapped.original_leaf == "dig_block"
    assert mapped.args == {"item": "stone", "tool": "wooden_pickaxe"}
