"""Which story of a collection a question names, so search looks only there.

A collection such as The Adventures of Sherlock Holmes holds one story per chapter, and a reader
asks "In The Copper Beeches, what odd condition is the governess asked to accept?". The title's
words ("copper", "beeches") are no help to the word ranking, and the same kind of scene (a
client, a condition, a fee) lies in every story; the named story is where the answer is. A
question names a story when it says "in TITLE" with the title's own words, capitalised as a title
is ("in A Case of Identity", "in The Engineer's Thumb"), and the title, its numbering and a
leading "The Adventure of" set aside, has at least two words: a one-word chapter title
("Conclusion") is too easily a word of the question. Nothing here reads a passage; the reader's
cap still applies to every search made within the story.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from lore.books.store.cap import END, Cap
from lore.books.store.records import ChapterInfo

_NUMBERING = re.compile(r"^\s*(?:(?:chapter|part|book)\s+)?(?:[ivxlcdm]+|\d+)\s*[.:)\-—]?\s+", re.I)
_LEAD = re.compile(r"^(?:the\s+)?(?:adventures?\s+of\s+)?(?:the|a|an)\s+", re.I)
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?")
_ARTICLE = r"(?:(?:the|a|an)\s+)?"


@dataclass(frozen=True)
class Story:
    """A chapter a question names by its title, in one book."""

    book_id: int
    chapter: int
    phrase: str  # the words of the question that name it, as written
    passages: dict[int, int] = field(default_factory=dict)  # passage id -> its seq in the chapter

    def holds(self, passage_id: int) -> bool:
        return passage_id in self.passages

    def visible(self, caps: Sequence[Cap]) -> int:
        """How many of the story's passages lie under the caps."""
        cap = next((c for c in caps if c.book_id == self.book_id), None)
        if cap is None or self.chapter > cap.chapter:
            return 0
        if self.chapter < cap.chapter or cap.passage is None or cap.chapter >= END:
            return len(self.passages)
        return sum(1 for seq in self.passages.values() if seq <= cap.passage)


def title_words(title: str) -> list[str]:
    """A chapter title's own words: its numbering and a leading article or "The Adventure of"
    set aside ("IX. THE ADVENTURE OF THE ENGINEER’S THUMB" -> engineer's, thumb)."""
    core = _LEAD.sub("", _NUMBERING.sub("", title.strip()))
    return [w.replace("’", "'").lower() for w in _WORD.findall(core)]


def named_story(question: str, outlines: dict[int, Sequence[ChapterInfo]]) -> Story | None:
    """The one chapter whose title the question names after "in" (None when none, or more than
    one, does). Each title word must be written as a title is, with a capital, except the small
    words inside it ("of", "the")."""
    text = question.replace("’", "'")
    found: list[Story] = []
    for book_id, chapters in outlines.items():
        for chapter in chapters:
            words = title_words(chapter.title)
            if len(words) < 2:
                continue
            pattern = re.compile(
                r"\bin\s+"
                + _ARTICLE
                + r"(?:adventures?\s+of\s+(?:the\s+)?)?"
                + r"\W+".join(re.escape(w) for w in words)
                + r"\b",
                re.I,
            )
            match = pattern.search(text)
            if match is None:
                continue
            said = _WORD.findall(match.group(0))[1:]
            if all(w[:1].isupper() for w in said if len(w) > 3):
                found.append(Story(book_id, chapter.chapter_seq, question[match.start() : match.end()]))
    return found[0] if len(found) == 1 else None


def without(question: str, story: Story) -> str:
    """The question with the words naming the story taken out ("In X, what ..." -> "what ...")."""
    rest = " ".join(question.replace(story.phrase, " ", 1).split())
    return re.sub(r"\s+([?.!,;:])", r"\1", rest).lstrip(",;: ").strip()
