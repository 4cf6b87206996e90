"""The flowers the natural world grows, by biome: data shared by the world's generator and the planners'
placement knowledge (:mod:`craftbt.world.nature`), so knowing where a flower grows loads no simulator."""

from __future__ import annotations

#: Biome -> its one-block flowers with weights (vanilla 1.21's flower features: plains' flower_plains; forests'
#: flower_default with the lily of the valley of forest_flowers; taiga's flower_default; none in deserts).
#: The two-block flowers (lilac, peony, rose bush, sunflower) are left out: a plant here is one block.
FLOWERS: dict[str, tuple[tuple[str, float], ...]] = {
    "plains": (("dandelion", 0.2), ("poppy", 0.2), ("azure_bluet", 0.12), ("oxeye_daisy", 0.12),
               ("cornflower", 0.12), ("red_tulip", 0.06), ("orange_tulip", 0.06), ("white_tulip", 0.06),
               ("pink_tulip", 0.06)),
    "forest": (("dandelion", 0.35), ("poppy", 0.35), ("lily_of_the_valley", 0.3)),
    "birch_forest": (("dandelion", 0.35), ("poppy", 0.35), ("lily_of_the_valley", 0.3)),
    "taiga": (("dandelion", 0.5), ("poppy", 0.5)),
    "desert": (),
}
#: Every flower the world grows, in the order a chunk interns them.
FLOWER_NAMES: tuple[str, ...] = tuple(dict.fromkeys(name for kinds in FLOWERS.values() for name, _ in kinds))
