"""What a store holds (`lore store check`) and moving an embedded store into PostgreSQL
(`lore store migrate --to URL`).

The move copies every table the target has a schema for, one table per transaction, in the
order the migrations created them (so a row never arrives before the row it references). Each
finished table is recorded in the target's `store_moves`, with the source it came from and its
row count, inside the same transaction as its rows: a move killed half-way leaves whole tables
behind, and running it again skips them. Rows of tables with a primary key are inserted with
`ON CONFLICT DO NOTHING`, so a table that was partly there is completed, not doubled. After a
table, identity columns continue after the highest id copied. Counts are verified per table:
every source row is either copied or already there under its key.

Tables the target has no schema for (a domain that does not run on PostgreSQL yet, and each
user's `trust`) stay in the file; the report names them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from lore.core.errors import StoreError
from lore.core.store.base import Migration, Store

BATCH = 2_000


@dataclass(frozen=True)
class TableCount:
    name: str
    rows: int


@dataclass(frozen=True)
class IndexSize:
    """One index and its size on disk. On PostgreSQL the vector searches build some on first
    use (filter b-trees): their sizes are what `shared_buffers` should hold."""

    table: str
    name: str
    bytes: int


@dataclass(frozen=True)
class StoreReport:
    """`lore store check`: where the store is, its schema and what it holds."""

    backend: str
    location: str
    migrations: int
    schema: dict[str, str]  # domain -> its last applied migration
    tables: tuple[TableCount, ...]
    elsewhere: tuple[str, ...] = ()  # domains kept in the embedded file
    indexes: tuple[IndexSize, ...] = ()  # PostgreSQL only, largest first


@dataclass(frozen=True)
class TableMove:
    name: str
    source_rows: int
    copied: int
    already: int  # rows the target had under the same key (an earlier, interrupted move)
    skipped: bool  # recorded as moved by an earlier run


@dataclass(frozen=True)
class MoveReport:
    source: str
    target: str
    tables: tuple[TableMove, ...]
    left: tuple[str, ...] = field(default=())  # tables the target has no schema for
    rebuilt: tuple[str, ...] = field(default=())  # full-text indexes the target makes itself


def table_names(store: Store) -> list[str]:
    """The store's own tables, in creation order (full-text index internals left out)."""
    conn = store.connect()
    if store.dialect == "sqlite":
        rows = conn.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid"
        ).fetchall()
        virtual = [r[0] for r in rows if str(r[1] or "").upper().startswith("CREATE VIRTUAL")]
        return [r[0] for r in rows if not any(r[0].startswith(v + "_") for v in virtual)]
    rows = conn.execute(
        "SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
        " WHERE c.relkind = 'r' AND n.nspname = current_schema() ORDER BY c.oid"
    ).fetchall()
    return [r[0] for r in rows]


def full_text_indexes(store: Store) -> set[str]:
    """The embedded store's FTS5 tables: not copied, since on PostgreSQL a generated `tsvector`
    column of the moved rows takes their place."""
    if store.dialect != "sqlite":
        return set()
    rows = store.connect().execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND upper(sql) LIKE 'CREATE VIRTUAL TABLE%'"
    )
    return {r[0] for r in rows}


def count_rows(store: Store, table: str) -> int:
    return int(store.connect().execute(f'SELECT COUNT(*) FROM "{table}"').fetchone()[0])


def check(store: Store, elsewhere: Sequence[str] = ()) -> StoreReport:
    """Backend, location, applied migrations (the last per domain) and every table's rows."""
    names = table_names(store)
    applied = store.applied_migrations() if "schema_migrations" in names else []
    schema: dict[str, str] = {}
    for name in applied:
        schema[name.split("/")[0]] = name
    tables = tuple(TableCount(t, count_rows(store, t)) for t in names)
    location = getattr(store, "label", None) or str(store.path)
    return StoreReport(
        store.dialect, location, len(applied), schema, tables, tuple(elsewhere), index_sizes(store)
    )


def index_sizes(store: Store) -> tuple[IndexSize, ...]:
    """Every index of the store's schema with its size, largest first (PostgreSQL; the embedded
    file keeps its indexes inside the one file, whose size says it all)."""
    if store.dialect == "sqlite":
        return ()
    rows = store.connect().execute(
        "SELECT t.relname, c.relname, pg_relation_size(c.oid) FROM pg_index i"
        " JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_class t ON t.oid = i.indrelid"
        " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()"
        " ORDER BY 3 DESC, 2"
    )
    return tuple(IndexSize(str(r[0]), str(r[1]), int(r[2])) for r in rows)


def _columns(store: Store, table: str) -> list[str]:
    conn = store.connect()
    if store.dialect == "sqlite":
        return [r[1] for r in conn.execute(f'PRAGMA table_info("{table}")')]
    rows = conn.execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(?) AND attnum > 0"
        " AND NOT attisdropped ORDER BY attnum",
        (table,),
    )
    return [r[0] for r in rows]


def _identity_columns(target: Store, table: str) -> list[str]:
    rows = target.connect().execute(
        "SELECT attname FROM pg_attribute WHERE attrelid = to_regclass(?) AND attidentity <> ''", (table,)
    )
    return [r[0] for r in rows]


def move(
    source: Store,
    target: Store,
    migrations: Sequence[Sequence[Migration]],
    progress: Callable[[str, int, int], None] | None = None,
) -> MoveReport:
    """Copy `source` (an embedded store) into `target` (PostgreSQL); see the module doc.

    `migrations` are the domains' lists; those with a PostgreSQL text for every step are
    applied to the target first. `progress(table, done, total)` is called as rows go.
    """
    if source.dialect != "sqlite" or target.dialect != "postgres":
        raise StoreError("lore store migrate copies an embedded store into a PostgreSQL database")
    for steps in migrations:
        if all(m.postgres is not None for m in steps):
            target.migrate(steps)
    label = str(source.path)
    with target.transaction() as tx:
        tx.execute(
            "CREATE TABLE IF NOT EXISTS store_moves (source TEXT NOT NULL, table_name TEXT NOT NULL,"
            " rows BIGINT NOT NULL, moved_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (source, table_name))"
        )
    there = set(table_names(target))
    indexes = full_text_indexes(source)
    moved: list[TableMove] = []
    left: list[str] = []
    for table in table_names(source):
        if table == "schema_migrations" or table in indexes:
            continue
        if table not in there:
            left.append(table)
            continue
        moved.append(_move_table(source, target, table, label, progress))
    target_label = getattr(target, "label", str(target.path))
    return MoveReport(label, target_label, tuple(moved), tuple(left), tuple(sorted(indexes)))


def _move_table(
    source: Store, target: Store, table: str, label: str, progress: Callable[[str, int, int], None] | None
) -> TableMove:
    total = count_rows(source, table)
    done = (
        target.connect()
        .execute("SELECT rows FROM store_moves WHERE source = ? AND table_name = ?", (label, table))
        .fetchone()
    )
    if done is not None and done[0] == total:
        if progress:
            progress(table, total, total)
        return TableMove(table, total, 0, 0, skipped=True)
    wanted = set(_columns(source, table))
    columns = [c for c in _columns(target, table) if c in wanted]
    names = ", ".join(f'"{c}"' for c in columns)
    marks = ", ".join("?" for _ in columns)
    keyed = bool(target.primary_key(table))
    insert = f'INSERT INTO "{table}" ({names}) VALUES ({marks})'
    if keyed:
        insert += " ON CONFLICT DO NOTHING"
    copied = 0
    with target.transaction() as tx:
        before = count_rows(target, table)
        if not keyed and done is not None:  # an earlier run of this source copied a different count
            raise StoreError(
                f"table {table} was moved from {label} before with {done[0]} rows and now has {total};"
                " empty it in the target and run again"
            )
        rows = source.connect().execute(f'SELECT {names} FROM "{table}"')
        sent = 0
        while batch := rows.fetchmany(BATCH):
            tx.executemany(insert, [tuple(r) for r in batch])
            sent += len(batch)
            if progress:
                progress(table, sent, total)
        copied = count_rows(target, table) - before
        if (keyed and count_rows(target, table) < total) or sent != total:
            raise StoreError(f"table {table}: {total} rows in {label} but {sent} read; nothing was kept")
        for column in _identity_columns(target, table):
            tx.execute(
                f"SELECT setval(pg_get_serial_sequence('\"{table}\"', ?),"
                f' GREATEST((SELECT MAX("{column}") FROM "{table}"), 1))',
                (column,),
            )
        tx.execute(
            "INSERT INTO store_moves (source, table_name, rows, moved_at) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (source, table_name) DO UPDATE SET rows = excluded.rows, moved_at = excluded.moved_at",
            (label, table, total, time.time()),
        )
    return TableMove(table, total, copied, total - copied, skipped=False)
