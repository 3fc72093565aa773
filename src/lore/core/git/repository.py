"""What git says about a repository: its work tree and git folders, the user's own config, and
the remotes the repository declares (with the host, owner and name a remote URL points at).

Each question is one safe git call (`calls.run`) answered as a typed value, so callers never
parse git's output themselves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from lore.core.git.calls import run


def toplevel(path: Path) -> Path | None:
    """The top folder of the work tree holding `path`, or None when git sees no repository."""
    folder = path if path.is_dir() else path.parent
    if not folder.is_dir():
        return None
    result = run(["rev-parse", "--show-toplevel"], folder)
    if not result.ok or not result.text.strip():
        return None
    return Path(result.text.strip()).resolve()


def git_dir(root: Path) -> Path | None:
    """The repository's git folder (`.git`, or the one a worktree or submodule points to)."""
    result = run(["rev-parse", "--absolute-git-dir"], root)
    return Path(result.text.strip()) if result.ok and result.text.strip() else None


def common_dir(root: Path) -> Path | None:
    """The git folder shared by all work trees of the repository (differs for linked ones)."""
    result = run(["rev-parse", "--path-format=absolute", "--git-common-dir"], root)
    return Path(result.text.strip()) if result.ok and result.text.strip() else None


def is_work_tree(root: Path) -> bool:
    """Whether git itself recognises `root` as inside a work tree (a bare `.git` folder is not)."""
    result = run(["rev-parse", "--is-inside-work-tree"], root)
    return result.ok and result.text.strip() == "true"


def config_get_global(key: str, where: Path | None = None) -> str:
    """A value from the user's own git config only (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`
    or `$GIT_CONFIG_GLOBAL`, and the files it includes), never a repository's.

    `--global` reads no repository config; running in `where` lets the user's own
    `includeIf "gitdir:..."` sections apply (a work email for `~/work/`), as git would there.
    """
    result = run(["config", "--global", "--includes", "--get", key], where if where is not None else "/")
    return result.text.strip() if result.ok else ""


def remotes(root: Path) -> dict[str, str]:
    """Remote name -> fetch URL, as the repository's config declares them."""
    result = run(["config", "--get-regexp", r"^remote\..*\.url$"], root)
    found: dict[str, str] = {}
    if result.ok:
        for line in result.text.splitlines():
            key, _, url = line.partition(" ")
            name = key[len("remote.") : -len(".url")]
            found.setdefault(name, url.strip())
    return found


def remote_url(root: Path, name: str = "origin") -> str:
    """The URL of one remote, or "" when there is none."""
    return remotes(root).get(name, "")


_REMOTE = re.compile(
    r"^(?:https?://(?:[^@/]+@)?|ssh://(?:[^@/]+@)?|git@|git://)?(?P<host>[^/:]+)(?::\d+)?[/:]"
    r"(?P<owner>[^/]+)/(?P<repo>[^/]+?)(?:\.git)?/?$"
)


@dataclass(frozen=True)
class Remote:
    """Where a remote URL points: host, owner and repository name."""

    host: str
    owner: str
    repo: str

    @property
    def slug(self) -> str:
        return f"{self.owner}/{self.repo}"


def parse_remote(url: str) -> Remote | None:
    """owner/repo of a git remote URL (https, ssh, scp-like `git@host:owner/repo.git`)."""
    match = _REMOTE.match(url.strip())
    if not match:
        return None
    return Remote(match.group("host").lower(), match.group("owner"), match.group("repo"))
