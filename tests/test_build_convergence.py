"""Seed 001: every template builds from an empty site, and repairs converge or stop with a reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from craftbt.capabilities.structures import Anchor, Cell, Facing
from craftbt.core.errors import CraftbtError
from craftbt.trees.structure_template import parse_template
from tests.buildkit import AT, HELD_OUT, SHIPPED, make_runner, world_matches


@pytest.mark.parametrize("template", [*SHIPPED, str(HELD_OUT)], ids=[*SHIPPED, "held_out_lookout"])
def test_every_template_builds_from_an_empty_site(tmp_path: Path, template: str) -> None:
    runner, body, store = make_runner(tmp_path, template, facing="E")
    meta = runner.run()
    assert meta.status.value == "complete", meta.blocked_reason
    assert world_matches(runner, body)
    assert all(n == 1 for n in store.placement_counts(runner.build_id).values())
    assert len(meta.checkpoints) == len(runner.template.modules)
    assert all(r.passed for r in meta.checkpoints[-1].invariant_results), meta.checkpoints[-1].invariant_results


def test_identical_work_package_is_not_rerun_and_the_module_is_reported_blocked(tmp_path: Path) -> None:
    runner, body, store = make_runner(tmp_path, "hut")
    stuck = Anchor(origin=AT, facing=Facing.N).absolute(Cell(dx=0, dy=1, dz=2))  # a back-wall cell of the shell
    body.set_block(stuck, "bedrock")  # wrong, and cannot be dug: no package can ever fix it
    meta = runner.run()
    assert meta.status.value == "blocked"
    assert meta.blocked_reason is not None and meta.blocked_reason.startswith("no_progress:shell")
    assert str(tuple(stuck)) in meta.blocked_reason and "not_diggable" in meta.blocked_reason
    packages = [e for e in store.events(runner.build_id, "build_blocked")]
    assert (
        packages
        and {"pos": list(stuck), "expected": "cobblestone", "observed": "bedrock", "issue": "wrong"}
        in (packages[0]["cells"])
    )
    # One attempt (dig the bedrock, place the rest); the same package against the same world is refused,
    # not re-run to the attempt cap.
    shell_runs = [o for o in runner.outcomes if "shell" in o.tree]
    assert len(shell_runs) == 1


# -- access repair wherever the corridor lives --------------------------------------------------------------
def test_blocked_corridor_outside_the_entrance_module_is_repaired_before_the_build_continues(tmp_path: Path) -> None:
    # The cottage's corridor is an empty box of its porch module (built last), not of the shell that
    # has the entrance: before the porch exists no module witness holds those cells.
    runner, body, store = make_runner(tmp_path, "cottage")
    corridor = Anchor(origin=AT, facing=Facing.N).absolute(Cell(dx=4, dy=2, dz=-2))
    assert all(corridor not in w.absolute_empty() for m, w in runner.witnesses.items() if m != "porch")

    def progress(kind: str, data: dict[str, object]) -> None:
        if kind == "package" and data["module"] == "floor" and data["label"] == "module":
            body.set_block(corridor, "dirt")  # drift in front of the door while the floor goes in

    runner.progress = progress
    meta = runner.run()
    assert meta.status.value == "complete", meta.blocked_reason
    failed = store.events(runner.build_id, "build_invariant_failed")
    assert failed and "access" in failed[0]["openDeltas"][0]["issue"]
    assert failed[0]["moduleCursor"] == runner.plan.order.index("floor")  # caught at the floor's checkpoint
    assert any(e.get("clear") == [list(corridor)] for e in store.events(runner.build_id, "build_repair"))
    floor_ckpt = next(c for c in meta.checkpoints if c.completed_modules[-1] == "floor")
    assert any("access" in d.issue and d.status == "repaired" for d in floor_ckpt.open_deltas)
    assert body.block_at(corridor).name == "air" and world_matches(runner, body)


def test_template_whose_entrance_cannot_be_kept_clear_is_refused() -> None:
    text = (
        "template: x\nmodules:\n"
        "  - id: shell\n    type: shell\n"
        "    fill: [{from: [0, 0, 0], to: [2, 1, 2], block: dirt, hollow: true}]\n"
        "    empty: [{from: [1, 0, 0], to: [1, 1, 0]}]\n    entrance: [1, 0, 0]\n"
        "  - id: porch\n    type: decor\n    depends_on: [shell]\n"
        "    cells: [{dx: 1, dy: 1, dz: -2, block: stone}]\n"
    )
    with pytest.raises(CraftbtError) as info:
        parse_template(text, "t.yaml", known_blocks=frozenset({"dirt", "stone"}))
    assert "entrance of 'shell' cannot be kept clear" in str(info.value) and "'porch'" in str(info.value)


def test_a_template_written_by_someone_else_builds(tmp_path: Path) -> None:
    """Held out: the reviewer's watch post, not one the protocol's author wrote or tuned against."""
    template = str(Path(__file__).resolve().parent / "structures" / "watchpost.yaml")
    runner, body, store = make_runner(tmp_path, template, facing="S")
    meta = runner.run()
    assert meta.status.value == "complete", meta.blocked_reason
    assert world_matches(runner, body)
    assert all(n == 1 for n in store.placement_counts(runner.build_id).values())
