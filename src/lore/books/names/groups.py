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

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from lore.books.names.finder import Mention, find_mentions
from lore.books.names.titles import compatible, form_kind, gender, title_of
from lore.books.names.words import FIRST_NAME_TITLES

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
        self.pronouns: dict[str, Counter[str]] = defaultdict(Counter)  # full name -> he/she votes
        self.cues: dict[str, Counter[str]] = defaultdict(Counter)  # form -> place/person/article votes

    def pronoun(self, full: str) -> str:
        """The gender the pronouns after a full name point to, if they clearly do."""
        votes = self.pronouns.get(full)
        if not votes:
            return ""
        m, f = votes["m"], votes["f"]
        return "m" if m > f else "f" if f > m else ""

    def is_place(self, form: str) -> bool:
        """Said as a place ("in London") more often than as a person, twice at least."""
        votes = self.cues.get(form)
        return votes is not None and votes["place"] >= 2 and votes["place"] > votes["person"]

    def is_title_like(self, full: str) -> bool:
        """A full name mostly said after "the" ("the Mormon Prophet", "the Indian Peninsula") is
        a description, not a given name and surname: its first word names no one."""
        votes = self.cues.get(full)
        return votes is not None and votes["article"] * 2 > votes["seen"]

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
        before = (self.pronoun(form), self.is_place(form), self.is_title_like(form))
        votes = self.cues[form]
        votes["seen"] += 1
        votes["article"] += mention.article
        if mention.cue:
            votes[mention.cue] += 1
        if mention.full and mention.pronoun:
            self.pronouns[form][mention.pronoun] += 1
        evidence_changed = before != (self.pronoun(form), self.is_place(form), self.is_title_like(form))
        touched = self._learn_form(mention, form, words)
        if evidence_changed and form in self.forms:
            touched |= {words[0], words[-1]} if mention.full else {form}
        return touched

    def _learn_form(self, mention: Mention, form: str, words: list[str]) -> set[str]:
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
        fits = [f for f in pool if compatible(title, self.full_titles[f], self.pronoun(f))]
        return fits[0] if len(fits) == 1 else form

    def _bare_target(self, form: str) -> str:
        """One word ("Darcy"): the one full or titled name it belongs to, if one fits.

        A word said as a place stays itself ("London" is not "South London"); a first word joins
        only names that are given names ("Mormon" is not "the Mormon Prophet"). When a surname
        fits several people and one of them is "Mr. X", the bare surname is him: narration names
        a man by his surname alone and a woman by her title ("Darcy" is Mr. Darcy, not Miss Darcy)."""
        if self.is_place(form):
            return form
        firsts = {f for f in self.by_first.get(form, set()) if not self.is_title_like(f)}
        owners = firsts | self.by_last.get(form, set())
        titled = [t for t in self.titled_by_word.get(form, ()) if t.split()[-1] == form]
        owners |= {self.target(t) for t in titled}
        owners.discard(form)
        if len(owners) > 1:
            men = {self.target(t) for t in titled if gender(title_of(t)) == "m"}
            if len(men) == 1:
                return next(iter(men))
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
