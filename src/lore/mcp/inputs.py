"""Tool inputs: typed items, forgiving coercion, and the size limits checked before any work.

Agents send lists, comma strings, JSON strings or single values; those are accepted. What is
refused is refused early and in one line: a request over 1 MB, a text field over 64 KB, or an
argument that does not fit the schema (said as the field and what it should be, never as a dump
of the input).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from lore.core.errors import InvalidInput

MAX_REQUEST_BYTES = 1_000_000
MAX_FIELD_BYTES = 64_000


class RuleItem(BaseModel):
    """One rule in propose_rules (the JSON schema clients see, item by item)."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(description="The rule as one imperative sentence.")
    title: str | None = Field(None, description="A few words naming the rule.")
    triggers: list[str] | str | None = Field(None, description="Words of tasks the rule matters for.")
    always: bool | None = Field(None, description="Send on every request (style, safety, architecture).")
    scope: list[str] | str | None = Field(
        None, description="A section (src/api) or file globs (tests/**/*.py); empty = global."
    )

    @model_validator(mode="before")
    @classmethod
    def _rule_as_text(cls, value: Any) -> Any:
        """`{"rule": ...}` is what some agents write for the text."""
        if isinstance(value, dict) and "text" not in value and "rule" in value:
            value = {**value, "text": value["rule"]}
        return value


class TagItem(BaseModel):
    """Tags for one rule in tag_rules."""

    model_config = ConfigDict(extra="ignore")

    id: str = Field(description="The rule's id (or a unique prefix of at least 4 characters).")
    title: str | None = Field(None, description="A few words naming the rule.")
    triggers: list[str] | str | None = Field(None, description="Words of tasks the rule matters for.")
    always: bool | None = Field(None, description="Send on every request; be strict.")


def as_list(value: Any) -> list[str]:
    """A list of strings from a list, a JSON list string, or a comma/newline separated string."""
    if value is None or value == "":
        return []
    if isinstance(value, (list, tuple)):
        return [str(v).strip() for v in value if str(v).strip()]
    text = str(value).strip()
    if text.startswith("["):
        try:
            loaded = json.loads(text)
            if isinstance(loaded, list):
                return as_list(loaded)
        except json.JSONDecodeError:
            pass
    return [part.strip() for part in text.replace("\n", ",").split(",") if part.strip()]


def as_objects(value: Any, what: str, model: type[BaseModel]) -> list[dict[str, Any]]:
    """Items as dicts from typed items, plain dicts, a single item, or their JSON text.

    A string that is not JSON is one rule's text: an agent saying "Use httpx, not requests" as
    `rules` means exactly that rule.
    """
    if isinstance(value, str):
        text = value.strip()
        if text[:1] in ("[", "{"):
            try:
                value = json.loads(text)
            except json.JSONDecodeError as exc:
                raise InvalidInput(f"{what} looks like JSON but is not: {exc.msg} at {exc.pos}") from None
        else:
            value = [text]
    if not isinstance(value, list):
        value = [value]
    items: list[dict[str, Any]] = []
    for n, item in enumerate(value):
        if isinstance(item, BaseModel):
            items.append(item.model_dump())
            continue
        if isinstance(item, str) and "text" in model.model_fields:
            item = {"text": item}  # a bare rule is its text
        try:
            items.append(model.model_validate(item).model_dump())
        except ValidationError as exc:
            raise InvalidInput(readable(exc, f"{what}[{n}]")) from None
    return items


def readable(exc: ValidationError, prefix: str = "") -> str:
    """A pydantic error as one line: where, and what was expected (the input is not echoed).

    A union (a list of items, or one item, or a string) fails once per alternative; the deepest
    failure is the one that says what is wrong, so it alone is named.
    """
    errors = exc.errors(include_url=False, include_input=False)
    if not errors:
        return "invalid arguments"
    located = [(_where(e.get("loc", ()), prefix), e) for e in errors]
    depth = max(where.count(".") + where.count("[") for where, _ in located)
    deepest = [(w, e) for w, e in located if w.count(".") + w.count("[") == depth]
    where, first = deepest[0]
    message = str(first.get("msg", "is invalid")).rstrip(".")
    others = {w for w, _ in deepest} - {where}
    more = f" (and {len(others)} more)" if others else ""
    return f"invalid argument {where or 'value'}: {message}{more}"


def _where(loc: Any, prefix: str) -> str:
    where = prefix
    for part in loc:
        if isinstance(part, int):
            where += f"[{part}]"
        elif not _is_union_branch(str(part)):
            where += f".{part}" if where else str(part)
    return where


def _is_union_branch(part: str) -> bool:
    """pydantic names the branch of a union it tried (`list[str]`, `RuleItem`): not a field."""
    return any(ch in part for ch in "[]|") or part[:1].isupper() or part in ("str", "int", "bool")


def check_size(arguments: dict[str, Any]) -> None:
    """Refuse oversized requests before parsing their meaning (one pass over the values; the
    total follows the size of the JSON the client sent, quotes and separators included)."""
    total = sum(len(k) + 4 for k in arguments)
    stack: list[tuple[str, Any]] = [(k, v) for k, v in arguments.items()]
    while stack:
        where, value = stack.pop()
        if isinstance(value, str):
            size = len(value.encode("utf-8", "surrogatepass"))
            if size > MAX_FIELD_BYTES:
                raise InvalidInput(
                    f"{where} is {size:,} bytes; a text field holds at most {MAX_FIELD_BYTES:,}"
                )
            total += size + 2
        elif isinstance(value, dict):
            stack.extend((f"{where}.{k}", v) for k, v in value.items())
            total += 2 + sum(len(str(k)) + 4 for k in value)
        elif isinstance(value, (list, tuple)):
            stack.extend((f"{where}[{n}]", v) for n, v in enumerate(value))
            total += 2 + len(value)
        else:
            total += len(str(value))
        if total > MAX_REQUEST_BYTES:
            raise InvalidInput(f"the request is over {MAX_REQUEST_BYTES:,} bytes; send less per call")
