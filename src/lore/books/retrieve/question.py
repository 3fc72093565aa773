"""What a reader's question asks, read deterministically before any passage is searched.

Dropping question words (`query.parse`) leaves "Jefferson Hope hunt Drebber Stangerson" from
"Why did Jefferson Hope hunt Drebber and Stangerson?": it loses that the reader wants a reason,
that three of those words are people, and that the passage answering it may say "I have followed
him ... until I caught them" without the word "hunt". `understand` keeps all of it:

- the answer type (who, where, when, why, how, deduce, relationship, what-did-X-do, what, yes/no),
  read from the question's opening words and its verb;
- the names it uses (capitalised runs, possessives cut: "Stangerson's room" names Stangerson),
  which search resolves to the book's entities under the reader's cap (`resolve`);
- its content words, each with the variants a story may use for it (`query.synonyms`), the
  names apart from the rest so a character asked about counts by who the passage is about;
- the cue words of its answer type: the connectives a passage giving a reason uses ("because",
  "for", "reason"), the inferences of a detective ("I perceive", "evidently", "must have"), the
  family words of a relationship ("sister", "married");
- the query forms the semantic embedder is asked with: the question itself, and a declarative
  form of its names, words, variants and cues ("why did X leave" -> "X leave left because reason").

Nothing here reads the book: the same question gives the same understanding anywhere, so a test
can pin it (`tests/books/data/questions_understood.json`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from lore.books.retrieve.query import QUESTION_WORDS, synonyms
from lore.books.store import BooksStore
from lore.books.store.cap import Cap

WHO, WHERE, WHEN, WHY, HOW = "who", "where", "when", "why", "how"
DEDUCE, RELATION, DID, WHAT, YES_NO = "deduce", "relationship", "what-did-x-do", "what", "yes-no"

# the words a passage answering each type tends to use (never required, only a small boost)
CUES: dict[str, tuple[str, ...]] = {
    WHY: ("because", "reason", "since", "sake", "therefore", "motive", "why", "order", "cause", "account"),
    WHERE: ("room", "rooms", "house", "street", "lodge", "hall", "lived", "lodgings", "place", "found"),
    WHEN: ("morning", "evening", "night", "day", "year", "ago", "clock", "before", "after", "since"),
    HOW: ("means", "managed", "through", "way"),
    DEDUCE: (
        "perceive",
        "observe",
        "observed",
        "deduce",
        "deduced",
        "inferred",
        "evidently",
        "clearly",
        "obviously",
        "must",
        "conclude",
        "gather",
        "remarked",
        "plain",
        "surely",
        "reasoning",
    ),
    RELATION: (
        "sister",
        "brother",
        "wife",
        "husband",
        "son",
        "daughter",
        "father",
        "mother",
        "married",
        "cousin",
        "nephew",
        "niece",
        "uncle",
        "aunt",
        "engaged",
        "related",
    ),
    DID: ("said", "told", "did", "declared", "answered"),
}
# verbs that make "what did X ...?" a question about what X inferred
_DEDUCE_VERBS = frozenset(
    "deduce deduced infer inferred conclude concluded work worked gather gathered guess guessed"
    " notice noticed observe observed know knew realise realised realize realized tell".split()
)
_RELATION_WORDS = frozenset(CUES[RELATION]) | {"relationship", "relation", "whose", "sisters", "brothers"}
# words too vague to count as content ("run off", "work out", "look like"): kept as variants only
_LIGHT = frozenset(
    "out up off down away back like get got make made way thing things really many much between near"
    " relationship relation related".split()
)
_SAYING = frozenset("claim claims claimed say said tell told accuse accused promise promised".split())
_CAPITALISED = re.compile(r"[A-Z][\w’'.-]*(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w’'.-]*)*")
_POSSESSIVE = re.compile(r"(?:['’]s|['’])$")
_TITLES = frozenset("Mr Mrs Miss Ms Dr Sir Lady Lord Captain Colonel Inspector Professor Major".split())
_NOT_NAMES = frozenset(w.capitalize() for w in QUESTION_WORDS) | {"I", "Did", "Does", "Do"}
_WORD = re.compile(r"[^\W_]+")


@dataclass
class Understanding:
    """A question as search reads it."""

    text: str
    answer_type: str
    names: list[str] = field(default_factory=list)  # "Jefferson Hope", "Drebber", "Stangerson"
    words: list[str] = field(default_factory=list)  # content words that are not names
    variants: dict[str, tuple[str, ...]] = field(default_factory=dict)  # word -> words meaning it
    cues: tuple[str, ...] = ()
    forms: list[str] = field(default_factory=list)  # what the semantic embedder is asked

    @property
    def groups(self) -> list[tuple[str, ...]]:
        """One lexical group per name word and content word: any of its words counts."""
        out: list[tuple[str, ...]] = [(w,) for n in self.names for w in name_words(n)]
        out += [self.variants.get(w, (w,)) for w in self.words]
        seen: list[tuple[str, ...]] = []
        for g in out:
            if g not in seen:
                seen.append(g)
        return seen[:12]


def answer_type(question: str) -> str:
    """The kind of answer a question wants, from its first words and its verb."""
    words = [w.lower() for w in _WORD.findall(question)]
    if not words:
        return WHAT
    head = words[0]
    rest = set(words[1:])
    if (
        head in {"whose"}
        or "relationship" in rest
        or "related" in rest
        or (head in {"is", "was", "are", "were"} and rest & _RELATION_WORDS)
    ):
        return RELATION
    if head in {"who", "whom"} or question.lower().startswith(("which man", "which woman", "which person")):
        return WHO
    if head == "where":
        return WHERE
    if head == "when" or question.lower().startswith(("what time", "what year", "what day")):
        return WHEN
    if head == "why" or question.lower().startswith(("what made", "what caused", "for what reason")):
        return WHY
    if head == "how" and len(words) > 1 and words[1] in {"many", "much", "old", "long"}:
        return WHAT
    if head == "how":
        return DEDUCE if rest & _DEDUCE_VERBS else HOW
    if head in {"what", "which"}:
        if rest & _DEDUCE_VERBS:
            return DEDUCE
        if (
            len(words) > 2
            and words[1] in {"did", "does", "do"}
            and ({"do", "doing"} & set(words[2:]) or words[-1] == "did" or rest & _SAYING)
        ):
            return DID
        return WHAT
    if head in {"is", "was", "are", "were", "does", "did", "do", "can", "could", "has", "had", "will"}:
        return YES_NO
    return WHAT


def names_in(question: str) -> list[str]:
    """The names a question uses: capitalised runs not opening it as a question word, with a
    possessive cut ("Sir Charles's body" -> "Sir Charles"), once each."""
    out: list[str] = []
    for match in _CAPITALISED.finditer(question):
        words = match.group(0).split()
        while words and (words[0] in _NOT_NAMES or words[0].rstrip(".") in _NOT_NAMES):
            words = words[1:]
        if not words:
            continue
        name = _POSSESSIVE.sub("", " ".join(words)).strip(" .")
        if name.rstrip(".") in _TITLES or len(name) < 2:
            continue
        if name not in out:
            out.append(name)
    return out


def understand(question: str) -> Understanding:
    """Read a question: its answer type, names, content words with variants, cues and forms."""
    text = " ".join(question.split())
    kind = answer_type(text)
    names = names_in(text)
    # a title is part of a name only as written with a capital ("Colonel Ross"; "the colonel's will" asks
    # about the colonel)
    titles = {w.lower() for w in _WORD.findall(text) if w in _TITLES}
    in_names = {w for n in names for w in name_words(n)} | titles
    words: list[str] = []
    for w in _WORD.findall(text.lower()):
        if w in QUESTION_WORDS or w in in_names or w in _LIGHT or len(w) < 2 or w in words:
            continue
        if w.isdigit() is False and len(w) == 1:
            continue
        words.append(w)
    variants = {w: synonyms(w) for w in words}
    cues = CUES.get(kind, ())
    declarative = " ".join([*names, *(v for w in words for v in variants[w][:4]), *cues[:4]])
    forms = [text] + ([declarative] if declarative and declarative != text else [])
    return Understanding(text, kind, names, words, variants, cues, forms)


def name_words(name: str) -> list[str]:
    """The words of a name search matches on, lower-cased, titles dropped ("Sir Charles" -> charles)."""
    parts = [p.strip(".").lower() for p in name.split() if p.strip(".") not in _TITLES]
    return [p for p in parts if p and p not in {"of", "de", "the"}] or [name.lower().strip(".")]


@dataclass(frozen=True)
class Focus:
    """A name of the question resolved to a book entity under the cap, with its passages."""

    name: str
    entity_id: int
    passages: frozenset[int]


def resolve(db: BooksStore, caps: Sequence[Cap], names: Sequence[str], among: Sequence[int]) -> list[Focus]:
    """The book's entities the question's names stand for, as the visible text names them in the
    passages `among` (the candidates of a search and the passages just before them), with which
    of those passages name them: the whole name first, then without a title, then its last word
    ("Jonathan Small" may be only "Small" so far). A name none of them uses resolves to nothing."""
    if not names:
        return []
    mentions = db.names_among(caps, among)
    by_name: dict[str, dict[int, int]] = {}  # name, lower-cased -> entity -> mentions
    passages: dict[int, set[int]] = {}
    for m in mentions:
        for said in {m.form.lower(), m.surface.lower()}:
            counts = by_name.setdefault(said, {})
            counts[m.entity_id] = counts.get(m.entity_id, 0) + 1
        passages.setdefault(m.entity_id, set()).add(m.passage_id)
    out: list[Focus] = []
    for name in names:
        bare = " ".join(w for w in name.split() if w.rstrip(".") not in _TITLES)
        for candidate in dict.fromkeys([name, bare, bare.split()[-1] if bare else ""]):
            found = by_name.get(candidate.lower(), {}) if candidate else {}
            if found:
                eid = max(sorted(found), key=lambda e: found[e])
                if all(f.entity_id != eid for f in out):
                    out.append(Focus(name, eid, frozenset(passages[eid])))
                break
    return out
