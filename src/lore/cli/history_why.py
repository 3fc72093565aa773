"""`lore history why` and `lore history eval`: the evidence behind code, and how well it is found.

Everything shown comes from the repository (subjects, quotes, names) and is printed as plain
`Text`, never parsed as markup. A model's sentences are printed only after their quotes were
found in the cited evidence and the sentences grounded in it (`lore.history.why.answer`).
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from lore.cli import history
from lore.cli.common import console, err_console, handle_errors, print_json
from lore.history.ingest.gitlog import stored_path
from lore.history.queries import parse_time
from lore.history.repos import resolve_repo
from lore.history.why.evidence import NO_REASON, Evidence
from lore.history.why.service import WhyReport, why

app = typer.Typer()

_KIND = {
    "commit": "commit",
    "pr": "PR",
    "issue": "issue",
    "issue_comment": "comment",
    "review_comment": "review",
}


def _name(e: Evidence) -> str:
    if e.kind == "commit":
        return e.ref
    if e.kind in ("pr", "issue"):
        return f"{_KIND[e.kind]} {e.ref}"
    return _KIND.get(e.kind, e.kind)


def _line(n: int, e: Evidence) -> Text:
    when = e.to_dict()["at"] or "-"
    status = ""
    if e.kind == "decision" and (e.superseded_by or e.valid_to):
        status = f" [superseded{' by ' + e.superseded_by if e.superseded_by else ''}]"
    head = Text.assemble(
        (f"{n:>2}. ", "bold"),
        (_name(e), "cyan"),
        f" {when[:10]}  ",
        e.title,
        (status, "yellow"),
    )
    body = _reason(e)
    link = Text(f"    {e.url}", style="dim") if e.url else Text("")
    return Text("\n").join([head, body, *([link] if e.url else [])])


def _reason(e: Evidence) -> Text:
    """The reason the item's source gives, quoted; or plainly that it gives none."""
    if not e.quote:
        return Text(f"    {NO_REASON}", style="dim")
    quote = " ".join(e.quote.split())
    where = " (in the subject)" if e.reason and e.reason.where == "title" else ""
    return Text.assemble("    “", (quote, "italic"), "”", (where, "dim"))


def render(report: WhyReport) -> None:
    asked = stored_path(report.target)  # bytes a shell passed on that are not UTF-8, as `\xNN`
    # a question is shown as asked ("why is ..." stays one "why"); a path or line gets the word
    title = (asked if report.mode == "question" else f"why {asked}") + (
        f" (as of {report.to_dict()['as_of'][:10]})" if report.as_of else ""
    )
    console.print(Text(title, style="bold"))
    if report.blamed:
        console.print(Text(f"line last written by {report.blamed[:10]}", style="dim"))
    if report.answer:
        keys = {e.key: i for i, e in enumerate(report.evidence, start=1)}
        for s in report.answer:
            mark = f" ({s.superseded})" if s.superseded else ""
            console.print(Text.assemble(s.text, (f" [{keys.get(s.key, s.key)}]", "cyan"), (mark, "yellow")))
        console.print()
    if not report.evidence:
        console.print(Text("no evidence found in the stored history", style="dim"))
    for n, e in enumerate(report.evidence, start=1):
        console.print(_line(n, e))
    if report.note:
        console.print(Text.assemble(("note: ", "yellow"), report.note))
    if report.calls:
        console.print(Text(f"{report.calls} model call(s), {report.tokens:,} tokens", style="dim"))


@app.command("why")
@handle_errors
def why_command(
    target: str = typer.Argument(..., help="A question, a PATH, or PATH:LINE."),
    as_of: str = typer.Option(None, "--as-of", help="Only evidence that existed then (a date)."),
    limit: int = typer.Option(10, "--limit", "-n", min=1, max=50, help="Evidence items to show."),
    no_model: bool = typer.Option(False, "--no-model", help="Only the ranked evidence, even with a model."),
    repo: str = history.REPO_OPT,
    as_json: bool = history.JSON_OPT,
) -> None:
    """Why the code is like this: ranked evidence, each quoting the reason its source gives (or saying
    none is stated), the subject as its title; with a model, a cited answer."""
    report = why(
        resolve_repo(repo),
        target,
        as_of=parse_time(as_of),
        limit=limit,
        use_model=False if no_model else None,
    )
    if as_json:
        print_json(report.to_dict())
        return
    render(report)


@app.command("eval")
@handle_errors
def eval_command(
    questions: Path = typer.Option(
        None, "--questions", help="The question file (default: drafted into $LORE_HOME/eval/ on first use)."
    ),
    redraft: bool = typer.Option(False, "--draft", help="Draft the questions again, replacing the file."),
    repo: str = history.REPO_OPT,
    as_json: bool = history.JSON_OPT,
) -> None:
    """recall@10 of hybrid retrieval against vector-only chunks, per question category."""
    from lore.core.home import lore_home
    from lore.history.why import evaluate

    chosen = resolve_repo(repo)
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in chosen.name)
    path = questions or lore_home() / "eval" / f"history-{safe}.json"
    if redraft or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        evaluate.save(evaluate.draft(chosen), path, chosen)
        err_console.print(Text(f"drafted questions into {path} (unreviewed: edit them, then set reviewed)"))
    asked, reviewed = evaluate.load(path)
    result = evaluate.run(chosen, asked)
    if as_json:
        print_json({"questions": str(path), "reviewed": reviewed, "recall_at_10": result})
        return
    console.print(Text(f"{len(asked)} questions from {path}" + ("" if reviewed else " (NOT reviewed)")))
    for category, splits in result.items():
        for split, row in splits.items():
            console.print(
                Text(
                    f"{category:<11} {split:<8} n={row['n']:<3} hybrid {row['hybrid']:.3f}  vector {row['vector']:.3f}"
                )
            )
