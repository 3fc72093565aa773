"""The one way Lore runs git: nothing a repository carries can make git run a program.

`calls` starts git with the safe options and environment (its docstring says what they are
and why); `repository` asks about a repository's folders, the user's config and the remotes;
`files` lists a project's files; `reflog` reads HEAD's reflog and loose objects from the git
folder; `index` reads whether git's index was written on this disk, and when. Callers use the
names below, as `from lore.core import git` then `git.run(...)`.
"""

from lore.core.git.calls import (
    DEFAULT_TIMEOUT,
    DIFF_COMMANDS,
    DIFF_FLAGS,
    DROPPED_ENV,
    SAFE_CONFIG,
    GitError,
    GitResult,
    command,
    environment,
    run,
    stream,
)
from lore.core.git.files import LS_FILES, WALK_LIMIT, ls_files
from lore.core.git.index import IndexWrite, index_write
from lore.core.git.reflog import REFLOG_TAIL, ReflogEntry, loose_object, read_reflog, reflog
from lore.core.git.repository import (
    Remote,
    common_dir,
    config_get_global,
    git_dir,
    is_work_tree,
    parse_remote,
    remote_url,
    remotes,
    toplevel,
)

__all__ = [
    "DEFAULT_TIMEOUT",
    "DIFF_COMMANDS",
    "DIFF_FLAGS",
    "DROPPED_ENV",
    "LS_FILES",
    "REFLOG_TAIL",
    "SAFE_CONFIG",
    "WALK_LIMIT",
    "GitError",
    "GitResult",
    "IndexWrite",
    "ReflogEntry",
    "Remote",
    "command",
    "common_dir",
    "config_get_global",
    "environment",
    "git_dir",
    "index_write",
    "is_work_tree",
    "loose_object",
    "ls_files",
    "parse_remote",
    "read_reflog",
    "reflog",
    "remote_url",
    "remotes",
    "run",
    "stream",
    "toplevel",
]
