"""``marketplace.json``: every finding a Problem naming the file and key; nothing raises."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mcpmini.config import RESERVED_NAMES, SOURCE_FORMS, load_marketplace
from mcpmini.config.marketplace import validate_marketplace
from mcpmini.errors import Severity


def path_key(path: str | None) -> str | None:
    """``plugins[0].name`` and ``plugins.0.name`` alike, so the tests pin the key, not the style."""
    return None if path is None else re.sub(r"\[(\d+)\]", r".\1", path)


def write(root: Path, doc: object) -> Path:
    (root / ".claude-plugin").mkdir(exist_ok=True)
    target = root / ".claude-plugin" / "marketplace.json"
    target.write_text(doc if isinstance(doc, str) else json.dumps(doc, indent=2))
    return target


def market(*plugins: dict, name: str = "team-market") -> dict:
    return {"name": name, "owner": {"name": "Team"}, "plugins": list(plugins)}


def errors_by_key(m) -> dict[str | None, int]:
    keys: dict[str | None, int] = {}
    for p in m.problems:
        if p.severity is Severity.ERROR:
            keys[path_key(p.path)] = keys.get(path_key(p.path), 0) + 1
    return keys


def test_a_folder_or_the_file_itself_can_be_given(tmp_path):
    (tmp_path / "plugins" / "a").mkdir(parents=True)
    target = write(tmp_path, market({"name": "a", "source": "./plugins/a"}))
    by_folder, by_file = load_marketplace(tmp_path), load_marketplace(target)
    assert by_folder.ok and by_file.ok and by_folder.problems == []
    assert by_folder.root == by_file.root == str(tmp_path)
    assert (by_folder.name, by_folder.owner, [p["name"] for p in by_folder.plugins]) == (
        "team-market",
        {"name": "Team"},
        ["a"],
    )


@pytest.mark.parametrize("form", sorted(SOURCE_FORMS))
def test_every_source_form_is_accepted_with_its_required_fields_and_refused_without(tmp_path, form):
    full = {"source": form, **{field: "x" for field in SOURCE_FORMS[form]}}
    write(tmp_path, market({"name": "p", "source": full}))
    assert load_marketplace(tmp_path).ok
    missing = {"source": form}
    write(tmp_path, market({"name": "p", "source": missing}))
    assert errors_by_key(load_marketplace(tmp_path)) == {"plugins.0.source": 1}


def test_an_unknown_source_form_or_a_bare_path_is_an_error_on_that_source(tmp_path):
    write(
        tmp_path,
        market(
            {"name": "a", "source": {"source": "ftp", "url": "x"}},
            {"name": "b", "source": "plugins/b"},
        ),
    )
    assert errors_by_key(load_marketplace(tmp_path)) == {
        "plugins.0.source": 1,
        "plugins.1.source": 1,
    }


def test_a_relative_source_must_exist_and_stay_inside_the_marketplace(tmp_path):
    (tmp_path / "outside").mkdir()
    root = tmp_path / "market"
    root.mkdir()
    write(
        root,
        market(
            {"name": "gone", "source": "./plugins/gone"}, {"name": "out", "source": "./../outside"}
        ),
    )
    m = load_marketplace(root)
    assert errors_by_key(m) == {"plugins.0.source": 1, "plugins.1.source": 1}
    assert all(p.source and p.source.endswith("marketplace.json") for p in m.problems)


def test_duplicate_plugin_names_are_an_error_on_the_second(tmp_path):
    (tmp_path / "p").mkdir()
    write(tmp_path, market({"name": "dup", "source": "./p"}, {"name": "dup", "source": "./p"}))
    m = load_marketplace(tmp_path)
    assert errors_by_key(m) == {"plugins.1.name": 1} and not m.ok


def test_names_must_be_kebab_case(tmp_path):
    write(
        tmp_path,
        market(
            {"name": "Bad_Name", "source": {"source": "npm", "package": "x"}}, name="Team Market"
        ),
    )
    assert errors_by_key(load_marketplace(tmp_path)) == {"name": 1, "plugins.0.name": 1}


def test_a_reserved_name_is_reported_on_the_name(tmp_path):
    write(tmp_path, market(name=sorted(RESERVED_NAMES)[0]))
    problems = load_marketplace(tmp_path).problems
    assert [path_key(p.path) for p in problems] == ["name"]


def test_missing_owner_and_plugins_are_errors_and_the_result_is_still_usable(tmp_path):
    write(tmp_path, {"name": "m"})
    m = load_marketplace(tmp_path)
    assert not m.ok and m.owner == {} and m.plugins == []
    assert {p.severity for p in m.problems} == {Severity.ERROR}


@pytest.mark.parametrize("text", ['{"name": ', "[1, 2]", '"just a string"'])
def test_a_file_that_is_not_a_json_object_is_one_error_not_an_exception(tmp_path, text):
    write(tmp_path, text)
    m = load_marketplace(tmp_path)
    assert [p.severity for p in m.problems] == [Severity.ERROR]
    assert m.problems[0].line == 1 and m.plugins == []


def test_a_missing_file_is_an_error_naming_it(tmp_path):
    m = load_marketplace(tmp_path)
    assert [p.severity for p in m.problems] == [Severity.ERROR]
    assert m.problems[0].source == str(tmp_path / ".claude-plugin" / "marketplace.json")


def test_a_problem_carries_the_line_of_its_key_when_the_key_is_unique(tmp_path):
    write(tmp_path, {**market(), "version": 3})
    (problem,) = load_marketplace(tmp_path).problems
    text = (tmp_path / ".claude-plugin" / "marketplace.json").read_text().splitlines()
    assert path_key(problem.path) == "version"
    assert problem.line is not None and '"version": 3' in text[problem.line - 1]


# --- validate_marketplace: what claude plugin validate says (checked on the binary in tests/oracle)


def test_the_validator_checks_each_local_entrys_plugin_json_under_the_entrys_path(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        market({"name": "demo", "source": "./plugins/demo"}, name="m") | {"description": "d"},
    )
    (tmp_path / "plugins" / "demo" / ".claude-plugin").mkdir(parents=True)
    (tmp_path / "plugins" / "demo" / ".claude-plugin" / "plugin.json").write_text(
        '{"name": "claude-x"}'
    )
    found = {
        (p.severity.value, p.path)
        for p in validate_marketplace(tmp_path / ".claude-plugin" / "marketplace.json")
    }
    # the entry says "demo" but plugin.json names a reserved name: an error, and the warnings
    assert ("error", "plugins[0] plugin.json → name") in found
    assert ("warning", "plugins[0] plugin.json → version") in found


def test_the_validator_accepts_the_official_marketplace_name_and_refuses_duplicates(
    tmp_path: Path,
) -> None:
    entry = {"name": "demo", "source": {"source": "npm", "package": "x"}}
    write(tmp_path, market(entry, entry, name="claude-plugins-official") | {"description": "d"})
    found = validate_marketplace(tmp_path / ".claude-plugin" / "marketplace.json")
    assert [(p.severity.value, p.path) for p in found] == [
        ("error", "plugins[0].name"),
        ("error", "plugins[1].name"),
    ]
