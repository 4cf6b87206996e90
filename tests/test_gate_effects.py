"""The feasibility gate reads content-derived effects: a tree that gives itself materials may run."""

from __future__ import annotations

from craftbt.capabilities.default import default_registry
from craftbt.capabilities.leaves.sensing import chat_effects
from craftbt.executor.gate import assess
from craftbt.trees import model as m
from craftbt.world.scenarios import load_scenario


def tree(*leaves: m.LeafNode) -> m.TreeDefinition:
    return m.TreeDefinition(tree="give_then_place", root=m.SequenceNode(children=list(leaves)))


PLACE = m.LeafNode(capability="place_block", args={"item": "cobblestone"})


def test_give_command_makes_the_item_available() -> None:
    assert chat_effects({"message": "/give @s minecraft:torch 4"}) == ("has:torch",)
    assert chat_effects({"message": "hello /give"}) == ()
    assert chat_effects({"message": "/give @s"}) == ()


def test_gate_proceeds_when_a_give_precedes_the_placement() -> None:
    obs = load_scenario("flat_empty").observe()
    give = m.LeafNode(capability="chat", args={"message": "/give @s cobblestone 4"})
    decision, _ = assess(tree(give, PLACE), default_registry(), obs)
    assert decision.should_proceed, decision.block_detail


def test_gate_blocks_the_placement_without_the_item() -> None:
    obs = load_scenario("flat_empty").observe()
    decision, _ = assess(tree(PLACE), default_registry(), obs)
    assert not decision.should_proceed
    assert decision.block_reason == "rig_g_blocked"
    assert "has:cobblestone" in decision.block_detail
