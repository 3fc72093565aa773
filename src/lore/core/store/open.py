"""Which backend a process uses: the embedded file or a shared PostgreSQL database.

`open_store` hands every caller the one process-wide `Store` for `$LORE_HOME/lore.db`, or for
the PostgreSQL URL in `LORE_DATABASE_URL` (or `database_url` in config.json); `open_store_for`
keeps a domain whose migrations have no PostgreSQL text yet in the embedded file. The
PostgreSQL backend is imported only when one is configured, so its driver stays optional.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path

from lore.core.config import config_path, read_raw, warn
from lore.core.errors import InvalidInput, StoreError
from lore.core.home import ensure_home
from lore.core.store.base import DB_NAME, Migration, Store
from lore.core.store.sqlite import SqliteStore

_stores: dict[str, Store] = {}
_stores_lock = threading.Lock()


DATABASE_URL_ENV = "LORE_DATABASE_URL"
_URL_SCHEMES = ("postgresql://", "postgres://")


def database_url() -> str | None:
    """The PostgreSQL database every domain uses instead of the embedded file, if one is set:
    `LORE_DATABASE_URL`, else `database_url` in config.json. A value that is not a PostgreSQL
    URL is refused rather than ignored: falling back to a private file would quietly split a
    team's rules in two."""
    raw: object = os.environ.get(DATABASE_URL_ENV)
    where = DATABASE_URL_ENV
    if not raw:
        raw = _configured_url()
        where = "database_url in config.json"
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str) or not raw.startswith(_URL_SCHEMES):
        raise StoreError(f"{where} must be a postgresql:// URL (got {str(raw)[:60]!r}); fix or unset it")
    return raw


_config_seen: dict[str, tuple[tuple[int, int], object]] = {}


def _configured_url() -> object:
    """`database_url` from config.json, read again only when the file changed: `open_store` is
    called on every request and must not parse the file each time."""
    path = config_path()
    try:
        st = path.stat()
    except OSError:
        return None
    stamp = (st.st_mtime_ns, st.st_size)
    seen = _config_seen.get(str(path))
    if seen is None or seen[0] != stamp:
        seen = _config_seen[str(path)] = (stamp, read_raw(path).get("database_url"))
    return seen[1]


def open_store(path: Path | None = None) -> Store:
    """The process-wide Store: the given file, else the configured PostgreSQL database (see
    `database_url`), else `$LORE_HOME/lore.db`."""
    url = None if path else database_url()
    key = str(path) if path else ("url:" + url if url else "home:" + os.environ.get("LORE_HOME", ""))
    store = _stores.get(key)
    if store is not None:
        return store
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            if url:
                store = _stores[key] = _postgres(url)
            else:
                target = Path(path) if path else ensure_home() / DB_NAME
                store = _stores[key] = SqliteStore(target.resolve())
        return store


def open_store_for(migrations: Sequence[Migration]) -> Store:
    """The process-wide Store for a domain: the configured database if every one of the domain's
    migrations has a PostgreSQL text, else the embedded file.

    A domain moves to PostgreSQL when its store does, one at a time; until then its tables stay
    in `$LORE_HOME/lore.db` (said once per process on stderr), so the rest keeps working.
    """
    store = open_store()
    if store.dialect == "sqlite":
        return store
    waiting = next((m.name for m in migrations if m.postgres is None), None)
    if waiting is None:
        return store
    local = open_store(ensure_home() / DB_NAME)
    warn(f"the {waiting.split('/')[0]} store does not run on PostgreSQL yet; it stays in {local.path}")
    return local


def open_database(url: str) -> Store:
    """The process-wide Store for a PostgreSQL URL given outright (`lore store migrate --to`)."""
    if not url.startswith(_URL_SCHEMES):
        raise InvalidInput(f"{url[:60]!r} is not a postgresql:// URL")
    key = "url:" + url
    with _stores_lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = _postgres(url)
        return store


def _postgres(url: str) -> Store:
    try:
        from lore.core.store.postgres import PgStore
    except ImportError as exc:
        raise StoreError(
            f"a PostgreSQL database is configured but its driver is missing ({exc.name}); "
            "install it with: pip install 'lore-mem[postgres]'"
        ) from None
    return PgStore(url)


def forget_stores() -> None:
    """Close and drop cached stores (tests switch `$LORE_HOME` between cases)."""
    with _stores_lock:
        for store in _stores.values():
            store.close()
        _stores.clear()
