"""What `lore history why` prints is the same bytes whether the rich console lays it out or the
lines are written directly (where nothing is a terminal and the console would print the pieces
as they are): each report is printed by `render` and compared with what the terminal-safe
console prints for the same lines off a terminal.
"""

from __future__ import annotations

import io

import pytest

from lore.cli.consoles import SafeConsole
from lore.cli.why_view import _text, layout, plain, render
from lore.history.why.answer import Cited
from lore.history.why.evidence import Evidence
from lore.history.why.reasons import Reason
from lore.history.why.service import WhyReport

AT = 1_700_000_000.0


def _commit(n: int, title: str, quote: str = "", where: str = "body") -> Evidence:
    reason = Reason(quote, 0, len(quote), where) if quote else None
    return Evidence(
        key=f"commit:{n:040x}",
        kind="commit",
        unit=f"commit:{n:040x}",
        title=title,
        text=f"{title}\n\n{quote}",
        at=AT + n,
        ref=f"{n:010x}",
        quote=quote,
        reason=reason,
    )


def _thread(kind: str, number: int, title: str, url: str) -> Evidence:
    return Evidence(
        key=f"{kind}:{number}",
        kind=kind,
        unit=f"{kind}:{number}",
        title=title,
        text=title,
        at=None,
        ref=f"#{number}",
        url=url,
    )


DECISION = Evidence(
    key="decision:7",
    kind="decision",
    unit="decision:7",
    title="Keep totals in cents",
    text="Keep totals",
    at=AT,
    quote="we keep totals in cents",
    valid_to=AT + 10,
    superseded_by="decision:9",
)

ORDINARY = WhyReport(
    "shop",
    "why are totals rounded?",
    "question",
    None,
    [
        _commit(1, "Round totals to cents (#12)", "Because customers saw totals like 9.999 in the cart."),
        _commit(2, "⬆️ Bump httpx to 0.28 [bold]not markup[/bold]", "to avoid", where="title"),
        _thread("pr", 12, "Round totals — Ünïcode, 漢字 and emoji 🚀", "https://github.com/o/shop/pull/12"),
        _thread("issue_comment", 3, "comment on PR #12", "https://github.com/o/shop/pull/12#c3"),
        DECISION,
    ],
    answer=[Cited("Totals are rounded to cents.", "commit:" + f"{1:040x}", "Because", "superseded on 2024")],
    note="an index behind; With a model configured, `why` also writes a short answer",
    blamed="0123456789abcdef",
    calls=2,
    tokens=12345,
)


def _with(report: WhyReport, **changes: object) -> WhyReport:
    return WhyReport(**{**report.__dict__, **changes})  # type: ignore[arg-type]


CASES = {
    "ordinary": ORDINARY,
    "path, as of a date, nothing found": _with(
        ORDINARY, target="shop/cart.py", mode="path", as_of=AT, evidence=[], answer=[], calls=0, note=""
    ),
    "a tab in a subject": _with(ORDINARY, evidence=[_commit(1, "Round\ttotals", "because")]),
    "an escape sequence in a subject": _with(
        ORDINARY, evidence=[_commit(1, "Round \x1b]0;owned\x07 totals")]
    ),
    "a bidi override in a quote": _with(ORDINARY, evidence=[_commit(1, "Round", "because \u202eevil")]),
    "a line break in a PR title": _with(ORDINARY, evidence=[_thread("pr", 1, "two\nlines", "https://x")]),
    "a quote longer than any line the console keeps whole": _with(
        ORDINARY, evidence=[_commit(1, "Round", "because " + "word " * 12_000)]
    ),
    "a target with bytes that are not UTF-8": _with(ORDINARY, target="shop/caf\udce9.py", mode="path"),
}
# the cases whose lines the console would clean, expand or wrap: those go through rich
LAID_OUT = {
    "a tab in a subject",
    "an escape sequence in a subject",
    "a bidi override in a quote",
    "a line break in a PR title",
    "a quote longer than any line the console keeps whole",
}


def _through_rich(report: WhyReport) -> str:
    out = io.StringIO()
    console = SafeConsole(file=out)
    for unit in layout(report):
        console.print(_text(unit)) if unit else console.print()
    return out.getvalue()


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_report_is_the_consoles_bytes_either_way(
    case: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE", "COLUMNS"):
        monkeypatch.delenv(var, raising=False)
    report = CASES[case]
    assert (plain(layout(report)) is None) == (case in LAID_OUT)
    render(report)
    assert capsys.readouterr().out == _through_rich(report)


def test_a_set_width_is_kept_and_a_forced_colour_is_the_consoles(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("FORCE_COLOR", "TTY_COMPATIBLE"):
        monkeypatch.delenv(var, raising=False)
    units = layout(ORDINARY)
    lines = ["".join(text for text, _style in part) for unit in units for part in unit]
    widest = max(len(line) if line.isascii() else 2 * len(line) for line in lines)
    monkeypatch.setenv("COLUMNS", str(widest + 1))
    assert plain(units) is not None
    monkeypatch.setenv("COLUMNS", str(widest))  # a line could reach it: rich wraps
    assert plain(units) is None
    monkeypatch.delenv("COLUMNS")
    monkeypatch.setenv("FORCE_COLOR", "1")
    assert plain(units) is None
