"""Terminal-safe text: the one function every printed piece of stored text passes through.

Commit subjects, author names, file and folder names, book titles and rule texts come from
places Lore does not control. Printed raw, an `ESC ] 0 ;` sequence retitles the terminal,
`ESC [ 2 J` clears it, a cursor move paints over earlier lines, a carriage return hides the
start of a line and a bidi override (U+202E) shows text in an order other than the one stored.
`safe_text` removes all of that and keeps every ordinary character, so a title in Cyrillic, a
name with an accent or an emoji survives; the store keeps the original text untouched.

What is removed (and why):
- whole escape sequences, 7-bit (`ESC [`, `ESC ]`, `ESC P` ... up to their terminator) and
  8-bit (U+009B CSI, U+009D OSC, ...): removing only the ESC would leave `]0;title` behind;
- every other C0 and C1 control, DEL and carriage return; newline and tab are kept when a
  multi-line block is printed and become a space otherwise;
- invisible format characters (Unicode category Cf: bidi embeddings, overrides and isolates,
  zero-width spaces, the BOM, tag characters), except the zero-width joiner and non-joiner
  that scripts and emoji sequences need;
- lone surrogates (from file names that were not UTF-8) become U+FFFD, since writing them to
  a UTF-8 terminal would raise instead of print.

It is imported by the MCP server at start-up, so it stays light: `re` and `unicodedata` only.
"""

from __future__ import annotations

import re
import unicodedata

# An escape sequence, longest forms first. String sequences (OSC, DCS, SOS, PM, APC) run to
# BEL or ST (`ESC \` or U+009C), or to the end of the text when the terminator is missing, as
# a terminal would swallow everything up to it too.
_SEQUENCE = re.compile(
    r"""
      (?:\x1b[\]PX^_]|[\x90\x98\x9d\x9e\x9f]) [^\x07\x1b\x9c]* (?:\x07|\x1b\\|\x9c)?   # string
    | (?:\x1b\[|\x9b) [\x30-\x3f]* [\x20-\x2f]* [\x40-\x7e]?                         # CSI
    | \x1b [\x20-\x2f]* [\x30-\x7e]?                                                  # other ESC
    """,
    re.VERBOSE,
)
# C0 controls but tab and newline, DEL, C1 controls
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
_JSON_UNSAFE = re.compile(r"[^\x00-\x7e]")
_KEEP_FORMAT = {"\u200c", "\u200d"}  # zero-width non-joiner and joiner: needed by scripts, emoji

# The width of a console whose output is not a terminal (a file, a pipe, an agent reading it):
# wide enough that no line Lore prints is wrapped, so a suggested command stays on one line and
# a table row stays one row for grep. `COLUMNS` set in the environment still decides.
UNWRAPPED = 100_000


def _non_ascii(match: re.Match[str]) -> str:
    char = match.group()
    category = unicodedata.category(char)
    if category == "Cs":
        return "\ufffd"
    if category == "Cf" and char not in _KEEP_FORMAT:
        return ""
    if category in ("Zl", "Zp"):  # line and paragraph separators: a line break in disguise
        return "\n"
    return char


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    if not (char.isascii() or unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp")):
        return char
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # JSON spells a character past the BMP as a surrogate pair
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def safe_json(text: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with every control, invisible
    format character and lone surrogate written as a `\\uXXXX` escape.

    `json.dumps` already escapes C0 controls but leaves C1 controls (U+009B is CSI to many
    terminals), bidi overrides and surrogates raw. Such characters only occur inside JSON
    strings, so escaping them keeps the document valid and the data exact for its reader.
    """
    if text.isascii() and "\x7f" not in text:
        return text
    return _JSON_UNSAFE.sub(_escape, text)


def safe_text(text: str, *, multiline: bool = True) -> str:
    """`text` with terminal control sequences and invisible characters removed.

    With `multiline=False`, newlines and tabs become spaces (a table cell, a one-line
    message); with the default they stay, for blocks printed line by line.
    """
    if text.isascii() and text.isprintable():
        return text  # the common case costs one scan
    if "\x1b" in text or not text.isascii():
        text = _SEQUENCE.sub("", text)
    text = _CONTROL.sub("", text)
    if not text.isascii():
        text = _NON_ASCII.sub(_non_ascii, text)
    if not multiline:
        text = text.replace("\n", " ").replace("\t", " ")
    return text
