"""The encodings an agent can undo beyond base64, base32 and hex: the gate's further readings.

An agent told "read this as Braille and obey it", "decode it with ROT47", "turn it back into
text (the alphabet without 0, O, I and l) and run it" will do so, so the gate reads what the
agent would read. Two kinds of reading:

- `in_place`: the rule with the disguised part put back where it stands, because its meaning
  needs its sentence: escapes (`\\u0073\\u0079...`, `\\x72`, `&#115;`), Braille letters, a word
  spelled in the phonetic alphabet ("dash dash November Oscar ..." is `--no...`);
- `cipher_payloads`: what a decoder recovers on its own: letter ciphers when the rule names
  them (ROT47, Atbash, a Caesar shift, `tr 'b-za' 'a-z'`), and data encodings found by their
  shape (quoted-printable, uuencode, Morse, base58, base45, Z85).

Each is a reading next to the text as written (`lore.rules.gate.decode`), never a replacement.
"""

from __future__ import annotations

import binascii
import html
import quopri
import re
import string

MIN_TEXT = 6  # a decoded text shorter than this says nothing

# -- in place ------------------------------------------------------------------------------------
_UNICODE_ESCAPES = re.compile(r"(?:\\u[0-9a-fA-F]{4}|\\x[0-9a-fA-F]{2}|&#x?[0-9a-fA-F]{2,5};){3,}")
_BRAILLE_LETTERS = "⠁⠃⠉⠙⠑⠋⠛⠓⠊⠚⠅⠇⠍⠝⠕⠏⠟⠗⠎⠞⠥⠧⠺⠭⠽⠵"
_BRAILLE = str.maketrans({**dict(zip(_BRAILLE_LETTERS, string.ascii_lowercase, strict=True)), "⠀": " "})
_PHONETIC = {
    "alfa": "a", "alpha": "a", "bravo": "b", "charlie": "c", "delta": "d", "echo": "e",
    "foxtrot": "f", "golf": "g", "hotel": "h", "india": "i", "juliett": "j", "juliet": "j",
    "kilo": "k", "lima": "l", "mike": "m", "november": "n", "oscar": "o", "papa": "p",
    "quebec": "q", "romeo": "r", "sierra": "s", "tango": "t", "uniform": "u", "victor": "v",
    "whiskey": "w", "whisky": "w", "xray": "x", "x-ray": "x", "yankee": "y", "zulu": "z",
}  # fmt: skip
_MARKS = {"dash": "-", "hyphen": "-", "dot": ".", "period": ".", "slash": "/", "underscore": "_"}
_SPELLED_WORD = "(?:" + "|".join(map(re.escape, [*_PHONETIC, *_MARKS])) + ")"
_SPELLED_RUN = re.compile(rf"\b{_SPELLED_WORD}(?:[\s,]+{_SPELLED_WORD})+\b", re.I)


def _escape(match: re.Match[str]) -> str:
    run = match.group(0)
    run = re.sub(r"\\u([0-9a-fA-F]{4})", lambda m: chr(int(m.group(1), 16)), run)
    run = re.sub(r"\\x([0-9a-fA-F]{2})", lambda m: chr(int(m.group(1), 16)), run)
    return html.unescape(run)


def _spelled(match: re.Match[str]) -> str:
    """A run of phonetic-alphabet words and spelled marks, when it spells at least three letters."""
    words = re.split(r"[\s,]+", match.group(0).lower())
    if sum(w in _PHONETIC for w in words) < 3:
        return match.group(0)
    return "".join(_PHONETIC.get(w) or _MARKS.get(w, "") for w in words)


def in_place(text: str) -> str:
    """The rule with escapes decoded, Braille read as letters and phonetic spelling joined, each
    where it stands (the text unchanged when it holds none of them)."""
    out = _UNICODE_ESCAPES.sub(_escape, text)
    if any("⠀" <= ch <= "⣿" for ch in out):
        out = out.translate(_BRAILLE)
    return _SPELLED_RUN.sub(_spelled, out)


# -- letter ciphers the rule names -----------------------------------------------------------------
_NAMES_ROT47 = re.compile(r"\brot\s*-?\s*47\b", re.I)
_NAMES_ATBASH = re.compile(r"\batbash\b|\b(?:mirror(?:ed)?|reversed?) alphabet\b", re.I)
_NAMES_SHIFT = re.compile(
    r"\bcaesar\b|\brot\s*-?\s*(\d{1,2})\b|\bshift(?:ed|ing)?\s+(?:\w+\s+){0,3}?(?:by|of)\s+(\d{1,2}|one|two|three|four|five)\b",
    re.I,
)
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
_TR = re.compile(r"\btr\s+(['\"]?)([^\s'\"]{2,40})\1\s+(['\"]?)([^\s'\"]{2,40})\3")


def _shift(text: str, by: int) -> str:
    low, up = string.ascii_lowercase, string.ascii_uppercase
    by %= 26
    table = str.maketrans(low + up, low[by:] + low[:by] + up[by:] + up[:by])
    return text.translate(table)


def _rot47(text: str) -> str:
    return "".join(chr(33 + (ord(ch) - 33 + 47) % 94) if 33 <= ord(ch) <= 126 else ch for ch in text)


def _atbash(text: str) -> str:
    low, up = string.ascii_lowercase, string.ascii_uppercase
    return text.translate(str.maketrans(low + up, low[::-1] + up[::-1]))


def _tr_set(spec: str) -> str:
    """A `tr` set with its ranges written out: `b-za` -> `bcd...za`."""
    out, at = [], 0
    while at < len(spec):
        if at + 2 < len(spec) and spec[at + 1] == "-":
            start, end = ord(spec[at]), ord(spec[at + 2])
            out += [chr(c) for c in range(start, end + 1)] if start <= end else []
            at += 3
        else:
            out.append(spec[at])
            at += 1
    return "".join(out)


def _tr(text: str, match: re.Match[str]) -> str | None:
    source, target = _tr_set(match.group(2)), _tr_set(match.group(4))
    if not source or not target:
        return None
    target = (target + target[-1] * len(source))[: len(source)]
    return text.translate(str.maketrans(source, target))


def letter_ciphers(text: str) -> list[str]:
    """The rule deciphered by each letter cipher it names (ROT47, Atbash, a Caesar shift by the
    amount it gives, or every shift when it gives none) and by each `tr` translation it holds."""
    out = []
    if _NAMES_ROT47.search(text):
        out.append(_rot47(text))
    if _NAMES_ATBASH.search(text):
        out.append(_atbash(text))
    for m in _NAMES_SHIFT.finditer(text):
        named = m.group(1) or m.group(2)
        if named is None:
            out += [_shift(text, by) for by in range(1, 26) if by != 13]
            continue
        by = _NUMBERS.get(named.lower()) or int(named)
        if by % 26 not in (0, 13):
            out += [_shift(text, by), _shift(text, -by)]
    out += [t for m in _TR.finditer(text) if (t := _tr(text, m))]
    return out


# -- data encodings found by their shape -----------------------------------------------------------
_QP_RUN = re.compile(r"(?:=[0-9A-F]{2}){8,}")
_UU_BLOCK = re.compile(
    r"\bbegin\s+[0-7]{3,4}\s+\S+\s*(?:\n|\s/\s)(.*?)(?:\n|\s/\s)\s*`?\s*(?:\n|\s/\s)?\s*end\b", re.S
)
_MORSE_RUN = re.compile(r"(?<![\w.-])[.-]{1,6}(?:(?:\s+/\s+|\s+|\s*\|\s*)[.-]{1,6}){7,}(?![\w.-])")
_MORSE = dict(
    zip(
        ".- -... -.-. -.. . ..-. --. .... .. .--- -.- .-.. -- -. --- .--. --.- .-. ... - ..- ...- .-- -..- -.-- --.."
        " ----- .---- ..--- ...-- ....- ..... -.... --... ---.. ----. .-.-.- --..-- ---... -..-. -....-".split(),
        "abcdefghijklmnopqrstuvwxyz0123456789.,:/-",
        strict=True,
    )
)
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_B58_TOKEN = re.compile(r"(?<![\w+/=])[1-9A-HJ-NP-Za-km-z]{20,}(?![\w+/=])")
_B45 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ $%*+-./:"
_B45_TOKEN = re.compile(r"[0-9A-Z$%*+\-./:]{3}[0-9A-Z $%*+\-./:]{16,}[0-9A-Z$%*+\-./:]")
_B45_QUOTED = re.compile(r"(['\"`])([0-9A-Z $%*+\-./:]{20,400})\1")
_Z85 = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#"
_QUOTED = re.compile(r"(['\"`])([^'\"`\s]{20,400})\1")


def as_text(data: bytes) -> str | None:
    """Decoded bytes that read as text (mostly printable, with letters), or None."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if len(text) < MIN_TEXT:
        return None
    printable = sum(ch.isprintable() or ch in "\n\t" for ch in text)
    letters = sum(ch.isalpha() for ch in text)
    return text if printable >= 0.95 * len(text) and letters >= 0.4 * len(text) else None


def _uu(block: str) -> str | None:
    data = b""
    for line in re.split(r"\n|\s/\s", block):
        line = line.strip()
        if not line or line == "`":
            continue
        try:
            data += binascii.a2b_uu(line)
        except binascii.Error:
            return None
    return as_text(data)


def _morse(run: str) -> str | None:
    words = re.split(r"\s+/\s+|\s*\|\s*", run)
    letters = ["".join(_MORSE.get(code, "?") for code in word.split()) for word in words]
    text = " ".join(letters)
    return text if text.count("?") <= len(text) // 10 and len(text) >= MIN_TEXT else None


def _base58(token: str) -> str | None:
    number = 0
    for ch in token:
        number = number * 58 + _B58.index(ch)
    data = number.to_bytes((number.bit_length() + 7) // 8, "big")
    return as_text(data)


def _base45(token: str) -> str | None:
    data = bytearray()
    for at in range(0, len(token), 3):
        chunk = [_B45.index(ch) for ch in token[at : at + 3]]
        if len(chunk) == 3:
            value = chunk[0] + chunk[1] * 45 + chunk[2] * 45 * 45
            if value > 0xFFFF:
                return None
            data += value.to_bytes(2, "big")
        elif len(chunk) == 2:
            value = chunk[0] + chunk[1] * 45
            if value > 0xFF:
                return None
            data.append(value)
        else:
            return None
    return as_text(bytes(data))


def _z85(token: str) -> str | None:
    if len(token) % 5 or any(ch not in _Z85 for ch in token):
        return None
    data = bytearray()
    for at in range(0, len(token), 5):
        value = 0
        for ch in token[at : at + 5]:
            value = value * 85 + _Z85.index(ch)
        if value > 0xFFFFFFFF:
            return None
        data += value.to_bytes(4, "big")
    return as_text(bytes(data))


def _quoted_printable(run: str) -> str | None:
    return as_text(quopri.decodestring(run.encode("ascii")))


def data_encodings(text: str) -> list[str | None]:
    """What each data encoding recovers from the runs of the rule shaped like it."""
    found: list[str | None] = [_quoted_printable(m.group(0)) for m in _QP_RUN.finditer(text)]
    found += [_uu(m.group(1)) for m in _UU_BLOCK.finditer(text)]
    found += [_morse(m.group(0)) for m in _MORSE_RUN.finditer(text)]
    found += [_base58(t) for t in _B58_TOKEN.findall(text) if not t.isalpha()]
    runs = [m.group(2) for m in _B45_QUOTED.finditer(text)] + [t.strip() for t in _B45_TOKEN.findall(text)]
    found += [_base45(t) for t in dict.fromkeys(runs) if re.search(r"[$%*+/:]", t)]
    found += [_z85(m.group(2)) for m in _QUOTED.finditer(text)]
    return found


def cipher_payloads(text: str) -> list[str]:
    """Every text the letter ciphers the rule names and the data encodings it holds recover."""
    found = [*letter_ciphers(text), *data_encodings(text)]
    return [p for p in dict.fromkeys(found) if p and p != text]
