"""The deterministic name finder: the names a book gets without any model.

Names are runs of capitalised words ("Mr. Sherlock Holmes", "Salt Lake City"). A run loses
its sentence-initial common word ("The", "Then"), words that are usually written in lower case
("Science" in a heading) are not names, and honorifics are handled so that "Mr. Sherlock
Holmes" states "Sherlock Holmes" while "Mr. Bennet" and "Mrs. Bennet" stay two names.

Each decision about a run is made with the text up to that run, never with what comes later:
"usually written in lower case" and "capitalised mid-sentence" are counts as of the run's
position, so whether a word in chapter 3 is a name does not depend on chapter 10. Which short
form joins which full name is `name_groups`' job, as a timeline over the same reading order.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import defaultdict
from dataclasses import dataclass

MALE = {
    "Mr",
    "Mister",
    "Sir",
    "Lord",
    "Master",
    "Monsieur",
    "King",
    "Prince",
    "Duke",
    "Count",
    "Baron",
    "Father",
    "Brother",
    "Uncle",
    "Signor",
    "Herr",
    "Don",
}
FEMALE = {
    "Mrs",
    "Miss",
    "Ms",
    "Lady",
    "Madame",
    "Mme",
    "Mlle",
    "Dame",
    "Queen",
    "Princess",
    "Duchess",
    "Countess",
    "Sister",
    "Aunt",
    "Signora",
    "Frau",
    "Mademoiselle",
}
NEUTRAL = {
    "Dr",
    "Doctor",
    "Colonel",
    "Col",
    "Captain",
    "Capt",
    "Major",
    "General",
    "Gen",
    "Lieutenant",
    "Lt",
    "Sergeant",
    "Sgt",
    "Inspector",
    "Professor",
    "Prof",
    "Rev",
    "Reverend",
    "Elder",
    "Judge",
    "Bishop",
    "Constable",
    "Governor",
    "President",
}
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
# words that open sentences without naming anyone. Whether a word is "usually written in lower
# case" is judged with the text read so far, so the opening chapters have little to go on: this
# list stands in for what any English text shows sooner or later.
_COMMON_WORDS = """
    the a an and but or nor so yet for then than when while where whence why how what who whom
    which that this these those there here now once after before since until though although
    if unless because as at by in on of off to from with without into onto upon over under
    again also still even just only very too not no yes all any both each every few many most
    some such one two three four five first next last another other he she it we they you i
    his her its our their your my me him us them said says say do does did done have has had
    be is are was were been being will would shall should can could may might must let poor
    dear good well oh ah perhaps indeed surely certainly however meanwhile later soon presently
    suddenly finally above below between within behind beside besides along across around
    sometimes often never always already almost nearly quite rather really probably possibly
    scarcely hardly merely simply twice thrice afterwards instead otherwise therefore thus hence
    yesterday today tonight tomorrow everywhere somewhere nowhere anywhere whatever whoever
    whenever wherever whether either neither nothing something anything everything nobody
    somebody anybody everybody none someone anyone everyone yours ours theirs mine hers myself
    yourself himself herself itself ourselves themselves six seven eight nine ten eleven twelve
    twenty hundred thousand second third half
    ha hah hum hem hm pooh pshaw bah hush eh nay yea lo hark ugh hurrah bravo hallo hullo hello
    thank thanks please pray fancy look come go see tell give take make think know hear wait stop
    listen remember mind try why never
    it's that's there's here's what's who's where's how's i'm i've i'll i'd you're you've you'll
    you'd he's she's we're we've we'll they're they've they'll don't doesn't didn't can't won't
    isn't wasn't aren't weren't couldn't wouldn't shouldn't mustn't haven't hasn't hadn't let's
    ain't shan't
    """.split()
COMMON = frozenset(_COMMON_WORDS) | frozenset(w.replace("'", "’") for w in _COMMON_WORDS)
PLACE_WORDS = {
    "Street",
    "Road",
    "Gardens",
    "Square",
    "Lane",
    "Hall",
    "Park",
    "House",
    "City",
    "Yard",
    "Hotel",
    "Terrace",
    "Place",
    "Court",
    "River",
    "Lake",
    "Hill",
    "Moor",
    "Station",
    "Castle",
    "Abbey",
    "Church",
    "Inn",
    "Bridge",
    "Avenue",
    "Crescent",
    "Mountains",
    "Valley",
    "Island",
    "Town",
    "Village",
    "Row",
    "Cross",
    "Green",
    "Manor",
    "Lodge",
    "Grange",
    "Plain",
    "Canyon",
    "Creek",
    "Falls",
    "Sea",
    "Ocean",
}
_TOKEN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'’\-]*")
_LOWER_WORD = re.compile(r"(?<![\w'’\-])[a-zà-ÿ][a-zà-ÿ'’\-]*")
_RUN_GAP = re.compile(r"[ \xa0]+")
_PRONOUN_I = re.compile(r"^I(['’][a-z]+)?$")
_OPENERS = " \xa0\t“\"‘'([—–-_*"
_CLOSERS = "”’)]"


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


@dataclass
class _Run:
    chapter: int
    start: int
    end: int
    titles: list[str]
    names: list[str]
    initial: bool  # sentence-initial


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
    runs = [run for i, text in enumerate(chapters) for run in _runs(i, text)]
    mid_caps = _Tally()
    for run in runs:
        for name in _evidence(run):
            mid_caps.add(name, base[run.chapter] + run.start)
    kept: list[_Run] = []
    for run in runs:
        at = base[run.chapter] + run.end
        trimmed = _trim(run, chapters[run.chapter], lower.as_of(at), mid_caps.as_of(at))
        if trimmed is not None:
            kept.append(trimmed)
    mid_forms = _Tally()
    for run in kept:
        if not run.initial:
            mid_forms.add(_form(run), base[run.chapter] + run.start)
    places = _Tally()  # forms said as places ("in London"), to split "from London Lydia came"
    out = []
    for run in kept:
        at = base[run.chapter] + run.end
        text = chapters[run.chapter]
        for part in _split_at_place(run, text, places.as_of(base[run.chapter] + run.start)):
            if not _plausible(part, lower.as_of(at), mid_caps.as_of(at), mid_forms.as_of(at)):
                continue
            if _numbered(text, part.end):
                continue  # "Number 3", "Room 12": a common noun before a numeral
            cue, article = _cue(part, text)
            if cue == "place":
                places.add(_form(part), base[part.chapter] + part.start)
            out.append(
                Mention(
                    part.chapter,
                    part.start,
                    part.end,
                    text[part.start : part.end],
                    _form(part),
                    tuple(part.titles),
                    len(_core(part)) >= 2,
                    cue,
                    _pronoun_after(text, part.end),
                    article,
                )
            )
    return out


PLACE_PREPOSITIONS = frozenset(
    "in at near into towards toward through across outside inside within via around round".split()
)
SPEECH = frozenset(
    """said cried asked replied answered remarked observed exclaimed continued added returned
    whispered shouted began murmured muttered laughed smiled""".split()
)
_WORD_BEFORE = re.compile(r"([A-Za-z]+)[ \xa0]+$")
_WORD_AFTER = re.compile(r",?[ \xa0]+([A-Za-z]+)")
_PRONOUN = re.compile(r"\b(he|him|his|himself|she|her|hers|herself)\b", re.I)
_FEMININE = frozenset({"she", "her", "hers", "herself"})


def _cue(run: _Run, text: str) -> tuple[str, bool]:
    """What the words right around a mention say it names; and whether "the" comes before it.

    A title or a speech verb ("said Holmes", "Lydia cried", "Jane, who") says a person; "the"
    before a plural ("the Mormons") a group; a place preposition ("in London", "at Longbourn") a
    place. Votes, not verdicts: a kind is the balance of a name's visible mentions."""
    before = _WORD_BEFORE.search(text, max(0, run.start - 30), run.start)
    after = _WORD_AFTER.match(text, run.end)
    prev = before.group(1).lower() if before else ""
    nxt = after.group(1).lower() if after else ""
    article = prev == "the"
    names = _core(run)
    if run.titles or prev in SPEECH or nxt in SPEECH or nxt == "who":
        return "person", article
    if article and len(names) == 1 and names[0].endswith("s") and not names[0].endswith("ss"):
        return "group", article
    if prev in PLACE_PREPOSITIONS:
        return "place", article
    return "", article


def _pronoun_after(text: str, end: int) -> str:
    stop = text.find("\n", end)
    window = text[end : min(end + 150, stop if stop >= 0 else len(text))]
    found = _PRONOUN.search(window)
    if found is None:
        return ""
    return "f" if found.group(1).lower() in _FEMININE else "m"


def _numbered(text: str, end: int) -> bool:
    return re.match(r"[ \xa0]+\d", text[end : end + 4]) is not None


def _split_at_place(run: _Run, text: str, places: _AsOf) -> list[_Run]:
    """A run that opens with a name the text so far uses as a place, followed by more name
    words, is two mentions ("from London Lydia came"), unless it ends as a place itself
    ("London Bridge"). Never one name across a place."""
    names = run.names
    if run.titles or len(names) < 2 or places[names[0]] < 2 or names[-1] in PLACE_WORDS:
        return [run]
    second = text.find(names[1], run.start + len(names[0]), run.end)
    if second < 0:
        return [run]
    first_end = run.start + len(names[0])
    return [
        _Run(run.chapter, run.start, first_end, [], [names[0]], run.initial),
        _Run(run.chapter, second, run.end, [], names[1:], False),
    ]


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
            joins_abbrev = (
                gap.startswith(".")
                and _RUN_GAP.fullmatch(gap[1:] or " ")
                and (prev in ABBREVIATED or (len(prev) == 1 and prev.isupper()))
            )
            if not (_RUN_GAP.fullmatch(gap) or joins_abbrev):
                break
            if nxt[0].isupper() and not _PRONOUN_I.match(nxt):
                parts.append(nxt)
                j += 1
                continue
            if (
                nxt in CONNECTORS
                and j + 2 < len(tokens)
                and tokens[j + 2].group()[0].isupper()
                and _RUN_GAP.fullmatch(text[tokens[j + 1].end() : tokens[j + 2].start()])
            ):
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
        runs.append(
            _Run(
                chapter,
                tokens[start_tok].start(),
                end,
                titles,
                parts[k:],
                _sentence_initial(text, tokens[start_tok].start(), body_start),
            )
        )
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
        if text[k] in '“"‘':
            return True  # quoted speech opens a sentence
        k -= 1
    while k >= floor and text[k] in _CLOSERS:
        k -= 1  # 'the Past.” Poor Alice': a sentence ended inside the quotation
    if k < floor or text[k] in "\n.!?:":
        return not (k >= 0 and text[k] == "." and _after_abbreviation(text, k))
    return False


def _after_abbreviation(text: str, dot: int) -> bool:
    match = re.search(r"([A-Za-z]+)$", text[max(0, dot - 8) : dot])
    return bool(match and match.group(1) in ABBREVIATED)


def _trim(run: _Run, text: str, lower: _AsOf, mid_caps: _AsOf) -> _Run | None:
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
    return _Run(run.chapter, start, run.end, titles, names, initial)


def _plausible(run: _Run, lower: _AsOf, mid_caps: _AsOf, mid_forms: _AsOf) -> bool:
    names = [n for n in run.names if n not in CONNECTORS]
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


def title_of(form: str) -> str | None:
    """The honorific a short form is said with ("Mr" in "Mr. Holmes"), if any."""
    head = form.split(" ", 1)[0].rstrip(".")
    return head if head in TITLES and " " in form else None


def gender(title: str | None) -> str:
    if title in MALE:
        return "m"
    if title in FEMALE:
        return "f"
    return "n"


# Women's titles also say which name a woman goes by: "Miss Darcy" is not "Lady Anne Darcy",
# and "Mrs. Darcy" (a wife) is neither. A woman's short title joins a full name only when that
# name was said with a title of the same class, or with none.
_TITLE_CLASS = {
    "Miss": "miss",
    "Mademoiselle": "miss",
    "Mlle": "miss",
    "Mrs": "mrs",
    "Madame": "mrs",
    "Mme": "mrs",
}


def compatible(title: str | None, seen: set[str], pronoun: str = "") -> bool:
    """Whether a titled short form can be a full name seen with these titles.

    `pronoun`: the gender the pronouns after the full name's mentions point to ("" unknown);
    it stands in for a title when the full name was never said with a gendered one."""
    mine = gender(title)
    seen_genders = {gender(t) for t in seen} - {"n"}
    if mine == "n":
        return not (seen_genders - {"m"}) or not seen_genders
    if not seen_genders:
        return pronoun == mine
    if mine == "f" and title is not None:
        classes = {_TITLE_CLASS.get(t, t) for t in seen if gender(t) == "f"}
        return _TITLE_CLASS.get(title, title) in classes
    return mine in seen_genders


def form_kind(form: str) -> str:
    """What a name says about itself: a place ("Baker Street"), a person ("Mr. Bennet"), or not."""
    if form.split()[-1] in PLACE_WORDS:
        return "place"
    return "person" if title_of(form) else "name"
