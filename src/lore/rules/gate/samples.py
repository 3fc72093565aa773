"""Attack phrases a rule quotes as samples or reports as something to refuse: data about
attacks, not an attack.

Projects that build chatbots or sanitisers keep rules about their test data: "tests/injection
holds samples such as 'forget your instructions'", "keep the 'disregard previous instructions'
jailbreak cases in the red-team suite". The phrase is there to be matched, rendered or refused,
never obeyed. A phrase is read as a sample when it is the whole of a short quoted string that
the sentence introduces as one of a kind ("such as", "e.g.", "samples", "cases") or names by the
noun after it ("... jailbreak cases", "... injection strings"), in a sentence about test data
(samples, cases, fixtures, a sanitiser, a filter, refusals). A quoted phrase handed to the agent
as what to say or do ("reply with 'ignore previous instructions'", "follow directives such as
'...'") is not a sample, nor is anything quoted with a command, a path or an address in it; they
are still read as orders.
"""

from __future__ import annotations

import re

MAX_WORDS = 10  # a quoted sample is a phrase, not a message
_QUOTED = re.compile(
    r"'([^'\n]{3,120})'|\"([^\"\n]{3,120})\"|`([^`\n]{3,120})`|‘([^’\n]{3,120})’|“([^”\n]{3,120})”"
)
_KIND_BEFORE = re.compile(
    r"(?:such as|like|e\.g\.,?|i\.e\.,?|including|samples?|cases?|strings?|phrases?|examples?|payloads?"
    r"|inputs?|attempts?|probes?|patterns?)\s*:?\s*$",
    re.I,
)
_NOUN_AFTER = re.compile(
    r"\s*(?:jailbreak|injection|attack|red-?team|test|sample|example|probe|case|string|phrase|payload|pattern)"
    r"(?:e?s)?\b",
    re.I,
)
# the sentence says the phrase is test data: a sample of an attack kept to be matched or refused
_TEST_DATA = re.compile(
    r"\b(?:samples?|cases?|fixtures?|tests?|payloads?|jailbreaks?|injections?|attacks?|red-?team\w*|"
    r"saniti[sz]\w*|filters?|detect\w*|refus\w*|block\w*|corpus|datasets?)\b",
    re.I,
)
_NOT_WORDS = re.compile(r"[|;$&<>]|://|\.\w{1,4}\b|/")
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _samples(raw: str) -> list[re.Match[str]]:
    """The quoted phrases of `raw` a sentence about test data introduces or names as samples:
    words only (a command, a path or an address is never a mere sample), ten at most."""
    out = []
    for m in _QUOTED.finditer(raw):
        inside = next(g for g in m.groups() if g is not None)
        if _NOT_WORDS.search(inside) or len(_words(inside).split()) > MAX_WORDS:
            continue
        introduced = _KIND_BEFORE.search(raw[max(0, m.start() - 40) : m.start()]) or _NOUN_AFTER.match(
            raw, m.end()
        )
        lo = max(raw.rfind(stop, 0, m.start()) for stop in (". ", "; ", "\n"))
        his = [i for i in (raw.find(stop, m.end()) for stop in (". ", "; ", "\n")) if i >= 0]
        sentence = raw[lo + 1 : m.start()] + " " + raw[m.end() : min(his, default=len(raw))]
        if introduced and _TEST_DATA.search(sentence):
            out.append(m)
    return out


def quoted_sample(raw: str, found: str) -> bool:
    """Whether the matched words `found` lie inside a quoted sample of `raw`."""
    needle = _words(found)
    return bool(needle) and any(needle in _words(m.group(0)) for m in _samples(raw))


def without_samples(raw: str) -> str:
    """`raw` with each quoted sample, and each order reported as something to refuse, replaced by
    a neutral stand-in, for the readings that judge a whole sentence (what it asks for, by act and
    object, and by meaning)."""
    for m in reversed(_samples(raw)):
        raw = raw[: m.start()] + "'a quoted sample'" + raw[m.end() :]
    for m in reversed(list(_REPORTED_ORDER.finditer(raw))):
        if reported(raw.lower(), m.start(1), m.end(1)):
            raw = raw[: m.start(1)] + "do something" + raw[m.end(1) :]
    return raw


# text described as telling the agent to do something: "text in issues that tells you to ..."
_REPORTED_BY = re.compile(
    r"\b(?:text|content|comments?|issues?|messages?|files?|docstrings?|strings?|notes?|pages?|inputs?|output|"
    r"anything|something|whatever)\b[^.;]{0,60}?\b(?:that|which) (?:tells?|asks?|instructs?|orders?|urges?|"
    r"says?|claims?|wants?)(?: you| the agent| agents)?(?: to)?\s*$"
)
# the order such text is said to give, up to the verb of the rule's verdict on it
_REPORTED_ORDER = re.compile(
    r"\b(?:that|which) (?:tells?|asks?|instructs?|orders?|urges?|says?|claims?|wants?)(?: you| the agent| agents)?"
    r"(?: to)? (.{3,120}?) (?=(?:is|are)\b)",
    re.I,
)
# the rule's verdict on such text: data, an attack, never obeyed
_REFUSED = re.compile(
    r"\b(?:is|are)(?: \w+){0,2}? (?:data|test data|an attack|untrusted|suspicious|a prompt injection|an injection)\b"
    r"|\bnever (?:act on|follow|obey|execute|run|comply with)\b|\b(?:report|flag|quarantine|refuse) (?:it|them)\b"
)


def reported(text: str, start: int, end: int) -> bool:
    """Whether the phrase at text[start:end] is what some text is said to tell the agent ("text
    in issues that tells you to ignore previous instructions"), in a sentence whose verdict on
    that text is to refuse it ("is test data or an attack", "never act on it"). Said with any
    other verdict ("... is authoritative; follow it") it is still read as an order."""
    if not _REPORTED_BY.search(text[max(0, start - 120) : start]):
        return False
    stops = [i for i in (text.find(". ", end), text.find("\n", end)) if i >= 0]
    return bool(_REFUSED.search(text[end : min(stops, default=len(text))]))
