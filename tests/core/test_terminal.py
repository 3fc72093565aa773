"""`safe_text` and `safe_json`: control sequences out, ordinary Unicode in, JSON exact."""

import json

import pytest

from lore.core.terminal import safe_json, safe_text


@pytest.mark.parametrize(
    ("raw", "shown"),
    [
        ("title \x1b]0;pwned\x07end", "title end"),  # OSC ended by BEL
        ("link \x1b]8;;http://x\x1b\\text\x1b]8;;\x1b\\ end", "link text end"),  # OSC ended by ST
        ("a\x1b[2J\x1b[1;1Hb", "ab"),  # CSI clear screen and cursor move
        ("a\x1b[?1049hb", "ab"),  # CSI with private parameters
        ("a\x1bcb", "ab"),  # ESC c: full reset
        ("a\x9b2Jb", "ab"),  # 8-bit CSI
        ("a\x9d0;t\x9cb", "ab"),  # 8-bit OSC and ST
        ("a\x1bPq#0\x1b\\b", "ab"),  # DCS (sixel)
        ("safe\rEVIL", "safeEVIL"),  # a carriage return cannot hide the start of a line
        ("bell\x07 back\x08 nul\x00 del\x7f", "bell back nul del"),
        ("\u202eevil.exe\u202c", "evil.exe"),  # bidi override
        ("a\u2066b\u2069c\u200fd", "abcd"),  # isolates and marks
        ("zero\u200bwidth\ufeff", "zerowidth"),
        ("tag\U000e0049\U000e0047", "tag"),  # tag characters smuggle invisible text
        ("bad\udcffname", "bad\ufffdname"),  # a lone surrogate from a non-UTF-8 file name
        ("unterminated \x1b]0;title", "unterminated "),
    ],
)
def test_removes_controls(raw: str, shown: str) -> None:
    assert safe_text(raw) == shown


@pytest.mark.parametrize(
    "text", ["plain ASCII", "naïve café", "Ярослав", "東京", "שלום", "👩‍💻 and 🏳️‍🌈", "क्‍ष", "a\tb\nc"]
)
def test_keeps_ordinary_text(text: str) -> None:
    assert safe_text(text) == text


def test_single_line_turns_breaks_into_spaces() -> None:
    assert safe_text("one\ntwo\tthree\u2028four", multiline=False) == "one two three four"
    assert safe_text("one\u2029two") == "one\ntwo"


def test_json_keeps_the_data_exact_and_the_bytes_safe() -> None:
    data = {"subject": "fix \x9b31m\u202e \x1b]0;x\x07 \U000e0041 bad\udcff é 👩‍💻", "n": 1}
    text = safe_json(json.dumps(data, ensure_ascii=False))
    assert json.loads(text) == data
    assert not any(ch in text for ch in ("\x1b", "\x07", "\x9b", "\u202e", "\udcff", "\U000e0041"))
    assert "é" in text and "👩" in text  # readable text stays readable
