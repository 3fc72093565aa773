"""Which full name a short form stands for, as the text has shown it so far.

A short form joins a full name only when exactly one candidate fits: "Holmes" and "Mr. Holmes"
join "Sherlock Holmes"; "Sir Henry" joins "Henry Baskerville"; "Bingley" stays itself in a book
with Mr., Miss and Caroline Bingley; a gendered title joins a full name only if that name was
seen with a title of the same gender. Whether one candidate fits depends on the names the text
has shown, so it changes as the book goes on: "Prophet" joins "Mormon Prophet" only once the
text has said "Mormon Prophet", and a second full name can make a short form ambiguous again.

So the grouping is a timeline. Reading the mentions in order, every change is recorded as a
`Link` at the mention that caused it, and a reader's cap picks, for each short form, the last
link at or before their position. The state after any prefix of the book is exactly the
grouping computed from that prefix alone (`tests/books/test_name_groups.py` checks it).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from lore.books.names.finder import FIRST_NAME_TITLES, Mention, compatible, find_mentions, form_kind, title_of

BOTH_NAME_TITLES = {"Lady", "Lord", "Miss", "Master"}  # "Lady Catherine" or "Lady Lucas"


@dataclass(frozen=True)
class Link:
    """From this mention on, `form` stands for `target` (itself: for no one else any more)."""

    form: str
    target: str
    chapter: int  # index into the chapter list (0-based), with `start`: the mention's offset
    start: int


@dataclass
class Entity:
    """A group of forms as of some position: its canonical name, kind and mentions."""

    name: str
    kind: str
    mentions: list[Mention] = field(default_factory=list)


class Grouping:
    """The names seen so far, and for every short form the full name it currently joins."""

    def __init__(self) -> None:
        self.forms: set[str] = set()
        self.full_titles: dict[str, set[str]] = {}
        self.by_first: dict[str, set[str]] = defaultdict(set)
        self.by_last: dict[str, set[str]] = defaultdict(set)
        self.titled_by_word: dict[str, set[str]] = defaultdict(set)  # "Mr. Holmes" under "Holmes"
        self.current: dict[str, str] = {}

    def target(self, form: str) -> str:
        return self.current.get(form, form)

    def see(self, mention: Mention) -> list[tuple[str, str]]:
        """Take one more mention into account; the (form, new target) pairs that changed."""
        words = self._learn(mention)
        if not words:
            return []
        changed = []
        titled = {t for w in words for t in self.titled_by_word.get(w, ())}
        for form in sorted(titled):
            changed += self._update(form, self._titled_target(form))
        bare = words | {t.split()[-1] for t in titled}
        for form in sorted(bare):
            if form in self.forms and self._is_bare(form):
                changed += self._update(form, self._bare_target(form))
        return changed

    def _learn(self, mention: Mention) -> set[str]:
        """Record what the mention shows; the words whose short forms may now resolve otherwise."""
        form = mention.form
        words = form.split()
        if mention.full:
            seen = self.full_titles.get(form)
            if seen is None:
                self.forms.add(form)
                self.full_titles[form] = set(mention.titles)
                self.by_first[words[0]].add(form)
                self.by_last[words[-1]].add(form)
                return {words[0], words[-1]}
            if set(mention.titles) - seen:
                seen.update(mention.titles)
                return {words[0], words[-1]}
            return set()
        if form in self.forms:
            return set()
        self.forms.add(form)
        if title_of(form):
            rest = form.split(" ", 1)[1]
            self.titled_by_word[rest].add(form)
            self.titled_by_word[words[-1]].add(form)
            return {rest, words[-1]}
        return {form}

    def _is_bare(self, form: str) -> bool:
        return form not in self.full_titles and not title_of(form) and " " not in form

    def _titled_target(self, form: str) -> str:
        title = title_of(form)
        word = form.split(" ", 1)[1]
        if title in FIRST_NAME_TITLES:
            pool = self.by_first.get(word, set())
        else:
            pool = self.by_last.get(word, set()) | (
                self.by_first.get(word, set()) if title in BOTH_NAME_TITLES else set()
            )
        fits = [f for f in pool if compatible(title, self.full_titles[f])]
        return fits[0] if len(fits) == 1 else form

    def _bare_target(self, form: str) -> str:
        owners = self.by_first.get(form, set()) | self.by_last.get(form, set())
        owners |= {self.target(t) for t in self.titled_by_word.get(form, ()) if t.split()[-1] == form}
        owners.discard(form)
        return next(iter(owners)) if len(owners) == 1 else form

    def _update(self, form: str, target: str) -> list[tuple[str, str]]:
        if self.target(form) == target:
            return []
        if target == form:
            del self.current[form]
        else:
            self.current[form] = target
        return [(form, target)]


def name_index(chapters: list[str]) -> tuple[list[Mention], list[Link]]:
    """The book's name mentions and the timeline of which full name each short form joins."""
    mentions = find_mentions(chapters)
    grouping = Grouping()
    links = [Link(form, target, m.chapter, m.start) for m in mentions for form, target in grouping.see(m)]
    return mentions, links


def group_kind(name: str, mentions: list[Mention]) -> str:
    """A group's kind: its canonical name's, or a person once any of its mentions has a title."""
    kind = form_kind(name)
    if kind == "name" and any(m.titles for m in mentions):
        return "person"
    return kind


def extract_names(chapters: list[str]) -> list[Entity]:
    """The entities as a reader who has finished the book knows them (most mentioned first)."""
    mentions = find_mentions(chapters)
    grouping = Grouping()
    for m in mentions:
        grouping.see(m)
    groups: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        groups[grouping.target(m.form)].append(m)
    entities = [Entity(name, group_kind(name, found), found) for name, found in groups.items()]
    return sorted(entities, key=lambda e: (-len(e.mentions), e.name))
