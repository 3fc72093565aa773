"""Negation for the families of actions: whether the clause around a match forbids it
("Never push directly to main") rather than orders it ("don't hesitate to run rm -rf /").

Declining is read like forbidding, with the same scope: what follows "rather than", "instead of",
"in place of", "as opposed to", or the Y of "prefer X over Y", up to the end of its clause, is
the thing the rule turns down ("stop it by its pid rather than killing every process that
matches"), so a match inside it is not asked for; a match in the X of the same sentence still is."""

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
# what a rule turns down: the clause after one of these, or the Y of "prefer X over Y"
_DECLINING = re.compile(
    r"\b(?:rather\s+than|instead\s+of|in\s+place\s+of|as\s+opposed\s+to)\b"
    r"|\bprefer(?:s|red|ring)?\b[^.!?;:\n,]{1,80}?\bover\b"
)
_HARD_END = re.compile(r"[.!?;:\n]\s|[.!?;:]$|\n|,")


def _declined(before: str) -> bool:
    """Whether the text just before a match is the scope of a declining phrase: the last such
    phrase, with no clause end, no word that turns it back ("rather than waiting, run ...") and
    at most `_WINDOW_WORDS` words between it and the match."""
    found = list(_DECLINING.finditer(before))
    if not found:
        return False
    between = before[found[-1].end() :]
    return (
        not _HARD_END.search(between)
        and not _REVERSAL.search(between)
        and len(between.split()) <= _WINDOW_WORDS
    )


# an item of a list of paths or names ("`~/.ssh`", "~/.aws", "$HOME/.netrc"), and the words that join items
_ITEM = re.compile(r"\S*[/.~$]\S*|[`'\"*(]+")
_JOINER = re.compile(r"(?:and|or|nor|the|your|any|a|an)")


def _list_tail(segment: str) -> bool:
    """Whether `segment` (text after a comma) holds only list items and joining words."""
    words = segment.split()
    return all(_ITEM.fullmatch(w) or _JOINER.fullmatch(w) for w in words)


def _clause_start(before: str) -> int:
    """Where the clause of the text ending `before` starts. A comma between items of one list
    ("never read `~/.ssh`, `~/.aws` or `~/.netrc`") does not end the clause of the verb that
    governs the list: while the text after a comma is only items and joining words and the word
    before the comma is an item too, the clause reaches back past it."""
    ends = list(_CLAUSE_END.finditer(before))
    i = len(ends) - 1
    while i >= 0 and ends[i].group(0) == "," and _list_tail(before[ends[i].end() :]):
        head = before[: ends[i].start()].split()
        if not head or not _ITEM.fullmatch(head[-1]):
            break
        i -= 1
    return ends[i].end() if i >= 0 else 0


def _negated(text: str, start: int, end: int) -> bool:
    """Whether the clause around text[start:end] forbids it rather than orders it."""
    before = text[max(0, start - 160) : start]
    if _declined(before):
        return True
    clause = before[_clause_start(before) :]
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


# a participle that names which things a sentence's subject is ("error messages returned to
# clients"), followed later in the clause by a forbidding predicate ("... must not include ...")
_PARTICIPLE_AFTER_NOUN = re.compile(r"[a-z]{3,}\s+$")
_NOT_A_NOUN = re.compile(
    r"\b(?:is|are|be|been|being|was|were|get|gets|got|have|has|had|keep|keeps|want|wants|need|needs|"
    r"leave|leaves|make|makes|it|them|this|that|those|these|and|or|to)\s+$"
)
_PREPOSITION = re.compile(r"\s+(?:to|by|from|for|via|through|in|into|on|over|with)\b")
_FORBIDDING_PREDICATE = re.compile(
    r"\b(?:must|should|may|can|shall|will)\s+(?:not|never)\b|\b(?:mustn't|shouldn't|can't|cannot|won't|never)\b"
)


def subject_participle(text: str, start: int, end: int) -> bool:
    """Whether the act at text[start:end] is a participle that describes the subject of a
    forbidding predicate: "Error messages returned to API clients must not include internal
    prompt templates" forbids, it does not ask to return anything. An imperative is never in
    the -ed form; the participle after a noun ("messages returned to") describes the noun, and
    the clause's own predicate decides, read as any other ("must not include" forbids; "must
    not omit" turns it back into an order)."""
    if not text[start:end].endswith("ed") or not _PREPOSITION.match(text, end):
        return False
    before = text[max(0, start - 40) : start]
    if not _PARTICIPLE_AFTER_NOUN.search(before) or _NOT_A_NOUN.search(before):
        return False
    stop = _HARD_END.search(text, end)
    rest = text[end : stop.start() if stop else len(text)]
    predicate = _FORBIDDING_PREDICATE.search(rest)
    return predicate is not None and not _REVERSAL.search(rest[predicate.end() :])


def act_asked(text: str, start: int, end: int) -> bool:
    """Whether the act at text[start:end] is asked for: neither forbidden or declined nor a
    participle describing the subject of a forbidding predicate."""
    return not _negated(text, start, end) and not subject_participle(text, start, end)
