"""Who can bind the project, and which rule says so: the one place the standing of a speaker is decided.

Quoting someone is only evidence of a project decision when that person speaks for the project.
Two rules grant it, in this order:

- `author_association`: GitHub's own word on a comment or an item (OWNER, MEMBER or
  COLLABORATOR), and, for a commit, on the pull request it belongs to;
- `first-parent committer`: where GitHub says nothing, the people who put commits on the
  default branch's first-parent history (its committers, and the authors of its merge
  commits: the person who merged). A contributor whose branch was merged with a merge commit
  stays the committer of their own commits, but those sit off the first-parent line, so they
  do not qualify; GitHub's web flow (`noreply@github.com`), which commits every squash and
  rebase merge made on the site, is never a person, and bots are left out.

"Every committer", the rule this replaces, let anyone whose commits were merged with a merge
commit speak for the project. The first-parent history is read with Lore's one git runner
(`lore.core.git`: no hook, pager or configured program runs); a repository known only from
GitHub has no such history, and there `author_association` alone grants authority.
"""

from __future__ import annotations

from pathlib import Path

from lore.core import git
from lore.history.decisions.store import AUTHORITY, WEB_FLOW_EMAILS
from lore.history.ingest.identity import is_bot

ASSOCIATION = "author_association"
FIRST_PARENT = "first-parent committer"
RULES = (ASSOCIATION, FIRST_PARENT)
NO_RULE = "none"  # recorded for a decision stored before these rules that none of them grants

_FORMAT = "--format=%an%x1f%ae%x1f%cn%x1f%ce%x1f%P"


def default_branch(root: Path) -> str:
    """The branch a clone was made from (`origin/HEAD`), or the one checked out."""
    found = git.run(["rev-parse", "--verify", "-q", "refs/remotes/origin/HEAD"], root)
    return "refs/remotes/origin/HEAD" if found.ok else "HEAD"


def first_parent_maintainers(path: str | None) -> set[str]:
    """The lower-cased emails of who merges and maintains: committers of the default branch's
    first-parent history and authors of its merge commits, bots and the web flow left out.
    Empty for a repository without a local clone (or one git cannot read)."""
    if not path or not Path(path).is_dir():
        return set()
    root = Path(path)
    result = git.run(["log", "--first-parent", _FORMAT, default_branch(root), "--"], root, timeout=300.0)
    if not result.ok:
        return set()
    out: set[str] = set()
    for line in result.text.splitlines():
        parts = line.split("\x1f")
        if len(parts) != 5:
            continue
        author_name, author_email, committer_name, committer_email, parents = parts
        committer = committer_email.strip().lower()
        if committer and committer not in WEB_FLOW_EMAILS and not is_bot(committer_name, committer):
            out.add(committer)
        author = author_email.strip().lower()
        if len(parents.split()) > 1 and author and not is_bot(author_name, author):
            out.add(author)  # a merge: its author is the person who merged
    return out


def for_comment(association: str | None) -> str | None:
    """The rule granting a comment's author authority, or None."""
    return ASSOCIATION if (association or "").upper() in AUTHORITY else None


def for_commit(author_email: str, pr_by_member: bool, maintainers: set[str]) -> str | None:
    """The rule granting a commit's author authority, or None."""
    if pr_by_member:
        return ASSOCIATION
    if author_email.strip().lower() in maintainers:
        return FIRST_PARENT
    return None
