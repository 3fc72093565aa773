"""Splitting a markdown instruction file into rules of at most 500 characters.

Where the cuts go, and why:

- A heading starts a new section; its text heads the titles of the rules below it, each
  followed by the rule's first words (`rule_title`), so that two sections' rules never share one.
  A paragraph that is only emphasis ("**Principle:**") is a heading too. A section headed
  "Example(s)" is an example, and everything under it is left out.
- Each paragraph is a rule. A paragraph longer than 500 characters is cut between sentences.
- Each top-level list item is a rule, together with its nested items. An item whose children do
  not fit is split into its children, titled with the item's own text. A paragraph that ends with
  `:` and leads into a list titles the list's items instead of standing alone.
- A list of names (items of at most five words without a full stop: a tech stack) is one rule
  when the whole list fits, since its items mean little one by one.
- A code block is an example, not a rule: it is left out, and the paragraph before it stands
  alone (a lead-in ending with `:` that only introduced it is left out with it).
- Tables too long for one rule are cut between rows, repeating the header row.

Every piece is then judged by its form (`lore.rules.intake.sentences.judge`): it is kept when
it says what to do, and stored as plain text; a persona, prose about the file, an example, a
label with a value or a description is left out and counted in `Split.left_out` with why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from lore.rules.gate.validation import MAX_RULE_CHARS
from lore.rules.intake.sentences import judge, orders, plain

SHORT_ITEM = 40
MAX_TITLE = 120
TITLE_CHARS = 60  # an imported rule's title: its heading and first words

_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_RULE_LINE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")
_FENCED = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1[^\n]*$\n?", re.S | re.M)
_LEAD_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)]|#+|>+)\s+")  # a bullet, heading or quote mark
_INLINE_MARKS = re.compile(r"[*`]+|(?<!\w)_+|_+(?!\w)")  # emphasis and code marks, not snake_case
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'`(\[*_])")


@dataclass
class Piece:
    """One rule's worth of text, where it starts in the file, and its title."""

    text: str
    line: int
    title: str = ""
    reason: str = ""  # why a piece was left out
    led: bool = False  # introduced by a lead-in that says what to do
    sentence: bool = False  # left out: one sentence taken out of a piece that was kept


@dataclass
class Split:
    pieces: list[Piece] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # "line N: why", for the report
    left_out: list[Piece] = field(default_factory=list)  # judged no rule, each with its reason

    def left_out_note(self) -> str:
        """One line for the report: how many pieces were left out, by reason."""
        if not self.left_out:
            return ""
        counts: dict[str, int] = {}
        for piece in self.left_out:
            counts[piece.reason] = counts.get(piece.reason, 0) + 1
        parts = ", ".join(f"{n} {why}" for why, n in sorted(counts.items(), key=lambda kv: -kv[1]))
        return f"{len(self.left_out)} piece(s) left out as no rule: {parts}"


@dataclass
class _Block:
    kind: str  # heading, para, list, code, table
    line: int
    lines: list[str]
    level: int = 0  # a heading's level
    items: list[tuple[int, list[str]]] = field(default_factory=list)  # list blocks: (line, lines)


def clean_title(text: str) -> str:
    """A heading or lead-in as a title: markdown marks and a trailing colon removed."""
    text = plain(text).strip().rstrip(":").strip()
    text = re.sub(r"\s+", " ", text)
    return text if len(text) <= MAX_TITLE else text[: MAX_TITLE - 3].rstrip() + "..."


def rule_title(heading: str, text: str, limit: int = TITLE_CHARS) -> str:
    """The title of an imported rule: its heading, then its first words, so that the rules of one
    section (and of every file's "Testing") can be told apart in a list of titles:
    "Testing: Run pytest before every commit". Empty without a heading (a rule's label is then
    its text)."""
    head = _title_head(heading, limit)
    if not head:
        return ""
    first = _LEAD_MARK.sub("", text.lstrip().split("\n", 1)[0][: 2 * limit])
    first = " ".join(_INLINE_MARKS.sub("", first).split()).rstrip(".")
    room = limit - len(head) - 2
    if not first or room < 12 or first.lower() == head.lower():
        return head
    if len(first) > room:
        first = first[: room - 3].rsplit(" ", 1)[0].rstrip(" ,;:.!?") + "..."
    return f"{head}: {first}"


@lru_cache(maxsize=1024)
def _title_head(heading: str, limit: int) -> str:
    head = clean_title(heading)
    return head if len(head) <= limit // 2 + 10 else head[: limit // 2].rstrip() + "..."


_EXAMPLE_HEADING = re.compile(
    r"^(?:\d+[.)]?\s*)?(?:(?:good|bad|full|complete|usage|code)\s+)?examples?\b", re.I
)
_PSEUDO_HEADING = re.compile(r"^(\*\*|__)([^*_\n]{1,80}?)\1\s*:?\s*$")


def split_markdown(text: str, *, first_line: int = 1, default_title: str = "") -> Split:
    """Cut `text` (the body of a file starting at `first_line`) into pieces."""
    out = Split()
    title = clean_title(default_title) if default_title else ""
    previous: Piece | None = None  # the piece a lead-in's list may follow
    lead_in: Piece | None = None  # a paragraph ending with ':' waiting for its list
    example_level = 0  # inside a section headed "Example(s)" of this level
    blocks = _blocks(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), first_line)
    for block in blocks:
        if block.kind == "heading" and example_level and block.level <= example_level:
            example_level = 0
        if example_level:
            if block.kind != "heading":
                out.left_out.append(Piece("\n".join(block.lines), block.line, title, "example"))
            continue
        if block.kind != "list" and lead_in is not None:
            if block.kind == "code":  # "Use anyhow for errors:" before its example: the order
                lead_in.text = lead_in.text.rstrip().removesuffix(":").rstrip() + "."
            _emit(out, lead_in)
            previous, lead_in = None, None
        if block.kind == "heading":
            title = clean_title(block.lines[0]) or title
            previous = None
            if _EXAMPLE_HEADING.match(clean_title(block.lines[0])):
                example_level = block.level
        elif block.kind == "para":
            body = _join(block.lines)
            pseudo = _PSEUDO_HEADING.match(body)
            if pseudo:  # "**Principle:**" alone on its line is a heading, not a rule
                title = clean_title(pseudo.group(2)) or title
                previous = None
                continue
            piece = Piece(body, block.line, title)
            if body.endswith(":") and len(body) <= MAX_RULE_CHARS:
                lead_in = piece
                continue
            previous = _emit_long(out, piece)
        elif block.kind == "table":
            previous = _emit_table(out, block, title)
        elif block.kind == "code":
            _place_code(out, block, title)
        elif block.kind == "list":
            previous = _emit_list(out, block, title, lead_in)
            lead_in = None
    if lead_in is not None:
        _emit(out, lead_in)
    del previous
    return out


# -- emitting -----------------------------------------------------------------------------------
def _emit(out: Split, piece: Piece) -> Piece | None:
    """Keep a piece that says what to do, as plain text; leave anything else out, with why."""
    piece.text = piece.text.strip()
    if not piece.text:
        return None
    verdict = judge(piece.text, led=piece.led)
    if not verdict.keep:
        piece.reason = verdict.reason
        out.left_out.append(piece)
        return None
    for sentence, why in verdict.removed:  # a persona sentence before an order, and the like
        out.left_out.append(Piece(sentence, piece.line, piece.title, why, sentence=True))
    piece.text = verdict.text
    out.pieces.append(piece)
    return piece


def _emit_long(out: Split, piece: Piece) -> Piece | None:
    """Emit a paragraph, cut between sentences when it is too long."""
    if len(piece.text) <= MAX_RULE_CHARS:
        return _emit(out, piece)
    last = None
    for chunk in pack(_sentences(piece.text), " "):
        last = _emit(out, Piece(chunk, piece.line, piece.title, led=piece.led))
    return last


def _emit_table(out: Split, block: _Block, title: str) -> Piece | None:
    rows = [ln.strip() for ln in block.lines if ln.strip()]
    text = "\n".join(rows)
    if len(text) <= MAX_RULE_CHARS:
        return _emit(out, Piece(text, block.line, title))
    header = rows[:2] if len(rows) > 1 and set(rows[1]) <= set("|-: ") else rows[:1]
    body = rows[len(header) :]
    room = MAX_RULE_CHARS - len("\n".join(header)) - 1
    last = None
    for chunk in pack(body, "\n", limit=max(room, 100)):
        joined = "\n".join([*header, chunk])
        if len(joined) > MAX_RULE_CHARS:
            joined = chunk
        last = _emit(out, Piece(joined, block.line, title))
    return last


def _place_code(out: Split, block: _Block, title: str) -> None:
    """A code block is an example: left out, and counted as such."""
    code = "\n".join(block.lines).strip("\n")
    out.left_out.append(Piece(code, block.line, title, "example (code block)"))


def _emit_list(out: Split, block: _Block, title: str, lead_in: Piece | None) -> Piece | None:
    """A list's items, each judged; a lead-in that says what to do ("Follow these rules:") makes
    each of its items an order, so short items ("Functional components") are kept under it."""
    items = []
    for line, lines in block.items:
        text = _item_text(lines)
        without = _FENCED.sub("", text).strip()
        if without != text:  # code inside an item is an example
            out.left_out.append(Piece(text[len(without) :], line, title, "example (code block)"))
        if without:
            items.append((line, without))
    if not items:
        return _emit(out, lead_in) if lead_in else None
    led = lead_in is not None and orders(lead_in.text)
    whole = "\n".join(f"- {text}" for _, text in items)
    short = all(_is_name(text) for _, text in items)
    if short and len(whole) + (len(lead_in.text) + 1 if lead_in else 0) <= MAX_RULE_CHARS:
        text = (lead_in.text + "\n" + whole) if lead_in else whole
        return _emit(out, Piece(text, lead_in.line if lead_in else block.line, title, led=led))
    item_title = title
    if lead_in is not None:
        if len(lead_in.text) <= MAX_TITLE:
            item_title = clean_title(lead_in.text)
        else:
            _emit(out, lead_in)
    last = None
    for line, text in items:
        last = _emit_item(out, line, text, item_title, led)
    return last


def _is_name(text: str) -> bool:
    """A list item that names something (`React 18`, `PostgreSQL`) rather than saying a rule."""
    return (
        len(text) <= SHORT_ITEM
        and "\n" not in text
        and len(text.split()) <= 5
        and not text.rstrip().endswith((".", "!", "?", ";"))
    )


def _emit_item(out: Split, line: int, text: str, title: str, led: bool = False) -> Piece | None:
    head, _, rest = text.partition("\n")
    children = [c.strip().removeprefix("- ") for c in rest.split("\n") if c.strip()]
    if children and plain(head).endswith(":") and len(head) <= MAX_TITLE:
        # "**Guidance:**" over its own items: a lead-in, each child a rule of its own; names
        # ("Frameworks:" over "pydantic", "fastapi") stay together as one
        head_orders = orders(head)
        if all(_is_name(c) for c in children) and len(text) <= MAX_RULE_CHARS:
            joined = f"{head.rstrip()} {', '.join(children)}"
            return _emit(out, Piece(joined, line, title, led=led or head_orders))
        last = None
        for child in children:
            last = _emit_long(out, Piece(child, line, clean_title(head), led=led or head_orders))
        return last
    if len(text) <= MAX_RULE_CHARS:
        return _emit(out, Piece(text, line, title, led=led))
    return _emit_parts(out, line, text, title, led)


def _emit_parts(out: Split, line: int, text: str, title: str, led: bool) -> Piece | None:
    """An item with children, too long to be one rule: the item's own words, then each child."""
    head, _, rest = text.partition("\n")
    children = [c.strip().removeprefix("- ") for c in rest.split("\n") if c.strip()]
    if children and len(head) <= MAX_TITLE:
        last = None
        head_orders = orders(head)
        if not head.rstrip().endswith(":") and len(head) > SHORT_ITEM:
            last = _emit(out, Piece(head, line, title, led=led))  # the item says something itself
        for child in children:
            last = _emit_long(out, Piece(child, line, clean_title(head), led=led or head_orders))
        return last
    return _emit_long(out, Piece(" ".join(plain(text).split()), line, title, led=led))


def pack(parts: list[str], sep: str, limit: int = MAX_RULE_CHARS) -> list[str]:
    """Join consecutive parts while they fit in `limit`; a part too long alone is cut at words."""
    chunks: list[str] = []
    buf = ""
    for part in parts:
        for bit in _cut_words(part.strip(), limit):
            if not buf:
                buf = bit
            elif len(buf) + len(sep) + len(bit) <= limit:
                buf += sep + bit
            else:
                chunks.append(buf)
                buf = bit
    if buf:
        chunks.append(buf)
    return chunks


def _cut_words(text: str, limit: int) -> list[str]:
    if len(text) <= limit:
        return [text] if text else []
    out, buf = [], ""
    for word in text.split(" "):
        while len(word) > limit:
            if buf:
                out.append(buf)
                buf = ""
            out.append(word[:limit])
            word = word[limit:]
        if not buf:
            buf = word
        elif len(buf) + 1 + len(word) <= limit:
            buf += " " + word
        else:
            out.append(buf)
            buf = word
    if buf:
        out.append(buf)
    return out


def _sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE_END.split(" ".join(text.split())) if s]


def _join(lines: list[str]) -> str:
    return " ".join(ln.strip() for ln in lines if ln.strip())


def _item_text(lines: list[str]) -> str:
    """A list item's text: its first line and continuations joined, nested items and code on
    lines of their own."""
    match = _BULLET.match(lines[0])
    first = match.group(3) if match else lines[0].strip()
    base = len(match.group(1)) if match else 0
    parts = [first.strip()]
    fence = ""
    for raw in lines[1:]:
        if fence:
            parts.append("\n" + raw[base + 2 :] if raw[: base + 2].isspace() else "\n" + raw.strip())
            if raw.strip().startswith(fence):
                fence = ""
            continue
        if not raw.strip():
            continue
        opening = _FENCE.match(raw)
        nested = _BULLET.match(raw)
        if opening:
            fence = opening.group(1)
            parts.append("\n" + raw.strip())
        elif nested and len(nested.group(1)) > base:
            depth = "  " * max(0, (len(nested.group(1)) - base) // 2 - 1)
            parts.append(f"\n{depth}- {nested.group(3).strip()}")
        else:  # a continuation line; a quote mark inside an item ("> WHY: ...") is dropped
            parts.append(" " + raw.strip().lstrip(">").strip())
    return "".join(parts).strip()


# -- block parsing --------------------------------------------------------------------------------
def _blocks(lines: list[str], first_line: int) -> list[_Block]:
    blocks: list[_Block] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        number = first_line + i
        stripped = line.strip()
        if not stripped or _RULE_LINE.match(line):
            i += 1
            continue
        fence = _FENCE.match(line)
        if fence:
            end = _fence_end(lines, i, fence.group(1))
            blocks.append(_Block("code", number, [ln.rstrip() for ln in lines[i : end + 1]]))
            i = end + 1
            continue
        heading = _HEADING.match(line)
        if heading:
            blocks.append(_Block("heading", number, [heading.group(2)], level=len(heading.group(1))))
            i += 1
            continue
        if _BULLET.match(line) and len(_BULLET.match(line).group(1)) <= 3:  # type: ignore[union-attr]
            block, i = _list_block(lines, i, first_line)
            blocks.append(block)
            continue
        if stripped.startswith("|"):
            j = i
            while j < n and lines[j].strip().startswith("|"):
                j += 1
            blocks.append(_Block("table", number, lines[i:j]))
            i = j
            continue
        j = i
        para: list[str] = []
        while j < n:
            current = lines[j]
            if not current.strip() or _FENCE.match(current) or _HEADING.match(current):
                break
            if j > i and (_BULLET.match(current) or current.strip().startswith("|")):
                break
            if j > i and re.match(r"^\s{0,3}(=+|-+)\s*$", current):  # setext heading
                blocks.append(_Block("heading", number, [_join(para)], level=1 if "=" in current else 2))
                para = []
                j += 1
                break
            para.append(current.strip().lstrip(">").strip() if current.lstrip().startswith(">") else current)
            j += 1
        if para:
            blocks.append(_Block("para", number, para))
        i = max(j, i + 1)
    return blocks


def _fence_end(lines: list[str], start: int, marker: str) -> int:
    for j in range(start + 1, len(lines)):
        if lines[j].strip().startswith(marker[0] * len(marker)) and not lines[j].strip().strip(marker[0]):
            return j
    return len(lines) - 1


def _list_block(lines: list[str], start: int, first_line: int) -> tuple[_Block, int]:
    """A list: top-level items with their nested items, continuations and indented code."""
    base = len(_BULLET.match(lines[start]).group(1))  # type: ignore[union-attr]
    block = _Block("list", first_line + start, [])
    i, n = start, len(lines)
    current: list[str] | None = None
    in_fence = ""
    while i < n:
        line = lines[i]
        if in_fence:
            current.append(line)  # type: ignore[union-attr]
            if line.strip().startswith(in_fence):
                in_fence = ""
            i += 1
            continue
        if not line.strip():
            nxt = next((ln for ln in lines[i + 1 :] if ln.strip()), "")
            indent = len(nxt) - len(nxt.lstrip())
            bullet = _BULLET.match(nxt)
            if nxt and (indent > base + 1 or (bullet and len(bullet.group(1)) == base)):
                i += 1
                continue
            break
        bullet = _BULLET.match(line)
        indent = len(line) - len(line.lstrip())
        if bullet and len(bullet.group(1)) <= base:
            if len(bullet.group(1)) < base:
                break
            current = [line]
            block.items.append((first_line + i, current))
        elif _HEADING.match(line) or (indent <= base and _FENCE.match(line)):
            break
        elif current is not None:
            fence = _FENCE.match(line)
            if fence:
                in_fence = fence.group(1)
            current.append(line)
        i += 1
    block.lines = lines[start:i]
    return block, i
