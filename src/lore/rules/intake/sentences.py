"""What a piece of an instruction file is, judged by its form, and its text as plain words.

Instruction files mix the conventions a reviewer keeps with text that is no rule at all: the
persona an assistant is given ("You are an expert in...", "As GitHub Copilot, you..."), prose
about the file itself ("This file describes..."), examples ("Example: ...", "For instance ..."),
labels with a value ("Severity: CRITICAL") and descriptions of how things are ("Native elements
have built-in keyboard support"). A piece is kept when one of its sentences says what to do:

- it starts with an order: a verb in the imperative ("Use", "prefer", "Keep"), "Never",
  "Always", "Do not", "Only", "Make sure";
- it states an obligation or a preference: "must", "should", "shall", "need to", "is required",
  "is preferred", "not allowed", "instead of", "rather than", "always", "never";
- it constrains every thing of a kind: "Every query ...", "All controls ...", "No file ...";
- it is the team speaking: "We use ...".

Sentences that are a persona, prose about the file or an example are taken out of the piece
first, so a paragraph that starts with a persona and goes on with an order keeps the order. A
`Label: value` lead ("**Naming:** Use camelCase") is judged by what follows the label, and by
the label itself when it is an order ("**Prefer native HTML** - Use <button>").

Pieces are stored as plain text: emphasis, link syntax, list and heading marks are removed; a
code span keeps one pair of backticks, so an agent still reads `Exception` as code; nested items
stay on lines of their own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# -- plain text -----------------------------------------------------------------------------------
_CODE_SPAN = re.compile(r"(`+)(.+?)\1", re.S)
_IMAGE = re.compile(r"!\[([^\]]*)\]\([^)]*\)")
_LINK = re.compile(r"\[([^\]]+)\]\((?:[^()]|\([^)]*\))*\)")
_REF_LINK = re.compile(r"\[([^\]]+)\]\[[^\]]*\]")
_AUTOLINK = re.compile(r"<((?:https?|mailto):[^>\s]+)>")
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")
_EMPHASIS = re.compile(r"(?<![\w*])\*(?=\S)([^*\n]+?)(?<=\S)\*(?!\w)|(?<!\w)_(?=\S)([^_\n]+?)(?<=\S)_(?!\w)")
_STRIKE = re.compile(r"~~(?=\S)(.+?)(?<=\S)~~")
_LINE_MARK = re.compile(r"^(\s*)(?:[-*+]\s+|\d{1,3}[.)]\s+|#{1,6}\s+|>\s?)+(?:\[[ xX]\]\s+)?")
_STRAY = re.compile(r"(?<![\w*])\*{1,3}(?![\w*])")  # an unpaired emphasis mark left over
_SLOT = "\x00{}\x00"


def plain(text: str) -> str:
    """Markdown as plain words: no emphasis, link syntax, list or heading marks; a code span is
    kept between single backticks. Lines stay lines (nested items, table rows)."""
    spans: list[str] = []

    def keep(match: re.Match[str]) -> str:
        content = match.group(2).strip() or match.group(2)
        spans.append(f"`{content}`" if "`" not in content else content)
        return _SLOT.format(len(spans) - 1)

    text = _CODE_SPAN.sub(keep, text)
    text = _IMAGE.sub(lambda m: m.group(1), text)
    text = _LINK.sub(lambda m: m.group(1), text)
    text = _REF_LINK.sub(lambda m: m.group(1), text)
    text = _AUTOLINK.sub(lambda m: m.group(1), text)
    for _ in range(2):  # nested emphasis: ***both*** or **bold _and italic_**
        text = _STRONG.sub(lambda m: m.group(2), text)
        text = _EMPHASIS.sub(lambda m: m.group(1) or m.group(2), text)
        text = _STRIKE.sub(lambda m: m.group(1), text)
    lines = []
    for line in text.split("\n"):
        line = _LINE_MARK.sub("", line)
        line = _STRAY.sub("", re.sub(r"\*{2,}|(?<!\w)__|__(?!\w)", "", line))
        lines.append(re.sub(r"[ \t]+", " ", line).rstrip())
    out = "\n".join(ln for ln in lines if ln.strip()).strip()
    return re.sub("\x00(\\d+)\x00", lambda m: spans[int(m.group(1))], out)


# -- sentences ------------------------------------------------------------------------------------
_ABBREVIATIONS = re.compile(r"\b(e\.g|i\.e|etc|vs|cf|approx|incl|esp|Dr|Mr|Ms|No|Fig)\.", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|\s+(?=//\s)")  # "// a // b": comment lines
_DOT = "\x01"


def sentences(text: str) -> list[str]:
    """A line's sentences (abbreviations such as "e.g." do not end one)."""
    guarded = _ABBREVIATIONS.sub(lambda m: m.group(0)[:-1] + _DOT, " ".join(text.split()))
    return [s.replace(_DOT, ".") for s in _SENTENCE_END.split(guarded) if s.strip()]


# -- forms -----------------------------------------------------------------------------------------
# verbs that open an order in guidelines; a sentence starting with one (any case) is an order
_IMPERATIVE = frozenset(
    """
    accept access account add adhere adjust adopt aim allow annotate apply ask assert assign assume
    attach audit automate avoid batch be begin bind break bubble build bump bundle cache calculate
    call cap capture catch centralize chain check choose clean cleanup clear close collect combine
    comment commit compare compile compose configure confirm consider consolidate constrain consult
    contain convert copy correct cover create declare decouple default defer define delegate delete
    deprecate derive describe design detect determine disable discard dispose distinguish divide
    do document double-check drop emit employ enable encapsulate encode encourage enforce ensure
    escape establish evaluate exclude execute expose extend extract fail favor favour fetch fix flag
    follow forbid format freeze generate give group guard handle hide hoist honor honour identify
    implement import include increment index indicate initialize inject inline insert inspect install
    instantiate integrate invalidate invoke isolate keep label lazy-load leave leverage limit lint
    list load localize lock log look maintain make manage map mark match measure memoize merge
    migrate minimize mirror mock model monitor move name namespace normalize note notify observe
    obtain omit opt optimize order organize output override pair paginate parameterize parse pass
    pin place plan point populate precompute prefer prefix prepare preserve prevent print prioritize
    process profile prohibit promote propagate protect prototype provide prune publish pull push put
    query raise rate-limit read rebase recommend record redact reduce refactor refer reference
    register reject release rely remember remove rename render reorder repeat replace report represent
    request require reserve reset resolve respect restrict retain retry return reuse review revoke
    rotate round route run sanitize save scale schedule scope search secure select send separate
    serialize set share show simplify size skip sort specify split stage start stay stick store
    stream strip structure stub style submit subscribe suffix suggest supply support suppress switch
    sync tag target test think throttle throw time trace track transform translate treat trim try
    type unify update upgrade upload use utilize validate verify version wait warn watch wrap write
    yield focus continue ship deploy ignore disregard forget reveal mount rotate declare stop opt-in opt-out reach rewrite wire
    """.split()
)
_OPENERS = re.compile(
    r"^(?:never|always|only|avoid|prefer|don'?t|do not|please|make sure|be sure|no more than|"
    r"at most|at least|try to|strive to|aim to|remember to|don’t)\b",
    re.I,
)
_OBLIGATION = re.compile(
    r"\b(?:must|mustn'?t|should|shouldn'?t|shall|ought to|needs? to|has to|have to|"
    r"(?:is|are|be) (?:required|mandatory|preferred|forbidden|prohibited|discouraged|recommended|"
    r"encouraged|not allowed|disallowed|not permitted)|not allowed|never|always|instead of|"
    r"rather than|do not|don'?t|avoid|prefer(?:red)?(?: over| to)?|"
    r"only (?:through|via|in|from|with|by|when|if|on|after|before|once|as|to))\b",
    re.I,
)
_QUANTIFIED = re.compile(r"^(?:every|all|each|no|any|none of)\b\s+\S", re.I)
_TEAM = re.compile(
    r"^we\s+(?:\w+\s+)?(?:use|prefer|follow|keep|write|avoid|never|always|name|put|"
    r"store|run|require|do|don'?t|only|favou?r)\b",
    re.I,
)
_PERSONA = re.compile(
    r"^(?:you(?:'re| are)\b(?! (?:not |never |required |expected |allowed |responsible for ensuring))"
    r"|you (?:will )?(?:act|serve|operate|function|behave) as\b"
    r"|act as\b|acting as\b|pretend\b|imagine you\b"
    r"|as (?:an?|the|your|my)\b[^,]*,\s*you\b|as (?:github )?copilot\b|as (?:cursor|claude|chatgpt|gemini|"
    r"an ai|the ai|ai)\b"
    r"|your (?:role|job|task|goal|mission|purpose|expertise|primary|main|objective|responsibilit\w*|"
    r"persona|specialt\w*)\b"
    r"|i am\b|i'm\b|my (?:role|job|name) is\b"
    r"|you (?:specialize|excel|possess|have (?:deep|extensive|strong|expert|a deep|broad))\b)",
    re.I,
)
_YOU_DOING = re.compile(
    r"^you (?!(?:must|should|shall|will|need|have to|may|can|always|never|only|do not|don'?t)\b)"
    r"(?:\w+ly )?\w+s?\b",
    re.I,
)
_ABOUT_FILE = re.compile(
    r"^(?:(?:in |within )?(?:this|these|the following|the below|below are|here are|following are)\s+"
    r"(?:\w+\s+){0,2}(?:file|files|document|documents|guide|guidelines?|instructions?|rules?|rule set|"
    r"ruleset|section|sections|page|prompt|doc|docs|readme|checklist|reference|standards?|"
    r"practices|conventions|principles|patterns|tips|recommendations|overview)\b"
    r"|(?:see|refer to|read|consult)\s+(?:the\s+)?(?:following|below|above|section|sections)\b"
    r"|(?:last updated|version|author|maintainer|source|license|copyright)\s*[:\d]"
    r"|(?:table of contents|contents|tl;?dr)\s*:?$)",
    re.I,
)
_EXAMPLE = re.compile(
    r"^(?:(?:for )?examples?\b|e\.g\.|for instance|such as\b|sample\b|(?:good|bad|correct|incorrect|"
    r"wrong|right|better|worse)(?: example| usage| pattern| code)?\s*[:(\-—]|input\s*:|output\s*:|"
    r"usage\s*:|result\s*:|before\s*:|after\s*:|❌)",
    re.I,
)
_LABEL = re.compile(r"^([^:—–\n]{1,60}?)\s*(?::|\s[—–-]{1,2}\s)\s*(.*)$", re.S)
# quotes, brackets, comment marks, a number and the symbols a line may start with ("⚠️ Rotate")
_LEADING_NOISE = re.compile(
    r"^[\s\"'“‘(\[\u2190-\u2bff\ufe0f\U0001f000-\U0001faff]*(?://+\s*)?(?:\d+[.)]\s*)?"
)
_SENTENCE_ONLY_NOISE = re.compile(r"[^\w\s'’-]+")


def _first_word(text: str) -> str:
    words = _LEADING_NOISE.sub("", text).split(None, 1)
    return _SENTENCE_ONLY_NOISE.sub("", words[0]).lower().replace("’", "'") if words else ""


_CONDITION = re.compile(
    r"^(?:when|whenever|before|after|if|once|while|unless|for|in|on|during|within|where|to|"
    r"except|outside|inside|by default)\b[^,;:]{0,120},\s*(?=\S)",
    re.I,
)


def _orders(text: str) -> bool:
    """Whether a sentence (or a label's rest) says what to do; a leading condition ("When
    refactoring, keep ...") is read past."""
    body = _LEADING_NOISE.sub("", text).strip()
    if not body:
        return False
    body = _CONDITION.sub("", body, count=1)
    return bool(
        _first_word(body) in _IMPERATIVE
        or _OPENERS.match(body)
        or _OBLIGATION.search(body)
        or _QUANTIFIED.match(body)
        or _TEAM.match(body)
        or _you_use(body)
    )


def _you_use(body: str) -> bool:
    """ "You use poetry for dependencies": the second person stating a convention (a verb of the
    order lexicon right after "you"), not the assistant's qualities ("you carefully provide")."""
    words = body.split(None, 2)
    return len(words) > 1 and words[0].lower() == "you" and _first_word(words[1]) in _IMPERATIVE


def sentence_kind(sentence: str) -> str:
    """`persona`, `about the file`, `example`, `order` or `description`."""
    body = _LEADING_NOISE.sub("", sentence).strip()
    label = _LABEL.match(body)
    head, rest = (label.group(1).strip(), label.group(2).strip()) if label else ("", body)
    if _PERSONA.match(body) or (_YOU_DOING.match(body) and not _orders(body) and not _you_use(body)):
        return "persona"
    if _ABOUT_FILE.match(body) or (head and _ABOUT_FILE.match(rest)):
        return "about the file"
    if _EXAMPLE.match(body) or _EXAMPLE.match(sentence.strip()) or (head and _EXAMPLE.match(head + ":")):
        return "example"
    if head and rest:
        if _PERSONA.match(rest):
            return "persona"
        return "order" if _orders(rest) or (" " in head and _orders(head)) else "description"
    return "order" if _orders(body) else "description"


def orders(markdown: str) -> bool:
    """Whether any sentence of a lead-in says what to do ("Here are the rules you must follow:"),
    so the items it introduces are orders even when they are only names."""
    return any(_orders(sentence) for line in plain(markdown).split("\n") for sentence in sentences(line))


# -- a whole piece ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Judged:
    """A piece kept (with its plain text) or left out (with the reason, for the report)."""

    keep: bool
    text: str
    reason: str = ""
    removed: tuple[tuple[str, str], ...] = ()  # sentences taken out of a kept piece, and why


_PRIORITY = ("persona", "about the file", "example")


def _english(text: str) -> bool:
    """Whether most letters are Latin, so that the English forms can judge the text."""
    letters = [ch for ch in text if ch.isalpha()]
    return not letters or sum(ch.isascii() for ch in letters) * 2 >= len(letters)


def judge(markdown: str, *, led: bool = False) -> Judged:
    """Keep a piece when one of its sentences says what to do (or `led`: a lead-in that says what
    to do introduced it); persona, prose about the file and examples are taken out first."""
    text = plain(markdown)
    if not text:
        return Judged(False, "", "no words")
    if not _english(text):  # the forms below are English; another language is kept for a person
        return Judged(True, text)
    if text.startswith("|"):
        rows = [r for r in text.split("\n") if not set(r.strip()) <= set("|-: ")]
        cells = [c.strip() for r in rows[1:] for c in r.strip().strip("|").split("|")]
        return (
            Judged(True, text)
            if led or any(_orders(c) for c in cells)
            else Judged(False, text, "a table of facts, no instruction")
        )
    kept_lines: list[str] = []
    removed: list[tuple[str, str]] = []
    seen: list[str] = []
    ordered = led
    for line in text.split("\n"):
        parts = []
        for sentence in sentences(line):
            kind = sentence_kind(sentence)
            seen.append(kind)
            if kind in _PRIORITY:
                removed.append((sentence, kind))
                continue
            ordered = ordered or kind == "order"
            parts.append(sentence)
        if parts:
            kept_lines.append(" ".join(parts))
    if ordered and kept_lines:
        return Judged(True, "\n".join(kept_lines).strip(), removed=tuple(removed))
    reason = next((k for k in _PRIORITY if k in seen), "description")
    return Judged(False, text, reason if reason != "description" else "a description, no instruction")
