"""The quote verifier finds re-typed quotations and maps them back to exact offsets."""

from __future__ import annotations

import pytest

from lore.core.quotes import find_quote, normalize, verify_quote

SOURCE = (
    "“Have I not attended at the Temple? Have I not\u2060—?”\n\n"
    "“Where are your wives?” asked Young, looking round him.   "
    "It was a \u2018strange\u2019 affair\u2026 and nobody\u00adknew."
)


@pytest.mark.parametrize(
    "quote, expected",
    [
        ("have i not attended at the temple", "Have I not attended at the Temple"),
        ('"Where are your wives?" asked Young', "“Where are your wives?” asked Young"),
        ("Have I not -- ?", "Have I not\u2060—?"),
        ("Have I not—?", "Have I not\u2060—?"),
        ("wives?”\n asked   young,", "wives?” asked Young,"),
        ("a 'strange' affair... and nobodyknew", "a \u2018strange\u2019 affair\u2026 and nobody\u00adknew"),
    ],
)
def test_retyped_quotes_are_found_at_their_exact_offsets(quote: str, expected: str) -> None:
    span = find_quote(quote, SOURCE)
    assert span is not None
    assert SOURCE[span.start : span.end] == expected


@pytest.mark.parametrize(
    "quote",
    ["Have I not?", "asked Brigham Young", "the Temple of Doom", "", "   ", "wives asked"],
)
def test_quotes_not_in_the_text_are_rejected(quote: str) -> None:
    assert not verify_quote(quote, SOURCE)
    assert find_quote(quote, SOURCE) is None


def test_normalize_keeps_a_map_back_to_the_original() -> None:
    text = "A\u2060—b\n\n“C”"
    norm, where = normalize(text)
    assert norm == 'a-b "c"'
    assert [text[i] for i in where] == ["A", "—", "b", "\n", "“", "C", "”"]


def test_case_and_dash_styles_do_not_matter_but_words_do() -> None:
    text = "The well-known man -- Mr. Holmes -- arrived."
    assert verify_quote("the well—known man—mr. holmes—arrived", text)
    assert not verify_quote("the wellknown man", text)
