"""The one way Lore runs git: nothing a repository carries can make git run a program.

Lore runs git inside repositories it has just met (a clone, an archive someone sent), and a
repository's own `.git/config` can name programs for git to run: an fsmonitor hook that
`ls-files --others` starts, hooks, an external diff, textconv filters, a pager, an ssh command,
credential helpers, `ext::` transports. Every call here therefore:

- passes `-c` options that switch those off (fsmonitor, hooks, pager, credential helpers,
  signature checks, automatic gc) and forbids every transport (`protocol.allow=never`: Lore
  only reads local repositories, so no ssh command or credential helper can ever start);
- adds `--no-ext-diff --no-textconv` to the commands that can show a diff;
- runs with an environment stripped of variables that redirect git or name programs
  (`GIT_DIR`, `GIT_CONFIG_PARAMETERS`, `GIT_EXTERNAL_DIFF`, `GIT_SSH_COMMAND`, askpass ...),
  with `GIT_CONFIG_NOSYSTEM=1`, `GIT_TERMINAL_PROMPT=0`, `GIT_PAGER=cat` and `LC_ALL=C` so
  messages are predictable;
- gets an argument list (never a shell), a closed stdin, a timeout that becomes one-line
  `GitError`, and hands back bytes that the caller decodes explicitly.

A test fails when any module outside this one starts git itself.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import IO

from lore.core.errors import LoreError

# `-c` pairs given to every git call: each names a way repository config could run a program
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.askPass", ""),
    ("core.sshCommand", "false"),
    ("core.gitProxy", ""),
    ("credential.helper", ""),  # an empty value clears the list of helpers
    ("protocol.allow", "never"),  # local reads only: no transport, so no ssh and no ext::
    ("protocol.ext.allow", "never"),
    ("log.showSignature", "false"),  # would run gpg.program
    ("commit.gpgSign", "false"),
    ("tag.gpgSign", "false"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("core.untrackedCache", "false"),
    ("color.ui", "false"),
    ("core.quotePath", "false"),
)
# commands that can print a diff get these, so diff.external and textconv never run
DIFF_COMMANDS = frozenset({"log", "show", "diff", "diff-tree", "diff-index", "diff-files", "whatchanged"})
DIFF_FLAGS = ("--no-ext-diff", "--no-textconv")
# variables that point git elsewhere or name a program for it to run
DROPPED_ENV = frozenset(
    {
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_INDEX_FILE",
        "GIT_OBJECT_DIRECTORY",
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_COMMON_DIR",
        "GIT_NAMESPACE",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_EXTERNAL_DIFF",
        "GIT_SSH",
        "GIT_SSH_COMMAND",
        "GIT_PROXY_COMMAND",
        "GIT_EDITOR",
        "GIT_SEQUENCE_EDITOR",
    }
)
DEFAULT_TIMEOUT = 30.0


class GitError(LoreError):
    """git could not be started, or did not finish in time; the message is one line."""


@dataclass(frozen=True)
class GitResult:
    """What one git call printed, as bytes: callers decode what they parse."""

    args: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes

    @property
    def ok(self) -> bool:
        return self.returncode == 0

    @property
    def text(self) -> str:
        """stdout as text; bytes that are not UTF-8 are kept as surrogate escapes, never lost."""
        return self.stdout.decode("utf-8", "surrogateescape")

    @property
    def error_line(self) -> str:
        """The last line git wrote on stderr (its reason), or the exit code."""
        lines = self.stderr.decode("utf-8", "replace").strip().splitlines()
        return lines[-1] if lines else f"exit code {self.returncode}"


def environment(extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment every git call gets (see the module docstring)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in DROPPED_ENV and not k.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))
    }
    env.update(
        {
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_ASKPASS": "",  # an empty value stops git from falling back to SSH_ASKPASS
            "SSH_ASKPASS": "",
            "GIT_OPTIONAL_LOCKS": "0",  # reading never rewrites the index of someone's repository
            "LC_ALL": "C",
        }
    )
    if extra:
        env.update(extra)
    return env


def command(args: Sequence[str], config: Sequence[tuple[str, str]] = ()) -> list[str]:
    """The argv for `git <args>` with the safe options (benchmarks time exactly this)."""
    argv = ["git", "--no-pager"]
    for key, value in (*config, *SAFE_CONFIG):  # the last -c wins: a caller cannot undo these
        argv += ["-c", f"{key}={value}"]
    args = list(args)
    if args and args[0] in DIFF_COMMANDS:
        args = [args[0], *DIFF_FLAGS, *args[1:]]
    return argv + args


def run(
    args: Sequence[str],
    cwd: Path | str | None = None,
    *,
    timeout: float = DEFAULT_TIMEOUT,
    config: Sequence[tuple[str, str]] = (),
    env: Mapping[str, str] | None = None,
) -> GitResult:
    """Run one git command to completion; a non-zero exit is returned, not raised.

    Raises `GitError` when git is missing or takes longer than `timeout` seconds.
    """
    argv = command(args, config)
    where = str(cwd) if cwd is not None else "/"
    if not os.path.isdir(where):  # what git itself answers for `git -C missing ...`
        return GitResult(tuple(args), 128, b"", f"fatal: cannot change to '{where}': no such folder".encode())
    try:
        proc = subprocess.run(
            argv,
            cwd=where,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=timeout,
            env=environment(env),
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise GitError(f"git {_name(args)} took longer than {timeout:g} s in {where}; stopped it") from None
    except OSError as exc:
        raise GitError(f"cannot run git ({exc.strerror or exc}); is git installed?") from None
    return GitResult(tuple(args), proc.returncode, proc.stdout, proc.stderr)


def stream(
    args: Sequence[str], cwd: Path | str, stderr: IO[bytes], config: Sequence[tuple[str, str]] = ()
) -> subprocess.Popen[bytes]:
    """Start a long-running git command whose stdout the caller reads as a byte stream.

    Same options and environment as `run`; no timeout, because the caller decides when to stop
    (and must wait for or kill the process). git runs in a process group of its own, so a
    Ctrl-C in the terminal reaches the caller alone: the stream is never cut in the middle of
    a record by the same keypress the caller is still handling.
    """
    try:
        return subprocess.Popen(
            command(args, config),
            cwd=str(cwd),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=environment(),
            process_group=0,
        )
    except OSError as exc:
        raise GitError(f"cannot run git ({exc.strerror or exc}); is git installed?") from None


def _name(args: Sequence[str]) -> str:
    return args[0] if args else ""


# -- small typed questions ------------------------------------------------------------------------
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


# -- the files of a project ------------------------------------------------------------------------
LS_FILES = ["ls-files", "-z", "--cached", "--others", "--exclude-standard"]


def ls_files(root: Path, timeout: float = 60.0) -> list[str]:
    """The project's files, relative and sorted: tracked plus untracked-but-not-ignored.

    The one fallback: a folder git does not recognise as a work tree is walked instead (without
    following links, skipping `.git`, at most `WALK_LIMIT` files), so a caller never needs its own.
    """
    result = run(LS_FILES, root, timeout=timeout)
    if result.ok:
        return sorted({p for p in result.stdout.decode("utf-8", "surrogateescape").split("\0") if p})
    return sorted(_walk(root))


WALK_LIMIT = 200_000  # a folder that is not a repository may be a whole home folder


def _walk(root: Path) -> Iterator[str]:
    count = 0
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d != ".git")
        base = PurePosixPath(Path(folder).relative_to(root).as_posix())
        for name in sorted(files):
            yield name if str(base) == "." else str(base / name)
            count += 1
            if count >= WALK_LIMIT:
                return


# -- the reflog ------------------------------------------------------------------------------------
REFLOG_TAIL = 256 << 10  # the newest 256 KiB (over a thousand lines): recent evidence is enough


@dataclass(frozen=True)
class ReflogEntry:
    """One line of `logs/HEAD`: who moved HEAD, when (seconds), and git's note on why."""

    old: str
    new: str
    name: str
    email: str
    at: int
    message: str

    @property
    def action(self) -> str:
        """`commit`, `commit (initial)`, `clone`, `checkout`, `rebase (finish)` ..."""
        return self.message.partition(":")[0].strip()


def reflog(root: Path) -> list[ReflogEntry]:
    """HEAD's reflog of the work tree at `root`, oldest first (see `read_reflog`)."""
    folder = git_dir(root)
    return [] if folder is None else read_reflog(folder)


def read_reflog(folder: Path) -> list[ReflogEntry]:
    """HEAD's reflog in a git folder, oldest first; lines that are not git's format are skipped.

    Read as a file rather than through `git log -g`, which fails on entries naming objects
    that do not exist (as forged ones may)."""
    path = folder / "logs" / "HEAD"
    try:
        with path.open("rb") as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - REFLOG_TAIL))
            data = handle.read()
    except OSError:
        return []
    if size > REFLOG_TAIL:
        data = data.partition(b"\n")[2]  # drop the partial first line
    entries = []
    for raw in data.decode("utf-8", "replace").splitlines():
        entry = _reflog_line(raw)
        if entry is not None:
            entries.append(entry)
    return entries


def _reflog_line(line: str) -> ReflogEntry | None:
    head, _, message = line.partition("\t")
    parts = head.split(" ", 2)
    if len(parts) != 3 or len(parts[0]) < 40 or len(parts[1]) < 40:
        return None
    ident = parts[2]
    lt, gt = ident.rfind("<"), ident.rfind(">")
    when = ident[gt + 1 :].split()
    if lt < 0 or gt < lt or not when or not when[0].isdigit():
        return None
    return ReflogEntry(
        old=parts[0],
        new=parts[1],
        name=ident[:lt].strip(),
        email=ident[lt + 1 : gt].strip(),
        at=int(when[0]),
        message=message.strip(),
    )


# -- where an object is stored ---------------------------------------------------------------------
def loose_object(objects: Path, sha: str) -> Path | None:
    """The loose file of object `sha` in one objects folder, or None (packed, or absent here;
    alternates are not followed).

    Read directly, not through git: the question is which file on this disk holds the object,
    since its change time says when it was written here.
    """
    sha = sha.lower()
    if len(sha) not in (40, 64) or any(c not in "0123456789abcdef" for c in sha):
        return None
    path = objects / sha[:2] / sha[2:]
    return path if path.is_file() else None
