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
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
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
