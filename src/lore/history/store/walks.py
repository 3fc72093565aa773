"""The reads that walk the graph from a file or a set of nodes: a file's timeline and story, and
the edges `why` follows hop by hop.

These are the longest statements of the store and the ones the engines spell differently (index
hints, JSON arrays of ids); their differing words come from `base.SPELLINGS`, so each statement
below is written once, with both engines' words side by side in one place.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from lore.history.store.base import LIVE, HistoryTables, Spelling
from lore.history.store.records import TimelineEntry


class Walks(HistoryTables):
    """A file's timeline and story, and the edges around a set of nodes."""

    def file_timeline(self, segments: Sequence[tuple[int, float, float]]) -> list[TimelineEntry]:
        """Every commit, PR and issue behind a file, nearest first, then newest first.

        `segments` are (path node, from, until): the stretches of time each path held the file.
        Depth 1: commits that changed a path inside its stretch and PRs whose file list has it;
        depth 2: the PRs those commits belong to; depth 3: issues and PRs those PRs close or
        mention.
        """
        conn = self.store.connect()
        params: list[Any] = [x for seg in segments for x in seg]
        rows = conn.execute(_file_timeline(self._spell, len(segments), _touching(self._spell)), params)
        return [TimelineEntry(*r) for r in rows]

    def file_story(
        self, commit_ids: Sequence[int], segments: Sequence[tuple[int, float, float]]
    ) -> list[TimelineEntry]:
        """`file_timeline` for commits already chosen by the lineage walk: those commits, the PRs
        whose file list has one of the paths inside its stretch, and what those lead to."""
        conn = self.store.connect()
        segments = list(segments) or [(0, 0.0, -1.0)]
        params: list[Any] = [x for seg in segments for x in seg]
        params.append(json.dumps(list(commit_ids)))
        rows = conn.execute(_file_timeline(self._spell, len(segments), _touching_known(self._spell)), params)
        return [TimelineEntry(*r) for r in rows]

    def edges_among(self, ids: Sequence[int]) -> list[tuple[int, int, str]]:
        """(src, dst, rel) of every edge whose two ends are both among `ids`.

        The edges are found from their source (the primary key, once per id) and their other
        end is only tested against the list: the unary `+` keeps SQLite from probing the
        `(dst, src)` index with every pair of ids, which costs the square of the ids given (an
        unrestricted walk reaches thousands of nodes) instead of the edges they have."""
        if not ids:
            return []
        conn = self.store.connect()
        rows = conn.execute(  # a JSON array, not one parameter per id: a walk may reach thousands
            f"WITH ids(id) AS ({self._spell.ids('?')}) SELECT src, dst, rel FROM history_edges"
            " WHERE src IN (SELECT id FROM ids) AND +dst IN (SELECT id FROM ids)",
            (json.dumps(list(ids)),),
        )
        return [(a, b, r) for a, b, r in rows]

    def links_of(
        self, ids: Sequence[int], rels: Sequence[str], until: float | None = None
    ) -> list[tuple[int, int, str, int]]:
        """(node, neighbour, rel, the neighbour's degree) for every edge of these types that
        touches one of `ids`, either way, is not later than `until` and is not a rewritten
        commit's."""
        if not ids or not rels:
            return []
        rows = self.store.connect().execute(
            f"WITH {_link_sets(self._spell)} {_edges_of('ids', self._spell)}",
            {"ids": json.dumps(list(ids)), "until": until, "rels": json.dumps(list(rels))},
        )
        return [(a, b, r, d) for a, b, r, d in rows]

    def links_two_hops(
        self, ids: Sequence[int], rels: Sequence[str], until: float | None, max_degree: int
    ) -> tuple[list[tuple[int, int, str, int]], list[tuple[int, int, str, int]]]:
        """`links_of(ids)`, and `links_of` the neighbours it found with at most `max_degree`
        edges (hubs are reached, not gone through), in one statement where a walk of two hops
        would make two round trips; a caller following only some of those neighbours keeps the
        second list's edges from them."""
        if not ids or not rels:
            return [], []
        rows = self.store.connect().execute(
            f"WITH {_link_sets(self._spell)}, one(node, other, rel, degree) AS"
            f" ({_edges_of('ids', self._spell)}),"
            " near(id) AS (SELECT DISTINCT other FROM one WHERE degree <= :max_degree)"
            " SELECT 1, node, other, rel, degree FROM one"
            f" UNION ALL SELECT 2, * FROM ({_edges_of('near', self._spell)}) AS two",
            {
                "ids": json.dumps(list(ids)),
                "until": until,
                "rels": json.dumps(list(rels)),
                "max_degree": max_degree,
            },
        )
        hops: tuple[list[tuple[int, int, str, int]], list[tuple[int, int, str, int]]] = ([], [])
        for hop, a, b, r, d in rows:
            hops[hop - 1].append((a, b, r, d))
        return hops

    def commit_people_and_prs(self, ids: Sequence[int]) -> list[tuple[int, int, str]]:
        """(commit, other node, rel) for the authors (AUTHORED) and PRs (PART_OF) of commits."""
        if not ids:
            return []
        conn = self.store.connect()
        rows = conn.execute(
            f"WITH ids(id) AS ({self._spell.ids(':ids')})"
            " SELECT src, dst, rel FROM history_edges WHERE src IN (SELECT id FROM ids) AND rel = 'PART_OF'"
            f" UNION ALL SELECT dst, src, rel FROM history_edges{self._spell.by_dst}"
            " WHERE dst IN (SELECT id FROM ids) AND rel = 'AUTHORED'",
            {"ids": json.dumps(list(ids))},
        )
        return [(a, b, r) for a, b, r in rows]


def _touching(spell: Spelling) -> str:
    """The timeline's first step: commits and PRs that modified a path inside its stretch."""
    return f"""touching AS (
    SELECT e.src AS id, MIN(e.at) AS at FROM seg s
    JOIN history_edges e{spell.by_dst} ON e.dst = s.file_id
    WHERE e.rel = 'MODIFIED' AND e.at >= s.since AND e.at <= s.until GROUP BY e.src
),"""


def _touching_known(spell: Spelling) -> str:
    """The story's first step, its commits already known (the lineage walk chose them, one JSON
    array parameter after the segments'): those commits, and the PRs that modified a path inside
    its stretch."""
    return f"""touching AS (
    SELECT e.src AS id, MIN(e.at) AS at FROM seg s
    JOIN history_edges e{spell.by_dst} ON e.dst = s.file_id
    JOIN history_nodes pn ON pn.id = e.src AND pn.kind = 'pr'
    WHERE e.rel = 'MODIFIED' AND e.at >= s.since AND e.at <= s.until GROUP BY e.src
    UNION SELECT {spell.id_value}, NULL FROM {spell.json_array.format("?")}
),"""


def _file_timeline(spell: Spelling, segments: int, touching: str) -> str:
    """Every commit, PR and issue behind a file from its first step `touching`: one `(?, ?, ?)`
    per stretch of time (`segments`) a path held the file."""
    return f"""
WITH seg(file_id, since, until) AS (VALUES {spell.segments(segments)}),
{touching}
prs AS (
    SELECT id, MIN(depth) AS depth, MIN(how) AS how FROM (
        SELECT t.id, 1 AS depth, 'MODIFIED' AS how FROM touching t
        JOIN history_nodes n ON n.id = t.id WHERE n.kind = 'pr'
        UNION ALL
        SELECT e.dst, 2, 'PART_OF' FROM touching t JOIN history_edges e ON e.src = t.id
        WHERE e.rel = 'PART_OF'
    ) GROUP BY id
),
linked AS (
    SELECT other AS id, MIN(depth) + 1 AS depth, MIN(rel) AS how FROM (
        SELECT e.dst AS other, p.depth, e.rel FROM prs p JOIN history_edges e ON e.src = p.id
        WHERE e.rel IN ('CLOSES', 'MENTIONS')
        UNION ALL
        SELECT e.src, p.depth, e.rel FROM prs p
        JOIN history_edges e{spell.by_dst} ON e.dst = p.id
        WHERE e.rel IN ('CLOSES', 'MENTIONS')
        UNION ALL
        SELECT e.dst, 1, e.rel FROM touching t JOIN history_edges e ON e.src = t.id
        WHERE e.rel IN ('CLOSES', 'MENTIONS')
    ) GROUP BY other
),
alls AS (
    SELECT id, depth, how FROM (
        SELECT id, depth, how, ROW_NUMBER() OVER (PARTITION BY id ORDER BY depth, how) AS r
        FROM (
            SELECT id, 1 AS depth, 'MODIFIED' AS how FROM touching
            UNION ALL SELECT id, depth, how FROM prs
            UNION ALL SELECT id, depth, how FROM linked
        )
    ) WHERE r = 1
)
SELECT n.id, n.kind, n.key, n.label, n.at, a.depth, a.how
FROM alls a JOIN history_nodes n ON n.id = a.id
ORDER BY a.depth, n.at IS NULL, n.at DESC, n.kind, n.key
"""


def _link_sets(spell: Spelling) -> str:
    """The id set and the relations of `links_of` and `links_two_hops` (JSON array parameters)."""
    return f"ids(id) AS ({spell.ids(':ids')}), rels(r) AS ({spell.texts(':rels')})"


# an edge `links_of` follows: not later than `:until`, and not a rewritten commit's
_LINK_WHEN = f"(CAST(:until AS DOUBLE PRECISION) IS NULL OR e.at IS NULL OR e.at <= :until) AND {LIVE}"


def _edges_of(nodes: str, spell: Spelling) -> str:
    """(node, neighbour, rel, the neighbour's degree) for the live edges of `rels` that touch a
    node of the set `nodes`, either way, not later than `:until`."""
    return (
        "SELECT e.src AS node, e.dst AS other, e.rel AS rel, n.degree AS degree FROM history_edges e"
        f" JOIN history_nodes n ON n.id = e.dst WHERE e.src IN (SELECT id FROM {nodes})"
        f" AND e.rel IN (SELECT r FROM rels) AND {_LINK_WHEN}"
        f" UNION ALL SELECT e.dst, e.src, e.rel, n.degree FROM history_edges e{spell.by_dst}"
        f" JOIN history_nodes n ON n.id = e.src WHERE e.dst IN (SELECT id FROM {nodes})"
        f" AND e.rel IN (SELECT r FROM rels) AND {_LINK_WHEN}"
    )
