"""Who did it and which PR it belongs to: people keys, bot detection, PR and issue references."""

from __future__ import annotations

import re

_BOT_WORDS = (
    "[bot]",
    "github-actions",
    "dependabot",
    "renovate",
    "greenkeeper",
    "pre-commit-ci",
    "snyk-bot",
    "mergify",
    "imgbot",
    "allcontributors",
    "codecov",
    "pyup-bot",
    "semantic-release",
    "gitlab-bot",
    "k8s-ci-robot",
    "copybara",
    "weblate",
)
_NOREPLY = re.compile(r"^(?:\d+\+)?([^@]+)@users\.noreply\.github\.com$", re.I)


def is_bot(*names: str | None) -> bool:
    """A commit or comment author that is an automation account (kept, but marked)."""
    for name in names:
        low = (name or "").lower()
        if any(word in low for word in _BOT_WORDS) or low.endswith("-bot") or low == "bot":
            return True
    return False


def person_key(email: str | None, login: str | None = None) -> tuple[str, str | None]:
    """A stable key for a person (and the GitHub login when one is known).

    GitHub logins win, and a GitHub no-reply address is turned into its login, so a person's
    commits and their PR comments land on the same node.
    """
    if login:
        return "@" + login.lower(), login
    email = (email or "").strip().lower()
    match = _NOREPLY.match(email)
    if match:
        return "@" + match.group(1), match.group(1)
    return email or "unknown", None


_SQUASH = re.compile(r"\(#(\d+)\)")
_MERGE = re.compile(r"^Merge pull request #(\d+)\b", re.I)


def pr_from_subject(subject: str) -> int | None:
    """`Fix x (#123)` (squash or rebase merge) or `Merge pull request #123 from ...`."""
    match = _MERGE.match(subject)
    if match:
        return int(match.group(1))
    found = _SQUASH.findall(subject)
    return int(found[-1]) if found else None


def closing_refs(text: str, slug: str) -> set[int]:
    """Issue numbers a PR text closes with GitHub's keywords (`fixes #12`, `closes o/r#3`).

    Only references to the same repository count.
    """
    if not text:
        return set()
    owner_repo = re.escape(slug)
    pattern = re.compile(
        r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+"
        rf"(?:(?:{owner_repo})?#(\d+)|https?://github\.com/{owner_repo}/issues/(\d+))",
        re.I,
    )
    return {int(a or b) for a, b in pattern.findall(text)}
