"""Choosing a change's rules: the selection mode, the paths a project covers, the reply for a change,
and the active untagged rules that cover some files.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lore.core.config import load_settings
from lore.core.errors import InvalidInput, NeedsModel
from lore.core.text import Tokenizer, build_tokenizer
from lore.rules import projects as proj
from lore.rules.models import Project, Rule
from lore.rules.serve.index import project_index
from lore.rules.serve.reply import HYBRID, MODES, RulesReply
from lore.rules.serve.selection import choose
from lore.rules.store.rules import rules_store

LISTED_NOTE = "listed:"


def tokenizer() -> Tokenizer:
    return build_tokenizer(load_settings().tokenizer)


def new_session_id() -> str:
    """A session's id; its row is written by the session itself (see `rules.agent`)."""
    return secrets.token_hex(8)


@dataclass
class PathSplit:
    """Given paths split into those inside the project (relative) and those outside."""

    inside: list[str]
    outside: list[str]


def selection_mode() -> str:
    """`hybrid` (meaning and words) unless `LORE_RULES_SELECTION` or config `rules.selection` says
    `spec` (seed 003's keyword selection, exactly)."""
    import os

    value = os.environ.get("LORE_RULES_SELECTION") or load_settings().section("rules").get("selection")
    return check_mode(value) if value else HYBRID


def check_mode(value: object) -> str:
    mode = str(value).strip().lower()
    if mode not in MODES:
        raise InvalidInput(f"unknown rule selection mode {value!r}: use {' or '.join(MODES)}")
    return mode


def _mode_embedder(mode: str) -> tuple[Any, str]:
    """The embedder a mode ranks with (None for `spec`), and a note when hybrid must fall back."""
    if check_mode(mode) != HYBRID:
        return None, ""
    from lore.rules.serve.meaning import semantic_embedder

    try:
        return semantic_embedder(), ""
    except NeedsModel as exc:
        return None, f"Rules were chosen by keywords only (spec): {exc}."


def split_paths(project: Project, paths: Iterable[str | Path]) -> PathSplit:
    inside, outside = [], []
    for raw in paths:
        rel = proj.relative_path(project.path, raw)
        if rel is None:
            outside.append(str(raw))
        elif rel and rel not in inside:
            inside.append(rel)
    return PathSplit(inside, outside)


def rules_for_change(
    project: Project,
    paths: Iterable[str | Path],
    *,
    task: str | None = None,
    include: Iterable[str] = (),
    refresh: bool = False,
    max_tokens: int | None = None,
    already_sent: Iterable[str] = (),
    listed_before: Iterable[str] = (),
    mode: str | None = None,
) -> RulesReply:
    """The engine's reply for a change; it records nothing.

    A session passes what it already sent and listed; it records the delivery itself once the
    reply has reached the agent (a cancelled call must not count as delivered). `mode` is
    `hybrid` or `spec` (default: `selection_mode()`).
    """
    store = rules_store()
    tok = tokenizer()
    embedder, fallback = _mode_embedder(mode or selection_mode())
    split = split_paths(project, paths)
    sections = sorted({s for p in split.inside if (s := proj.section_of(project.sections, p))})
    index = project_index(store, project.id, tok)
    with index.lock:
        reply = choose(
            index,
            tok,
            project=project.name,
            paths=split.inside,
            sections=sections,
            task=task,
            include=include,
            already_sent=set(already_sent),
            listed_before=set(listed_before),
            refresh=refresh,
            max_tokens=max_tokens,
            embedder=embedder,
        )
    if fallback:
        reply.notes.append(fallback)
    if split.outside:
        reply.notes.append(
            f"{len(split.outside)} path(s) are outside project `{project.name}` and were not "
            f"considered: {', '.join(split.outside[:5])}"
        )
    return reply


def untagged_covering(project: Project, paths: Iterable[str | Path]) -> list[Rule]:
    """Active rules without tags whose scope covers at least one of the files."""
    split = split_paths(project, paths)
    index = project_index(rules_store(), project.id, tokenizer())
    with index.lock:
        groups = index.eligible(split.inside)
        return [
            index.rules[rid] for g in groups.values() for _, rid in g.members if not index.rules[rid].tagged
        ]
