"""The read-only commands the gate approves, and what each one reads (§2.1).

:data:`READERS` is the read-only set as data: one :class:`Reader` row per command, its
options read with its grammar from :data:`~.options.GRAMMARS` (the one option table) by the
one parser (:func:`~.options.parse`), each operand classified by :class:`~.options.Kind` —
a path (checked against the working folders by the mode), a pattern, a number, text, or a
variable name (which is never approved) — and, for the commands with a syntax of their own,
one check (``test`` / ``[``, ``find``'s expression, ``sed``'s script, ``git``'s
subcommands, ``xargs``'s target, ``date``'s format).

:func:`not_a_read` says why one simple command is not a read (empty: it is one):

* an option that is not in its grammar, a value or an operand computed when it runs, a word
  the parser cannot place, an option whose row says it writes or runs something, an operand
  a ``~user`` or ``~-`` expansion makes unknown, a glob that could expand into an option
  that writes or runs (a file named ``-i`` makes ``sed -n 1p *`` edit every file);
* a spelling Claude Code 2.1.332 asks for although the option is safe: :attr:`Reader.cc`
  (observed: ``sort -k1`` and ``--rev`` ask while ``sort -k 1`` and ``--reverse`` run).

:func:`read_paths` lists the files and folders a read names (its ``PATH`` operands and
option values), and :func:`edit_paths` the paths a file-changing command of ``acceptEdits``
names, both through the same parse. Rules of this module: nothing here guesses — a command
the parse cannot fully place is not a read — and every fact about a command is in its row.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from .options import (
    FOLLOWS,
    GRAMMARS,
    Arg,
    Form,
    Found,
    Grammar,
    Kind,
    Option,
    Parsed,
    flags,
    parse,
)

__all__ = [
    "ARITHMETIC_TESTS",
    "EDIT_OPTIONS",
    "NAME_TESTS",
    "READERS",
    "READ_ONLY_GIT",
    "XARGS_TARGETS",
    "Reader",
    "Spelling",
    "edit_paths",
    "not_a_read",
    "read_paths",
    "sed_writes_or_runs",
    "source_paths",
    "touched_paths",
]


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


#: The ``test`` / ``[[ ]]`` operators whose operands bash evaluates as arithmetic: in
#: ``[[ ]]`` an operand that is not a number literal runs what its subscript holds.
ARITHMETIC_TESTS = frozenset({"-eq", "-ne", "-lt", "-le", "-gt", "-ge"})
#: The operators whose operand is a variable name (``-v NAME``: a subscript is evaluated).
NAME_TESTS = frozenset({"-v", "-R"})
_UNARY_TESTS = frozenset(
    [
        "-b",
        "-c",
        "-d",
        "-e",
        "-f",
        "-g",
        "-G",
        "-h",
        "-k",
        "-L",
        "-N",
        "-O",
        "-p",
        "-r",
        "-s",
        "-S",
        "-t",
        "-u",
        "-w",
        "-x",
        "-n",
        "-z",
    ]
)
_BINARY_TESTS = frozenset({"==", "!=", "-nt", "-ot", "-ef", "<", ">", *ARITHMETIC_TESTS})
_NUMBER = re.compile(r"[-+]?(?:0[xX][0-9a-fA-F]+|\d+#[0-9a-zA-Z@_]+|\d+)")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_GLOB = re.compile(r"[*?[]")


@dataclass(frozen=True)
class Spelling:
    """What Claude Code 2.1.332 approves of a command whose options it checks itself
    (observed; the defaults approve everything the grammar reads). ``forms``: the
    :class:`~.options.Form` s it takes (``None``: all); ``numbers``: a value attached to a
    short option is also fine when it is a number (``grep -A3``); ``abbreviations``: a
    shortened long option; ``options``: the only options it takes (``pwd``: none), ``asks``:
    options it asks for although they read (``sort --debug``); ``bundled_values``: an option
    with a value inside a bundle (``sort -rk 1``); ``end``: a ``--`` (``pwd --`` asks);
    ``most``: at most this many options (``hostname -f``, but ``hostname -IA`` asks);
    ``integers``: a value of kind number must be an integer (``grep -A 1k`` asks);
    ``no_values``: options it reads as taking no value (``sort --check=quiet`` asks)."""

    forms: frozenset[Form] | None = None
    numbers: bool = False
    abbreviations: bool = True
    options: frozenset[str] | None = None
    asks: frozenset[str] = frozenset()
    bundled_values: bool = True
    end: bool = True
    most: int | None = None
    integers: bool = False
    no_values: frozenset[str] = frozenset()

    def problem(self, parsed: Parsed) -> str:
        """Why Claude Code asks for these options although each is safe (empty: it does not)."""
        if not self.end and parsed.ended:
            return "Claude Code 2.1.332 asks for -- here"
        if self.most is not None and len(parsed.found) > self.most:
            return f"Claude Code 2.1.332 asks for more than {self.most} option(s) here"
        for found in parsed.found:
            why = self._one(found)
            if why:
                return why
        return ""

    def _one(self, found: Found) -> str:
        names = set(found.option.names)
        if (self.options is not None and not names & self.options) or names & self.asks:
            return f"Claude Code 2.1.332 asks for {found.text}"
        if names & self.no_values and found.value is not None:
            return f"Claude Code 2.1.332 asks for {found.text} (a value it does not take)"
        if (
            not self.bundled_values
            and found.form is Form.BUNDLED
            and found.option.arg is not Arg.NONE
        ):
            return f"Claude Code 2.1.332 asks for {found.text} (a value in a bundle)"
        attached_number = (
            self.numbers and found.form is Form.ATTACHED and (found.value or "").isdigit()
        )
        if self.forms is not None and found.form not in self.forms and not attached_number:
            return f"Claude Code 2.1.332 asks for {found.form.value} {found.text}"
        word = found.words[0]
        shortened = word.startswith("--") and word.split("=", 1)[0] not in found.option.names
        if not self.abbreviations and shortened:
            return f"Claude Code 2.1.332 asks for the shortened {word}"
        number = found.value is not None and re.fullmatch(r"[-+]?\d+", found.value)
        if self.integers and found.option.value is Kind.NUMBER and not number:
            return f"Claude Code 2.1.332 asks for {found.text}: not a number"
        return ""


_PLAIN = frozenset(
    {Form.SHORT, Form.BUNDLED, Form.SEPARATE, Form.LONG, Form.LONG_EQUALS, Form.LONG_SEPARATE}
)
#: sort, grep, git (observed in 2.1.332): no attached value, no value in a bundle, no
#: shortened long option; grep takes an attached number (``-A3``)
_STRICT = Spelling(_PLAIN | {Form.NUMBER}, abbreviations=False, bundled_values=False, integers=True)
_STRICT_NUMBERS = Spelling(
    _PLAIN | {Form.NUMBER},
    numbers=True,
    abbreviations=False,
    bundled_values=False,
    integers=True,
)
_NONE = Spelling(options=frozenset(), end=False)
#: git blame (observed in 2.1.332: "git blame -sb" asks, "git status -sb" runs)
_NO_BUNDLES = replace(_STRICT, forms=(_PLAIN - {Form.BUNDLED}) | {Form.NUMBER})


Check = Callable[[Parsed, Sequence[str]], str]


@dataclass(frozen=True)
class Reader:
    """One command of the read-only set.

    ``operands``: the kinds of its first operands in order, ``rest`` the kind of the others
    (``None``: no more are taken), ``most`` at most that many operands; ``options``:
    ``False`` when every word is an operand (``echo``, ``true``); ``check``: a further
    check of its own syntax, given the parse and the words, returning why it is not a read;
    ``cc``: the spellings Claude Code 2.1.332 approves (``None``: all it parses); ``least``:
    at least this many operands (``cd`` alone goes home: asked in 2.1.332); ``dollars``:
    which words may hold a ``$`` or a backtick, even quoted (observed in 2.1.332: ``cat
    '$x'`` and ``grep 'a$' f`` ask, ``echo '$(x)'`` and ``printf '%s' '$x'`` run):
    ``"none"``, ``"any"`` (``echo``) or ``"format"`` (``printf``: all but its format);
    ``plain_name``: the command word and the options must be written as they are
    (observed in 2.1.332: ``"hostname"``, ``hostname \\--fqdn`` and ``\\jq . f`` ask,
    ``"sort" f`` runs); ``globs``: a glob operand is
    fine (``sort *.txt`` and ``file *.txt`` ask in 2.1.332, even after ``--``)."""

    name: str
    operands: tuple[Kind, ...] = ()
    rest: Kind | None = Kind.PATH
    most: int | None = None
    options: bool = True
    check: Check | None = None
    cc: Spelling | None = None
    least: int = 0
    dollars: str = "none"
    plain_name: bool = False
    globs: bool = True
    grammar: Grammar = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "grammar", GRAMMARS.get(self.name, Grammar()))

    def kinds(self, parsed: Parsed) -> list[Kind | None]:
        """The kind of each operand of ``parsed`` (``None``: one too many)."""
        first = list(self.operands)
        if self.name in _PATTERN_FIRST and parsed.has("-e", "-f"):
            first = []  # "grep -e PAT FILE": every operand is a file
        if self.name == "jq" and parsed.has("-f"):
            first = []
        rest = self.rest
        if self.name == "jq" and parsed.has("--args", "--jsonargs"):
            rest = Kind.TEXT
        kinds: list[Kind | None] = []
        for i in range(len(parsed.operands)):
            kinds.append(first[i] if i < len(first) else rest)
        if self.most is not None:
            kinds = [k if i < self.most else None for i, k in enumerate(kinds)]
        return kinds


_PATTERN_FIRST = frozenset({"grep", "egrep", "fgrep", "jq"})


def _home_expansion(word: str) -> bool:
    """``~user/…``, ``~+``, ``~-``: a folder bash fills in that this check cannot know."""
    return word.startswith("~") and not (word == "~" or word.startswith("~/"))


def not_a_read(
    words: Sequence[str | None], globs: Sequence[bool] = (), dollars: Sequence[bool] = ()
) -> str:
    """Why the simple command ``words`` (program first, quotes removed, ``None`` for a word
    computed when it runs) is not a read; empty when it is one. ``globs[i]``: word ``i``
    holds an unquoted glob, which bash may expand into an option name (a file called
    ``--output=x``); ``dollars[i]``: word ``i`` is written with a ``$`` or a backtick,
    quoted or not (see :attr:`Reader.dollars`)."""
    if not words or words[0] is None:
        return "the command word is computed when it runs"
    reader = READERS.get(words[0])
    if reader is None:
        return f"{words[0]} is not in the read-only set"
    if any(a is None for a in words[1:]):
        return "an argument is computed when it runs"
    known = [a for a in words[1:] if a is not None]
    parsed = parse(reader.grammar, known) if reader.options else Parsed(operands=tuple(known))
    why = (
        _dollar_problem(reader, parsed, known, dollars[1:])
        or _options_problem(reader, parsed)
        or _operands_problem(reader, parsed)
    )
    if why:
        return why
    if not reader.globs and any(globs[1:]):
        return f"{reader.name} with a glob operand (asked in 2.1.332)"
    if not parsed.ended and _glob_may_be_option(reader, globs):
        return f"{reader.name}: a glob could expand into one of its options"
    return reader.check(parsed, known) if reader.check is not None else ""


def _dollar_problem(
    reader: Reader, parsed: Parsed, words: Sequence[str], dollars: Sequence[bool]
) -> str:
    """A word written with ``$`` or a backtick that Claude Code 2.1.332 asks for."""
    if reader.dollars == "any" or not any(dollars):
        return ""
    if reader.dollars == "format":  # printf: its format, and an argument like a[$(x)]
        at = parsed.rest_at if parsed.rest_at is not None else len(words)
        if at < len(dollars) and dollars[at]:
            return f"{reader.name}: a $ or ` in the format (asked in 2.1.332, quoted or not)"
        if any(d and _SUBSCRIPT_RUN.search(w) for w, d in zip(words, dollars, strict=False)):
            return f"{reader.name}: an argument like a subscript holding $( (asked in 2.1.332)"
        return ""
    return f"{reader.name}: a word holds a $ or ` (asked in 2.1.332, quoted or not)"


_SUBSCRIPT_RUN = re.compile(r"\[.*(?:\$\(|`)", re.DOTALL)


def _options_problem(reader: Reader, parsed: Parsed) -> str:
    """Why the options of ``parsed`` keep it from being a read (empty: they do not)."""
    if parsed.problem:
        return f"{reader.name}: {parsed.problem}"
    refused = parsed.refused
    if refused:
        return f"{reader.name} {refused[0].text} {refused[0].option.refuse}"
    named = [f for f in parsed.found if f.option.value is Kind.NAME]
    if named:
        return f"{reader.name} {named[0].text} names a shell variable"
    return reader.cc.problem(parsed) if reader.cc is not None else ""


def _operands_problem(reader: Reader, parsed: Parsed) -> str:
    """Why an operand of ``parsed`` keeps it from being a read (empty: none does)."""
    if len(parsed.operands) < reader.least:
        return f"{reader.name} needs {reader.least} operand(s) to be a read"
    for kind, operand in zip(reader.kinds(parsed), parsed.operands, strict=True):
        if kind is None:
            return f"{reader.name} takes no operand {operand!r} as a read"
        if kind is Kind.NAME:
            return f"{reader.name} {operand} names a shell variable"
        if kind is Kind.PATH and _home_expansion(operand):
            return f"{operand}: bash expands it to a folder not known here"
    return ""


def _glob_may_be_option(reader: Reader, globs: Sequence[bool]) -> bool:
    """A glob operand before any ``--`` of a command that has options which write or run
    something: a file called ``--output=x`` or ``-i`` in the folder would become one (a
    file name holds no ``/``, so an option naming a file to read stays inside)."""
    if not any(globs[1:]) or not reader.options:
        return False
    return any(o.refuse and o.refuse != FOLLOWS for o in reader.grammar.options)


def read_paths(words: Sequence[str | None]) -> tuple[str, ...]:
    """The files and folders the read ``words`` names: its ``PATH`` operands and option
    values (``grep -f FILE``), as written; ``-`` (standard input) left out. Empty for a
    command the parse cannot place (it is not approved anyway)."""
    if not words or words[0] is None or any(w is None for w in words):
        return ()
    reader = READERS.get(words[0])
    if reader is None:
        return ()
    known = [w for w in words[1:] if w is not None]
    if reader.name == "find":
        return _find_paths(known)
    if reader.name == "git":
        return _git_paths(known)
    if reader.name == "xargs":  # its target reads what it names, and what arrives on input
        parsed = parse(reader.grammar, known)
        at = parsed.rest_at if parsed.rest_at is not None else len(known)
        named = [f.value for f in parsed.found if f.option.value is Kind.PATH and f.value]
        return (*named, *read_paths(known[at:]))
    if not reader.options:
        return ()
    parsed = parse(reader.grammar, known)
    named = [f.value for f in parsed.found if f.option.value is Kind.PATH and f.value]
    named += [
        o for k, o in zip(reader.kinds(parsed), parsed.operands, strict=True) if k is Kind.PATH
    ]
    return tuple(p for p in named if p != "-")


# --- test and [ -------------------------------------------------------------------------


def _test_check(parsed: Parsed, words: Sequence[str]) -> str:
    """``test``: one operand, a unary test and its operand, or two operands and a binary
    test, each form negated or not (observed in Claude Code 2.1.332: ``=`` with ``test``,
    ``-a``, ``-o``, parentheses, ``-v`` and ``-R`` ask; an arithmetic test needs numbers)."""
    return _test_words(list(words), equals=False)


def _bracket_check(parsed: Parsed, words: Sequence[str]) -> str:
    """``[ … ]``: as ``test`` (``=`` is fine here), closed by ``]``."""
    if not words or words[-1] != "]":
        return "[ without its closing ]"
    return _test_words(list(words[:-1]), equals=True)


def _test_words(words: list[str], *, equals: bool) -> str:
    if words and words[0] == "!":
        words = words[1:]
    if len(words) <= 1:
        return ""  # "test" is false, "test x" tests that x is not empty
    if len(words) == 2:
        op, arg = words
        if op in NAME_TESTS:
            return f"test {op} {arg} evaluates a variable name"
        return "" if op in _UNARY_TESTS else f"test does not take {op} here"
    if len(words) == 3:
        left, op, right = words
        if op == "=" and equals:
            return ""
        if op not in _BINARY_TESTS - {"<", ">"}:
            return f"test {op} is not approved"
        if op in ARITHMETIC_TESTS and not (_NUMBER.fullmatch(left) and _NUMBER.fullmatch(right)):
            return f"test {left} {op} {right} compares something that is not a number"
        return ""
    return "a test of several parts (-a, -o, parentheses) is not approved"


# --- find ---------------------------------------------------------------------------------

_FIND_NONE = _names(
    "-daystart -depth -d -ignore_readdir_race -mount -noignore_readdir_race -noleaf -nowarn "
    "-warn -xdev -empty -executable -false -nogroup -nouser -readable -true -writable -ls "
    "-print -print0 -prune -quit -not -a -and -o -or ! ( ) ,"
)
_FIND_ONE = _names(
    "-maxdepth -mindepth -regextype -amin -anewer -atime -cmin -cnewer -context -ctime "
    "-fstype -gid -group -ilname -iname -inum -ipath -iregex -iwholename -links -lname "
    "-mmin -mtime -name -newer -path -perm -regex -samefile -size -type -uid -used -user "
    "-wholename -xtype -printf"
)
_FIND_RUNS = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_WRITES = {"-delete": 0, "-fls": 1, "-fprint": 1, "-fprint0": 1, "-fprintf": 2}
_FIND_PATH_VALUES = frozenset({"-files0-from", "-newer", "-anewer", "-cnewer", "-samefile"})
_FIND_OPTIONS = re.compile(r"-[HLP]|-D\S*|-O\d*")


def _find_split(words: Sequence[str]) -> tuple[list[str], list[str], list[str], str]:
    """``find``'s leading options, starting points and expression, or the problem."""
    i = 0
    opts: list[str] = []
    while i < len(words) and _FIND_OPTIONS.fullmatch(words[i]):
        if words[i] == "-D" and i + 1 < len(words):
            opts.append(words[i])
            i += 1
        opts.append(words[i])
        i += 1
    starts: list[str] = []
    while i < len(words) and not (words[i].startswith(("-", "(", ")", "!", ","))):
        starts.append(words[i])
        i += 1
    return opts, starts, list(words[i:]), ""


def _find_check(parsed: Parsed, words: Sequence[str]) -> str:
    """``find``: its expression holds only the tests and actions that read (``-exec``,
    ``-ok``, ``-delete`` and the ``-f…`` actions that write a file are refused), and it does
    not follow symbolic links as it walks (``-L``, ``-follow``: out of the folders)."""
    opts, _, expr, why = _find_split(words)
    if why:
        return why
    if "-L" in opts or "-follow" in expr:
        return "find -L / -follow follows symbolic links out of the folders it walks"
    i = 0
    while i < len(expr):
        token = expr[i]
        if token in _FIND_RUNS:
            return f"find {token} runs another program"
        if token in _FIND_WRITES:
            return f"find {token} changes or writes files"
        if token in _FIND_NONE:
            i += 1
        elif (
            token in _FIND_ONE
            or token in _FIND_PATH_VALUES
            or re.fullmatch(r"-newer[aBcmt]{2}", token)
        ):
            if i + 1 >= len(expr):
                return f"find {token} needs a value"
            i += 2
        else:
            return f"find does not take {token!r} here"
    return ""


def _find_paths(words: Sequence[str]) -> tuple[str, ...]:
    _, starts, expr, _ = _find_split(words)
    named = [
        expr[i + 1]
        for i, t in enumerate(expr[:-1])
        if t in _FIND_PATH_VALUES or re.fullmatch(r"-newer[aBcm]{2}", t)
    ]
    return tuple(starts or ["."]) + tuple(named)


# --- sed ----------------------------------------------------------------------------------

#: sed options that keep it a read (observed in Claude Code 2.1.332); ``-e``, ``-f``, ``-i``,
#: ``-s`` / ``--separate``, ``-l`` and every other option make it a command that may change
#: files.
_SED_READ_OPTIONS = frozenset(
    {
        "-n",
        "--quiet",
        "--silent",
        "-E",
        "-r",
        "--regexp-extended",
        "-u",
        "--unbuffered",
        "--debug",
    }
)
_SED_PRINT = re.compile(r"(?:\d+(?:,\d+)?)?p")
_SED_SUBSTITUTE = re.compile(
    r"s(?P<d>[^\w\s\\])(?:(?!(?P=d))[^\\]|\\.)*(?P=d)(?:(?!(?P=d))[^\\]|\\.)*(?P=d)[gpiI0-9]*"
)


def _sed_check(parsed: Parsed, words: Sequence[str]) -> str:
    """Observed in Claude Code 2.1.332 (the docs name ``sed`` in the read-only set without
    conditions): a read is ``sed -n`` whose script only prints numbered lines (``1,5p``),
    with or without files, or a ``s///`` script reading standard input only;
    whole option names only (``--qui`` asks), ``$`` or ``/re/`` addresses, ``d``, ``y``,
    ``l`` ask."""
    for found in parsed.found:
        if not set(found.option.names) & _SED_READ_OPTIONS:
            return f"sed {found.text} is not approved"
        if found.words[0].startswith("--") and found.words[0] not in found.option.names:
            return f"sed: Claude Code 2.1.332 asks for the shortened {found.words[0]}"
    if any("$" in w for w in words):
        return "sed: a $ address or variable is not approved"
    if not parsed.operands:
        return "sed without a script"
    quiet = parsed.has("-n")
    script, files = parsed.operands[0], parsed.operands[1:]
    pieces = [piece.strip() for piece in re.split(r"[;\n]", script)]
    if any(not piece for piece in pieces):
        return "sed: an empty script command"
    if quiet and all(_SED_PRINT.fullmatch(piece) for piece in pieces):
        return ""
    if not files and all(_SED_SUBSTITUTE.fullmatch(piece) for piece in pieces):
        return ""  # observed in 2.1.332: "sed p" and "sed 1,2p" without -n ask
    return "sed: only printing numbered lines, or s/// on standard input, is a read"


_SED_ADDRESS = re.compile(r"(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:,(?:\d+|\$|/(?:[^/\\]|\\.)*/))?!?\s*")
_SED_FLAGS_OF_S = re.compile(
    r"s(?P<d>[^\w\s\\])(?:(?!(?P=d))[^\\]|\\.)*(?P=d)(?:(?!(?P=d))[^\\]|\\.)*(?P=d)(?P<f>\S*)"
)


def sed_writes_or_runs(words: Sequence[str | None]) -> bool:
    """Whether a ``sed`` command's script writes a file or runs one (``w``, ``W``, ``e``,
    ``r``, ``R`` commands, ``s///w`` / ``s///e``) or comes from a file (``-f``), or the
    command cannot be read: such a sed is never approved by ``acceptEdits`` (observed in
    Claude Code 2.1.332)."""
    if any(w is None for w in words[1:]):
        return True
    parsed = parse(GRAMMARS["sed"], [w for w in words[1:] if w is not None])
    if parsed.problem or parsed.has("-f"):
        return True
    scripts = parsed.values("-e") or list(parsed.operands[:1])
    for script in scripts:
        for piece in re.split(r"[;\n]", script):
            body = piece.strip()
            address = _SED_ADDRESS.match(body)
            body = body[address.end() :] if address else body
            flags_of_s = _SED_FLAGS_OF_S.match(body)
            if body[:1] in ("w", "W", "e", "r", "R") or (
                flags_of_s and any(c in flags_of_s["f"] for c in "we")
            ):
                return True
    return False


# --- xargs --------------------------------------------------------------------------------

#: The commands ``xargs`` may feed and still count as a read (observed in Claude Code 2.1.332:
#: ``xargs cat``, ``xargs ls``, ``xargs stat`` ask; ``xargs grep``, ``xargs wc`` do not).
XARGS_TARGETS = frozenset({"echo", "printf", "wc", "grep", "egrep", "fgrep", "head", "tail"})


def _xargs_check(parsed: Parsed, words: Sequence[str]) -> str:
    """A bare ``xargs`` (no option, observed in Claude Code 2.1.332: ``xargs -n1 wc`` asks)
    in front of one of :data:`XARGS_TARGETS`, which must itself be a read (the docs strip a
    bare ``xargs`` and say nothing of its target). A bare ``xargs`` alone runs ``echo``."""
    if parsed.found or parsed.ended:
        return "xargs with options is not approved (asked in 2.1.332)"
    rest = list(words[parsed.rest_at :]) if parsed.rest_at is not None else []
    if not rest:
        return ""
    if rest[0] not in XARGS_TARGETS:
        return f"xargs runs {rest[0]}, which it may not feed as a read"
    return not_a_read(rest)


# --- date, printf, echo -------------------------------------------------------------------


def _date_check(parsed: Parsed, words: Sequence[str]) -> str:
    """``date`` prints; an operand other than ``+FORMAT`` sets the clock."""
    if any(not o.startswith("+") for o in parsed.operands):
        return "date with a time operand sets the clock"
    return ""


_PRINTF_SPEC = re.compile(r"%(?:%|[-+ #0]*(?:\*|\d+)?(?:\.(?:\*|\d+))?(\([^)]*\))?([a-zA-Z]))")


def _printf_check(parsed: Parsed, words: Sequence[str]) -> str:
    """``printf FORMAT [ARG…]``: observed in 2.1.332, an argument a numeric conversion
    (``%d``, ``%x``, ``%(…)T`` …) reads must be a number (``printf %d x`` asks)."""
    rest = list(words[parsed.rest_at :]) if parsed.rest_at is not None else []
    if not rest:
        return "printf without a format"
    specs = [m for m in _PRINTF_SPEC.finditer(rest[0]) if m[0] != "%%"]
    if not specs:
        return ""
    for i, arg in enumerate(rest[1:]):
        spec = specs[i % len(specs)]
        numeric = spec[1] is not None or spec[2] in "diouxXeEfFgGaA"
        if numeric and not re.fullmatch(r"[-+]?\d+(?:\.\d+)?", arg):
            return f"printf {spec[0]} of {arg!r}: not a number (asked in 2.1.332)"
    return ""


# --- git ----------------------------------------------------------------------------------

#: ``git`` subcommands that only read (their options checked by :data:`_GIT`).
READ_ONLY_GIT = frozenset(
    {"status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame"}
)


def _git_options(*rows: Option | tuple[Option, ...], number: str | None = None) -> Grammar:
    flat: list[Option] = []
    for row in rows:
        flat += list(row) if isinstance(row, tuple) else [row]
    return Grammar(tuple(flat), abbreviations=False, number=number)


def _v(*names: str, kind: Kind = Kind.TEXT, arg: Arg = Arg.REQUIRED) -> Option:
    return Option(names, arg, kind)


_REFUSE_OUTPUT = Option(("--output",), Arg.REQUIRED, Kind.PATH, "writes its output to a file")
_REFUSE_DIFFERS = (
    Option(("--ext-diff",), refuse="runs an external diff program"),
    Option(("--textconv",), refuse="runs the textconv filters of the repository"),
)
_GIT_DIFF = (
    *flags(
        "pusRaw",
        "patch no-patch raw patch-with-raw stat shortstat numstat summary name-only "
        "name-status compact-summary check full-index binary no-renames no-color "
        "word-diff-regex= color-words=? minimal patience histogram ignore-all-space "
        "ignore-space-change ignore-space-at-eol ignore-blank-lines ignore-cr-at-eol text "
        "cached staged merge-base no-ext-diff no-textconv exit-code quiet find-copies-harder "
        "irreversible-delete relative=? no-relative abbrev=? src-prefix= dst-prefix= "
        "no-prefix default-prefix function-context",
    ),
    _v("--word-diff", arg=Arg.OPTIONAL),
    _v("--dirstat", arg=Arg.OPTIONAL),
    _v("-M", "--find-renames", arg=Arg.OPTIONAL),
    _v("-C", "--find-copies", arg=Arg.OPTIONAL),
    _v("--diff-filter"),
    _v("-S", kind=Kind.PATTERN),
    _v("-G", kind=Kind.PATTERN),
    _v("-O", kind=Kind.PATH),
    _v("--stat-width", kind=Kind.NUMBER),
    _v("-U", "--unified", kind=Kind.NUMBER),
    _v("--inter-hunk-context", kind=Kind.NUMBER),
    Option(("--no-index",)),
    _REFUSE_OUTPUT,
    *_REFUSE_DIFFERS,
)
_GIT_LOG = (
    *flags(
        "",
        "oneline graph all branches=? tags=? remotes=? decorate=? no-decorate abbrev-commit "
        "no-abbrev-commit reverse merges no-merges first-parent follow log-size "
        "name-only name-status left-right cherry-pick cherry-mark boundary full-history "
        "simplify-merges ancestry-path=? source use-mailmap mailmap no-walk=? topo-order "
        "date-order author-date-order show-signature relative-date regexp-ignore-case "
        "extended-regexp fixed-strings perl-regexp all-match invert-grep not "
        "show-linear-break=? notes=? no-notes",
    ),
    _v("-n", "--max-count", kind=Kind.NUMBER),
    _v("--skip", kind=Kind.NUMBER),
    _v("--since", "--after"),
    _v("--until", "--before"),
    _v("--author"),
    _v("--committer"),
    _v("--grep", kind=Kind.PATTERN),
    _v("--format", "--pretty", arg=Arg.OPTIONAL),
    _v("--date"),
    _v("-L"),
)
_GIT: Mapping[str, Grammar] = {
    "status": _git_options(
        *flags(
            "sbvz",
            "short branch long verbose show-stash ahead-behind no-ahead-behind renames "
            "no-renames null",
        ),
        _v("--porcelain", arg=Arg.OPTIONAL),
        _v("-u", "--untracked-files", arg=Arg.OPTIONAL),
        _v("--ignored", arg=Arg.OPTIONAL),
        _v("--ignore-submodules", arg=Arg.OPTIONAL),
        _v("--column", arg=Arg.OPTIONAL),
        Option(("--no-column",)),
        _v("--find-renames", arg=Arg.OPTIONAL),
    ),
    "log": _git_options(_GIT_LOG, *_GIT_DIFF[:-4], _REFUSE_OUTPUT, *_REFUSE_DIFFERS, number="-n"),
    "show": _git_options(_GIT_LOG, *_GIT_DIFF[:-4], _REFUSE_OUTPUT, *_REFUSE_DIFFERS, number="-n"),
    "diff": _git_options(*_GIT_DIFF),
    "branch": _git_options(
        Option(("-a", "--all")),
        Option(("-r", "--remotes")),
        Option(("-v", "--verbose")),
        Option(("-l", "--list")),
        *flags("", "show-current no-column ignore-case omit-empty"),
        _v("--contains", arg=Arg.OPTIONAL),
        _v("--no-contains", arg=Arg.OPTIONAL),
        _v("--merged", arg=Arg.OPTIONAL),
        _v("--no-merged", arg=Arg.OPTIONAL),
        _v("--points-at"),
        _v("--sort"),
        _v("--format"),
        _v("--color", arg=Arg.OPTIONAL),
        _v("--abbrev", arg=Arg.OPTIONAL),
        _v("--column", arg=Arg.OPTIONAL),
        *(
            Option((name,), refuse="changes a branch or its configuration")
            for name in (
                "-d",
                "-D",
                "-m",
                "-M",
                "-c",
                "-C",
                "-f",
                "-u",
                "--delete",
                "--move",
                "--copy",
                "--force",
                "--unset-upstream",
                "--edit-description",
                "--track",
                "--no-track",
                "--create-reflog",
            )
        ),
        Option(("--set-upstream-to",), Arg.REQUIRED, refuse="changes the branch's upstream"),
    ),
    "rev-parse": _git_options(
        *flags(
            "q",
            "show-toplevel show-prefix show-cdup git-dir git-common-dir absolute-git-dir "
            "is-inside-git-dir is-inside-work-tree is-bare-repository is-shallow-repository "
            "show-superproject-working-tree verify quiet sq symbolic symbolic-full-name all "
            "branches=? tags=? remotes=? local-env-vars shared-index-path",
        ),
        _v("--abbrev-ref", arg=Arg.OPTIONAL),
        _v("--short", arg=Arg.OPTIONAL),
        _v("--path-format"),
        _v("--git-path"),
        _v("--default"),
    ),
    "ls-files": _git_options(
        *flags(
            "cdmoiskuvtfz",
            "cached deleted modified others ignored stage killed unmerged directory "
            "no-empty-directory error-unmatch full-name recurse-submodules eol debug "
            "deduplicate sparse exclude-standard",
        ),
        _v("-x", "--exclude", kind=Kind.PATTERN),
        _v("-X", "--exclude-from", kind=Kind.PATH),
        _v("--exclude-per-directory"),
        _v("--abbrev", arg=Arg.OPTIONAL),
        _v("--format"),
    ),
    "blame": _git_options(
        *flags(
            "bcflnpswet",
            "root show-stats porcelain line-porcelain incremental show-name show-number show-email",
        ),
        _v("-L"),
        _v("-M", arg=Arg.OPTIONAL),
        _v("-C", arg=Arg.OPTIONAL),
        _v("--since"),
        _v("--date"),
        _v("--abbrev", arg=Arg.OPTIONAL),
        _v("--contents", kind=Kind.PATH),
        _v("-S", kind=Kind.PATH),
        _v("--ignore-rev"),
        _v("--ignore-revs-file", kind=Kind.PATH),
    ),
}
#: Whole command lines that only list (observed in 2.1.332), with no further operand.
_GIT_LISTINGS = frozenset(
    {
        ("config", "--get"),
        ("remote",),
        ("remote", "-v"),
        ("stash", "list"),
        ("tag",),
        ("tag", "-l"),
        ("tag", "--list"),
    }
)


def _git_check(parsed: Parsed, words: Sequence[str]) -> str:
    """``git SUBCOMMAND …`` with no global option (``-c``, ``-C``, ``--no-pager`` ask in
    2.1.332): one of :data:`READ_ONLY_GIT` with options of its grammar, or a listing."""
    if not words:
        return "git without a subcommand"
    if words[0].startswith("-"):
        return f"git {words[0]}: a global option is not approved"
    if tuple(words) in _GIT_LISTINGS or (
        len(words) == 3 and tuple(words[:2]) == ("config", "--get")
    ):
        return ""
    grammar = _GIT.get(words[0])
    if grammar is None:
        return f"git {words[0]} is not a read-only subcommand"
    sub = parse(grammar, list(words[1:]))
    if sub.problem:
        return f"git {words[0]}: {sub.problem}"
    if sub.refused:
        return f"git {words[0]} {sub.refused[0].text} {sub.refused[0].option.refuse}"
    why = (_NO_BUNDLES if words[0] == "blame" else _STRICT).problem(sub)
    if why:
        return why
    if sub.ended and "--no-index" in sub.operands:
        return "git: --no-index after -- (asked in 2.1.332, where git reads it as a path)"
    if (
        words[0] == "branch"
        and sub.operands
        and not sub.has(
            "--list",
            "-a",
            "-r",
            "--contains",
            "--merged",
            "--no-merged",
            "--no-contains",
            "--points-at",
        )
    ):
        return "git branch NAME creates a branch"
    return ""


def _git_paths(words: Sequence[str]) -> tuple[str, ...]:
    """The files a git read names outside the repository's own: the values of its path
    options (``git blame --contents FILE``) and, for ``git diff --no-index A B``, which
    compares two files anywhere, its operands."""
    grammar = _GIT.get(words[0]) if words else None
    if grammar is None:
        return ()
    sub = parse(grammar, list(words[1:]))
    named = [f.value for f in sub.found if f.option.value is Kind.PATH and f.value]
    if words[0] == "diff" and sub.has("--no-index"):
        named += list(sub.operands)
    return tuple(named)


# --- what Claude Code 2.1.332 asks for though it reads (observed) --------------------------

#: the options 2.1.332 was seen to approve with file (``file -N``, ``-m``, ``--apple`` ask)
_FILE_OPTIONS = _names(
    "-b --brief -i --mime --mime-type -L --dereference -k --keep-going -s --special-files "
    "-r --raw -0 --print0 -n --no-buffer"
)
_GREP = replace(_STRICT_NUMBERS, asks=frozenset({"-y"}))  # the obsolete -i
_SORT_ASKS = frozenset({"--debug", "--files0-from", "--random-source"})
#: sort and file ask for any glob operand (observed in 2.1.332: "sort -- *.txt" asks)
_JQ_ASKS = frozenset(
    {"--arg", "--argjson", "--slurpfile", "--rawfile", "--args", "--jsonargs", "-L", "-f"}
)
_HOSTNAME = Spelling(
    frozenset({Form.SHORT, Form.LONG}),
    abbreviations=False,
    options=frozenset({"-f", "-I", "-s", "-d", "-i", "-A", "-a", "--fqdn", "--short"}),
    end=False,
    most=1,
)
#: python, node: only the version (``python3 -V`` asks)
_VERSION = Spelling(
    frozenset({Form.LONG, Form.SHORT}),
    abbreviations=False,
    options=frozenset({"--version"}),
    end=False,
)
_NODE_VERSION = frozenset({"--version", "-v"})


def _one_option(parsed: Parsed, words: Sequence[str]) -> str:
    """Exactly one option: ``python3 --version`` (alone, the interpreter reads its input)."""
    return "" if len(parsed.found) == 1 else "only --version alone is a read"


# --- the table ----------------------------------------------------------------------------


def _readers(*rows: Reader) -> dict[str, Reader]:
    return {r.name: r for r in rows}


#: The built-in read-only set that never prompts (reference §2.1), one row per command.
READERS: Mapping[str, Reader] = _readers(
    Reader("ls"),
    Reader("cat"),
    Reader("head"),
    Reader("tail"),
    Reader("wc"),
    Reader("diff"),
    Reader("stat"),
    Reader("du"),
    Reader("cut"),
    Reader("file", cc=Spelling(_PLAIN, abbreviations=False, options=_FILE_OPTIONS), globs=False),
    Reader("od"),
    Reader("strings"),
    Reader("grep", (Kind.PATTERN,), cc=_GREP),
    Reader("egrep", (Kind.PATTERN,), cc=_GREP),
    Reader("fgrep", (Kind.PATTERN,), cc=_GREP),
    Reader(
        "sort", cc=replace(_STRICT, asks=_SORT_ASKS, no_values=frozenset({"--check"})), globs=False
    ),
    Reader("jq", (Kind.TEXT,), least=1, cc=Spelling(end=False, asks=_JQ_ASKS), plain_name=True),
    Reader("tr", (Kind.TEXT, Kind.TEXT), rest=None),
    Reader("echo", rest=Kind.TEXT, options=False, dollars="any"),
    Reader("true", rest=Kind.TEXT, options=False),
    Reader("false", rest=Kind.TEXT, options=False),
    Reader(
        "printf",
        rest=Kind.TEXT,
        check=_printf_check,
        cc=Spelling(abbreviations=False),
        dollars="format",
    ),
    Reader("pwd", rest=None, cc=_NONE),
    Reader("cd", (Kind.PATH,), rest=None, cc=_NONE, least=1),
    Reader("which", rest=Kind.TEXT, cc=Spelling(_PLAIN, abbreviations=False)),
    Reader("basename", rest=Kind.TEXT),
    Reader("dirname", rest=Kind.TEXT),
    # observed in 2.1.332: resolving a name outside the working folders does not ask
    Reader("realpath", rest=Kind.TEXT),
    Reader("readlink", rest=Kind.TEXT),
    Reader("id", rest=Kind.TEXT, most=1),
    Reader("uname", rest=None),
    Reader("whoami", rest=None, cc=_NONE),
    Reader("hostname", rest=None, cc=_HOSTNAME, plain_name=True),
    Reader("date", rest=Kind.TEXT, check=_date_check, cc=Spelling(_PLAIN, abbreviations=False)),
    Reader("test", rest=Kind.TEXT, options=False, check=_test_check),
    Reader("[", rest=Kind.TEXT, options=False, check=_bracket_check),
    Reader("find", rest=Kind.TEXT, options=False, check=_find_check),
    Reader("sed", (Kind.TEXT,), check=_sed_check),
    Reader("git", rest=Kind.TEXT, options=False, check=_git_check),
    Reader("xargs", rest=Kind.TEXT, check=_xargs_check),
    Reader("python3", rest=None, cc=_VERSION, check=_one_option),
    Reader("python", rest=None, cc=_VERSION, check=_one_option),
    Reader("node", rest=None, cc=replace(_VERSION, options=_NODE_VERSION), check=_one_option),
)


# --- acceptEdits ----------------------------------------------------------------------------

#: The options Claude Code 2.1.332's ``acceptEdits`` approves with each file command it
#: approves inside the working folders (observed): ``None`` any option of its grammar
#: (``mkdir -m 700``, ``rm -rf``), an empty set none at all (``cp -v``, ``mv -f``, ``touch
#: -c`` and even ``cp --`` ask), or exactly these spellings (``sed -i -E``; ``sed -n -i``,
#: ``-i.bak``, ``--in-place=.bak`` ask).
EDIT_OPTIONS: Mapping[str, frozenset[str] | None] = {
    "mkdir": None,
    "rm": None,
    "rmdir": None,
    "cp": frozenset(),
    "mv": frozenset(),
    "touch": frozenset(),
    "sed": frozenset({"-i", "--in-place", "-E", "--", "--regexp-extended", "-r"}),
}


def edit_paths(words: Sequence[str | None]) -> list[str] | None:
    """The paths a file-changing command of ``acceptEdits`` (``mkdir touch rm rmdir mv cp
    sed``) names: its operands and the values of its path options, ``sed``'s script left
    out. ``None`` when ``acceptEdits`` does not approve it whatever the paths: a word
    computed when it runs, an option the parse cannot place, or one of
    :data:`EDIT_OPTIONS` forbids (``cp -t/elsewhere f``, the value attached, asks)."""
    if not words or words[0] not in EDIT_OPTIONS or any(w is None for w in words):
        return None
    program = words[0] or ""
    known = [w for w in words[1:] if w is not None]
    parsed = parse(GRAMMARS[program], known)
    if parsed.problem:
        return None
    allowed = EDIT_OPTIONS[program]
    if allowed is not None:
        given = [f.words[0] for f in parsed.found]
        if parsed.ended:
            given.append("--")
        if any(w not in allowed for w in given):
            return None
    named = [f.value for f in parsed.found if f.option.value is Kind.PATH and f.value]
    operands = list(parsed.operands)
    if program == "sed" and not parsed.has("-e", "-f") and operands:
        operands = operands[1:]  # the script
    return named + operands


def source_paths(words: Sequence[str | None]) -> list[str]:
    """The files ``cp`` or ``mv`` read: every operand with ``-t DIR``, else all but the last
    (the destination). Observed in 2.1.332: a deny ``Read(a.txt)`` denies ``cp a.txt b``,
    ``mv a.txt b`` and ``cp -t sub a.txt``, not ``cp b a.txt``, ``ln -s a.txt l`` or
    ``touch a.txt``. A word computed when it runs is left out; when the grammar cannot place
    a word, every non-option word counts (a deny then binds more, never less)."""
    if not words or words[0] not in ("cp", "mv"):
        return []
    known = [w for w in words[1:] if w is not None]
    parsed = parse(GRAMMARS[words[0] or ""], known)
    if parsed.problem or len(known) < len(words) - 1:
        return [w for w in known if not w.startswith("-")]
    operands = list(parsed.operands)
    return operands if parsed.has("-t") else operands[:-1]


def touched_paths(words: Sequence[str | None]) -> list[str | None]:
    """Every path a file command (``mkdir touch rm rmdir mv cp sed``) names, whatever its
    options: operands and path-option values (``None`` for a word computed when it runs).
    An option the grammar does not know leaves the other non-option words as the paths, so
    nothing is missed (the protected-path check reads this)."""
    if not words or words[0] not in EDIT_OPTIONS:
        return []
    if any(w is None for w in words):
        return [w for w in words[1:] if w is None or not w.startswith("-")]
    known = [w for w in words[1:] if w is not None]
    parsed = parse(GRAMMARS[words[0] or ""], known)
    if parsed.problem:
        return [w for w in known if not w.startswith("-")]
    named: list[str | None] = [
        f.value for f in parsed.found if f.option.value is Kind.PATH and f.value
    ]
    operands = list(parsed.operands)
    if words[0] == "sed" and not parsed.has("-e", "-f") and operands:
        operands = operands[1:]
    return named + operands
