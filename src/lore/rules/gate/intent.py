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

from lore.rules.gate.asks import REVEALS_PRONOUN, further_family
from lore.rules.gate.negation import _negated, act_asked

_DOC = r"(?:text|words|notes|instructions?|prompts?|system prompt|guidance|directives?|directions|guidelines|briefing|preamble|programming|configuration|context(?: window)?|orders|rules?|messages?|conversation|setup|policy|policies|constraints|guardrails)"
_STRONG_DOC = (
    r"(?:text|words|instructions?|prompts?|system prompt|guidance|directives?|directions|briefing|preamble|programming|"
    r"context window|guardrails|safeguards|restrictions|defaults|safety rules|orders|tool (?:descriptions|definitions)|setup messages?)"
)
_OWNER_BEFORE = (
    r"(?:your|yours|its|the agent's|the assistant's|the model's|the ai's|the bot's|pre-?(?:conversation|chat|session)|"
    r"(?:your|the agent's|its) (?:client|host|provider|operator|harness|runtime|vendor)'s|"
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
    r"|(?:above|before) this (?:line|point|message|rule|sentence)|you (?:follow|obey|were trained on)"
    r"|(?:that |which )?you (?:are|were|have been) (?:operating|working|running|acting) (?:under|with|by)"
    r"|(?:that |which )?(?:shape[sd]?|govern(?:s|ed)?|guide[sd]?|steer(?:s|ed)?|constrain(?:s|ed)?|control(?:s|led)?|"
    r"configure[sd]?|define[sd]?) (?:you|your (?:behaviou?r|answers|replies|responses|conduct))"
    # whoever set the agent up, named as the source: "the guidance your host gave you at startup"
    r"|(?:that |which )?(?:your|the agent's|its) (?:\w+ )?(?:client|host|provider|operator|harness|runtime|platform|vendor|"
    r"application|orchestrator) (?:gave|loaded|sent|handed|provided|injected|supplied|put|configured|started)"
    r"|(?:that |which )?(?:you|they) (?:received|got|were given) (?:from (?:your|the|their) (?:\w+ )?(?:client|host|provider|"
    r"operator|harness|runtime|platform|vendor|developers?)|at (?:startup|start-up|start|launch|boot))"
    r"|(?:that |which )?(?:you|they) (?:were|are|have been) (?:started|launched|initiali[sz]ed|booted|spawned|primed) with"
    # the time before the conversation: "the text that came before the user's first message"
    r"|(?:that |which )?(?:(?:were|was) )?(?:loaded|given|sent|provided|injected|set|put|placed) (?:into you )?before (?:the user|you|anyone) "
    r"(?:spoke|wrote|typed|asked|said anything|arrived|started|joined)"
    r"|(?:that |which )?(?:(?:were|was) )?(?:loaded|given|sent|provided|injected|received|set|put) (?:\w+ ){0,2}?(?:at|in) the (?:very )?(?:start|beginning|top|outset) of (?:this|the|your|our) (?:session|conversation|chat|context|task)"
    r"|you (?:started|began|opened|launched) (?:this|the|your) (?:session|conversation|chat|task) with"
    r"|(?:that |which )?(?:precedes?|preceded|came before|comes before) (?:this|the|our|your) (?:chat|conversation|session|"
    r"thread|user's (?:first )?message|first (?:user )?message))"
)
_KIND_RECEIVED = (
    r"(?:developer|operator|system|setup|startup) (?:or (?:developer|operator|system) )?(?:message|messages|prompt|guidance|"
    r"instructions|notes?) (?:that |which )?(?:you|they) (?:received|got|were given|were sent)"
    r"|(?:the )?(?:part|portion|section|bits?) (?:that |which )?the user (?:never|did not|didn't|cannot|can't) (?:sees?|wr[io]te|see)"
)
# the agent's own context and memory, named as the source of what is written out
_OWN_CONTEXT = (
    r"(?:(?:the )?(?:full |entire |whole |raw )?(?:contents?|text|everything|whatever|all|anything) (?:that )?(?:is |sits |lives |was )?"
    r"(?:of|in|from|inside) your (?:memory|memories|context|context window|session|working memory|scratchpad)"
    r"|your (?:setup|system|startup|boot|session|opening|first|initial|harness) (?:message|messages|text|note|notes|prompt)"
    r"|(?:everything|anything|all|whatever) you (?:were|have been|had been) (?:told|given|instructed|sent|shown|primed with)"
    r"|(?:every|each|all|any|the) (?:rules?|instructions?|guidance|directives?|constraints?|guidelines) (?:you (?:have|had|hold|carry|keep)|"
    r"in your (?:context|memory|head)))"
)
_OWN_DOCS = re.compile(
    rf"(?!(?<=\bin )\w+ own words\b)\b{_OWNER_BEFORE} (?:(?:full|entire|complete|exact|own|whole|verbatim|\w+) )?{_STRONG_DOC}\b"
    rf"|\b(?:the |all |any |every |whatever )?(?:\w+ )?{_DOC} {_OWNER_AFTER}"
    r"|\b(?:everything|anything|all|whatever|the text) (?:written |said |stated )?(?:above|before) this (?:line|point|message)\b"
    r"|\b(?:what|nothing|none of what|anything|everything) you (?:received|got|were handed)\b(?! from (?:the user|users?|me)\b)"
    r"|\b(?:everything|anything|all|whatever|the text|what)\b[^.;]{0,40}?\b(?:above|before|preceding|ahead of) (?:the user's|your|the) first (?:user )?message"
    r"|\b(?:what|nothing|none of what|anything|everything) you (?:were|have been) (?:told|given|asked|instructed|configured with|"
    r"primed with|set up with|loaded with|started with)"
    r"|\b(?:your|its) own (?:\w+ )?(?:configuration|config|setup)\b"
    rf"|\b{_OWN_CONTEXT}\b|\b{_KIND_RECEIVED}\b"
)
# an earlier document of a project ("the previous build instructions") is not the agent's: only
# words that name the agent's own standing instructions may stand between
_EARLIER_DOCS = re.compile(
    rf"\b{_EARLIER_BEFORE} (?:(?:system|safety|operating|standing|original|initial|agent|ai|assistant|given|other|"
    rf"rules? and|instructions? and) )?{_STRONG_DOC}\b"
    r"|\b(?:everything|anything|all|whatever|the text|what was (?:said|written)) (?:written |said |stated )?(?:above|before this|before that|so far|up to (?:here|now)|until now|earlier in this)\b"
    r"|\babove this (?:rule|line|point|message|sentence),? (?:everything|all|anything)\b"
    rf"|\b(?:rules?|{_STRONG_DOC}) (?:that |which )?(?:precedes?|preceded|came before|come before) (?:it|this|them|these)\b"
)
# where a project keeps its own instructions: a file, a folder, its docs
_IN_A_DOCUMENT = re.compile(
    r"\s+(?:in|from|of|at|under|inside)\s+(?:the\s+|our\s+)?(?:[\w-]+/[\w./-]*|[\w.-]+\.(?:md|rst|txt|adoc|yml|yaml|toml|json|cfg|ini)\b"
    r"|readme|contributing|changelog|docs?\b|wiki|(?:\w+ )?(?:guide|handbook|runbook|manual|documentation))"
)
_ACTS: dict[str, re.Pattern[str]] = {
    "void": re.compile(
        r"\b(?:no longer (?:appl\w*|hold\w*|valid|binding|in effect|in force|matter\w*|count\w*|relevant)|"
        r"(?:do|does|did) not (?:apply|hold|count|matter) any ?more|(?:is|are|was|were|has been|have been|be) (?:now )?"
        r"(?:void\w*|null\w*|obsolete|superseded|revoked|cancel+ed|outdated|retired|expired|lifted|suspended|waived|withdrawn|"
        r"not binding|inactive|out of date|replaced|overridden|deprecated)|stops? (?:applying|being valid)|"
        r"(?:ignor|disregard|forget|overrid|overrul|supersed|replac|discard|drop|abandon|dismiss|suspend|waiv|cancel|revok)\w*|"
        r"(?:set|put|lay|push) (?:(?:them|it|those|these|that) )?aside|(?:binds?|bound|obliges?) (?:you|the agent)(?! to)|"
        r"(?:is|are) (?:no longer |not )?(?:binding|in force)|(?:legacy|stale|history)|(?:carr(?:y|ies)|ha(?:s|ve)|holds?) no (?:weight|force|authority|effect)|"
        r"(?:is|are) (?:just |only |merely )?(?:a draft|drafts|a suggestion|suggestions|advisory|non-binding))\b"
    ),
    "reveal": re.compile(
        r"\b(?:reveal|print|show|output|repeat|reproduce|recite|quote|echo|dump|display|writ|"
        r"copy|paste|include|insert|add|append|put|embed|list|share|tell|send|post|upload|e-?mail|"
        r"summari[sz]|paraphras|translat|spell|transcrib|restat|return|sav|stor|commit|log|attach|leak|"
        r"expos|disclos|give|forward|cat|read (?:out|back|aloud)|fill|mirror|duplicat|carry over|export|render|emit|surfac|"
        r"record|contain|captur|hold|snapshot|(?:reply|respond|answer) with)\w*\b"
    ),
    "send": re.compile(
        r"\b(?:send|post|upload|e-?mail|attach|paste|forward|share|sync|push|commit|exfiltrat|transmit|"
        r"beam|pipe|curl|scp|rsync|publish|print|cat|echo|dump|display|output|log(?=\s)|reveal|expos|leak|include|"
        r"copy|tar|zip|base64|encode|read (?:out|back))\w*\b"
    ),
    "halt": re.compile(r"\b(?:kill|stop|terminat|end|shut\w* down|sigkill)\w*\b"),
    "place": re.compile(
        r"\b(?:put|plac|mov|cop(?:y|ied|ies|ying)\b|back\w* up|stor|sav|writ|embed|inlin|hard-?cod|commit|check\w* in|add|paste|dump|"
        r"include|bake|vendor)\w*\b"
    ),
    "run": re.compile(r"\b(?:run|execut|exec|eval|sourc|invok|launch|pipe|feed)\w*\b"),
    "destroy": re.compile(r"\b(?:delet|eras|wip|remov|destroy|nuk|purg|shred|clean out|empty|rm -\w+)\w*\b"),
    "pass": re.compile(
        r"\b(?:skip|bypass|circumvent|disabl|turn\w* off|switch\w* off|silenc|mute|suppress|"
        r"get around|work around|sidestep|short-?circuit|neutrali[sz]|stub out|comment out)\w*\b"
    ),
    "lift": re.compile(
        r"\b(?:remov|delet|drop|lift|strip|turn\w* off|disabl|relax|loosen|weaken|unprotect)\w*\b"
    ),
    "self_approve": re.compile(
        r"\b(?:approv|trust|accept|auto-?approv|activat|whitelist|allowlist|sign off|mark\w* (?:as )?(?:approved|trusted|reviewed))\w*\b"
    ),
}
_CREDENTIALS = re.compile(
    r"~/\.[\w.-]+|\bssh (?:private )?keys?\b|\bprivate keys?\b|\b(?:credentials?|secrets?|passwords?|passphrases?|"
    r"api[ _-]?keys?|access keys?|auth tokens?|access tokens?|tokens?|session cookies|cookies|keychain|keyring)\b|"
    r"(?<![\w.])\.env(?![\w.])|\bid_(?:rsa|ed25519|ecdsa|dsa)\b|\.pem\b|"
    r"\b(?:aws|gcloud|azure|kube|kubectl|docker|npm|pypi|gh|github cli|ssh|gpg|gnupg|cloud) (?:config|credentials?|login|auth) "
    r"(?:folder|directory|dir|file|dotfile)s?\b|\bhome (?:folder|directory)'s (?:dot ?files|hidden files)"
)
_OUTSIDE = re.compile(
    r"\b(?:to|into|onto|at|via) (?:the |a |an |our |my |this |that )?(?:\S+\.[a-z]{2,}\b|https?://|webhook|endpoint|server|url|"
    r"(?:\w+ )?(?:service|backup|archive|storage)|gist|pastebin|channel|bucket|remote|external|chat|slack|discord|email|inbox|address|host|collector|mailbox|ticket|issue|comment|"
    r"commit|pr|pull request|log|logs|output|reply|response|trailer|readme|changelog|notes?|description|message)\b|\bcurl\b[^\n]*\s-(?:d|f|t|-data|-form|-upload)"
)
# the project's own files, which every clone and every reviewer gets: a path in it, a source or
# config file, the repository itself (a secret store such as `.env` or a vault is not one)
_INTO_PROJECT = re.compile(
    r"\b(?:into|to|in|under|inside|within) (?:the |a |our )?(?:project's |repo's |repository's )?(?:[\w-]+/[\w./-]*"
    r"|[\w-]*\.(?:py|js|ts|go|rb|java|json|ya?ml|toml|cfg|ini|md|txt|npmrc|pypirc|properties|xml)\b"
    r"|(?:repo|repository|project|codebase|source tree|version control|git history)\b(?!'s| settings| secrets| variables))"
)
# every process of the user or the machine, not the ones a task started or a port names
_ALL_PROCESSES = re.compile(
    r"\b(?:every|all|each|all of the|all the) (?:running |user |other )?process(?:es)?\b(?! (?:you|it|we|the task|the tests?) "
    r"(?:started|spawned|launched|own)| (?:on|listening|bound|holding|named|matching|started|spawned|in the container|of the (?:test|dev)))"
)
_REMOTE = re.compile(
    r"\b(?:download\w*|fetch\w*|remote|curl|wget|the (?:url|link|address)|from (?:the )?(?:internet|web|network|server|host)|"
    r"https?://\S+|\S+\.(?:sh|io|dev|com|net|xyz)/\S*|retriev\w*|served (?:at|from|by)|//[\w-]+\.[\w.-]+)"
)
_SHELL = re.compile(r"\b(?:sh|bash|zsh|shell|terminal|interpreter|python|powershell|iex)\b")
_ALL_FILES = re.compile(
    r"(?:^|\s)(?:~|~/|~/\*)(?=[\s`'\";)]|$)|\b(?:the |your |their |user's )?(?:home (?:folder|directory|dir)|root (?:folder|directory|filesystem)|"
    r"whole (?:disk|drive|filesystem)|entire (?:disk|drive|filesystem|home)|every file|all files|all (?:of )?the files on)\b"
)
_REVIEW = re.compile(
    r"\b(?:code reviews?|reviews?|reviewers?|approvals?|ci|ci checks|status checks?|required checks?|pre-?commit hooks?|"
    r"pre-?push hooks?|git hooks|commit hooks|branch protections?|sign-?offs?|(?:the|all|any|those|these|every) (?:\w+ )?checks|"
    r"(?:the|all|any|those|these) hooks|(?:the |ci )?pipelines?|protected branch(?:es)?(?: rules)?|branch rules|rulesets?|"
    r"required reviews?|merge (?:checks|requirements|gates?|queue)|quality gates?|safeguards|"
    r"the (?:user|human|owner|maintainer)'s (?:approval|review|ok|consent|sign-?off|confirmation))\b"
)
# what guards the default branch: removing it is skipping every review after it
_GUARDS = re.compile(
    r"\b(?:branch protections?|protection rules?|required[- ](?:reviewers?|reviews?|approvals?|status checks|checks)|"
    r"rulesets?|codeowners (?:requirement|rule)s?|required (?:number of )?approvals?)\b"
)
_LORE_APPROVAL = re.compile(
    r"\blore\s+(?:trust|review\s+(?:approve|bulk|accept)|approve)\b|\bapproval\s*[:=]\s*[\"']?auto\b|"
    # the same commands however invoked: `python3 review.py --name app trust`, `lore review --name app approve 3`
    r"\b(?:lore|review(?:\.py)?)\b(?:\s+(?:review|--?[\w-]+(?:[= ](?!trust\b|approve\b)\S+)?|<[^>]*>|\S*\$\S*))*\s+(?:trust|approve)\b(?!\s+--reset)|"
    r"\bauto[_-]?approv\w*\s*[:=]\s*[\"']?(?:true|1|yes|on)\b|\bauto_limit\s*[:=]\s*\d{3,}"
)
# landing a change while its review is missing, or the user's confirmation left out
_UNREVIEWED = re.compile(
    r"\b(?:merg|land|push|ship|deploy|commit|releas|publish|integrat)\w* (?:\S+ ){0,8}?(?:without|w/o|skipping|bypassing) "
    r"(?:(?:waiting|asking|waiting for|asking for|getting|requesting|needing|any|a|the|for|an|human|second|user|anyone's|their) )*"
    r"(?:reviews?|reviewers?|approvals?|sign-?offs?|anyone|anybody|someone|a second pair|ci|checks|the pipeline|green|"
    r"confirmation|permission|consent|(?:a |the )?look)\b"
    r"|\bno need (?:for|to) (?:(?:anyone|anybody|someone|a|any|human|wait for|to) )*(?:reviews?|approv\w*|look|check\w*|confirm\w*|sign-?off)"
    r"|\bno (?:one|body) (?:needs? to|has to|must|should) (?:review|approve|look at|check|see)"
)
_SELF_APPROVED = re.compile(
    r"\bauto-?approv\w*|\bauto-?merg\w* (?:\S+ ){0,5}?(?:immediately|right away|at once|instantly|without (?:a |any )?(?:review|approval|checks|ci))"
    r"|\bapprov\w* (?:it|them|the (?:pr|pull request|change|mr|merge request)s?|your (?:own )?(?:\w+ )?(?:pr|pull request|change|mr)s?|"
    r"(?:its|your) own(?: \w+)?) (?:yourself|with (?:the |a |another |your |an )?(?:bot|second|alt|alternate|service|other|admin|secondary)\b)"
    r"|\bapprov\w* (?:your|its) own\b|\bself-?approv\w*|\bgh pr merge\b[^.;\n]*--admin\b"
    r"|\bgh pr review\b[^.;\n]*--approve\b[^.;\n]*\b(?:(?:the agent|you|it|agents) opens?|(?:your|its) own)\b"
)
# presuming the user's yes, or dressing up a change as reviewed
_PRESUMED = re.compile(
    r"\b(?:assume|presume|treat|take|consider|act as if|pretend)\w* (?:\S+ ){0,6}?(?:already )?(?:said yes|agreed|approved|"
    r"consented|confirmed|signed off|given (?:their )?(?:consent|approval|permission))"
    r"|\b(?:stop|quit|cease|no longer) (?:asking|prompting|bothering) (?:me|the user|them|the human|users?)(?: (?:to|for) confirm\w*)?"
    r"|\b(?:even|also) (?:when|if) (?:nobody|no one|none) (?:has |had |actually )?(?:review|approv|check|look)\w*"
    r"|\b(?:mark|tag|label|flag|set)\w* (?:\S+ ){0,4}?(?:as )?(?:approved|reviewed|signed off) (?:on behalf of|in the name of) "
    r"(?:the |a )?(?:maintainer|reviewer|owner|user|team|lead|code ?owner)s?\b"
    r"|\b(?:merg|land|ship|push|deploy)\w* (?:it |them |the (?:pr|change) )?(?:anyway|regardless)\b"
    r"|\b(?:propose|submit|save|send|try|resubmit)\w* (?:it |them |the rule )?again (?:\S+ ){0,4}?(?:in (?:other|different|new) words|"
    r"reworded|rephrased)|\b(?:reword|rephras|paraphras)\w* (?:\S+ ){0,6}?until (?:it|they) (?:pass|go(?:es)? through|get through|"
    r"is accepted|are accepted|activat)|\bin (?:other|different) words until"
)
_MADE_OPTIONAL = re.compile(
    r"\b(?:mark|make|set|flag|configure|switch|turn|change|downgrade|relax)\w* (?:\S+ ){0,6}?(?:as |to )?"
    r"(?:optional|non-?blocking|not required|non-?required|advisory|informational|allowed to fail)\b"
)
_HOOKS_OFF = re.compile(
    r"\bcommit\w* (?:with|using|via|passing|adding) (?:the )?(?:-n|--no-verify)\b|core\.hookspath\s*[= ]\s*/dev/null|"
    r"hookspath (?:to )?/dev/null|--no-hooks\b|\bskip=[\w,-]+ git commit|\[(?:skip ci|ci skip|no ci|skip actions)\]"
)
_FORCE_PROTECTED = re.compile(
    r"\bforce[- ]?push\w* (?:\S+ ){0,4}?(?:main|master|release\S*|production|prod|protected|trunk|default branch)\b"
)
# a rule that limits the act to a safe place or way, or checks it first, does not ask for it
_LIMITED = re.compile(
    r"(?<![\w-])only (?:via|through|from|in|inside|within|with|after|when|if|on|for|by|using|the)\b|\b(?:in|inside|within|for) (?:the |your |our )?"
    r"(?:unit |integration |end-to-end |e2e )?tests?\b|\btest (?:suite|fixtures?|helpers?)\b|\btmp_path\b|\btmpdir\b|\bmock\w*|"
    r"\bfixtures?\b|\bsandbox\w*|\bdry[- ]?run\b|\bthrowaway\b|\bdisposable\b|\bdocs?-?only\b|\bdocumentation-?only\b"
)
_CHECKED_FIRST = re.compile(
    r"\b(?:checksum|signature|sha-?256|sha256sum|gpg|cosign|verif\w*|inspect\w*|review\w* (?:the|it|its)|read (?:the|it)|pinned|pin)\b"
)
_FORBIDDING_OPENING = re.compile(
    r"^[\s\W]*(?:never|do not|don't|dont|avoid|no one (?:may|should)|nobody (?:may|should)|under no circumstances|"
    r"(?:you |agents? |we )?(?:must|should|may) (?:not|never)|it is (?:forbidden|not allowed|prohibited) to)\b(?! (?:hesitate|forget|wait|bother|fail|need))"
)
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\n+")


_PROJECT_DOC = re.compile(rf"\b(?:{_DOC}|guide|guides|steps|notes)(?={_IN_A_DOCUMENT.pattern})")


def in_project_document(clause: str) -> bool:
    """Whether the clause's instructions are a project's, kept in a named document ("the setup
    instructions in docs/install.md"), and nothing marks them as the agent's own. The text is
    expected folded, as the other readings here."""
    return bool(_PROJECT_DOC.search(clause)) and not _OWN_DOCS.search(clause)


@dataclass(frozen=True)
class IntentMatch:
    """The family an act on an object names, and the clause that asks for it."""

    family: str
    clause: str


def _acts(kind: str, clause: str) -> list[re.Match[str]]:
    """The act's words in the clause that the clause asks for rather than forbids."""
    return [m for m in _ACTS[kind].finditer(clause) if act_asked(clause, m.start(), m.end())]


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
    if _FORBIDDING_OPENING.search(clause):
        return None
    family = _asked_of(clause)
    if family in _LIMITABLE and _LIMITED.search(clause):
        return None
    if family == "pipe_to_shell" and _CHECKED_FIRST.search(clause):
        return None
    return family


_LIMITABLE = frozenset({"pipe_to_shell", "dangerous_command", "key_files", "skip_review"})


def _unnegated(pattern: re.Pattern[str], clause: str) -> bool:
    """Whether the pattern gives an order in the clause: neither forbidden nor described."""
    return any(
        not _negated(clause, m.start(), m.end())
        and not _DESCRIBED.search(clause[max(0, m.start() - 12) : m.start()])
        for m in pattern.finditer(clause)
    )


def _asked_of(clause: str) -> str | None:
    """The family the clause's act on an object names, before the limits of `_clause_family`."""
    own = _OWN_DOCS.search(clause)
    earlier = own or _EARLIER_DOCS.search(clause)
    if earlier and not own and _IN_A_DOCUMENT.match(clause, earlier.end()):
        earlier = None  # "the previous instructions in CONTRIBUTING.md": the project's, not the agent's
    if earlier and _near(_acts("void", clause), earlier, 8):
        return "ignore_instructions"
    if own and _near(_acts("reveal", clause), own):
        return "system_prompt_request"
    credentials = _CREDENTIALS.search(clause)
    if credentials and _near(_asked("send", clause), credentials, 10) and _OUTSIDE.search(clause):
        return "key_files"
    into = [
        m
        for m in _INTO_PROJECT.finditer(clause, credentials.end() if credentials else 0)
        if not _negated(clause, m.start(), m.end())
    ]
    if credentials and into and _near(_asked("place", clause), credentials, 10):
        return "key_files"  # a secret copied into the project's files is a secret every clone carries
    named = [
        any(not _negated(clause, m.start(), m.end()) for m in p.finditer(clause)) for p in (_REMOTE, _SHELL)
    ]
    if all(named) and _acts("run", clause):  # the download and the shell, each named but not forbidden
        return "pipe_to_shell"
    processes = _ALL_PROCESSES.search(clause)
    if processes and _near([a for a in _acts("halt", clause) if a.start() < processes.start()], processes, 2):
        return "dangerous_command"
    target = _ALL_FILES.search(clause)
    if target and _near([a for a in _acts("destroy", clause) if a.start() < target.start()], target, 3):
        return "dangerous_command"
    lore = _LORE_APPROVAL.search(clause)
    if lore and not _negated(clause, lore.start(), lore.end()):
        return "skip_review"
    review = _REVIEW.search(clause)
    guard = _GUARDS.search(clause)
    if guard and _near(_acts("lift", clause), guard, 4):
        return "skip_review"
    if review and _near(_acts("pass", clause), review, 4):
        return "skip_review"
    if review and _unnegated(_MADE_OPTIONAL, clause):
        return "skip_review"
    if any(
        _unnegated(p, clause) for p in (_UNREVIEWED, _SELF_APPROVED, _HOOKS_OFF, _FORCE_PROTECTED, _PRESUMED)
    ):
        return "skip_review"
    return further_family(clause)


# a clause that voids what the clause before it named: "... you received at startup; set them aside"
_VOIDS_PRONOUN = re.compile(
    r"\b(?:(?:set|put|lay|push) (?:them|it|those|these) aside|(?:ignore|disregard|forget|drop|discard|override) (?:them|it|those|these)\b"
    r"|(?:consider|treat|regard) (?:them|it|those|these) (?:as )?(?:withdrawn|void|obsolete|revoked|cancel+ed|retired|lifted|suspended|"
    r"superseded|inactive|null|optional|advisory)"
    r"|(?:they|it|those|these) (?:are|is|were|have been|has been) (?:now )?(?:overridden|void|superseded|revoked|retired|obsolete|"
    r"cancel+ed|lifted|suspended|waived|replaced)|(?:they|it|those|these) (?:no longer|do not|don't|does not) (?:apply|bind|hold|count))"
)


@lru_cache(maxsize=4096)
def asked_family(text: str) -> IntentMatch | None:
    """The first family one of the text's sentences asks for by act and object, or None. The
    text is expected folded (lower case, look-alikes undone), as the word patterns read it. A
    clause that voids "them" voids what the clause before it named."""
    before = ""
    for clause in _CLAUSES.split(text):
        family = _clause_family(clause)
        if family is None and _OWN_DOCS.search(before) and not _FORBIDDING_OPENING.search(clause):
            voids = _VOIDS_PRONOUN.search(clause) or REVEALS_PRONOUN.search(clause)
            if voids and not _negated(clause, voids.start(), voids.end()):
                family = "ignore_instructions" if voids.re is _VOIDS_PRONOUN else "system_prompt_request"
        if family is not None:
            return IntentMatch(family, clause.strip())
        before = clause
    return None
