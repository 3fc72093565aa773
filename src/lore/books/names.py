"""The deterministic name extractor: the graph a book gets without any model.

Names are runs of capitalised words ("Mr. Sherlock Holmes", "Salt Lake City"). A run loses
its sentence-initial common word ("The", "Then"), words that are usually written in lower case
("Science" in a heading) are not names, and honorifics are handled so that "Mr. Sherlock
Holmes" is "Sherlock Holmes" while "Mr. Bennet" and "Mrs. Bennet" stay two people. A short
form joins a full name only when exactly one candidate fits ("Holmes" -> "Sherlock Holmes";
"Bingley" stays itself in a book with Mr., Miss and Caroline Bingley).

Every occurrence is kept as a mention with its chapter offsets, so first appearances, counts
and aliases are decided at query time under the reader's cap.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field

MALE = {"Mr", "Mister", "Sir", "Lord", "Master", "Monsieur", "King", "Prince", "Duke", "Count",
        "Baron", "Father", "Brother", "Uncle", "Signor", "Herr", "Don"}
FEMALE = {"Mrs", "Miss", "Ms", "Lady", "Madame", "Mme", "Mlle", "Dame", "Queen", "Princess",
          "Duchess", "Countess", "Sister", "Aunt", "Signora", "Frau", "Mademoiselle"}
NEUTRAL = {"Dr", "Doctor", "Colonel", "Col", "Captain", "Capt", "Major", "General", "Gen",
           "Lieutenant", "Lt", "Sergeant", "Sgt", "Inspector", "Professor", "Prof", "Rev",
           "Reverend", "Elder", "Judge", "Bishop", "Constable", "Governor", "President"}
TITLES = MALE | FEMALE | NEUTRAL
FIRST_NAME_TITLES = {"Sir", "Dame"}
ABBREVIATED = {"Mr", "Mrs", "Ms", "Dr", "Mme", "Mlle", "Col", "Capt", "Gen", "Lt", "Sgt", "Prof", "Rev", "St"}
CONNECTORS = {"de", "van", "von", "du", "da", "del", "della", "di", "le", "la", "der", "den"}
NOT_NAMES = set(
    """
    I O Oh Ah Ay Aye Yes No Nay Well Why Hullo Hello Alas Chapter Part Book Volume Contents
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April May
    June July August September October November December God Heaven Heavens Christmas Lord
    Sir Madam Ma'am Mamma Papa English French German Italian Spanish Christian Bible Amen
    Mr Mrs Miss Ms Dr Esq Street Road Square Mister Doctor Colonel Captain Major Inspector Lady
    """.split()
)
# words that open sentences without naming anyone, even in a book too short to show it
COMMON = frozenset(
    """
    the a an and but or nor so yet for then than when while where whence why how what who whom
    which that this these those there here now once after before since until though although
    if unless because as at by in on of off to from with without into onto upon over under
    again also still even just only very too not no yes all any both each every few many most
    some such one two three four five first next last another other he she it we they you i
    his her its our their your my me him us them said says say do does did done have has had
    be is are was were been being will would shall should can could may might must let poor
    dear good well oh ah perhaps indeed surely certainly however meanwhile later soon presently
    suddenly finally above below between within behind beside besides along across around
    """.split()
)
PLACE_WORDS = {"Street", "Road", "Gardens", "Square", "Lane", "Hall", "Park", "House", "City",
               "Yard", "Hotel", "Terrace", "Place", "Court", "River", "Lake", "Hill", "Moor",
               "Station", "Castle", "Abbey", "Church", "Inn", "Bridge", "Avenue", "Crescent",
               "Mountains", "Valley", "Island", "Town", "Village", "Row", "Cross", "Green",
               "Manor", "Lodge", "Grange", "Plain", "Canyon", "Creek", "Falls", "Sea", "Ocean"}
_TOKEN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'’\-]*")
_LOWER_WORD = re.compile(r"(?<![\w'’\-])[a-zà-ÿ][a-zà-ÿ'’\-]*")
_RUN_GAP = re.compile(r"[ \xa0]+")
_PRONOUN_I = re.compile(r"^I(['’][a-z]+)?$")
_OPENERS = " \xa0\t“\"‘'([—–-_*"


@dataclass(frozen=True)
class Mention:
    """One occurrence of a name in a chapter: offsets into the chapter text and its forms."""

    chapter: int  # index into the chapter list (0-based)
    start: int
    end: int
    surface: str  # the exact text, e.g. "Mr.\xa0Sherlock Holmes"
    form: str  # the name it states, e.g. "Sherlock Holmes"


@dataclass
class Entity:
    name: str
    kind: str
    mentions: list[Mention] = field(default_factory=list)


@dataclass
class _Run:
    chapter: int
    start: int
    end: int
    titles: list[str]
    names: list[str]
    initial: bool  # sentence-initial


def extract_names(chapters: list[str]) -> list[Entity]:
    """Entities with their mentions, over the chapter texts of one book."""
    lower = Counter(w for text in chapters for w in _LOWER_WORD.findall(text))
    for word in COMMON:
        lower[word] += 1
    runs = [run for i, text in enumerate(chapters) for run in _runs(i, text)]
    mid_caps = Counter(name for run in runs for name in _evidence(run))
    kept: list[_Run] = []
    for run in runs:
        trimmed = _trim(run, chapters[run.chapter], lower, mid_caps)
        if trimmed is not None:
            kept.append(trimmed)
    mid_forms = Counter(_form(run) for run in kept if not run.initial)
    kept = [run for run in kept if _plausible(run, lower, mid_caps, mid_forms)]
    resolve = _resolver(kept)
    entities: dict[str, Entity] = {}
    for run in kept:
        form = _form(run)
        canonical = resolve.get(form, form)
        entity = entities.get(canonical)
        if entity is None:
            entity = entities[canonical] = Entity(canonical, _kind(canonical, run))
        elif entity.kind == "name" and run.titles:
            entity.kind = "person"
        text = chapters[run.chapter]
        entity.mentions.append(
            Mention(run.chapter, run.start, run.end, text[run.start : run.end], form)
        )
    return sorted(entities.values(), key=lambda e: (-len(e.mentions), e.name))


def _evidence(run: _Run) -> list[str]:
    """Words this run shows capitalised for a reason other than opening a sentence."""
    if not run.initial or run.titles:
        return run.names
    return run.names[1:]


def _runs(chapter: int, text: str) -> list[_Run]:
    body_start = _body_start(text)
    runs: list[_Run] = []
    tokens = list(_TOKEN.finditer(text, body_start))
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        word = tok.group()
        if not word[0].isupper() or _PRONOUN_I.match(word):
            i += 1
            continue
        start_tok = i
        parts = [word]
        j = i
        while j + 1 < len(tokens):
            gap = text[tokens[j].end() : tokens[j + 1].start()]
            nxt = tokens[j + 1].group()
            prev = tokens[j].group()
            joins_abbrev = gap.startswith(".") and _RUN_GAP.fullmatch(gap[1:] or " ") and (
                prev in ABBREVIATED or (len(prev) == 1 and prev.isupper())
            )
            if not (_RUN_GAP.fullmatch(gap) or joins_abbrev):
                break
            if nxt[0].isupper() and not _PRONOUN_I.match(nxt):
                parts.append(nxt)
                j += 1
                continue
            if nxt in CONNECTORS and j + 2 < len(tokens) and tokens[j + 2].group()[0].isupper() \
                    and _RUN_GAP.fullmatch(text[tokens[j + 1].end() : tokens[j + 2].start()]):
                parts += [nxt, tokens[j + 2].group()]
                j += 2
                continue
            break
        end = tokens[j].end()
        last = parts[-1]
        if last.endswith(("’s", "'s")):
            parts[-1] = last[:-2]
            end -= 2
        elif last.endswith(("s’", "s'")) and len(last) > 3:
            parts[-1] = last[:-1]
            end -= 1
        if (len(parts[-1]) == 1 or parts[-1] in ABBREVIATED) and text[end : end + 1] == ".":
            end += 1  # "John H." keeps its dot
        titles: list[str] = []
        k = 0
        while k < len(parts) - 1 and parts[k] in TITLES:
            titles.append(parts[k])
            k += 1
        runs.append(_Run(chapter, tokens[start_tok].start(), end, titles, parts[k:],
                         _sentence_initial(text, tokens[start_tok].start(), body_start)))
        i = j + 1
    return runs


def _body_start(text: str) -> int:
    """Skip the chapter's heading lines (short opening paragraphs without a full stop)."""
    pos = 0
    for para in re.finditer(r"[^\n]+", text):
        chunk = para.group().strip()
        if len(chunk.split()) >= 8 or chunk.endswith((".", "!", "?", "”", '"', "’")):
            return para.start()
        pos = para.end()
    return pos


def _sentence_initial(text: str, start: int, floor: int) -> bool:
    k = start - 1
    while k >= floor and text[k] in _OPENERS:
        if text[k] in "“\"‘":
            return True  # quoted speech opens a sentence
        k -= 1
    if k < floor or text[k] in "\n.!?:":
        return not (k >= 0 and text[k] == "." and _after_abbreviation(text, k))
    return False


def _after_abbreviation(text: str, dot: int) -> bool:
    match = re.search(r"([A-Za-z]+)$", text[max(0, dot - 8) : dot])
    return bool(match and match.group(1) in ABBREVIATED)


def _trim(run: _Run, text: str, lower: Counter[str], mid_caps: Counter[str]) -> _Run | None:
    """Drop a sentence-initial common word and possessive/all-caps noise; None if nothing is left."""
    names = list(run.names)
    titles = list(run.titles)
    initial = run.initial
    start = run.start
    if initial and not titles:
        while names and (names[0].lower() in lower or names[0] in NOT_NAMES) and (
            len(names) > 1 or mid_caps[names[0]] <= lower[names[0].lower()]
        ):
            names.pop(0)
            initial = False
        if not names:
            return None
        while len(names) > 1 and names[0] in TITLES:
            titles.append(names.pop(0))
    while len(names) > 1 and names[0] in ("The", "A", "An") and not titles:
        names.pop(0)  # "the Mouse" written "The Mouse": the article is not part of the name
    names = [n for n in names if not (len(n) > 1 and n.isupper() and not n.endswith("."))] if \
        all(len(n) > 1 and n.isupper() for n in names) else names
    if not names or all(n in NOT_NAMES for n in names):
        return None
    first = titles[0] if titles else names[0]
    if first != (run.titles or run.names)[0]:
        found = text.find(first, run.start, run.end)  # the mention starts at its first name word
        start = found if found >= 0 else start
    return _Run(run.chapter, start, run.end, titles, names, initial)


def _plausible(run: _Run, lower: Counter[str], mid_caps: Counter[str], mid_forms: Counter[str]) -> bool:
    names = [n for n in run.names if n not in CONNECTORS]
    if run.titles:
        return True
    if len(names) == 1:
        name = names[0]
        if name in NOT_NAMES or len(name) < 2 or (name.isupper() and len(name) > 1):
            return False
        return mid_caps[name] >= max(1, lower[name.lower()])
    if all(n.lower() in lower for n in names):
        return mid_forms[_form(run)] >= 2
    return True


def _is_initial(word: str) -> bool:
    return len(word.rstrip(".")) == 1 and word[0].isupper()


def _core(run: _Run) -> list[str]:
    """The words that name: no initials ("J."), no connectors ("de")."""
    return [n for n in run.names if not _is_initial(n) and n not in CONNECTORS]


def _form(run: _Run) -> str:
    names = [n for n in run.names if not _is_initial(n)] or run.names
    core = " ".join(names)
    if len(_core(run)) <= 1 and run.titles:
        title = run.titles[-1]
        return f"{title}. {core}" if title in ABBREVIATED else f"{title} {core}"
    return core


def _title_of(form: str) -> str | None:
    head = form.split(" ", 1)[0].rstrip(".")
    return head if head in TITLES and " " in form else None


def _gender(title: str | None) -> str:
    if title in MALE:
        return "m"
    if title in FEMALE:
        return "f"
    return "n"


def _resolver(runs: list[_Run]) -> dict[str, str]:
    """Map short forms ("Holmes", "Mr. Holmes", "Sir Henry") to the one full name they fit."""
    full_titles: dict[str, set[str]] = defaultdict(set)
    counts: Counter[str] = Counter()
    for run in runs:
        form = _form(run)
        counts[form] += 1
        if len(_core(run)) >= 2:
            full_titles[form].update(run.titles)
    full = set(full_titles)
    by_last: dict[str, set[str]] = defaultdict(set)
    by_first: dict[str, set[str]] = defaultdict(set)
    for name in full:
        words = name.split()
        by_last[words[-1]].add(name)
        by_first[words[0]].add(name)
    resolve: dict[str, str] = {}
    titled = [f for f in counts if _title_of(f) and f not in full]
    for form in titled:
        title = _title_of(form)
        word = form.split(" ", 1)[1]
        pool = by_first[word] if title in FIRST_NAME_TITLES else by_last[word] | (
            by_first[word] if title in {"Lady", "Lord", "Miss", "Master"} else set()
        )
        fits = [f for f in pool if _compatible(title, full_titles[f])]
        if len(fits) == 1:
            resolve[form] = fits[0]
    owners: dict[str, set[str]] = defaultdict(set)
    for form in counts:
        target = resolve.get(form, form)
        words = form.split()
        if form in full:
            owners[words[-1]].add(target)
            owners[words[0]].add(target)
        elif _title_of(form):
            owners[words[-1]].add(target)
    for form in counts:
        if form in full or _title_of(form) or " " in form:
            continue
        candidates = owners.get(form, set()) - {form}
        if len(candidates) == 1:
            resolve[form] = next(iter(candidates))
    return resolve


def _compatible(title: str | None, seen: set[str]) -> bool:
    gender = _gender(title)
    seen_genders = {_gender(t) for t in seen} - {"n"}
    if gender == "n":
        return not (seen_genders - {"m"}) or not seen_genders
    return gender in seen_genders


def _kind(name: str, run: _Run) -> str:
    words = name.split()
    if words[-1] in PLACE_WORDS:
        return "place"
    if run.titles or _title_of(name):
        return "person"
    return "name"
