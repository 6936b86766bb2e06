"""Bash command analysis, the way Claude Code's permission matcher reads a command (§2.1).

:func:`analyze` parses a command with the tree-sitter bash grammar (``tree-sitter-bash``:
it parses ``[[ ]]``, ``case``, arithmetic and here-docs, where ``bashlex`` raises) and
returns a :class:`CommandAnalysis`:

* every simple command, at any depth: the parts of ``&& || ; | |& &`` and newlines, and
  also the commands inside ``$( )``, backticks, ``<( )`` / ``>( )``, subshells, loops,
  functions and here-doc bodies (:class:`Subcommand`, ``nested=True`` inside a substitution);
* the wrappers Claude Code strips (:func:`~.programs.claude_strip`: ``timeout``, ``nohup``,
  ``nice`` … in the spellings it strips them) and leading ``VAR=`` assignments, kept apart
  from the command words; what the command reads on its input (a here-string or here-doc);
* redirect targets (:class:`Redirect`), which the gate judges as file writes / reads;
* what cannot be verified statically (:attr:`Subcommand.unverifiable`): a command word or an
  argument produced by a substitution, a variable in command position, ``eval``, a quoted
  string that the grammar cannot close. Such a command is never auto-approved.

Whether a simple command is a read is :func:`~.commands.not_a_read`'s answer: the read-only
set is an allowlist of options per command (:mod:`.commands`, :mod:`.options`), and a
``[[ ]]`` is checked here, on its syntax tree (an arithmetic operand that is not a number,
``-v`` on a subscript, a glob pattern: asked, quoted or not).

:func:`deny_forms` lists the texts Claude Code's deny and ask check matches (the command
behind the runners it sees through, :func:`~.programs.claude_sees`); :func:`bypass_forms`
lists every layer mcpmini peels (:func:`~.programs.peel`: ``sudo``, ``env -S``, ``su -c``,
``find -exec``, a shell's ``-c``, a here-string fed to a shell, a computed command word
evaluated with its defaults); the gate keeps Claude Code's verdict and reports the layers it
misses as :class:`BypassWarning` values, and :func:`hidden_forms` the ones nobody can read
before they run (a shell reading a pipe, a command word only known when it runs).

Rules of this module:

* tree-sitter-bash is the only tokenizer: every function that reads a command
  (:func:`split_command`, :func:`strip_wrappers`, ``bash -c``, ``env -S`` and ``eval``
  bodies) goes through :func:`analyze`; the source text travels with the walk, nothing is
  shared between threads.
* :data:`~.programs.RUNNERS` is the one list of programs that run their arguments and
  :data:`~.options.GRAMMARS` the one option table; this module holds neither.
* What cannot be verified statically is reported, never guessed: it fails closed.
"""

from __future__ import annotations

import codecs
import glob
import os
import re
from dataclasses import dataclass
from functools import lru_cache

import tree_sitter
import tree_sitter_bash

from .commands import (
    ARITHMETIC_TESTS,
    NAME_TESTS,
    READ_ONLY_GIT,
    READERS,
    XARGS_TARGETS,
    not_a_read,
    sed_writes_or_runs,
)
from .commands import read_paths as _read_paths
from .programs import (
    EXEC_WRAPPERS,
    RUNNERS,
    SHELLS,
    BypassKind,
    claude_sees,
    claude_strip,
    peel,
)

__all__ = [
    "EXEC_WRAPPERS",
    "READ_ONLY_COMMANDS",
    "READ_ONLY_GIT",
    "SAFE_ENV_VARS",
    "XARGS_TARGETS",
    "BypassKind",
    "BypassWarning",
    "CommandAnalysis",
    "Redirect",
    "Subcommand",
    "analyze",
    "bypass_forms",
    "command_forms",
    "deny_forms",
    "hidden_forms",
    "is_read_only_command",
    "is_read_only_words",
    "read_paths",
    "safe_assignment",
    "sed_writes_or_runs",
    "split_command",
    "strip_wrappers",
]

#: Variables whose leading ``VAR=value`` Claude Code 2.1.332 strips before matching an allow
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


#: The built-in read-only set that never prompts (reference §2.1): the rows of
#: :data:`~.commands.READERS`, each with its allowlist of options, and ``[[ ]]``.
READ_ONLY_COMMANDS = frozenset({*READERS, "[["})
#: Wrappers a read-only command stays a read behind (observed in 2.1.332: ``timeout 5 ls``
#: and ``command ls`` run, ``nice cat``, ``time pwd`` ask; the others were not observed).
_READ_WRAPPERS = frozenset({"timeout", "command", "xargs"})
#: Constructs Claude Code 2.1.332 never approves without asking, whatever they hold.
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
#: The expansions that make a here-string or here-doc ask (``simple_expansion``: see
#: :meth:`_Reader.computes`).
_INPUT_EXPANSIONS = frozenset(
    {"arithmetic_expansion", "expansion", "command_substitution", "process_substitution"}
)
_CHANGES_DIR = frozenset({"cd", "pushd", "popd"})
_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_FIND_ALWAYS_ASKS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete"})
_GLOB_CHAR = re.compile(r"(?<!\\)[*?[]")
_BRACE_WORD = re.compile(r"(?<![$\\])\{[^{}\s]*(?:,|\.\.)[^{}\s]*\}")


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
    ``written``: every word before stripping, quotes removed (what Claude Code's deny check
    peels); ``globs``: which of ``plain`` hold
    an unquoted glob; ``feed``: the text of a here-string or here-doc on its input (``None``:
    none, or not known before it runs); ``piped``: its input is another command's output;
    ``refused``: why the walk found it is not a read (a ``[[ ]]`` that evaluates);
    ``braces``: a word holds a brace expansion, which bash makes several words;
    ``dollars``: which of ``plain`` are written with a ``$`` or a backtick, quoted or not.
    """

    words: tuple[str, ...]
    plain: tuple[str | None, ...]
    assignments: tuple[str, ...] = ()
    wrappers: tuple[str, ...] = ()
    unverifiable: str = ""
    nested: bool = False
    written: tuple[str | None, ...] = ()
    globs: tuple[bool, ...] = ()
    feed: str | None = None
    piped: bool = False
    refused: str = ""
    braces: bool = False
    dollars: tuple[bool, ...] = ()

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
    def why_not_read(self) -> str:
        """Why this command is not a read (empty: it is one): not verifiable, an unsafe
        leading assignment (``GIT_EXTERNAL_DIFF=x git diff`` runs ``x``), a wrapper a read
        does not stay a read behind (``nice cat`` asks in 2.1.332; ``timeout``, ``command``
        and a bare ``xargs`` in front of one of :data:`XARGS_TARGETS` are fine), or the
        answer of :func:`~.commands.not_a_read`."""
        if self.unverifiable:
            return self.unverifiable
        if self.refused:
            return self.refused
        if self.braces:
            return "a brace expansion makes words that are not checked (asked in 2.1.332)"
        if not all(safe_assignment(a) for a in self.assignments):
            return "a leading assignment can change what the command runs"
        if "xargs" in self.wrappers and self.program not in XARGS_TARGETS:
            return f"xargs feeds {self.program}, which it may not feed as a read"
        if any(w not in _READ_WRAPPERS for w in self.wrappers):
            return "a wrapper in front of a read asks (observed in 2.1.332)"
        if self.program == "[[":
            return ""  # checked on its syntax tree by the walk (``refused``)
        reader = READERS.get(self.program)
        if reader is not None and reader.plain_name:
            quoted = [
                w for w, p in zip(self.words, self.plain, strict=False)
                if w != p and (p == self.program or (p or "").startswith("-"))
            ]  # fmt: skip
            if quoted:
                return f"{quoted[0]} written with quotes (asked in 2.1.332)"
        return not_a_read(self.plain, self.globs, self.dollars)

    @property
    def read_only(self) -> bool:
        """In the read-only set and a read as written (:attr:`why_not_read` is empty)."""
        return not self.why_not_read

    @property
    def exec_wrapper(self) -> bool:
        """True for ``watch``/``setsid``/``ionice``/``flock`` and ``find -exec``/``-delete``."""
        return self.program in EXEC_WRAPPERS or (
            self.program == "find" and any(w in _FIND_ALWAYS_ASKS for w in self.plain[1:])
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


def _globs(node: tree_sitter.Node, source: str) -> bool:
    """The word holds a glob character bash expands (outside quotes, not escaped)."""
    if node.type == "word":
        return _GLOB_CHAR.search(source[node.start_byte : node.end_byte]) is not None
    if node.type in ("concatenation", "command_name"):
        return any(_globs(c, source) for c in node.children)
    return False


def _unquoted(node: tree_sitter.Node, source: str) -> str:
    """The parts of a word outside quotes, in order (quoted parts as a space)."""
    if node.type in ("word", "number"):
        return source[node.start_byte : node.end_byte]
    if node.type in ("concatenation", "command_name", "brace_expression"):
        return "".join(_unquoted(c, source) for c in node.children)
    if not node.children and not node.is_named:
        return source[node.start_byte : node.end_byte]
    return " "


def _brace_word(node: tree_sitter.Node, source: str) -> bool:
    """The word holds a brace expansion (``{a,b}``, ``{1..3}``): bash makes it several words."""
    return (
        node.type == "brace_expression" or _BRACE_WORD.search(_unquoted(node, source)) is not None
    )


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


def _number_literal(node: tree_sitter.Node, text: str) -> bool:
    return node.type == "number" or re.fullmatch(r"[-+]?\d+", text) is not None


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
        if not node.is_named and not node.children:
            return self.text(node)  # "test a == b": the grammar makes "==" a token of its own
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

    def computes(self, redirect: tree_sitter.Node) -> bool:
        """Whether a here-string or here-doc ``redirect`` expands anything when it runs but
        ``$HOME`` in a here-string (observed in 2.1.332: ``cat <<< "$HOME"`` runs while
        ``cat <<< "$X"``, ``"${HOME}"``, ``$((x))`` and a here-doc holding ``$HOME`` ask; an
        arithmetic operand or a subscript runs what a variable holds)."""
        here_doc = redirect.type == "heredoc_redirect"
        stack = [redirect]
        while stack:
            at = stack.pop()
            if at.type in _INPUT_EXPANSIONS:
                return True
            if at.type == "simple_expansion" and (here_doc or self.text(at) != "$HOME"):
                return True
            stack.extend(at.children)
        return False

    def walk(self, node: tree_sitter.Node, nested: bool) -> None:
        kind = node.type
        if kind == "command":
            self.command(node, nested)
            return
        parent = node.parent.type if node.parent is not None else ""
        if kind in _OPAQUE:
            self.opaque.append(_OPAQUE[kind])
        if kind == "test_command":
            self.conditional(node, nested)
        elif kind in ("declaration_command", "unset_command"):
            words = [
                (self.text(c), self.plain(c) if c.is_named else self.text(c)) for c in node.children
            ]
            self.subs.append(
                Subcommand(
                    tuple(w for w, _ in words),
                    tuple(p for _, p in words),
                    nested=nested,
                    written=tuple(p for _, p in words),
                )
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
                self.subs.append(self.simple([], extra, nested, node))
        elif kind == "variable_assignment" and parent not in ("command", "declaration_command"):
            # "PATH=/tmp/evil; ls" changes what a later command runs: not a read
            self.subs.append(Subcommand((), (), (self.text(node),), nested=nested))
        if kind == "file_redirect":
            self.redirect(node)
        if any(c.type == "&" for c in node.children):
            self.opaque.append("a background job & can't be checked before it runs")
        for child in node.children:
            self.walk(child, nested or kind in _SUBSTITUTIONS)

    def conditional(self, node: tree_sitter.Node, nested: bool) -> None:
        """A ``[[ … ]]``: computed operands make it opaque (as in 2.1.332); an operand bash
        evaluates (arithmetic that is not a number, ``-v`` on more than a name) or a glob
        pattern makes it no read."""
        if _has(node, _EXPANSIONS):
            self.opaque.append("a [[ ]] / [ ] operand is computed when it runs")
        opener = self.text(node.children[0]) if node.children else "[["
        if opener == "[":  # the test builtin: its words, checked as ``test`` is
            leaves = self.leaves(node)
            words = tuple(w for w, _ in leaves)
            dollars = tuple("$" in t or "`" in t for _, t in leaves)
            self.subs.append(
                Subcommand((self.text(node),), words, nested=nested, written=words, dollars=dollars)
            )
            return
        self.subs.append(
            Subcommand(
                (self.text(node),),
                (opener,),
                nested=nested,
                written=(opener,),
                refused=self.evaluates(node),
            )
        )

    def leaves(self, node: tree_sitter.Node) -> list[tuple[str | None, str]]:
        """The words of a ``[ … ]`` in order: quotes removed (``None``: computed), and as
        written."""
        if node.type in ("word", "string", "raw_string", "number", "concatenation"):
            return [(self.plain(node), self.text(node))]
        if not node.children:
            return [(self.text(node), self.text(node))]
        return [w for child in node.children for w in self.leaves(child)]

    def evaluates(self, node: tree_sitter.Node) -> str:
        """Why the ``[[ ]]`` under ``node`` evaluates or matches more than literal text."""
        for child in node.children:
            why = self.evaluates(child)
            if why:
                return why
        if node.type not in ("binary_expression", "unary_expression"):
            return ""
        operator = node.child_by_field_name("operator")
        op = self.text(operator) if operator is not None else ""
        operands = [c for c in node.children if c.is_named and c != operator]
        if op in ARITHMETIC_TESTS and not all(_number_literal(c, self.text(c)) for c in operands):
            return f"[[ {op} ]] evaluates an operand that is not a number as arithmetic"
        if op in NAME_TESTS and not all(
            re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", self.plain(c) or "") for c in operands
        ):
            return f"[[ {op} ]] evaluates the subscript of its operand"
        if op in ("==", "=", "!=", "=~") and any(
            (c.type in ("extglob_pattern", "regex") and _GLOB_CHAR.search(self.text(c)))
            or _GLOB_CHAR.search(_unquoted(c, self.source))
            for c in operands[1:]
        ):
            return "[[ ]] matches a glob pattern (observed in 2.1.332: asked)"
        return ""

    def redirect(self, node: tree_sitter.Node) -> None:
        operator = next((self.text(c) for c in node.children if not c.is_named), "")
        targets = node.children_by_field_name("destination")
        if targets:
            self.redirects.append(Redirect(operator, self.plain(targets[0])))

    def feed(self, redirects: list[tree_sitter.Node]) -> str | None:
        """The text a here-string or here-doc gives the command's input (``None``: none, or
        one computed when it runs)."""
        for r in redirects:
            if r.type == "herestring_redirect":
                value = [c for c in r.children if c.is_named]
                return self.plain(value[-1]) if value else None
            if r.type == "heredoc_redirect":
                body = next((c for c in r.children if c.type == "heredoc_body"), None)
                return self.text(body) if body is not None else ""
        return None

    def command(self, node: tree_sitter.Node, nested: bool) -> None:
        assignments: list[str] = []
        name: list[tree_sitter.Node] = []
        rest: list[tree_sitter.Node] = []
        inputs: list[tree_sitter.Node] = []
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
            elif child.type in ("herestring_redirect", "heredoc_redirect"):
                inputs.append(child)
                rest += child.children_by_field_name("argument")
            self.walk(child, nested)
        parent = node.parent
        if parent is not None and parent.type == "redirected_statement":
            for extra in parent.children_by_field_name("redirect"):
                rest += extra.children_by_field_name("destination")[1:]
                if extra.type == "heredoc_redirect":
                    inputs.append(extra)
                    rest += extra.children_by_field_name("argument")
        self.subs.append(self.simple(assignments, name + rest, nested, node, inputs))

    def simple(
        self,
        assignments: list[str],
        nodes: list[tree_sitter.Node],
        nested: bool,
        at: tree_sitter.Node,
        inputs: list[tree_sitter.Node] | None = None,
    ) -> Subcommand:
        """A simple command from its word nodes (the first is the command word)."""
        why = ""
        if any(self.computes(r) for r in inputs or []):
            why = "its here-string or here-doc expands something when it runs"
        for i, child in enumerate(nodes):
            if self.plain(child) is None and _has(child, _SUBSTITUTIONS):
                why = why or (
                    "the command word is computed by a substitution"
                    if i == 0
                    else "an argument is computed by a substitution"
                )
            elif self.plain(child) is None and i == 0:
                why = why or "a variable in command position"
        words = [
            _Word(self.text(c), self.plain(c), _globs(c, self.source), _brace_word(c, self.source))
            for c in nodes
        ]
        piped = (
            at.parent is not None and at.parent.type == "pipeline" and (at.prev_sibling is not None)
        )
        return _finish(assignments, words, why, nested, self.feed(inputs or []), piped)


@dataclass(frozen=True)
class _Word:
    source: str
    plain: str | None
    glob: bool = False
    brace: bool = False

    @property
    def dollar(self) -> bool:
        """Written with a ``$`` or a backtick, quoted or not."""
        return "$" in self.source or "`" in self.source


def _finish(
    assignments: list[str],
    words: list[_Word],
    why: str,
    nested: bool,
    feed: str | None = None,
    piped: bool = False,
) -> Subcommand:
    written = [w.plain for w in words]
    count = 0
    removed: list[str] = []
    if None not in written:
        count, removed = claude_strip([w for w in written if w is not None])
    rest = words[count:]
    program = rest[0].plain if rest else None
    if program in ("eval", "exec", "source", "."):
        why = why or f"{program} runs a command that is only known at run time"
    if program in SHELLS and any(w.plain == "-c" for w in rest[1:]):
        # observed in 2.1.332: "bash -c 'rm x'" asks even under a bare Bash allow rule
        why = why or f"{program} -c runs a command string that is not verified"
    return Subcommand(
        tuple(w.source for w in rest),
        tuple(w.plain for w in rest),
        tuple(assignments),
        tuple(removed),
        why,
        nested,
        tuple(written),
        tuple(w.glob for w in rest),
        feed,
        piped,
        braces=any(w.brace for w in rest),
        dollars=tuple(w.dollar for w in rest),
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


def is_read_only_words(words: tuple[str | None, ...]) -> bool:
    """Whether one stripped simple command (program first, quotes removed) is in the
    read-only set and stays a read (:func:`~.commands.not_a_read`)."""
    return not not_a_read(words)


def read_paths(sub: Subcommand, cwd: str | None = None) -> tuple[str, ...]:
    """The files and folders a read-only command reads (``find``'s starting points;
    ``cat``'s, ``grep``'s, ``ls``'s … file operands; ``grep -f FILE``), as written, and —
    with ``cwd`` — each glob operand also as every path it matches there (``cat */secret``
    reads through a symbolic link in the folder). A command fed by ``xargs`` reads what
    arrives on its input: only its own operands count."""
    named = _read_paths(sub.plain)
    if cwd is None:
        return named
    globbed = {p for p, g in zip(sub.plain, sub.globs, strict=False) if g and p}
    found: list[str] = []
    for path in named:
        found.append(path)
        if path in globbed:
            base = os.path.expanduser(path) if path.startswith("~/") else path
            found += glob.glob(base, root_dir=cwd if not base.startswith("/") else None)
    return tuple(found)


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
    """The simple commands bash runs that Claude Code 2.1.332's matcher does not see as
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


def _unpathed(words: list[str]) -> list[str]:
    """``/bin/rm x`` → ``rm x``: bash runs the same program."""
    head = words[0].rsplit("/", 1)[-1] if "/" in words[0] else words[0]
    return [head, *words[1:]] if head else words


def deny_forms(sub: Subcommand, *, _depth: int = 0) -> list[str]:
    """The other texts of ``sub`` a deny or ask rule matches in Claude Code 2.1.332 (an allow
    rule never does): the command unquoted (``"rm" x``, ``\\rm x``), its program without a
    path (``/bin/rm x``), and the command behind each runner its check sees through
    (:func:`~.programs.claude_sees`: ``sudo``, ``env``, ``exec``, ``nohup --`` …, and the
    command lines of ``env -S`` / ``script -c`` / ``flock -c``), each of these in turn.
    Documented: these forms sidestep a deny rule; observed: they do not."""
    plain = [p for p in sub.plain if p is not None]
    written = [w for w in sub.written if w is not None]
    if not plain or len(plain) != len(sub.plain) or len(written) != len(sub.written):
        return []
    forms = [" ".join(plain)]
    exact = "xargs" in sub.wrappers and bool(sub.wrappers) and sub.wrappers[-1] == "xargs"
    if not exact:
        forms.append(" ".join(_unpathed(plain)))
    for kind, seen in claude_sees(written):
        if isinstance(seen, str):
            if _depth < 4:
                for inner in analyze(seen).subcommands:
                    if inner.words:
                        forms += [inner.text, *deny_forms(inner, _depth=_depth + 1)]
            continue
        words = [_unescape(w) for w in seen]
        if words:
            forms.append(" ".join(words))
            if kind != "exact":
                forms.append(" ".join(_unpathed(words)))
    return list(dict.fromkeys(forms))


_DEFAULT = re.compile(r"\$\{(\w+):?[-=]([^{}]*)\}")
_IFS = re.compile(r"\$\{IFS\}|\$IFS\b")


def _evaluated(text: str) -> str | None:
    """``text`` with the expansions bash would give with an empty environment written out:
    ``${X:-rm}`` → ``rm``, ``$IFS`` → a space (``None``: nothing to write out)."""
    done = _IFS.sub(" ", _DEFAULT.sub(lambda m: m[2], text))
    return done if done != text else None


def bypass_forms(sub: Subcommand, *, _depth: int = 0) -> list[tuple[BypassKind, str]]:
    """Every layer of ``sub`` mcpmini peels, for a deny rule to be checked against: the
    command unquoted, without its program's path, behind each runner of
    :data:`~.programs.RUNNERS` (``sudo``, ``env -S``, ``su -c``, ``find -exec``, a shell's
    ``-c``, ``xargs`` with flags …), a here-string or here-doc fed to a shell, and a computed
    command word with the defaults it falls back to (``${X:-rm}``, ``rm${IFS}-rf``). Each is
    ``(kind, text)``."""
    plain = [p for p in sub.plain if p is not None]
    forms: list[tuple[BypassKind, str]] = []
    if plain and len(plain) == len(sub.plain) and list(sub.words) != plain:
        forms.append((BypassKind.QUOTING, " ".join(plain)))
    if plain and len(plain) == len(sub.plain) and "/" in plain[0]:
        forms.append((BypassKind.PATH, " ".join(_unpathed(plain))))
    if sub.unverifiable and _depth < 4:
        evaluated = _evaluated(sub.full_text)
        for inner in analyze(evaluated).subcommands if evaluated else ():
            if inner.words:
                forms.append((BypassKind.COMPUTED, inner.text))
                forms += bypass_forms(inner, _depth=_depth + 1)
    if len(plain) != len(sub.plain):
        return forms
    for layer in peel(plain):
        kind = RUNNERS[layer.runner].kind if layer.runner in RUNNERS else BypassKind.EXEC_WRAPPER
        if layer.words:
            forms.append((kind, " ".join(layer.words)))
            if "/" in layer.words[0]:
                forms.append((BypassKind.PATH, " ".join(_unpathed(list(layer.words)))))
        text = layer.line if layer.line is not None else sub.feed if layer.stdin else None
        if layer.stdin:
            kind = BypassKind.SHELL_INPUT
        if text is not None and _depth < 4:
            for inner in analyze(text).subcommands:
                if inner.words:
                    forms.append((kind, inner.text))
                    forms += bypass_forms(inner, _depth=_depth + 1)
    return list(dict.fromkeys(forms))


def hidden_forms(sub: Subcommand) -> list[BypassKind]:
    """What of ``sub`` no deny rule can be checked against before it runs: a command word
    computed when it runs that does not fall back to a known word, a shell (or ``su``,
    ``script`` …) reading commands from a pipe or a terminal. Each kind once."""
    hidden: list[BypassKind] = []
    word = sub.words[0] if sub.words else ""
    expands = re.search(r"\$[{(\w@*#?$!-]|`", _ANSI_C.sub("", word)) is not None
    if sub.plain and sub.plain[0] is None and expands and _evaluated(sub.full_text) is None:
        hidden.append(BypassKind.COMPUTED)  # ANSI-C quoting alone is command_forms' case
    plain = [p for p in sub.plain if p is not None]
    if len(plain) == len(sub.plain):
        for layer in peel(plain):
            if layer.stdin and sub.feed is None:
                hidden.append(BypassKind.SHELL_INPUT)
    return list(dict.fromkeys(hidden))
