"""Chapter 10's tables and checks (course/chapters/precedence.py), in both languages."""

from __future__ import annotations

import json

from mcpmini.course.chapters import (
    check_prop_6_2,
    combinations_line,
    manifest_table,
    precedence_table,
    prop_6_2_rows,
    prop_6_2_table,
    resolution_report,
    superset_table,
)
from mcpmini.course.chapters.precedence import manifest_rows
from mcpmini.course.language import Lang, use


def test_proposition_6_2_holds_on_random_assignments_and_the_merge_invents_definitions():
    rows = prop_6_2_rows(trials=200, seed=7)
    assert rows and check_prop_6_2(rows) == {"6.2": True}
    assert sum(r["novel"] for r in rows) > 0  # the field merge writes what no source wrote
    with use(Lang.EN):
        table = prop_6_2_table(rows)
    assert table["count"].tolist()[:4] == [len(rows)] * 4


def test_the_proposition_6_2_check_catches_a_winner_that_is_not_the_highest_source():
    rows = prop_6_2_rows(trials=20, seed=1)
    assert check_prop_6_2([dict(rows[0], highest=False), *rows[1:]]) == {"6.2": False}
    assert check_prop_6_2([dict(rows[0], equal=False), *rows[1:]]) == {"6.2": False}
    assert check_prop_6_2([dict(rows[0], order_free=False), *rows[1:]]) == {"6.2": False}
    assert check_prop_6_2([]) == {"6.2": False}


def test_a_folder_without_a_manifest_passes_only_with_skills_or_a_claude_folder(tmp_path):
    root = tmp_path / "p"
    files = {
        ".claude-plugin/plugin.json": json.dumps(
            {"name": "p", "version": "1.0.0", "description": "d", "author": {"name": "a"}}
        ),
        "skills/s/SKILL.md": "---\ndescription: Explain.\n---\nbody\n",
        "hooks/hooks.json": json.dumps({"hooks": {}}),
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    rows = manifest_rows(root, tmp_path / "copies")
    assert [r["target"] for r in rows] == ["plugin", "components", "components", "plugin"]
    with use(Lang.EN):
        assert [str(r["ok"]) for r in rows] == ["✓", "✓", "✓", "✗"]
        assert "No manifest found" in rows[-1]["problem"]
        assert list(manifest_table(root, tmp_path / "again").columns) == [
            "folder",
            "validated as",
            "passes",
            "problems (the runtime's words)",
        ]


def test_the_precedence_table_and_the_lines_speak_the_current_language():
    with use(Lang.JA):
        assert precedence_table().index.name == "仕組み"
        assert "625 通り" in combinations_line(5, 4)
    with use(Lang.EN):
        assert list(precedence_table().columns) == ["combination", "order (highest first)"]
        assert combinations_line(2, 3).endswith("k=2, f=3 gives 8")


def test_the_resolution_report_heads_both_readings():
    sources = [
        ("project", {"db": {"url": "https://db", "headers": {"A": "1"}}}),
        ("local", {"db": {"url": "http://localhost"}}),
    ]
    with use(Lang.EN):
        report = resolution_report(sources, "db")
    whole, merge = report.split("\n\n")
    assert whole.startswith("whole entry") and "headers" not in whole
    assert merge.startswith("field merge") and "← project" in merge


def test_the_superset_table_marks_each_step():
    with use(Lang.EN):
        table = superset_table([("Bash", "rm", {1}, True), ("*", "x", {2}, False)])
    assert table.values.tolist() == [["Bash 'rm'", [1], "✓"], ["* 'x'", [2], "✗"]]
