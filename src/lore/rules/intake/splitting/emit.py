"""Emitting pieces: each judged by its form and kept or left out with why; long paragraphs, lists
and tables cut to fit, code blocks left out.
"""

from __future__ import annotations

import re

from lore.rules.gate.validation import MAX_RULE_CHARS
from lore.rules.intake.sentences import judge, orders, plain
from lore.rules.intake.splitting.blocks import _BULLET, _FENCE
from lore.rules.intake.splitting.cutting import _sentences, pack
from lore.rules.intake.splitting.pieces import Piece, Split, _Block
from lore.rules.intake.splitting.titles import MAX_TITLE, clean_title

SHORT_ITEM = 40

_FENCED = re.compile(r"^\s*(`{3,}|~{3,}).*?^\s*\1[^\n]*$\n?", re.S | re.M)


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
