"""What kind of change a question asks about, told by its words: why something is gone, or why
a file it names is there at all.

"Why doesn't X use colorama any more?", "why did X drop its App Engine check?", "why was this
reverted?" ask for the change that took something away, and the commits that added it, used it
or fixed it share every word of the question with it. What tells that change apart is its
subject: it says it removes, drops, deprecates or reverts. So when a question asks why something
is gone, commits whose subject says they took something away keep more of their score
(`weight`); a question that asks nothing of the kind leaves every commit as it is.

"Why does src/x/_compat.py exist?", "why is there a globals.py?", "why ship _winconsole.py?"
ask for the change that brought the file in: its other commits (typing sweeps, renames, later
fixes) share the file but not the reason it exists (`asks_existence`).
"""

from __future__ import annotations

import re

# a question asking why something is no longer there
_GONE_ASKED = re.compile(
    r"\b(?:any ?more|no longer|not .{0,40}\bsince|drop(?:s|ped)?|remov(?:e|es|ed|al)|delet(?:e|es|ed)|"
    r"stop(?:s|ped)?|deprecat\w*|revert\w*|gone|got rid)\b",
    re.I,
)
# a commit subject that says it took something away (and the gitmoji for removals)
_GONE_SUBJECT = re.compile(
    r"(?<![\w-])(?:remov\w*|drop\w*|delet\w*|deprecat\w*|revert\w*|stop\w*|no longer|get rid of)(?![\w-])"
    r"|➖|🔥|:fire:|:heavy_minus_sign:",
    re.I,
)
# a question asking why a file it names is there: it exists, there is one, the project has, keeps
# or needs it, it is shipped or kept as its own module, it was added or introduced
_EXISTS_ASKED = re.compile(
    r"\bexist(?:s|ed)?\b|\bwhy (?:is|are) there\b|\bship(?:s|ped)?\b|\bits own (?:module|file)\b"
    r"|\bwhy (?:does|do|did) (?:the |this |our )?[\w.-]+ (?:have|has|keep|contain|include|need|carry)\b"
    r"|\bwhy (?:was|were|did) .{0,60}\b(?:added|introduced|created)\b|\bwhat is .{0,60}\bfor\?",
    re.I,
)
GONE = 1.5  # what a removal's score is multiplied by when the question asks why something is gone


def asks_gone(question: str) -> bool:
    """Whether the question asks why something was removed, dropped or stopped."""
    return _GONE_ASKED.search(question) is not None


def weight(subject: str, gone: bool) -> float:
    """What a commit's score is multiplied by for a question (`gone`: it asks why something is
    gone, `asks_gone`): `GONE` for a commit whose subject says it took something away, else 1."""
    return GONE if gone and _GONE_SUBJECT.search(subject) else 1.0


def asks_existence(question: str) -> bool:
    """Whether the question asks why something is there at all (it exists, there is one, the
    project has or keeps it, it is shipped, it was added): asked of a file, the change that created the file answers it."""
    return _EXISTS_ASKED.search(question) is not None
