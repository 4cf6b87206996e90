"""Read-only leaves are verified by reading the world again, never by saying so: a false reading is caught."""

from __future__ import annotations

from typing import Any

from craftbt.capabilities.spec import Verdict
from craftbt.world.body import BlockInfo, BlockPos, BodyError, BodyErrorCode
from craftbt.world.scenarios.loader import build, load_scenario
from craftbt.world.scenarios.schema import Scenario
from tests.leafkit import run_leaf


class Lying:
    """A body whose first answer to ``method`` is ``lie`` (then the truth, or ``then`` if given)."""

    def __init__(self, inner: Any, method: str, lie: Any, then: Any = None) -> None:
        self.inner, self.method, self.lie, self.then = inner, method, lie, then
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        real = getattr(self.inner, name)
        if name != self.method:
            return real

        def answer(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            if self.calls == 1:
                return self.lie(*args, **kwargs) if callable(self.lie) else self.lie
            if self.then is not None:
                return self.then(*args, **kwargs)
            return real(*args, **kwargs)

        return answer


def flat(**extra: Any) -> Any:
    return build(Scenario.model_validate({"name": "flat", "generator": {"type": "flat"}, **extra}))


def under_feet(body: Any) -> BlockPos:
    return body.position().block().offset(dy=-1)


def test_get_block_at_is_verified_by_a_second_read() -> None:
    body = flat()
    run = run_leaf(body, "get_block_at", {"position": dict(zip("xyz", under_feet(body), strict=True))})
    assert run.ok and run.verdict is Verdict.VERIFIED and run.result.verification is not None
    assert run.result.verification.evidence["probed"] == run.observables["block"]


def test_a_false_block_reading_is_contradicted() -> None:
    body = flat()
    pos = under_feet(body)
    liar = Lying(body, "block_at", lambda p: BlockInfo(name="diamond_ore", pos=p, state={}))
    run = run_leaf(liar, "get_block_at", {"position": dict(zip("xyz", pos, strict=True))})
    assert run.verdict is Verdict.CONTRADICTED and not run.ok


def unloaded(pos: BlockPos) -> BlockInfo:
    raise BodyError(BodyErrorCode.OUT_OF_REACH, f"block at {tuple(pos)} is not loaded", retryable=True)


def test_an_unloaded_chunk_at_verification_is_inconclusive_not_a_crash() -> None:
    """The mineflayer body raises out_of_reach for a block in an unloaded chunk; the verifier must cope."""
    body = flat()
    pos = under_feet(body)
    first = body.block_at(pos)
    liar = Lying(body, "block_at", first, then=unloaded)
    run = run_leaf(liar, "get_block_at", {"position": dict(zip("xyz", pos, strict=True))})
    assert run.verdict is Verdict.INCONCLUSIVE and run.ok


def test_a_read_of_an_unloaded_chunk_fails_as_the_leaf() -> None:
    body = flat()
    p = body.position().block()
    target = {"x": p.x + 2, "y": p.y, "z": p.z}
    run = run_leaf(Lying(body, "block_at", unloaded, then=unloaded), "get_block_at", {"position": target})
    assert run.code == "out_of_reach"  # the leaf's own read fails plainly, as a leaf failure


def test_a_missed_hostile_is_contradicted() -> None:
    body = load_scenario("zombie_and_sword")
    honest = run_leaf(body, "sense_hostiles", {"radius": 16})
    assert honest.ok and honest.observables["count"] >= 1 and honest.verdict is Verdict.VERIFIED
    liar = Lying(body, "entities", [])
    blind = run_leaf(liar, "sense_hostiles", {"radius": 16})
    assert blind.verdict is Verdict.CONTRADICTED and blind.result.verification is not None
    assert blind.result.verification.evidence["missed"]


def test_a_false_light_reading_is_contradicted() -> None:
    body = flat()
    honest = run_leaf(body, "get_light_level", {})
    assert honest.verdict is Verdict.VERIFIED
    level = honest.observables["lightLevel"]
    liar = Lying(body, "light_level", (level + 8) % 16)
    assert run_leaf(liar, "get_light_level", {}).verdict is Verdict.CONTRADICTED


def test_find_resource_positions_are_read_again() -> None:
    body = load_scenario("sparse_trees")
    honest = run_leaf(body, "find_resource", {"blockType": "_log", "partialMatch": True, "radius": 32})
    assert honest.ok and honest.verdict is Verdict.VERIFIED, honest.result
    air = body.position().block().offset(dy=2)
    liar = Lying(body, "find_blocks", [air])
    lie = run_leaf(liar, "find_resource", {"blockType": "oak_log", "radius": 32})
    assert lie.verdict is Verdict.CONTRADICTED


def test_chat_is_verified_by_the_chat_log_not_by_itself() -> None:
    body = flat()
    assert run_leaf(body, "chat", {"message": "hello"}).verdict is Verdict.VERIFIED

    class Deaf:
        """A server that drops the bot's chat: nothing is ever heard."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def chat_messages(self, since: int = 0) -> tuple[int, list[str]]:
            return 0, []

        def __getattr__(self, name: str) -> Any:
            return getattr(self.inner, name)

    run = run_leaf(Deaf(body), "chat", {"message": "anyone?"})
    assert run.verdict is Verdict.INCONCLUSIVE


def test_sense_hostiles_with_nothing_around_is_verified() -> None:
    body = flat()
    run = run_leaf(body, "sense_hostiles", {})
    assert run.verdict is Verdict.VERIFIED and run.observables["count"] == 0
