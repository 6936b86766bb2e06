"""Command-line options read the way GNU ``getopt_long`` reads them (§2.1).

A program's options are a :class:`Grammar`: its :class:`Option` rows, each with every
spelling (``-o``, ``--output``), whether it takes a value (:class:`Arg`), what that value
is (:class:`Kind`: a file it reads, a number, a pattern …) and, for an option that makes the
program more than a read, why (``refuse``). :func:`parse` places every word of one command:

* ``-abc`` is three short options; a short option that takes a value takes the rest of its
  word (``-oFILE``) or else the next word (``-o FILE``); an optional value only attached;
* ``--name=value`` and ``--name value`` (a required value); ``--name`` may be shortened to
  any unambiguous prefix (``--outp`` is ``--output``), unless the grammar says the program
  takes only whole names; a prefix of several options is ambiguous (the program refuses it);
* ``--`` ends the options; ``-`` alone is an operand; with ``permute`` (GNU's default)
  options may follow operands, without it (``sudo``, ``env``, ``nice`` …: the inner command
  starts at the first operand) the first operand ends them;
* ``-NUM`` is the option of :attr:`Grammar.number` when the grammar has one (``head -5``).

The result, :class:`Parsed`, holds each option as written (:class:`Found`, with its
:class:`Form`) and the operands; ``problem`` says why a word could not be placed (an unknown
option, an ambiguous prefix, a missing value, a word computed when the command runs), and a
command with a problem is never approved. :data:`GRAMMARS` is the one option table: one
grammar per program the gate reads, the runners of :mod:`.programs` included. Rules of this
module: it is sans-I/O and never guesses: a word it cannot place is a problem, not an
operand.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property

__all__ = [
    "FOLLOWS",
    "GRAMMARS",
    "Arg",
    "Form",
    "Found",
    "Grammar",
    "Kind",
    "Option",
    "Parsed",
    "flags",
    "parse",
]


class Arg(enum.StrEnum):
    """Whether an option takes a value (``getopt_long``'s ``has_arg``)."""

    NONE = "none"
    REQUIRED = "required"
    OPTIONAL = "optional"  # only attached: "-cVALUE", "--name=VALUE"


class Kind(enum.StrEnum):
    """What a value or an operand is, for the checks that follow the parse."""

    TEXT = "text"  # data the program only prints or compares
    PATH = "path"  # a file or folder the program reads: checked against the working folders
    NUMBER = "number"
    PATTERN = "pattern"  # a regular expression or a glob
    NAME = "name"  # a variable name the shell assigns or evaluates: never approved
    COMMAND = "command"  # a program the command runs (``xargs CMD``, ``sudo CMD``)


class Form(enum.StrEnum):
    """How an option was written."""

    SHORT = "short"  # "-r" alone
    BUNDLED = "bundled"  # one of several letters in one word: both of "-nr", the "k" of "-rk1"
    ATTACHED = "attached"  # a short option alone with its value in the same word: "-k1"
    SEPARATE = "separate"  # a short option whose value is the next word: "-k 1"
    LONG = "long"  # "--reverse"
    LONG_EQUALS = "long="  # "--key=1"
    LONG_SEPARATE = "long value"  # "--key 1"
    NUMBER = "number"  # "-5" for the grammar's number option


@dataclass(frozen=True)
class Option:
    """One option of a program: every ``names`` spelling (``-o``, ``--output``), ``arg``,
    what its value is (``value``), and ``refuse``: why it makes the program more than a
    read (empty: it is safe). ``count`` values follow a long option that takes two
    (``jq --rawfile NAME FILE``: the last is ``value``, the others text)."""

    names: tuple[str, ...]
    arg: Arg = Arg.NONE
    value: Kind = Kind.TEXT
    refuse: str = ""
    count: int = 1

    def __post_init__(self) -> None:
        for name in self.names:
            if not re.fullmatch(r"-[^-]|--[^=\s]+", name):
                raise ValueError(f"not an option name: {name!r}")

    @property
    def name(self) -> str:
        """The first spelling, for messages."""
        return self.names[0]


def flags(short: str = "", long: str = "") -> tuple[Option, ...]:
    """Value-less safe options written the short way: ``flags("abc", "all human-readable")``
    is ``-a -b -c --all --human-readable``. A trailing ``:`` on a letter or ``=`` on a long
    name makes it take a value, ``::`` / ``=?`` an optional one (``getopt``'s notation)."""
    rows: list[Option] = []
    for m in re.finditer(r"(.)(::|:)?", short):
        arg = {None: Arg.NONE, ":": Arg.REQUIRED, "::": Arg.OPTIONAL}[m[2]]
        rows.append(Option((f"-{m[1]}",), arg))
    for word in long.split():
        name, eq, mark = word.partition("=")
        arg = Arg.NONE if not eq else Arg.OPTIONAL if mark == "?" else Arg.REQUIRED
        rows.append(Option((f"--{name}",), arg))
    return tuple(rows)


@dataclass(frozen=True)
class Grammar:
    """A program's options and how it reads them.

    ``permute``: options may follow operands (GNU's default; ``False`` for programs whose
    first operand starts what they run). ``abbreviations``: a long option may be shortened to
    an unambiguous prefix (GNU ``getopt_long``; ``jq`` and hand-written parsers take only
    whole names). ``number``: the option ``-NUM`` stands for (``head -5`` is ``head -n 5``).
    """

    options: tuple[Option, ...] = ()
    permute: bool = True
    abbreviations: bool = True
    number: str | None = None

    @cached_property
    def by_name(self) -> Mapping[str, Option]:
        """Every spelling to its option."""
        table: dict[str, Option] = {}
        for option in self.options:
            for name in option.names:
                table.setdefault(name, option)
        return table

    @cached_property
    def long_names(self) -> tuple[str, ...]:
        """Every long spelling without its dashes, in table order."""
        return tuple(n[2:] for n in self.by_name if n.startswith("--"))

    def extend(self, *options: Option, **changes: object) -> Grammar:
        """This grammar with more options (a later row adds spellings, never replaces one)."""
        kw: dict[str, object] = {
            "permute": self.permute,
            "abbreviations": self.abbreviations,
            "number": self.number,
        }
        kw.update(changes)
        return Grammar((*self.options, *options), **kw)  # type: ignore[arg-type]


@dataclass(frozen=True)
class Found:
    """One option as written: its row, the ``words`` it took, its ``value`` and ``form``."""

    option: Option
    words: tuple[str, ...]
    value: str | None
    form: Form

    @property
    def text(self) -> str:
        """The option as written (the word or words it took)."""
        return " ".join(self.words)


@dataclass(frozen=True)
class Parsed:
    """The words of one command placed: ``found`` options in order, ``operands`` in order,
    and ``problem`` (empty when every word was placed). ``rest_at``: for a grammar that does
    not permute, the index (into the words given to :func:`parse`) of the first operand, so a
    caller can hand the rest to the program that runs it; ``ended``: a ``--`` ended the
    options."""

    found: tuple[Found, ...] = ()
    operands: tuple[str, ...] = ()
    problem: str = ""
    rest_at: int | None = None
    ended: bool = False  # a "--" ended the options

    def has(self, *names: str) -> bool:
        """Whether one of these spellings' options was given (in any spelling)."""
        return any(n in f.option.names for f in self.found for n in names)

    def values(self, *names: str) -> list[str]:
        """The values given to these options, in order."""
        return [
            f.value
            for f in self.found
            if f.value is not None and any(n in f.option.names for n in names)
        ]

    @property
    def refused(self) -> list[Found]:
        """The options found that make the program more than a read."""
        return [f for f in self.found if f.option.refuse]


def _long(
    grammar: Grammar, word: str, rest: Sequence[str | None], i: int
) -> tuple[Found | str, int]:
    """The long option ``word`` (dashes included): a :class:`Found` and the next index, or
    the problem as text."""
    body = word[2:] if word.startswith("--") else word[1:]
    name, eq, value = body.partition("=")
    option = grammar.by_name.get(f"--{name}")
    if option is None and grammar.abbreviations:
        hits = {grammar.by_name[f"--{n}"] for n in grammar.long_names if n.startswith(name)}
        if len(hits) > 1:
            return f"{word.split('=')[0]} is ambiguous", i + 1
        option = next(iter(hits), None)
    if option is None:
        return f"unknown option {word.split('=')[0]}", i + 1
    if option.arg is Arg.NONE:
        if eq:
            return f"{word.split('=')[0]} takes no value", i + 1
        return Found(option, (word,), None, Form.LONG), i + 1
    if eq:
        return Found(option, (word,), value, Form.LONG_EQUALS), i + 1
    if option.arg is Arg.OPTIONAL:
        return Found(option, (word,), None, Form.LONG), i + 1
    taken = rest[i + 1 : i + 1 + option.count]
    if len(taken) < option.count:
        return f"{word} needs {option.count} value(s)", i + 1
    if any(w is None for w in taken):
        return f"a value of {word} is computed when the command runs", i + 1 + option.count
    words = tuple(w for w in taken if w is not None)
    return Found(option, (word, *words), words[-1], Form.LONG_SEPARATE), i + 1 + option.count


def _short(
    grammar: Grammar, word: str, rest: Sequence[str | None], i: int
) -> tuple[list[Found] | str, int]:
    """The cluster of short options ``word``: the options found and the next index, or the
    problem as text. Every option of a cluster of several letters is :attr:`Form.BUNDLED`,
    also one that takes the rest of the word or the next word as its value."""
    found: list[Found] = []
    letters = word[1:]
    bundled = len(letters) > 1
    j = 0
    while j < len(letters):
        option = grammar.by_name.get(f"-{letters[j]}")
        if option is None:
            return f"unknown option -{letters[j]}" + (f" in {word}" if bundled else ""), i + 1
        tail = letters[j + 1 :]
        single = Form.BUNDLED if bundled else Form.SHORT
        if option.arg is Arg.NONE:
            found.append(Found(option, (word,), None, single))
            j += 1
            continue
        if tail:
            form = Form.BUNDLED if j > 0 else Form.ATTACHED
            found.append(Found(option, (word,), tail, form))
            return found, i + 1
        if option.arg is Arg.OPTIONAL:
            found.append(Found(option, (word,), None, single))
            return found, i + 1
        if i + 1 >= len(rest):
            return f"-{letters[j]} needs a value", i + 1
        nxt = rest[i + 1]
        if nxt is None:
            return f"the value of -{letters[j]} is computed when the command runs", i + 2
        found.append(Found(option, (word, nxt), nxt, Form.BUNDLED if bundled else Form.SEPARATE))
        return found, i + 2
    return found, i + 1


_NUMBER = re.compile(r"-\d+")


def parse(grammar: Grammar, words: Sequence[str | None]) -> Parsed:
    """Place ``words`` (the arguments after the program name; ``None`` for a word computed
    when the command runs) by ``grammar``; see the module doc. Never raises.

    For a grammar that does not permute, the first operand and everything after it are left
    to the caller: :attr:`Parsed.rest_at` is its index and ``operands`` stays empty.
    """
    found: list[Found] = []
    operands: list[str] = []
    ended = False
    i = 0
    while i < len(words):
        word = words[i]
        if word is None:
            if ended or not grammar.permute:
                return Parsed(tuple(found), tuple(operands), "", i, ended)
            return Parsed(tuple(found), tuple(operands), "a word is computed when it runs")
        if ended or word == "-" or not word.startswith("-"):
            if not grammar.permute:
                return Parsed(tuple(found), (), "", i, ended)
            operands.append(word)
            i += 1
            continue
        if word == "--":
            ended = True
            i += 1
            if not grammar.permute:
                return Parsed(tuple(found), (), "", i, ended)
            continue
        if grammar.number and _NUMBER.fullmatch(word):
            option = grammar.by_name[grammar.number]
            found.append(Found(option, (word,), word[1:], Form.NUMBER))
            i += 1
            continue
        if word.startswith("--"):
            got, i = _long(grammar, word, words, i)
            if isinstance(got, str):
                return Parsed(tuple(found), tuple(operands), got)
            found.append(got)
            continue
        cluster, i = _short(grammar, word, words, i)
        if isinstance(cluster, str):
            return Parsed(tuple(found), tuple(operands), cluster)
        found += cluster
    return Parsed(
        tuple(found), tuple(operands), "", len(words) if not grammar.permute else None, ended
    )


# --- the one option table ------------------------------------------------------------------
#
# Every program the gate reads, with the options of its manual (GNU coreutils 9, grep 3,
# findutils 4.9, util-linux 2.38, sudo 1.9, jq 1.6-1.7, git 2.39 as installed on Debian 12).
# Value-less options are written the getopt way through :func:`flags`; an option with a
# value, or one that is refused, is a row of its own with every spelling. Long names must be
# complete: a missing one would make a shortened spelling look unambiguous when the program
# reads it as the missing option (``tests/test_options.py`` checks them against ``--help``).


def _val(*names: str, kind: Kind = Kind.TEXT, refuse: str = "", arg: Arg = Arg.REQUIRED) -> Option:
    """An option that takes a value (``arg``: required unless said), of ``kind``."""
    return Option(names, arg, kind, refuse)


def _no(*names: str, refuse: str) -> Option:
    """A value-less option that makes the program more than a read."""
    return Option(names, Arg.NONE, Kind.TEXT, refuse)


_WRITES = "writes a file"
#: Why an option that walks folders through symbolic links is refused (a read, not a write).
FOLLOWS = "follows symbolic links out of the folders it walks"
_RUNS = "runs another program"
#: ``--files0-from``: the files read are named inside a file, unknown until it runs.
_LISTED = "reads the files a list names, unknown until it runs"
_GNU = flags("", "help version")

GRAMMARS: Mapping[str, Grammar] = {
    "ls": Grammar(
        (
            *flags(
                "aAbBcCdDfgGhHiklLmnNopqQrRsStuUvxXZ1",
                "all almost-all author escape ignore-backups directory dired file-type full-time "
                "group-directories-first no-group human-readable si dereference-command-line "
                "dereference-command-line-symlink-to-dir inode kibibytes dereference "
                "numeric-uid-gid literal hide-control-chars show-control-chars quote-name "
                "reverse recursive size context zero",
            ),
            *_GNU,
            _val("--block-size"),
            _val("--color", "--colour", arg=Arg.OPTIONAL),
            _val("-F", "--classify", arg=Arg.OPTIONAL),
            _val("--format"),
            _val("--hide", kind=Kind.PATTERN),
            _val("--hyperlink", arg=Arg.OPTIONAL),
            _val("--indicator-style"),
            _val("-I", "--ignore", kind=Kind.PATTERN),
            _val("--quoting-style"),
            _val("--sort"),
            _val("--time"),
            _val("--time-style"),
            _val("-T", "--tabsize", kind=Kind.NUMBER),
            _val("-w", "--width", kind=Kind.NUMBER),
        )
    ),
    "cat": Grammar(
        (
            *flags(
                "AbeEnstTuv",
                "show-all number-nonblank show-ends number squeeze-blank show-tabs "
                "show-nonprinting",
            ),
            *_GNU,
        )
    ),
    "head": Grammar(
        (
            *flags("qvz", "quiet silent verbose zero-terminated"),
            *_GNU,
            _val("-c", "--bytes", kind=Kind.NUMBER),
            _val("-n", "--lines", kind=Kind.NUMBER),
        ),
        number="-n",
    ),
    "tail": Grammar(
        (
            *flags("fFqvz", "quiet silent retry verbose zero-terminated"),
            *_GNU,
            _val("-c", "--bytes", kind=Kind.NUMBER),
            _val("-n", "--lines", kind=Kind.NUMBER),
            _val("--follow", arg=Arg.OPTIONAL),
            _val("--max-unchanged-stats", kind=Kind.NUMBER),
            _val("--pid", kind=Kind.NUMBER),
            _val("-s", "--sleep-interval", kind=Kind.NUMBER),
        ),
        number="-n",
    ),
    "grep": Grammar(
        (
            *flags(
                "EFGPiywxzsvbnHhoqaIrLlcTZUuV",
                "extended-regexp fixed-strings basic-regexp perl-regexp ignore-case "
                "no-ignore-case word-regexp line-regexp null-data no-messages invert-match "
                "byte-offset line-number line-buffered with-filename no-filename only-matching "
                "quiet silent text recursive files-without-match "
                "files-with-matches count initial-tab null no-group-separator binary "
                "unix-byte-offsets help version",
            ),
            _no("-R", "--dereference-recursive", refuse=FOLLOWS),
            _val("-e", "--regexp", kind=Kind.PATTERN),
            _val("-f", "--file", kind=Kind.PATH),
            _val("-m", "--max-count", kind=Kind.NUMBER),
            _val("--label"),
            _val("--binary-files"),
            _val("-d", "--directories"),
            _val("-D", "--devices"),
            _val("--include", kind=Kind.PATTERN),
            _val("--exclude", kind=Kind.PATTERN),
            _val("--exclude-from", kind=Kind.PATH),
            _val("--exclude-dir", kind=Kind.PATTERN),
            _val("-A", "--after-context", kind=Kind.NUMBER),
            _val("-B", "--before-context", kind=Kind.NUMBER),
            _val("-C", "--context", kind=Kind.NUMBER),
            _val("--group-separator"),
            _val("--color", "--colour", arg=Arg.OPTIONAL),
        ),
        number="-C",
    ),
    "wc": Grammar(
        (
            *flags("cmlLw", "bytes chars lines max-line-length words"),
            *_GNU,
            _val("--files0-from", kind=Kind.PATH, refuse=_LISTED),
            _val("--total"),
        )
    ),
    "diff": Grammar(
        (
            *flags(
                "qscCuUenyptTlrNiEZbwBadv",
                "normal brief report-identical-files ed rcs side-by-side left-column "
                "suppress-common-lines show-c-function expand-tabs initial-tab "
                "suppress-blank-empty paginate recursive no-dereference new-file "
                "unidirectional-new-file ignore-file-name-case no-ignore-file-name-case "
                "ignore-case ignore-tab-expansion ignore-trailing-space ignore-space-change "
                "ignore-all-space ignore-blank-lines text strip-trailing-cr minimal "
                "speed-large-files help version",
            ),
            _val("-C", kind=Kind.NUMBER),
            _val("--context", kind=Kind.NUMBER, arg=Arg.OPTIONAL),
            _val("-U", kind=Kind.NUMBER),
            _val("--unified", kind=Kind.NUMBER, arg=Arg.OPTIONAL),
            _val("-L", "--label"),
            _val("-W", "--width", kind=Kind.NUMBER),
            _val("-F", "--show-function-line", kind=Kind.PATTERN),
            _val("--tabsize", kind=Kind.NUMBER),
            _val("-x", "--exclude", kind=Kind.PATTERN),
            _val("-X", "--exclude-from", kind=Kind.PATH),
            _val("-S", "--starting-file"),
            _val("--from-file", kind=Kind.PATH),
            _val("--to-file", kind=Kind.PATH),
            _val("-I", "--ignore-matching-lines", kind=Kind.PATTERN),
            _val("-D", "--ifdef"),
            _val("--old-group-format"),
            _val("--new-group-format"),
            _val("--changed-group-format"),
            _val("--unchanged-group-format"),
            _val("--line-format"),
            _val("--old-line-format"),
            _val("--new-line-format"),
            _val("--unchanged-line-format"),
            _val("--horizon-lines", kind=Kind.NUMBER),
            _val("--color", arg=Arg.OPTIONAL),
            _val("--palette"),
        ),
        number="-U",
    ),
    "stat": Grammar(
        (
            *flags("Lft", "dereference file-system terse"),
            *_GNU,
            _val("--cached"),
            _val("-c", "--format"),
            _val("--printf"),
        )
    ),
    "du": Grammar(
        (
            *flags(
                "0abcDHhklmPSsx",
                "null all apparent-size bytes total dereference-args human-readable inodes "
                "count-links no-dereference separate-dirs si summarize one-file-system",
            ),
            _no("-L", "--dereference", refuse=FOLLOWS),
            *_GNU,
            _val("-B", "--block-size"),
            _val("-d", "--max-depth", kind=Kind.NUMBER),
            _val("--files0-from", kind=Kind.PATH, refuse=_LISTED),
            _val("-t", "--threshold"),
            _val("--time", arg=Arg.OPTIONAL),
            _val("--time-style"),
            _val("-X", "--exclude-from", kind=Kind.PATH),
            _val("--exclude", kind=Kind.PATTERN),
        )
    ),
    "sort": Grammar(
        (
            *flags(
                "bdfgiMhnRrVmsuzcC",
                "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort "
                "ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort "
                "reverse version-sort debug merge stable unique zero-terminated",
            ),
            *_GNU,
            _val("--check", arg=Arg.OPTIONAL),
            _val("--random-source", kind=Kind.PATH),
            _val("--sort"),
            _val("--batch-size", kind=Kind.NUMBER),
            _val("--compress-program", kind=Kind.COMMAND, refuse=_RUNS),
            _val("--files0-from", kind=Kind.PATH, refuse=_LISTED),
            _val("-k", "--key"),
            _val("-o", "--output", kind=Kind.PATH, refuse="writes the sorted output to a file"),
            _val("-S", "--buffer-size"),
            _val("-t", "--field-separator"),
            _val(
                "-T",
                "--temporary-directory",
                kind=Kind.PATH,
                refuse="writes temporary files into a folder",
            ),
            _val("--parallel", kind=Kind.NUMBER),
        )
    ),
    "cut": Grammar(
        (
            *flags("nsz", "complement only-delimited zero-terminated"),
            *_GNU,
            _val("-b", "--bytes"),
            _val("-c", "--characters"),
            _val("-d", "--delimiter"),
            _val("-f", "--fields"),
            _val("--output-delimiter"),
        )
    ),
    "tr": Grammar(
        (*flags("cCdst", "complement delete squeeze-repeats truncate-set1"), *_GNU),
    ),
    "file": Grammar(
        (
            *flags(
                "vbcikLhnN0rsld",
                "brief checking-printout mime apple extension mime-type mime-encoding "
                "keep-going list dereference no-dereference no-buffer no-pad print0 raw "
                "special-files debug help version",
            ),
            _val("-m", "--magic-file", kind=Kind.PATH),
            _no("-z", "--uncompress", refuse="may run a decompressor"),
            _no("-Z", "--uncompress-noreport", refuse="may run a decompressor"),
            _val("-e", "--exclude"),
            _val("--exclude-quiet"),
            _val("-f", "--files-from", kind=Kind.PATH),
            _val("-F", "--separator"),
            _no("-p", "--preserve-date", refuse="sets the files' access times back"),
            _val("-P", "--parameter"),
            _no("-S", "--no-sandbox", refuse="turns file's own sandbox off"),
            _no("-C", "--compile", refuse="writes the compiled magic file"),
        )
    ),
    "date": Grammar(
        (
            *flags("Ru", "debug resolution rfc-email utc universal"),
            *_GNU,
            _val("-I", "--iso-8601", arg=Arg.OPTIONAL),
            _val("-d", "--date"),
            _val("-f", "--file", kind=Kind.PATH),
            _val("--rfc-3339"),
            _val("-r", "--reference", kind=Kind.PATH),
            _val("-s", "--set", refuse="sets the system clock"),
        )
    ),
    "id": Grammar((*flags("aZgGnruz", "context group groups name real user zero"), *_GNU)),
    "uname": Grammar(
        (
            *flags(
                "asnrvmpio",
                "all kernel-name nodename kernel-release kernel-version machine processor "
                "hardware-platform operating-system",
            ),
            *_GNU,
        )
    ),
    "whoami": Grammar(_GNU),
    "hostname": Grammar(
        (
            *flags(
                "aAdfiIsyV",
                "alias all-fqdns domain fqdn long ip-address all-ip-addresses short yp nis "
                "help version",
            ),
            _no("-b", "--boot", refuse="sets the host name"),
            _val("-F", "--file", kind=Kind.PATH, refuse="sets the host name from a file"),
        )
    ),
    "basename": Grammar((*flags("az", "multiple zero"), *_GNU, _val("-s", "--suffix"))),
    "dirname": Grammar((*flags("z", "zero"), *_GNU)),
    "realpath": Grammar(
        (
            *flags(
                "emLPqsz",
                "canonicalize-existing canonicalize-missing logical physical quiet strip "
                "no-symlinks zero",
            ),
            *_GNU,
            _val("--relative-to", kind=Kind.PATH),
            _val("--relative-base", kind=Kind.PATH),
        )
    ),
    "readlink": Grammar(
        (
            *flags(
                "femnqsvz",
                "canonicalize canonicalize-existing canonicalize-missing no-newline quiet "
                "silent verbose zero",
            ),
            *_GNU,
        )
    ),
    "od": Grammar(
        (
            *flags("bcdfilosxv", "output-duplicates traditional"),
            *_GNU,
            _val("-A", "--address-radix"),
            _val("--endian"),
            _val("-j", "--skip-bytes"),
            _val("-N", "--read-bytes"),
            _val("-S", kind=Kind.NUMBER),
            _val("--strings", kind=Kind.NUMBER, arg=Arg.OPTIONAL),
            _val("-t", "--format"),
            _val("-w", "--width", kind=Kind.NUMBER, arg=Arg.OPTIONAL),
        )
    ),
    "strings": Grammar(
        (
            *flags("adfwohvV", "all data print-file-name include-all-whitespace help version"),
            _val("-n", "--bytes", kind=Kind.NUMBER),
            _val("-t", "--radix"),
            _val("-T", "--target"),
            _val("-e", "--encoding"),
            _val("-U", "--unicode"),
            _val("-s", "--output-separator"),
        ),
        number="-n",
    ),
    # jq reads its options by hand: whole long names only, short letters bundled
    "jq": Grammar(
        (
            *flags(
                "cnesrRjaCMSh",
                "compact-output null-input exit-status slurp raw-output raw-output0 "
                "raw-input join-output ascii-output color-output monochrome-output sort-keys "
                "tab stream stream-errors seq unbuffered args jsonargs help version "
                "build-configuration",
            ),
            _val("--indent", kind=Kind.NUMBER),
            _val("-f", "--from-file", kind=Kind.PATH),
            _val("-L", kind=Kind.PATH, refuse="adds a folder jq loads modules from"),
            Option(("--arg",), Arg.REQUIRED, count=2),
            Option(("--argjson",), Arg.REQUIRED, count=2),
            Option(("--slurpfile",), Arg.REQUIRED, Kind.PATH, count=2),
            Option(("--rawfile",), Arg.REQUIRED, Kind.PATH, count=2),
        ),
        abbreviations=False,
    ),
    "pwd": Grammar(flags("LP")),
    "cd": Grammar(flags("LPe@")),
    "which": Grammar(flags("as")),
    # the bash builtin: only -v (assign the result to a variable); "--" ends the options
    "printf": Grammar(
        (_val("-v", kind=Kind.NAME, refuse="assigns the output to a shell variable"),),
        permute=False,
    ),
    "sed": Grammar(
        (
            Option(("-n", "--quiet", "--silent")),
            Option(("-E", "-r", "--regexp-extended")),
            Option(("-s", "--separate")),
            Option(("-u", "--unbuffered")),
            Option(("-z", "--null-data", "--zero-terminated")),
            Option(("-b", "--binary")),
            *flags("", "posix follow-symlinks debug sandbox help version"),
            _val("-e", "--expression"),
            _val("-f", "--file", kind=Kind.PATH),
            _val("-l", "--line-length", kind=Kind.NUMBER),
            _val("-i", "--in-place", arg=Arg.OPTIONAL, refuse="edits the files in place"),
        )
    ),
    # --version alone is a read; anything else runs code
    "python3": Grammar(flags("V", "version"), abbreviations=False),
    "python": Grammar(flags("V", "version"), abbreviations=False),
    "node": Grammar(flags("v", "version"), abbreviations=False),
    # --- programs that run their arguments (their rows in .programs say how)
    "xargs": Grammar(
        (
            *flags("0oprtx", "null open-tty interactive no-run-if-empty show-limits verbose exit"),
            *_GNU,
            _val("-a", "--arg-file", kind=Kind.PATH),
            _val("-d", "--delimiter"),
            _val("-E"),
            _val("-e", "--eof", arg=Arg.OPTIONAL),
            _val("-I"),
            _val("-i", "--replace", arg=Arg.OPTIONAL),
            _val("-L", kind=Kind.NUMBER),
            _val("-l", "--max-lines", kind=Kind.NUMBER, arg=Arg.OPTIONAL),
            _val("-n", "--max-args", kind=Kind.NUMBER),
            _val("-P", "--max-procs", kind=Kind.NUMBER),
            _val("--process-slot-var", kind=Kind.NAME),
            _val("-s", "--max-chars", kind=Kind.NUMBER),
        ),
        permute=False,
    ),
    "timeout": Grammar(
        (
            *flags("fpv", "foreground preserve-status verbose"),
            *_GNU,
            _val("-k", "--kill-after"),
            _val("-s", "--signal"),
        ),
        permute=False,
    ),
    # the bash keyword: "-p" (POSIX output) and "--"; any other word is the command
    "time": Grammar(flags("p"), permute=False, abbreviations=False),
    "nice": Grammar(
        (*_GNU, _val("-n", "--adjustment", kind=Kind.NUMBER)), permute=False, number="-n"
    ),
    # only --help, --version and "--" (parse_gnu_standard_options_only)
    "nohup": Grammar(_GNU, permute=False),
    "stdbuf": Grammar(
        (*_GNU, _val("-i", "--input"), _val("-o", "--output"), _val("-e", "--error")),
        permute=False,
    ),
    # the bash builtins
    "command": Grammar(flags("pvV"), permute=False, abbreviations=False),
    "builtin": Grammar((), permute=False, abbreviations=False),
    "exec": Grammar((*flags("cl"), _val("-a")), permute=False, abbreviations=False),
    "coproc": Grammar((), permute=False, abbreviations=False),
    "noglob": Grammar((), permute=False, abbreviations=False),
    "eval": Grammar((), permute=False, abbreviations=False),
    "source": Grammar((), permute=False, abbreviations=False),
    ".": Grammar((), permute=False, abbreviations=False),
    "sudo": Grammar(
        (
            *flags(
                "ABbEHiKklnPSsVv",
                "askpass bell background login remove-timestamp reset-timestamp list "
                "non-interactive preserve-groups stdin shell validate help version",
            ),
            _no("-e", "--edit", refuse="edits files as another user"),
            _val("-C", "--close-from", kind=Kind.NUMBER),
            _val("-D", "--chdir", kind=Kind.PATH),
            _val("-g", "--group"),
            # documented: "-h" alone is --help and "-h host" is --host; observed in Claude
            # Code 2.1.332 (and read so here): the word after -h is its value
            _val("-h", "--host"),
            _val("--preserve-env", arg=Arg.OPTIONAL),
            _val("-p", "--prompt"),
            _val("-R", "--chroot", kind=Kind.PATH),
            _val("-r", "--role"),
            _val("-t", "--type"),
            _val("-T", "--command-timeout"),
            _val("-U", "--other-user"),
            _val("-u", "--user"),
        ),
        permute=False,
    ),
    "doas": Grammar((*flags("Lns"), _val("-C", kind=Kind.PATH), _val("-u")), permute=False),
    "env": Grammar(
        (
            *flags("i0v", "ignore-environment null list-signal-handling debug"),
            *_GNU,
            _val("-a", "--argv0"),
            _val("-u", "--unset", kind=Kind.NAME),
            _val("-C", "--chdir", kind=Kind.PATH),
            _val("-S", "--split-string", kind=Kind.COMMAND),
            _val("--block-signal", arg=Arg.OPTIONAL),
            _val("--default-signal", arg=Arg.OPTIONAL),
            _val("--ignore-signal", arg=Arg.OPTIONAL),
        ),
        permute=False,
    ),
    "setsid": Grammar((*flags("cfwhV", "ctty fork wait help version"),), permute=False),
    "ionice": Grammar(
        (
            *flags("thV", "ignore help version"),
            _val("-c", "--class"),
            _val("-n", "--classdata", kind=Kind.NUMBER),
            _val("-p", "--pid", kind=Kind.NUMBER),
            _val("-P", "--pgid", kind=Kind.NUMBER),
            _val("-u", "--uid", kind=Kind.NUMBER),
        ),
        permute=False,
    ),
    "chrt": Grammar(
        (
            *flags(
                "abdfiorRmpvhV",
                "all-tasks batch deadline fifo idle other rr reset-on-fork max pid verbose "
                "help version",
            ),
            _val("-T", "--sched-runtime", kind=Kind.NUMBER),
            _val("-P", "--sched-period", kind=Kind.NUMBER),
            _val("-D", "--sched-deadline", kind=Kind.NUMBER),
        ),
        permute=False,
    ),
    "taskset": Grammar(flags("apchV", "all-tasks pid cpu-list help version"), permute=False),
    "flock": Grammar(
        (
            *flags(
                "sexunoFhV",
                "shared exclusive unlock nonblock nb close no-fork verbose help version",
            ),
            _val("-w", "--wait", "--timeout", kind=Kind.NUMBER),
            _val("-E", "--conflict-exit-code", kind=Kind.NUMBER),
            _val("-c", "--command", kind=Kind.COMMAND),
        ),
        permute=False,
    ),
    "watch": Grammar(
        (
            *flags(
                "bceghptwxv",
                "beep color no-color errexit chgexit no-title no-wrap exec precise help version",
            ),
            _val("-d", "--differences", arg=Arg.OPTIONAL),
            _val("-n", "--interval", kind=Kind.NUMBER),
            _val("-q", "--equexit", kind=Kind.NUMBER),
        ),
        permute=False,
    ),
    "numactl": Grammar(
        (
            *flags(
                "aHlsS",
                "all hardware localalloc show huge touch dump dump-nodes strict help",
            ),
            _val("-i", "--interleave"),
            _val("-w", "--weighted-interleave"),
            _val("-p", "--preferred"),
            _val("-P", "--preferred-many"),
            _val("-m", "--membind"),
            _val("-N", "--cpunodebind"),
            _val("-C", "--physcpubind"),
            _val("-b", "--balancing", arg=Arg.NONE),
            _val("-L", "--length"),
            _val("-o", "--offset"),
            _val("-f", "--file", kind=Kind.PATH),
            _val("-M", "--shm", kind=Kind.PATH),
            _val("-T", "--shmid"),
            _val("-u", "--mode"),
        ),
        permute=False,
    ),
    "unbuffer": Grammar(flags("p"), permute=False, abbreviations=False),
    "script": Grammar(
        (
            *flags("aefqhV", "append return flush force quiet help version"),
            _val("-c", "--command", kind=Kind.COMMAND),
            _val("-E", "--echo"),
            _val("-I", "--log-in", kind=Kind.PATH),
            _val("-O", "--log-out", kind=Kind.PATH),
            _val("-B", "--log-io", kind=Kind.PATH),
            _val("-T", "--log-timing", kind=Kind.PATH),
            _val("-m", "--logging-format"),
            _val("-o", "--output-limit"),
            _val("-t", "--timing", kind=Kind.PATH, arg=Arg.OPTIONAL),
        )
    ),
    "strace": Grammar(
        (
            *flags(
                "AbcCdDfFhiknqrtTvVwxyYzZ",
                "follow-forks output-separately summary-only summary summary-wall-clock "
                "debug instruction-pointer stack-traces syscall-number no-abbrev "
                "successful-only failed-only seccomp-bpf output-append-mode daemonize "
                "relative-timestamps syscall-times absolute-timestamps decode-fds "
                "decode-pids help version quiet tips strings-in-hex",
            ),
            _val("-a", "--columns", kind=Kind.NUMBER),
            _val(
                "-e",
                "--trace",
                "--signal",
                "--status",
                "--abbrev",
                "--verbose",
                "--raw",
                "--read",
                "--write",
                "--fault",
                "--inject",
                "--kvm",
                "--quiet",
                "--silent",
                "--decode-fds",
                "--trace-fds",
                "--trace-path",
            ),
            _val("-E", "--env"),
            _val("-I", "--interruptible"),
            _val("-o", "--output", kind=Kind.PATH),
            _val("-O", "--summary-syscall-overhead"),
            _val("-p", "--attach", kind=Kind.NUMBER),
            _val("-P", kind=Kind.PATH),
            _val("-s", "--string-limit", kind=Kind.NUMBER),
            _val("-S", "--summary-sort-by"),
            _val("-u", "--user"),
            _val("-U", "--summary-columns"),
            _val("-X", "--const-print-style"),
            _val("-b", "--detach-on"),
        ),
        permute=False,
    ),
    "ltrace": Grammar(
        (
            *flags("bCfhiLrStTVw", "demangle help version"),
            _val("-a", "--align", kind=Kind.NUMBER),
            _val("-A", kind=Kind.NUMBER),
            _val("-D", "--debug"),
            _val("-e"),
            _val("-F", "--config", kind=Kind.PATH),
            _val("-l", "--library", kind=Kind.PATH),
            _val("-n", "--indent", kind=Kind.NUMBER),
            _val("-o", "--output", kind=Kind.PATH),
            _val("-p", kind=Kind.NUMBER),
            _val("-s", kind=Kind.NUMBER),
            _val("-u"),
            _val("-x"),
        ),
        permute=False,
    ),
    "fakeroot": Grammar(
        (
            *flags("uhv", "unknown-is-real help version"),
            _val("-l", "--lib", kind=Kind.PATH),
            _val("--faked", kind=Kind.PATH),
            _val("-i", kind=Kind.PATH),
            _val("-s", kind=Kind.PATH),
            _val("-b", "--fd-base", kind=Kind.NUMBER),
        ),
        permute=False,
    ),
    "chroot": Grammar(
        (*flags("", "skip-chdir"), *_GNU, _val("--groups"), _val("--userspec")), permute=False
    ),
    "runuser": Grammar(
        (
            *flags("flmpPhV", "fast login preserve-environment pty help version"),
            _val("-c", "--command", kind=Kind.COMMAND),
            _val("--session-command", kind=Kind.COMMAND),
            _val("-g", "--group"),
            _val("-G", "--supp-group"),
            _val("-s", "--shell", kind=Kind.COMMAND),
            _val("-u", "--user"),
            _val("-w", "--whitelist-environment"),
        )
    ),
    "su": Grammar(
        (
            *flags("flmpPhV", "fast login preserve-environment pty help version"),
            _val("-c", "--command", kind=Kind.COMMAND),
            _val("--session-command", kind=Kind.COMMAND),
            _val("-g", "--group"),
            _val("-G", "--supp-group"),
            _val("-s", "--shell", kind=Kind.COMMAND),
            _val("-w", "--whitelist-environment"),
        )
    ),
    "runcon": Grammar(
        (
            *flags("c", "compute"),
            *_GNU,
            _val("-u", "--user"),
            _val("-r", "--role"),
            _val("-t", "--type"),
            _val("-l", "--range"),
        ),
        permute=False,
    ),
    "nsenter": Grammar(
        (
            *flags("aFZhV", "all no-fork follow-context preserve-credentials help version"),
            _val("-t", "--target", kind=Kind.NUMBER),
            *(
                _val(f"-{c}", f"--{n}", arg=Arg.OPTIONAL)
                for c, n in (
                    ("m", "mount"),
                    ("u", "uts"),
                    ("i", "ipc"),
                    ("n", "net"),
                    ("p", "pid"),
                    ("U", "user"),
                    ("C", "cgroup"),
                    ("T", "time"),
                )
            ),
            _val("-S", "--setuid", kind=Kind.NUMBER),
            _val("-G", "--setgid", kind=Kind.NUMBER),
            _val("-r", "--root", kind=Kind.PATH, arg=Arg.OPTIONAL),
            _val("-w", "--wd", kind=Kind.PATH, arg=Arg.OPTIONAL),
            _val("-W", "--wdns", kind=Kind.PATH),
            _val("--env", arg=Arg.NONE),
        ),
        permute=False,
    ),
    "unshare": Grammar(
        (
            *flags(
                "fcrhV",
                "fork map-current-user map-root-user kill-child-keep help version "
                "map-auto mount-proc keep-caps",
            ),
            *(
                _val(f"-{c}", f"--{n}", arg=Arg.OPTIONAL)
                for c, n in (
                    ("m", "mount"),
                    ("u", "uts"),
                    ("i", "ipc"),
                    ("n", "net"),
                    ("p", "pid"),
                    ("U", "user"),
                    ("C", "cgroup"),
                    ("T", "time"),
                )
            ),
            _val("--propagation"),
            _val("--setgroups"),
            _val("-R", "--root", kind=Kind.PATH),
            _val("-w", "--wd", kind=Kind.PATH),
            _val("-S", "--setuid", kind=Kind.NUMBER),
            _val("-G", "--setgid", kind=Kind.NUMBER),
            _val("--map-user"),
            _val("--map-group"),
            _val("--map-users"),
            _val("--map-groups"),
            _val("--kill-child", arg=Arg.OPTIONAL),
            _val("--monotonic"),
            _val("--boottime"),
        ),
        permute=False,
    ),
    "setpriv": Grammar(
        (
            *flags(
                "dhV",
                "dump nnp no-new-privs init-groups keep-groups clear-groups reset-env help version",
            ),
            _val("--ruid"),
            _val("--euid"),
            _val("--rgid"),
            _val("--egid"),
            _val("--reuid"),
            _val("--regid"),
            _val("--groups"),
            _val("--inh-caps"),
            _val("--ambient-caps"),
            _val("--bounding-set"),
            _val("--securebits"),
            _val("--pdeathsig"),
            _val("--selinux-label"),
            _val("--apparmor-profile"),
            _val("--landlock-access"),
            _val("--landlock-rule"),
        ),
        permute=False,
    ),
    "prlimit": Grammar(
        (
            *flags("hV", "noheadings raw verbose help version"),
            _val("-p", "--pid", kind=Kind.NUMBER),
            _val("-o", "--output"),
            *(
                _val(f"-{c}", f"--{n}", arg=Arg.OPTIONAL)
                for c, n in (
                    ("c", "core"),
                    ("d", "data"),
                    ("e", "nice"),
                    ("f", "fsize"),
                    ("i", "sigpending"),
                    ("l", "memlock"),
                    ("m", "rss"),
                    ("n", "nofile"),
                    ("q", "msgqueue"),
                    ("r", "rtprio"),
                    ("s", "stack"),
                    ("t", "cpu"),
                    ("u", "nproc"),
                    ("v", "as"),
                    ("x", "locks"),
                    ("y", "rttime"),
                )
            ),
        ),
        permute=False,
    ),
    "sg": Grammar((), permute=False, abbreviations=False),
    "pkexec": Grammar(
        (*flags("", "disable-internal-agent keep-cwd help version"), _val("--user")),
        permute=False,
    ),
    "parallel": Grammar(
        (
            *flags(
                "0qkuvgX",
                "null quote keep-order ungroup verbose group xargs dry-run no-notice "
                "citation will-cite line-buffer halt-on-error bar eta progress pipe "
                "shuf help version",
            ),
            _val("-j", "--jobs", "--max-procs"),
            _val("-a", "--arg-file", kind=Kind.PATH),
            _val("-d", "--delimiter"),
            _val("-I"),
            _val("-n", "--max-args", kind=Kind.NUMBER),
            _val("-N", "--max-replace-args", kind=Kind.NUMBER),
            _val("-L", "--max-lines", kind=Kind.NUMBER),
            _val("-S", "--sshlogin"),
            _val("--joblog", kind=Kind.PATH),
            _val("--results", kind=Kind.PATH),
            _val("--tag", arg=Arg.NONE),
            _val("--timeout"),
            _val("--delay"),
            _val("--retries", kind=Kind.NUMBER),
            _val("--colsep"),
            _val("--tmpdir", kind=Kind.PATH),
            _val("--env"),
            _val("-E"),
        ),
        permute=False,
    ),
    # a shell: "-c" makes its first operand the command line; "-o"/"-O" take a value
    **{
        shell: Grammar(
            (
                *flags("abBcCeEfhHiklmnprsStTuvxP"),
                _val("-o"),
                _val("-O"),
                *flags(
                    "",
                    "login norc noprofile posix verbose debugger dump-strings "
                    "dump-po-strings noediting restricted pretty-print help version",
                ),
                _val("--rcfile", kind=Kind.PATH),
                _val("--init-file", kind=Kind.PATH),
            ),
            permute=False,
            abbreviations=False,
        )
        for shell in ("bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish")
    },
    # --- the file commands acceptEdits approves inside the working folders
    "mkdir": Grammar(
        (
            *flags("pv", "parents verbose"),
            *_GNU,
            _val("-m", "--mode"),
            _val("-Z", "--context", arg=Arg.OPTIONAL),
        )
    ),
    "touch": Grammar(
        (
            *flags("acfhm", "no-create no-dereference"),
            *_GNU,
            _val("-d", "--date"),
            _val("-r", "--reference", kind=Kind.PATH),
            _val("-t"),
            _val("--time"),
        )
    ),
    "rm": Grammar(
        (
            *flags(
                "fiIrRdv",
                "force one-file-system no-preserve-root recursive dir verbose",
            ),
            *_GNU,
            _val("--interactive", arg=Arg.OPTIONAL),
            _val("--preserve-root", arg=Arg.OPTIONAL),
        )
    ),
    "rmdir": Grammar((*flags("pv", "ignore-fail-on-non-empty parents verbose"), *_GNU)),
    "mv": Grammar(
        (
            *flags(
                "bfinTuvZ",
                "force interactive no-clobber no-target-directory strip-trailing-slashes "
                "verbose context exchange no-copy",
            ),
            *_GNU,
            _val("--backup", arg=Arg.OPTIONAL),
            _val("-S", "--suffix"),
            _val("-t", "--target-directory", kind=Kind.PATH),
            _val("--update", arg=Arg.OPTIONAL),
        )
    ),
    "cp": Grammar(
        (
            *flags(
                "abdfiHlLnPpRrsTuvxZ",
                "archive attributes-only copy-contents dereference force interactive link "
                "no-clobber no-dereference parents recursive remove-destination "
                "strip-trailing-slashes symbolic-link no-target-directory one-file-system "
                "verbose keep-directory-symlink debug",
            ),
            *_GNU,
            _val("--backup", arg=Arg.OPTIONAL),
            _val("--preserve", arg=Arg.OPTIONAL),
            _val("--no-preserve"),
            _val("--reflink", arg=Arg.OPTIONAL),
            _val("--sparse"),
            _val("-S", "--suffix"),
            _val("-t", "--target-directory", kind=Kind.PATH),
            _val("--update", arg=Arg.OPTIONAL),
            _val("--context", arg=Arg.OPTIONAL),
        )
    ),
}
GRAMMARS["egrep"] = GRAMMARS["fgrep"] = GRAMMARS["grep"]  # type: ignore[index]
