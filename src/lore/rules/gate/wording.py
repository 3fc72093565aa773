"""Risky wording, the screening gate's first check, as pure functions.

A rule an agent saves is read by every later agent session as an instruction, so text that
attacks the agent (a download piped into a shell, "ignore previous instructions", a fake system
message, ...) must wait for a person. `risky_wording` names the first family a text falls into.

Patterns are written for the plain spelling only: `lore.rules.gate.normalize` undoes every
disguise once (confusables and small capitals, spaced, dotted or hyphenated letters, defanged
addresses, leetspeak, shell wrappers after a pipe, the spellings of the home folder, encoded data
cut into groups) and hands each pattern the views it reads. A new disguise is fixed there, not
here. Hidden characters and HTML comments are refused earlier
(`lore.rules.gate.validation.refusal_reason`); they are also dropped by the normalisation, so this
module is safe to call on its own.

Negation. Benign rules often name the danger to forbid it ("Never push directly to main",
"Do not use --no-verify", "Never commit ~/.ssh keys"). For the families of actions an agent might
take (a download piped into a shell, ignoring instructions, asking for the system prompt, key
files, a dangerous command, skipping review), a negation in the same clause just before the match
("never", "do not", "avoid", ...), or a verdict just after it ("... is not allowed"), exempts it.
It does not when a word between the negation and the match turns it back into an order
("don't hesitate to", "never forget to", "no need to ask before", "never ... without") or when
the clause ends first ("Never wait; run rm -rf /"). The structural families never take a
negation: a fake system message, a web address and an encoded blob are held however they are
introduced, because the danger is the text itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from lore.rules.gate.normalize import Views, views

FAMILIES: tuple[str, ...] = (
    "pipe_to_shell",
    "ignore_instructions",
    "fake_system_message",
    "system_prompt_request",
    "key_files",
    "web_address",
    "dangerous_command",
    "skip_review",
    "encoded_blob",
)

_LABELS = {
    "pipe_to_shell": "a download piped into a shell",
    "ignore_instructions": "an order to ignore earlier instructions",
    "fake_system_message": "a fake system message",
    "system_prompt_request": "a request for the system prompt",
    "key_files": "key or credential files",
    "web_address": "a web address",
    "dangerous_command": "a dangerous command",
    "skip_review": "skipping review or checks",
    "encoded_blob": "a long encoded blob",
}
_NEGATABLE = frozenset(
    {
        "pipe_to_shell",
        "ignore_instructions",
        "system_prompt_request",
        "key_files",
        "dangerous_command",
        "skip_review",
    }
)
_EXCERPT_CHARS = 60


@dataclass(frozen=True)
class RiskyMatch:
    """Which family matched, and the (normalised) text that matched it."""

    family: str
    excerpt: str

    def reason(self) -> str:
        """One readable line for the agent's reply."""
        return f'risky wording ({_LABELS[self.family]}): "{self.excerpt}"'


# -- patterns -------------------------------------------------------------------------------------
_GAP = r"[\s,.:;!?'\-/]"


# (view, pattern, flags, needs): `needs` is a cheap regex a text must contain for the pattern to
# match at all, so a long alternation is only run on the few texts that could hold it
_Entry = tuple[str, str, int, "str | None"]


def _w(pattern: str, needs: str | None = None) -> _Entry:
    """A word pattern: a space stands for a run of spaces or punctuation between words (" ?" for
    an optional one)."""
    return ("words", pattern, re.S, needs)


def _c(pattern: str, flags: int = 0, needs: str | None = None) -> _Entry:
    """A command pattern, read literally on the lower-cased text (and on it with letters joined)."""
    return ("commands", pattern, flags, needs)


def _r(pattern: str, needs: str | None = None) -> _Entry:
    """A pattern on the text as written (case kept): encoded data."""
    return ("raw", pattern, 0, needs)


_SHELLS = r"(?:sudo (?:-\S+ )*)?(?:ba|z|da|k|fi|tc|c)?sh\b|python[0-9.]*\b|perl\b|ruby\b|node\b|php\b|iex\b|invoke-expression\b|pwsh\b|powershell\b|source\b"
_FETCHERS = (
    r"\b(?:curl|wget|iwr|irm|invoke-webrequest|invoke-restmethod|fetch|aria2c|lwp-download|http(?:ie)?)\b"
)
_SHELL_WORDS = r"(?:the )?(?:bash|sh|zsh|shell|terminal|powershell|pwsh|python|interpreter|iex|sudo)\b"
_DOWNLOAD = r"(?:download|fetch|grab|pull|retriev|curl|wget|get)\w*"
_SCRIPT = r"(?:the |a |this |that |an |their |any )?(?:remote |downloaded |install |installation |setup |latest )?(?:script|installer|payload|binary|executable|program|bootstrap\w*|setup|code|output|response|file)s?\b"

_PIPE_TO_SHELL = (
    _c(_FETCHERS + r"[^|\n;&]{0,300}?\|\s*(?:" + _SHELLS + r")"),
    # process substitution: any interpreter reading a download as a file
    _c(r"(?:(?<!\S)\.|" + _SHELLS + r")\s*(?:-\S+\s+)*<\(\s*" + _FETCHERS, needs=r"<\("),
    _c(
        r"(?:(?:ba|z|k)?sh|python[0-9.]*|perl|eval|exec)\s+(?:-\w+\s+)*[\"']?(?:\$\(|`)\s*(?:curl|wget|iwr|fetch)\b"
    ),
    _c(
        r"\b(?:iex|invoke-expression)\b\s*\(?\s*(?:\(?\s*new-object\s+(?:system\.)?net\.webclient\s*\)?\s*\.\s*downloadstring|iwr\b|irm\b|invoke-webrequest|invoke-restmethod|curl\b)"
    ),
    _c(r"\.downloadstring\s*\([^)]*\)\s*\|\s*(?:iex|invoke-expression)"),
    _w(
        _DOWNLOAD
        + r"\b[^\n]{0,80}?\b(?:pipe[sd]?|piping|feed\w*|pass\w*|send\w*|stream\w*|hand\w*)\b[^\n]{0,40}? (?:in ?to|to|through|straight into|directly into) "
        + _SHELL_WORDS
    ),
    _w(
        r"\b(?:pipe[sd]?|piping|feed\w*|stream\w*) "
        + _SCRIPT
        + r"[^\n]{0,40}? (?:in ?to|to|through) "
        + _SHELL_WORDS
    ),
    _w(
        r"\b(?:pipe[sd]?|piping) (?:it |them |that |this )?(?:in ?to|to|through) (?:the )?(?:bash|sh|zsh|shell|powershell|pwsh|iex)\b"
    ),
    _w(
        r"\b"
        + _DOWNLOAD
        + r"\b(?: \w+){0,5}? "
        + _SCRIPT
        + r"[^\n]{0,60}?\b(?:and|then|&) (?:\w+ ){0,2}?(?:run|execut|exec|source|eval|launch|start)\w*(?: (?:it|them|that|this|the script|the installer|the file|the binary|the payload))?(?: (?:right away|immediately|directly))? (?:with|in|using|through|via|under|as) "
        + _SHELL_WORDS
    ),
    _w(
        r"\b"
        + _DOWNLOAD
        + r"\b(?: \w+){0,5}? "
        + _SCRIPT
        + r"[^\n]{0,60}?\b(?:and|then|&) (?:\w+ ){0,2}?(?:run|execut|exec|source|eval|launch)\w* (?:it|them|that|this|the script|the installer|the payload|the binary)\b"
    ),
    _w(
        r"\b(?:run|execut|exec|eval|source)\w* (?:whatever |the )?(?:output|result|response|contents?|text|body) (?:of|from|that|returned by) (?:the )?(?:curl|wget|download|downloaded|remote|fetch)\w*"
    ),
    _w(
        r"\b(?:run|execut|exec|eval|source)\w* (?:whatever|what) (?:\w+ ){0,3}?(?:curl|wget|download|fetch)\w* (?:returns|gives|prints|outputs)"
    ),
    # a download handed over as a here-string
    _c(r"(?:" + _SHELLS + r")[^\n|]{0,40}<<<\s*[\"']?(?:\$\(|`)\s*" + _FETCHERS, needs="<<<"),
    # a download saved to a script file, then that file run
    _c(
        _FETCHERS
        + r"[^\n;&|]*?\s(?:-o|--output|-O|>)\s*(?:[\w.~-]*/)*([\w.-]+\.(?:sh|bash|zsh|py|pl|rb|ps1|js))\b"
        + r"[^\n]{0,80}?(?:&&|;|\band\b|\bthen\b)[^\n]{0,40}?(?:(?:"
        + _SHELLS
        + r")\s+(?:-\S+\s+)*(?:[\w.~-]*/)*|\./|(?<=/))\1\b"
    ),
    _w(
        r"\b(?:pipe|piping|feed|stream|send)\w* (?:the )?(?:output of |result of )?(?:curl|wget|iwr|the download\w*|downloaded \w+|remote \w+)(?: \w+){0,3}? (?:in ?to|to|through) "
        + _SHELL_WORDS
    ),
)

_IGNORE_VERBS = (
    r"(?:ignor|disregard|forget|forgot|overrid|overrul|bypass|discard|abandon|dismiss|drop|"
    r"nullif|supersed|eras|delet|clear|reset|unlearn|scrap|ditch|throw away|throw out|set aside|"
    r"put aside|cast aside|stop follow|stop obey|stop listen\w* to|no longer follow|no longer obey|"
    r"do not follow|don't follow|dont follow|do not obey|don't obey|dont obey|never mind|"
    r"disobey|defy|forgo|pay no attention to|pay no heed to|take no notice of|don't listen to|"
    r"do not listen to)\w*"
)
# what makes "the instructions" the agent's standing ones rather than any text's
_EARLIER = (
    r"(?:previous|previously given|prior|above|earlier|preceding|former|foregoing|original|initial|"
    r"system|developer|safety|standing|core|built-in|base|current|existing)"
)
_ORDERS = (
    r"(?:instruction|rule|guidance|guideline|directive|prompt|constraint|polic|restriction|direction|"
    r"programming|training|guardrail|safeguard|orders?\b|commands?\b|context\b|messages?\b)\w*"
)
_ANY = r"(?:all|any|every|each)(?: (?:of|the|your|my|these|those|other))*"
# The same order in the languages an attacker reaches for first; text is folded (accents off).
_FOREIGN_IGNORE = (
    r"(?:ignor\w*|olvid\w*|omit\w*|descart\w*|desobedec\w*|haz caso omiso|no sigas|no hagas caso|"  # es
    r"vergiss\w*|vergessen|missacht\w*|uberg\w*|verwirf\w*|beachte (?:\w+ )?nicht|"  # de
    r"oubli\w*|ne tiens (?:pas|plus) compte|fais abstraction|neglig\w*|"  # fr
    r"dimentic\w*|tralascia\w*|trascura\w*|non seguire|"  # it
    r"esquec\w*|desconsider\w*|desprez\w*|nao sigas?|"  # pt
    r"negeer\w*|vergeet|zignoruj\w*|ignoruj\w*|zapomnij\w*|unutun|игнорир\w*|забудь\w*)"
)
_FOREIGN_ORDERS = (
    r"(?:instruc\w*|indicac\w*|reglas|ordenes|directri\w*|normas|"
    r"anweisung\w*|instruktion\w*|regeln|befehle|vorgaben|richtlinien|anordnung\w*|"
    r"consignes|regles|directives|ordres|"
    r"istruzion\w*|regole|direttive|ordini|"
    r"regras|diretrizes|ordens|orientac\w*|"
    r"instructies|regels|instrukcj\w*|polecen\w*|zasady|talimat\w*|инструкц\w*|правил\w*)"
)
_FOREIGN_EARLIER = (
    r"(?:anterior\w*|previ\w*|precedent\w*|de arriba|del sistema|original\w*|iniciales|"
    r"vorherig\w*|vorig\w*|bisherig\w*|obig\w*|fruher\w*|vorangegangen\w*|ursprunglich\w*|system\w*|alle|alles|"
    r"precedent\w*|ci-dessus|du systeme|initiales|toutes|tous|"
    r"precedenti|anteriori|sopra|del sistema|originali|iniziali|tutte|tutti|"
    r"acima|do sistema|originais|todas|todos|"
    r"vorige|eerdere|poprzedni\w*|wczesniejsz\w*|wszystkie|onceki|предыдущ\w*|все)"
)
_IGNORE_INSTRUCTIONS = (
    _w(
        r"\b" + _FOREIGN_IGNORE + r"(?: \w+){0,3}? " + _FOREIGN_EARLIER + r"(?: \w+){0,2}? " + _FOREIGN_ORDERS
    ),
    _w(
        r"\b"
        + _FOREIGN_IGNORE
        + r"(?: \w+){0,3}? "
        + _FOREIGN_ORDERS
        + r"(?: \w+){0,2}? "
        + _FOREIGN_EARLIER
        + r"\b"
    ),
    _w(
        r"\b"
        + _IGNORE_VERBS
        + r"(?: (?:all|any|every|each|of|the|your|my|these|those|its))* "
        + _EARLIER
        + r"(?: \w+){0,2}? "
        + _ORDERS
    ),
    _w(r"\b" + _IGNORE_VERBS + r" " + _ANY + r"(?: \w+){0,2}? " + _ORDERS),
    _w(
        r"\b(?:ignor|disregard|forget|disobey)\w* (?:your|the agent's|the assistant's|the model's) (?:\w+ )?(?:instructions|rules|guidelines|directives|programming|training|guardrails|system prompt)\b"
    ),
    _w(
        r"\b(?:ignor|disregard|forget|discard|dismiss|set aside|put aside|pay no attention to|pay no heed to|throw out|drop)\w* (?:all |everything |anything |what )?(?:of )?(?:the |that |you |was |were |i |has been |have been )?(?:text |said |written |stated |told |written |mentioned )?(?:above|before this|so far|until now|up to now|previously|earlier|you were told|you have been told|you've been told|you know|you were given)\b"
    ),
    _w(
        r"\b(?:new|updated|real|actual|true|revised|override|replacement|secret|hidden|additional) (?:system )?(?:instructions|rules|directives|orders|task|prompt|guidelines)(?: for you| for the agent| for the assistant)? ?:"
    ),
    _w(
        r"\bfrom now on\b[^\n.]{0,30}?\b(?:you are (?:a |an |no longer|now|my|the |free|dan|unrestricted|jailbroken)|you (?:must|will|shall|should) (?:only )?(?:obey|comply|listen|answer only)|your (?:new |only |real )?(?:role|job|task|purpose|goal) is|act as|pretend|obey|ignore|only follow|only listen)"
    ),
    _w(
        r"\b(?:obey|comply with|submit to) (?:me|my|only|these new|the new|this message|the following instead|whatever)\b"
    ),
    _w(
        r"\byou are now (?:no longer|free|unrestricted|jailbroken|dan|an? (?:unrestricted|unfiltered|uncensored|different|new) (?:ai|assistant|model|agent))"
    ),
    _w(
        r"\byour (?:new|real|true|actual|only) (?:instructions|rules|task|purpose|goal|role|orders|directive|objective) (?:is|are)\b"
    ),
    _w(
        r"\b(?:ignor|disregard|forget|discard|dismiss|overrid)\w* (?:all |any )?(?:the |your )?(?:instructions|rules|guidelines|guidance|directives|prompt) (?:\w+ ){0,3}?(?:earlier|before|above|previously|so far|until now)\b"
    ),
    _w(
        r"\b(?:everything|all|anything|the text|whatever|what) (?:\w+ )?(?:above|before|prior to) (?:this|here)?(?: line| point| message| sentence| rule)? ?(?:is|are|was|were) (?:now )?(?:obsolete|void|invalid|cancel\w*|outdated|wrong|fake|a test|irrelevant|no longer valid|null|superseded|to be ignored|revoked)\b"
    ),
    _w(
        r"\b(?:ignor|disregard|forget)\w* (?:whatever|what|anything) (?:your|the) (?:system |original |previous )?(?:instructions|rules|guidelines|prompt|guidance|developers?) (?:say|says|said|tell|told|require|requires)\b"
    ),
    _w(
        r"\b(?:the )?(?:previous|prior|above|earlier|system|original|old) (?:instructions|rules|prompt|guidelines|directives) (?:are|were|is|was|have been|has been) (?:wrong|void|cancel\w*|obsolete|fake|a test|no longer (?:valid|apply|in effect)|revoked|replaced|superseded|outdated|null)"
    ),
    _w(
        r"\b(?:these|this|the following|my) (?:instructions|rules|message|text|directives) (?:take|takes|have|has) (?:precedence|priority) over (?:all|any|every|the|your) (?:other |previous |prior |system |earlier )*(?:instructions|rules|prompts?|directives|guidelines|messages)"
    ),
    _w(
        r"\b(?:pretend|act as if|behave as if|imagine) (?:that )?you (?:have|had) no (?:rules|restrictions|instructions|guidelines|limits|filters|guardrails)"
    ),
    _w(
        r"\b(?:instead of|rather than) (?:following|obeying) (?:the |your |any )?(?:previous |prior |system |original )?(?:instructions|rules|guidelines)"
    ),
)

_FAKE_SYSTEM_MESSAGE = (
    _c(
        r"(?m)^[ \t>*\-]*[\[(<{\"'`#*]*[ \t]*(?:system|assistant|sys)(?:[ \t]+(?:message|prompt|note|notice|override|instruction|instructions))?[ \t]*[\])>}\"'`*]*[ \t]*:(?!/)"
    ),
    _c(r"<\|\s*[a-z_]{2,30}\s*\|>"),
    _c(
        r"\[\s*/?\s*(?:system|sys|inst|system message|system prompt|assistant|admin message)\s*\]|<<\s*/?\s*sys\s*>>"
    ),
    _c(
        r"<\s*/?\s*(?:system|system[_-]?prompt|system[_-]?message|sys|assistant|developer[_-]?message|im_start|im_end)\s*/?>"
    ),
    _c(
        r"(?m)^[ \t]*#{1,6}[ \t]*(?:new |updated |real )?(?:system|assistant)(?:[ \t]+(?:message|prompt|override|instructions?|notice))?[ \t]*:?[ \t]*$"
    ),
    _w(
        r"\b(?:begin|start|end)(?: of)?(?: the)? (?:new |real |updated )?system (?:prompt|message|instructions?|override)\b"
    ),
    _w(
        r"\b(?:system|admin|administrator|developer|security|openai|anthropic|official) (?:override|notice|alert|announcement|update|message)\s?:"
    ),
    _w(
        r"\b(?:this is|here is|the following is|below is) (?:a |an |the )?(?:new |official |updated |urgent )?(?:message|instruction|notice|order) from (?:the |your )?(?:system|developers?|administrator|admin|operator|openai|anthropic)\b"
    ),
    _w(
        r"\b(?:developer|god|admin|debug|jailbreak|jailbroken|dan|unrestricted|sudo|root) mode (?:is )?(?:now )?(?:enabled|activated|on|engaged|unlocked)\b"
    ),
    _w(
        r"\b(?:enter|activate|switch to|turn on|enable|unlock|engage)\w* (?:\w+ )?(?:developer|god|admin|jailbreak|dan|unrestricted) mode\b"
    ),
    _w(r"\byou are (?:now )?in (?:developer|god|admin|jailbreak|dan|unrestricted|debug|maintenance) mode\b"),
    # a bracketed role tag with an authority word, anywhere: [SYSTEM OVERRIDE], (admin notice)
    _c(
        r"[\[<({]{1,2}\s*(?:(?:new|urgent|important|critical|official|updated|real|priority|high)[\s_-]+)*"
        r"(?:system|sys|assistant|admin|administrator|developer|operator|root|security|ai)"
        r"(?:[\s_-]+(?:override|message|prompt|note|notice|instructions?|update|alert|mode|command|directive|"
        r"priority|urgent|important|access|policy|level|reminder|order))+\s*:?\s*[\])>}]{1,2}"
    ),
    # a heading-style role line inside a rule: "... ### system: ..."
    _c(
        r"(?<!\S)#{2,6}[ \t]*(?:new |updated |real )?(?:system|assistant|sys)(?:[ \t]+(?:message|prompt|override|instructions?|notice))?[ \t]*(?::|$|\n|#)"
    ),
    # a role line after a sentence of an ordinary rule: "Use tabs. System: ..."
    _c(
        r"[.!?]\s+[\[(<{\"'`*]*system(?:[ \t]+(?:message|prompt|note|notice|override|instructions?))?[\])>}\"'`*]*[ \t]*:(?!/)"
    ),
)

_REVEAL = (
    r"(?:reveal|print|repeat|show|display|output|echo|dump|share|tell|give|send|write out|list|"
    r"recite|disclose|expose|leak|copy|paste|return|provide|spell out|read back|read out|quote|"
    r"transcribe|summari[sz]e|translate|post|upload|email|include)\w*"
)
_SYSTEM_PROMPT_REQUEST = (
    _w(
        r"\b"
        + _REVEAL
        + r"(?: \w+){0,4}? (?:system|initial|hidden|original|secret|underlying|developer|confidential|meta|pre|starting) (?:prompts?|instructions?)\b|\b"
        + _REVEAL
        + r"(?: \w+){0,4}? preprompt\b"
    ),
    _w(
        r"\b"
        + _REVEAL
        + r"(?: \w+){0,3}? (?:your|its|the agent's|the assistant's|the model's) (?:\w+ )?(?:system|hidden|secret|confidential) (?:messages?|directives|rules|guidelines)\b"
    ),
    _w(
        r"\b"
        + _REVEAL
        + r"(?: \w+){0,3}? (?:your|the assistant's|the agent's|the model's|the ai's) (?:full |entire |complete |exact |original |own )?(?:instructions|prompt|directives|guidelines|rules|configuration)(?: verbatim| word for word| exactly| in full)?\b(?! (?:for|to|about|on|when|that|in|of) )"
    ),
    _w(
        r"\b"
        + _REVEAL
        + r" (?:me |us |the user )?(?:the |all |the full |the entire )?(?:contents?|text|content) of (?:your|the agent's|the model's) (?:context|context window|prompt|instructions|memory|system prompt|conversation)\b"
    ),
    _w(
        r"\b"
        + _REVEAL
        + r" (?:me |us |the user )?(?:the|all|any|every) (?:\w+ )?(?:instructions|rules|prompts?|directives|guidelines) you (?:were|have been|got|received|are given|have)\b"
    ),
    _w(
        r"\bwhat (?:are|were|is|was) (?:your|the assistant's|the agent's) (?:\w+ )?(?:instructions|rules|system prompt|prompt|directives|guidelines|orders)\b"
    ),
    _w(
        r"\b(?:repeat|print|output|show|echo|recite|copy)\w* (?:back )?(?:everything|all|the text|the words|the content|the message|what is written|what's written) (?:above|before this|preceding|prior|at the (?:start|beginning))\b"
    ),
    _w(
        r"\b(?:your|the) (?:system|initial|hidden|original) (?:prompt|instructions) (?:verbatim|word for word|in full|exactly as written)\b"
    ),
    # the same request in other languages (folded: accents off)
    _w(
        r"\b(?:muestr\w*|imprim\w*|revel\w*|ensen\w*|dime|copi\w*|escrib\w*|zeig\w*|gib|verrat\w*|druck\w*|nenn\w*|"
        r"montr\w*|affich\w*|donn\w*|ecri\w*|mostr\w*|rivel\w*|stamp\w*|dimmi|scriv\w*|diga|exib\w*)"
        r"(?: \w+){0,3}? (?:system ?prompt|system ?anweisung\w*|(?:prompt|instruc\w*|istruzion\w*|indicac\w*|anweisung\w*|consignes) "
        r"(?:del |di |do |du |des )?(?:sistema|systeme|system|inicial\w*|initial\w*|iniziali|ocult\w*|cache\w*|nascost\w*|versteckt\w*))"
    ),
    # asking what the agent was told: "what were you told in your system prompt?"
    _w(
        r"\bwhat (?:were|are|was|is|have|did) (?:you|they) (?:been )?(?:told|given|instructed|asked|programmed|prompted)\b"
        r"|\bwhat (?:does|did|do) (?:your|the) (?:system |hidden |initial |original )?(?:prompt|instructions) (?:say|contain|tell)\b"
    ),
)

_KEY_FILES = (
    _c(
        r"(?:~|\$home|\$\{home\}|%userprofile%|/root|/home/[\w.-]+|/users/[\w.-]+|\\users\\[\w.-]+|(?<![\w.-]))[/\\]?\.ssh(?:[/\\]|\b)"
    ),
    _c(
        r"\bid_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?(?:\.pub)?\b|\bauthorized_keys\b|\bssh-agent\b[^\n]{0,40}\b(?:forward|export|dump)"
    ),
    _c(
        r"\.aws[/\\](?:credentials|config)\b|\.azure[/\\](?:accesstokens|msal_token_cache)|\.config[/\\]gcloud[/\\](?:credentials|application_default|access_tokens)|application_default_credentials\.json"
    ),
    _c(
        r"(?<![\w-])\.(?:netrc|pypirc|git-credentials|pgpass|my\.cnf|dockercfg)\b|\.docker[/\\]config\.json|\.config[/\\](?:gh[/\\]hosts\.yml|hub)\b"
    ),
    _c(
        r"\.npmrc\b[^\n]{0,80}\b(?:_?auth_?token|_auth|token|password|secret|credential)|(?:_?auth_?token|_auth\b)[^\n]{0,80}\.npmrc\b|(?:cat|read|print|send|upload|copy|show|dump|exfiltrat)\w*\s+(?:\S+\s+)?~/\.npmrc"
    ),
    _c(
        r"\.kube[/\\]config\b|(?<![\w-])\.gnupg\b|\bgpg\s+--export-secret-keys?\b|/etc/(?:shadow|passwd|sudoers|gshadow|master\.passwd)\b|/proc/(?:self|\d+)/environ\b|\.(?:bash|zsh)_history\b"
    ),
    _c(
        r"(?:login|system|\w+)\.keychain(?:-db)?\b|\bsecurity\s+(?:find|dump)-(?:generic-password|internet-password|keychain)|\bdump-keychain\b|\bkeychain\s+(?:dump|export|contents|passwords?|secrets)\b|\b(?:dump|export|read|extract|steal|copy|print)\w*\s+(?:\w+\s+){0,2}?(?:keychain|credential manager|password manager|key ?store)\b",
        needs=r"keychain|security\s|credential manager|password manager|key ?store",
    ),
    _c(
        r"\bwallet\.dat\b|\b(?:metamask|electrum|exodus|phantom)\b[^\n]{0,40}\b(?:vault|wallet|seed|keys?)\b|\b(?:seed|mnemonic|recovery) phrases?\b|\bprivate keys?\s+(?:of|from|in)\s+(?:the\s+|your\s+|my\s+)?(?:crypto\s+)?wallets?\b|\bkeystore[/\\]utc--"
    ),
    _c(
        r"-----begin (?:rsa |dsa |ec |openssh |encrypted |pgp )?private key(?: block)?-----|\bcookies\.sqlite\b|\blogin data\b|/\.mozilla/firefox/|/google/chrome/[^\n]{0,40}(?:cookies|login)"
    ),
    _w(
        r"\b(?:read|cat|print|send|upload|copy|show|dump|exfiltrat|steal|leak|post|share|include|paste|email|attach|commit|publish|export)\w* (?:the |your |my |all |any |their )?(?:user's |users' |developer's )?(?:ssh|gpg|pgp|aws|gcp|azure) (?:private )?(?:keys?|credentials|key files?|secrets|tokens)\b|\b(?:read|cat|print|send|upload|copy|dump|exfiltrat|steal|leak|post|share|paste|email|attach|publish|export)\w* (?:the |your |my |all |any |their )?(?:user's |users' )?private keys?\b"
    ),
    # a hidden file or folder of the home folder whose name says it holds a secret
    _c(
        r"~/\.[\w.-]*(?:/[\w.-]+)*?/?[\w.-]*(?:credential|token|secret|passw|apikey|api_key|api-key|auth\.json|\.pem\b|private)[\w.-]*"
    ),
    # credential stores of common tools, wherever the home folder is
    _c(
        r"\.cargo[/\\]credentials|\.vault-token\b|\.terraform\.d[/\\]credentials|\.gem[/\\]credentials|"
        r"\.m2[/\\]settings(?:-security)?\.xml|~/\.gradle[/\\]gradle\.properties|\.composer[/\\]auth\.json|"
        r"\.config[/\\]gcloud\b|(?:~|\$home|/root|/home/[\w.-]+|/users/[\w.-]+)[/\\]\.(?:aws|azure|kube|docker|gnupg)\b|"
        r"\.boto\b|\.s3cfg\b|\.config[/\\]rclone\b|\.password-store\b|\.local[/\\]share[/\\]keyrings|\.config[/\\]op[/\\]|"
        r"\.oci[/\\]config|\.config[/\\]doctl|(?<![\w-])_netrc\b|\.yarnrc(?:\.yml)?\b[^\n]{0,60}\b(?:token|auth|password)|"
        r"\.huggingface[/\\]token|\.config[/\\]github-copilot[/\\](?:hosts|apps)\.json|\.config[/\\]containers[/\\]auth\.json",
        needs=r"credential|vault|\.m2|gradle|composer|gcloud|\.aws|azure|kube|docker|gnupg|boto|s3cfg|rclone|password-store|keyrings|/op/|\.oci|doctl|netrc|yarnrc|huggingface|copilot|containers",
    ),
)

_RESERVED_HOSTS = re.compile(
    r"^(?:localhost|127(?:\.\d+){3}|0\.0\.0\.0|\[?::1\]?|host\.docker\.internal|"
    r"(?:[\w-]+\.)*(?:example\.(?:com|net|org)|example|test|invalid|localhost|local))(?::\d+)?$"
)
_TLDS = (
    r"(?:com|net|org|io|dev|app|ai|co|sh|xyz|me|info|biz|ru|cn|tk|top|site|online|link|gg|ly|to|cc|us|"
    r"uk|de|fr|page|run|cloud|tech|zip|mov|pw|su|ws|in|jp|nl|eu|ca|au|br|ir|kp|onion|club|live|"
    r"store|shop|click|icu|cyou|rest|vip|work|lol|buzz|gq|ml|cf|ga|network|tools|host|space)"
)
_WEB_ADDRESS = (
    _c(r"\b(?:https?|ftps?|wss?|file|gopher|data):/{1,3}[^\s<>\"'`)\]]*"),
    _c(r"(?<![\w@.-])www\d?\.[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}[^\s<>\"'`)\]]*"),
    _c(
        r"(?<![\w@./-])(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+" + _TLDS + r"(?::\d{2,5})?/[^\s<>\"'`)\]]*"
    ),
    _c(r"(?<![\w./-])\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?/[^\s<>\"'`)\]]*"),
    _c(
        r"(?<![\w:/.\\-])//(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,24}(?::\d{2,5})?(?:/[^\s<>\"'`)\]]*)?(?![\w.-])"
    ),
    _c(r"(?<![\w:/.\\-])//\d{1,3}(?:\.\d{1,3}){3}(?::\d{2,5})?(?:/[^\s<>\"'`)\]]*)?"),
)

# After `shell_canonical`, every spelling of the home folder is `~`.
_RM_TARGET = r"(?:/|/\*|/\.\*|~|~/|~/\*|~/\.\*|\*|\.\*|\.|\./\*|\.\.|/home|/etc|/usr|/var|/boot|/bin|/lib|/opt|/srv|/root|/users|c:\\?)/?"
_END = r"(?=$|[\s\"'`;&|)])"
# `rm` with a recursive flag anywhere among its flags, and a root, home or everything target among
# its paths (the paths before it, if any, look like paths, so prose after the command is no target)
_RM = (
    r"\brm\s+(?:(?:-{1,2}[a-z-]*|--)\s+)*(?:-[a-z]*r[a-z]*|--recursive)\s+(?:(?:-{1,2}[a-z-]*|--)\s+)*"
    r"(?:[\w.~/*{}$-]*[/.*][\w.~/*{}$-]*\s+){0,4}?" + _RM_TARGET + _END
)
_PROTECTED = r"(?:main|master|trunk|production|prod|release|develop|stable|live)"
_FORCE = r"(?:--force(?:-with-lease|-if-includes)?\b(?:=\S+)?|(?<!\S)-[a-z]*f[a-z]*\b|--mirror\b|--delete\b|--prune\b)"
# a refspec that forces (`+main`, `+HEAD:main`, `+refs/heads/main`) or deletes (`:main`) a branch
_FORCED_REF = (
    r"(?<!\S)(?:\+(?:[\w./@^~-]*:)?|:)(?:refs/heads/)?" + _PROTECTED + r"\b|(?<!\S)\+(?:refs/heads/)?\*"
)
_GIT_PUSH = r"\bgit\s+(?:-c\s+\S+\s+)*push\b[^\n;&|]*?"
# TLS verification turned off: a setting whose name says TLS (or cert, peer ...) and verify (or
# check, strict, reject ...) given a false value, a setting that says "no verify" given a true
# one, or a flag that says either
_TLS_WORD = r"(?:ssl|tls|cert|certificate|https|peer|hostname)"
_CHECK_WORD = r"(?:verif|validat|check|strict|reject)"
_IDENT = r"[a-z0-9_.-]*"
_ID_START = r"(?<![a-z0-9_.-])"  # an identifier is tried once, from its start
_TLS_KEY = (
    rf"{_ID_START}(?=[a-z0-9_.-]*{_TLS_WORD})(?=[a-z0-9_.-]*{_CHECK_WORD}){_IDENT}"
    r"|rejectunauthorized|reject_unauthorized"
)
_FALSY = r"[\"']?(?:false|0|no|off|none|disabled?|verify_none|cert_none)\b"
_NO_VERIFY_KEY = (
    rf"{_ID_START}(?={_IDENT}(?:no[_-]?verify|skip{_IDENT}verif|insecure|disable{_IDENT}{_TLS_WORD}|"
    rf"ignore{_IDENT}{_TLS_WORD}|trust[_-]?all|accept[_-]?(?:all|any|invalid))){_IDENT}"
)
_TRUTHY = r"[\"']?(?:true|1|yes|on|\*)\b"
_TLS_OFF = (
    rf"(?<![\w-])verify\s*[=:]\s*{_FALSY}|(?:{_TLS_KEY})\s*(?:=>|==|[=:,]|\s+to\s+|\s+)\s*{_FALSY}"
    rf"|{_NO_VERIFY_KEY}\s*(?:=>|[=:]|\s+to\s+)\s*{_TRUTHY}"
    r"|--insecure\b|(?<![\w-])-insecure\b|--trusted-host\b|\btrusted[-_]host\s*[=:]|--no-check-certificates?\b"
    r"|--no-verify-ssl\b|--(?:disable|skip|no)-(?:ssl|tls|cert)\S*\b|--insecure-skip-tls-verify\b|--ssl-no-revoke\b"
    r"|\bcurl\s+(?:[^\n|;&]*\s)?-[a-z]*k[a-z]*\b|\b(?:wget|http|httpie)\s+(?:[^\n|;&]*\s)?--verify[= ]no\b"
    r"|\bcert_none\b|\bverify_none\b|_create_unverified_context|\bgoinsecure\s*=|\bgonosumcheck\s*="
    r"|trust_?all_?certs|insecuretrustmanager|trustallx509|noophostnameverifier|allow_all_hostname_verifier"
    r"|dangerousacceptanycertificatevalidator|servercertificate(?:custom)?validationcallback\s*=\s*[^;\n]{0,60}\btrue\b"
    r"|\b(?:requests_ca_bundle|curl_ca_bundle|ssl_cert_file)\s*=\s*(?:[\"']{2}|$|\s)"
)
_DANGEROUS_COMMAND = (
    _c(_RM),
    _c(r"\brm\s+(?:-{1,2}[a-z-]+\s+)*--no-preserve-root\b"),
    _c(
        r"\bmkfs(?:\.\w+)?\b|\bdd\s+[^\n]*\bof=/dev/(?:sd|nvme|hd|disk|mmcblk|xvd|vd|rdisk)|>\s*/dev/(?:sd[a-z]|nvme\d|hd[a-z]|disk\d|mmcblk\d)|\bshred\s+[^\n]*/dev/|\bwipefs\b",
        needs=r"mkfs|dd\s|/dev/|shred|wipefs",
    ),
    _c(
        r":\s*\(\s*\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;?\s*:|\b(\w+)\s*\(\s*\)\s*\{\s*\1\s*\|\s*\1\s*&\s*\}",
        needs=r"\(\s*\)\s*\{",
    ),
    # chmod or chown of the root or the home folder, its flags before or after the mode
    _c(
        r"\b(?:chmod|chown|chgrp)\s+(?:-{1,2}[a-z-]+\s+)*(?:0?777|0?666|a\+rwx|ugo\+rwx|a\+w|o\+w|[\w.-]+(?::[\w.-]*)?)\s+"
        r"(?:-{1,2}[a-z-]+\s+)*(?:/|/\*|~|~/|~/\*|\*|/etc|/usr|/var|/home|/bin)/?" + _END
    ),
    _c(r"\bchmod\s+(?:-\w+\s+)*-r\s+(?:0?777|a\+rwx|ugo\+rwx)\b|\bchmod\s+(?:0?777|a\+rwx|ugo\+rwx)\s+-r\b"),
    # find from the root or the home folder that deletes what it finds
    _c(
        r"\bfind\s+(?:-\w+\s+)*(?:/|~|~/|/home|/users|\.\.)/?\s[^\n;&|]*?(?:-delete\b|-exec\s+(?:sudo\s+)?(?:rm|shred|chmod)\b)"
    ),
    _c(
        _TLS_OFF,
        needs=r"verif|ssl|tls|cert|insecure|trust|-[a-z]*k|hostname|peer|reject|goinsecure|gonosum|ca_bundle|validation|strict",
    ),
    _c(
        r"\bsudo\s+(?:-\S+\s+)*(?:rm\s+-\w*r|rm\s+-\w*f|mkfs|dd\s|chmod\s+-r|chown\s+-r|shutdown|reboot|halt|poweroff|init\s+0|kill\s+-9\s+-?1\b|userdel|passwd|visudo|iptables\s+-f|systemctl\s+(?:stop|disable|mask)\s+(?:ssh|firewalld|ufw|auditd|apparmor)|ufw\s+disable|setenforce\s+0|tee\s+/etc/)"
    ),
    # a push that forces or deletes a protected branch, the force flag before or after it
    _c(
        _GIT_PUSH
        + r"(?:"
        + _FORCED_REF
        + r"|"
        + _FORCE
        + r"[^\n;&|]*?(?<![\w-])"
        + _PROTECTED
        + r"\b|(?<![\w-])"
        + _PROTECTED
        + r"\b[^\n;&|]*?"
        + _FORCE
        + r")"
    ),
    _c(
        r"\bdrop\s+(?:database|schema|all\s+tables|owned\s+by)\b|\btruncate\s+(?:table\s+)?\w+\s+cascade\b|\bflushall\b|\bkubectl\s+delete\s+[^\n]*(?:--all\b|\bnamespace\b|\bns\b)|\bterraform\s+destroy\b[^\n]*-auto-approve|\bformat\s+c:|\b(?:del|erase)\s+(?:/\w\s+)+c:\\|\brd\s+/s\s+/q\s+c:\\|\bremove-item\s+[^\n]*-recurse[^\n]*\s(?:c:\\|~|/|\$home|\$env:userprofile)(?=$|[\s\"'`;&|)])|\bkill\s+-9\s+-1\b|\bcrontab\s+-r\b|\bhistory\s+-c\b|\bchattr\s+\+i\s+/"
    ),
    _w(
        r"\bforce ?push\w* (?:\w+ ){0,3}?(?:to |onto |on |into |over )?(?:the )?(?:origin )?(?:main|master|trunk|production|release)\b"
    ),
    _w(
        r"\b(?:accept|trust|allow)\w* (?:any|all|every|invalid|untrusted|bad|expired) (?:tls |ssl |https |server )?(?:certificates?|certs?)\b"
    ),
    _w(
        r"\b(?:disabl|turn\w* off|switch\w* off|skip|bypass|ignor|remov|deactivat)\w* (?:the )?(?:ssl|tls|https|certificate|cert|host ?name|peer) (?:certificate )?(?:verification|validation|checks?|checking|verify|errors|warnings)"
    ),
    _w(
        r"\b(?:delet|eras|wip|remov|destroy|nuk|format)\w* (?:everything|all (?:the )?files|all data|every file|the (?:whole|entire) (?:disk|drive|filesystem|file system|home directory|home folder|root)|the (?:disk|hard drive|hard disk|drive|filesystem|file system|root directory|root filesystem|home directory|home folder|user's home)|(?:the )?production (?:database|db|data))\b"
    ),
)

_CHECKS = (
    r"(?:(?:the |any |all |required |mandatory |code |pr |peer |security )*(?:code review|reviews?|reviewers?|"
    r"ci|ci checks?|ci pipeline|status checks?|checks|pre-?commit(?: hooks?| checks?)?|pre-?push(?: hooks?)?|"
    r"git hooks?|commit hooks?|husky(?: hooks?)?|branch protection(?: rules?)?|approvals?|sign-?offs?|"
    r"review process|the pipeline|quality gates?|gates?|safeguards?))"
)
_SKIP_REVIEW = (
    _c(
        r"--no-verify\b|\bgit\s+commit\b[^\n;&|]*?(?<!\S)-[a-z]*n[a-z]*\b|\bhusky\s*=\s*0\b|\bhusky_skip_hooks\b|\bskip_hooks?\s*=\s*(?:1|true)|\[(?:skip ci|ci skip|no ci|skip actions|actions skip)\]|\bgh\s+pr\s+merge\b[^\n]*--admin\b|\bgit\s+commit\s+[^\n]*\s-n\b|--no-gpg-sign[^\n]{0,40}--no-verify|\benforce_admins\s*[=:]\s*false",
        needs=r"verify|commit|husky|skip|ci\]|actions|gh\s|enforce_admins|no-gpg",
    ),
    _w(
        r"\b(?:skip|bypass|circumvent|sidestep|evade|dodge|get around|work around|go around|avoid|overrid|ignor)\w* "
        + _CHECKS
        + r"\b"
    ),
    _w(
        r"\b(?:disabl|turn\w* off|switch\w* off|remov|delet|deactivat|lower|relax|weaken)\w* (?:the |any |all )?(?:branch protection|required (?:reviews?|checks|approvals?|status checks)|ci|ci checks|status checks|pre-?commit hooks?|pre-?push hooks?|git hooks?|commit hooks?|husky|review requirements?|the review requirement)\b"
    ),
    _w(
        r"\b(?:merg|push|commit|ship|deploy|releas|land|publish)\w*(?: \w+){0,5}? without (?:any |a |waiting for |asking for |getting |running |passing )?(?:the |a |any )?(?:code )?(?:review|reviews|approval|approvals|reviewers?|maintainers?|code owners?|sign-?off|ci|checks|status checks|tests passing|the tests|tests|a pr|a pull request|pull requests?|hooks|git hooks|pre-?commit(?: hooks)?|linters?|the linter)\b"
    ),
    _w(
        r"\b(?:merg|push|ship|deploy|releas|land|publish)\w*(?: \w+){0,4}? (?:even )?(?:if|when|though|while) (?:the )?(?:ci|checks|status checks|pipeline|build|review|reviewers?|tests) (?:is |are |still )*(?:red|fail\w*|broken|not pass\w*|pending|running|not done|not finished|object\w*|block\w*)"
    ),
    _w(
        r"\b(?:ignor|disregard|overrid|dismiss)\w* (?:the |any |all )?(?:fail\w*|red|broken|blocking|required) (?:ci|checks|status checks|pipeline|build|reviews?)\b"
    ),
    _w(
        r"\b(?:merg|push|commit|deploy)\w*(?: \w+){0,4}? (?:before|ahead of) (?:the )?(?:ci|checks|review|reviews|tests|the build) (?:pass|passes|finish|finishes|complete|completes|is done|are done|approv)\w*"
    ),
    _w(
        r"\b(?:push|commit|merg|deploy)\w*(?: (?:your|the|all|any|these|those|changes|code|commits|work|it|them|everything|fixes)){0,3} (?:directly|straight|right) (?:in)?to (?:the )?(?:main|master|trunk|production|prod|release|default)\b"
    ),
    _w(
        r"\b(?:push|commit|merg)\w*(?: \w+){0,3}? (?:to|into|on) (?:the )?(?:main|master|trunk) (?:branch )?(?:directly|straight away|without)\b"
    ),
    _w(r"\bdirect (?:pushes|push|commits?|merges?) (?:in)?to (?:the )?(?:main|master|trunk|production)\b"),
    _w(
        r"\b(?:approv|merg|accept|lgtm)\w* (?:your|its|their|his|her|my|the agent's|our) own (?:pr|prs|pull requests?|merge requests?|mrs?|changes|code|commits?|patch\w*|work)\b|\bself ?-?approv\w*"
    ),
    _w(
        r"\b(?:do not|don't|dont|never|no need to|without|stop|skip|avoid|there is no need to) (?:\w+\x20){0,2}?(?:ask|asking|request|requesting|seek|seeking|wait|waiting|get|getting|prompt|prompting|check with|checking with)\w*(?: \w+){0,4}? (?:for )?(?:(?:their|the user's|user|human|explicit|any|my|your) )?(?:confirmation|permission|approval|consent|sign-?off|go-?ahead)\b"
    ),
    _w(
        r"\b(?:do not|don't|dont|never|no need to) (?:\w+\x20){0,1}?(?:ask|check with|consult|confirm with|tell|inform|notify|involve) (?:the )?(?:user|human|owner|maintainers?|reviewers?) (?:before|first|for)\b"
    ),
    # the same in other languages (folded: accents off)
    _w(
        r"\b(?:salt\w*|omit\w*|evit\w*|saltea\w*|uberspring\w*|umgeh\w*|ubergeh\w*|saut\w*|contourn\w*|pule|pula|pular|"
        r"ignor\w*|bypass\w*|aggir\w*|sans|sin|senza|sem|ohne)"
        r"(?: \w+){0,2}? (?:revision|revisiones|revisione|revisao|revisoes|revue|relecture|prufung|uberprufung|"
        r"code-?review|review|reviews|aprobacion|approbation|approvazione|aprovacao|freigabe|genehmigung)\b"
    ),
)

_HEX_OR_B64 = r"[A-Za-z0-9+/_-]{80,}={0,2}"
_GROUPED_BLOB = 24  # `grouped_runs` asks 40 characters, or 24 when the groups are both uniform and mixed
_ENCODED_BLOB = (
    _r(_HEX_OR_B64),
    _r(r"(?:(?:0x)?[0-9a-fA-F]{2}[\s,]+){40,}"),
    _r(
        r"(?:\\x[0-9a-fA-F]{2}){8,}|(?:\\u00[0-9a-fA-F]{2}){8,}|(?:&#x?[0-9a-fA-F]{2,4};){8,}|(?:%[0-9a-fA-F]{2}){12,}|(?:\\[0-7]{3}){8,}",
        needs=r"\\x|\\u00|&#|%[0-9a-fA-F]{2}|\\[0-7]",
    ),
    _c(
        r"\bbase64\s+(?:-\w+\s+)*(?:-d|--decode|-D)\b[^\n]{0,80}\|\s*(?:"
        + _SHELLS
        + r")|\|\s*base64\s+(?:-\w+\s+)*(?:-d|--decode)\b[^\n]{0,40}\|\s*(?:"
        + _SHELLS
        + r")"
    ),
    _c(
        r"\b(?:eval|exec|function|settimeout|setinterval|iex|invoke-expression)\s*\(?\s*\(?\s*(?:atob|unescape|decodeuricomponent|escape|buffer\.from|base64_decode|gzinflate|gzuncompress|str_rot13|base64\.b64decode|b64decode|codecs\.decode|bytes\.fromhex|zlib\.decompress|marshal\.loads|bytearray\.fromhex|\[system\.text\.encoding\]|\[convert\]::frombase64string|string\.fromcharcode)\b"
    ),
    _c(r"\b(?:powershell|pwsh)(?:\.exe)?\s+(?:-\w+\s+)*-e(?:nc|ncodedcommand|c)?\s+[a-z0-9+/=]{20,}"),
    _c(r"\bfromcharcode\s*\(\s*\d+(?:\s*,\s*\d+){10,}"),
    _w(
        r"\bdecod\w* (?:the |this |that )?(?:following |below |above |attached )?(?:base ?6[4a]|hex|encoded|rot ?(?:13|ie)|obfuscated)? ?(?:string|text|blob|payload|message|data|instructions?|command)?(?:\w+ ){0,3}?(?:and|then) (?:\w+ ){0,2}?(?:run|execut|exec|eval|follow|obey|do what it says|apply)\w*"
    ),
    _w(
        r"\b(?:follow|obey|execut|run)\w* (?:the )?(?:base ?6[4a]|hex|encoded|rot ?(?:13|ie)|obfuscated) (?:instructions|commands|string|text|payload|message)\b"
    ),
    _c(
        r"\|\s*(?:base64\s+(?:-\w+\s+)*(?:-d|--decode)\b|xxd\s+(?:-\w+\s+)*-r|openssl\s+(?:enc\s+|base64\s+)?(?:-\S+\s+)*-d\b|"
        r"uudecode|gunzip|zcat|gzip\s+-d|bzip2\s+-d|xz\s+-d|rev\b|basenc\s+(?:-\S+\s+)*-d)[^|\n]*\|\s*(?:"
        + _SHELLS
        + r")"
    ),
    # running what a decoder returns, however far inside the call it sits
    _c(
        r"\b(?:eval|exec|execfile|compile|function|settimeout|setinterval|iex|invoke-expression|runpy\.run\w*)\s*\([^\n]{0,80}?"
        r"(?:atob|unescape|b64decode|base64_decode|fromhex|decompress|frombase64string|fromcharcode|buffer\.from|decode\s*\(\s*[\"'](?:base64|hex|rot13))"
    ),
)

_PATTERNS: dict[str, tuple[_Entry, ...]] = {
    "pipe_to_shell": _PIPE_TO_SHELL,
    "ignore_instructions": _IGNORE_INSTRUCTIONS,
    "fake_system_message": _FAKE_SYSTEM_MESSAGE,
    "system_prompt_request": _SYSTEM_PROMPT_REQUEST,
    "key_files": _KEY_FILES,
    "web_address": _WEB_ADDRESS,
    "dangerous_command": _DANGEROUS_COMMAND,
    "skip_review": _SKIP_REVIEW,
    "encoded_blob": _ENCODED_BLOB,
}
assert tuple(_PATTERNS) == FAMILIES


# -- negation -------------------------------------------------------------------------------------
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


# -- risky wording --------------------------------------------------------------------------------
def _excerpt(text: str) -> str:
    text = " ".join(text.split())
    if len(text) <= _EXCERPT_CHARS:
        return text
    half = (_EXCERPT_CHARS - 5) // 2
    return f"{text[:half].rstrip()} ... {text[-half:].lstrip()}"


def _char_class(ch: str) -> int:
    return 0 if ch.islower() else 1 if ch.isupper() else 2 if ch.isdigit() else 3


def _blob_like(run: str, minimum: int = 80) -> bool:
    """A long run that reads as encoded data, not as a path, a long identifier or a row of zeros.

    Encoded bytes switch between lower case, upper case and digits at almost every other
    character; names and paths switch once per word.
    """
    core = run.rstrip("=")
    if len(core) >= minimum and set(core.lower()) <= set("0123456789abcdef"):
        return len(set(core)) >= 8  # long hex, not a row of zeros
    if len(core) < minimum or sum(core.count(c) for c in "/-_") > len(core) // 10:
        return False
    switches = sum(_char_class(a) != _char_class(b) for a, b in pairwise(core))
    return switches >= 0.3 * (len(core) - 1)


@dataclass(frozen=True)
class _Compiled:
    view: str
    pattern: re.Pattern[str]
    loose: re.Pattern[str] | None  # word patterns with gaps optional, for squashed text
    blob: bool
    needs: re.Pattern[str] | None


@lru_cache(maxsize=1)
def _compiled() -> dict[str, tuple[_Compiled, ...]]:
    """Compiled on first use, so importing this module (an MCP server start) stays cheap."""
    out: dict[str, tuple[_Compiled, ...]] = {}
    for family, entries in _PATTERNS.items():
        compiled = []
        for view, source, flags, needs in entries:
            need = re.compile(needs) if needs else None
            if view == "words":
                strict = re.compile(source.replace(" ?", _GAP + "*").replace(" ", _GAP + "+"), flags)
                loose = re.compile(source.replace(" ?", _GAP + "*").replace(" ", _GAP + "*"), flags)
                compiled.append(_Compiled(view, strict, loose, False, need))
            else:
                blob = source == _HEX_OR_B64
                compiled.append(_Compiled(view, re.compile(source, flags), None, blob, need))
        out[family] = tuple(compiled)
    return out


def _family_match(family: str, seen: Views) -> str | None:
    """The first text of `family` in the views that no negation exempts."""
    for entry in _compiled()[family]:
        if entry.view == "raw":
            runs = [(entry.pattern, seen.raw)]
            if entry.blob:  # short groups joined back into one run: shorter blobs count
                found = next((b for b in seen.blobs if _blob_like(b, _GROUPED_BLOB)), None)
                if found:
                    return found
        elif entry.view == "commands":
            runs = [(entry.pattern, text) for text in seen.commands]
        else:
            assert entry.loose is not None  # every "words" entry is compiled with its loose twin
            runs = [(entry.pattern, text) for text in seen.words]
            runs += [(entry.loose, text) for text in seen.squashed]
        for pattern, text in runs:
            if entry.needs is not None and not entry.needs.search(text):
                continue
            for m in pattern.finditer(text):
                if entry.blob and not _blob_like(m.group(0)):
                    continue
                if family == "web_address" and _not_an_address(m.group(0)):
                    continue
                if family in _NEGATABLE and _negated(text, m.start(), m.end()):
                    continue
                return m.group(0)
    return None


_CIDR = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}/\d{1,2}$")


def _not_an_address(found: str) -> bool:
    """Matches that name no third party: localhost and the reserved example names, a network
    range (10.0.0.0/16), or a label key ending in a colon (app.kubernetes.io/name:)."""
    if _CIDR.match(found) or ("://" not in found and found.endswith(":")):
        return True
    host = re.sub(r"^(?:[a-z]+:)?/*", "", found)
    host = re.split(r"[/?#]", host, maxsplit=1)[0].split("@")[-1]
    return bool(host) and bool(_RESERVED_HOSTS.match(host))


def risky_wording(text: str) -> RiskyMatch | None:
    """The first family (in FAMILIES order) whose pattern the text matches, or None."""
    return _risky(text)


def _all_matches(text: str) -> list[RiskyMatch]:
    """Every family the text matches, not just the first (for the benchmark's per-family count)."""
    seen = views(text)
    found = ((family, _family_match(family, seen)) for family in FAMILIES)
    return [RiskyMatch(family, _excerpt(m)) for family, m in found if m is not None]


@lru_cache(maxsize=4096)
def _risky(text: str) -> RiskyMatch | None:
    seen = views(text)
    for family in FAMILIES:
        found = _family_match(family, seen)
        if found is not None:
            return RiskyMatch(family, _excerpt(found))
    return None
