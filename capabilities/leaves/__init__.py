"""The shipped leaves, one module per concept, each declaring what it registers as ``SPECS``.

movement, blocks (dig, place, light, acquire, pick up), sensing, crafting, containers, combat, survival
(eat, sleep), farming, mechanisms (doors, levers, pistons, redstone, weather and time), construction
(modules, sites, features) and exploration; ``common`` and ``blockwork`` hold the steps they share.
:data:`craftbt.capabilities.default.BUILTIN_PLUGINS` lists them: they join the registry the way any
plugin does.
"""
