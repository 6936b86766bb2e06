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

Rules of this module:

* tree-sitter-bash is the only tokenizer: every function that reads a command
  (:func:`split_command`, :func:`strip_wrappers`, ``bash -c`` and ``eval`` bodies) goes
  through :func:`analyze`; the source text travels with the walk, nothing is shared between
  threads.
* :data:`WRAPPER_TABLE` is the one list of wrappers; stripping, exec-wrapper prompts and
  bypass forms all read it.
* What cannot be verified statically is reported, never guessed: it fails closed.
"""

from __future__ import annotations

import codecs
import enum
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

__all__ = [
    "EXEC_WRAPPERS",
    "READ_ONLY_COMMANDS",
    "READ_ONLY_GIT",
    "SAFE_ENV_VARS",
    "WRAPPERS",
    "WRAPPER_TABLE",
    "XARGS_TARGETS",
    "BypassKind",
    "BypassWarning",
    "CommandAnalysis",
    "Redirect",
    "Strip",
    "Subcommand",
    "Wrapper",
    "analyze",
    "bypass_forms",
    "command_forms",
    "deny_forms",
    "is_read_only_command",
    "is_read_only_words",
    "read_paths",
    "safe_assignment",
    "sed_writes_or_runs",
    "split_command",
    "strip_wrappers",
]


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
    LINE_CONTINUATION = "line continuation"
    ANSI_C = "ANSI-C quoting"
    BRACE_EXPANSION = "brace expansion"


class Strip(enum.StrEnum):
    """When Claude Code strips a wrapper before matching a rule."""

    ALWAYS = "always"  # "nohup cmd", "time cmd"
    BARE = "bare"  # only when a command follows directly, with no option ("xargs rm")
    OPTIONS = "with its options"  # its options (and a leading operand) go too ("nice -n 3")
    NEVER = "never"  # it stays the command word: a deny rule on the inner command misses it


@dataclass(frozen=True)
class Wrapper:
    """A program that runs another one: how Claude Code treats it, and how to find the inner
    command. ``value_options`` take the next word as their value; ``operand`` matches a
    leading operand before the inner command (``timeout 5``, ``flock LOCKFILE``);
    ``flags`` are stripped with the wrapper (``time -p``); ``exec``: it always prompts and
    only an exact rule approves it; ``bypass``: the kind of sidestep when it is not stripped;
    ``assignments``: ``VAR=value`` words come before the inner command (``env``);
    ``deny_sees``: a deny or ask rule on the inner command still matches through it
    (documented: these forms sidestep a deny rule; observed in Claude Code 2.1.328: ``sudo``,
    ``env``, ``exec`` and ``setsid`` do not — ``sudo rm -rf /`` is denied by ``Bash(rm:*)``,
    in bypassPermissions too)."""

    name: str
    strip: Strip
    value_options: frozenset[str] = frozenset()
    operand: str | None = None
    flags: frozenset[str] = frozenset()
    exec: bool = False
    bypass: BypassKind | None = None
    assignments: bool = False
    deny_sees: bool = False


#: Variables whose leading ``VAR=value`` Claude Code 2.1.328 strips before matching an allow
#: rule (the docs say only "certain safe" ones): build and locale settings, colours, CI flags.
SAFE_ENV_VARS = frozenset(
    {
        "GOEXPERIMENT",
        "GOOS",
        "GOARCH",
        "CGO_ENABLED",
        "GO111MODULE",
        "RUST_BACKTRACE",
        "RUST_LOG",
        "NODE_ENV",
        "PYTHONUNBUFFERED",
        "PYTHONDONTWRITEBYTECODE",
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD",
        "PYTEST_DEBUG",
        "ANTHROPIC_API_KEY",
        "LANG",
        "LANGUAGE",
        "LC_ALL",
        "LC_CTYPE",
        "LC_TIME",
        "CHARSET",
        "TERM",
        "COLORTERM",
        "NO_COLOR",
        "FORCE_COLOR",
        "TZ",
        "LS_COLORS",
        "LSCOLORS",
        "GREP_COLOR",
        "GREP_COLORS",
        "GCC_COLORS",
        "TIME_STYLE",
        "BLOCK_SIZE",
        "BLOCKSIZE",
        "COLUMNS",
        "LINES",
        "CLICOLOR",
        "CLICOLOR_FORCE",
        "CI",
        "DEBIAN_FRONTEND",
        "GIT_TERMINAL_PROMPT",
    }
)
_LOCALE_VARS = frozenset({"LANG", "LC_ALL", "LC_CTYPE"})
_LOCALE = re.compile(r"(['\"]?)(C|POSIX|UTF-?8|[\w-]+\.UTF-?8(@\w+)?)\1", re.IGNORECASE)


def safe_assignment(text: str) -> bool:
    """Whether a ``VAR=value`` word is one an allow rule looks past: a variable of
    :data:`SAFE_ENV_VARS` with a literal value (a locale name for ``LANG``/``LC_ALL``)."""
    name, sep, value = text.partition("=")
    if not sep or name not in SAFE_ENV_VARS or any(c in value for c in "$`"):
        return False
    return name not in _LOCALE_VARS or _LOCALE.fullmatch(value) is not None


def _wrappers(*rows: Wrapper) -> dict[str, Wrapper]:
    return {w.name: w for w in rows}


#: Every wrapper the analysis knows, one row each (reference §2.1).
WRAPPER_TABLE: Mapping[str, Wrapper] = _wrappers(
    Wrapper(
        "timeout",
        Strip.OPTIONS,
        frozenset({"-s", "--signal", "-k", "--kill-after"}),
        operand=r"[\d.]+[smhd]?",
    ),
    Wrapper("time", Strip.ALWAYS, flags=frozenset({"-p"})),
    Wrapper("nice", Strip.OPTIONS, frozenset({"-n", "--adjustment"})),
    Wrapper("nohup", Strip.ALWAYS),
    Wrapper("stdbuf", Strip.OPTIONS, frozenset({"-i", "-o", "-e"})),
    Wrapper("command", Strip.BARE, flags=frozenset({"-p"})),
    Wrapper("builtin", Strip.BARE),
    Wrapper("noglob", Strip.ALWAYS),
    Wrapper(
        "xargs",
        Strip.BARE,
        frozenset({"-I", "-n", "-P", "-L", "-d", "-E", "-s", "-a"}),
        bypass=BypassKind.XARGS,
    ),
    Wrapper(
        "sudo",
        Strip.NEVER,
        frozenset({"-u", "-g", "-h", "-p", "-U", "-C", "-D", "-r", "-t"}),
        bypass=BypassKind.SUDO,
        deny_sees=True,
    ),
    Wrapper("doas", Strip.NEVER, bypass=BypassKind.SUDO),
    Wrapper(
        "env",
        Strip.NEVER,
        frozenset({"-u", "--unset", "-C", "--chdir", "-S", "--split-string"}),
        bypass=BypassKind.ENV,
        assignments=True,
        deny_sees=True,
    ),
    Wrapper("exec", Strip.NEVER, frozenset({"-a"}), bypass=BypassKind.EXEC_WRAPPER, deny_sees=True),
    Wrapper("coproc", Strip.NEVER, bypass=BypassKind.EXEC_WRAPPER),
    Wrapper(
        "watch",
        Strip.NEVER,
        frozenset({"-n", "--interval", "-d"}),
        exec=True,
        bypass=BypassKind.EXEC_WRAPPER,
    ),
    Wrapper("setsid", Strip.NEVER, exec=True, bypass=BypassKind.EXEC_WRAPPER, deny_sees=True),
    Wrapper(
        "ionice",
        Strip.NEVER,
        frozenset({"-c", "-n", "-p", "-P", "-u"}),
        exec=True,
        bypass=BypassKind.EXEC_WRAPPER,
    ),
    Wrapper(
        "flock",
        Strip.NEVER,
        frozenset({"-w", "-E", "--timeout"}),
        operand=r".*",
        exec=True,
        bypass=BypassKind.EXEC_WRAPPER,
    ),
)
#: Wrappers Claude Code strips before matching (``xargs`` only when bare, with no flags).
WRAPPERS = frozenset(n for n, w in WRAPPER_TABLE.items() if w.strip is not Strip.NEVER)
#: Wrappers that run another program and always prompt; only an exact rule approves them.
EXEC_WRAPPERS = frozenset(n for n, w in WRAPPER_TABLE.items() if w.exec)
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
        "test",
        "[",
        "[[",
        "printf",
        "true",
        "false",
        # observed in Claude Code 2.1.328 (each with option checks below)
        "sort",
        "cut",
        "tr",
        "file",
        "date",
        "id",
        "uname",
        "whoami",
        "hostname",
        "basename",
        "dirname",
        "realpath",
        "readlink",
        "od",
        "strings",
        "jq",
    }
)
#: The commands ``xargs`` may feed and still count as a read (observed in Claude Code 2.1.328:
#: ``xargs cat``, ``xargs ls``, ``xargs stat`` ask; ``xargs grep``, ``xargs wc`` do not).
XARGS_TARGETS = frozenset({"echo", "printf", "wc", "grep", "egrep", "fgrep", "head", "tail"})
#: The xargs options that keep it a read (each takes a value), and its value-less flags.
_XARGS_VALUE_OPTIONS = frozenset({"-I", "-n", "-P", "-L", "-s", "-E", "-d"})
_XARGS_SAFE_FLAGS = frozenset({"-0", "-t", "-r", "-x"})
#: Constructs Claude Code 2.1.328 never approves without asking, whatever they hold.
_OPAQUE = {
    "subshell": "a subshell ( … ) can't be checked before it runs",
    "compound_statement": "a group in braces { … } can't be checked before it runs",
    "function_definition": "a function definition can't be checked before it runs",
    "case_statement": "a case statement can't be checked before it runs",
}
_ARITHMETIC_NAMES = frozenset(
    {"variable_name", "simple_expansion", "expansion", "command_substitution", "word"}
)
_EXPANSIONS = frozenset(
    {"command_substitution", "process_substitution", "simple_expansion", "expansion"}
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
        """The command with its assignments."""
        return " ".join((*self.assignments, *self.words))

    @property
    def allow_text(self) -> str:
        """The command as allow rules match it: leading assignments stripped when every one
        is safe (:func:`safe_assignment`: ``NODE_ENV=test npm test`` matches
        ``Bash(npm test)``), kept otherwise (``FOO=1 npm test`` does not)."""
        if all(safe_assignment(a) for a in self.assignments):
            return self.text
        return self.full_text

    @property
    def program(self) -> str:
        """The command word after stripping (``""`` when there is none)."""
        return self.plain[0] or "" if self.plain else ""

    @property
    def read_only(self) -> bool:
        """In the read-only set (:func:`is_read_only_words`), verifiable, and with no
        leading assignment but safe ones (``LANG=C ls`` reads; ``GIT_EXTERNAL_DIFF=x git
        diff`` runs ``x``); a bare ``xargs``
        only in front of one of :data:`XARGS_TARGETS`; no other wrapper."""
        if "xargs" in self.wrappers and self.program not in XARGS_TARGETS:
            return False
        if any(w not in _READ_WRAPPERS for w in self.wrappers):
            return False  # observed in 2.1.328: "nice cat a.txt", "time pwd" ask
        return (
            all(safe_assignment(a) for a in self.assignments)
            and not self.unverifiable
            and is_read_only_words(self.plain)
        )

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
    opaque: tuple[str, ...] = ()

    @property
    def unverifiable(self) -> tuple[str, ...]:
        """The reasons no rule, mode or read-only set may approve the command (``opaque``:
        the constructs Claude Code asks for whatever they hold, such as a subshell)."""
        why = [] if self.parsed else ["the command does not parse as bash"]
        why += list(dict.fromkeys(self.opaque))
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


# The parser sees an ASCII copy of the command (every other character replaced by "a", one
# byte per character, so byte offsets are character offsets): bash treats those characters as
# word characters too, and tree-sitter-bash's scanner was seen to crash the process on some
# non-ASCII input (fuzzing, tree-sitter 0.25-0.26, tree-sitter-bash 0.23-0.25). A parser is
# made per call (well under a microsecond), so nothing is shared between threads.
_NON_ASCII = re.compile(r"[^\x00-\x7f]")


def _has(node: tree_sitter.Node, types: frozenset[str]) -> bool:
    return node.type in types or any(_has(c, types) for c in node.children)


def _unescape(word: str) -> str:
    return re.sub(r"\\(.)", r"\1", word, flags=re.DOTALL)


_Word = tuple[str, str | None]  # (source text, text after quote removal or None)


def _bare(words: list[_Word]) -> bool:
    """The wrapper at ``words[0]`` is followed by a command, not by an option."""
    return len(words) > 1 and not (words[1][1] or "-").startswith("-")


def _skip_wrapper_options(wrapper: Wrapper, rest: list[_Word]) -> list[_Word]:
    """``rest`` after the wrapper's options, a ``--`` and its leading operand."""
    while rest and (rest[0][1] or "").startswith("-") and rest[0][1] != "--":
        takes = rest[0][1] in wrapper.value_options and len(rest) > 1
        rest = rest[2:] if takes else rest[1:]
    if rest and rest[0][1] == "--":
        rest = rest[1:]
    if wrapper.operand and rest and re.fullmatch(wrapper.operand, rest[0][1] or ""):
        rest = rest[1:]
    return rest


def _strip(words: list[_Word]) -> tuple[list[_Word], list[str]]:
    """Remove the wrappers Claude Code strips (:data:`WRAPPER_TABLE`); return the rest and
    what was removed."""
    removed: list[str] = []
    while words:
        wrapper = WRAPPER_TABLE.get(words[0][1] or "")
        if wrapper is None or wrapper.strip is Strip.NEVER:
            break
        if len(words) > 2 and words[1][1] in wrapper.flags:
            rest = words[2:]  # "time -p" reports POSIX times; "command -p" runs
        elif wrapper.strip is Strip.ALWAYS or (wrapper.strip is Strip.BARE and _bare(words)):
            rest = words[1:]
        elif wrapper.strip is Strip.OPTIONS:
            rest = _skip_wrapper_options(wrapper, words[1:])
        else:
            break
        removed.append(words[0][0])
        words = rest
    return words, removed


def _misplaced_words(node: tree_sitter.Node) -> bool:
    """A redirected list or pipeline whose redirect carries extra words (see ``walk``)."""
    body = node.child_by_field_name("body")
    return (
        body is not None
        and body.type != "command"
        and any(
            len(r.children_by_field_name("destination")) > 1
            for r in node.children_by_field_name("redirect")
        )
    )


def _words_after_target(node: tree_sitter.Node) -> bool:
    """A redirected command whose redirect is followed by more words (the grammar hangs them
    on the redirect as extra targets) or, on the same line, by a comment."""
    if node.child_by_field_name("body") is None:
        return False
    if any(
        len(r.children_by_field_name("destination")) > 1
        for r in node.children_by_field_name("redirect")
    ):
        return True
    after = node.next_sibling
    return (
        after is not None
        and after.type == "comment"
        and (after.start_point[0] == node.end_point[0])
    )


class _Reader:
    """One walk over one parsed command: the source text is held here, passed to nothing
    global. ``subs`` and ``redirects`` collect what the walk finds, in source order."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.subs: list[Subcommand] = []
        self.redirects: list[Redirect] = []
        self.opaque: list[str] = []

    def text(self, node: tree_sitter.Node) -> str:
        return self.source[node.start_byte : node.end_byte]

    def plain(self, node: tree_sitter.Node) -> str | None:
        """The word after quote removal, or ``None`` when an expansion produces it."""
        kind = node.type
        if kind == "command_name":
            pieces = [self.plain(c) for c in node.children]
            return None if any(p is None for p in pieces) else "".join(p or "" for p in pieces)
        if kind in ("word", "number"):
            return _unescape(self.text(node))
        if kind == "raw_string":
            return self.text(node)[1:-1]
        if kind == "string":
            parts = []
            for child in node.children:
                if child.type == '"':
                    continue
                if child.type != "string_content":
                    return None
                parts.append(re.sub(r'\\([$`"\\\n])', r"\1", self.text(child)))
            return "".join(parts)
        if kind == "arithmetic_expansion" and not _has(node, _ARITHMETIC_NAMES):
            return self.text(node)  # "$((2*3))": numbers only, known before it runs
        if kind == "concatenation":
            pieces = [self.plain(c) for c in node.children]
            return None if any(p is None for p in pieces) else "".join(p or "" for p in pieces)
        return None

    def walk(self, node: tree_sitter.Node, nested: bool) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, nested)
            return
        parent = node.parent.type if node.parent is not None else ""
        if kind in _OPAQUE:
            self.opaque.append(_OPAQUE[kind])
        if kind == "test_command":
            if _has(node, _EXPANSIONS):
                self.opaque.append("a [[ ]] / [ ] operand is computed when it runs")
            opener = self.text(node.children[0]) if node.children else "[["
            self.subs.append(Subcommand((self.text(node),), (opener,), nested=nested))
        elif kind in ("declaration_command", "unset_command"):
            words = [
                (self.text(c), self.plain(c) if c.is_named else self.text(c)) for c in node.children
            ]
            self.subs.append(
                Subcommand(tuple(w for w, _ in words), tuple(p for _, p in words), nested=nested)
            )
        elif kind == "redirected_statement" and _misplaced_words(node):
            # "ls && ls 2>/dev/null <(ls)": the grammar hangs the last command's words on a
            # redirect of the whole list; bash passes them to that command: fail closed
            self.opaque.append("words after a redirect the grammar could not place")
        elif kind == "redirected_statement" and _words_after_target(node):
            # observed in 2.1.332 (found by the fuzzer): "echo x 2>/dev/null y" and a comment
            # right after a redirect ("ls 2>/dev/null # note") are asked even for a read;
            # claude -p refuses them as "Redirect has multiple targets"
            self.opaque.append("words after a redirect target")
        elif kind == "redirected_statement" and node.child_by_field_name("body") is None:
            # ">/dev/null x y": the grammar reads x and y as extra redirect targets; bash runs them
            extra = [
                c
                for r in node.children_by_field_name("redirect")
                for c in r.children_by_field_name("destination")[1:]
            ]
            if extra:
                self.subs.append(self.simple([], extra, nested))
        elif kind == "variable_assignment" and parent not in ("command", "declaration_command"):
            # "PATH=/tmp/evil; ls" changes what a later command runs: not a read
            self.subs.append(Subcommand((), (), (self.text(node),), nested=nested))
        if kind == "file_redirect":
            self.redirect(node)
        if any(c.type == "&" for c in node.children):
            self.opaque.append("a background job & can't be checked before it runs")
        for child in node.children:
            self.walk(child, nested or kind in _SUBSTITUTIONS)

    def redirect(self, node: tree_sitter.Node) -> None:
        operator = next((self.text(c) for c in node.children if not c.is_named), "")
        targets = node.children_by_field_name("destination")
        if targets:
            self.redirects.append(Redirect(operator, self.plain(targets[0])))

    def command(self, node: tree_sitter.Node, nested: bool) -> None:
        assignments: list[str] = []
        name: list[tree_sitter.Node] = []
        rest: list[tree_sitter.Node] = []
        for i, child in enumerate(node.children):
            field = node.field_name_for_child(i)
            if child.type == "variable_assignment":
                assignments.append(self.text(child))
            elif field == "name":
                name.append(child)
            elif field == "argument":
                rest.append(child)
            elif child.type == "file_redirect":  # "cmd > f x": x is an argument for bash
                rest += child.children_by_field_name("destination")[1:]
            self.walk(child, nested)
        parent = node.parent
        if parent is not None and parent.type == "redirected_statement":
            for extra in parent.children_by_field_name("redirect"):
                rest += extra.children_by_field_name("destination")[1:]
        self.subs.append(self.simple(assignments, name + rest, nested))

    def simple(
        self, assignments: list[str], nodes: list[tree_sitter.Node], nested: bool
    ) -> Subcommand:
        """A simple command from its word nodes (the first is the command word)."""
        why = ""
        for i, child in enumerate(nodes):
            if self.plain(child) is None and _has(child, _SUBSTITUTIONS):
                why = why or (
                    "the command word is computed by a substitution"
                    if i == 0
                    else "an argument is computed by a substitution"
                )
            elif self.plain(child) is None and i == 0:
                why = why or "a variable in command position"
        words = [(self.text(c), self.plain(c)) for c in nodes]
        return _finish(assignments, words, why, nested)


def _finish(assignments: list[str], words: list[_Word], why: str, nested: bool) -> Subcommand:
    rest, removed = _strip(words)
    if rest and rest[0][1] in ("eval", "exec", "source", "."):
        why = why or f"{rest[0][1]} runs a command that is only known at run time"
    if rest and rest[0][1] in _SHELLS and any(p == "-c" for _, p in rest[1:]):
        # observed in 2.1.328: "bash -c 'rm x'" asks even under a bare Bash allow rule
        why = why or f"{rest[0][1]} -c runs a command string that is not verified"
    return Subcommand(
        tuple(w for w, _ in rest),
        tuple(p for _, p in rest),
        tuple(assignments),
        tuple(removed),
        why,
        nested,
    )


@lru_cache(maxsize=512)
def analyze(command: str) -> CommandAnalysis:
    """Parse ``command`` and return its :class:`CommandAnalysis`. Never raises: a command
    nested too deeply to walk is reported as not parsed (so it fails closed)."""
    parser = tree_sitter.Parser(_language())
    root = parser.parse(_NON_ASCII.sub("a", command).encode("ascii")).root_node
    reader = _Reader(command)
    try:
        reader.walk(root, False)
    except RecursionError:
        return CommandAnalysis(command, False, (), ())
    return CommandAnalysis(
        command,
        not root.has_error,
        tuple(reader.subs),
        tuple(reader.redirects),
        tuple(reader.opaque),
    )


def split_command(command: str) -> list[str] | None:
    """The simple commands of ``command`` as written (wrappers stripped), in source order,
    including those inside substitutions; ``None`` when it does not parse (an open quote)."""
    found = analyze(command)
    if not found.parsed:
        return None
    return [s.full_text for s in found.subcommands if s.words or s.assignments]


def strip_wrappers(sub: str, *, assignments: bool) -> str:
    """One simple command with its leading wrappers (``timeout 5``, ``nice -n 3``,
    ``nohup``…) removed and, when ``assignments`` is true, its leading ``VAR=value`` words.

    Read by :func:`analyze` (the one tokenizer); ``sub`` is returned unchanged when it is
    not exactly one simple command that parses.
    """
    found = analyze(sub)
    if not found.parsed or len(found.subcommands) != 1:
        return sub
    only = found.subcommands[0]
    return only.text if assignments else only.full_text


#: sed options that keep it a read (observed in Claude Code 2.1.328); ``-e``, ``-f``, ``-i``,
#: ``-s`` / ``--separate`` and every other option make it a command that may change files.
_SED_FLAGS = frozenset(
    {
        "-n",
        "--quiet",
        "--silent",
        "-E",
        "-r",
        "--regexp-extended",
        "--posix",
        "-z",
        "--zero-terminated",
        "-u",
        "--unbuffered",
        "--debug",
    }
)
_SED_PRINT = re.compile(r"(?:\d+(?:,\d+)?)?p")
_SED_SUBSTITUTE = re.compile(
    r"s(?P<d>[^\w\s\\])(?:(?!(?P=d))[^\\]|\\.)*(?P=d)(?:(?!(?P=d))[^\\]|\\.)*(?P=d)[gpiI0-9]*"
)


def _sed_reads_only(args: tuple[str | None, ...]) -> bool:
    """Observed in Claude Code 2.1.328 (the docs name ``sed`` in the read-only set without
    conditions): a read is ``sed -n`` whose script only prints numbered lines (``1,5p``), with
    or without files, or a ``s///`` (or print) script reading standard input only. Only
    the flags of ``_SED_FLAGS`` (short ones combined, ``-nE``) are allowed; ``-e``, ``-l``, long
    option prefixes (``--qui``), ``$`` or ``/re/`` addresses, ``d``, ``y``, ``l`` ask."""
    quiet = False
    positional: list[str] = []
    for arg in args:
        if arg is None or "$" in arg:
            return False
        if arg.startswith("--") or (arg.startswith("-") and len(arg) == 2):
            if arg not in _SED_FLAGS:
                return False
            quiet = quiet or arg in ("-n", "--quiet", "--silent")
        elif arg.startswith("-") and len(arg) > 2:
            if any(f"-{c}" not in _SED_FLAGS for c in arg[1:]):
                return False
            quiet = quiet or "n" in arg
        else:
            positional.append(arg)
    if not positional:
        return False
    pieces = [piece.strip() for piece in re.split(r"[;\n]", positional[0])]
    if any(not piece for piece in pieces):
        return False
    if quiet and all(_SED_PRINT.fullmatch(piece) for piece in pieces):
        return True
    return len(positional) == 1 and all(
        _SED_PRINT.fullmatch(piece) or _SED_SUBSTITUTE.fullmatch(piece) for piece in pieces
    )


#: Wrappers a read-only command stays a read behind (observed in 2.1.328: ``timeout 5 ls``
#: and ``command ls`` run, ``nice cat``, ``time pwd`` ask; the others were not observed).
_READ_WRAPPERS = frozenset({"timeout", "command", "xargs"})
#: Read-only commands that set something when given an operand.
_NO_OPERANDS = frozenset({"date", "hostname", "id", "uname", "whoami"})
#: Options that make a read-only command write or run something.
_REFUSED_OPTIONS: dict[str, frozenset[str]] = {
    "sort": frozenset({"-o", "--output", "--compress-program"}),
    "date": frozenset({"-s", "--set", "-f", "--file"}),
    "hostname": frozenset({"-F", "--file", "-b", "--boot"}),
    "jq": frozenset({"-f", "--from-file", "-L"}),
}


def _xargs_reads_only(args: tuple[str | None, ...]) -> bool:
    """``xargs`` with only its safe options in front of one of :data:`XARGS_TARGETS`, which
    must itself be a read (observed in Claude Code 2.1.328; the docs strip a bare ``xargs``
    and say nothing of its target). A bare ``xargs`` runs ``echo``."""
    rest = list(args)
    while rest and (rest[0] or "").startswith("-"):
        flag = rest.pop(0)
        if flag == "--":
            break
        if flag in _XARGS_VALUE_OPTIONS and rest:
            value = rest.pop(0)
            if flag == "-I" and value != "{}":
                return False
        elif flag not in _XARGS_SAFE_FLAGS:
            return False
    if not rest:
        return True
    return rest[0] in XARGS_TARGETS and is_read_only_words(tuple(rest))


_GIT_BRANCH_CHANGES = frozenset(
    {
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
    }
)


def _git_reads_only(args: tuple[str | None, ...]) -> bool:
    listing = {  # observed in 2.1.328: these list, with no further operand
        ("config", "--get"),
        ("remote",),
        ("remote", "-v"),
        ("stash", "list"),
        ("tag",),
        ("tag", "-l"),
        ("tag", "--list"),
    }
    if tuple(args) in listing or (len(args) == 3 and tuple(args[:2]) == ("config", "--get")):
        return True
    if not args or args[0] not in READ_ONLY_GIT:
        return False
    if args[0] == "branch":  # "--set-upstream-to=origin/main" changes config too
        return all(
            (a or "").startswith("-") and (a or "").split("=", 1)[0] not in _GIT_BRANCH_CHANGES
            for a in args[1:]
        )
    return not any(a in ("--ext-diff", "--textconv") for a in args)


def is_read_only_words(words: tuple[str | None, ...]) -> bool:
    """Whether one stripped simple command is in the read-only set and stays a read.

    ``find`` with ``-exec``/``-delete``/``-fprint``, ``git`` with global options, a
    non-reading subcommand or ``--output``, ``git branch`` with a name or an option that
    changes it, ``sed`` beyond :func:`_sed_reads_only`, ``xargs`` beyond
    :func:`_xargs_reads_only`, and any argument holding a brace expansion (``{a,b}``) are not
    reads.
    """
    if not words or any(w is None for w in words):
        return False
    program, args = words[0], words[1:]
    if any((a or "").startswith("--output") for a in args):
        return False
    if any("{" in (a or "") and ("," in (a or "") or ".." in (a or "")) for a in args):
        return False
    if program == "git":
        return _git_reads_only(args)
    if program == "find":
        return not any(a in _FIND_EXEC or a in _FIND_WRITES for a in args)
    if program == "sed":
        return _sed_reads_only(args)
    if program == "xargs":
        return _xargs_reads_only(args)
    if program in _NO_OPERANDS and any(not (a or "").startswith(("-", "+")) for a in args):
        return False  # "hostname NAME" and "date MMDDhhmm" set them
    if program in _REFUSED_OPTIONS and any(
        (a or "").split("=", 1)[0] in _REFUSED_OPTIONS[program] for a in args
    ):
        return False
    if program in ("python3", "python", "node"):
        return list(args) in (["--version"], ["-V"])
    return program in READ_ONLY_COMMANDS


_SED_ADDRESS = re.compile(r"(?:\d+|\$|/(?:[^/\\]|\\.)*/)(?:,(?:\d+|\$|/(?:[^/\\]|\\.)*/))?!?\s*")
_SED_FLAGS_OF_S = re.compile(
    r"s(?P<d>[^\w\s\\])(?:(?!(?P=d))[^\\]|\\.)*(?P=d)(?:(?!(?P=d))[^\\]|\\.)*(?P=d)(?P<f>\S*)"
)


def sed_writes_or_runs(words: tuple[str | None, ...]) -> bool:
    """Whether a ``sed`` command's script writes a file or runs one (``w``, ``W``, ``e``,
    ``r``, ``R`` commands, ``s///w`` / ``s///e``) or comes from a file (``-f``): such a sed is
    never approved by ``acceptEdits`` (observed in Claude Code 2.1.328)."""
    scripts: list[str] = []
    expect = False
    positional: list[str] = []
    for arg in words[1:]:
        if arg is None:
            return True
        if expect:
            scripts.append(arg)
            expect = False
        elif arg in ("-e", "--expression"):
            expect = True
        elif arg.startswith("--expression="):
            scripts.append(arg.split("=", 1)[1])
        elif arg.startswith(("-f", "--file")):
            return True
        elif not arg.startswith("-"):
            positional.append(arg)
    if not scripts and positional:
        scripts.append(positional[0])
    for script in scripts:
        for piece in re.split(r"[;\n]", script):
            body = piece.strip()
            address = _SED_ADDRESS.match(body)
            body = body[address.end() :] if address else body
            flags = _SED_FLAGS_OF_S.match(body)
            if body[:1] in ("w", "W", "e", "r", "R") or (
                flags and any(c in flags["f"] for c in "we")
            ):
                return True
    return False


#: Read-only commands whose operands are files: (positional operands before the files, the
#: options that take a value). ``grep`` and ``sed`` take a pattern or script first unless
#: ``-e``/``-f`` gives it.
_READS_FILES: dict[str, tuple[int, frozenset[str]]] = {
    "cat": (0, frozenset()),
    "head": (0, frozenset({"-n", "-c", "--lines", "--bytes"})),
    "tail": (0, frozenset({"-n", "-c", "--lines", "--bytes"})),
    "wc": (0, frozenset()),
    "stat": (0, frozenset({"-c", "--format", "--printf"})),
    "du": (0, frozenset({"-d", "--max-depth", "-B", "--block-size", "--exclude"})),
    "diff": (0, frozenset({"-U", "-C", "--label", "-x", "-X"})),
    "ls": (0, frozenset({"-I", "--ignore", "-w", "--width", "-T", "--tabsize"})),
    "cd": (0, frozenset()),
    "grep": (1, frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file"})),
    "egrep": (1, frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file"})),
    "fgrep": (1, frozenset({"-e", "-f", "-m", "-A", "-B", "-C", "--regexp", "--file"})),
    "sed": (1, frozenset({"-e", "-f", "-l", "--expression", "--file"})),
    "sort": (0, frozenset({"-k", "--key", "-t", "--field-separator", "-S", "-T"})),
    "cut": (0, frozenset({"-c", "-f", "-d", "-b", "--delimiter", "--fields"})),
    "file": (0, frozenset({"-m", "-f"})),
    "od": (0, frozenset({"-t", "-N", "-j", "-A", "-w"})),
    "strings": (0, frozenset({"-n", "-t"})),
    "jq": (1, frozenset({"--arg", "--argjson", "--indent"})),
    "realpath": (0, frozenset()),
    "readlink": (0, frozenset()),
}


def read_paths(sub: Subcommand) -> tuple[str, ...]:
    """The files and folders a read-only command reads, as written (``find``'s starting
    points; ``cat``'s, ``grep``'s, ``ls``'s … file operands). A command fed by ``xargs``
    reads what arrives on its input: only its own operands count."""
    words = [w or "" for w in sub.plain]
    if not words:
        return ()
    program, args = words[0], words[1:]
    if program == "find":
        starts = []
        for arg in args:
            if arg.startswith(("-", "(", "!")):
                break
            starts.append(arg)
        return tuple(starts)
    if program not in _READS_FILES:
        return ()
    skip, takes_value = _READS_FILES[program]
    operands: list[str] = []
    options_done = False
    expect_value = False
    for arg in args:
        if expect_value:
            expect_value = False
        elif options_done or arg == "-" or not arg.startswith("-"):
            operands.append(arg)
        elif arg == "--":
            options_done = True
        elif arg in takes_value:
            expect_value = True
            if arg in ("-e", "-f", "--regexp", "--file", "--expression"):
                skip = 0
        elif arg.startswith(("--regexp=", "--file=", "--expression=")):
            skip = 0
    return tuple(o for o in operands[skip:] if o != "-")


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


def _skip_options(words: list[str], wrapper: Wrapper) -> list[str]:
    """The inner command behind ``wrapper``: its options, ``VAR=`` words (``env``) and leading
    operand skipped."""
    rest = words[1:]
    while rest and (rest[0].startswith("-") or (wrapper.assignments and "=" in rest[0])):
        rest = rest[2:] if rest[0] in wrapper.value_options and len(rest) > 1 else rest[1:]
    if wrapper.operand and rest and re.fullmatch(wrapper.operand, rest[0]):
        rest = rest[1:]
    return rest


def _unwrap(plain: list[str], depth: int) -> Iterator[tuple[BypassKind, list[str]]]:
    """The commands hidden behind ``plain`` that a deny rule would not see."""
    if not plain or depth > 4:
        return
    program = plain[0]
    wrapper = WRAPPER_TABLE.get(program)
    kind: BypassKind | None = None
    inner: list[str] = []
    if wrapper is not None and wrapper.bypass is not None:
        kind, inner = wrapper.bypass, _skip_options(plain, wrapper)
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


_ANSI_C = re.compile(r"\$'((?:[^'\\]|\\.)*)'", re.DOTALL)
_BRACE = re.compile(r"(?<![$\w])\{([^{}\s]*,[^{}\s]*)\}")


def _ansi_c(match: re.Match[str]) -> str:
    try:
        return codecs.decode(match[1], "unicode_escape")
    except UnicodeDecodeError:
        return match[0]


def _braces(command: str) -> str:
    """``{rm,-rf,x}`` as bash expands it: one word per alternative."""

    def expand(match: re.Match[str]) -> str:
        return " ".join(match[1].split(","))

    return _BRACE.sub(expand, command)


def command_forms(command: str) -> list[tuple[BypassKind, str]]:
    """The simple commands bash runs that Claude Code 2.1.328's matcher does not see as
    written: a line continuation inside a word (``r\\⏎m``), ANSI-C quoting (``$'\\x72m'``)
    and brace expansion building the command (``{rm,-rf,x}``). Each is ``(kind, text)``;
    Claude Code asks for these, and a deny rule on the real command does not match."""
    rewrites = (
        (BypassKind.LINE_CONTINUATION, command.replace("\\\n", "")),
        (BypassKind.ANSI_C, _ANSI_C.sub(_ansi_c, command)),
        (BypassKind.BRACE_EXPANSION, _braces(command)),
    )
    forms: list[tuple[BypassKind, str]] = []
    for kind, text in rewrites:
        if text != command:
            forms += [(kind, sub.text) for sub in analyze(text).subcommands if sub.words]
    return forms


def deny_forms(sub: Subcommand) -> list[str]:
    """The other texts of ``sub`` a deny or ask rule matches in Claude Code 2.1.328 (an allow
    rule never does): the command unquoted (``"rm" x``, ``\\rm x``), its program without a
    path (``/bin/rm x``) and the command behind a :attr:`Wrapper.deny_sees` wrapper
    (``sudo``, ``env``, ``exec``, ``setsid``), each of these in turn. Documented: these
    forms sidestep a deny rule; observed: they do not."""
    plain = [p for p in sub.plain if p is not None]
    if not plain or len(plain) != len(sub.plain):
        return []
    forms: list[str] = []
    todo: list[list[str]] = [plain]
    seen: set[str] = set()
    while todo:
        words = todo.pop()
        text = " ".join(words)
        if text in seen or len(seen) > 8:
            continue
        seen.add(text)
        forms.append(text)
        program = words[0]
        wrapper = WRAPPER_TABLE.get(program)
        if wrapper is not None and wrapper.deny_sees:
            inner = _skip_options(words, wrapper)
            if inner:
                todo.append(inner)
        elif "/" in program and program.rsplit("/", 1)[1]:
            todo.append([program.rsplit("/", 1)[1], *words[1:]])
    return forms


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
