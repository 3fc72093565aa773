"""Passages are exact spans of their chapter; names are found, trimmed and resolved."""

from __future__ import annotations

from lore.books.ask.sentences import sentences_of
from lore.books.names.groups import extract_names
from lore.books.passages import passages, sentences

CHAPTER = (
    "I\n\nMr.\u00a0Sherlock Holmes\n\n"
    "In the year 1878 I took my degree. Mr.\u00a0Sherlock Holmes met me at Barts with young Stamford. "
    "“You don’t know Sherlock Holmes yet,” he said. Dr. John H. Watson nodded.\n\n"
    "The next day Holmes came early. Then Holmes laughed at the idea. Stamford had gone home. "
    + " ".join(f"Sentence number {n} has a few plain words in it." for n in range(40))
)


def test_sentences_do_not_break_after_titles_or_initials() -> None:
    spans = sentences("Mr. Holmes met Dr. John H. Watson. They talked. “Is it?” he asked.")
    texts = ["Mr. Holmes met Dr. John H. Watson.", "They talked.", "“Is it?” he asked."]
    assert [s for s in spans] and [
        "Mr. Holmes met Dr. John H. Watson. They talked. “Is it?” he asked."[s.start : s.end] for s in spans
    ] == texts


def test_passages_and_answers_split_sentences_by_the_same_rules() -> None:
    """One source for where a sentence ends: a passage's sentences are the answer's sentences."""
    text = (
        "“MY DEAR MR. SHERLOCK HOLMES,—You did it well.” Cards of “Enoch J. Drebber, Ohio, U.S.A.” "
        "Then came I. The rest followed, e.g. the hat, at ten p.m. on Sept. 6. “Is it?” he asked. "
        "He said no. Thank you, sir. Sir Henry came. She lived at No. 3 Baker Street."
    )
    expected = [
        "“MY DEAR MR. SHERLOCK HOLMES,—You did it well.”",
        "Cards of “Enoch J. Drebber, Ohio, U.S.A.”",
        "Then came I.",
        "The rest followed, e.g. the hat, at ten p.m. on Sept. 6.",
        "“Is it?” he asked.",
        "He said no.",
        "Thank you, sir.",
        "Sir Henry came.",
        "She lived at No. 3 Baker Street.",
    ]
    assert [text[s.start : s.end] for s in sentences(text)] == expected
    assert sentences_of(text) == expected


def test_passages_round_trip_and_cover_every_word_once() -> None:
    spans = passages(CHAPTER)
    assert len(spans) > 3
    covered = []
    for previous, span in zip([None, *spans], spans, strict=False):
        piece = CHAPTER[span.start : span.end]
        assert piece == piece.strip() and piece  # exact, no padding
        if previous is not None:
            assert previous.end <= span.start and not CHAPTER[previous.end : span.start].strip()
        covered.append(piece)
    assert "".join("".join(covered).split()) == "".join(CHAPTER.split())


def test_passages_are_a_few_sentences() -> None:
    spans = passages(CHAPTER)
    sizes = [len(CHAPTER[s.start : s.end].split()) for s in spans]
    assert max(sizes) <= 140 and sorted(sizes)[len(sizes) // 2] >= 40


def _by_name(entities):
    return {e.name: e for e in entities}


def test_honorifics_full_names_and_short_forms_become_one_entity() -> None:
    found = _by_name(extract_names([CHAPTER]))
    holmes = found["Sherlock Holmes"]
    assert {m.form for m in holmes.mentions} == {"Sherlock Holmes", "Holmes"}
    assert "Mr.\u00a0Sherlock Holmes" in {m.surface for m in holmes.mentions}
    assert holmes.kind == "person"
    assert "John Watson" in found and "Stamford" in found
    for entity in found.values():
        for m in entity.mentions:
            assert CHAPTER[m.start : m.end] == m.surface  # offsets round-trip


def test_sentence_initial_common_words_are_not_names() -> None:
    found = _by_name(extract_names([CHAPTER]))
    assert not {"The", "Then", "In", "You", "Sentence", "Then Holmes", "The Holmes"} & set(found)
    holmes_surfaces = {m.surface for m in found["Sherlock Holmes"].mentions}
    assert "Holmes" in holmes_surfaces and "Then Holmes" not in holmes_surfaces


def test_gendered_honorifics_keep_different_people_apart() -> None:
    text = (
        "“My dear Mr. Bennet,” said Mrs. Bennet to him one day. Mr. Bennet made no answer. "
        "Mrs. Bennet was vexed. Miss Bingley and Mr. Bingley came to call, and Caroline Bingley "
        "sat down. Bingley smiled at them all. Mr. Bingley left at noon with Mr. Bennet."
    )
    found = _by_name(extract_names([text]))
    assert {"Mr. Bennet", "Mrs. Bennet", "Mr. Bingley", "Caroline Bingley"} <= set(found)
    # a bare surname several people share is the man of that name ("Mr. Bingley"), the way
    # narration names men; the women keep their titles
    assert "Bingley" not in found
    assert {m.form for m in found["Mr. Bingley"].mentions} == {"Mr. Bingley", "Bingley"}
    # "Miss" joins the one woman's full name of that family said with no other woman's title
    assert {m.form for m in found["Caroline Bingley"].mentions} == {"Miss Bingley", "Caroline Bingley"}


def test_a_short_form_joins_the_only_full_name_it_fits() -> None:
    chapters = [
        "Sir Henry Baskerville arrived at the hall in the evening with his luggage.",
        "Sir Henry was tired. Baskerville dined alone. Inspector Lestrade sent a wire to Henry.",
    ]
    found = _by_name(extract_names(chapters))
    henry = found["Henry Baskerville"]
    assert {m.form for m in henry.mentions} >= {"Henry Baskerville", "Sir Henry", "Baskerville"}
    assert henry.mentions[0].chapter == 0
