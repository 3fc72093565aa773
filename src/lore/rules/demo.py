"""A demo project with sample rules, so a new user sees what an agent is sent in one command."""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from lore.core import git
from lore.core.errors import LoreError
from lore.core.home import lore_home
from lore.core.store.open import DATABASE_URL_ENV
from lore.rules import service
from lore.rules.models import Project
from lore.rules.projects import DEMO_FOLDER

FILES = {
    "src/api/orders.py": "def list_orders():\n    return []\n",
    "src/api/users.py": "def get_user(user_id):\n    return None\n",
    "src/db/models.py": "class Order:\n    pass\n",
    "src/db/migrations/0001_init.sql": "CREATE TABLE orders (id INTEGER PRIMARY KEY);\n",
    "src/web/App.tsx": "export const App = () => null;\n",
    "tests/test_orders.py": "def test_list_orders():\n    assert True\n",
    "README.md": "# shop\n",
}

# (text, title, triggers, always, scope)
RULES = [
    (
        "Never commit secrets or API keys; read them from the environment.",
        "No secrets in code",
        "secret, key, credential",
        True,
        None,
    ),
    ("Use spaces for indentation, four per level.", "Four-space indent", "indent, format", True, None),
    (
        "Wrap third party SDK calls in an adapter so they can be replaced in tests.",
        "Adapters for SDKs",
        "sdk, vendor, client, integration",
        False,
        None,
    ),
    (
        "Use dependency injection for service classes; no module-level singletons.",
        "Dependency injection",
        "service, singleton, injection",
        False,
        None,
    ),
    (
        "Set an explicit timeout on every outbound HTTP call.",
        "HTTP timeouts",
        "http, request, timeout",
        False,
        None,
    ),
    (
        "Access the database only through repository classes in src/db.",
        "DB via repository",
        "database, query, sql",
        False,
        "src/api",
    ),
    (
        "Validate every request body with a pydantic model before using it.",
        "Request validation",
        "validate, request, input, body",
        False,
        "src/api",
    ),
    (
        "Paginate list endpoints with `limit` and `cursor`; never return unbounded lists.",
        "Cursor pagination",
        "pagination, list, endpoint",
        False,
        "src/api",
    ),
    ("Log one line per request with its request id.", "Request-id logging", "log, request", False, "src/api"),
    (
        "Return errors as RFC 7807 problem+json with a stable `type`.",
        "Problem JSON errors",
        "error, response, status",
        False,
        "src/api",
    ),
    (
        "Every migration must be reversible: write the down step too.",
        "Reversible migrations",
        "migration, schema, column",
        False,
        "src/db",
    ),
    (
        "Add an index for every foreign key column.",
        "Index foreign keys",
        "index, column, foreign",
        False,
        "src/db",
    ),
    (
        "Name test files after the module they cover: test_<module>.py.",
        "Test file names",
        "test, name",
        False,
        "tests/**/*.py",
    ),
    (
        "Use fixtures from conftest.py instead of building objects inline.",
        "Shared fixtures",
        "test, fixture",
        False,
        "tests/**/*.py",
    ),
    (
        "Components are function components with typed props; no default exports.",
        "Typed function components",
        "component, props, react",
        False,
        "src/web/**/*.tsx",
    ),
    (
        "Keep money as integer cents; never use floats for prices.",
        "Money in cents",
        "price, money, amount, total",
        False,
        None,
    ),
    (
        "Write a docstring for every public function that says why it exists.",
        "Docstrings",
        "docstring, documentation",
        False,
        None,
    ),
]


# commits after the first, oldest first: why the orders endpoint is the way it is
HISTORY: list[tuple[str, dict[str, str]]] = [
    (
        "Paginate the orders list\n\nListing every order timed out for the biggest shops; a cursor "
        "and a limit of 100 keep each response small and the query on its index.",
        {"src/api/orders.py": "def list_orders(cursor=None, limit=100):\n    return []\n"},
    ),
    (
        "Keep money in integer cents\n\nFloat totals drifted by a cent on refunds; amounts are "
        "stored and summed as integers and formatted only for display.",
        {"src/db/models.py": "class Order:\n    total_cents: int = 0\n"},
    ),
]


def _run_all(steps: list[list[str]], folder: Path, identity: tuple[tuple[str, str], ...]) -> None:
    """Run git steps in the demo folder, stopping with one clear line at the first that fails."""
    for args in steps:
        done = git.run(args, folder, config=identity)
        if not done.ok:
            raise LoreError(
                f"cannot create the demo repository in {folder}: git {args[0]}: {done.error_line}"
            )


def demo_home() -> Path:
    """The demo's own `$LORE_HOME`: a folder under the user's, with its own store and config, so
    the demo's project, history and book never join the user's projects or library."""
    return lore_home() / DEMO_FOLDER


@contextmanager
def kept_apart() -> Iterator[Path]:
    """Everything inside runs on the demo's own home and embedded store (a team database named
    by `LORE_DATABASE_URL` is set aside too); the user's home and settings are back after."""
    home = demo_home()
    saved = {name: os.environ.get(name) for name in ("LORE_HOME", DATABASE_URL_ENV)}
    os.environ["LORE_HOME"] = str(home)
    os.environ.pop(DATABASE_URL_ENV, None)
    try:
        yield home
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def in_demo(command: str, home: Path) -> str:
    """A `lore` command line that runs on the demo's home, to print as a suggestion."""
    return f"LORE_HOME={shlex.quote(str(home))} {command}"


def demo_folder() -> Path:
    """Under `$LORE_HOME`: each user (and each test's home) has its own demo, never a shared
    `/tmp` folder that another account could have created first."""
    return lore_home() / DEMO_FOLDER / "shop"


def ensure_demo_project(folder: Path | None = None) -> Project:
    """Create (once) a small git repository with sample rules and register it."""
    folder = folder or demo_folder()
    if not (folder / ".git").exists():
        folder.mkdir(parents=True, exist_ok=True)
        for rel, text in FILES.items():
            target = folder / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        # committed as you when git knows who you are, so the demo is yours (see trust)
        identity: tuple[tuple[str, str], ...] = (
            ()
            if git.config_get_global("user.email")
            else (("user.name", "Lore Demo"), ("user.email", "demo@lore.invalid"))
        )
        steps: list[list[str]] = [["init", "-q"], ["add", "-A"], ["commit", "-qm", "demo shop"]]
        _run_all(steps, folder, identity)
        for message, changes in HISTORY:  # a short past, so `lore history why` has a story to tell
            for rel, text in changes.items():
                (folder / rel).write_text(text, encoding="utf-8")
            _run_all([["add", "-A"], ["commit", "-qm", message]], folder, identity)
    project, _ = service.register_project(folder)
    if not service.list_rules(project):
        for text, title, triggers, always, scope in RULES:
            service.add_rule(project, text, title=title, triggers=triggers, always=always, scope=scope)
    return project
