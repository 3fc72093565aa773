"""The vote: a label wins when it holds for at least 90% of at least 5 labelled files; its
evidence says how strong it is. And a candidate made from a vote.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from lore.rules.intake.candidates import Candidate
from lore.rules.intake.discover.files import (
    MIN_FILES,
    MIN_SHARE,
    THRESHOLD,
    SourceFile,
)


# -- the vote ------------------------------------------------------------------------------------------
@dataclass
class Vote:
    label: str
    agree: list[str]
    voters: list[str]
    disagree: list[str]

    @property
    def share(self) -> float:
        return len(self.agree) / len(self.voters) if self.voters else 0.0

    def evidence(self, convention: str, unit: str = "files") -> dict[str, object]:
        return {
            "convention": convention,
            "kind": "vote",
            "ratio": f"{len(self.agree)}/{len(self.voters)} {unit}",
            "share": round(self.share, 3),
            "threshold": THRESHOLD,
            "examples": self.agree[:3],
            "exceptions": self.disagree[:5],
        }


def vote(files: Iterable[SourceFile], label_of: Callable[[SourceFile], str | None]) -> Vote | None:
    """The winning label when it holds for at least 90% of at least 5 labelled files."""
    labels = {f.rel: label for f in files if (label := label_of(f)) is not None}
    if len(labels) < MIN_FILES:
        return None
    winner, count = Counter(labels.values()).most_common(1)[0]
    if count / len(labels) < MIN_SHARE:
        return None
    agree = [rel for rel, lab in labels.items() if lab == winner]
    return Vote(winner, agree, list(labels), [rel for rel, lab in labels.items() if lab != winner])


def _candidate(
    text: str, title: str, triggers: list[str], scope: list[str], evidence: dict[str, object], kind: str
) -> Candidate:
    return Candidate(text=text, title=title, triggers=triggers, scope=scope, evidence=[evidence], kind=kind)
