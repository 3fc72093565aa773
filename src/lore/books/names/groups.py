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

Evidence beyond the words themselves: nicknames ("Lizzy" and "Eliza Bennet" join "Elizabeth
Bennet", `given`), the gender a given name says ("Madame Charpentier" is not "Arthur
Charpentier"), the class of a woman's title (`titles.compatible`), and when a first name came
into use: a first name the text used on its own, before anyone of that family was named, is a
person of its own, not the stranger who shares it later ("Mary" is not "Mary King"). A titled
short form that fits several people ("Miss Bennet" among five sisters) stays itself here; each
of its mentions is given to one of them by its passage (`context`).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field, replace

from lore.books.names.context import Resolver
from lore.books.names.finder import Mention, find_mentions
from lore.books.names.given import NICKNAMES, SHORT_FORMS, formal_names, given_gender
from lore.books.names.runs import surname
from lore.books.names.titles import compatible, form_kind, gender, title_of
from lore.books.names.words import FIRST_NAME_TITLES

UPCOMING = 12  # mentions after a short form looked at for the rest of its sentence
# titles said before a given name as readily as before a surname: "Lady Catherine" or "Lady
# Lucas", "Brother Bartholomew" or "Brother Stangerson"; any other title joins a given name only
# when no surname fits ("Mr. Thaddeus", a servant's way of naming Thaddeus Sholto)
BOTH_NAME_TITLES = {"Lady", "Lord", "Miss", "Master", "Brother", "Sister", "Uncle", "Aunt"}


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

    ESTABLISHED = 3  # uses on its own after which a first name is somebody before any full name

    def __init__(self) -> None:
        self.forms: set[str] = set()
        self.full_titles: dict[str, set[str]] = {}
        self.by_first: dict[str, set[str]] = defaultdict(set)
        self.by_last: dict[str, set[str]] = defaultdict(set)
        self.titled_by_word: dict[str, set[str]] = defaultdict(set)  # "Mr. Holmes" under "Holmes"
        self.raw: dict[str, str] = {}  # form -> the name it joins directly
        self.current: dict[str, str] = {}  # form -> the name it finally stands for
        self.choices: dict[str, list[str]] = {}  # titled form -> the full names it may mean
        self.pronouns: dict[str, Counter[str]] = defaultdict(Counter)  # full name -> he/she votes
        self.cues: dict[str, Counter[str]] = defaultdict(Counter)  # form -> place/person/article votes
        self.seen = 0  # mentions taken into account
        self.first_at: dict[str, int] = {}  # form -> its first mention's number
        self.uses: Counter[str] = Counter()  # form -> mentions so far
        self.surname_at: dict[str, int] = {}  # word -> when it was first said as a surname
        self.strangers: dict[str, set[str]] = defaultdict(set)  # first name -> full names not it

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
        self.seen += 1
        self.uses[mention.form] += 1
        self.first_at.setdefault(mention.form, self.seen)
        words = self._learn(mention)
        if not words:
            return []
        words |= {n for w in words for n in SHORT_FORMS.get(w, ())}
        titled = {t for w in words for t in self.titled_by_word.get(w, ())}
        for form in sorted(titled):
            self._set(form, self._titled_target(form))
        for full in sorted({f for w in words for f in self.by_last.get(w, ())}):
            if full.split()[0] in NICKNAMES:
                self._set(full, self._nickname_target(full))
        bare = words | {surname(t) for t in titled}
        for form in sorted(bare):
            if form in self.forms and self._is_bare(form):
                self._set(form, self._bare_target(form))
        return self._settle()

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
            touched |= {words[0], surname(form)} if mention.full else {form}
        return touched

    def _learn_form(self, mention: Mention, form: str, words: list[str]) -> set[str]:
        if mention.full:
            seen = self.full_titles.get(form)
            if seen is None:
                self._meet_family(form, words)
                self.forms.add(form)
                self.full_titles[form] = set(mention.titles)
                self.by_first[words[0]].add(form)
                self.by_last[surname(form)].add(form)
                return {words[0], surname(form)}
            if set(mention.titles) - seen:
                seen.update(mention.titles)
                return {words[0], surname(form)}
            return set()
        if form in self.forms:
            return set()
        self.forms.add(form)
        title = title_of(form)
        if title:
            rest = form.split(" ", 1)[1]
            if title not in FIRST_NAME_TITLES:
                self.surname_at.setdefault(surname(form), self.seen)
            self.titled_by_word[rest].add(form)
            self.titled_by_word[surname(form)].add(form)
            return {rest, surname(form)}
        return {form}

    def _meet_family(self, full: str, words: list[str]) -> None:
        """A new full name: first names long in use on their own, before its surname was ever
        said, belong to someone else ("Mary" of chapter 2 is not "Mary King" of chapter 26)."""
        surname_at = self.surname_at.get(surname(full), self.seen)
        for short in formal_names(words[0]) | SHORT_FORMS.get(words[0], frozenset()):
            first = self.first_at.get(short)
            if first is not None and first < surname_at and self.uses[short] >= self.ESTABLISHED:
                self.strangers[short].add(full)
        self.surname_at.setdefault(surname(full), self.seen)

    def _is_bare(self, form: str) -> bool:
        return form not in self.full_titles and not title_of(form) and surname(form) == form

    def _root(self, form: str) -> str:
        seen = {form}
        while form in self.raw and self.raw[form] not in seen:
            form = self.raw[form]
            seen.add(form)
        return form

    def _by_first(self, word: str) -> set[str]:
        """Full names whose given name this word is, or is a nickname of."""
        return {f for name in formal_names(word) for f in self.by_first.get(name, ())}

    def _fits(self, title: str | None, fulls: set[str], by_first: bool) -> set[str]:
        return {
            self._root(f)
            for f in fulls
            if compatible(title, self.full_titles[f], self.pronoun(f), given_gender(f), by_first)
        }

    def _titled_target(self, form: str) -> str:
        title = title_of(form)
        word = form.split(" ", 1)[1]
        if title in FIRST_NAME_TITLES:
            fits = self._fits(title, self._by_first(word), True)
        else:
            fits = self._fits(title, self.by_last.get(word, set()), False)
            if title in BOTH_NAME_TITLES or not fits:
                fits |= self._fits(title, self._by_first(word), True)
        if len(fits) > 1:
            self.choices[form] = sorted(fits)
        else:
            self.choices.pop(form, None)
        return next(iter(fits)) if len(fits) == 1 else form

    def _nickname_target(self, full: str) -> str:
        """ "Eliza Bennet" is "Elizabeth Bennet" once the text has given that name, if one fits."""
        first, rest = full.split(" ", 1)
        fits = {
            f
            for name in NICKNAMES[first]
            for f in self.by_first.get(name, ())
            if f.split(" ", 1)[1] == rest and f != full
        }
        return next(iter(fits)) if len(fits) == 1 else full

    def _bare_target(self, form: str) -> str:
        """One word ("Darcy"): the one full or titled name it belongs to, if one fits.

        A word said as a place stays itself ("London" is not "South London"), and a surname does
        not join a run that opens with a place ("Lydia" is not "London Lydia"); a first word joins
        only names that are given names ("Mormon" is not "the Mormon Prophet"), and not those of
        a stranger (`_meet_family`). When a surname fits several people and one of them is
        "Mr. X", the bare surname is him: narration names a man by his surname alone and a woman
        by her title ("Darcy" is Mr. Darcy, not Miss Darcy; "Ferrier" is John Ferrier, not Lucy).
        When it still fits several full names (two brothers), each mention is given to one of
        them by its passage (`context`), as a titled form that fits several is."""
        if self.is_place(form):
            return form
        strangers = self.strangers.get(form, set())
        firsts = {
            self._root(f) for f in self._by_first(form) if not self.is_title_like(f) and f not in strangers
        }
        owners = firsts | {
            self._root(f) for f in self.by_last.get(form, set()) if not self.is_place(f.split()[0])
        }
        titled = [t for t in self.titled_by_word.get(form, ()) if surname(t) == form]
        owners |= {self._root(self.raw.get(t, t)) for t in titled}
        owners.discard(form)
        if len(owners) > 1:
            men = {self._root(self.raw.get(t, t)) for t in titled if gender(title_of(t)) == "m"}
            men |= {f for f in owners if " " in f and (given_gender(f) or self.pronoun(f)) == "m"}
            if len(men) == 1:
                self.choices.pop(form, None)
                return next(iter(men))
        if len(owners) > 1 and all(" " in o for o in owners):
            self.choices[form] = sorted(owners)  # "Sholto": each mention given by its passage
        else:
            self.choices.pop(form, None)
        return next(iter(owners)) if len(owners) == 1 else form

    def _set(self, form: str, target: str) -> None:
        if target == form:
            self.raw.pop(form, None)
        else:
            self.raw[form] = target

    def _settle(self) -> list[tuple[str, str]]:
        """Every form's final name, following joins through joins; the ones that changed."""
        final = {f: root for f in self.raw if (root := self._root(f)) != f}
        changed = [
            (f, final.get(f, f))
            for f in sorted(set(final) | set(self.current))
            if final.get(f) != self.current.get(f)
        ]
        self.current = final
        return changed


def name_index(chapters: list[str]) -> tuple[list[Mention], list[Link]]:
    """The book's name mentions and the timeline of which full name each short form joins.

    A mention of a short form that fits several people carries in `means` the one its passage
    points to (decided with the text up to it, like everything else here)."""
    mentions = find_mentions(chapters)
    grouping = Grouping()
    resolver = Resolver(chapters)
    links: list[Link] = []
    out: list[Mention] = []
    for i, m in enumerate(mentions):
        links += [Link(form, target, m.chapter, m.start) for form, target in grouping.see(m)]
        means = ""
        choices = grouping.choices.get(m.form)
        if choices:
            upcoming = [(n, grouping.target(n.form)) for n in mentions[i + 1 : i + 1 + UPCOMING]]
            means = resolver.choose(m, [grouping.target(c) for c in choices], upcoming)
        out.append(replace(m, means=means) if means else m)
        resolver.saw(m, means or grouping.target(m.form))
    return out, links


def group_kind(name: str, mentions: list[Mention]) -> str:
    """A group's kind: its canonical name's, or a person once any of its mentions has a title."""
    kind = form_kind(name)
    if kind == "name" and any(m.titles for m in mentions):
        return "person"
    return kind


def extract_names(chapters: list[str]) -> list[Entity]:
    """The entities as a reader who has finished the book knows them (most mentioned first)."""
    mentions, _ = name_index(chapters)
    grouping = Grouping()
    for m in mentions:
        grouping.see(m)
    groups: dict[str, list[Mention]] = defaultdict(list)
    for m in mentions:
        groups[grouping.target(m.means or m.form)].append(m)
    entities = [Entity(name, group_kind(name, found), found) for name, found in groups.items()]
    return sorted(entities, key=lambda e: (-len(e.mentions), e.name))
