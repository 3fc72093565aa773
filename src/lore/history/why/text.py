"""`why` and a file's history as plain text, for readers without a terminal (the MCP tools)."""

from __future__ import annotations

from typing import Any

from lore.history.why.evidence import NO_REASON, Evidence
from lore.history.why.service import WhyReport

_KIND = {
    "commit": "commit",
    "pr": "PR",
    "issue": "issue",
    "issue_comment": "comment",
    "review_comment": "review",
}


def evidence_line(n: int, e: Evidence) -> str:
    data = e.to_dict()
    name = (
        e.ref
        if e.kind == "commit"
        else (f"{_KIND[e.kind]} {e.ref}" if e.kind in ("pr", "issue") else _KIND.get(e.kind, e.kind))
    )
    status = ""
    if e.kind == "decision" and (e.superseded_by or e.valid_to):
        status = " [SUPERSEDED" + (f" by {e.superseded_by}" if e.superseded_by else "") + ", no longer holds]"
    when = (data["at"] or "-")[:10]
    if e.quote:
        where = " (in the subject)" if e.reason and e.reason.where == "title" else ""
        said = f'   reason: "{" ".join(e.quote.split())}"{where}'
    else:
        said = f"   reason: {NO_REASON}"
    lines = [f"{n}. {name} ({when}) {e.title}{status}", said]
    if e.url:
        lines.append(f"   {e.url}")
    return "\n".join(lines)


def report_text(report: WhyReport) -> str:
    asked = report.target.rstrip("?")
    head = (
        f"{asked[:1].upper()}{asked[1:]}, in {report.repo}"
        if asked.lower().startswith("why ")
        else f"Why {asked} in {report.repo}"
    )
    if report.as_of:
        head += f", as of {report.to_dict()['as_of'][:10]}"
    out = [head + ":"]
    if report.blamed:
        out.append(f"(the line was last written by commit {report.blamed[:10]})")
    for s in report.answer:
        out.append(f"- {s.text} [{s.key}]" + (f" ({s.superseded})" if s.superseded else ""))
    if not report.evidence:
        out.append("No evidence found in the stored history.")
    out += [evidence_line(n, e) for n, e in enumerate(report.evidence, start=1)]
    return "\n".join(out)


def file_text(data: dict[str, Any]) -> str:
    paths = " <- ".join(p["path"] for p in data["paths"])
    counts = ", ".join(f"{k} {v}" for k, v in sorted(data["counts"].items()))
    out = [f"{paths} ({counts}); nearest first, then newest:"]
    for e in data["entries"]:
        if e["kind"] == "commit":
            name = f"commit {e.get('sha', e['key'])[:10]}"
        else:
            name = f"{'PR' if e['kind'] == 'pr' else e['kind']} #{e['key']}"
        out.append(f"- [{e['depth']}] {(e['at'] or '-')[:10]} {name}: {e['label']} ({e['how'].lower()})")
    return "\n".join(out)
