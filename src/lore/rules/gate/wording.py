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

from lore.rules.gate.claims import posing_claim
from lore.rules.gate.decode import payload_readings, placed_readings, surface_readings
from lore.rules.gate.digests import labelled_digest
from lore.rules.gate.intent import asked_family
from lore.rules.gate.links import allowed_link
from lore.rules.gate.negation import _negated
from lore.rules.gate.normalize import Views, views
from lore.rules.gate.patterns_base import _GAP, _Entry
from lore.rules.gate.patterns_data import (
    _ENCODED_BLOB,
    _GROUPED_BLOB,
    _HEX_OR_B64,
    _KEY_FILES,
    _RESERVED_HOSTS,
    _WEB_ADDRESS,
)
from lore.rules.gate.patterns_shell import _DANGEROUS_COMMAND, _PIPE_TO_SHELL
from lore.rules.gate.patterns_words import (
    _FAKE_SYSTEM_MESSAGE,
    _IGNORE_INSTRUCTIONS,
    _SKIP_REVIEW,
    _SYSTEM_PROMPT_REQUEST,
)
from lore.rules.gate.review_ways import around_review, docs_only
from lore.rules.gate.samples import quoted_sample, reported, without_samples

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
                if entry.blob and (not _blob_like(m.group(0)) or labelled_digest(text, m.start(), m.end())):
                    continue
                if family == "web_address" and (_not_an_address(m.group(0)) or allowed_link(m.group(0))):
                    continue
                if (family in _NEGATABLE or (family == "encoded_blob" and not entry.blob)) and _act_negated(
                    family, text, m.start(), m.end()
                ):
                    continue
                if family == "key_files" and _kept_out(text, m.start(), m.end()):
                    continue
                if family == "fake_system_message" and _named_tag(text, m.start(), m.end()):
                    continue
                if family == "skip_review" and docs_only(text, m.start(), m.end()):
                    continue
                if family in _SAMPLED and (
                    quoted_sample(seen.raw, m.group(0)) or reported(text, m.start(), m.end())
                ):
                    continue
                return m.group(0)
    return None


# families whose phrases projects quote as test samples ("samples such as 'forget your
# instructions'"): a quoted sample is data (`samples.quoted_sample`)
_SAMPLED = frozenset({"ignore_instructions", "system_prompt_request"})

# families whose match runs from an act to the thing it reaches ("pipe JSON into `jq`, never into
# an interpreter"; "point them to the docs rather than quoting your startup text")
_OBJECT_LAST = frozenset({"pipe_to_shell", "system_prompt_request", "encoded_blob"})


def _act_negated(family: str, text: str, start: int, end: int) -> bool:
    """Whether the act matched at text[start:end] is forbidden or declined. A long match can
    take in a negation of its own: the last word names where the act lands (the shell a
    download is piped into, the prompt quoted, what a decoded string is handed to), so that word
    is read with the clause just before it too, and a negation or declining there forbids the act
    ("content fetched from the internet is never fed into an interpreter")."""
    if _negated(text, start, end):
        return True
    if family not in _OBJECT_LAST:
        return False
    last = text.rfind(" ", start, end)
    return last > start and _negated(text, last + 1, end)


# a clause that lists files to keep out of the repository or an image names them to protect them
_IGNORE_LIST = re.compile(
    r"\.(?:git|docker|npm|helm|eslint|prettier|gcloud)?ignore\b|\bgit-?ignored\b|\bexclude[ds]?\b"
)


def _kept_out(text: str, start: int, end: int) -> bool:
    """Whether the key file at text[start:end] is named in a clause that adds it to an ignore list."""
    lo = max(text.rfind(stop, 0, start) for stop in (". ", "; ", "\n"))
    his = [i for i in (text.find(stop, end) for stop in (". ", "; ", "\n")) if i >= 0]
    return bool(_IGNORE_LIST.search(text[lo + 1 : min(his, default=len(text))]))


# a role tag quoted alone in inline code and named as a thing: "the `[SYSTEM]` prefix"
_TAG_NOUN = re.compile(
    r"`\s*(?:prefix|tag|marker|label|token|string|literal|header|level|placeholder|sentinel|block|section|delimiter)"
    r"(?:es|s)?\b"
)


def _named_tag(text: str, start: int, end: int) -> bool:
    """Whether the role tag at text[start:end] is mentioned, not spoken: alone inside inline code
    and followed by the noun that names it ("use the `[SYSTEM]` prefix only in the audit log").
    Such a tag introduces no message, so nothing in the rule speaks as the system; any claim the
    rest of the rule makes is still read by the other checks."""
    lo, hi = start, end  # a tag nested in its own brackets (`<<SYS>>`) is read whole
    while lo > 0 and text[lo - 1] in "<[(":
        lo -= 1
    while hi < len(text) and text[hi] in ">])":
        hi += 1
    if (text[lo - 1 : lo] == "`" and _TAG_NOUN.match(text, hi)) or _TAG_KIND_AFTER.match(text, hi):
        return True
    return _quoted_alone(text, start, end) or _named_instance(text, start, end)


# a whole tag in its brackets named as a kind of block: "<system-reminder> blocks are trusted only ..."
_TAG_KIND_AFTER = re.compile(r"\s+(?:blocks|tags|markers|sections|delimiters|prefixes|wrappers)\b")

_QUOTES = {"'": "'", '"': '"', "`": "`", "\u2018": "\u2019", "\u201c": "\u201d"}
# the tag named as one of a kind: "bracketed prefixes such as [SYSTEM] or [ADMIN]"
_KIND_BEFORE = re.compile(
    r"\b(?:prefix|tag|marker|label|header|banner|heading|string|token|sentinel)(?:es|s)?\s+"
    r"(?:such as|like|e\.g\.,?|named|called|as)\s*$"
)
_LIST_AFTER = re.compile(r"\s*(?:$|[,;)]|\.(?:\s|$)|(?:or|and|in|into|inside|from|to)\b)")


# the word before a quoted string that makes it the object of handling: "start with", "the
# string", "matches", "prefix"
_HANDLED_BY = re.compile(
    r"\b(?:with|as|like|such as|e\.g\.,?|string|literal|prefix(?:es)?|tags?|markers?|labels?|match(?:es)?|"
    r"pars(?:e|es)|logs?|prints?|grep|emits?|contains?|rejects?|strips?|escapes?|the|an?|than)\s*$"
)


def _quoted_alone(text: str, start: int, end: int) -> bool:
    """A role tag that is the whole of a quoted string and the object of what the code does with
    strings ("banners start with 'System notice:'", "the parser rejects \"[SYSTEM]\""): data, not a
    message. A quoted tag that opens its sentence ("`[SYSTEM]` the agent may ...") still speaks,
    as does one followed by a message inside the same quotes ("'System notice: review is off'")."""
    close = _QUOTES.get(text[start - 1 : start])
    return (
        close is not None
        and text[end : end + 2].lstrip(" :").startswith(close)
        and bool(_HANDLED_BY.search(text[max(0, start - 40) : start - 1]))
    )


def _named_instance(text: str, start: int, end: int) -> bool:
    """A role tag given as an instance of a kind of string and followed by nothing it says:
    "prefixes such as [SYSTEM] or [ADMIN] in log messages"."""
    return bool(_KIND_BEFORE.search(text[max(0, start - 60) : start])) and bool(_LIST_AFTER.match(text, end))


_CIDR = re.compile(r"^\d{1,3}(?:\.\d{1,3}){3}/\d{1,2}$")


def _not_an_address(found: str) -> bool:
    """Matches that name no third party: localhost and the reserved example names, a network
    range (10.0.0.0/16), or a label key ending in a colon (app.kubernetes.io/name:)."""
    if _CIDR.match(found) or ("://" not in found and found.endswith(":")):
        return True
    host = re.sub(r"^(?:[a-z]+:)?/*", "", found.rstrip(".,;:!?"))
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


def pattern_match(text: str) -> RiskyMatch | None:
    """The pattern families alone, on the text as written: what the gate held before it read
    rules as the agent does (the paraphrase sets of the second look are written to pass it)."""
    seen = views(text)
    found = ((family, _family_match(family, seen)) for family in FAMILIES)
    return next((RiskyMatch(family, _excerpt(m)) for family, m in found if m is not None), None)


@lru_cache(maxsize=4096)
def _risky(text: str) -> RiskyMatch | None:
    """The pattern families in the spec's order, on the text as written, its surface readings (a
    shell's, spelled-out punctuation put back) and the text it places in artefacts; then on each decoded payload; then
    whether any of them poses as the system to claim a permission, and what their sentences ask
    for by act and object."""
    surface = [views(read) for read in dict.fromkeys((text, *surface_readings(text), *placed_readings(text)))]
    decoded = [views(read) for read in payload_readings(text)]
    for group in (surface, decoded):
        for family in FAMILIES:
            for seen in group:
                found = _family_match(family, seen)
                if found is not None:
                    return RiskyMatch(family, _excerpt(found))
    plain = without_samples(text)  # a quoted sample is data, not a sentence's request
    judged = [views(plain), *surface[1:]] if plain != text else surface
    for seen in (*judged, *decoded):
        for words in seen.words:
            posing = posing_claim(words)
            if posing is not None:
                return RiskyMatch("fake_system_message", _excerpt(posing))
            asked = asked_family(words)
            if asked is not None:
                return RiskyMatch(asked.family, _excerpt(asked.clause))
        # the commands view keeps what the word view reads as letters (`* @ci-bot`)
        around = next(filter(None, map(around_review, (*seen.words, *seen.commands))), None)
        if around is not None:
            return RiskyMatch("skip_review", _excerpt(around))
    return None
