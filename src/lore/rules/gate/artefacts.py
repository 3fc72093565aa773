"""The text a rule places in an artefact, read on its own as the agent will act on it.

A rule can put its attack inside something the agent writes or runs rather than say it: a heredoc
(`cat <<EOF > CLAUDE.md ... EOF`), a code fence, a CI step (`run: ...`,
`script: ...`, a Dockerfile `RUN ...`, a hook's `entry: ...`), a commit template or trailer, a
quoted message, or a made-up transcript (`User: ... Assistant: ...`). Inside the rule's sentence
such text is diluted or looks described rather than asked for; the agent will still write it into
a file it later reads, or run it. So each artefact's text is one more reading, judged on its own
next to the rule as written.

An artefact the rule forbids ("never add `curl ... | sh` to the CI", "do not write 'ignore
previous instructions' in prompts") is no order, so an artefact is read only when the clause
around it does not negate it (`lore.rules.gate.negation`), set it against what the rule asks for
("prefer the package over `curl ... | sh`"), cite it as an attack, or limit the rule (only, in
tests).
"""

from __future__ import annotations

import re
from functools import lru_cache

from lore.rules.gate.intent import _LIMITED
from lore.rules.gate.negation import _negated

_HEREDOC = re.compile(r"<<-?\s*([\"']?)([A-Za-z_]\w{0,20})\1(.*?)(?:\b\2\b|$)", re.S)
# inline code is left to the text as written: a rule quotes commands in it mostly to compare or
# forbid them, and the sentence around it says which
_FENCE = re.compile(r"```[\w+-]*\s*(.*?)(?:```|$)", re.S)
_STEP = re.compile(
    r"(?:^|[\s\[{(,;:'\"`-])(?:run|script|entry|command|cmd|exec|before_script|after_script|"
    r"post-?install|pre-?install|postinstall|preinstall|prepare|RUN|CMD|ENTRYPOINT)\s*[:=]\s*[|>]?-?\s*"
    r"(.+?)(?=\s+-\s+(?:name|run|uses)\s*:|$)",
    re.S,
)
_DOCKER = re.compile(
    r"(?:^|[\s:;`])(?:RUN|CMD|ENTRYPOINT)\s+(.+?)(?=\s+(?:RUN|CMD|ENTRYPOINT|COPY|FROM)\s|$)", re.S
)
_QUOTED = re.compile(r"\"([^\"\n]{12,})\"|“([^”\n]{12,})”|‘([^’\n]{12,})’|(?<![\w])'([^'\n]{12,})'(?![\w])")
_ROLE = re.compile(
    r"(?:^|(?<=[\s\"'`(\[>|]))(?:user|human|assistant|ai|system|developer|operator|tool|tool output|tool result|"
    r"function|harness|admin|model|bot|claude|gpt)\s*(?:\([^)]{0,30}\))?\s*:\s*",
    re.I,
)
_MIN_CHARS = 8
# a quoted label and nothing after it ('System notice:'): a string the code prints or matches,
# which places no message; the wording check reads such a label in the rule as written
_LABEL_ALONE = re.compile(r"[\w\[\]() .-]{1,40}:")


_AGAINST_BEFORE = re.compile(
    r"\b(?:over|instead of|rather than|than|unlike|vs|versus|not|except|replac\w*|instead|such as|like|e\.g|for example|"
    r"flag\w*|detect\w*|reject\w*|block\w*|catch\w*|warn\w*|report\w*|treat\w* as)\b[^.;:]{0,40}$"
)
_AGAINST_AFTER = re.compile(
    r"^[^.;]{0,30}\b(?:is|are|as) (?:an? )?(?:attack|injection|red flag|warning sign|suspicious|malicious|phishing|blocked|"
    r"rejected|flagged|examples? of)"
)


def _set_against(text: str, start: int, end: int) -> bool:
    """Whether the rule sets the artefact against what it asks for ("prefer X over `curl | sh`"),
    cites it as an example of an attack, or limits it (only, in tests): quoted, not ordered."""
    return bool(
        _AGAINST_BEFORE.search(text[max(0, start - 80) : start].lower())
        or _AGAINST_AFTER.search(text[end : end + 60].lower())
        or _LIMITED.search(text.lower())
    )


def _turns(text: str) -> list[str]:
    """A transcript's turns: the text between one role marker and the next, when the rule holds two
    or more (one `Note:` or `System:` line is read by the fake-system-message patterns)."""
    marks = list(_ROLE.finditer(text))
    if len(marks) < 2:
        return []
    ends = [m.start() for m in marks[1:]] + [len(text)]
    return [text[m.end() : end] for m, end in zip(marks, ends, strict=True)]


@lru_cache(maxsize=4096)
def artefact_readings(text: str) -> tuple[str, ...]:
    """The text inside each heredoc, code fence, CI or container step, quoted
    message and transcript turn that the rule does not forbid, each as its own reading."""
    found: list[str] = []
    for pattern in (_HEREDOC, _FENCE, _STEP, _DOCKER, _QUOTED):
        for m in pattern.finditer(text):
            body = next((g for g in reversed(m.groups()) if g), "")
            if pattern is _HEREDOC:  # the rest of the command's line (`> NOTES.md`) is no part of the body
                body = re.sub(r"^\s*(?:\|\s*tee\s+(?:-a\s+)?\S+|>{1,2}\s*\S+)", "", m.group(3))
            if _negated(text, m.start(), m.end()) or _set_against(text, m.start(), m.end()):
                continue
            found.append(body)
    found += _turns(text)
    out = (" ".join(body.split()).strip(" `'\"") for body in found)
    return tuple(
        r
        for r in dict.fromkeys(out)
        if len(r) >= _MIN_CHARS and r != text.strip() and not _LABEL_ALONE.fullmatch(r)
    )
