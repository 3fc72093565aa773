"""`lore books ask` and `lore books eval`: cited answers within your reading position, and
their evaluation. A part of the `books` group (`cli/lazy.py`), imported only when one of them runs."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape

from lore.cli.common import console, err_console, existing, handle_errors, print_json
from lore.core.errors import InvalidInput

app = typer.Typer()

SWITCH_HELP = "this run, both arms of a --switch comparison (default: config books.ask.{name}, on)"


@app.command("ask")
@handle_errors
def ask_cmd(
    words: list[str] = typer.Argument(..., help="BOOK QUESTION, or QUESTION with --series."),
    series: str = typer.Option(
        None,
        "--series",
        help="Ask across every book of this series (its name or a unique beginning), in story order.",
    ),
    spoilers: bool = typer.Option(
        False, "--spoilers", help="Lift your reading position, for this question only."
    ),
    no_model: bool = typer.Option(
        False, "--no-model", help="Answer from the text alone, even with a model set up."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the answer as JSON."),
) -> None:
    """Answer a question from the text you have read: every sentence cited (chapter and quote).

    The checker's switches come from config books.ask.<name>; `lore books eval` sets them for a run."""
    from lore.books.ask import ask_stream
    from lore.books.ask.switches import configured

    if series is None and len(words) != 2:
        raise InvalidInput('give BOOK and QUESTION (quote the question), or --series NAME "QUESTION"')
    if series is not None and len(words) != 1:
        raise InvalidInput("with --series, give only the QUESTION (in quotes)")
    book, question = (None, words[0]) if series is not None else (words[0], words[1])
    switches = configured()
    events = ask_stream(
        book, series, question, spoilers=spoilers, switches=switches, use_model=False if no_model else None
    )
    answer = None
    for event in events:
        if event.kind == "claim" and not as_json:
            err_console.print(f"[dim]checked: {escape(event.data['claim']['text'])}[/dim]", highlight=False)
        elif event.kind == "answer":
            answer = event.data["answer"]
    assert answer is not None
    if as_json:
        print_json(answer.as_dict())
        return
    if not answer.sentences:
        console.print(escape(answer.message), highlight=False)
        if answer.verdict == "not_reached":
            console.print("[dim]Add --spoilers to answer from the whole book, this once.[/dim]")
        for note in answer.notes:
            console.print(f"[dim]{escape(note)}[/dim]", highlight=False)
        return
    console.print(escape(answer.text()), highlight=False)


@app.command("eval")
@handle_errors
def eval_cmd(
    questions: Path = typer.Argument(
        ..., help="A labelled question file (JSON lines, as bench/data/book_questions.jsonl)."
    ),
    switch: str = typer.Option(
        None, "--switch", help="Compare this switch on against off, blind and paired (needs a model)."
    ),
    split: str = typer.Option("held_out", "--split", help="Which questions: held_out, dev or all."),
    seed: int = typer.Option(13, "--seed", min=0, help="Seed of the order the judge sees the answers in."),
    keep_first: bool = typer.Option(
        None,
        "--keep-first-verdicts/--no-keep-first-verdicts",
        help="Later check rounds keep round 1's verdicts; " + SWITCH_HELP.format(name="keep_first_verdicts"),
    ),
    reason_first: bool = typer.Option(
        None,
        "--reason-first/--no-reason-first",
        help="The checker reasons before its verdict; " + SWITCH_HELP.format(name="reason_first"),
    ),
    who_did_what: bool = typer.Option(
        None,
        "--who-did-what/--no-who-did-what",
        help="Who-did-what-to-whom rules and check; " + SWITCH_HELP.format(name="who_did_what"),
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON."),
) -> None:
    """Measure answers on labelled questions; with --switch, a blind paired test of it with a sign test."""
    from lore.books.ask.evaluate import evaluate
    from lore.books.ask.switches import configured

    if split not in ("held_out", "dev", "all"):
        raise InvalidInput("--split is held_out, dev or all")
    switches = configured(
        {"keep_first_verdicts": keep_first, "reason_first": reason_first, "who_did_what": who_did_what}
    )
    report = evaluate(existing(questions), switch=switch, split=split, seed=seed, switches=switches)
    if as_json:
        print_json(report.as_dict())
        return
    console.print(f"[bold]{report.questions} questions[/bold] ({report.split})", highlight=False)
    for arm, m in report.metrics.items():
        console.print(
            f"{arm}: exact quotes {m['exact_quote_share']}, cited sentences {m['cited_sentence_share']},"
            f" spoiler leaks: cited {m['leaks']}, named {m['name_leaks']}, answer {m['answer_leaks']};"
            f" hit@3 {m['hit_at_3']}, names the answer {m['names_the_answer']}",
            highlight=False,
        )
    if report.paired is not None:
        p = report.paired
        console.print(
            f"{p.switch}: on wins {p.on_wins}, off wins {p.off_wins}, ties {p.ties}; sign test p = {p.p_value}",
            highlight=False,
        )
    for note in report.notes:
        console.print(f"[dim]{escape(note)}[/dim]", highlight=False)
