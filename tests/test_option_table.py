"""The one option table and its parser (issue 29): GNU ``getopt_long``'s rules, and every
long option of each program's manual in its grammar (so a shortened spelling resolves as
the program resolves it)."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from mcpmini.permissions.commands import READERS
from mcpmini.permissions.options import GRAMMARS, Arg, Form, Grammar, Kind, Option, flags, parse
from mcpmini.permissions.programs import RUNNERS

SORTISH = Grammar(
    (
        *flags("nru", "numeric-sort reverse unique"),
        Option(("-o", "--output"), Arg.REQUIRED, Kind.PATH, "writes"),
        Option(("-k", "--key"), Arg.REQUIRED),
        Option(("--color", "--colour"), Arg.OPTIONAL),
        Option(("--compress-program",), Arg.REQUIRED),
    )
)


def _spell(words: str) -> list[tuple[str, str | None, Form]]:
    parsed = parse(SORTISH, words.split())
    assert not parsed.problem, parsed.problem
    return [(f.option.name, f.value, f.form) for f in parsed.found]


def test_short_options_bundle_and_take_their_value_attached_or_from_the_next_word() -> None:
    assert _spell("-nr") == [("-n", None, Form.BUNDLED), ("-r", None, Form.BUNDLED)]
    assert _spell("-oFILE") == [("-o", "FILE", Form.ATTACHED)]
    assert _spell("-o FILE") == [("-o", "FILE", Form.SEPARATE)]
    assert _spell("-no/x") == [("-n", None, Form.BUNDLED), ("-o", "/x", Form.BUNDLED)]
    assert _spell("-o -n") == [("-o", "-n", Form.SEPARATE)]  # a value may start with -


def test_long_options_take_equals_or_the_next_word_and_unambiguous_prefixes() -> None:
    assert _spell("--output=F") == [("-o", "F", Form.LONG_EQUALS)]
    assert _spell("--output F") == [("-o", "F", Form.LONG_SEPARATE)]
    assert _spell("--outp=F") == [("-o", "F", Form.LONG_EQUALS)]
    assert _spell("--rev") == [("--reverse", None, Form.LONG)]
    assert _spell("--col=auto") == [("--color", "auto", Form.LONG_EQUALS)]  # one row, two names
    assert _spell("--color") == [("--color", None, Form.LONG)]  # optional: only attached


@pytest.mark.parametrize(
    ("words", "problem"),
    [
        ("--co", "ambiguous"),
        ("-x", "unknown option -x"),
        ("-nx", "unknown option -x"),
        ("--zzz", "unknown option --zzz"),
        ("-o", "needs a value"),
        ("--reverse=1", "takes no value"),
    ],
)
def test_a_word_the_grammar_cannot_place_is_a_problem(words: str, problem: str) -> None:
    assert problem in parse(SORTISH, words.split()).problem


def test_double_dash_ends_the_options_and_a_lone_dash_is_an_operand() -> None:
    parsed = parse(SORTISH, ["-n", "a", "-", "--", "-o", "b"])
    assert parsed.ended and parsed.operands == ("a", "-", "-o", "b")
    assert [f.option.name for f in parsed.found] == ["-n"]


def test_without_permute_the_first_operand_ends_the_options() -> None:
    nice = GRAMMARS["nice"]
    parsed = parse(nice, ["-n", "5", "rm", "-rf", "x"])
    assert parsed.rest_at == 2 and not parsed.problem
    assert parse(nice, ["-5", "rm"]).found[0].form is Form.NUMBER
    assert parse(GRAMMARS["env"], ["-i", "--", "-x"]).rest_at == 2


def test_a_word_computed_when_it_runs_is_never_placed() -> None:
    assert parse(SORTISH, ["-o", None]).problem
    assert parse(SORTISH, [None]).problem


def test_every_program_the_gate_reads_has_one_grammar() -> None:
    assert {n for n, r in READERS.items() if r.options} <= set(GRAMMARS)
    assert set(RUNNERS) <= set(GRAMMARS)


_SPEC = re.compile(r"^\s{1,10}((?:-[^-\s],?\s*|--[\w-]+(?:\[?=[^\s\]]+\]?)?,?\s*)+)")
#: bash builtins: their grammar is the builtin's, not that of /usr/bin/printf
_BUILTINS = frozenset({"printf", "pwd", "cd", "echo", "test", "time", "command", "exec"})
_CHECKED = sorted(
    name
    for name, grammar in GRAMMARS.items()
    if grammar.abbreviations and re.fullmatch(r"[a-z0-9]+", name) and name not in _BUILTINS
)


@pytest.mark.parametrize("program", _CHECKED)
def test_a_grammar_lists_every_long_option_of_the_programs_help(program: str) -> None:
    # a long option missing from the table would make a shortened spelling look
    # unambiguous to the gate while the program reads it as the missing one
    found = shutil.which(program, path="/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin")
    if found is None:
        pytest.skip(f"{program} is not installed here")
    done = subprocess.run(
        [found, "--help"],
        capture_output=True,
        text=True,
        timeout=30,
        env={"LANG": "C", "PATH": "/usr/bin:/bin"},
        check=False,
    )
    named: set[str] = set()
    for line in done.stdout.splitlines():
        m = _SPEC.match(line)
        if m:
            named |= {n for n in re.findall(r"--([a-z][\w-]*)", m[1]) if n.islower()}
    assert named - set(GRAMMARS[program].long_names) == set()
