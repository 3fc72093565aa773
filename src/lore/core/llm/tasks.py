"""The tasks Lore's features ask a model to do, named in one place.

A task name lets a user send one feature's calls to another model than the default (a cheaper
or a local one): `model.tasks.<name>` in config.json, or `LORE_MODEL_<NAME>` with the dots
written as underscores (`LORE_MODEL_BOOKS_EXTRACT`), since a shell cannot export a name with a
dot. A feature that calls a model adds its task here and passes the constant, so the config,
the variables, `lore model show` and the docs all speak of the same names.
"""

from __future__ import annotations

import re

from lore.core.errors import InvalidInput

BOOKS_EXTRACT = "books.extract"
HISTORY_EXTRACT = "history.extract"
HISTORY_SUPERSEDE = "history.supersede"

TASKS: dict[str, str] = {
    BOOKS_EXTRACT: "lore books extract: characters, places, relations and identities in a book",
    HISTORY_EXTRACT: "lore history extract: project decisions in threads and commit messages",
    HISTORY_SUPERSEDE: "lore history supersede: whether a later decision replaced an earlier one",
}


def task_env_var(task: str) -> str:
    """The environment variable that overrides a task's model: `books.extract` ->
    `LORE_MODEL_BOOKS_EXTRACT`."""
    return "LORE_MODEL_" + re.sub(r"[^0-9A-Za-z]", "_", task).upper()


def known_tasks_text() -> str:
    return ", ".join(TASKS)


def check_task(task: str) -> str:
    """`task` if a feature uses it; a one-line error naming the known tasks otherwise."""
    if task not in TASKS:
        raise InvalidInput(f"unknown model task {task!r}: the tasks are {known_tasks_text()}")
    return task
