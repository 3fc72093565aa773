"""The vector index's SQL, one job per module.

`schema` (the tables, on each engine), `records` (what goes in and comes out), `store`
(`VectorStore`: writes, counts, loads, the search entry point), `filters` (a search's filter as
each engine's SQL), `sqlite_vec` (the SQL scan on SQLite), and, on PostgreSQL only, `pgvector`
(the exact scan) and `indexes` (the b-trees searches build on first use).
The logic above the SQL is `lore.core.vectors`.
"""
