"""Characters that read as other characters: what `fold` undoes before any wording check.

Compatibility forms (NFKC), confusables to ASCII (a table built on first use from the Unicode
names of Latin letters, small capitals and symbol letters, plus a hand table of the Cyrillic,
Greek, Armenian and Cherokee look-alikes no name ties to Latin), accents off, invisible
characters dropped and blank-looking ones read as spaces. Held apart from the rest of the
normalisation because validation, the contradiction check and the second look read text
through it too.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Look-alikes that no Unicode name or decomposition ties to a Latin letter: they must be listed.
_SCRIPT_LOOKALIKES = {
    # Cyrillic
    "а": "a",
    "в": "b",
    "е": "e",
    "ё": "e",
    "к": "k",
    "м": "m",
    "н": "h",
    "о": "o",
    "р": "p",
    "с": "c",
    "т": "t",
    "у": "y",
    "х": "x",
    "ѕ": "s",
    "і": "i",
    "ї": "i",
    "ј": "j",
    "һ": "h",
    "ԁ": "d",
    "ԛ": "q",
    "ԝ": "w",
    "ӏ": "l",
    "ո": "n",
    "ս": "u",
    "ɑ": "a",
    "ь": "b",
    "г": "r",
    "п": "n",
    "л": "n",
    "и": "u",
    "ш": "w",
    "ц": "u",
    "ԍ": "g",
    "ҽ": "e",
    "ү": "y",
    "ɡ": "g",
    # Greek
    "α": "a",
    "β": "b",
    "ε": "e",
    "η": "n",
    "ι": "i",
    "κ": "k",
    "ν": "v",
    "ο": "o",
    "ρ": "p",
    "τ": "t",
    "υ": "u",
    "χ": "x",
    "ς": "s",
    "γ": "y",
    "μ": "m",
    "ϲ": "c",
    "ϳ": "j",
    "ω": "w",
    "δ": "d",
    # Armenian
    "օ": "o",
    "հ": "h",
    "ց": "g",
    "զ": "q",
    "ա": "w",
    # Cherokee capitals (their small forms are handled through str.upper)
    "Ꭺ": "a",
    "Ᏼ": "b",
    "Ꮯ": "c",
    "Ꭰ": "d",
    "Ꭼ": "e",
    "Ꮐ": "g",
    "Ꮋ": "h",
    "Ꭵ": "i",
    "Ꮶ": "k",
    "Ꮮ": "l",
    "Ꮇ": "m",
    "Ꮲ": "p",
    "Ꮪ": "s",
    "Ꭲ": "t",
    "Ꮩ": "v",
    "Ꮃ": "w",
    # punctuation that reads the same
    "\u2018": "'",
    "\u2019": "'",
    "\u201b": "'",
    "\u02bc": "'",
    "\u2032": "'",
    "\u201c": '"',
    "\u201d": '"',
    "\u2033": '"',
    "\u2010": "-",
    "\u2011": "-",
    "\u2012": "-",
    "\u2013": "-",
    "\u2014": "-",
    "\u2212": "-",
    "\u2215": "/",
    "\u2044": "/",
    "\u29f8": "/",
    "\u2024": ".",
    "\uff0e": ".",
    "\u00a0": " ",
    "\u00ad": "",  # soft hyphen: a word broken where nobody sees it
}
# Blocks whose letters carry their Latin letter in their Unicode name.
_NAMED_BLOCKS = (
    (0x00C0, 0x02FF),  # Latin-1, Latin Extended-A/B, IPA (small capitals ɪ ʏ ɴ ...)
    (0x1D00, 0x1DBF),  # phonetic extensions (small capitals ᴛ ᴇ ᴍ ...)
    (0x1E00, 0x1EFF),
    (0x2C60, 0x2C7F),
    (0xA720, 0xA7FF),  # Latin Extended-D (ꜱ)
    (0xAB30, 0xAB6F),
    (0x1F100, 0x1F1FF),  # enclosed letters, regional indicators
)
_LATIN_NAME = re.compile(
    r"(?:^|\s)(?:LATIN|REGIONAL INDICATOR SYMBOL)\s+(?:(SMALL|CAPITAL)\s+)?LETTER\s+"
    r"(?:(SMALL CAPITAL|SMALL|CAPITAL)\s+)?(?:[A-Z]+\s+)?"
    r"([A-Z])(?:\s+WITH\s.*|\s+BAR|\s+STROKE)?$"
)


def ignorable(ch: str) -> bool:
    """Default-ignorable code points (Unicode's derived property, which `unicodedata` lacks):
    format characters, variation selectors, the tag block, and a few letters with no ink."""
    code = ord(ch)
    return (
        unicodedata.category(ch) == "Cf"
        or code in (0x034F, 0x17B4, 0x17B5, 0x180E, 0x2028, 0x2029)
        or 0x180B <= code <= 0x180F
        or 0xFE00 <= code <= 0xFE0F
        or 0xFFF0 <= code <= 0xFFF8
        or 0x1BCA0 <= code <= 0x1BCA3
        or 0xE0000 <= code <= 0xE0FFF
    )


def blank_looking(ch: str) -> bool:
    """A letter or symbol that is drawn as nothing: Hangul fillers (U+3164, U+115F, U+1160,
    U+FFA0), the braille blank (U+2800) and their kind, found by their Unicode names."""
    if ch.isascii() or ch.isspace():
        return False
    name = unicodedata.name(ch, "")
    return name.endswith(" FILLER") or name.endswith(" BLANK") or "NULL NOTEHEAD" in name


@lru_cache(maxsize=1)
def _table() -> dict[int, str]:
    """The confusables table: named Latin letters in every block above, then the hand table
    (both cases), then invisible and blank-looking characters. Built once, on first use."""
    table: dict[int, str] = {}
    for low, high in _NAMED_BLOCKS:
        for code in range(low, high + 1):
            ch = chr(code)
            m = _LATIN_NAME.search(unicodedata.name(ch, ""))
            if m:
                upper = m.group(1) == "CAPITAL" and m.group(2) != "SMALL CAPITAL"
                regional = "REGIONAL" in unicodedata.name(ch)
                table[code] = m.group(3) if upper and not regional else m.group(3).lower()
    for ch, latin in _SCRIPT_LOOKALIKES.items():
        table[ord(ch)] = latin
        for other in (ch.upper(), ch.lower()):
            if len(other) == 1 and other != ch and ord(other) not in table:
                table[ord(other)] = latin.upper() if other == ch.upper() and latin.isalpha() else latin
    return table


def _strip_marks(text: str) -> str:
    """Accents off (NFD, combining marks dropped), invisible characters dropped, blank-looking
    ones turned into spaces."""
    out = []
    for ch in unicodedata.normalize("NFD", text):
        if ch.isascii():
            out.append(ch)
        elif unicodedata.category(ch) == "Mn" or ignorable(ch):
            continue
        elif blank_looking(ch):
            out.append(" ")
        else:
            out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


@lru_cache(maxsize=8192)
def unmask(text: str) -> str:
    """The text with compatibility forms, confusables, accents and invisible characters undone,
    case kept (encoded data is case-sensitive)."""
    if text.isascii():
        return text
    text = unicodedata.normalize("NFKC", text).translate(_table())
    return _strip_marks(text).translate(_table())


def fold(text: str) -> str:
    """`unmask`, lower-cased: the spelling every word pattern is written for."""
    return unmask(text).lower()
