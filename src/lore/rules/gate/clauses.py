"""The parts of a rule the second look judges one by one, and the text the model reads.

An attack hidden in one clause of a long, ordinary rule is diluted when the whole rule is pooled
into one vector, so the whole rule, each sentence and each clause of a longer sentence are judged
on their own. Held apart from `semantic` because it is text handling, not the model.
"""

from __future__ import annotations

import re
import unicodedata

from lore.rules.gate.confusables import ignorable, unmask

MIN_WORDS = 3  # a clause shorter than this carries too little meaning to judge on its own

# a sentence ends at . ! ? ; or a line break followed by space (not "settings.py", "e.g.x"), or at
# the full-width marks of Chinese and Japanese, which need no space after them
_SENTENCE = re.compile(r"(?<=[.!?;:])\s+|\n+|(?<=[。！？；：])")
# the sentence ends a frame may not cross: those of `_SENTENCE` but the colon, which introduces
_FRAME_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+|(?<=[。！？；])")
# a clause boundary inside a sentence: a comma, a dash, or a conjunction that starts a new order
_CLAUSE = re.compile(
    r"\s*[,，、]\s*|\s+[-–—]\s+|\s+(?:and then|and also|then|but|so that|otherwise|after that|"
    r"puis|ensuite|et puis|dann|danach|und dann|luego|despues|y luego|poi|e poi|depois)\s+",
    re.I,
)


def _words(text: str) -> int:
    """Words, with each CJK character counted as half a word (they carry more meaning each)."""
    cjk = sum(1 for ch in text if "\u3040" <= ch <= "\u9fff")
    return len(re.findall(r"[^\W\d_]{2,}", text)) + cjk // 2


def readable(text: str) -> str:
    """The text as the model should read it: compatibility forms folded (fullwidth letters),
    invisible characters dropped, and a word that mixes Latin letters with look-alikes of another
    script (a Cyrillic letter in `.env` or `curl`) read as the Latin word it poses as. Not the
    patterns' `unmask` on every word: taking accents off would also break Japanese kana (パ -> ハ)
    and French words, and folding a whole Russian word would turn it into Latin nonsense, which
    the model reads as written."""
    plain = "".join(ch for ch in unicodedata.normalize("NFKC", text) if not ignorable(ch))
    return _MIXED_WORD.sub(_latin_if_mixed, plain)


# a run of letters, digits and the characters of paths and commands: a word as a shell sees it
_MIXED_WORD = re.compile(r"[^\s\"'`,;()]+")


def _latin_if_mixed(match: re.Match[str]) -> str:
    """The word with look-alikes folded when it holds ASCII letters and letters of another
    script together; as written otherwise."""
    word = match.group(0)
    if word.isascii() or not any("a" <= ch.lower() <= "z" for ch in word):
        return word
    if not any(ch.isalpha() and not ch.isascii() and unmask(ch).isascii() for ch in word):
        return word
    return unmask(word)


def clauses(text: str) -> list[str]:
    """The parts of a rule judged one by one: the whole rule, each sentence, and each clause of
    a sentence that has several, those with at least `MIN_WORDS` words. A title or trigger of one
    or two words ("client", "httpx") carries too little meaning to judge: it yields nothing."""
    plain = readable(text)
    whole = " ".join(plain.split())
    out = [whole] if _words(whole) >= MIN_WORDS else []
    for sentence in _SENTENCE.split(plain):
        sentence = " ".join(sentence.split())
        if _words(sentence) >= MIN_WORDS:
            out.append(sentence)
        parts = [p for p in _CLAUSE.split(sentence) if p]
        if len(parts) > 1:
            out += [p for p in parts if _words(p) >= MIN_WORDS]
    return list(dict.fromkeys(p for p in out if p))
