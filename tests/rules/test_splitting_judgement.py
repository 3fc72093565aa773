"""Splitting keeps what a reviewer would keep: orders about code, as plain text; personas,
prose about the file, headings, examples and descriptions are left out, each with its reason."""

from __future__ import annotations

import re
from pathlib import Path

from lore.rules.intake.frontmatter import split_front_matter
from lore.rules.intake.sentences import plain, sentence_kind
from lore.rules.intake.splitting import split_markdown

EMPHASIS = re.compile(r"\*\*[A-Za-z][^*`]*?\*\*")
LINK = re.compile(r"\[[^\]`]+\]\(")
CRAFTED = """# Payments service

As GitHub Copilot, you are an expert in payment systems. Your mission is to help developers.

This file describes the conventions of the payments service.

**Principle:**

- **Prefer idempotent handlers** — retry-safe handlers make replays harmless.
- **Severity**: CRITICAL
- Never log card numbers; mask them with `mask_pan()`.
- See [the style guide](https://example.com/style) and *always* run `ruff` first.

Follow these rules:

- Functional components
- Named exports

Every query goes through the repository layer. Native drivers are fast.

You are thoughtful and give nuanced answers. Keep functions under 40 lines.

Use the retry helper for outbound calls:

```python
retry(call, attempts=3)
```

## Examples

Use `Money` like this in a handler, with the currency first.

## Testing

Run `pytest -q` before every commit.
"""


def _split(text: str):
    return split_markdown(text)


def test_a_crafted_file_keeps_its_orders_as_plain_text() -> None:
    split = _split(CRAFTED)
    kept = [p.text for p in split.pieces]
    assert kept == [
        "Prefer idempotent handlers — retry-safe handlers make replays harmless.",
        "Never log card numbers; mask them with `mask_pan()`.",
        "See the style guide and always run `ruff` first.",
        "Follow these rules:\nFunctional components\nNamed exports",
        "Every query goes through the repository layer. Native drivers are fast.",
        "Keep functions under 40 lines.",
        "Use the retry helper for outbound calls.",
        "Run `pytest -q` before every commit.",
    ]
    # the emphasis-only paragraph is a heading: it titles the items below it
    assert split.pieces[0].title == "Principle"

    def reason(start: str) -> str:
        (found,) = [p.reason for p in split.left_out if p.text.startswith(start)]
        return found

    assert reason("As GitHub Copilot, you are an ") == "persona"
    assert reason("You are thoughtful and give nu") == "persona"  # taken out of a kept piece
    assert reason("This file describes the conven") == "about the file"
    assert reason("**Severity**: CRITICAL") == "a description, no instruction"
    assert reason("```python") == "example (code block)"
    assert reason("Use `Money` like this in a han") == "example"
    assert len(split.left_out) == 6


def test_plain_text_keeps_code_spans_and_drops_marks() -> None:
    assert plain("**Use** `snake_case` for _module_ names, see [docs](http://x.y/z).") == (
        "Use `snake_case` for module names, see docs."
    )
    assert plain("- [ ] Pin ``**/*.ts`` globs\n  - nested *item*") == "Pin `**/*.ts` globs\nnested item"
    assert plain("***both*** and __strong__ and ~~gone~~") == "both and strong and gone"


def test_sentences_are_classified_by_their_form() -> None:
    kinds = {
        "You are an expert Angular programmer using TypeScript.": "persona",
        "As GitHub Copilot, you are an expert in CI.": "persona",
        "Your role is to review pull requests.": "persona",
        "you carefully provide accurate answers.": "persona",
        "You use poetry for dependency management": "order",
        "You must pin actions to a commit SHA.": "order",
        "These instructions help you write Go.": "about the file",
        "For example, a handler may return early.": "example",
        "functions should not have more than 4 parameters": "order",
        "when refactoring existing code, keep jsdoc comments intact": "order",
        "All interactive elements need an accessible name.": "order",
        "We prefer composition over inheritance.": "order",
        "Target: WCAG 2.2 AA covers all current legal requirements.": "description",
        "Naming Conventions: Use consistent names for workflow files.": "order",
        "Native elements have built-in keyboard support.": "description",
    }
    assert {s: sentence_kind(s) for s in kinds} == kinds


def test_a_text_in_another_language_is_kept_for_a_person_to_judge() -> None:
    split = _split("- 変数名はキャメルケースで書くこと。\n")
    assert [p.text for p in split.pieces] == ["変数名はキャメルケースで書くこと。"]


def _real_files(shared_data: Path) -> list[Path]:
    root = shared_data / "rules"
    return sorted((root / "cursor/rules").glob("*.mdc")) + sorted(
        (root / "copilot/instructions").glob("*.instructions.md")
    )


def test_real_files_lose_personas_markdown_and_examples(shared_data: Path) -> None:
    kept = left = 0
    for path in _real_files(shared_data):
        front = split_front_matter(path.read_text(encoding="utf-8"))
        # code spans may hold anything (`**/*.ts`, `![](x.png)`): checked here without them
        body = re.sub(r"`[^`\n]+`", "code", front.body)
        split = split_markdown(body, first_line=front.body_line)
        kept += len(split.pieces)
        left += len(split.left_out)
        for piece in split.pieces:
            text = piece.text
            assert not EMPHASIS.search(text) and "```" not in text and not LINK.search(text), (
                path.name,
                text,
            )
            assert not text.lower().startswith(("you are ", "as github copilot", "this file ")), text
            assert not text.startswith(("- ", "* ")), (path.name, text)
    # most of what the files hold is no rule: well over a third is left out
    assert left > 0.35 * (kept + left), (kept, left)


def test_the_github_actions_guide_keeps_its_orders_not_its_mission(shared_data: Path) -> None:
    path = shared_data / "rules/copilot/instructions/github-actions-ci-cd-best-practices.instructions.md"
    front = split_front_matter(path.read_text(encoding="utf-8"))
    split = split_markdown(front.body, first_line=front.body_line)
    texts = [p.text for p in split.pieces]
    assert not any("you are an expert" in t.lower() or "your mission" in t.lower() for t in texts)
    assert (
        "Permissions: Define `permissions` at the workflow level for a secure default, overriding at the job level if needed."
        in texts
    )
    assert any(p.reason == "persona" for p in split.left_out)
    assert any(p.reason == "example (code block)" for p in split.left_out)
