"""The question's characters raise a passage by how rarely the visible book names them: on a real
book, a character named everywhere raises nothing, so the passage holding the question's detail
is not outranked by passages that only name the characters."""

from __future__ import annotations

from lore.books import library
from lore.books.library import caps_for
from lore.books.retrieve.boosts import COMMON_NAME_SHARE, CUE_BOOST, name_share, rarity
from lore.books.retrieve.query import parse
from lore.books.search import search_book, signals
from lore.books.store import BooksStore

SIGN = "the-sign-of-the-four.epub"


def test_rarity_falls_with_how_often_the_book_names_someone() -> None:
    assert rarity(0.0) == 1.0
    assert rarity(COMMON_NAME_SHARE / 2) == 0.5
    assert rarity(COMMON_NAME_SHARE) == 0.0 and rarity(0.9) == 0.0
    assert name_share("Jonathan Small", {"jonathan": 0.03, "small": 0.14}) == 0.03  # the rarest word
    assert name_share("Jonathan Small", {}) == 0.0  # not counted: counts in full


def test_the_main_character_weighs_nothing_and_a_minor_one_does(shared) -> None:
    folder, lib = shared
    book = library.set_progress(lib.book(folder, SIGN).id, 6, store=lib.store)
    db = BooksStore(lib.store)
    caps = caps_for([book])
    sig = signals(db, caps, parse("What did Holmes say to Bartholomew Sholto?"), 50)
    shares = sig.lexical["shares"]
    assert rarity(name_share("Holmes", shares)) == 0.0  # in a tenth of the passages read or more
    assert rarity(name_share("Bartholomew Sholto", shares)) > 0.0
    around = db.passages_by_id(caps, sorted({n for pid in sig.rows for n in (pid - 1, pid)}))
    by_sholto = {r.id + k for r in around if "Sholto" in r.text or "Bartholomew" in r.text for k in (0, 1)}
    only_holmes = [pid for pid, row in sig.rows.items() if "Holmes" in row.text and pid not in by_sholto]
    # naming Holmes alone raises a passage by no more than a cue word would
    assert only_holmes and all(sig.boosts.get(pid, 0.0) <= CUE_BOOST for pid in only_holmes)


def test_the_detail_asked_about_outranks_passages_that_only_name_the_characters(shared) -> None:
    folder, lib = shared
    book = library.set_progress(lib.book(folder, SIGN).id, 6, store=lib.store)
    found = search_book(book.id, "What was stuck in Bartholomew Sholto's skin?", 3, store=lib.store)
    assert found.verdict == "found"
    assert "stuck in the skin" in found.hits[0].text
