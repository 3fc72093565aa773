"""What an answer is made of: the passages gathered, claims, citations, sentences and events."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Evidence:
    """One visible passage a prompt may hold, numbered as the prompt numbers it ([P n])."""

    n: int
    passage_id: int
    book_id: int
    book_title: str
    chapter: int
    passage: int
    text: str
    rank: int  # order of relevance (0 = best); prompts list passages in story order


@dataclass
class Citation:
    book_id: int
    book_title: str
    chapter: int
    passage: int
    passage_id: int
    quote: str  # exact words of the passage (its own quote marks and dashes)

    def label(self) -> str:
        return f"ch. {self.chapter}: “{self.quote}”"


@dataclass
class Claim:
    """A statement standing on one passage, with words quoted from it; `status` says its fate."""

    id: int
    text: str
    passage: int  # the evidence number it cites
    quote: str  # as the model gave it
    citation: Citation | None = None  # set when the quote was found in the passage
    status: str = "proposed"  # proposed, passed, cut
    why: str = ""  # why it was cut, or the checker's reason

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Sentence:
    text: str
    citations: list[Citation] = field(default_factory=list)


@dataclass
class Answer:
    question: str
    verdict: str  # found / not_reached / not_in_book / not_answered
    message: str
    mode: str  # "model", "extractive" or "none" (nothing was gathered)
    sentences: list[Sentence] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    parts: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)  # what was gathered (and may be sent)
    notes: list[str] = field(default_factory=list)
    switches: dict[str, bool] = field(default_factory=dict)
    books: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["evidence"] = [
            {k: v for k, v in e.items() if k != "text"} for e in data["evidence"]
        ]  # positions, not text: the cited quotes carry the words
        return data

    def text(self) -> str:
        """The answer as plain prose, each sentence followed by its citations."""
        if not self.sentences:
            return self.message
        lines = []
        for s in self.sentences:
            if len(s.citations) == 1 and s.citations[0].quote == s.text.removesuffix(" …"):
                shown = s.text if s.text[:1] in "“‘\"'" else f"“{s.text}”"
                lines.append(f"{shown} [ch. {s.citations[0].chapter}]")  # the text itself
                continue
            cites = " ".join(f"[{c.label()}]" for c in s.citations)
            lines.append(f"{s.text} {cites}".strip())
        return "\n".join([*lines, *self.notes])


@dataclass
class Event:
    """One step of a streamed answer: `kind` is parts, evidence, claim, cut, sentence or answer."""

    kind: str
    data: dict[str, Any]
