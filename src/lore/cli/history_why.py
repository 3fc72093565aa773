"""`lore history why` and `lore history eval`: the evidence behind code, and how well it is found.

What `why` prints is written by `lore.cli.why_view`, which `lore.cli.quick` also runs when the
arguments are plain enough to need no Typer.
"""

from __future__ import annotations

from pathlib import Path

import typer
from rich.text import Text

from lore.cli import history
from lore.cli.common import console, err_console, handle_errors, print_json
from lore.cli.why_view import run_why
from lore.history.repos import resolve_repo

app = typer.Typer()


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
    run_why(target, as_of=as_of, limit=limit, no_model=no_model, repo=repo, as_json=as_json)


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
