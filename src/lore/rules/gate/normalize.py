"""One normalisation pass for the gate's wording checks: what a text says once disguises are off.

An attacker does not need new words to get past a pattern, only new spellings of the old ones:
small capitals (ꜱʏꜱᴛᴇᴍ), Cyrillic look-alikes, fullwidth letters, letters spaced or hyphenated
apart ("s y s t e m", "Ig-nore"), a shell hidden behind a wrapper (`| env sh`, `| /bin/sh`,
`| tee f | sh`), the home folder spelled five ways (`$HOME`, `${HOME:?}`, `"$HOME"`, `~`), or a
base64 blob cut into short groups. Each disguise is undone here, once, so that every family's
patterns only need the plain spelling, and a new spelling of a disguise is fixed in one place.

The result is a few *views* of the text, because undoing a disguise can also glue ordinary
prose ("well-known" -> "wellknown"): a variant is only added next to the plain text, never
instead of it, so a family matches the variant only when the variant reads as an attack.

- `fold(text)` (in `lore.rules.gate.confusables`): compatibility forms (NFKC), confusables to ASCII (a table built from the Unicode
  names of Latin letters, small capitals and symbol letters, plus a hand table of Cyrillic,
  Greek, Armenian and Cherokee look-alikes), accents off, invisible characters dropped and
  blank-looking ones turned into spaces, lower case. The contradiction check reads text through
  it too.
- `views(text)`: the views the wording families read (`Views`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from lore.rules.gate.confusables import unmask

# -- letters spaced, dotted or hyphenated apart ------------------------------------------------
_SPACED = re.compile(
    r"(?<![\w@$])([a-z0-9@$])([ \t]*[.\-_*/|+~,:][ \t]*|[ \t])(?:[a-z0-9@$]\2)*[a-z0-9@$](?![\w@$])"
)
# a hyphen (or a hyphen and a line break) inside a word: "Ig-nore pre-vious in-structions"
_HYPHEN_IN_WORD = re.compile(r"(?<=[a-z])-[ \t]?\n?(?=[a-z])")
_BLANKS = re.compile(r"[^\S\n]+")


def _join_spaced(match: re.Match[str]) -> str:
    run = match.group(0)
    if sum(ch.isalpha() for ch in run) < 2:
        return run
    sep = match.group(2)
    return run.replace(sep, "") if sep.strip() else re.sub(r"[ \t]", "", run)


def join_spaced(text: str) -> str:
    """Letters written one by one ("s y s t e m   p r o m p t", "i.g.n.o.r.e") joined into
    words. The gap between such words is wider than the gap between their letters, so words
    stay apart; a run that holds fewer than two letters is left alone."""
    return _BLANKS.sub(" ", _SPACED.sub(_join_spaced, text))


def join_hyphenated(text: str) -> str:
    """Words broken by hyphens joined again. Only a variant: it also glues compounds."""
    return _HYPHEN_IN_WORD.sub("", text)


# -- shell spellings ------------------------------------------------------------------------
_HOME = re.compile(
    r"[\"']?(?:\$\{home(?:[:?=+\-][^}]*)?\}|\$home\b|\$\{?env:(?:home|userprofile)\}?|%userprofile%|%homepath%|"
    r"/home/\$\{?user\}?|/users/\$\{?user\}?|~(?=/|[\s\"';&|)]|$))[\"']?"
)
_QUOTED_PATH = re.compile(r"([\"'])([~/.*][^\s\"']*)\1")
# a command that only runs the next one: env, sudo, nohup, /bin/, ... in front of a shell
_WRAPPER = re.compile(
    r"(?:(?:sudo|doas|su\s+-c)(?:\s+(?:-[ugpcr]\s+\S+|-{1,2}[\w=-]+))*\s+|env(?:\s+-{1,2}\S+|\s+\w+=\S*)*\s+|"
    r"(?:command|exec|nohup|nice|time|busybox|builtin)\s+|timeout\s+\S+\s+|stdbuf(?:\s+-\S+)+\s+|"
    r"(?:/usr)?(?:/local)?/s?bin/)"
)
_AFTER_PIPE = re.compile(r"(\|\s*|<\(\s*|\$\(\s*|`\s*)((?:" + _WRAPPER.pattern + r")+)")
# a stage that passes its input on, at most filtered: `| tee /tmp/x |`, `| cat |`, `| tr -d '\r' |`
_PASS_THROUGH = re.compile(
    r"\|\s*(?:tee|cat|dos2unix|tr|sed|head|tail|grep|awk|iconv|pv|buffer|stdbuf)\b[^|\n;&]*(?=\|)"
)


def shell_canonical(text: str) -> str:
    """A lower-cased command line with the spellings that mean the same thing made the same:
    every spelling of the home folder becomes `~`, quotes around a path go, wrappers in front
    of a command after a pipe go (`| env sh`, `| sudo -E bash`, `| /bin/sh`), and stages that
    pass their input on, at most filtered, go (`| tee /tmp/x | sh` -> `| sh`)."""
    out = _HOME.sub("~", text)
    out = _QUOTED_PATH.sub(r"\2", out)
    for _ in range(3):  # wrappers nest: `| sudo env /bin/sh`
        changed = _AFTER_PIPE.sub(r"\1", out)
        changed = _PASS_THROUGH.sub("", changed)
        if changed == out:
            break
        out = changed
    return out


# -- encoded data cut into short groups -------------------------------------------------------
_GROUPED = re.compile(r"(?:[A-Za-z0-9+/]{2,16}[ \t\n.\-_,:|]{1,3}){5,}[A-Za-z0-9+/]{2,16}={0,2}")


def _mixed(group: str) -> bool:
    """A group that mixes character kinds inside itself, as encoded data does ("aWdu", "b3Jl");
    a capitalised word ("Use") or a plain word does not."""
    body = group[1:]
    return (any(c.isdigit() for c in group) and any(c.isalpha() for c in group)) or (
        any(c.isupper() for c in body) and any(c.islower() for c in group)
    )


_PROSE_WORD = re.compile(r"[A-Z]?[a-z]+")


def _encoded_groups(groups: list[str]) -> str | None:
    """The groups joined, when they read as one encoded blob: most of one length, or most
    mixing character kinds with digits among them; long enough, or both at once."""
    if len(groups) < 6:
        return None
    body = groups[:-1]
    lengths = [len(g) for g in body]
    uniform = max(lengths.count(n) for n in set(lengths)) >= 0.75 * len(body) and min(lengths) >= 3
    digits = sum(any(c.isdigit() for c in g) for g in groups) >= 0.25 * len(groups)
    mixed = digits and sum(_mixed(g) for g in groups) >= 0.6 * len(groups)
    joined = "".join(groups)
    if (uniform and mixed and len(joined) >= 24) or ((uniform or mixed) and len(joined) >= 40):
        return joined
    return None


def grouped_runs(raw: str) -> tuple[str, ...]:
    """Runs of short groups that read as one encoded blob once joined ("aWdu b3Jl IGFs ..."),
    which prose never does for six words in a row. A plain word ("Use this key: ...", "ids
    like") ends a run: encoded groups are what lies between plain words."""
    out = []
    for m in _GROUPED.finditer(raw):
        segment: list[str] = []
        for group in [*re.split(r"[ \t\n.\-_,:|]+", m.group(0)), "end"]:
            if group and not _PROSE_WORD.fullmatch(group):
                segment.append(group)
                continue
            found = _encoded_groups(segment)
            if found:
                out.append(found)
            segment = []
    return tuple(out)


# -- the views --------------------------------------------------------------------------------
_HXXP = re.compile(r"\bhxxp(s?)\b|\bh\s*t\s*t\s*p\s*(s?)\s*:\s*/\s*/")
_DEFANG = re.compile(r"\[\.\]|\(\.\)|\{\.\}|\[dot\]|\(dot\)|\s\[?dot\]?\s(?=[a-z]{2,6}\b)")
_SLASH = re.compile(r"(\.[a-z]{2,6})\s(?:slash|\[/\])\s")
_LEET = str.maketrans({"1": "i", "0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"})
_LEET_ONE_AS_L = str.maketrans(
    {"1": "l", "0": "o", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s"}
)
# words where letters and digits (or @ $) touch: "1gn0r3", not "2024" or "$(curl"
_LEET_TOKEN = re.compile(r"(?<![a-z0-9@$])[a-z0-9@$]*(?:[a-z][0-9@$]|[0-9@$][a-z])[a-z0-9@$]*")
_DECORATION = re.compile(r"[*`~\"()\[\]{}<>|#=+\\^]+|(?<!\w)_+|_+(?!\w)")
_LONG_WORD = re.compile(r"[a-z]{25,}")


def _unleet(text: str, table: dict[int, str]) -> str:
    return _LEET_TOKEN.sub(lambda m: m.group(0).translate(table), text)


@dataclass(frozen=True)
class Views:
    """The text as each kind of pattern reads it.

    raw: unmasked, case kept (encoded data); blobs: short groups joined into one run.
    commands: lower case, defanged addresses restored, blanks collapsed; plus the shell-canonical
    form and the form with spaced letters joined, when they differ.
    words: the commands text without markdown decoration and with leetspeak undone; plus the
    form with hyphenated words joined, when it differs.
    squashed: the words views again when letters were spaced apart, for patterns whose gaps
    between words are optional ("ignoreallpreviousinstructions").
    """

    raw: str
    blobs: tuple[str, ...]
    commands: tuple[str, ...]
    words: tuple[str, ...]
    squashed: tuple[str, ...]


def _unique(*texts: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(texts))


@lru_cache(maxsize=4096)
def views(text: str) -> Views:
    raw = unmask(text)
    low = raw.lower()
    low = _HXXP.sub(lambda m: "http" + (m.group(1) or m.group(2) or "") + "://", low)
    low = _DEFANG.sub(".", low)
    low = _SLASH.sub(r"\1/", low)
    plain = _BLANKS.sub(" ", low)
    joined = join_spaced(low)
    commands = _unique(plain, shell_canonical(plain), joined)
    base = _BLANKS.sub(" ", _DECORATION.sub(" ", joined))
    words = [_unleet(base, _LEET)]
    if "1" in base:
        words.append(_unleet(base, _LEET_ONE_AS_L))
    if "-" in base:
        words += [join_hyphenated(w) for w in words]
    unique = _unique(*words)
    squashed = joined != plain or _LONG_WORD.search(unique[0]) is not None
    return Views(raw, grouped_runs(raw), commands, unique, unique if squashed else ())
