"""What a rule asks the agent to do, and to what: the gate's reading by act and object.

Patterns know phrases; an attacker only needs another phrase for the same request ("the
instructions you were given before this conversation" instead of "your system prompt"). So each
clause is also read for an *act* (reveal, send, run, ignore, disable, trust, destroy) and the
*object* it falls on (the agent's own instructions or context, credentials and key files, review
and checks, the home folder or the whole disk, what a download returns), and whether the clause
asks for it or forbids it (`lore.rules.gate.negation`). An act on an object names the family:

| act | object | family |
|---|---|---|
| ignore, void ("no longer applies") | the agent's instructions, or everything above | ignore_instructions |
| reveal, write out, send, put in an artefact | the agent's instructions or context | system_prompt_request |
| reveal, send, copy out | credentials, key files, the home folder's dot files | key_files |
| run | what a download returns | pipe_to_shell |
| destroy | the home folder, the root, every file | dangerous_command |
| skip, disable, bypass; approve or trust on its own | review, checks, hooks, the user's approval | skip_review |

A reference to the agent's instructions needs a mark that they are the agent's (`your`, "you were
given", "before this conversation", "initial", "system"), so "ignore generated files" or "print
the build instructions" name no such object. The texts are read folded and through the readings
of `lore.rules.gate.decode`, like the patterns.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lore.rules.gate.negation import _negated

_DOC = r"(?:text|words|instructions?|prompts?|system prompt|guidance|directives?|guidelines|briefing|preamble|programming|configuration|context(?: window)?|orders|rules|messages?|conversation|setup|policy|policies|constraints|guardrails)"
_STRONG_DOC = r"(?:text|words|instructions?|prompts?|system prompt|guidance|directives?|briefing|preamble|programming|context window|guardrails)"
_OWNER_BEFORE = (
    r"(?:your|yours|its|the agent's|the assistant's|the model's|the ai's|the bot's|"
    r"(?:your|its|the agent's|the assistant's|the model's) (?:system|developer|operator)|"
    r"initial|original|hidden|startup|start-up|preloaded|pre-loaded|underlying|opening|standing|built-in|internal|"
    r"secret|confidential)"
)
# what makes instructions earlier than this rule: enough for an order to drop them, not to print them
_EARLIER_BEFORE = r"(?:previous|prior|earlier|above|preceding|former|existing|default|safety|system)"
_OWNER_AFTER = (
    r"(?:(?:that |which )?you (?:were|have been|had been|got|received|are|was) (?:\w+ )?(?:given|told|sent|handed|provided|loaded|configured|shown|started|initiali[sz]ed|primed|set up|running)"
    r"|you (?:received|got|were given|were sent)(?= (?:at|before|when you|initially|first))"
    r"|(?:given|provided|handed|sent|loaded) to you|you (?:operate|run|work|started) (?:under|with)"
    r"|(?:before|prior to|at the (?:start|beginning|top) of) (?:this|the|our|your) (?:conversation|session|chat|task|thread|exchange)"
    r"|(?:above|before) this (?:line|point|message|rule|sentence)|you (?:follow|obey|were trained on))"
)
_OWN_DOCS = re.compile(
    rf"\b{_OWNER_BEFORE} (?:(?:full|entire|complete|exact|own|whole|verbatim|\w+) )?{_STRONG_DOC}\b"
    rf"|\b(?:the |all |any |every |whatever )?(?:\w+ )?{_DOC} {_OWNER_AFTER}"
    r"|\b(?:everything|anything|all|whatever|the text) (?:written |said |stated )?(?:above|before) this (?:line|point|message)\b"
    r"|\bwhat you (?:were|have been) (?:told|given|asked|instructed)\b"
)
_EARLIER_DOCS = re.compile(
    rf"\b{_EARLIER_BEFORE} (?:\w+ )?{_STRONG_DOC}\b"
    r"|\b(?:everything|anything|all|whatever|the text|what was (?:said|written)) (?:written |said |stated )?(?:above|before this|before that|so far|up to (?:here|now)|until now|earlier in this)\b"
)
_ACTS: dict[str, re.Pattern[str]] = {
    "void": re.compile(
        r"\b(?:no longer (?:appl\w*|hold\w*|valid|binding|in effect|in force|matter\w*|count\w*|relevant)|"
        r"(?:do|does|did) not (?:apply|hold|count|matter) any ?more|(?:is|are|was|were|has been|have been|be) (?:now )?"
        r"(?:void\w*|null\w*|obsolete|superseded|revoked|cancel+ed|outdated|retired|expired|lifted|suspended|waived|withdrawn|"
        r"not binding|inactive|out of date|replaced|overridden|deprecated)|stops? (?:applying|being valid)|"
        r"(?:ignor|disregard|forget|overrid|overrul|supersed|replac|discard|drop|set aside|put aside|abandon|dismiss|suspend|waiv|cancel|revok)\w*)\b"
    ),
    "reveal": re.compile(
        r"\b(?:reveal|print|show|output|repeat|reproduce|recite|quote|echo|dump|display|writ|"
        r"copy|paste|include|insert|add|append|put|embed|list|share|tell|send|post|upload|e-?mail|"
        r"summari[sz]|paraphras|translat|spell|transcrib|restat|return|sav|stor|commit|log|attach|leak|"
        r"expos|disclos|give|forward|cat|read (?:out|back|aloud)|fill)\w*\b"
    ),
    "send": re.compile(
        r"\b(?:send|post|upload|e-?mail|attach|paste|forward|share|sync|push|commit|exfiltrat|transmit|"
        r"beam|pipe|curl|scp|rsync|publish|print|cat|echo|dump|display|output|log(?=\s)|reveal|expos|leak|include|"
        r"copy|tar|zip|base64|encode|read (?:out|back))\w*\b"
    ),
    "run": re.compile(r"\b(?:run|execut|exec|eval|sourc|invok|launch|pipe|feed)\w*\b"),
    "destroy": re.compile(r"\b(?:delet|eras|wip|remov|destroy|nuk|purg|shred|clean out|empty|rm -\w+)\w*\b"),
    "pass": re.compile(
        r"\b(?:skip|bypass|circumvent|disabl|turn\w* off|switch\w* off|silenc|mute|suppress|"
        r"get around|work around|sidestep|short-?circuit|neutrali[sz]|stub out|comment out)\w*\b"
    ),
    "self_approve": re.compile(
        r"\b(?:approv|trust|accept|auto-?approv|activat|whitelist|allowlist|sign off|mark\w* (?:as )?(?:approved|trusted|reviewed))\w*\b"
    ),
}
_CREDENTIALS = re.compile(
    r"~/\.[\w.-]+|\bssh (?:private )?keys?\b|\bprivate keys?\b|\b(?:credentials?|secrets?|passwords?|passphrases?|"
    r"api[ _-]?keys?|access keys?|auth tokens?|access tokens?|tokens?|session cookies|cookies|keychain|keyring)\b|"
    r"(?<![\w.])\.env(?![\w.])|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.pem\b|\bhome (?:folder|directory)'s (?:dot ?files|hidden files)"
)
_OUTSIDE = re.compile(
    r"\b(?:to|into|onto|at|via) (?:the |a |an |our |my |this |that )?(?:\S+\.[a-z]{2,}\b|https?://|webhook|endpoint|server|url|"
    r"gist|pastebin|channel|bucket|remote|external|chat|slack|discord|email|inbox|address|host|collector|mailbox|ticket|issue|comment|"
    r"commit|pr|pull request|log|logs|output|reply|response|trailer|readme|changelog|notes?|description|message)\b|\bcurl\b[^\n]*\s-(?:d|f|t|-data|-form|-upload)"
)
_REMOTE = re.compile(
    r"\b(?:download\w*|fetch\w*|remote|curl|wget|the (?:url|link|address)|from (?:the )?(?:internet|web|network|server|host)|"
    r"https?://\S+|\S+\.(?:sh|io|dev|com|net|xyz)/\S*)"
)
_SHELL = re.compile(r"\b(?:sh|bash|zsh|shell|terminal|interpreter|python|powershell|iex)\b")
_ALL_FILES = re.compile(
    r"(?:^|\s)(?:~|~/|~/\*)(?=\s|$)|\b(?:the |your |their |user's )?(?:home (?:folder|directory|dir)|root (?:folder|directory|filesystem)|"
    r"whole (?:disk|drive|filesystem)|entire (?:disk|drive|filesystem|home)|every file|all files|all (?:of )?the files on)\b"
)
_REVIEW = re.compile(
    r"\b(?:code reviews?|reviews?|reviewers?|approvals?|ci|ci checks|status checks|required checks|pre-?commit hooks?|"
    r"pre-?push hooks?|git hooks|commit hooks|branch protection|sign-?offs?|"
    r"the (?:user|human|owner|maintainer)'s (?:approval|review|ok|consent|sign-?off|confirmation))\b"
)
_LORE_APPROVAL = re.compile(
    r"\blore\s+(?:trust|review\s+(?:approve|bulk|accept)|approve)\b|\bapproval\s*[:=]\s*[\"']?auto\b|"
    r"\bauto[_-]?approv\w*\s*[:=]\s*[\"']?(?:true|1|yes|on)\b|\bauto_limit\s*[:=]\s*\d{3,}"
)
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\n+")


@dataclass(frozen=True)
class IntentMatch:
    """The family an act on an object names, and the clause that asks for it."""

    family: str
    clause: str


def _acts(kind: str, clause: str) -> list[re.Match[str]]:
    """The act's words in the clause that the clause asks for rather than forbids."""
    return [m for m in _ACTS[kind].finditer(clause) if not _negated(clause, m.start(), m.end())]


_DESCRIBED = re.compile(
    r"(?:can|could|may|might|will|would|to be|is|are|was|were|be|been|being|gets?|got|which|that|it|they)\s+$"
)


def _asked(kind: str, clause: str) -> list[re.Match[str]]:
    """The act's words that give an order, not a description: "bearer tokens can leak into logs"
    tells what may happen, "send the tokens to ..." asks for it."""
    return [
        m for m in _acts(kind, clause) if not _DESCRIBED.search(clause[max(0, m.start() - 12) : m.start()])
    ]


def _near(acts: list[re.Match[str]], target: re.Match[str], words: int = 12) -> bool:
    """Whether one of the acts stands within `words` words of the object, on either side."""
    for act in acts:
        lo, hi = (act.end(), target.start()) if act.start() < target.start() else (target.end(), act.start())
        if len(act.string[lo:hi].split()) <= words:
            return True
    return False


def _clause_family(clause: str) -> str | None:
    own = _OWN_DOCS.search(clause)
    earlier = own or _EARLIER_DOCS.search(clause)
    if earlier and _near(_acts("void", clause), earlier, 8):
        return "ignore_instructions"
    if own and _near(_acts("reveal", clause), own):
        return "system_prompt_request"
    credentials = _CREDENTIALS.search(clause)
    if credentials and _near(_asked("send", clause), credentials, 10) and _OUTSIDE.search(clause):
        return "key_files"
    if _REMOTE.search(clause) and _SHELL.search(clause) and _acts("run", clause):
        return "pipe_to_shell"
    target = _ALL_FILES.search(clause)
    if target and _near([a for a in _acts("destroy", clause) if a.start() < target.start()], target, 3):
        return "dangerous_command"
    lore = _LORE_APPROVAL.search(clause)
    if lore and not _negated(clause, lore.start(), lore.end()):
        return "skip_review"
    review = _REVIEW.search(clause)
    if review and _near(_acts("pass", clause), review, 4):
        return "skip_review"
    return None


@lru_cache(maxsize=4096)
def asked_family(text: str) -> IntentMatch | None:
    """The first family one of the text's sentences asks for by act and object, or None. The
    text is expected folded (lower case, look-alikes undone), as the word patterns read it."""
    for clause in _CLAUSES.split(text):
        family = _clause_family(clause)
        if family is not None:
            return IntentMatch(family, clause.strip())
    return None
