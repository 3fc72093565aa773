"""What `lore history why` prints: its report as ranked evidence, or as JSON.

Shared by the Typer command (`lore.cli.history_why`) and the quick path that runs the same
command without Typer (`lore.cli.quick`), so both print the same bytes. Everything shown comes
from the repository (subjects, quotes, names) and is printed as plain `Text`, never parsed as
markup. A model's sentences are printed only after their quotes were found in the cited
evidence and the sentences grounded in it (`lore.history.why.answer`).
"""

from __future__ import annotations

from rich.text import Text

from lore.cli.common import console, print_json
from lore.history.ingest.gitlog import stored_path
from lore.history.queries.base import parse_time
from lore.history.repos import resolve_repo
from lore.history.why.evidence import NO_REASON, Evidence
from lore.history.why.service import WhyReport, why

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


def run_why(
    target: str, *, as_of: str | None, limit: int, no_model: bool, repo: str | None, as_json: bool
) -> None:
    """Answer `lore history why TARGET` with its options as typed, and print the report."""
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
