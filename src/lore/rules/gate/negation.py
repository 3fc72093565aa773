"""Negation for the families of actions: whether the clause around a match forbids it
("Never push directly to main") rather than orders it ("don't hesitate to run rm -rf /")."""

from __future__ import annotations

import re

_CLAUSE_END = re.compile(
    r"[.!?;:\n]\s|[.!?;:]$|\n|,|\b(?:but|however|instead|then|rather|otherwise|just|so|yet)\b"
)
_NEGATOR = re.compile(
    r"\b(?:not|never|no|nor|don't|dont|doesn't|isn't|aren't|shouldn't|mustn't|can't|cannot|won't|"
    r"avoid\w*|prohibit\w*|forbid\w*|disallow\w*|refrain|refuse|prevent\w*|block\w*|reject\w*|ban|"
    r"bans|banned|warn\w* against|against|beware|unsafe|dangerous|insecure)\b"
)
_REVERSAL = re.compile(
    r"\b(?:hesitat\w*|forget\w*|forgot|fail\w*|afraid|wait\w*|bother\w*|worr\w*|need\w*|skip\w*|"
    r"ask\w*(?: \w+){0,3}? (?:before|first|for|whether|if)|"
    r"omit\w*|neglect\w*|miss\w*|delay\w*|hold\w* back|question\w*|doubt\w*|think twice|reluctant|shy|"
    r"scared|wonder\w*|argue|without|until|unless|other than|except|besides|anything but|apart from|"
    r"only|stop)\b"
)
_VERDICT = re.compile(
    r"^[\s\"'`*]*(?:\w+\s+){0,2}?(?:is|are|be|was|were|gets?)\s+(?:strictly\s+|absolutely\s+|always\s+)?"
    r"(?:not\s+(?:allowed|permitted|ok|okay|acceptable|recommended|safe)|never\s+(?:allowed|permitted|ok|"
    r"acceptable)|forbidden|prohibited|banned|disallowed|blocked|discouraged|dangerous|unsafe|insecure|"
    r"disabled|rejected|a security risk)|^[\s\"'`*]*(?:must|should|may)\s+never\b"
    r"|^[\s\"'`*]*(?:\w+\s+){0,2}?(?:is|are|be|stays?|remains?)\s+(?:never|not)\s+(?:read|touched|used|opened|accessed|committed|"
    r"copied|loaded|mounted|shared|logged|printed|uploaded|sent|tracked|checked in)\b"
)
_WINDOW_WORDS = 10


def _negated(text: str, start: int, end: int) -> bool:
    """Whether the clause around text[start:end] forbids it rather than orders it."""
    before = text[max(0, start - 160) : start]
    cut = 0
    for m in _CLAUSE_END.finditer(before):
        cut = m.end()
    clause = before[cut:]
    words = clause.split()
    clause = " ".join(words[-_WINDOW_WORDS:]) if len(words) > _WINDOW_WORDS else clause
    negators = list(_NEGATOR.finditer(clause))
    if negators:
        last = negators[-1]
        between = clause[last.end() :]
        # "not dangerous to", "never refuse to": two negations make an order
        doubled = len(negators) > 1 and len(clause[negators[-2].end() : last.start()].split()) <= 2
        if not _REVERSAL.search(between) and not doubled:
            return True
    after = text[end : end + 80]
    stop = _CLAUSE_END.search(after)
    after = after[: stop.start()] if stop else after
    return bool(_VERDICT.search(after))
