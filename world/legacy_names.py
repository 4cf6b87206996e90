"""Item names of older Minecraft versions that task suites still use, mapped to their 1.21.4 names.

Every old name here is an item of minecraft-data's ``pc/1.13.2/items.json`` (the flattening's names) that
1.21.4 no longer has, with the item vanilla renamed it to (a test checks both sides against minecraft-data).
Plancraft writes 1.16 names (``grass``, ``grass_path``, ``scute``); Mindcraft's tasks use ``rose_red``.
:func:`modern_name` resolves a name and says when it did: a caller reports the rename, never silently.
"""

from __future__ import annotations

LEGACY_ITEMS: dict[str, str] = {
    "cactus_green": "green_dye",  # 1.14 renamed the dyes after their colour
    "dandelion_yellow": "yellow_dye",
    "rose_red": "red_dye",
    "grass": "short_grass",  # 1.20.3
    "grass_path": "dirt_path",  # 1.17
    "scute": "turtle_scute",  # 1.20.5
    "sign": "oak_sign",  # 1.14 gave every wood its sign
    "zombie_pigman_spawn_egg": "zombified_piglin_spawn_egg",  # 1.16
}


def modern_name(name: str) -> tuple[str, str | None]:
    """``(1.21.4 name, note)``: the note names the rename (``None`` when ``name`` was not an old name)."""
    bare = name.removeprefix("minecraft:")
    new = LEGACY_ITEMS.get(bare)
    if new is None:
        return bare, None
    return new, f"{bare!r} is the pre-1.21 name of {new!r}"


def modern_inventory(inventory: dict[str, int]) -> tuple[dict[str, int], list[str]]:
    """``inventory`` with old names renamed (counts of an old and a new name add up), and one note per rename."""
    out: dict[str, int] = {}
    notes: list[str] = []
    for item, count in inventory.items():
        new, note = modern_name(item)
        out[new] = out.get(new, 0) + count
        if note:
            notes.append(note)
    return out, notes


__all__ = ["LEGACY_ITEMS", "modern_inventory", "modern_name"]
