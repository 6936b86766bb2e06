"""Bash command analysis, the way Claude Code's permission matcher reads a command (§2.1).

:func:`analyze` parses a command with the tree-sitter bash grammar (``tree-sitter-bash``:
it parses ``[[ ]]``, ``case``, arithmetic and here-docs, where ``bashlex`` raises) and
returns a :class:`CommandAnalysis`:

* every simple command, at any depth: the parts of ``&& || ; | |& &`` and newlines, and
  also the commands inside ``$( )``, backticks, ``<( )`` / ``>( )``, subshells, loops,
  functions and here-doc bodies (:class:`Subcommand`, ``nested=True`` inside a substitution);
* the wrappers Claude Code strips (``timeout time nice nohup stdbuf command builtin noglob``,
  bare ``xargs``) and leading ``VAR=`` assignments, kept apart from the command words;
* redirect targets (:class:`Redirect`), which the gate judges as file writes / reads;
* what cannot be verified statically (:attr:`Subcommand.unverifiable`): a command word or an
  argument produced by a substitution, a variable in command position, ``eval``, a quoted
  string that the grammar cannot close. Such a command is never auto-approved.

:func:`bypass_forms` lists the forms a Bash deny rule does **not** see (``sudo rm``,
``env rm``, ``bash -c 'rm …'``, ``/bin/rm``, quoting, exec wrappers, ``xargs -0 rm``): the
gate keeps Claude Code's verdict and reports them as :class:`BypassWarning` values.
"""

from __future__ import annotations

import enum
import re
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

__all__ = [
    "EXEC_WRAPPERS",
    "READ_ONLY_COMMANDS",
    "READ_ONLY_GIT",
    "WRAPPERS",
    "BypassKind",
    "BypassWarning",
    "CommandAnalysis",
    "Redirect",
    "Subcommand",
    "analyze",
    "bypass_forms",
    "is_read_only_command",
    "is_read_only_words",
    "split_command",
    "strip_wrappers",
]

#: Wrappers Claude Code strips before matching (``xargs`` only when bare, with no flags).
WRAPPERS = frozenset(
    {"timeout", "time", "nice", "nohup", "stdbuf", "command", "builtin", "noglob", "xargs"}
)
#: Wrappers that run another program and always prompt; only an exact rule approves them.
EXEC_WRAPPERS = frozenset({"watch", "setsid", "ionice", "flock"})
#: The built-in read-only set that never prompts (reference §2.1); each entry is checked
#: further by :func:`is_read_only_words` (``find -delete``, ``sed … w``, ``--output=``).
READ_ONLY_COMMANDS = frozenset(
    {
        "ls",
        "cat",
        "echo",
        "pwd",
        "head",
        "tail",
        "grep",
        "find",
        "wc",
        "which",
        "diff",
        "stat",
        "du",
        "cd",
        "sed",
    }
)
#: ``git`` subcommands that only read (``--output`` and global options disqualify them).
READ_ONLY_GIT = frozenset(
    {"status", "log", "diff", "show", "branch", "rev-parse", "ls-files", "blame"}
)

_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})
_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})
_CHANGES_DIR = frozenset({"cd", "pushd", "popd"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "ksh"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_OPTION_VALUE = {
    "timeout": {"-s", "--signal", "-k", "--kill-after"},
    "nice": {"-n", "--adjustment"},
    "stdbuf": {"-i", "-o", "-e"},
    "sudo": {"-u", "-g", "-h", "-p", "-U", "-C", "-D", "-r", "-t"},
    "exec": {"-a"},
    "env": {"-u", "--unset", "-C", "--chdir", "-S", "--split-string"},
    "ionice": {"-c", "-n", "-p", "-P", "-u"},
    "flock": {"-w", "-E", "--timeout"},
    "watch": {"-n", "--interval", "-d"},
    "xargs": {"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"},
}


class BypassKind(enum.StrEnum):
    """A form that sidesteps a Bash deny rule because Claude Code does not strip it."""

    SUDO = "sudo"
    ENV = "env"
    SHELL_C = "shell -c"
    EVAL = "eval"
    PATH = "program path"
    QUOTING = "quoting"
    EXEC_WRAPPER = "exec wrapper"
    XARGS = "xargs with flags"
    FILE_BY_BASH = "file named to a Bash command"


@dataclass(frozen=True)
class BypassWarning:
    """A deny/ask ``rule`` that this ``form`` of ``command`` sidesteps, and the remedy."""

    rule: str
    kind: BypassKind
    command: str

    @property
    def message(self) -> str:
        """One sentence naming the bypass and the remedy."""
        if self.kind is BypassKind.FILE_BY_BASH:
            return (
                f"{self.rule} binds the built-in file tools, not {self.command!r}: a path "
                "rule is not a security boundary for Bash; block it with a PreToolUse "
                "hook that inspects the command, or run Bash in the sandbox"
            )
        return (
            f"{self.rule} does not see {self.command!r} ({self.kind.value}): a Bash "
            "deny rule is not a security boundary; block it with a PreToolUse hook that "
            "inspects the command, or run Bash in the sandbox"
        )


@dataclass(frozen=True)
class Redirect:
    """One redirect: ``operator`` (``>``, ``>>``, ``<`` …) and its ``target`` word
    (``None``: produced by an expansion, so not verifiable). ``writes`` for output."""

    operator: str
    target: str | None

    @property
    def writes(self) -> bool:
        """True for ``>``, ``>>``, ``&>``, ``>|``, ``<>`` and the like (not ``>&2``)."""
        return ">" in self.operator and not (
            self.operator.endswith("&")
            and (self.target is None or self.target.isdigit() or self.target == "-")
        )


@dataclass(frozen=True)
class Subcommand:
    """One simple command, its wrappers and assignments stripped.

    ``words`` are the command and arguments as Claude Code matches them (source text,
    quotes kept); ``plain`` the same words unquoted; ``assignments`` the leading
    ``VAR=value`` words; ``wrappers`` what was stripped; ``unverifiable`` why the command
    cannot be checked statically (empty when it can); ``nested``: inside a substitution.
    """

    words: tuple[str, ...]
    plain: tuple[str | None, ...]
    assignments: tuple[str, ...] = ()
    wrappers: tuple[str, ...] = ()
    unverifiable: str = ""
    nested: bool = False

    @property
    def text(self) -> str:
        """The command as deny and ask rules match it (assignments stripped)."""
        return " ".join(self.words)

    @property
    def full_text(self) -> str:
        """The command as allow rules match it (assignments kept)."""
        return " ".join((*self.assignments, *self.words))

    @property
    def program(self) -> str:
        """The command word after stripping (``""`` when there is none)."""
        return self.plain[0] or "" if self.plain else ""

    @property
    def read_only(self) -> bool:
        """In the read-only set (:func:`is_read_only_words`), verifiable, and with no
        leading assignment (``GIT_EXTERNAL_DIFF=x git diff`` runs ``x``)."""
        return not self.assignments and not self.unverifiable and is_read_only_words(self.plain)

    @property
    def exec_wrapper(self) -> bool:
        """True for ``watch``/``setsid``/``ionice``/``flock`` and ``find -exec``/``-delete``."""
        return self.program in EXEC_WRAPPERS or (
            self.program == "find" and any(w in _FIND_EXEC for w in self.plain[1:])
        )


@dataclass(frozen=True)
class CommandAnalysis:
    """What :func:`analyze` found in one command string.

    ``parsed`` is false when the grammar reports an error (an open quote…): the command is
    then matched whole by deny/ask rules and never approved. ``subcommands`` in source order.
    """

    command: str
    parsed: bool
    subcommands: tuple[Subcommand, ...]
    redirects: tuple[Redirect, ...]

    @property
    def unverifiable(self) -> tuple[str, ...]:
        """The reasons no rule, mode or read-only set may approve the command."""
        why = [] if self.parsed else ["the command does not parse as bash"]
        why += [
            f"{s.text or '(empty)'}: {s.unverifiable}" for s in self.subcommands if s.unverifiable
        ]
        why += [
            f"redirect {r.operator} to a computed target"
            for r in self.redirects
            if r.target is None
        ]
        if any(s.program in _CHANGES_DIR for s in self.subcommands):
            why += [
                f"redirect to {t} after cd: its folder is known only at run time"
                for t in self.writes + self.reads
                if not t.startswith(("/", "~"))
            ]
        return tuple(why)

    @property
    def writes(self) -> tuple[str, ...]:
        """Targets of output redirects (``/dev/null`` and fd duplications excluded)."""
        return tuple(
            r.target
            for r in self.redirects
            if r.writes and r.target and r.target not in ("/dev/null", "/dev/stdout", "/dev/stderr")
        )

    @property
    def reads(self) -> tuple[str, ...]:
        """Targets of input redirects (``< file``)."""
        return tuple(r.target for r in self.redirects if r.operator in ("<", "<>") and r.target)


@lru_cache(maxsize=1)
def _language() -> tree_sitter.Language:
    return tree_sitter.Language(tree_sitter_bash.language())


def _parser() -> tree_sitter.Parser:
    parser: tree_sitter.Parser | None = getattr(_LOCAL, "parser", None)
    if parser is None:
        parser = _LOCAL.parser = tree_sitter.Parser(_language())
        _LOCAL.sources = []
    return parser


# The text being parsed. The parser sees an ASCII copy (every other character replaced by
# "a", one byte per character, so byte offsets are character offsets): bash treats those
# characters as word characters too, and tree-sitter-bash's scanner was seen to crash the
# process on some non-ASCII input (fuzzing, tree-sitter 0.25-0.26, tree-sitter-bash 0.23-0.25).
_LOCAL = threading.local()  # per thread: the parser and the stack of texts being walked
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _text(node: tree_sitter.Node) -> str:
    source: str = _LOCAL.sources[-1]
    return source[node.start_byte : node.end_byte]


def _has(node: tree_sitter.Node, types: frozenset[str]) -> bool:
    return node.type in types or any(_has(c, types) for c in node.children)


def _unescape(word: str) -> str:
    return re.sub(r"\\(.)", r"\1", word, flags=re.DOTALL)


def _plain(node: tree_sitter.Node) -> str | None:
    """The word after quote removal, or ``None`` when an expansion produces it."""
    kind = node.type
    if kind in ("word", "number", "command_name"):
        if kind == "command_name":
            return (
                "".join(p or "" for p in map(_plain, node.children))
                if all(_plain(c) is not None for c in node.children)
                else None
            )
        return _unescape(_text(node))
    if kind == "raw_string":
        return _text(node)[1:-1]
    if kind == "string":
        parts = []
        for child in node.children:
            if child.type == '"':
                continue
            if child.type != "string_content":
                return None
            parts.append(re.sub(r'\\([$`"\\\n])', r"\1", _text(child)))
        return "".join(parts)
    if kind == "concatenation":
        pieces = [_plain(c) for c in node.children]
        return None if any(p is None for p in pieces) else "".join(p or "" for p in pieces)
    return None


def _bare(words: list[tuple[str, str | None]]) -> bool:
    """The wrapper at ``words[0]`` is followed by a command, not by an option."""
    return len(words) > 1 and not (words[1][1] or "-").startswith("-")


def _strip(words: list[tuple[str, str | None]]) -> tuple[list[tuple[str, str | None]], list[str]]:
    """Remove the wrappers Claude Code strips; return the rest and what was removed."""
    removed: list[str] = []
    while words:
        head = words[0][1]
        if head in ("time", "command") and len(words) > 2 and words[1][1] == "-p":
            removed.append(words[0][0])  # "time -p" reports POSIX times; "command -p" runs
            words = words[2:]
        elif head in ("time", "nohup", "noglob") or (
            head in ("command", "builtin", "xargs") and _bare(words)
        ):
            removed.append(words[0][0])
            words = words[1:]
        elif head in ("timeout", "nice", "stdbuf"):
            rest = words[1:]
            takes = _OPTION_VALUE[head]
            while rest and (rest[0][1] or "").startswith("-") and rest[0][1] != "--":
                rest = rest[2:] if rest[0][1] in takes and len(rest) > 1 else rest[1:]
            if rest and rest[0][1] == "--":
                rest = rest[1:]
            if head == "timeout" and rest and re.fullmatch(r"[\d.]+[smhd]?", rest[0][1] or ""):
                rest = rest[1:]
            removed.append(words[0][0])
            words = rest
        else:
            break
    return words, removed


def _walk(
    node: tree_sitter.Node, nested: bool, subs: list[Subcommand], redirects: list[Redirect]
) -> None:
    kind = node.type
    if kind == "command":
        _command(node, nested, subs, redirects)
        return
    parent = node.parent.type if node.parent is not None else ""
    if kind in ("declaration_command", "unset_command"):
        words = [(_text(c), _plain(c) if c.is_named else _text(c)) for c in node.children]
        subs.append(
            Subcommand(tuple(w for w, _ in words), tuple(p for _, p in words), nested=nested)
        )
    elif kind == "redirected_statement" and node.child_by_field_name("body") is None:
        # ">/dev/null x y": the grammar reads x and y as extra redirect targets; bash runs them
        extra = [
            c
            for r in node.children_by_field_name("redirect")
            for c in r.children_by_field_name("destination")[1:]
        ]
        if extra:
            subs.append(_simple([], extra, nested))
    elif kind == "variable_assignment" and parent not in ("command", "declaration_command"):
        # "PATH=/tmp/evil; ls" changes what a later command runs: not a read
        subs.append(Subcommand((), (), (_text(node),), nested=nested))
    if kind == "file_redirect":
        _redirect(node, redirects)
    for child in node.children:
        _walk(child, nested or kind in _SUBSTITUTIONS, subs, redirects)


def _redirect(node: tree_sitter.Node, redirects: list[Redirect]) -> None:
    operator = next((_text(c) for c in node.children if not c.is_named), "")
    targets = node.children_by_field_name("destination")
    if targets:
        redirects.append(Redirect(operator, _plain(targets[0])))


def _command(
    node: tree_sitter.Node, nested: bool, subs: list[Subcommand], redirects: list[Redirect]
) -> None:
    assignments: list[str] = []
    name: list[tree_sitter.Node] = []
    rest: list[tree_sitter.Node] = []
    for i, child in enumerate(node.children):
        field = node.field_name_for_child(i)
        if child.type == "variable_assignment":
            assignments.append(_text(child))
        elif field == "name":
            name.append(child)
        elif field == "argument":
            rest.append(child)
        elif child.type == "file_redirect":  # "cmd > f x": x is an argument for bash
            rest += child.children_by_field_name("destination")[1:]
        _walk(child, nested, subs, redirects)
    parent = node.parent
    if parent is not None and parent.type == "redirected_statement":
        for extra in parent.children_by_field_name("redirect"):
            rest += extra.children_by_field_name("destination")[1:]
    subs.append(_simple(assignments, name + rest, nested))


def _simple(assignments: list[str], nodes: list[tree_sitter.Node], nested: bool) -> Subcommand:
    """A simple command from its word nodes (the first is the command word)."""
    why = ""
    for i, child in enumerate(nodes):
        if _plain(child) is None and _has(child, _SUBSTITUTIONS):
            why = why or (
                "the command word is computed by a substitution"
                if i == 0
                else "an argument is computed by a substitution"
            )
        elif _plain(child) is None and i == 0:
            why = why or "a variable in command position"
    return _finish(assignments, [(_text(c), _plain(c)) for c in nodes], why, nested)


def _finish(
    assignments: list[str], words: list[tuple[str, str | None]], why: str, nested: bool
) -> Subcommand:
    rest, removed = _strip(words)
    if rest and rest[0][1] in ("eval", "exec", "source", "."):
        why = why or f"{rest[0][1]} runs a command that is only known at run time"
    return Subcommand(
        tuple(w for w, _ in rest),
        tuple(p for _, p in rest),
        tuple(assignments),
        tuple(removed),
        why,
        nested,
    )


def _parse(command: str) -> tuple[tree_sitter.Node, bool]:
    tree = _parser().parse(_NON_ASCII.sub("a", command).encode("ascii"))
    return tree.root_node, not tree.root_node.has_error


@lru_cache(maxsize=512)
def analyze(command: str) -> CommandAnalysis:
    """Parse ``command`` and return its :class:`CommandAnalysis`. Never raises: a command
    nested too deeply to walk is reported as not parsed (so it fails closed)."""
    root, parsed = _parse(command)
    subs: list[Subcommand] = []
    redirects: list[Redirect] = []
    _LOCAL.sources.append(command)
    try:
        _walk(root, False, subs, redirects)
    except RecursionError:
        return CommandAnalysis(command, False, (), ())
    finally:
        _LOCAL.sources.pop()
    return CommandAnalysis(command, parsed, tuple(subs), tuple(redirects))


def split_command(command: str) -> list[str] | None:
    """The simple commands of ``command`` as written (wrappers stripped), in source order,
    including those inside substitutions; ``None`` when it does not parse (an open quote)."""
    found = analyze(command)
    if not found.parsed:
        return None
    return [s.full_text for s in found.subcommands if s.words or s.assignments]


def strip_wrappers(sub: str, *, assignments: bool) -> str:
    """Remove leading wrappers (``timeout 5``, ``nice -n 3``, ``nohup``…) from one simple
    command and, when ``assignments`` is true, leading ``VAR=value`` words."""
    words = [(w, w) for w in sub.split()]
    while assignments and words and re.fullmatch(r"[A-Za-z_]\w*=\S*", words[0][0]):
        words = words[1:]
    rest, _ = _strip(list(words))
    return " ".join(w for w, _ in rest)


def _sed_reads_only(args: tuple[str | None, ...]) -> bool:
    scripts: list[str] = []
    expect_script = False
    positional: list[str] = []
    for arg in args:
        if arg is None:
            return False
        if expect_script:
            scripts.append(arg)
            expect_script = False
        elif arg in ("-e", "--expression"):
            expect_script = True
        elif arg.startswith("--expression="):
            scripts.append(arg.split("=", 1)[1])
        elif (
            arg.startswith(("-f", "--file", "--in-place"))
            or (re.fullmatch(r"-[a-zA-Z]+", arg) and "i" in arg)
            or arg.startswith("-i")
        ):
            return False  # in-place edits, or a script file that may hold w/e commands
        elif not arg.startswith("-"):
            positional.append(arg)
    if not scripts and positional:
        scripts.append(positional[0])
    simple = re.compile(
        r"(?:(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:,(?:\d+|\$|/(?:[^/\\]|\\.)*/))?)?!?\s*"
        r"(?:[pdqn=]|s(?P<d>[^\w\s\\])(?:(?!(?P=d))[^\\]|\\.)*(?P=d)"
        r"(?:(?!(?P=d))[^\\]|\\.)*(?P=d)[gpiImM0-9]*)?"
    )
    return all(
        simple.fullmatch(piece.strip())
        for script in scripts
        for piece in re.split(r"[;\n]", script)
        if piece.strip()
    )


def is_read_only_words(words: tuple[str | None, ...]) -> bool:
    """Whether one stripped simple command is in the read-only set and stays a read.

    ``find`` with ``-exec``/``-delete``/``-fprint``, ``git`` with global options, a
    non-reading subcommand or ``--output``, ``git branch`` with a name, and ``sed`` with
    ``-i``, ``-f`` or a script holding anything but ``s///``, ``p``, ``d``, ``q``, ``n``,
    ``=`` are not reads.
    """
    if not words or any(w is None for w in words):
        return False
    program, args = words[0], words[1:]
    if any((a or "").startswith("--output") for a in args):
        return False
    if program == "git":
        if not args or args[0] not in READ_ONLY_GIT:
            return False
        if args[0] == "branch":
            return all(
                (a or "").startswith("-")
                and a
                not in (
                    "-d",
                    "-D",
                    "-m",
                    "-M",
                    "-c",
                    "-C",
                    "--delete",
                    "--move",
                    "--copy",
                    "-u",
                    "--set-upstream-to",
                    "--unset-upstream",
                    "-f",
                    "--force",
                    "--edit-description",
                )
                for a in args[1:]
            )
        return not any(a in ("--ext-diff", "--textconv") for a in args)
    if program == "find":
        return not any(a in _FIND_EXEC or a in _FIND_WRITES for a in args)
    if program == "sed":
        return _sed_reads_only(args)
    return program in READ_ONLY_COMMANDS


def is_read_only_command(command: str) -> bool:
    """True when ``command`` parses, every simple command (nested ones too) is a read, it
    is statically verifiable, and it redirects output nowhere but ``/dev/null``."""
    found = analyze(command)
    return (
        found.parsed
        and not found.unverifiable
        and not found.writes
        and bool(found.subcommands)
        and all(s.read_only for s in found.subcommands)
    )


def _skip_options(words: list[str], program: str) -> list[str]:
    takes = _OPTION_VALUE.get(program, set())
    rest = words[1:]
    while rest and (rest[0].startswith("-") or (program == "env" and "=" in rest[0])):
        rest = rest[2:] if rest[0] in takes and len(rest) > 1 else rest[1:]
    if program == "timeout" and rest:
        rest = rest[1:]
    return rest


def _unwrap(plain: list[str], depth: int) -> Iterator[tuple[BypassKind, list[str]]]:
    """The commands hidden behind ``plain`` that a deny rule would not see."""
    if not plain or depth > 4:
        return
    program = plain[0]
    kind: BypassKind | None = None
    inner: list[str] = []
    if program in ("sudo", "doas", "env", "xargs", "exec", "coproc") or program in EXEC_WRAPPERS:
        kind = {
            "sudo": BypassKind.SUDO,
            "doas": BypassKind.SUDO,
            "env": BypassKind.ENV,
            "xargs": BypassKind.XARGS,
        }.get(program, BypassKind.EXEC_WRAPPER)
        inner = _skip_options(plain, program)
        if program == "flock" and inner:
            inner = inner[1:]  # the lock file
    elif program in _SHELLS and "-c" in plain[1:]:
        i = plain.index("-c")
        for sub in analyze(plain[i + 1]).subcommands if i + 1 < len(plain) else ():
            words = [p for p in sub.plain if p is not None]
            yield BypassKind.SHELL_C, words
            yield from _unwrap(words, depth + 1)
        return
    elif program == "eval":
        for sub in analyze(" ".join(plain[1:])).subcommands:
            words = [p for p in sub.plain if p is not None]
            yield BypassKind.EVAL, words
            yield from _unwrap(words, depth + 1)
        return
    elif "/" in program:
        kind, inner = BypassKind.PATH, [program.rsplit("/", 1)[1], *plain[1:]]
    elif program == "find":
        for i, word in enumerate(plain):
            if word in ("-exec", "-execdir", "-ok", "-okdir"):
                end = next(
                    (j for j in range(i + 1, len(plain)) if plain[j] in (";", "+")), len(plain)
                )
                yield BypassKind.EXEC_WRAPPER, plain[i + 1 : end]
        return
    if kind is not None and inner:
        yield kind, inner
        yield from _unwrap(inner, depth + 1)


def bypass_forms(sub: Subcommand) -> list[tuple[BypassKind, str]]:
    """The forms of ``sub`` a deny rule would have to see to catch it: the command behind
    ``sudo``/``env``/``bash -c``/``eval``/an exec wrapper/``xargs`` with flags, the program
    without its path, and the command unquoted. Each is ``(kind, text)``."""
    plain = [p for p in sub.plain if p is not None]
    forms: list[tuple[BypassKind, str]] = []
    if plain and len(plain) == len(sub.plain) and list(sub.words) != plain:
        forms.append((BypassKind.QUOTING, " ".join(plain)))
    for kind, words in _unwrap(plain, 0):
        forms.append((kind, " ".join(words)))
    return forms
