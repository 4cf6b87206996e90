"""The task bootstrapper (seed 003): memory -> LLM -> exploration, so the bot always has a purpose.

Called at start and whenever the task board is empty:

1. **journal recovery** — tasks the task journal (``tasks`` in episodic memory)
   holds as ``running`` or ``preempted`` were cut short (a kill, a crash, Ctrl-C,
   an urgent need); they come back first, the one that was running first of all;
2. **the LLM** — when one is configured (``CRAFTBT_LLM_URL``/``CRAFTBT_LLM_MODEL``),
   it is asked for one goal in the planners' grammar (``obtain 4 torch``); an
   answer that does not parse, or any endpoint error, falls through;
3. **exploration** — a walk to a point 8-24 blocks from home inside the geofence, in a
   seeded direction, to see new resources (recorded in memory by the loop).

Every choice is returned with where it came from (``planning.bootstrap.tasks``).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field
from typing import Any

from craftbt.autonomy.goals import GoalKind, GoalSource, GoalSpec
from craftbt.autonomy.memory import EpisodicMemory
from craftbt.core.errors import CraftbtError
from craftbt.executor.config import Bounds
from craftbt.planners.intent import parse_goal
from craftbt.planners.llm.client import ChatClient, LlmConfig, LlmError
from craftbt.world.body import BlockPos, Position

#: exploration walks to points this far from home: near enough that the bot stays on ground it knows
EXPLORE_NEAR, EXPLORE_FAR = 8, 24
PROMPT = ("You direct a Minecraft survival bot. Answer with ONE goal line and nothing else, in the form "
          "'obtain [count] <item>' (for example 'obtain 4 torch'). The bot's state: {state}")


@dataclass
class TaskBootstrapper:
    memory: EpisodicMemory
    llm: LlmConfig | None = None
    seed: int = 0
    bounds: Bounds | None = None
    diagnostics: list[dict[str, Any]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def recover(self) -> list[GoalSpec]:
        """Unfinished tasks from the task journal: the one left running first, then preempted ones."""
        rows = self.memory.tasks("running") + self.memory.tasks("preempted")
        out = [GoalSpec(task_id=r["task_id"], goal=r["goal"], kind=GoalKind(r["kind"]),
                        source=GoalSource.MEMORY, urgency=max(float(r["priority"]), 0.3),
                        why=[f"recovered from the task journal ({r['status']})"]) for r in rows]
        self._note("memory", [g.goal for g in out])
        return out

    def ask_llm(self, state: dict[str, Any]) -> GoalSpec | None:
        if self.llm is None:
            return None
        try:
            text = ChatClient(self.llm).complete([{"role": "user", "content": PROMPT.format(state=state)}])
            goal = parse_goal(text.strip().splitlines()[0].strip().strip("'\"`."))
        except (LlmError, CraftbtError, IndexError) as err:
            self._note("llm", [], error=str(err))
            return None
        self._note("llm", [str(goal)])
        return GoalSpec(task_id=f"llm:{goal}", goal=str(goal), kind=GoalKind.ROUTED, source=GoalSource.BOOTSTRAP,
                        urgency=0.35, why=["the LLM proposed it"])

    def explore(self, here: Position) -> GoalSpec:
        for _ in range(20):
            angle = self.rng.random() * math.tau
            dist = self.rng.uniform(EXPLORE_NEAR, EXPLORE_FAR)
            target = BlockPos(math.floor(here.x + math.cos(angle) * dist), math.floor(here.y),
                              math.floor(here.z + math.sin(angle) * dist))
            if self.bounds is None or self.bounds.contains(target):
                break
        spec = GoalSpec(task_id=f"explore:{target.x},{target.z}", goal=f"explore {target.x},{target.y},{target.z}",
                        kind=GoalKind.ROUTINE, source=GoalSource.BOOTSTRAP, urgency=0.25,
                        why=["nothing else to do: look for resources"])
        self._note("exploration", [spec.goal])
        return spec

    def next_goal(self, here: Position, state: dict[str, Any]) -> GoalSpec:
        return self.ask_llm(state) or self.explore(here)

    def _note(self, stage: str, tasks: list[str], **extra: Any) -> None:
        self.diagnostics.append({"event": "planning.bootstrap.tasks", "stage": stage, "tasks": tasks, **extra})
