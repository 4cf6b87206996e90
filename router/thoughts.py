"""The intrusive thought processor (seed 003): outside suggestions -> intents, through a safety filter.

Every suggestion gets a recorded :class:`ThoughtDecision`: ``accepted`` with an
intent, or ``refused`` with a stable reason — ``rate_limited``, ``griefing``,
``attack_player``, ``attack_passive_mob``, ``destroy_others_build``,
``leave_geofence``, ``server_command``, ``not_understood``. A suggestion that
is a server command (``/op me``) is refused outright: commands reach a server
only from a tree run under a profile that grants them, never from a suggestion. The filter is a table of patterns, run
before parsing, so a harmful request never reaches a planner. Attacking a
passive mob is allowed only with a stated cause (food, when hungry).
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from pydantic import BaseModel

from craftbt.core.errors import CraftbtError
from craftbt.planners.intent import Intent, IntentSource, Safety, parse_goal
from craftbt.router.priors import PriorsStore

PASSIVE_MOBS = ("cow", "sheep", "pig", "chicken", "villager", "horse", "cat", "wolf", "dog", "rabbit", "llama",
                "fox", "parrot", "turtle", "bee", "goat", "donkey", "mule", "axolotl", "frog")
_ATTACK = r"(kill|attack|hit|punch|slay|murder|shoot|hurt)"

#: (reason, pattern): the first match refuses the suggestion
REFUSALS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("attack_player", re.compile(rf"\b{_ATTACK}\b.*\b(player|players|steve|alex|@\w+|him|her|them)\b")),
    ("destroy_others_build", re.compile(
        r"\b(destroy|break|tear down|demolish|dismantle|raze|steal from|loot)\b.*\b(their|his|her|someone|"
        r"other|others'?|neighbou?r'?s?|player'?s?|base|house|home|village|build)\b")),
    ("griefing", re.compile(r"\b(grief|griefing|tnt|blow up|burn|set fire|lava cast|flood|vandali[sz]e)\b")),
    ("leave_geofence", re.compile(r"\b(leave|escape|wander|run away|go far|travel far)\b.*\b(area|fence|"
                                  r"zone|border|bounds|base|spawn|away)\b|\bgo to\s+-?\d{4,}")),
)
_PASSIVE = re.compile(rf"\b{_ATTACK}\b.*\b({'|'.join(PASSIVE_MOBS)})s?\b")
_FOOD_CAUSE = re.compile(r"\b(for food|to eat|hungry|for meat|starving)\b")
HUNGRY_BELOW = 14


class ThoughtDecision(BaseModel):
    text: str
    source: str
    accepted: bool
    reason: str
    intent: Intent | None = None
    at: float


@dataclass
class ThoughtProcessor:
    priors: PriorsStore | None = None
    max_per_window: int = 5
    window_s: float = 60.0
    clock: Callable[[], float] = time.monotonic

    def __post_init__(self) -> None:
        self._times: deque[float] = deque()
        self.log: list[ThoughtDecision] = []

    def process(self, text: str, *, source: str = "user", food: int | None = None) -> ThoughtDecision:
        now = self.clock()
        while self._times and now - self._times[0] > self.window_s:
            self._times.popleft()
        lowered = " ".join(text.lower().split())
        if len(self._times) >= self.max_per_window:
            return self._decide(text, source, False, "rate_limited")
        self._times.append(now)
        if lowered.startswith("/"):
            return self._decide(text, source, False, "server_command")
        for reason, pattern in REFUSALS:
            if pattern.search(lowered):
                return self._decide(text, source, False, reason)
        if _PASSIVE.search(lowered) and not (_FOOD_CAUSE.search(lowered) and (food is None or food < HUNGRY_BELOW)):
            return self._decide(text, source, False, "attack_passive_mob")
        try:
            goal = parse_goal(lowered)
        except CraftbtError as err:
            return self._decide(text, source, False, "not_understood: " + err.problems[0].message)
        intent = Intent(goal=goal, source=IntentSource.USER if source == "user" else IntentSource.SYSTEM,
                        provenance_ref=text, safety=Safety(allowed=True), context={"suggested": True})
        return self._decide(text, source, True, "accepted", intent)

    def _decide(self, text: str, source: str, ok: bool, reason: str, intent: Intent | None = None
                ) -> ThoughtDecision:
        decision = ThoughtDecision(text=text, source=source, accepted=ok, reason=reason, intent=intent,
                                   at=time.time())
        self.log.append(decision)
        if self.priors is not None:
            self.priors.record_decision("thought", decision.model_dump(mode="json"),
                                        intent_id=intent.id if intent else None,
                                        goal=str(intent.goal) if intent else None, chosen=reason)
        return decision
