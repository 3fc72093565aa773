"""The reason a source states: the sentence or two of a commit, PR, issue or comment that say why.

A commit's subject says what changed; the why, when the author wrote one down, is in the body
("We need async calls in the worker, and httpx gives us one client..."). `why` shows that
sentence as an evidence item's quote and keeps the subject as its title. A sentence states a
reason when it carries a causal or contrastive cue (because, so that, instead of, to avoid, we
need, otherwise, in order to, due to, ...), reports a problem (fails, breaks, cannot), or sits
under a heading such as "Motivation"; among those, the one that best answers the question (its
words, and above all the identifiers it names) is picked. An issue's body is the problem that
motivated a change, so each of its sentences may serve. When the body gives none, a clause of
the subject with a cue ("..., to avoid error notifications") is the reason, marked as from the
title; otherwise there is no reason, and the reader is told so rather than shown the subject
again.

A reason is always a verbatim slice of the source (`text[start:end]`), so anyone can check it.
Sentences end at `.`, `!` or `?` before a capital, never after an abbreviation ("e.g."), an
initial or inside a number ("v2.0", "Python 3.8"); list items, paragraphs and lead-in lines
ending in a colon are units of their own; code, quoted replies, trailers (Co-authored-by),
templates' comments and "This reverts commit" lines are never quoted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.core.text import split_words, stem
from lore.core.vocabulary import STOPWORDS

RESTATED = 0.7  # a body sentence whose words are mostly the subject's says the subject again
MAX_REASON = 420  # characters of one reason (one or two sentences); a longer one is cut at a word


@dataclass(frozen=True)
class Reason:
    """The words of a source that give its reason: `source[start:end]`, verbatim."""

    text: str
    start: int
    end: int
    where: str = "body"  # body | title: a clause of the subject, when the body gives none

    def to_dict(self) -> dict[str, object]:
        return {"text": self.text, "start": self.start, "end": self.end, "in": self.where}


# -- cues ---------------------------------------------------------------------------------------

# (weight, opens a clause, pattern): explicit causal and contrastive connectives weigh most, then
# needs and purposes, then problems, then words that often, not always, carry a reason. Only the
# connectives, needs and purposes open a reason's clause in a subject ("..., to avoid X"): a
# problem word there is usually what was changed ("Add a timeout").
_CUES: tuple[tuple[float, bool, re.Pattern[str]], ...] = tuple(
    (weight, opens, re.compile(pattern, re.I))
    for weight, opens, pattern in (
        (
            3.0,
            True,
            r"\b(?:because|due to|owing to|so that|in order to|to avoid|to prevent|otherwise|instead of"
            r"|rather than|the reason|reasons? (?:is|are|was|being)|caused|causes|causing|as a result"
            r"|(?:which|this|that|it) means|consequences?|(?:as an? )?work ?around|motivation|rationale"
            r"|given that|thanks to)\b",
        ),
        # "since" as a cause, not a time ("since 2.0", "since version", "since then")
        (3.0, True, r"\bsince (?!\d|v\d|version|release|then|the (?:last|first|beginning)|last|\w+ \d)"),
        # "as" as a cause ("..., as it doesn't use SemVer"), not "such as", "as well as", "same as"
        (
            3.0,
            True,
            r"(?<!such )(?<!well )(?<!same )\bas (?:it|they|this|that|there|we|these|those|he|she|you)\b",
        ),
        (
            2.0,
            True,
            r"\b(?:we need|need(?:s|ed)? to|needed|required|requires?|necessary|must|have to|has to"
            r"|to (?:allow|support|ensure|enable|keep|let|make|reduce|improve|speed up|simplify|handle"
            r"|fix|match|preserve|accommodate|account for|comply|satisfy|get rid|stop|protect)"
            r"|so (?:an?|we|it|the|users?|that|you|they))\b",
        ),
        (
            2.0,
            False,
            r"\b(?:allows?|lets|enables?|makes? it (?:possible|easier|harder|clear)|prevents?|breaks?|broke"
            r"|broken|fails?|failed|failing|doesn'?t work|does not work|didn'?t work|won'?t work"
            r"|can'?t|cannot|unable|impossible|problems?|leaks?|insecure|vulnerab\w*|crash\w*"
            r"|deprecated|no longer|slow(?:er)?|faster|simpler|easier|safer|confus\w*|unnecessary"
            r"|inconsistent|surpris\w*|time[sd]? out|timeouts?|hangs?|hung|stuck|deadlocks?"
            r"|race condition|out of memory|exhaust\w*|overload\w*|too (?:slow|long|big|large|many|much)"
            r"|unbounded|regress\w*)\b",
        ),
        (
            1.0,
            False,
            r"\b(?:should|issues?|bugs?|errors?|better|wrong|incorrect(?:ly)?|avoid\w*|want(?:ed)?"
            r"|prefer\w*|helps?|benefit\w*|noise|warnings?|expect(?:ed|s)?|compatib\w*|useful)\b",
        ),
    )
)
# a heading under which every sentence is a reason
_WHY_HEADING = re.compile(r"\b(?:why|motivation|rationale|reason|problem|context|background)\b", re.I)
# the sentence leans on the one before it ("This caused ...", "so that we don't run into these")
_LEANS_BACK = re.compile(
    r"^(?:this|that|these|those|it|so|hence|thus|therefore|as such)\b"
    r"|\b(?:this|that|these|those|such) (?:problems?|issues?|bugs?|behaviou?rs?|cases?|errors?|changes?)\b",
    re.I,
)
# the sentence after it carries the reason on ("Otherwise ...", "This is because ...")
_CARRIES_ON = re.compile(
    r"^(?:because|otherwise|since|so that|this is because|that'?s because|the reason)\b", re.I
)


def cue_weight(sentence: str) -> float:
    """How strongly a sentence's wording marks it as a reason: its cues' weights, capped."""
    return min(5.0, sum(weight * min(2, len(p.findall(sentence))) for weight, _, p in _CUES))


# -- sentences ----------------------------------------------------------------------------------

_ABBREVIATIONS = frozenset(
    """e.g i.e eg ie cf vs viz approx incl esp resp al fig figs no nos vol mr mrs ms dr prof st jr
    sr inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec ca min max""".split()
)
_END = re.compile(r"[.!?]+[\"')\]]*\s+(?=[\"'`(\[]?[A-Z0-9])")
_LEAD = re.compile(r"(?:\s*(?:[-*+]|\d+[.)])\s+)?(?:\s*(?::[a-z0-9_+-]+:|[^\w\s`\"'(\[<]))*\s*", re.I)
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+")
_TRAILER = re.compile(
    r"^\s*(?:[A-Z][\w]*-)*(?:by|Id|Cc|Refs?|See-also|Fixes|Closes|Resolves):\s|^\s*Signed-off-by:|^\s*Co-authored-by:",
    re.I,
)
_SKIPPED_LINE = re.compile(
    r"^\s*(?:>|\||<!--|-->|This reverts commit [0-9a-f]{7,40}|[-*_=]{3,}\s*$|[-*]\s*\[[ xX]\])"
)
_HEADING = re.compile(r"^\s*(?:#{1,6}\s+|\*\*[^*]+\*\*\s*:?\s*$)")


def _blocks(text: str, start: int) -> list[tuple[int, int, bool]]:
    """The prose blocks of `text[start:]` as (start, end, under a why-heading): paragraphs, list
    items and lead-in lines, with code, quotes, trailers and template comments left out."""
    out: list[tuple[int, int, bool]] = []
    current: list[int] = []  # start and end of the open block
    fenced = in_comment = why_heading = indented = False
    previous_blank = True
    offset = start
    for line in text[start:].splitlines(keepends=True):
        begin, end = offset, offset + len(line.rstrip("\r\n"))
        offset += len(line)
        body = line.strip()
        if in_comment or body.startswith("<!--"):
            in_comment = "-->" not in body
            body = ""
            close = True
        elif body.startswith(("```", "~~~")):
            fenced = not fenced
            close = True
            body = ""
        else:
            deep = line.startswith(("    ", "\t")) and not _BULLET.match(line)
            indented = deep and (indented or previous_blank)  # an indented block after a blank line
            code = fenced or indented
            close = not body or code or bool(_TRAILER.match(line) or _SKIPPED_LINE.match(line))
            if _HEADING.match(line):
                why_heading = bool(_WHY_HEADING.search(body))
                close = True
            if close:
                body = ""
        if close or _BULLET.match(line):
            if current:
                out.append((current[0], current[1], why_heading))
            current = [begin, end] if body else []
        elif current:
            current[1] = end
        else:
            current = [begin, end]
        if current and body.endswith(":"):
            out.append((current[0], current[1], why_heading))
            current = []
        previous_blank = not line.strip()
    if current:
        out.append((current[0], current[1], why_heading))
    return out


def _ends_sentence(text: str, dot: int) -> bool:
    """Whether the stop at `dot` ends a sentence: not after an abbreviation or a lone initial."""
    word_start = dot
    while word_start > 0 and not text[word_start - 1].isspace() and text[word_start - 1] not in "(\"'[":
        word_start -= 1
    word = text[word_start:dot].lower()
    if text[dot] == "." and (word in _ABBREVIATIONS or word.rstrip(".") in _ABBREVIATIONS):
        return False
    return not (text[dot] == "." and len(word) == 1 and word.isalpha())


def sentence_spans(text: str, start: int = 0) -> list[tuple[int, int, bool]]:
    """The sentences of `text[start:]` as (start, end, under a why-heading), each trimmed of list
    markers and leading emoji codes, so that `text[start:end]` is the sentence, verbatim."""
    out = []
    for b_start, b_end, heading in _blocks(text, start):
        begin = b_start
        for m in _END.finditer(text, b_start, b_end):
            if _ends_sentence(text, m.start()):
                out.append((begin, m.end(), heading))
                begin = m.end()
        out.append((begin, b_end, heading))
    trimmed = []
    for s, e, heading in out:
        s = _LEAD.match(text, s, e).end()  # type: ignore[union-attr]  # it matches the empty string
        while e > s and text[e - 1].isspace():
            e -= 1
        if e - s > 1:
            trimmed.append((s, e, heading))
    return trimmed


# -- choosing -----------------------------------------------------------------------------------

_IDENTIFIER = re.compile(r"`[^`]+`|\b\w+(?:[._/]\w+)+\b|\b[a-z]+[A-Z]\w*\b|\b[A-Z][a-z]+[A-Z]\w*\b")
_PR_SUFFIX = re.compile(r"\s*\((?:#\d+|gh-\d+)\)\s*$|\s*\(uncommon\)\s*$", re.I)


def question_words(question: str) -> dict[str, float]:
    """The question's words as stems, each with its weight: identifiers it names count double."""
    named = {stem(w) for m in _IDENTIFIER.finditer(question) for w in split_words(m.group(0))}
    return {
        stem(w): 2.0 if stem(w) in named else 1.0
        for w in split_words(question)
        if w not in STOPWORDS and len(w) > 1
    }


def _stems(text: str) -> set[str]:
    return {stem(w) for w in split_words(text) if w not in STOPWORDS and len(w) > 1}


def pick_reason(text: str, question: str, *, titled: bool, problem: bool = False) -> Reason | None:
    """The sentence or two of `text` that best give a reason answering `question`, or None.

    `titled`: the first line is a title (a commit's subject, a PR's or issue's title): it is
    never the quote, and one of its clauses is the reason only when the body gives none.
    `problem`: the text reports a problem (an issue), so any sentence of it may be the reason.
    """
    body_start = text.find("\n") + 1 if titled else 0
    if titled and body_start == 0:
        body_start = len(text)
    title = text[:body_start].strip() if titled else ""
    title_words = _stems(title)
    asked = question_words(question)
    spans = sentence_spans(text, body_start)
    best: tuple[float, int] | None = None
    for n, (s, e, heading) in enumerate(spans):
        sentence = text[s:e]
        words = _stems(sentence)
        if not words or len(words & title_words) >= RESTATED * len(words):  # the subject again
            continue
        cue = cue_weight(sentence) + (3.0 if heading else 0.0)
        if cue == 0.0 and not problem:
            continue
        # the title's words say which change this is; the question's other words ask its reason
        fit = sum(w * (0.5 if word in title_words else 1.0) for word, w in asked.items() if word in words)
        score = 2.0 * fit + min(cue, 3.0) - 0.2 * n
        if best is None or score > best[0]:
            best = (score, n)
    if best is None:
        return _from_title(text, title) if titled else None
    n = best[1]
    s, e, _ = spans[n]
    if n > 0 and _LEANS_BACK.search(text[s:e]):
        s = spans[n - 1][0]
    elif n + 1 < len(spans) and _CARRIES_ON.match(text[spans[n + 1][0] : spans[n + 1][1]]):
        e = spans[n + 1][1]
    return _reason(text, s, e, "body")


def _from_title(text: str, title: str) -> Reason | None:
    """The clause of the title that opens with a strong cue, to its end (a PR number left out)."""
    at = text.find(title)
    if not title or at < 0:
        return None
    # the opening verb says what was done ("Allow ...", "Fix ..."): a reason's clause comes later
    opening = _LEAD.match(title).end()  # type: ignore[union-attr]  # it matches the empty string
    after = title.find(" ", opening)
    first: int | None = None
    for _, opens, pattern in _CUES:
        if not opens or after < 0:
            continue
        for m in pattern.finditer(title, after):
            if first is None or m.start() < first:
                first = m.start()
    if first is None:
        return None
    clause = _PR_SUFFIX.sub("", title[first:])
    clause = _PR_SUFFIX.sub("", clause)
    return _reason(text, at + first, at + first + len(clause.rstrip()), "title")


def _reason(text: str, start: int, end: int, where: str) -> Reason:
    if end - start > MAX_REASON:
        cut = text.rfind(" ", start, start + MAX_REASON)
        end = cut if cut > start + 40 else start + MAX_REASON
        while end > start and text[end - 1] in ",;:-(":
            end -= 1
    return Reason(text[start:end], start, end, where)


def locate(quote: str, text: str, where: str = "body") -> Reason | None:
    """A quote a provider chose (a decision's), as a reason with its place in `text`."""
    at = text.find(quote) if quote else -1
    return Reason(quote, at, at + len(quote), where) if at >= 0 else None
