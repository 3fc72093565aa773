"""What a split hands back: the pieces kept, those left out with why, and the blocks a file is
read into.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
