"""`lore history extract`: a model proposes the project's decisions; code keeps the proven ones.

Sources are the GitHub threads of layer 1 (issues, PRs, their comments and review comments)
and the git layer itself (commit messages, merge and squash bodies), so a repository that was
never read from GitHub still gets decisions. The calls are planned without a model
(`sources.plan`: salience order, whole threads, a call budget), run a few at a time, and every
proposal goes through `guards.check` before anything is written (its quote, its speaker's
authority, its grounding). Its first step, before any model is asked, checks again the decisions
an earlier version stored unchecked (`recheck`): those are not served to agents until then. A source whose calls all
succeeded is marked read, with a digest of its text: the next run skips it without a call, and
reads it again only when its text changed (a new comment). Failed calls (a timeout, JSON that
would not parse even after a repair) leave their source unmarked for the next run.

Calls are counted under the subject `repo:<name>`; the report ends with calls, tokens and cost.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from lore.core.dates import to_epoch
from lore.core.errors import NeedsModel
from lore.core.grounding import GroundingCheck, default_embed
from lore.core.llm import ModelClient, StructuredResult, model_run, totals
from lore.core.llm.errors import ModelCallError
from lore.core.llm.tasks import HISTORY_EXTRACT
from lore.history.decisions import guards, sources
from lore.history.decisions.authority import first_parent_maintainers
from lore.history.decisions.recheck import recheck
from lore.history.decisions.schema import PROMPT_VERSION, SYSTEM, Proposals
from lore.history.decisions.store import NewDecision, open_decisions
from lore.history.repos import Repo, resolve_repo

BATCH = 4  # calls in flight at once (the client's own limit still applies)


@dataclass
class ExtractReport:
    repo: str
    model: str
    threads: int  # threads read in this run
    commits: int  # commit messages read in this run
    calls_planned: int
    calls_left_for_budget: int  # calls the budget did not allow (run again for more)
    failed_calls: int
    already_read: int  # sources skipped: read before, text unchanged
    skipped_threads: int  # nobody who can bind the project wrote in them
    skipped_commits: int  # bots, subject-only messages, authors who are not committers
    proposed: int
    kept: int
    dropped: dict[str, int] = field(default_factory=dict)
    # decisions stored unchecked by an earlier version, checked again in this run, by verdict
    rechecked: dict[str, int] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    usage_line: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def subject_of(repo: Repo) -> str:
    return f"repo:{repo.name}"


def what_a_model_adds(repo: Repo, plan: sources.Plan) -> str:
    threads = len(plan.threads)
    commits = sum(len(j.sections) for j in plan.commits)
    return (
        f"`lore history extract` needs a language model. With one it would read {threads} thread(s)"
        f" and {commits} commit message(s) of {repo.name} and keep the project decisions whose quote"
        " is found in the cited comment or commit and whose speaker can bind the project; the"
        " history graph and its queries work without one"
    )


def extract(
    repo: str | Repo | None = None,
    *,
    since: str | None = None,
    max_calls: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> ExtractReport:
    """Propose, check and store decisions for one repository; needs a configured model."""
    target = repo if isinstance(repo, Repo) else resolve_repo(repo)
    since_at = to_epoch(since, what="--since") if since else None
    db = open_decisions()
    maintainers = first_parent_maintainers(target.path)
    embed = default_embed()
    given = guards.context_words(target.name, target.github)
    rechecked = recheck(db, target.id, maintainers, GroundingCheck(embed=embed, given=given))
    everything = sources.plan(
        db, target.id, target.name, target.github, since=since_at, maintainers=maintainers
    )
    subject = subject_of(target)
    client = ModelClient(task=HISTORY_EXTRACT, subject=subject)
    try:
        label = client.spec().label
    except NeedsModel as exc:
        raise NeedsModel(f"{what_a_model_adds(target, everything)}. {exc}") from None
    extracted_by = f"{label} {PROMPT_VERSION}"
    done = db.marks(target.id, extracted_by)  # what this model, with this prompt, has read
    todo = sources.plan(
        db, target.id, target.name, target.github, since=since_at, done=done, maintainers=maintainers
    )
    already = _count_sources(everything) - _count_sources(todo)
    jobs, left = sources.in_budget(todo, max_calls)
    files = db.file_keys(target.id)
    held = db.decisions(target.id)
    kept: list[NewDecision] = []
    dropped: Counter[str] = Counter()
    proposed = failed = 0
    remaining = Counter(j.group for j in jobs)
    broken: set[str] = set()  # groups with a failed call: not marked, read again next run
    tick = progress or (lambda finished, total: None)
    tick(0, len(jobs))
    with model_run("history extract", subject=subject) as run_id:
        for start in range(0, len(jobs), BATCH):
            batch = jobs[start : start + BATCH]
            results = client.structured_many_sync(
                [j.prompt for j in batch], Proposals, system=SYSTEM, return_exceptions=True, temperature=0
            )
            new: list[NewDecision] = []
            finished: list[sources.Job] = []
            for job, result in zip(batch, results, strict=True):
                remaining[job.group] -= 1
                if isinstance(result, NeedsModel) or not isinstance(
                    result, StructuredResult | ModelCallError
                ):
                    raise result  # a missing key, or a bug: stop rather than mark sources read
                if isinstance(result, ModelCallError):
                    failed += 1
                    broken.add(job.group)
                    continue
                value: Proposals = result.value
                proposed += len(value.decisions)
                checked = guards.check(
                    value.decisions,
                    job.sections,
                    repo_id=target.id,
                    extracted_by=extracted_by,
                    files=files,
                    held=held,
                    kept_so_far=kept + new,
                    grounding=GroundingCheck(headers=job.headers, embed=embed, given=given),
                )
                new += checked.kept
                dropped += checked.dropped
                if remaining[job.group] == 0 and job.group not in broken:
                    finished.append(job)
            kept += new
            with db.transaction() as tx:
                tx.add_decisions(new)
                for job in finished:
                    for key, text_digest in job.sources:
                        n = sum(1 for d in kept if _group_of(d) == key)
                        tx.mark(target.id, key, text_digest, extracted_by, n)
            tick(min(start + BATCH, len(jobs)), len(jobs))
    used = totals(run_id=run_id, subject=subject)
    threads = len({j.group for j in jobs if j.group.startswith("item:")})
    commits = sum(len(j.sections) for j in jobs if not j.group.startswith("item:"))
    return ExtractReport(
        repo=target.name,
        model=extracted_by,
        threads=threads,
        commits=commits,
        calls_planned=len(jobs),
        calls_left_for_budget=left,
        failed_calls=failed,
        already_read=already,
        skipped_threads=everything.skipped_threads,
        skipped_commits=everything.skipped_commits,
        proposed=proposed,
        kept=len(kept),
        dropped=dict(dropped),
        rechecked=dict(rechecked),
        usage=used.as_dict(),
        usage_line=used.line(),
    )


def _group_of(d: NewDecision) -> str:
    return f"commit:{d.commit_sha}" if d.source_kind == "commit" else f"item:{d.item_number}"


def _count_sources(p: sources.Plan) -> int:
    return len(p.threads) + sum(len(j.sections) for j in p.commits)
