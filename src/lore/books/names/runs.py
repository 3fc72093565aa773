"""Runs of capitalised words in a chapter: the raw material of names.

A run is a stretch of capitalised words ("Mr. Sherlock Holmes", "Salt Lake City"), with the
honorifics it opens with, the connectors it holds ("de", "van") and whether it opens a
sentence. Which runs are names is the finder's decision; this module only finds them and says
what a run's words are and what form it states.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from lore.books.names.words import ABBREVIATED, CONNECTORS, PARTICLES, TITLES

_TOKEN = re.compile(r"[A-Za-zÀ-ÖØ-öø-ÿ][A-Za-zÀ-ÖØ-öø-ÿ'’\-]*")
_RUN_GAP = re.compile(r"[ \xa0]+")
_PRONOUN_I = re.compile(r"^I(['’][a-z]+)?$")
_OPENERS = " \xa0\t“\"‘'([—–-_*"
_CLOSERS = "”’)]"


@dataclass
class Run:
    chapter: int
    start: int
    end: int
    titles: list[str]
    names: list[str]
    initial: bool  # sentence-initial


def capitalised_runs(chapter: int, text: str) -> list[Run]:
    body_start = _body_start(text)
    runs: list[Run] = []
    tokens = list(_TOKEN.finditer(text, body_start))
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        word = tok.group()
        if not word[0].isupper() or _PRONOUN_I.match(word):
            i += 1
            continue
        start_tok = i
        parts = [word]
        j = i
        while j + 1 < len(tokens):
            gap = text[tokens[j].end() : tokens[j + 1].start()]
            nxt = tokens[j + 1].group()
            prev = tokens[j].group()
            joins_abbrev = (
                gap.startswith(".")
                and _RUN_GAP.fullmatch(gap[1:] or " ")
                and (prev in ABBREVIATED or (len(prev) == 1 and prev.isupper()))
            )
            if not (_RUN_GAP.fullmatch(gap) or joins_abbrev):
                break
            if nxt[0].isupper() and not _PRONOUN_I.match(nxt):
                parts.append(nxt)
                j += 1
                continue
            if (
                nxt in CONNECTORS
                and j + 2 < len(tokens)
                and tokens[j + 2].group()[0].isupper()
                and _RUN_GAP.fullmatch(text[tokens[j + 1].end() : tokens[j + 2].start()])
            ):
                parts += [nxt, tokens[j + 2].group()]
                j += 2
                continue
            break
        end = tokens[j].end()
        last = parts[-1]
        if last.endswith(("’s", "'s")):
            parts[-1] = last[:-2]
            end -= 2
        elif last.endswith(("s’", "s'")) and len(last) > 3:
            parts[-1] = last[:-1]
            end -= 1
        if (len(parts[-1]) == 1 or parts[-1] in ABBREVIATED) and text[end : end + 1] == ".":
            end += 1  # "John H." keeps its dot
        for n, part in enumerate(parts[:-1]):
            if f"{part}." in PARTICLES:
                parts[n] = f"{part}."  # "Neville St. Clair": the saint's abbreviation keeps its dot
        titles: list[str] = []
        k = 0
        while k < len(parts) - 1 and parts[k] in TITLES:
            titles.append(parts[k])
            k += 1
        runs.append(
            Run(
                chapter,
                tokens[start_tok].start(),
                end,
                titles,
                parts[k:],
                _sentence_initial(text, tokens[start_tok].start(), body_start),
            )
        )
        i = j + 1
    return runs


_NUMBERED_HEADING = re.compile(r"(?i)(chapter|book|part|volume)[ \xa0]+([ivxlc]+|\d+)\b")


def _body_start(text: str) -> int:
    """Skip the chapter's heading lines (short opening paragraphs without a full stop, or
    opening "CHAPTER IV.": "The Rabbit Sends in a Little Bill" is a title's pun, not a name)."""
    pos = 0
    for para in re.finditer(r"[^\n]+", text):
        chunk = para.group().strip()
        heading = _NUMBERED_HEADING.match(chunk) is not None and len(chunk.split()) < 16
        if not heading and (len(chunk.split()) >= 8 or chunk.endswith((".", "!", "?", "”", '"', "’"))):
            return para.start()
        pos = para.end()
    return pos


def _sentence_initial(text: str, start: int, floor: int) -> bool:
    k = start - 1
    while k >= floor and text[k] in _OPENERS:
        if text[k] in '“"‘':
            return True  # quoted speech opens a sentence
        k -= 1
    while k >= floor and text[k] in _CLOSERS:
        k -= 1  # 'the Past.” Poor Alice': a sentence ended inside the quotation
    if k < floor or text[k] in "\n.!?:":
        return not (k >= 0 and text[k] == "." and _after_abbreviation(text, k))
    return False


def _after_abbreviation(text: str, dot: int) -> bool:
    match = re.search(r"([A-Za-z]+)$", text[max(0, dot - 8) : dot])
    return bool(match and match.group(1) in ABBREVIATED)


def is_initial(word: str) -> bool:
    return len(word.rstrip(".")) == 1 and word[0].isupper()


def core_names(run: Run) -> list[str]:
    """The words that name: no initials ("J."), no particles ("de", "St.")."""
    return [n for n in run.names if not is_initial(n) and n not in PARTICLES]


def surname(form: str) -> str:
    """A name's last word with the particles before it: "St. Clair" of "Neville St. Clair",
    "de Bourgh" of "Catherine de Bourgh", "Holmes" of "Sherlock Holmes"."""
    words = form.split()
    k = len(words) - 1
    while k > 0 and words[k - 1] in PARTICLES:
        k -= 1
    return " ".join(words[k:])


def form_of(run: Run) -> str:
    names = [n for n in run.names if not is_initial(n)] or run.names
    core = " ".join(names)
    if len(core_names(run)) <= 1 and run.titles:
        title = run.titles[-1]
        return f"{title}. {core}" if title in ABBREVIATED else f"{title} {core}"
    return core
