"""The deterministic name finder: the names a book gets without any model.

Names are runs of capitalised words ("Mr. Sherlock Holmes", "Salt Lake City"). A run loses
its sentence-initial common word ("The", "Then"), words that are usually written in lower case
("Science" in a heading) are not names, and honorifics are handled so that "Mr. Sherlock
Holmes" states "Sherlock Holmes" while "Mr. Bennet" and "Mrs. Bennet" stay two names.

Each decision about a run is made with the text up to that run, never with what comes later:
"usually written in lower case" and "capitalised mid-sentence" are counts as of the run's
position, so whether a word in chapter 3 is a name does not depend on chapter 10. Which short
form joins which full name is `name_groups`' job, as a timeline over the same reading order.

The lexicon is in `words`, the capitalised runs in `runs`, the cues around a mention in `cues`
and what honorifics say in `titles`.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass

from lore.books.names.cues import cue_of, determined, numbered, pronoun_after
from lore.books.names.given import GIVEN_GENDER
from lore.books.names.runs import Run, capitalised_runs, core_names, form_of
from lore.books.names.words import COMMON, NOT_NAMES, PARTICLES, PLACE_WORDS, TITLES

_LOWER_WORD = re.compile(r"(?<![\w'’\-])[a-zà-ÿ][a-zà-ÿ'’\-]*")


@dataclass(frozen=True)
class Mention:
    """One occurrence of a name in a chapter: offsets into the chapter text and its forms."""

    chapter: int  # index into the chapter list (0-based)
    start: int
    end: int
    surface: str  # the exact text, e.g. "Mr.\xa0Sherlock Holmes"
    form: str  # the name it states, e.g. "Sherlock Holmes"
    titles: tuple[str, ...] = ()  # honorifics it was said with, e.g. ("Mr",)
    full: bool = False  # two or more name words: a full name that short forms can join
    cue: str = ""  # what the words around it say: "person", "place", "group" or nothing
    pronoun: str = ""  # "m"/"f": the first he/she-type pronoun after it in its paragraph
    article: bool = False  # said after "the" ("the Mormon Prophet"): not a given name
    means: str = ""  # the full name this mention stands for, when its passage decides it


class _Tally:
    """Occurrences of words by position in the book, to count them as of any position."""

    def __init__(self, always: frozenset[str] = frozenset()):
        self.at: dict[str, list[int]] = defaultdict(list)
        self.always = always  # counted once from the start (common words)

    def add(self, key: str, position: int) -> None:
        self.at[key].append(position)  # callers add in reading order, so each list is sorted

    def as_of(self, position: int) -> _AsOf:
        return _AsOf(self, position)


class _AsOf:
    """A tally's counts up to a position: what the text has shown so far."""

    def __init__(self, tally: _Tally, position: int):
        self.tally = tally
        self.position = position

    def __getitem__(self, key: str) -> int:
        seen = self.tally.at.get(key)
        return (bisect_right(seen, self.position) if seen else 0) + (key in self.tally.always)

    def __contains__(self, key: str) -> bool:
        return self[key] > 0


def find_mentions(chapters: list[str]) -> list[Mention]:
    """Every name mention in reading order, each decided with the text up to it."""
    base, total = [], 0
    for text in chapters:
        base.append(total)
        total += len(text) + 1
    lower = _Tally(always=COMMON)
    for i, text in enumerate(chapters):
        for word in _LOWER_WORD.finditer(text):
            lower.add(word.group(), base[i] + word.start())
    runs = [run for i, text in enumerate(chapters) for run in capitalised_runs(i, text)]
    mid_caps = _Tally()
    for run in runs:
        for name in _evidence(run):
            mid_caps.add(name, base[run.chapter] + run.start)
    kept: list[Run] = []
    for run in runs:
        at = base[run.chapter] + run.end
        trimmed = _trim(run, chapters[run.chapter], lower.as_of(at), mid_caps.as_of(at))
        if trimmed is not None:
            kept.append(trimmed)
    mid_forms = _Tally()
    said, common = _Tally(), _Tally()  # each form's uses; those after "an", "your", "his"...
    after_the = _Tally()  # each form's uses after "the"
    for run in kept:
        at = base[run.chapter] + run.start
        if not run.initial:
            mid_forms.add(form_of(run), at)
        said.add(form_of(run), at)
        if determined(run, chapters[run.chapter]):
            common.add(form_of(run), at)
        if cue_of(run, chapters[run.chapter])[1]:
            after_the.add(form_of(run), at)
    places = _Tally()  # forms said as places ("in London"), to split "from London Lydia came"
    out = []
    for run in kept:
        at = base[run.chapter] + run.end
        text = chapters[run.chapter]
        before = base[run.chapter] + run.start
        for part in _split_at_place(run, text, places.as_of(before), mid_forms.as_of(before - 1)):
            if not _plausible(part, lower.as_of(at), mid_caps.as_of(at), mid_forms.as_of(at)):
                continue
            if _common_noun(form_of(part), said.as_of(at), common.as_of(at), places.as_of(before)):
                continue
            if _common_plural(
                form_of(part), lower.as_of(at), said.as_of(at), after_the.as_of(at), common.as_of(at)
            ):
                continue
            if numbered(text, part.end):
                continue  # "Number 3", "Room 12": a common noun before a numeral
            cue, article = cue_of(part, text)
            if cue == "place":
                places.add(form_of(part), base[part.chapter] + part.start)
            out.append(
                Mention(
                    part.chapter,
                    part.start,
                    part.end,
                    text[part.start : part.end],
                    form_of(part),
                    tuple(part.titles),
                    len(core_names(part)) >= 2,
                    cue,
                    pronoun_after(text, part.end),
                    article,
                )
            )
    return out


def _split_at_place(run: Run, text: str, places: _AsOf, alone: _AsOf) -> list[Run]:
    """A run that opens with a name the text so far uses as a place, followed by more name
    words, is two mentions ("from London Lydia came"), unless it ends as a place itself
    ("London Bridge"). Never one name across a place. So is a name that is not a given name
    followed by a given name, each said on its own before ("London" and "Lydia")."""
    names = run.names
    if run.titles or len(names) < 2 or names[-1] in PLACE_WORDS:
        return [run]
    two_names = (
        len(names) == 2
        and names[1] in GIVEN_GENDER
        and names[0] not in GIVEN_GENDER
        and min(alone[names[0]], alone[names[1]]) >= 2
    )
    if places[names[0]] < 2 and not two_names:
        return [run]
    second = text.find(names[1], run.start + len(names[0]), run.end)
    if second < 0:
        return [run]
    first_end = run.start + len(names[0])
    return [
        Run(run.chapter, run.start, first_end, [], [names[0]], run.initial),
        Run(run.chapter, second, run.end, [], names[1:], False),
    ]


def _evidence(run: Run) -> list[str]:
    """Words this run shows capitalised for a reason other than opening a sentence."""
    if not run.initial or run.titles:
        return run.names
    return run.names[1:]


def _trim(run: Run, text: str, lower: _AsOf, mid_caps: _AsOf) -> Run | None:
    """Drop a sentence-initial common word and possessive/all-caps noise; None if nothing is left."""
    names = list(run.names)
    titles = list(run.titles)
    initial = run.initial
    start = run.start
    if initial and not titles:
        while (
            names
            and (names[0].lower() in lower or names[0] in NOT_NAMES)
            and (len(names) > 1 or mid_caps[names[0]] <= lower[names[0].lower()])
        ):
            names.pop(0)
            initial = False
        if not names:
            return None
        while len(names) > 1 and names[0] in TITLES:
            titles.append(names.pop(0))
    while len(names) > 1 and names[0] in ("The", "A", "An") and not titles:
        names.pop(0)  # "the Mouse" written "The Mouse": the article is not part of the name
    names = (
        [n for n in names if not (len(n) > 1 and n.isupper() and not n.endswith("."))]
        if all(len(n) > 1 and n.isupper() for n in names)
        else names
    )
    if not names or all(n in NOT_NAMES for n in names):
        return None
    first = titles[0] if titles else names[0]
    if first != (run.titles or run.names)[0]:
        found = text.find(first, run.start, run.end)  # the mention starts at its first name word
        start = found if found >= 0 else start
    return Run(run.chapter, start, run.end, titles, names, initial)


DEMONYM_ENDINGS = ("n", "an", "ian", "ese", "ish", "i")


def _common_noun(form: str, said: _AsOf, common: _AsOf, places: _AsOf) -> bool:
    """A one-word form the text so far uses as a common noun: after "an" or a possessive in half
    its uses ("an American", "your Majesty"), or made from a place's name the text has
    given ("Indian" beside "in India", "Bohemian" beside "in Bohemia")."""
    if " " in form:
        return False
    if common[form] * 2 > said[form]:
        return True
    for ending in DEMONYM_ENDINGS:
        stem = form[: -len(ending)]
        if len(stem) < 3 or not form.endswith(ending):
            continue
        if places[stem] or any(places[stem + v] for v in "aeiouy"):
            return True
    return False


def _common_plural(form: str, lower: _AsOf, said: _AsOf, after_the: _AsOf, common: _AsOf) -> bool:
    """A one-word plural said after "the", "a" or a possessive in most of its uses ("the Times",
    "a Times"), that the text so far also writes in lower case ("at times") and whose singular it
    has never given as a name: a common word in a title, not a family or a people ("the
    Stapletons" beside "Stapleton")."""
    if " " in form or not form.endswith("s") or form.endswith("ss"):
        return False
    if form.lower() not in lower or form[:-1] in said:
        return False
    return (after_the[form] + common[form]) * 2 > said[form]


def _plausible(run: Run, lower: _AsOf, mid_caps: _AsOf, mid_forms: _AsOf) -> bool:
    names = [n for n in run.names if n not in PARTICLES]
    if all(len(n.rstrip(".")) == 1 for n in names):
        return False  # "M. R. C. S.", "J. H.": initials alone name no one
    if run.titles:
        return True
    if len(names) == 1:
        name = names[0]
        if name in NOT_NAMES or len(name) < 2 or (name.isupper() and len(name) > 1):
            return False
        if name in PLACE_WORDS:
            return False  # "the Hall", "the City": a common noun standing for a place named elsewhere
        return mid_caps[name] >= max(1, lower[name.lower()])
    if all(n.lower() in lower for n in names):
        return mid_forms[form_of(run)] >= 2
    return True
