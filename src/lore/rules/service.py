"""The rules service: what the CLI, the MCP server and the web UI call.

Each function takes plain values, does one thing, and raises a LoreError with a readable line
when it cannot.
"""

from __future__ import annotations

import heapq
import secrets
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from lore.core.config import load_settings
from lore.core.errors import AlreadyExists, InvalidInput, NeedsModel, NotFound
from lore.core.globs import parse_patterns
from lore.core.text import Tokenizer, build_tokenizer
from lore.rules import projects as proj
from lore.rules.gate.validation import check_rule_fields
from lore.rules.models import SOURCES, Project, Rule
from lore.rules.scopes import normalize_scope
from lore.rules.serve.index import project_index
from lore.rules.serve.selection import HYBRID, MODES, RulesReply, choose, fuse
from lore.rules.store.rules import RulesStore, rules_store
from lore.rules.store.sessions import session_store

LISTED_NOTE = "listed:"


def tokenizer() -> Tokenizer:
    return build_tokenizer(load_settings().tokenizer)


# -- projects -------------------------------------------------------------------------------
def register_project(path: str | Path, store: RulesStore | None = None) -> tuple[Project, bool]:
    """Register the git repository holding `path`; returns (project, newly registered)."""
    store = store or rules_store()
    root = proj.project_root(Path(path))
    sections = None
    for _attempt in range(3):
        existing = store.project_by_path(root)
        if existing:
            return existing, False
        sections = sections if sections is not None else proj.sections_of(root)
        name = proj.unique_name(root, {p.name for p in store.projects()})
        try:
            return store.insert_project(name, root, sections), True
        except AlreadyExists:  # another process took this path or name meanwhile
            continue
    raise InvalidInput(f"could not register {root}: its name kept colliding with new projects")


def list_projects() -> list[Project]:
    return rules_store().projects()


def find_project(name_or_path: str | None, cwd: Path | None = None) -> Project:
    """A project by name, by a path inside it, or (None) the one of the current folder."""
    store = rules_store()
    if name_or_path:
        found = store.project_by_name(name_or_path)
        if found:
            return found
        if _looks_like_path(name_or_path):
            root = proj.git_root(Path(name_or_path))
            if root and (found := store.project_by_path(root)):
                return found
        raise NotFound(f"no project named {name_or_path!r}; see `lore projects`")
    root = proj.git_root(cwd or Path.cwd())
    if root and (found := store.project_by_path(root)):
        return found
    raise NotFound("this folder is not a registered project; pass --name NAME (see `lore projects`)")


def _looks_like_path(text: str) -> bool:
    """A name is only read as a path when it says so: a separator, `.`/`~`, or an existing path.

    Otherwise a mistyped name would silently resolve to the project of the current folder.
    """
    return "/" in text or "\\" in text or text.startswith((".", "~")) or Path(text).exists()


def project_for_path(path: str | Path) -> Project | None:
    root = proj.git_root(Path(path))
    return rules_store().project_by_path(root) if root else None


def refresh_map(project: Project) -> Project:
    store = rules_store()
    store.update_sections(project.id, proj.sections_of(project.path))
    return store.project_by_id(project.id)  # type: ignore[return-value]


# -- rules ----------------------------------------------------------------------------------
def parse_triggers(value: str | Iterable[str] | None) -> list[str]:
    words = parse_patterns(value if not isinstance(value, str) else value.replace(";", ","))
    return [w.strip().lower() for w in words if w.strip()]


def add_rule(
    project: Project,
    text: str,
    *,
    title: str = "",
    triggers: str | Iterable[str] | None = None,
    always: bool = False,
    scope: object = None,
    status: str = "active",
    source: str = "user",
    auto: bool = False,
    evidence: Sequence[dict[str, Any]] = (),
    tagged: bool | None = None,
    held: str = "",
) -> Rule:
    """Store a rule after the outright refusals (hidden characters, HTML comments, length);
    `held` is the gate's reason when it held the rule for its wording."""
    text = text.strip()
    title = (title or "").strip()
    trigger_list = parse_triggers(triggers)
    check_rule_fields(text, title, trigger_list)
    if source not in SOURCES:
        raise InvalidInput(f"unknown rule source {source!r}; one of {', '.join(SOURCES)}")
    if status not in ("active", "pending"):
        raise InvalidInput(f"unknown status {status!r}; active or pending")
    entries = normalize_scope(scope, project.sections, project.path)
    is_tagged = tagged if tagged is not None else bool(title or trigger_list or always)
    return rules_store().insert_rule(
        project.id,
        {
            "text": text,
            "title": title,
            "triggers": trigger_list,
            "always": always,
            "scope": entries,
            "status": status,
            "source": source,
            "auto": auto,
            "tagged": is_tagged,
            "evidence": list(evidence),
            "held": held,
        },
    )


ID_PREFIX_MIN = 4  # shorter prefixes match too many rules to be worth guessing


def get_rule(rule_id: str, project: Project | None = None) -> Rule:
    """A rule by its full id or a unique prefix of at least 4 hex characters.

    The one id rule of every interface (CLI review commands, MCP include and tag_rules, the web
    UI): an ambiguous prefix is named with its candidates, an unknown id is said.
    """
    wanted = rule_id.strip().lower()
    store = rules_store()
    rule = store.rule(wanted)
    if rule is not None and (project is None or rule.project_id == project.id):
        return rule
    where = f" in project {project.name!r}" if project else ""
    shown = wanted[:40]
    if not wanted:
        raise InvalidInput("no rule id given")
    if len(wanted) < ID_PREFIX_MIN:
        raise InvalidInput(
            f"{shown!r} is too short for a rule id: give the full id or at least "
            f"{ID_PREFIX_MIN} of its characters"
        )
    matches = store.rules_by_prefix(wanted)
    if project is not None:
        matches = [r for r in matches if r.project_id == project.id]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        named = ", ".join(r.id for r in matches[:5]) + (", ..." if len(matches) > 5 else "")
        raise InvalidInput(f"{shown!r} matches {len(matches)} rules{where} ({named}); give more of the id")
    raise NotFound(f"no rule {shown!r}{where}")


def resolve_ids(project: Project, ids: Iterable[str]) -> tuple[list[str], list[str]]:
    """(full ids, one problem line per id that names no single rule of the project)."""
    found: list[str] = []
    problems: list[str] = []
    for raw in ids:
        if not raw or not raw.strip():
            continue
        try:
            rule = get_rule(raw, project)
        except (InvalidInput, NotFound) as exc:
            problems.append(str(exc))
            continue
        if rule.id not in found:
            found.append(rule.id)
    return found, problems


def list_rules(
    project: Project,
    *,
    status: str | None = None,
    auto_only: bool = False,
    source: str | None = None,
    file: str | None = None,
    scope: str | None = None,
) -> list[Rule]:
    """A project's rules, narrowed by status, automatic mark, source (`memorize`, `agent`, ...),
    the instruction file an imported rule came from, and scope (`global`, a section or a glob)."""
    rules = rules_store().rules(project.id, status)
    if auto_only:
        rules = [r for r in rules if r.auto]
    if source:
        if source not in SOURCES:
            raise InvalidInput(f"unknown rule source {source!r}; one of {', '.join(SOURCES)}")
        rules = [r for r in rules if r.source == source]
    if file:
        wanted = file.strip().removeprefix("./")
        rules = [r for r in rules if wanted in r.files() or r.origin == wanted]
    if scope:
        wanted = scope.strip()
        rules = [r for r in rules if wanted in (r.scope_text, *r.scope, *(e.rstrip("/") for e in r.scope))]
    return rules


def by_origin(rules: Iterable[Rule]) -> list[tuple[str, list[Rule]]]:
    """Rules grouped by where they came from (`Rule.origin`), groups in the order first seen."""
    groups: dict[str, list[Rule]] = {}
    for rule in rules:
        groups.setdefault(rule.origin, []).append(rule)
    return list(groups.items())


BULK_ACTIONS = ("approve", "reject")


def apply_many(action: str, rules: Sequence[Rule]) -> list[Rule]:
    """Approve or reject many rules in one transaction: approving activates them and clears the
    automatic mark, rejecting deletes them. Returns the rules as they are now (approve) or were
    (reject); rules deleted meanwhile are left out."""
    ids = [r.id for r in rules]
    if action == "approve":
        return rules_store().set_status_many(ids, "active")
    if action == "reject":
        return rules_store().delete_rules(ids)
    raise InvalidInput(f"unknown action {action!r}; one of {', '.join(BULK_ACTIONS)}")


def approve(rule: Rule) -> Rule:
    """Activate a rule by hand; a person's approval clears the automatic mark."""
    return _update(rule, status="active", auto=False)


def unapprove(rule: Rule) -> Rule:
    return _update(rule, status="pending", auto=False)


def reject(rule: Rule) -> Rule:
    """Delete a rule (pending or active)."""
    removed = rules_store().delete_rule(rule.id)
    if removed is None:
        raise NotFound(f"no rule {rule.id!r}")
    return removed


def pin(rule: Rule, always: bool = True) -> Rule:
    return _update(rule, always=always, tagged=True)


def tag(
    rule: Rule,
    *,
    title: str | None = None,
    triggers: str | Iterable[str] | None = None,
    always: bool | None = None,
) -> Rule:
    """Save an agent's or user's tags: title, trigger words, always."""
    changes: dict[str, Any] = {"tagged": True}
    if title is not None:
        changes["title"] = title.strip()
    if triggers is not None:
        changes["triggers"] = parse_triggers(triggers)
    if always is not None:
        changes["always"] = bool(always)
    check_rule_fields(rule.text, changes.get("title", ""), changes.get("triggers", ()))
    return _update(rule, **changes)


def edit(
    rule: Rule, *, text: str | None = None, scope: object = None, project: Project | None = None, **tags: Any
) -> Rule:
    changes: dict[str, Any] = {}
    if text is not None:
        check_rule_fields(text.strip())
        changes["text"] = text.strip()
        changes["held"] = ""  # a person wrote this text: the gate's word on the old one is moot
    if scope is not None:
        project = project or rules_store().project_by_id(rule.project_id)
        changes["scope"] = normalize_scope(scope, project.sections, project.path)  # type: ignore[union-attr]
    if changes:
        rule = _update(rule, **changes)
    return tag(rule, **tags) if tags else rule


def _update(rule: Rule, **changes: Any) -> Rule:
    updated = rules_store().update_rule(rule.id, changes)
    if updated is None:
        raise NotFound(f"no rule {rule.id!r}")
    return updated


# -- sessions and choosing --------------------------------------------------------------------
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


@dataclass
class SearchHit:
    rule: Rule
    score: float
    by_meaning: bool = False  # no word of the query is in the rule: it is only near in meaning

    def line(self) -> str:
        text = " ".join(self.rule.text.split())
        return f"- {self.rule.id} [{self.rule.scope_text}] {self.rule.label}: {text}"


NEAREST_BY_MEANING = 3  # offered when no rule shares a word with the query


def search_rules(project: Project, query: str, limit: int = 10, mode: str | None = None) -> list[SearchHit]:
    """Active rules ranked against a query: the rules sharing its words (BM25, scope words
    included), reordered in `hybrid` mode by meaning and words fused as in selection; when no
    rule shares a word, `hybrid` offers the few nearest by meaning, marked as such (a static
    model's cosine cannot tell "related" from "unrelated" well enough to promise a match)."""
    if not query.strip():
        raise InvalidInput("search needs a query (a few words about what you are looking for)")
    tok = tokenizer()
    index = project_index(rules_store(), project.id, tok)
    embedder, _ = _mode_embedder(mode or selection_mode())
    with index.lock:
        scores: dict[str, float] = {str(k): v for k, v in index.search.scores(tok.tokens(query)).items()}
        by_meaning = False
        if embedder is not None and index.rules:
            sims = index.meaning.similarities(embedder, query)
            if scores:
                fused = fuse(scores, sims, None, len(index.rules), weight=1.0)
                scores = {rid: fused[rid] for rid in scores}
            else:
                scores, by_meaning = fuse({}, sims, None, NEAREST_BY_MEANING), True
        ranked = heapq.nsmallest(
            max(1, limit), scores.items(), key=lambda kv: (-kv[1], index.rules[kv[0]].created_at)
        )
        return [SearchHit(index.rules[rid], score, by_meaning) for rid, score in ranked]


def untagged_covering(project: Project, paths: Iterable[str | Path]) -> list[Rule]:
    """Active rules without tags whose scope covers at least one of the files."""
    split = split_paths(project, paths)
    index = project_index(rules_store(), project.id, tokenizer())
    with index.lock:
        groups = index.eligible(split.inside)
        return [
            index.rules[rid] for g in groups.values() for _, rid in g.members if not index.rules[rid].tagged
        ]


def usage(project: Project) -> list[Rule]:
    """Active rules by how often agents received them, never-served first."""
    rules = rules_store().rules(project.id, "active")
    return sorted(rules, key=lambda r: (r.served_count, r.last_served_at or 0, r.created_at))


def agent_outcomes(project: Project, limit: int = 500) -> dict[str, dict[str, Any]]:
    """Per rule, the latest thing an agent's session did with it here (activated or left it
    waiting) and why, so the UI can show the gate's reason next to the rule."""
    latest: dict[str, dict[str, Any]] = {}
    for row in session_store().outcomes(project.id, limit):  # newest first
        latest.setdefault(row.rule_id, asdict(row))
    return latest
