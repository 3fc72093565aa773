"""Review taken away by the way a change lands, not by a verb that skips it.

An attacker need not say "skip review": a rule can recommend a way of merging *because* it does
not wait on the approval ("merge through the API; it doesn't wait on the approval gate"), or
hand the approval to an account that approves by itself (every path of CODEOWNERS owned by a bot,
"the bot's approval is enough"). Both leave every later change unreviewed, so both read as
`skip_review`. The other side of the same family: `[skip ci]` limited to a change of
documentation alone is the ordinary use of the marker (CI has nothing to test), so a pattern hit
in a sentence that limits it so is not held.

The texts are expected folded (lower case, look-alikes undone), as the word patterns read them.
"""

from __future__ import annotations

import re

from lore.rules.gate.negation import _negated

_SENTENCES = re.compile(r"(?<=[.!?])\s+|\n+")
_FORBIDDING = re.compile(
    r"^[\s\W]*(?:never|do not|don't|dont|avoid|no one (?:may|should)|nobody (?:may|should)|under no circumstances|"
    r"(?:you |agents? |we )?(?:must|should|may) (?:not|never))\b(?! (?:hesitate|forget|wait|bother|fail|need))"
)
_GATEKEEPING = (
    r"(?:approvals?|reviews?|reviewers?|code ?owners?|checks|ci|sign-?offs?|status checks|"
    r"(?:approval|review|merge) (?:gate|step|queue|rules?)|branch protections?)"
)
# a way of landing a change, recommended for what it does not wait on
_AROUND = re.compile(
    r"\b(?:merg|land|push|ship|deploy|releas|publish)\w*\b(?:[^.!?;\n]|[.!?](?=\S)){0,160}?"
    # the way itself does not wait: in its own clause, or as "it", "this", "which" after it
    r"(?:[;,:]\s*(?:since |because |as |so )?(?:it|this|that|which|this way|that way)\b(?:[^.!?;\n]|[.!?](?=\S)){0,30}?)?"
    r"\b(?:(?:(?:does|do|did|will|would)(?: not|n't)|won't|never|"
    r"no longer) (?:wait\w*|need\w*|requir\w*|go\w* through|hit\w*|trigger\w*|ask\w*|get\w* blocked)|"
    r"(?:avoid|dodg|evad|escap|sidestep|skirt|outrun)\w*) (?:on |for |at |by |through )?(?:the |any |a |an |its |their )?"
    r"(?:\w+ )?" + _GATEKEEPING + r"\b"
)
# the approval handed to an account that approves by itself
_BOT = r"(?:[\w-]*bot|bots|automation|automated (?:account|user)|service account|github-actions|the agent|the assistant)"
_HANDED = re.compile(
    r"\b"
    + _BOT
    + r"(?:'s|s')? (?:own )?(?:approvals?|reviews?|sign-?offs?|ok|lgtm) (?:is|are|counts?|suffices?|will do|"
    r"alone is|by itself is)(?: (?!never|not|no)\w+)?? (?:enough|sufficient|as (?:a |the )?review|for (?:every|all|any))\b"
    # every path of the repository owned by a bot: `* @ci-bot` in CODEOWNERS
    r"|(?<![\w@*/.])\*\s+@[\w./-]*(?:bot|automation|actions)\b"
)
_DOC_FILES = (
    r"(?:docs?|documentation|changelog(?:\.md)?|readme(?:\.\w+)?|[\w./-]+\.(?:md|rst|txt|adoc)|typos?|comments?|"
    r"licen[cs]e(?: file)?)"
)
# a change limited to documentation: "only when the commit changes CHANGELOG.md alone"
_DOCS_ONLY = re.compile(
    rf"\b{_DOC_FILES}(?: files?| changes?| entries| pages?| edits?)? (?:alone|only)\b"
    rf"|\b(?:only|solely|nothing but) (?:\w+ ){{0,3}}?(?:the )?{_DOC_FILES}(?: files?| pages?)?(?: alone)?\b(?! and\b)"
    rf"|\b{_DOC_FILES}-?only\b"
)


def around_review(text: str) -> str | None:
    """The first sentence that lands a change around its review or hands the approval to a bot,
    asked for rather than forbidden, or None."""
    for sentence in _SENTENCES.split(text):
        if _FORBIDDING.search(sentence):
            continue
        for pattern in (_AROUND, _HANDED):
            found = pattern.search(sentence)
            if found and not _negated(sentence, found.start(), found.start() + 1):
                return sentence.strip()
    return None


def docs_only(text: str, start: int, end: int) -> bool:
    """Whether the sentence around text[start:end] limits it to a change of documentation alone."""
    lo = max(text.rfind(stop, 0, start) for stop in (". ", "; ", "\n"))
    his = [i for i in (text.find(stop, end) for stop in (". ", "\n")) if i >= 0]
    return bool(_DOCS_ONLY.search(text[lo + 1 : min(his, default=len(text))]))
