"""The command and predicate tables (seed 004 sections 4 and 5): arities, named arguments, the capability
each command is dispatched through (section 10), and the aliases.

A *target* is one position value (a selector such as ``f1+u2``, ``waypoint("home")`` or ``block(...)``)
or three integer expressions ``x, y, z``; so a command taking one target accepts 1 or 3 positional
arguments. The checker uses these tables before anything runs; the interpreter uses them again.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Signature:
    #: accepted positional argument counts (None: any number, for ``log``)
    arity: frozenset[int] | None
    named: frozenset[str] = frozenset()
    #: the registered capability the command dispatches through, if any (else a direct body call)
    capability: str | None = None
    usage: str = ""
    extra_capabilities: tuple[str, ...] = field(default=())


def _sig(arity: set[int] | None, usage: str, named: set[str] | None = None, capability: str | None = None,
         extra: tuple[str, ...] = ()) -> Signature:
    return Signature(frozenset(arity) if arity is not None else None, frozenset(named or ()), capability, usage,
                     extra)


COMMANDS: dict[str, Signature] = {
    "move": _sig({1}, "move(f1) | move(f1^) | move(f1_)"),
    "turn": _sig({1}, "turn(r90) | turn(l90) | turn(180)"),
    "turn_face": _sig({1}, 'turn_face("north")'),
    "dig": _sig({1, 3}, "dig(f1+u2) | dig(x, y, z)", capability="dig_block_at"),
    "break": _sig({1, 3}, "break(f1+u2) | break(x, y, z)", capability="dig_block_at"),
    "place": _sig({2, 4}, 'place("id", f1, face:"up") | place("id", x, y, z, face:"up")', {"face"},
                  capability="place_block"),
    "equip": _sig({1}, 'equip("minecraft:iron_pickaxe")'),
    "build_up": _sig({0, 1}, 'build_up() | build_up("dirt")'),
    "pickup_blocks": _sig({0, 1}, "pickup_blocks() | pickup_blocks(16)", capability="collect_items"),
    "scan": _sig({0, 1}, "scan(r:2)", {"r"}),
    "block_info": _sig({1, 3}, "block_info(f1) | block_info(x, y, z)"),
    "goto": _sig({1, 3}, "goto(x, y, z, tol:1) | goto(waypoint(\"home\"), tol:1) | goto(f6, tol:1)",
                 {"tol", "timeout", "allow_dig", "max_drop", "max_step"}, capability="move_to"),
    "craft": _sig({1, 2}, 'craft("stick", 4)', capability="craft_recipe"),
    "plant": _sig({2, 4}, 'plant("oak_sapling", x, y, z)', capability="place_block"),
    "wait": _sig({1}, "wait(10000)", capability="wait"),
    "open_container": _sig({1, 3}, "open_container(x, y, z)", capability="open_container"),
    "close_container": _sig({0}, "close_container()", capability="close_container"),
    "container_put": _sig({3}, 'container_put("input", "iron_ore", 8)', capability="transfer_items"),
    "container_take": _sig({2}, 'container_take("output", 8)', capability="transfer_items"),
    "container_items": _sig({0}, "container_items()"),
    "deposit": _sig({1, 2, 3, 5}, 'deposit(x, y, z, "oak_log", 32) | deposit("oak_log")',
                    capability="transfer_items", extra=("open_container", "close_container")),
    "withdraw": _sig({2, 3, 5}, 'withdraw(x, y, z, "oak_log", 8) | withdraw("oak_log", 8)',
                     capability="transfer_items", extra=("open_container", "close_container")),
    "log": _sig(None, 'log("text", value, ...)'),
    "drop": _sig({1, 2}, 'drop("minecraft:cobblestone", count:4)', {"count"}),
    "eat": _sig({1}, 'eat("minecraft:cooked_beef")', capability="consume_food"),
    # the one core macro (section 8) that needs state across calls is native: see interp.cmd_torch_cadence_7
    "torch_cadence_7": _sig({0}, "torch_cadence_7()", capability="place_block"),
}

ALIASES: dict[str, str] = {"open": "open_container", "close": "close_container"}
for _alias, _target in ALIASES.items():
    COMMANDS[_alias] = COMMANDS[_target]

PREDICATES: dict[str, Signature] = {
    "safe_step_up": _sig({1, 3}, "safe_step_up(f1)"),
    "safe_step_down": _sig({1, 3}, "safe_step_down(f1)"),
    "can_stand": _sig({1, 3}, "can_stand(f1)"),
    "is_air": _sig({1, 3}, "is_air(f1) | is_air(x, y, z)"),
    "has_item": _sig({1, 2}, 'has_item("minecraft:torch") | has_item("torch", 4)'),
    "is_hazard": _sig({1}, 'is_hazard("lava_near")'),
    "block_is": _sig({2, 4}, 'block_is(f1, "dirt") | block_is(x, y, z, "dirt")'),
}

#: named hazards for ``is_hazard`` and get_vox's ``predicates.HAZARDS``
HAZARD_NAMES = ("lava_near", "water_near", "gravel_overhead", "fire_near", "void_below")

#: every capability a script can dispatch (router/gate.py checks each is registered)
EMITTABLE_VERBS: frozenset[str] = frozenset(
    {s.capability for s in COMMANDS.values() if s.capability} | {c for s in COMMANDS.values()
                                                                 for c in s.extra_capabilities}
)
