"""Limits on dynamic client registration, which anyone who reaches the server may call.

Registration needs no credentials (that is what lets a connector add itself), so it is what a
stranger can flood. Three bounds keep it small, each a setting of `RegistrationLimits`:

- a rate: at most `per_minute` registrations in any 60 seconds; one more is answered 429 with
  `Retry-After` (the seconds until the oldest of them leaves the window);
- a cap: at most `most_unfinished` registered clients that have not completed a grant (no
  token was ever issued to them: the local user never approved them, or they never came back
  with the code); one more is answered 429 until the oldest of them expires;
- an expiry: such a client is forgotten `unfinished_ttl` seconds after it registered (its row
  and any unused code go), long after a consent page (10 minutes) and a code (10 minutes) end.

A client that completed a grant is never capped or expired here: each needed the local user's
approval, and `lore serve tokens` lists and revokes them. The clock is the provider's, so a
test moves it instead of waiting.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

WINDOW = 60.0  # seconds over which `per_minute` is counted


@dataclass(frozen=True)
class RegistrationLimits:
    """How many registrations the server takes, and how long an unapproved client is kept."""

    per_minute: int = 10
    most_unfinished: int = 100
    unfinished_ttl: float = 3600.0


@dataclass(frozen=True)
class Refusal:
    """Why a registration is refused now, and when to try again (seconds, for Retry-After)."""

    message: str
    retry_after: int


class RegistrationRate:
    """The sliding window of recent registrations (in memory: a restart forgives, the cap does not)."""

    def __init__(self, per_minute: int):
        self.per_minute = per_minute
        self._recent: deque[float] = deque()

    def refusal(self, now: float) -> Refusal | None:
        """None (and the attempt counted) when one more fits the window, else a refusal."""
        while self._recent and self._recent[0] <= now - WINDOW:
            self._recent.popleft()
        if len(self._recent) >= self.per_minute:
            wait = max(1, math.ceil(self._recent[0] + WINDOW - now))
            return Refusal(
                f"too many client registrations: at most {self.per_minute} a minute; try again in {wait} s",
                wait,
            )
        self._recent.append(now)
        return None
