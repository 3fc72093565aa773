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

The parts: `pieces` (what a split hands back), `blocks` (the file read into blocks), `emit` (each
block's pieces judged and emitted), `cutting` (text cut to fit), `titles`.
"""

from __future__ import annotations

import re

from lore.rules.gate.validation import MAX_RULE_CHARS
from lore.rules.intake.splitting.blocks import _blocks, _join
from lore.rules.intake.splitting.cutting import pack
from lore.rules.intake.splitting.emit import _emit, _emit_list, _emit_long, _emit_table, _place_code
from lore.rules.intake.splitting.pieces import Piece, Split
from lore.rules.intake.splitting.titles import clean_title, rule_title

__all__ = ["Piece", "Split", "clean_title", "pack", "rule_title", "split_markdown"]

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
