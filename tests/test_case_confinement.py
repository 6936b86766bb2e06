"""Issue 29, item 4: every path an oracle case writes stays inside its temporary tree.

``mcpmini claude-code --case FILE`` lays the case out on the host before any sandbox starts,
so a ``files:`` key that is absolute or climbs with ``..`` (or a ``copies:`` destination
outside the placeholders) must be refused in one line before anything is written.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from mcpmini.cli import main
from mcpmini.errors import ConfigError
from mcpmini.oracle import lay_out
from mcpmini.oracle.case import Case


@pytest.fixture
def fake_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    exe = tmp_path / "claude"
    exe.write_text("#!/bin/sh\nexit 0\n")
    exe.chmod(0o755)
    monkeypatch.setenv("MCPMINI_CLAUDE_CODE", str(exe))
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))
    return scratch


def _escapes(tmp_path: Path) -> list[tuple[str, Path]]:
    outside = tmp_path / "outside" / "planted"
    return [
        (str(outside), outside),  # absolute
        ("../../planted", tmp_path / "scratch" / "planted"),  # climbs out of ws and root
        ("~/../../planted", tmp_path / "scratch" / "planted"),  # climbs out of the home
        ("~/" + str(outside), outside),  # "~//abs": the home joined with an absolute path
        ("sub/../../../planted", tmp_path / "scratch" / "planted"),
    ]


@pytest.mark.parametrize("index", range(5))
def test_a_case_file_outside_the_tree_is_refused_in_one_line_and_nothing_is_written(
    index: int, tmp_path: Path, fake_claude: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    key, target = _escapes(tmp_path)[index]
    target.parent.mkdir(parents=True, exist_ok=True)
    case = tmp_path / "case.json"
    case.write_text(json.dumps({"files": {key: "pwned\n"}, "calls": [{"bash": "ls"}]}))
    assert main(["claude-code", "--case", str(case)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "files." in err and "Traceback" not in err
    assert not target.exists()
    assert list(fake_claude.iterdir()) == []  # no case folder was even made


@pytest.mark.parametrize("dest", ["/tmp/x", "{ws}/../../x", "{root}/../x", "plugins/p", "{ws}x"])
def test_a_copy_outside_the_tree_is_refused(dest: str, tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as caught:
        Case.from_dict({"copies": {dest: str(tmp_path)}}, source="c.yaml")
    assert caught.value.path == f"copies.{dest}"


def test_a_case_built_in_code_is_confined_when_it_is_laid_out(tmp_path: Path) -> None:
    escape = tmp_path / "planted"
    case = Case("code", files={str(escape): "x"})
    with pytest.raises(ConfigError), lay_out(case, tmp=str(tmp_path)):
        pass
    assert not escape.exists()
    assert [p.name for p in tmp_path.iterdir()] == []


@pytest.mark.parametrize(
    ("key", "where"),
    [
        ("a.txt", "ws/a.txt"),
        ("sub/deep/b.txt", "ws/sub/deep/b.txt"),
        ("~/notes.txt", "home/notes.txt"),
        ("~/.claude/x.json", "home/.claude/x.json"),
        ("../outside.txt", "outside.txt"),  # the case folder's own, beside ws/ and home/
        ("~/../ws/c.txt", "ws/c.txt"),
    ],
)
def test_paths_inside_the_tree_are_written_where_they_say(
    key: str, where: str, tmp_path: Path
) -> None:
    with lay_out(Case("ok", files={key: "hi\n"}), tmp=str(tmp_path)) as tree:
        assert (tree.root / where).read_text() == "hi\n"
