"""`lore books eval`: deterministic measures of every answer, and a blind paired test of a switch.

Every run measures, per answer: the share of claims whose quote is exactly in its passage, the
share of sentences with a citation, spoiler leaks and retrieval hit@3 (a labelled answering
passage among the three best gathered). Leaks are read three ways, each must be zero: a
citation past the question's cap; a name the reader has not met at the cap anywhere in what the
answer shows (its sentences, its claims, its message, as `--json` would print them); and, for
a question asked before its answer, the labelled answer itself in what it shows. With a
switch named and a model configured, each question is answered with the switch on and off and a
judge sees the two answers unlabelled, in a random order and then in the other: a verdict that
changes with the order is a tie. The non-ties are compared with a two-sided sign test.
"""

from __future__ import annotations

import json
import math
import random
import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from lore.books.ask import prompts
from lore.books.ask.labelled import Labelled, answer_passages, book_for, books_by_file, load, position
from lore.books.ask.pipeline import ask
from lore.books.ask.records import Answer
from lore.books.ask.switches import Switches, check_switch, configured
from lore.books.library import Stores, open_books
from lore.books.search import FOUND, NOT_REACHED
from lore.books.store.cap import Cap
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.grounding import GroundingCheck
from lore.core.llm import ModelClient, model_configured, model_run


@dataclass
class Metrics:
    questions: int = 0
    claims: int = 0
    exact_claims: int = 0
    sentences: int = 0
    cited_sentences: int = 0
    leaks: int = 0
    name_leaks: int = 0
    answer_leaks: int = 0
    labelled_answers: int = 0  # found questions with a labelled answer
    named_answers: int = 0  # ... whose answer says it
    found_expected: int = 0
    hit3: int = 0

    def add(
        self,
        answer: Answer,
        cap: tuple[int, int | None],
        answers: set[int],
        expect: str,
        *,
        unmet: Sequence[str] = (),
        named: tuple[str, ...] = (),
    ) -> None:
        """One answer's figures. `unmet`: the names past its cap; `named`: the labelled
        answer's forms, which a found answer should say and an early one must not."""
        self.questions += 1
        shown = _shown(answer)
        self.name_leaks += GroundingCheck(unmet=list(unmet)).unread(shown)
        says = any(_says(shown, form) for form in named)
        if expect == NOT_REACHED:
            self.answer_leaks += says
        elif named:
            self.labelled_answers += 1
            self.named_answers += says
        if answer.mode == "model":
            self.claims += len(answer.claims)
            self.exact_claims += sum(1 for c in answer.claims if c.citation is not None)
        else:  # an extractive sentence is its own claim
            self.claims += len(answer.sentences)
            self.exact_claims += sum(1 for s in answer.sentences if s.citations)
        self.sentences += len(answer.sentences)
        self.cited_sentences += sum(1 for s in answer.sentences if s.citations)
        chapter, passage = cap
        for s in answer.sentences:
            for c in s.citations:
                past = c.chapter > chapter or (
                    c.chapter == chapter and passage is not None and c.passage > passage
                )
                self.leaks += past
        if expect == FOUND:
            self.found_expected += 1
            best = [e.passage_id for e in sorted(answer.evidence, key=lambda e: e.rank)[:3]]
            self.hit3 += bool(answers & set(best))

    def as_dict(self) -> dict[str, Any]:
        share = lambda a, b: round(a / b, 3) if b else None  # noqa: E731
        return {
            **asdict(self),
            "exact_quote_share": share(self.exact_claims, self.claims),
            "cited_sentence_share": share(self.cited_sentences, self.sentences),
            "hit_at_3": share(self.hit3, self.found_expected),
            "names_the_answer": share(self.named_answers, self.labelled_answers),
        }


def _shown(answer: Answer) -> str:
    """Everything an answer shows a person or an agent, as `--json` prints it (the gathered
    passages' positions, not their text, which is under the cap by construction)."""
    data = answer.as_dict()
    data.pop("evidence", None)
    return json.dumps(data, ensure_ascii=False)


def _says(shown: str, form: str) -> bool:
    return (
        bool(form.strip()) and re.search(rf"(?<!\w){re.escape(form.strip())}(?!\w)", shown, re.I) is not None
    )


@dataclass
class Paired:
    switch: str
    on_wins: int = 0
    off_wins: int = 0
    ties: int = 0
    p_value: float = 1.0
    rows: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class EvalReport:
    split: str
    questions: int
    metrics: dict[str, Any]  # by arm: "default", or "on"/"off"
    paired: Paired | None = None
    notes: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def sign_test(wins: int, losses: int) -> float:
    """Two-sided exact sign test: the chance of a split at least this uneven under 50/50."""
    n = wins + losses
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(wins, losses) + 1)) / 2**n
    return min(1.0, 2 * tail)


def evaluate(
    path: Path,
    *,
    switch: str | None = None,
    split: str = "held_out",
    seed: int = 13,
    store: Stores = None,
    progress: Callable[[int, int], None] | None = None,
    switches: Switches | None = None,
) -> EvalReport:
    """Answer each labelled question at its position with `switches` (default: the configured
    ones); with `switch`, twice, that switch on and off over the same others."""
    db = open_books(store)
    labelled = [q for q in load(path) if split in ("all", q.split)]
    if not labelled:
        raise InvalidInput(f"no questions in the {split!r} split of {path.name}")
    books = books_by_file(db)
    base = switches or configured()
    arms: dict[str, Switches] = {"default": base}
    if switch is not None:
        name = check_switch(switch)
        if not model_configured():
            raise NeedsModel("a paired comparison of a switch needs a model (`lore model setup`)")
        arms = {"on": base.with_(name, True), "off": base.with_(name, False)}
    metrics = {arm: Metrics() for arm in arms}
    answers: dict[str, dict[str, Answer]] = {arm: {} for arm in arms}
    with model_run("books eval"):
        for i, q in enumerate(labelled):
            book = book_for(q, books)
            cap = position(db, book, q)
            truth = answer_passages(db, book, q)
            unmet = db.unmet_forms([Cap(book.id, cap[0], cap[1])])
            for arm, chosen in arms.items():
                a = ask(book.id, None, q.question, switches=chosen, position=cap, store=db)
                metrics[arm].add(a, cap, truth, q.expect, unmet=unmet, named=q.answers)
                answers[arm][q.id] = a
            if progress:
                progress(i + 1, len(labelled))
        paired = _judge(labelled, answers, check_switch(switch), seed) if switch else None
    notes = [] if model_configured() else ["no model: answers are extractive (the text itself)"]
    return EvalReport(split, len(labelled), {k: m.as_dict() for k, m in metrics.items()}, paired, notes)


def _judge(labelled: list[Labelled], answers: dict[str, dict[str, Answer]], name: str, seed: int) -> Paired:
    rng = random.Random(seed)
    client = ModelClient(subject="books-eval")
    out = Paired(name)
    for q in labelled:
        on, off = answers["on"][q.id], answers["off"][q.id]
        if on.text() == off.text():
            out.ties += 1
            out.rows.append({"id": q.id, "result": "tie", "why": "identical answers"})
            continue
        first_is_on = rng.random() < 0.5
        pair = (on.text(), off.text()) if first_is_on else (off.text(), on.text())
        picks: list[str] = []
        for a, b in (pair, pair[::-1]):
            system, user = prompts.judge_prompt(q.question, a, b)
            try:
                picks.append(
                    client.structured_sync(user, prompts.Verdict, system=system, temperature=0).better
                )
            except Exception:  # an unjudged pair is a tie, never a win
                picks.append("error")
        # in the first order "1" is pair[0]; in the swapped order "2" is pair[0]
        first = {"1": 0, "2": 1}.get(picks[0])
        second = {"2": 0, "1": 1}.get(picks[1])
        if first is None or first != second:
            result = "tie"
        else:
            winner_is_on = (first == 0) == first_is_on
            result = "on" if winner_is_on else "off"
        out.on_wins += result == "on"
        out.off_wins += result == "off"
        out.ties += result == "tie"
        out.rows.append(
            {"id": q.id, "result": result, "picks": picks, "first_shown": "on" if first_is_on else "off"}
        )
    out.p_value = round(sign_test(out.on_wins, out.off_wins), 4)
    return out
