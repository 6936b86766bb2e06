"""The English edition's machinery on a small repository of its own: extract, todo, apply,
build and the problems the repository tests assert are empty."""

from pathlib import Path

import nbformat
import polib
import pytest
import yaml

from mcpmini.course import edition
from mcpmini.course.edition import EditionProblem, placeholders


def _notebook(cells: list[tuple[str, str, str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    for kind, cell_id, source in cells:
        maker = nbformat.v4.new_markdown_cell if kind == "md" else nbformat.v4.new_code_cell
        nb.cells.append(maker(source, id=cell_id))
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    return nb


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "notebooks").mkdir()
    nb = _notebook(
        [
            ("md", "intro", "# はじめに\n\n`tools/list` を 2 回送ります。"),
            ("code", "c1", "from mcpmini.course.language import current\nprint(current().value)"),
            ("md", "end", "[仕様](https://example.com/spec) を読む。"),
        ]
    )
    nbformat.write(nb, tmp_path / "notebooks" / "a.ipynb")
    return tmp_path


NB = Path("notebooks/a.ipynb")
ENGLISH = {
    "intro": "# Introduction\n\nWe send `tools/list` 2 times.",
    "end": "Read [the spec](https://example.com/spec).",
}


def _problems(repo: Path) -> list[str]:
    return [p.message for p in edition.problems(repo, [NB])]


def test_extract_makes_one_entry_per_markdown_cell_keyed_by_the_cell_id(repo):
    counts = edition.extract(repo)
    assert [(c.added, c.changed, c.obsolete) for c in counts] == [(2, 0, 0)]
    po = polib.pofile(str(repo / "i18n/en/notebooks/a.po"))
    assert [(e.msgctxt, e.msgstr) for e in po] == [("intro", ""), ("end", "")]
    assert "c1" not in [e.msgctxt for e in po]  # code is never extracted


def test_todo_lists_what_is_left_and_apply_writes_it_back(repo):
    edition.extract(repo)
    rows = yaml.safe_load(edition.todo(repo, NB))
    assert list(rows) == ["intro", "end"]
    assert rows["intro"]["ja"].startswith("# はじめに")
    assert edition.apply(repo, NB, ENGLISH) == []
    assert yaml.safe_load(edition.todo(repo, NB)) == {}


def test_apply_with_an_unknown_cell_writes_nothing(repo):
    edition.extract(repo)
    before = (repo / "i18n/en/notebooks/a.po").read_bytes()
    assert edition.apply(repo, NB, {"intro": "x", "nope": "y"}) == ["nope"]
    assert (repo / "i18n/en/notebooks/a.po").read_bytes() == before


def test_a_changed_japanese_cell_turns_its_entry_fuzzy_and_keeps_the_old_english(repo):
    edition.extract(repo)
    edition.apply(repo, NB, ENGLISH)
    nb = nbformat.read(repo / NB, as_version=4)
    nb.cells[0].source = "# はじめに\n\n`tools/list` を 3 回送ります。"
    nbformat.write(nb, repo / NB)
    [count] = edition.extract(repo)
    assert count.changed == 1
    entry = polib.pofile(str(repo / "i18n/en/notebooks/a.po")).find("intro", by="msgctxt")
    assert "fuzzy" in entry.flags
    assert entry.msgstr == ENGLISH["intro"]
    assert "2 回" in entry.previous_msgid
    assert "fuzzy: the Japanese changed" in _problems(repo)
    assert yaml.safe_load(edition.todo(repo, NB))["intro"]["was_en"] == ENGLISH["intro"]


def test_a_removed_cell_makes_its_entry_obsolete(repo):
    edition.extract(repo)
    nb = nbformat.read(repo / NB, as_version=4)
    del nb.cells[2]
    nbformat.write(nb, repo / NB)
    assert edition.extract(repo)[0].obsolete == 1
    po = polib.pofile(str(repo / "i18n/en/notebooks/a.po"))
    assert [e.msgctxt for e in po if not e.obsolete] == ["intro"]


def test_an_untranslated_notebook_is_not_built_and_says_which_cells(repo):
    edition.extract(repo)
    found = edition.build(repo, [NB], execute=False)
    assert {(p.cell, p.message) for p in found} == {
        ("intro", "not translated"),
        ("end", "not translated"),
    }
    assert not (repo / "en" / NB).exists()


def test_the_built_notebook_has_the_same_code_and_ids_and_the_english_markdown(repo):
    edition.extract(repo)
    edition.apply(repo, NB, ENGLISH)
    assert edition.build(repo, [NB], execute=False) == []
    ja = nbformat.read(repo / NB, as_version=4)
    en = nbformat.read(repo / "en" / NB, as_version=4)
    assert [c.id for c in en.cells] == [c.id for c in ja.cells]
    assert [c.source for c in en.cells if c.cell_type == "code"] == [
        c.source for c in ja.cells if c.cell_type == "code"
    ]
    assert en.cells[0].source == ENGLISH["intro"]
    assert en.metadata["mcpmini"]["edition"] == "en"
    assert (repo / "en" / ".mcpmini-edition").read_text().strip() == "en"
    assert _problems(repo) == []


def test_a_hand_edited_english_notebook_is_detected_as_stale(repo):
    edition.extract(repo)
    edition.apply(repo, NB, ENGLISH)
    edition.build(repo, [NB], execute=False)
    en = nbformat.read(repo / "en" / NB, as_version=4)
    en.cells[1].source += "\nprint('edited')"
    nbformat.write(en, repo / "en" / NB)
    assert _problems(repo) == ["English notebook is stale or edited by hand"]


def test_japanese_left_in_the_english_edition_is_counted(repo):
    edition.extract(repo)
    edition.apply(repo, NB, {**ENGLISH, "end": "Read [仕様](https://example.com/spec)."})
    edition.build(repo, [NB], execute=False)
    assert "2 Japanese characters in English" in _problems(repo)


def test_a_translation_that_drops_a_number_code_span_or_link_names_the_cell(repo):
    edition.extract(repo)
    edition.apply(
        repo,
        NB,
        {"intro": "# Introduction\n\nWe send `tools/call` 3 times.", "end": "Read the spec."},
    )
    edition.build(repo, [NB], execute=False)
    found = {(p.cell, p.message.split(":")[0]) for p in edition.problems(repo, [NB])}
    assert found == {
        ("intro", "code differ"),
        ("intro", "numbers differ"),
        ("end", "links differ"),
    }


def test_placeholders_ignore_numbers_inside_code_and_link_targets_and_read_full_width_digits():
    found = placeholders("第３章の `x = 10` と [4 つ](https://e.com/v2) と 5")
    assert found["numbers"] == ["3", "4", "5"]  # link text is prose
    assert found["code"] == ["x = 10"]
    assert found["links"] == ["https://e.com/v2"]


def test_an_executed_english_notebook_speaks_english_in_its_kernel(repo):
    edition.extract(repo)
    edition.apply(repo, NB, ENGLISH)
    assert edition.build(repo, [NB], execute=True) == []
    en = nbformat.read(repo / "en" / NB, as_version=4)
    assert en.cells[1].outputs[0]["text"].strip() == "en"


def test_a_failing_cell_is_reported_and_the_notebook_not_written(repo):
    nb = nbformat.read(repo / NB, as_version=4)
    nb.cells[1].source = "raise RuntimeError('boom')"
    nbformat.write(nb, repo / NB)
    edition.extract(repo)
    edition.apply(repo, NB, ENGLISH)
    [problem] = edition.build(repo, [NB])
    assert isinstance(problem, EditionProblem) and "execution failed" in problem.message
    assert not (repo / "en" / NB).exists()


def test_the_command_line_check_exits_non_zero_on_a_problem(repo, capsys):
    edition.extract(repo)
    assert edition.main(["check", "--root", str(repo)]) == 1
    assert "not translated" in capsys.readouterr().out


def test_english_labels_in_japanese_outputs_are_found_and_code_is_not():
    nb = _notebook([("code", "c", "x")])
    nb.cells[0].outputs = [
        nbformat.v4.new_output("stream", text="final: allow\n決定: allow\n"),
        nbformat.v4.new_output(
            "stream",
            text='C→S {"jsonrpc": "2.0"}\n{"a": "the"}\n<Figure size 640x480 with 1 Axes>\n',
        ),
        nbformat.v4.new_output("stream", text="ToolOutcome(kind='result', text='is the')\n"),
        nbformat.v4.new_output("stream", text="結果: 'not a label' と tools/list\n"),
        nbformat.v4.new_output("stream", text="2 tools listed\n"),
        nbformat.v4.new_output("stream", text="06 Claude Code の中の MCP\nthe code\n"),
    ]
    assert edition.english_lines(nb) == [
        ("c", "final: allow"),
        ("c", "2 tools listed"),
        ("c", "the code"),
    ]


def test_a_justified_english_output_is_listed_and_the_list_must_stay_true(repo):
    nb = nbformat.read(repo / NB, as_version=4)
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", text="server answered no reply\n")]
    nbformat.write(nb, repo / NB)
    [problem] = edition.purity_problems(repo, [NB])
    assert problem.cell == "c1" and problem.message.startswith("English output: server")
    (repo / "i18n").mkdir()
    allowed = repo / "i18n" / "ja-english-outputs.yaml"
    allowed.write_text("notebooks/a.ipynb:\n  c1: the runtime's own error message\n")
    assert edition.purity_problems(repo, [NB]) == []
    nb.cells[1].outputs = []
    nbformat.write(nb, repo / NB)
    [stale] = edition.purity_problems(repo, [NB])
    assert stale.message == "listed as English output but prints none"


def test_small_numbers_may_be_spelled_out_but_no_number_may_change_or_appear():
    ja = (
        "MCP には 3 つの役割があり、1 つのサーバに 1 つのクライアントを作ります。"
        "上限は 4,096 文字。"
    )
    ok = "MCP has three roles, and one client is made per server. The cap is 4,096 characters."
    assert edition.placeholder_differences(ja, ok) == []
    changed = ok.replace("4,096", "2,048")
    assert edition.placeholder_differences(ja, changed) == [
        "numbers differ: missing ['4,096'], extra ['2,048']"
    ]
    assert edition.placeholder_differences("`a` と `a`", "`a`") == [
        "code differ: missing ['(a different count of the same)'], extra []"
    ]
