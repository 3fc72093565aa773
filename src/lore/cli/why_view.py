"""What `lore history why` prints: its report as ranked evidence, or as JSON.

Shared by the Typer command (`lore.cli.history_why`) and the quick path that runs the same
command without Typer (`lore.cli.quick`), so both print the same bytes. Everything shown comes
from the repository (subjects, quotes, names) and is printed as plain text, never parsed as
markup. A model's sentences are printed only after their quotes were found in the cited
evidence and the sentences grounded in it (`lore.history.why.answer`).

The report is first laid out as lines of styled pieces (`layout`). A terminal gets them through
the rich console (colours, and the wrapping a terminal's width asks for). Anything else (a pipe,
a file, an agent reading the output) gets the same lines written directly when the console
would print them unchanged, which is when every piece is plain printable text and no line
could reach the width the console wraps at: rich (a large share of a short `why`'s start-up)
is then never imported. `tests/cli/test_why_view.py` holds the two ways to the same bytes.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from lore.cli import common
from lore.cli.common import print_json
from lore.core.terminal import UNWRAPPED
from lore.history.ingest.gitlog import stored_path
from lore.history.queries.base import parse_time
from lore.history.repos import resolve_repo
from lore.history.why.evidence import NO_REASON, Evidence
from lore.history.why.service import WhyReport, why

if TYPE_CHECKING:  # rich loads only when the console lays the report out (`render`)
    from rich.text import Text

Piece = tuple[str, str]  # a piece of text and its style ("" for none)
Part = list[Piece]  # one printed line, or a whole line in one style when it is one piece
Unit = list[Part]  # what one `console.print` prints: its parts joined by newlines

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


def _item(n: int, e: Evidence) -> Unit:
    when = e.to_dict()["at"] or "-"
    status = ""
    if e.kind == "decision" and (e.superseded_by or e.valid_to):
        status = f" [superseded{' by ' + e.superseded_by if e.superseded_by else ''}]"
    head = [
        (f"{n:>2}. ", "bold"),
        (_name(e), "cyan"),
        (f" {when[:10]}  ", ""),
        (e.title, ""),
        (status, "yellow"),
    ]
    return [head, _reason(e), *([[(f"    {e.url}", "dim")]] if e.url else [])]


def _reason(e: Evidence) -> Part:
    """The reason the item's source gives, quoted; or plainly that it gives none."""
    if not e.quote:
        return [(f"    {NO_REASON}", "dim")]
    quote = " ".join(e.quote.split())
    where = " (in the subject)" if e.reason and e.reason.where == "title" else ""
    return [("    “", ""), (quote, "italic"), ("”", ""), (where, "dim")]


def layout(report: WhyReport) -> list[Unit]:
    """The report as printed: one unit per `console.print`, in order."""
    asked = stored_path(report.target)  # bytes a shell passed on that are not UTF-8, as `\xNN`
    # a question is shown as asked ("why is ..." stays one "why"); a path or line gets the word
    title = (asked if report.mode == "question" else f"why {asked}") + (
        f" (as of {report.to_dict()['as_of'][:10]})" if report.as_of else ""
    )
    units: list[Unit] = [[[(title, "bold")]]]
    if report.blamed:
        units.append([[(f"line last written by {report.blamed[:10]}", "dim")]])
    if report.answer:
        keys = {e.key: i for i, e in enumerate(report.evidence, start=1)}
        for s in report.answer:
            mark = f" ({s.superseded})" if s.superseded else ""
            units.append([[(s.text, ""), (f" [{keys.get(s.key, s.key)}]", "cyan"), (mark, "yellow")]])
        units.append([])
    if not report.evidence:
        units.append([[("no evidence found in the stored history", "dim")]])
    units.extend(_item(n, e) for n, e in enumerate(report.evidence, start=1))
    if report.note:
        units.append([[("note: ", "yellow"), (report.note, "")]])
    if report.calls:
        units.append([[(f"{report.calls} model call(s), {report.tokens:,} tokens", "dim")]])
    return units


def plain(units: list[Unit]) -> str | None:
    """What the console prints for `units` where it is no terminal, when that is the pieces as
    they are; None when the console must lay them out (a piece it would clean or expand, such
    as a control character, a tab or a line break, or a line that could reach `width`)."""
    width = _width()
    if width is None:
        return None
    lines = []
    for unit in units:
        for part in unit:
            line = "".join(text for text, _style in part)
            cells = len(line) if line.isascii() else 2 * len(line)  # at most two cells a character
            if not line.isprintable() or cells >= width:
                return None
            lines.append(line)
        if not unit:
            lines.append("")
    return "".join(f"{line}\n" for line in lines)


def _width() -> int | None:
    """The width the console would wrap at, when it would print plain text (no terminal, no
    colour forced); None when it could print anything else."""
    env = os.environ
    if env.get("FORCE_COLOR") is not None or env.get("TTY_COMPATIBLE") is not None:
        return None
    if common.stdout_is_terminal():
        return None
    columns = env.get("COLUMNS")
    if not columns:
        return UNWRAPPED
    return int(columns) if columns.isdigit() else None


def _text(unit: Unit) -> Text:
    from rich.text import Text

    parts = [Text(p[0][0], style=p[0][1]) if len(p) == 1 else Text.assemble(*p) for p in unit]
    return parts[0] if len(parts) == 1 else Text("\n").join(parts)


def render(report: WhyReport) -> None:
    units = layout(report)
    text = plain(units)
    if text is not None:
        common.write(text)
        return
    console = common.console  # made on first use, rich with it
    for unit in units:
        if unit:
            console.print(_text(unit))
        else:
            console.print()


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
