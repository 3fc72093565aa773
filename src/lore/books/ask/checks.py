"""The two checks every claim passes: its quote is in its passage, and its passage supports it.

The first is exact and local (`lore.core.quotes`: quote marks, dashes, word joiners, spacing and
case do not count, anything else does). The second asks the model, in rounds: round 1 checks
the extracted claims, round 2 the sentences the writer made of them. A check that fails in any
way (an error, a timeout, a reply that is not the JSON asked for) counts as unsupported: an
answer may lose a claim to a broken checker, never gain an unchecked one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lore.books.ask import prompts
from lore.books.ask.records import Citation, Evidence
from lore.books.ask.roles import swapped
from lore.books.ask.switches import Switches
from lore.core.llm import ModelClient
from lore.core.quotes import comparable, find_quote


def locate(quote: str, evidence: Evidence) -> Citation | None:
    """The citation for a quote when it is in the passage (the passage's own words), else None."""
    span = find_quote(quote, evidence.text)
    if span is None or span.end - span.start < 3:
        return None
    return Citation(
        evidence.book_id,
        evidence.book_title,
        evidence.chapter,
        evidence.passage,
        evidence.passage_id,
        " ".join(evidence.text[span.start : span.end].split()),
    )


@dataclass
class Item:
    statement: str
    evidence: Evidence
    quote: str


@dataclass
class Verdict:
    supported: bool
    reason: str
    asked: bool  # the model was asked this round (not held from an earlier round or decided here)


def key_of(statement: str, passage_id: int) -> tuple[str, int]:
    return comparable(statement)[0].strip(" ."), passage_id


def _key(item: Item) -> tuple[str, int]:
    return key_of(item.statement, item.evidence.passage_id)


class Checker:
    """Support checks for one answer; remembers every verdict it gave, by statement and passage."""

    def __init__(self, client: ModelClient, switches: Switches):
        self.client = client
        self.switches = switches
        self.verdicts: dict[tuple[str, int], Verdict] = {}

    def check(self, items: list[Item], round_no: int) -> list[Verdict]:
        out: list[Verdict | None] = [None] * len(items)
        ask: list[int] = []
        for i, item in enumerate(items):
            held = self.verdicts.get(_key(item))
            if held is not None and self.switches.keep_first_verdicts:
                out[i] = Verdict(held.supported, held.reason, asked=False)
            elif self.switches.who_did_what and swapped(item.statement, item.quote):
                out[i] = Verdict(False, "it swaps who did what to whom in its quote", asked=False)
            else:
                ask.append(i)
        for i, verdict in zip(ask, self._ask([items[i] for i in ask], round_no), strict=True):
            out[i] = verdict
        final = [v if v is not None else Verdict(False, "not checked", False) for v in out]
        for item, verdict in zip(items, final, strict=True):
            if self.switches.keep_first_verdicts:
                self.verdicts.setdefault(_key(item), verdict)
            else:  # the latest verdict stands, even against an earlier one
                self.verdicts[_key(item)] = verdict
        return final

    def _ask(self, items: list[Item], round_no: int) -> list[Verdict]:
        if not items:
            return []
        asks = [
            prompts.check_prompt(i.statement, i.evidence, i.quote, round_no, self.switches) for i in items
        ]
        schema: Any = prompts.CheckReasonFirst if self.switches.reason_first else prompts.CheckVerdictFirst
        replies = self._many(asks, schema)
        verdicts = [self._read(r) for r in replies]
        if not self.switches.reason_first:
            return verdicts
        again = [i for i, r in enumerate(replies) if _contradicts(r)]
        if again:
            retry = [prompts.recheck_prompt(*asks[i], replies[i].reason, replies[i].verdict) for i in again]
            for i, reply in zip(again, self._many(retry, schema), strict=True):
                verdicts[i] = (
                    Verdict(False, "its verdict contradicted its own reason twice", True)
                    if _contradicts(reply)
                    else self._read(reply)
                )
        return verdicts

    def _many(self, asks: list[tuple[str, str]], schema: Any) -> list[Any]:
        """One reply per (system, user) prompt, or the error in its place."""
        by_system: dict[str, list[int]] = {}
        for i, (system, _) in enumerate(asks):
            by_system.setdefault(system, []).append(i)
        out: list[Any] = [None] * len(asks)
        for system, where in by_system.items():
            results = self.client.structured_many_sync(
                [asks[i][1] for i in where], schema, system=system, return_exceptions=True, temperature=0
            )
            for i, result in zip(where, results, strict=True):
                out[i] = result if isinstance(result, BaseException) else result.value
        return out

    @staticmethod
    def _read(reply: Any) -> Verdict:
        if isinstance(reply, BaseException):
            return Verdict(False, f"the check failed ({type(reply).__name__})", True)
        return Verdict(reply.verdict == "supported", reply.reason, True)


def _contradicts(reply: Any) -> bool:
    if isinstance(reply, BaseException) or not hasattr(reply, "reason_finds"):
        return False
    return (reply.reason_finds == "supports") != (reply.verdict == "supported")
