"""Whether a repository is yours, from evidence the repository cannot bring with it.

Lore activates an agent's rules by itself only in your repositories, because anyone can publish
a repository whose own text says anything. The answer therefore must not rest on anything an
attacker can put inside the folder you receive.

Threat model. The attacker controls every byte of a repository you clone or unpack: commit
authors and committers (your public email included), `.git/config` (a `user.email` of yours),
and, in an archive, the whole `.git` folder, so also `.git/logs/HEAD` (a reflog saying
"commit: ..." by you) and file modification times (tar and zip restore them). What they cannot
set is the *change time* (ctime) of the files as they land on your disk: unpacking, copying or
cloning stamps every file with the moment it was written here. They also cannot sign in to
GitHub as you. The evidence, in the order it decides:

1. Commits made in this clone. Git appends a line to `logs/HEAD` for every commit, amend, merge
   and rebase step, with the committer identity and time; a fresh clone holds only `clone:`.
   A line counts when (a) its identity is your *global* email; (b) its time lies between the
   moment this git folder arrived on the disk (the oldest ctime among its entries) and the last
   time git wrote the reflog here (its ctime), two seconds of slack either way; (c) the commit
   it names sits in a loose object file whose ctime is within three seconds of that time, as
   git writes both in one command. An archive's lines were dated before it was unpacked (out
   of (b)); a line dated later than unpacking points at an object stamped with the unpacking
   (out of (c)); the object's mtime must also lie between the arrival and its ctime (tar and
   unzip restore older ones). (d) A reflog holding any line dated after its own last write was
   written elsewhere: no line up to its newest date counts, and Lore remembers that date in the store,
   since once it has passed, forged lines close to the unpacking would look like work done
   here. What remains for a forger: covering the moment of unpacking with a line per second
   (the newest 256 KiB of a reflog is read, some 2,000 lines, so half an hour) *and* Lore
   first looking only after those dates have passed and git wrote the reflog again. (e) A
   commit written within ten minutes of the arrival also needs the index to vouch for it: an
   archive built for each download and unpacked at once dates its lines at the unpacking, like
   a repository made here in a hurry, but cannot carry an index of this disk's inodes and
   change times written before its objects (`authorship`); what remains is a stream unpacked
   as it arrives, paced so that git runs in the folder before the forged objects land. The
   reflog must also be this folder's own: a `.git` that is a link, or a `gitdir:` file naming
   a git folder that does not point back here (one of your repositories, say), borrows someone
   else's history and counts for nothing; linked worktrees and submodules point back, and count.
2. Your identity comes only from your own git config (`git config --global --includes`, which
   reads `~/.gitconfig`, `$XDG_CONFIG_HOME/git/config` or `$GIT_CONFIG_GLOBAL` and the files
   they include, `includeIf "gitdir:..."` work emails too), never from the repository's config.
3. A clone of a GitHub repository whose owner is your login, as GitHub itself says for your
   token (`GITHUB_TOKEN`, `GH_TOKEN` or `gh auth token`) at `GET /user`. The URL is the one in
   the reflog's `clone: from` line, under the same date bounds, never the remote in
   `.git/config`: an archive could name a repository of your account there.

Nothing else makes a repository yours: not a missing remote, not commits authored with your
email, not a `user.email` in the repository's config. What is left: a disk image or network
share prepared elsewhere keeps its ctimes; a copy of your own repository (`cp -r`) counts only
from your next commit in it; a commit made with a `GIT_COMMITTER_DATE` in the past, or under
another email (a `user.email` in the repository's config, `GIT_COMMITTER_EMAIL`), is not
counted, and neither is one `git gc` has since packed. `lore review trust` settles any of these
by hand.

The verdict and the overrides live in the rules store (`trust` table): a verdict is remembered
for a week (an hour when GitHub could not be asked), an override until it is reset.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from lore.core import git
from lore.core.errors import InvalidInput
from lore.rules.gate.authorship import Reflog, own_git_folders
from lore.rules.models import TrustRecord
from lore.rules.store.rules import rules_store
from lore.rules.store.sessions import WriteBehind

CACHE_SECONDS = 7 * 24 * 3600
RETRY_SECONDS = 3600  # when GitHub could not be asked, ask again sooner
# which evidence decided, as stored and shown
BY_OVERRIDE, BY_LOCAL_COMMITS, BY_GITHUB_OWNER, BY_NONE, BY_NOT_A_REPOSITORY = (
    "override",
    "local commits",
    "github owner",
    "none",
    "not a repository",
)


@dataclass(frozen=True)
class TrustState:
    yours: bool
    reason: str  # which evidence decided, in words: "3 commits made in this clone by you@..."
    override: str | None = None  # "trust", "untrust" or None
    evidence: str = BY_NONE

    @property
    def label(self) -> str:
        if self.override:
            return "trusted (override)" if self.override == "trust" else "untrusted (override)"
        return "yours" if self.yours else "not yours"

    @property
    def summary(self) -> str:
        """`yours: <reason>` or `not yours: <reason>`, the line replies and the CLI show."""
        return f"{'yours' if self.yours else 'not yours'}: {self.reason}"


@dataclass(frozen=True)
class _GitHubAnswer:
    yours: bool
    reason: str
    asked: bool = True  # False when GitHub could not be reached: remember the verdict briefly


def check_with_git(root: Path) -> TrustState:
    """Weigh the evidence now (no cache, nothing remembered): is this repository yours?"""
    return _evaluate(Path(root))[0]


Seen = tuple[float, str]  # reflog lines up to this date were written elsewhere, in this git folder


def _evaluate(root: Path, remembered: Seen | None = None) -> tuple[TrustState, bool, Seen | None]:
    """The verdict; whether it may be remembered for the full week; and what is known about
    reflog lines written elsewhere, for the caller to keep (see `Reflog.elsewhere`)."""
    if not root.is_dir() or not git.is_work_tree(root):
        return (
            TrustState(
                False, "git does not recognise this folder as a repository", None, BY_NOT_A_REPOSITORY
            ),
            True,
            None,
        )
    root = git.toplevel(root) or root
    folders, borrowed = own_git_folders(root)
    email = git.config_get_global("user.email", root).lower()
    # the first folder's index describes this work tree; a linked worktree's common folder, its own
    logs = [Reflog.of(folder, root if n == 0 else None) for n, folder in enumerate(folders)]
    here = logs[0].folder_id if logs else ""
    written_elsewhere = remembered[0] if remembered and here and remembered[1] == here else None
    for log in logs:
        if log.elsewhere is not None:
            written_elsewhere = max(written_elsewhere or 0.0, log.elsewhere)
    seen = (written_elsewhere, here) if written_elsewhere is not None else None
    if email:
        made_here = sum(log.commits_made_here(email, written_elsewhere) for log in logs)
        if made_here:
            noun = "commit" if made_here == 1 else "commits"
            state = TrustState(
                True, f"{made_here} {noun} made in this clone by {email}", None, BY_LOCAL_COMMITS
            )
            return state, True, seen
    remotes = git.remotes(root)
    cloned = logs[0].cloned_from(email, written_elsewhere) if logs else None
    github = _github_owner([cloned] if cloned else [])
    if github is not None and github.yours:
        return TrustState(True, github.reason, None, BY_GITHUB_OWNER), True, seen
    first = logs[0].entries[0].action if logs and logs[0].entries else ""
    if borrowed:
        why = borrowed
    elif written_elsewhere is not None:
        why = (
            "its reflog holds lines dated after git last wrote it here, so they were written "
            f"elsewhere; only commits made after {_day(written_elsewhere)} can count"
        )
    elif not email:
        why = "no git identity of yours is configured (git config --global user.email), so no commit here is yours"
    elif first == "clone":
        why = "cloned, and no commit here is yours"
    elif not remotes:
        why = "no remote, and no commit has been made in this clone by you"
    else:
        why = "it has a remote, and no commit made in this clone is yours"
    if github is not None:
        why += f"; {github.reason}"
    return TrustState(False, why, None, BY_NONE), github is None or github.asked, seen


def _day(moment: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(moment))


def _github_owner(urls: list[str]) -> _GitHubAnswer | None:
    """Whether the GitHub repository this clone was made from belongs to the login GitHub gives
    for your token; None when it was not cloned (here) from GitHub.

    The URL comes from the reflog's `clone: from` line written on this disk, never from
    `.git/config`, which an archive could fill with a remote of your account."""
    # imported here: the GitHub client brings httpx, which `lore mcp` should not load at start-up
    from lore.core.github import api_base, discover_token, viewer_login

    base = api_base()
    owners = []
    for url in urls:
        remote = git.parse_remote(url)
        if remote is not None and (remote.host == "github.com" or base != "https://api.github.com"):
            owners.append(remote)
    if not owners:
        return None
    token, source = discover_token(base)
    if not token:
        return _GitHubAnswer(
            False, "no GitHub token or `gh` login says whose GitHub repository it was cloned from"
        )
    login = viewer_login(token, base)
    if login is None:
        return _GitHubAnswer(False, f"GitHub could not be asked whose token {source} is", asked=False)
    for remote in owners:
        if remote.owner.lower() == login.lower():
            return _GitHubAnswer(
                True, f"cloned from {remote.slug} on GitHub, owned by your login {login} ({source})"
            )
    slugs = ", ".join(sorted({r.slug for r in owners}))
    return _GitHubAnswer(False, f"cloned from {slugs} on GitHub, not owned by your login {login}")


_verdicts = WriteBehind()  # remembered verdicts: written at once, or behind a long writer


def _key(root: Path) -> str:
    return str(Path(root).resolve())


def trust_state(root: Path) -> TrustState:
    """The override if set, else the remembered verdict while fresh, else the evidence now."""
    key = _key(root)
    store = rules_store()
    record = store.trust(key)
    if record is not None and record.override in ("trust", "untrust"):
        word = "lore review trust" if record.override == "trust" else "lore review untrust"
        return TrustState(record.override == "trust", f"set by hand ({word})", record.override, BY_OVERRIDE)
    now = time.time()
    if record is not None and record.yours is not None and record.recheck_at and now < record.recheck_at:
        return TrustState(record.yours, record.reason or "remembered", None, record.evidence or BY_NONE)
    remembered = (
        (record.written_elsewhere, record.elsewhere_folder)
        if record is not None and record.written_elsewhere is not None
        else None
    )
    state, lasting, seen = _evaluate(Path(root), remembered)
    verdict = TrustRecord(
        path=key,
        yours=state.yours,
        reason=state.reason,
        evidence=state.evidence,
        checked_at=now,
        recheck_at=now + (CACHE_SECONDS if lasting else RETRY_SECONDS),
        written_elsewhere=seen[0] if seen else None,
        elsewhere_folder=seen[1] if seen else "",
    )
    # an agent's get_rules asks this: it must not wait behind another process's long write
    _verdicts.submit(lambda wait: store.save_trust_verdict(verdict, wait_ms=wait))
    return state


def set_override(root: Path, override: str | None) -> TrustState:
    """`trust`, `untrust`, or None to let the evidence decide again (checked at once)."""
    if override not in (None, "trust", "untrust"):
        raise InvalidInput(f"unknown trust override {override!r}: use trust, untrust or reset")
    rules_store().set_trust_override(_key(root), override)
    return trust_state(Path(root))
