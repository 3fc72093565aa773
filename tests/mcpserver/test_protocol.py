"""What a client sees of the tools: typed item schemas, annotations, plain text, clean text."""

from pathlib import Path

import anyio
import pytest
from mcp import Client

from conftest import make_repo
from lore.mcp.server import build_server
from lore.rules import service
from support.mcp_client import call, schemas


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "shop", {"src/api/orders.py": "x", "README.md": "x"})


def _listed(server) -> list:
    async def run() -> list:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    return anyio.run(run)


def _item_schema(schema: dict, field: str) -> dict:
    """The object schema of a list argument's items, following `$ref`s as a client would."""
    defs = schema.get("$defs", {})
    branches = schema["properties"][field]["anyOf"]
    array = next(b for b in branches if b.get("type") == "array")
    items = array["items"]
    ref = next((b["$ref"] for b in items.get("anyOf", [items]) if "$ref" in b), None)
    assert ref, items
    return defs[ref.rsplit("/", 1)[-1]]


def test_list_items_have_typed_schemas(repo: Path) -> None:
    found = schemas(build_server(repo))
    rule = _item_schema(found["propose_rules"], "rules")
    assert rule["type"] == "object" and rule["required"] == ["text"]
    assert set(rule["properties"]) == {"text", "title", "triggers", "always", "scope"}
    tag = _item_schema(found["tag_rules"], "tags")
    assert tag["type"] == "object" and tag["required"] == ["id"]
    assert set(tag["properties"]) == {"id", "title", "triggers", "always"}
    for schema in found.values():  # no free-form objects anywhere: every object says its properties
        for definition in schema.get("$defs", {}).values():
            assert definition.get("properties"), definition


def test_every_tool_is_annotated_and_answers_in_plain_text_only(repo: Path) -> None:
    tools = _listed(build_server(repo))
    assert len(tools) == 16  # 8 rules tools, 5 books tools and 3 history tools
    for tool in tools:
        hints = tool.annotations
        assert hints is not None, tool.name
        for hint in ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint"):
            assert getattr(hints, hint) is not None, (tool.name, hint)
        assert tool.output_schema is None, tool.name  # no {result: ...} copy of the text
        assert not tool.description.startswith(" ") and "\n    " not in tool.description, tool.name
    by_name = {t.name: t.annotations for t in tools}
    assert by_name["get_rules"].read_only_hint and not by_name["get_rules"].open_world_hint
    assert not by_name["propose_rules"].read_only_hint and by_name["propose_rules"].idempotent_hint
    assert by_name["tag_rules"].destructive_hint
    assert by_name["learn_from_reviews"].open_world_hint
    assert by_name["books_ask"].read_only_hint and not by_name["books_ask"].open_world_hint
    assert not by_name["books_progress"].read_only_hint and by_name["books_progress"].idempotent_hint
    assert all(by_name[n].read_only_hint for n in ("books_list", "books_search", "books_character"))


def test_replies_carry_no_structured_copy(repo: Path) -> None:
    async def run() -> None:
        async with Client(build_server(repo)) as client:
            result = await client.call_tool("get_rules", {"paths": ["README.md"]})
            assert result.structured_content is None and "project `shop`" in result.content[0].text

    anyio.run(run)


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        ("get_rules", {"max_tokens": "lots"}, "invalid argument max_tokens: Input should be a valid integer"),
        (
            "propose_rules",
            {"rules": [{"title": "no text"}]},
            "invalid argument rules[0].text: Field required",
        ),
        ("propose_rules", {"rules": [{"text": "Use x", "always": "maybe"}]}, "rules[0].always"),
        ("tag_rules", {"tags": [{"title": "x"}]}, "invalid argument tags[0].id: Field required"),
        ("search_rules", {}, "invalid argument query: Field required"),
    ],
)
def test_schema_mismatches_are_one_readable_line(
    repo: Path, tool: str, arguments: dict, expected: str
) -> None:
    text, error = call(build_server(repo), tool, {**arguments, "paths": ["README.md"]})
    assert error and expected in text
    assert len(text.splitlines()) == 1 and "pydantic" not in text and "input_value" not in text


def test_search_does_not_echo_the_query(repo: Path) -> None:
    project, _ = service.register_project(repo)
    service.add_rule(project, "Keep queries in repositories")
    query = "repositories " + "padding words that the agent wrote " * 5
    text, _ = call(build_server(repo), "search_rules", {"query": query})
    assert "Keep queries in repositories" in text and "padding words" not in text
    text, _ = call(build_server(repo), "search_rules", {"query": "zebra " * 30})
    assert "zebra" not in text and "match the query" in text
