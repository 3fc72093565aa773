"""One question, streamed: parts, evidence, each claim as it passes or is cut, then the prose.

    for event in ask_stream("A Study in Scarlet", None, "Who is the killer?"):
        ...  # event.kind: parts, evidence, claim, cut, sentence, answer (always last)

Closing the generator stops the answer: no model call is made after the step it stopped at.
A question nothing visible answers ends at the search (not reached, or not in the book) and
sends nothing to a model. Without a model the answer is extractive (`extractive`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import asdict
from typing import Any

from lore.books.ask import extractive, prompts
from lore.books.ask.checks import Checker, Item, key_of, locate
from lore.books.ask.gather import Gathered, gather, target
from lore.books.ask.grounded import WITHHELD, grounding_for
from lore.books.ask.parts import split_question
from lore.books.ask.records import Answer, Claim, Event, Evidence, Sentence
from lore.books.ask.roles import swapped
from lore.books.ask.switches import Switches, configured
from lore.books.library import Stores, open_books
from lore.books.search import FOUND
from lore.core.errors import InvalidInput
from lore.core.grounding import GroundingCheck
from lore.core.llm import ModelClient, model_configured, model_run

MAX_CLAIMS = 12
MAX_QUESTION = 500
STOPPED = "Stopped before the answer was finished; nothing more was asked of the model."


def _never() -> bool:
    return False


def ask(
    book: str | int | None,
    series: str | None,
    question: str,
    **kwargs: Any,
) -> Answer:
    """The whole answer at once (the last event of `ask_stream`)."""
    events = list(ask_stream(book, series, question, **kwargs))
    answer: Answer = events[-1].data["answer"]
    return answer


def ask_stream(
    book: str | int | None,
    series: str | None,
    question: str,
    *,
    spoilers: bool = False,
    switches: Switches | None = None,
    use_model: bool | None = None,
    position: tuple[int, int | None] | None = None,
    store: Stores = None,
    stopped: Callable[[], bool] | None = None,
) -> Iterator[Event]:
    """Answer `question` about a book (or every book of a series) within the reader's position.

    `use_model`: None uses a model when one is configured; False never does; True requires one.
    `stopped` is asked before each model step (claims, checks, writing): once it says True the
    answer ends there, even between two steps that yield nothing in between (a Stop button)."""
    text = " ".join(question.split())
    if not text:
        raise InvalidInput("ask a question")
    if len(text) > MAX_QUESTION:
        raise InvalidInput(f"a question has at most {MAX_QUESTION} characters")
    db = open_books(store)
    where = target(db, book, series, position=position, spoilers=spoilers)
    chosen = switches or configured()
    parts = split_question(text)
    yield Event("parts", {"parts": parts})
    found = gather(db, where, parts)
    answer = Answer(
        text,
        found.verdict,
        found.message,
        "none",
        parts=parts,
        switches=chosen.as_dict(),
        books=[b.id for b in where.books],
    )
    if found.verdict != FOUND:
        yield Event("answer", {"answer": answer})
        return
    answer.evidence = found.evidence
    yield Event("evidence", {"passages": [(e.book_id, e.chapter, e.passage) for e in found.evidence]})
    if found.unanswered:
        answer.notes.append("Nothing you have read so far answers: " + " ".join(found.unanswered))
    model = model_configured() if use_model is None else use_model
    if not model:
        answer.mode = "extractive"
        chosen_sentences = extractive.choose(text, found.evidence)
        answer.sentences = chosen_sentences.sentences
        answer.notes += [*chosen_sentences.notes, extractive.NOTE]
        for s in answer.sentences:
            yield Event("sentence", {"sentence": asdict(s)})
        yield Event("answer", {"answer": answer})
        return
    answer.mode = "model"
    grounding = grounding_for(db, where)
    subject = f"book:{where.books[0].id}" if len(where.books) == 1 else f"series:{series}"
    client = ModelClient(subject=subject)
    with model_run("books ask", subject=subject):
        yield from _with_model(client, grounding, text, parts, found, chosen, answer, stopped or _never)
    yield Event("answer", {"answer": answer})


def _with_model(
    client: ModelClient,
    grounding: GroundingCheck,
    question: str,
    parts: list[str],
    found: Gathered,
    switches: Switches,
    answer: Answer,
    stopped: Callable[[], bool],
) -> Iterator[Event]:
    evidence = {e.n: e for e in found.evidence}
    if stopped():
        answer.message = STOPPED
        return
    names = prompts.names_block(found.names, found.links)
    system, user = prompts.claims_prompt(question, parts, found.evidence, names, switches)
    try:
        proposed = client.structured_sync(user, prompts.ClaimList, system=system, temperature=0).claims
    except Exception as exc:  # any failure leaves an answer with no unchecked claim
        answer.notes.append(
            f"The model could not be asked for claims ({type(exc).__name__}); nothing is claimed."
        )
        answer.message = "No checked claims: the model did not answer."
        return
    claims: list[Claim] = []
    for n, item in enumerate(proposed[:MAX_CLAIMS], start=1):
        claim = Claim(n, " ".join(item.text.split()), item.passage, item.quote)
        source = evidence.get(item.passage)
        claim.citation = locate(item.quote, source) if source is not None else None
        quote = claim.citation.quote if claim.citation else claim.quote
        carried = grounding.check(claim.text, quote, source.text if source else "")
        if carried.withhold or grounding.unread(claim.quote):
            claim.text, claim.quote = WITHHELD, ""
        if claim.citation is None:
            claim.status, claim.why = "cut", "its quote is not in the passage it cites"
        elif not carried.grounded:
            claim.status, claim.why = "cut", f"not grounded: {carried.reason}"
        if claim.status == "cut":
            yield Event("cut", {"claim": claim.as_dict()})
        claims.append(claim)
    answer.claims = claims
    if stopped():
        answer.message = STOPPED
        return
    checker = Checker(client, switches)
    quoted = [c for c in claims if c.citation is not None and c.status != "cut"]
    items = [Item(c.text, evidence[c.passage], c.citation.quote) for c in quoted if c.citation]
    for claim, verdict in zip(quoted, checker.check(items, round_no=1), strict=True):
        claim.status, claim.why = ("passed", verdict.reason) if verdict.supported else ("cut", verdict.reason)
        yield Event("claim" if verdict.supported else "cut", {"claim": claim.as_dict()})
    passed = [c for c in claims if c.status == "passed"]
    if not passed:
        answer.message = "No claim survived the checks: the passages found do not show an answer."
        return
    if stopped():
        answer.message = STOPPED
        return
    sentences = _write(client, question, passed, switches, answer)
    if stopped():
        answer.message = STOPPED
        return
    answer.sentences = _second_round(checker, grounding, sentences, passed, evidence, switches)
    for claim in passed:  # a claim the second round rejected (switch off: the latest verdict wins)
        held = checker.verdicts.get(key_of(claim.text, evidence[claim.passage].passage_id))
        if held is not None and not held.supported:
            claim.status, claim.why = "cut", f"rejected in round 2: {held.reason}"
    still = [c for c in passed if c.status == "passed"]
    answer.sentences = [s for s in answer.sentences if s.citations] or _plain(still)
    for s in answer.sentences:
        yield Event("sentence", {"sentence": asdict(s)})


def _write(client: ModelClient, question: str, passed: list[Claim], switches: Switches, answer: Answer):
    system, user = prompts.write_prompt(question, passed, switches)
    try:
        return client.structured_sync(user, prompts.Prose, system=system, temperature=0).sentences
    except Exception as exc:  # the checked claims stand on their own
        answer.notes.append(
            f"The writer failed ({type(exc).__name__}); the checked claims are listed as they are."
        )
        return []


def _second_round(
    checker: Checker,
    grounding: GroundingCheck,
    written: list[prompts.WrittenSentence],
    passed: list[Claim],
    evidence: dict[int, Evidence],
    switches: Switches,
) -> list[Sentence]:
    """Round 2: each written sentence, first grounded in the claims it cites (their quotes and
    passages, in code), then checked against the passage of every claim it cites."""
    by_id = {c.id: c for c in passed}
    items: list[Item] = []
    owners: list[int] = []
    for i, w in enumerate(written):
        cited = [by_id[cid] for cid in dict.fromkeys(w.claims) if cid in by_id and by_id[cid].citation]
        quotes = " … ".join(c.citation.quote for c in cited if c.citation)
        units = " ".join(evidence[c.passage].text for c in cited)
        if not cited or not grounding.check(" ".join(w.text.split()), quotes, units).grounded:
            continue
        for claim in cited:
            if claim.citation is not None:
                items.append(Item(" ".join(w.text.split()), evidence[claim.passage], claim.citation.quote))
                owners.append(i)
    verdicts = checker.check(items, round_no=2) if items else []
    ok: dict[int, list] = {}
    bad: set[int] = set()
    for i, item, verdict in zip(owners, items, verdicts, strict=True):
        if not verdict.supported or (switches.who_did_what and swapped(item.statement, item.quote)):
            bad.add(i)
            continue
        cite = next(c.citation for c in passed if c.citation and c.citation.quote == item.quote)
        ok.setdefault(i, []).append(cite)
    return [
        Sentence(" ".join(w.text.split()), ok[i]) for i, w in enumerate(written) if i in ok and i not in bad
    ]


def _plain(claims: list[Claim]) -> list[Sentence]:
    return [Sentence(c.text, [c.citation]) for c in claims if c.citation is not None]
