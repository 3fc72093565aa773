"""The checker's three fixes, each behind its own switch so an evaluation can turn one off.

- `keep_first_verdicts`: a claim checked in round 1 keeps that verdict when the written answer
  restates it in round 2 (a checker asked twice can answer twice differently).
- `reason_first`: the checker writes its reason before its verdict, and a verdict its own
  reason contradicts is asked again (and cut if it still disagrees with itself).
- `who_did_what`: the extractor, both checks and the writer are told to keep who did what to
  whom, and a claim or sentence that names two people in the opposite order of its quote's
  action is cut.

Each is on by default; config `books.ask.<switch>` (true/false) changes the default and a flag
of `lore books eval` changes it for one evaluation run.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from lore.core.config import load_settings
from lore.core.errors import InvalidInput

SWITCHES = {
    "keep_first_verdicts": "later check rounds keep the first round's verdicts",
    "reason_first": "the checker reasons before its verdict; a self-contradicting verdict is asked again",
    "who_did_what": "explicit who-did-what-to-whom rules for the writer and both checks",
}


@dataclass(frozen=True)
class Switches:
    keep_first_verdicts: bool = True
    reason_first: bool = True
    who_did_what: bool = True

    def as_dict(self) -> dict[str, bool]:
        return asdict(self)

    def with_(self, name: str, on: bool) -> Switches:
        return replace(self, **{check_switch(name): on})


def check_switch(name: str) -> str:
    """A switch name as given on the command line (dashes or underscores), or a one-line error."""
    key = name.strip().replace("-", "_")
    if key not in SWITCHES:
        raise InvalidInput(f"unknown switch {name!r}: the switches are {', '.join(SWITCHES)}")
    return key


def configured(overrides: dict[str, bool | None] | None = None) -> Switches:
    """The switches from config `books.ask.<name>`, then any override that is not None."""
    section = load_settings().section("books").get("ask", {})
    values: dict[str, Any] = {}
    for f in fields(Switches):
        value = section.get(f.name) if isinstance(section, dict) else None
        if isinstance(value, bool):
            values[f.name] = value
    for name, value in (overrides or {}).items():
        if value is not None:
            values[check_switch(name)] = value
    return Switches(**values)
