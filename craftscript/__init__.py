"""CraftScript (seed 004): a small, safe, C-style scripting language for driving a bot.

``parse`` turns text into a typed AST, ``check`` runs the static checks, the interpreter runs a
program on a body through the capability registry, ``FunctionStore`` keeps persistent versioned
functions, and ``Introspection`` is the get_vox / affordances / nearest / block_info /
get_topography / nav API. ``EMITTABLE_VERBS`` names every capability a script can dispatch
(``craftbt gate`` checks each is registered).
"""

from __future__ import annotations

from craftbt.craftscript.commands import EMITTABLE_VERBS
from craftbt.craftscript.errors import ScriptError, ScriptErrorCode
from craftbt.craftscript.parser import parse

__all__ = ["EMITTABLE_VERBS", "ScriptError", "ScriptErrorCode", "parse"]
