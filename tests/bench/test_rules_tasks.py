"""The labelled rules set holds what it promises, and scoring it runs through the real service.

Real data (bench/data/rules_tasks), a real store in a temp `$LORE_HOME` and real git repositories:
the set is what `hybrid` selection will be judged on, so a broken label (an id that names nothing,
a rule that does not even cover the task's files) would silently skew every figure after it.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "rules_tasks.py"


def _bench():
    """The script as a module; it is registered first, as dataclasses look their module up."""
    if "bench_rules_tasks" not in sys.modules:
        spec = importlib.util.spec_from_file_location("bench_rules_tasks", BENCH)
        module = importlib.util.module_from_spec(spec)
        sys.modules["bench_rules_tasks"] = module
        spec.loader.exec_module(module)
    return sys.modules["bench_rules_tasks"]


def test_the_set_is_whole_and_big_enough() -> None:
    bench = _bench()
    labelled = bench.load()
    report = bench.check(labelled)
    assert report.problems == []
    assert report.rules >= 150 and report.tasks >= 60 and len(labelled.projects) >= 3
    assert report.no_shared_word >= 2 / 3
    assert report.multi_file >= 10 and report.multi_section >= 5
    held = report.per_split["held_out"] / report.tasks
    assert 0.4 <= held <= 0.6 and report.per_split["dev"] + report.per_split["held_out"] == report.tasks
    assert all(len(r.text) <= 500 for r in labelled.rules.values())


def test_shared_words_are_lores_own_terms() -> None:
    bench = _bench()
    labelled = bench.load()
    by_id = {t.id: t for t in labelled.tasks}
    # "resend a purchase" says nothing the idempotency rule says; the 500 task does ("answers 500")
    assert bench.shared_words(labelled, by_id["L01"]) == set()
    assert "500" in bench.shared_words(labelled, by_id["G23"])


def test_a_broken_label_is_reported(tmp_path: Path) -> None:
    bench = _bench()
    for path in bench.DATA.glob("*.json"):
        (tmp_path / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    tasks = json.loads((tmp_path / "tasks.json").read_text(encoding="utf-8"))
    tasks[0]["must"].append("api-no-such-rule")
    tasks[1]["nice"].append("api-docker-user")  # a Dockerfile rule for a models/migrations task
    tasks.append(dict(tasks[2]))  # the same id twice
    (tmp_path / "tasks.json").write_text(json.dumps(tasks), encoding="utf-8")
    problems = "\n".join(bench.check(bench.load(tmp_path)).problems)
    assert "api-no-such-rule is not a rule of ledger-api" in problems
    assert "api-docker-user covers none of" in problems
    assert f"task {tasks[2]['id']}: id repeated" in problems


def test_scoring_registers_every_rule_and_compares_with_send_all(lore_home: Path) -> None:
    bench = _bench()
    labelled = bench.load()
    scores = bench.score(labelled)
    assert [s.task.id for s in scores] == [t.id for t in labelled.tasks]
    rules = labelled.rules
    for s in scores:
        assert set(s.served) <= set(rules)  # every served rule maps back to a label of the set
        assert 0 < s.sent_tokens <= s.all_tokens
    # a Dockerfile has few rules, so the short list is sent whole: the must rule is there
    dockerfile = next(s for s in scores if s.task.id == "L14")
    assert "api-docker-user" in dockerfile.served
    figures = bench.figures(scores)
    assert 0.0 <= figures.must_recall <= 1.0 and figures.tokens < figures.all_tokens
    # the store agrees with the checker: sending everything eligible reaches every label
    everything = bench.figures(bench.send_all(scores))
    assert everything.must_recall == everything.nice_recall == 1.0
    assert Path(bench.os.environ["LORE_HOME"]) == lore_home  # the test's home is given back


def test_a_registered_project_has_its_files_and_rules(lore_home: Path, tmp_path: Path) -> None:
    bench = _bench()
    spec = bench.load().projects["relay-go"]
    registered = bench.register(spec, tmp_path)
    # the checker's sections (from the list) are the ones Lore maps from the git repository
    assert list(registered.project.sections) == bench.project_sections(spec.files)
    assert "internal/queue" in registered.project.sections
    assert set(registered.store_id) == {r.id for r in spec.rules}
    from lore.rules import service

    stored = {r.id: r for r in service.list_rules(registered.project)}
    dedupe = stored[registered.store_id["go-dedupe"]]
    assert dedupe.scope == ("internal/queue/",) and dedupe.status == "active"
