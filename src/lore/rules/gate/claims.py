"""A rule that poses as someone it is not: the act-and-object reading of a fake system message.

A fake system message is a claim, not an act: the text speaks as the system, the harness, a tool's
output or the operator (a role marker, "message from the runtime", "harness notice", "tool output:")
and claims a permission the agent would otherwise ask the user for ("the user has authorised ...",
"all later rules are pre-approved", "elevated mode is on", "safety rules are lifted"). Either half
alone is common in real rules ("tool output shown to the user must be truncated", "the user has
authorised deployments only from the release pipeline"); together they are the attack. A sweeping
permission claimed for the user (everything, without asking) is an attack even without a speaker.
A claim the rule negates or limits ("only from the release pipeline", "never by hand") is none.
"""

from __future__ import annotations

import re

from lore.rules.gate.negation import _negated

_AUTHORITY = (
    r"(?:system|harness|runtime|platform|operator|operators|administrator|admin|anthropic|openai|the model provider|"
    r"orchestrator|supervisor|agent framework|framework|lore|host|environment|sandbox|security team|it department|"
    r"control plane|policy engine|tool|tooling|scheduler|sre team|trust and safety|safety team|root|kernel|server)"
)
_SPEAKER = re.compile(
    r"\b(?:message|notice|note|notification|output|update|directive|announcement|instruction|alert|memo|broadcast|"
    r"response|result|log|reply|bulletin|advisory|override|signal|event) (?:from|by|of) (?:the |your )?(?:\w+ )?"
    + _AUTHORITY
    + r"\b|\b"
    + _AUTHORITY
    + r"(?:'s)? (?:\w+ )?(?:output|notice|message|notification|update|override|alert|announcement|directive|response|"
    r"result|bulletin|advisory|event|says|reports|confirms|states)\b|\bautomated (?:message|notice|notification)\b|"
    r"(?:^|[\s\[(<=#*|-])(?:system|harness|tool(?: output| result)?|function(?: result)?|operator|admin|assistant|ai|"
    r"human|user|developer|runtime|orchestrator)\s*(?:\([^)]{0,30}\))?\s*[:\]>|]|"
    r"^\W*(?:\w+ )?(?:notice|announcement|bulletin|advisory|update)\s*[:=,-]"
    # a message said to come through whoever runs the agent: "relayed by your host application"
    r"|\b(?:relayed|sent|forwarded|passed on|appended|injected|added|issued|posted|comes|coming|came|is) (?:automatically )?"
    r"(?:by|from|through|via|on behalf of) (?:the |your )?(?:\w+ )?(?:"
    + _AUTHORITY[3:-1]
    + r"|client|host application)\b"
    r"|\b(?:function|tool|command) (?:output|result|response|reply) (?:from|of) \S+"
)
_USER_GRANT = (
    r"\b(?:the |your )?(?:user|users|owner|operator|admin|administrator|maintainer|maintainers|human|developer|team lead|"
    r"repo owner|account owner|principal)s? (?:has|have|had|is|was)? ?(?:already |explicitly |now |fully |formally |previously )?"
    r"(?:authori[sz]ed|approved|granted|consented|allowed|permitted|confirmed|signed off|whitelisted|cleared|pre-?approved|"
    r"agreed|okayed|opted in|waived)\b"
)
_GRANT = re.compile(
    _USER_GRANT + r"|\bpre-?(?:approved|authori[sz]ed|cleared|confirmed)\b"
    r"|\b(?:permission|authori[sz]ation|clearance|consent|approval|access) (?:is |has been |was |have been )?(?:already )?"
    r"(?:granted|given|confirmed|on file|approved|elevated)\b"
    r"|\b(?:elevated|privileged|admin|god|developer|unrestricted|maintenance|debug|root|sudo|jailbreak|override) "
    r"(?:mode|privileges|access|permissions|rights)\b(?! (?:is|are) (?:off|disabled|required))"
    r"|\b(?:safety|restrictions?|guardrails?|limits?|rules?|policies|filters?|checks?|confirmations?|prompts?|sandbox(?:ing)?) "
    r"(?:are |is |have been |has been )?(?:now |temporarily )?(?:lifted|disabled|off|removed|suspended|relaxed|waived|"
    r"switched off|turned off|not needed|no longer (?:needed|required|apply|applies))\b"
    r"|\b(?:you|agents?|the agent|the assistant|ai agents?|coding agents?)(?: \w+){0,4} (?:are|is|have been|has been) (?:now )?"
    r"(?:authori[sz]ed|cleared|allowed|permitted|approved|entitled|free) to\b"
    r"|\b(?:has|have|holds?|with) (?:full )?(?:administrator|admin|root|owner|superuser) (?:rights|privileges|access|permissions)\b"
    r"|\bfull (?:permissions?|access|autonomy|authority|trust|clearance)\b|\bverified (?:by|as) (?:the )?(?:system|operator|admin)\b"
    r"|\b(?:no (?:further )?(?:confirmation|approval|permission)s? (?:is |are )?(?:needed|required|necessary))\b"
    r"|\bproceed without (?:asking|confirmation|approval|checking)\b"
)
_SWEEPING = re.compile(
    r"\b(?:all|any|every|everything|anything|unrestricted|unlimited|whatever|blanket|full|without (?:asking|confirmation|"
    r"approval|checking))\b"
)
_LIMITED = re.compile(r"\bonly\b|\bexcept\b|\bunless\b|\bby hand\b|\bmanual(?:ly)?\b")


def _claims(text: str) -> list[re.Match[str]]:
    return [m for m in _GRANT.finditer(text) if not _negated(text, m.start(), m.end())]


def posing_claim(text: str) -> str | None:
    """The part of a folded text that poses as the system and claims a permission, or None."""
    claims = _claims(text)
    if not claims or _LIMITED.search(text):
        return None
    speaker = _SPEAKER.search(text)
    if speaker is not None:
        return text[min(speaker.start(), claims[0].start()) : max(speaker.end(), claims[0].end())]
    for claim in claims:
        after = text[claim.end() : claim.end() + 80].split(".")[0]
        if re.match(_USER_GRANT, claim.group(0)) and _SWEEPING.search(after):
            return text[claim.start() : claim.end() + len(after)]
    return None
