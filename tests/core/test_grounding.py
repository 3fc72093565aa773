"""The grounding check on its own: what carries a sentence and what does not."""

from __future__ import annotations

import pytest

from lore.core.grounding import (
    HEADER_QUOTE,
    MIN_SIMILARITY,
    THIN_QUOTE,
    UNMET,
    GroundingCheck,
    anchors,
    default_embed,
    informative,
)

PASSAGE = (
    "“Well, I have a trade of my own. I suppose I am the only one in the world. I'm a consulting "
    "detective, if you can understand what that is,” said Holmes. Drebber and Stangerson were "
    "lodging in the house, and I hope the cabman will be found."
)


@pytest.fixture(scope="module")
def check() -> GroundingCheck:
    return GroundingCheck(
        aliases=[["Sherlock Holmes", "Holmes"], ["Dr. Watson", "Watson"], ["Jefferson Hope"]],
        unmet=["Lucy Ferrier", "Jefferson", "Mormon"],
        headers=["A Study in Scarlet", "Passage [3] (chapter 2)"],
        embed=default_embed(),
    )


def test_a_paraphrase_its_passage_carries_is_grounded(check: GroundingCheck) -> None:
    got = check.check("Holmes is a consulting detective.", "I'm a consulting detective", PASSAGE)
    assert got.grounded, got.reason


def test_a_name_the_evidence_lacks_is_cut(check: GroundingCheck) -> None:
    got = check.check(
        "Stangerson and Gregson were lodging in the house.", "Drebber and Stangerson were lodging", PASSAGE
    )
    assert not got.grounded and "gregson" in got.missing


def test_a_common_word_does_not_carry_a_name() -> None:
    """The passage's "I hope" is not the name "Hope"."""
    got = GroundingCheck().check(
        "The cabman was Hope's friend, said Drebber.", "I hope the cabman will be found", PASSAGE
    )
    assert not got.grounded and "hope" in got.missing


def test_content_words_must_mostly_be_there(check: GroundingCheck) -> None:
    got = check.check(
        "A sponsor paid the maintainers for it.",
        "Fix typo in the option parser docs",
        "Fix typo in the option parser docs",
    )
    assert not got.grounded and "sponsor" in got.missing


def test_a_number_must_be_in_the_evidence(check: GroundingCheck) -> None:
    unit = "The release drops support for Python 3.7 and adds 3.12."
    assert check.check("Python 3.7 support was dropped.", "drops support for Python 3.7", unit).grounded
    got = check.check("Python 3.8 support was dropped.", "drops support for Python 3.7", unit)
    assert not got.grounded and got.missing == ("3.8",)


def test_a_name_the_reader_has_not_met_is_withheld(check: GroundingCheck) -> None:
    got = check.check(
        "Lucy Ferrier lodged there with Drebber and Stangerson.",
        "Drebber and Stangerson were lodging",
        PASSAGE,
    )
    assert not got.grounded and got.reason == UNMET and got.withhold


def test_a_short_form_of_a_met_name_is_not_unmet(check: GroundingCheck) -> None:
    """ "Jefferson" alone first appears later, but "Jefferson Hope" has been met."""
    assert not check.unread("Jefferson was there.")
    assert check.unread("The Mormon elders met.")


def test_the_name_check_keeps_case() -> None:
    assert GroundingCheck(unmet=["Hope"]).unread("Hope was the cabman.")
    assert not GroundingCheck(unmet=["Hope"]).unread("I hope so.")


def test_a_pronoun_carries_a_known_name() -> None:
    unit = "I was struck on the shoulder by a Jezail bullet at the battle of Maiwand in Afghanistan."
    check = GroundingCheck(aliases=[["Watson", "Dr. Watson"]])
    assert check.check(
        "Watson was struck by a bullet in Afghanistan.", "struck on the shoulder by a Jezail bullet", unit
    ).grounded
    unnamed = "The shoulder was struck by a Jezail bullet at the battle of Maiwand in Afghanistan."
    assert not check.check(
        "Watson was struck by a bullet in Afghanistan.", "struck by a Jezail bullet", unnamed
    ).grounded  # no pronoun stands for him
    assert (
        not GroundingCheck()
        .check("The bullet struck Gregson in Afghanistan.", "struck on the shoulder by a Jezail bullet", unit)
        .grounded
    )  # a name the book does not know is not stood for by "I"


@pytest.mark.parametrize("quote", ["the", "it was", "Yes.", "of the and"])
def test_a_thin_quote_carries_nothing(quote: str) -> None:
    assert informative(quote) == THIN_QUOTE


def test_a_quote_of_the_prompt_s_own_header_carries_nothing() -> None:
    assert informative("Passage [3] (chapter 2)", ["Passage [3] (chapter 2)"]) == HEADER_QUOTE
    assert informative("said Holmes, lighting his pipe", ["Passage [3] (chapter 2)"]) is None


def test_meaning_far_from_the_quote_is_cut(check: GroundingCheck) -> None:
    unit = "Drebber and Stangerson were lodging in the house. The lodging was dark and the house old."
    got = check.check("The house was old.", "Drebber and Stangerson were lodging in the house", unit)
    assert got.similarity is not None
    assert got.grounded == (got.similarity >= MIN_SIMILARITY)


def test_anchors_read_identifiers_and_names() -> None:
    said = anchors("Switch the project from SQLAlchemy Core to PonyORM in src/app/db.py for user_id.")
    assert {"sqlalchemy", "core", "ponyorm", "user_id"} <= set(said.names) | {"src/app/db.py"}
    assert "switch" in said.content and "project" in said.content


def test_an_imperative_opening_a_statement_is_not_a_name() -> None:
    """ "Use JWT tokens": the capital of "Use" is the sentence's; the quote carries "use"."""
    plain = GroundingCheck()
    got = plain.check("Use JWT tokens for the public API", "we will use JWT tokens for the public API")
    assert got.grounded, got.reason
    # the name that follows is still held to a name's standard
    assert not plain.check(
        "Use PonyORM for the public API", "we will use JWT tokens for the public API"
    ).grounded


def test_what_the_context_names_is_held_by_every_quote() -> None:
    quote = "the parser keeps one module so plugins can import it"
    assert not GroundingCheck().check("The parser of Click keeps one module", quote).grounded
    given = GroundingCheck(given=["pallets/click"])
    assert given.check("The parser of Click keeps one module", quote).grounded
    assert not given.check("The parser of Flask keeps one module", quote).grounded


def test_words_a_keyword_search_drops_are_still_claims() -> None:
    """The keyword filler ("use", "file", "code") is not claim filler: a claim about a file
    must find one, while prepositions, titles and verbs of telling claim nothing."""
    said = anchors("Watson said that the file was moved through the code review by Mr. Holmes")
    assert {"file", "code"} <= set(said.content)
    assert not {"said", "that", "through", "mr"} & (set(said.content) | set(said.names))
