"""A markdown file read into blocks: headings, paragraphs, lists (with their items), code and
tables, with the line each starts on.
"""

from __future__ import annotations

import re

from lore.rules.intake.splitting.pieces import _Block

_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^(\s*)([-*+]|\d{1,3}[.)])\s+(.*)$")
_FENCE = re.compile(r"^\s*(`{3,}|~{3,})")
_RULE_LINE = re.compile(r"^\s{0,3}([-*_])(\s*\1){2,}\s*$")


def _join(lines: list[str]) -> str:
    return " ".join(ln.strip() for ln in lines if ln.strip())


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
