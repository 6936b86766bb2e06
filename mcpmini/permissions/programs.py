"""The programs that run their arguments, and how far Claude Code's matcher sees into them.

:data:`RUNNERS` is the one list of programs that run another program: ``sudo``, ``env``,
``nohup``, ``timeout``, ``xargs``, ``find -exec``, the shells' ``-c`` … one :class:`Runner`
row each, read with its option grammar from :data:`~.options.GRAMMARS` (the one option
table). A row says where the inner command is — after the options and ``skip`` leading
operands (``timeout DURATION``), after ``NAME=value`` words (``env``), in an option's value
read as a command line (``su -c``, ``script -c``, ``flock -c``, ``env -S``), the rest of the
words joined into one line (``watch``), up to a word that ends it (``parallel … :::``), or
nowhere it can be read before it runs (a shell reading its input) — and what Claude Code
2.1.332 does with it (:class:`View`).

:func:`unwrap` takes one layer off; :func:`peel` takes every layer off, in the order bash
would run them, and is what a deny check and the bypass warnings read. Command lines held
in option values come back as :attr:`Layer.line` for the caller to analyse with the one
tokenizer (:mod:`.bash`), so this module imports no parser of its own.

Claude Code's view (observed in 2.1.332, where the documentation says only that "wrapper
commands" are stripped): it *strips* a few wrappers before matching any rule (``timeout``,
``time``, ``nice``, ``nohup``, ``stdbuf``, ``command``, ``builtin``, ``noglob``, a bare
``xargs``), each only in some spellings; its deny and ask check also *sees* past those in a
few more spellings and past the runners it knows (``sudo``, ``env``, ``exec``, ``setsid``,
``chrt``, ``taskset``, ``ionice``, ``strace``, ``flock``, ``watch``, ``script -c`` …), but not
past a runner it only sees once a bare ``nice`` or a ``stdbuf`` was stripped before it, not
past anything after a stripped ``xargs``, and not past the runners it does not know
(``numactl``, ``fakeroot``, ``chroot``, ``su``, ``parallel`` …). :func:`claude_strip` and
:func:`claude_sees` model exactly that; mcpmini's own :func:`peel` sees every layer, and the
gate warns of each layer Claude Code misses.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from .options import GRAMMARS, Form, Grammar, Parsed, parse

__all__ = [
    "EXEC_WRAPPERS",
    "RUNNERS",
    "SHELLS",
    "BypassKind",
    "Layer",
    "Runner",
    "Sees",
    "View",
    "claude_sees",
    "claude_strip",
    "peel",
    "unwrap",
]

#: The shells a ``-c`` string, a script or the shell's input is run by.
SHELLS = frozenset({"bash", "sh", "dash", "zsh", "ksh", "mksh", "ash", "yash", "fish"})

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=.*", re.DOTALL)


class BypassKind(enum.StrEnum):
    """A form that sidesteps a Bash deny rule because Claude Code does not see through it."""

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
    SHELL_INPUT = "a shell reading its input"
    COMPUTED = "computed command word"


class Sees(enum.StrEnum):
    """How far Claude Code 2.1.332's deny and ask check looks past a runner."""

    STRIPS = "strips it"  # removed before matching any rule, in the spellings of the View
    SEES = "sees past it"  # its deny / ask check looks at the inner command
    MISSES = "misses it"  # the inner command is invisible to its rules


@dataclass(frozen=True)
class View:
    """What Claude Code 2.1.332 does with one runner (observed; each spelling tested).

    ``sees``: strips it, sees past it or misses it. For a stripped runner, ``strip_forms`` are
    the option spellings with which every rule matches past it (none: only the bare word),
    ``strip_end`` whether a ``--`` after it still strips; ``deny_forms`` / ``deny_end`` the
    same for its deny and ask check (which sees a few more). ``weak``: once it was stripped,
    the deny check no longer sees past runners of kind ``SEES`` (``nice sudo rm``), unless
    an option was given in ``strong`` form (``nice -n 5 sudo rm`` is seen). ``last``: after
    it, nothing further is stripped (``xargs nohup rm``). ``misses``: the ``(option, form)``
    spellings with which the deny check does not see past a ``SEES`` runner
    (``script -qc 'rm x'``).
    """

    sees: Sees
    strip_forms: frozenset[Form] = frozenset()
    strip_end: bool = False
    deny_forms: frozenset[Form] = frozenset()
    deny_end: bool = False
    weak: bool = False
    strong: Form | None = None
    last: bool = False
    misses: frozenset[tuple[str, Form]] = frozenset()


_ALL_FORMS = frozenset(Form)
_SEES = View(Sees.SEES)
_MISSES = View(Sees.MISSES)


@dataclass(frozen=True)
class Runner:
    """A program that runs another one, and where the inner command is.

    ``skip``: operands between its options and the command (``timeout DURATION``, ``chrt
    PRIORITY``, ``flock FILE``, ``chroot DIR``); ``assignments``: ``NAME=value`` words may
    come first (``env``, ``sudo``); ``lines``: options whose value is a command line a shell
    reads (``su -c``, ``script -c``, ``env -S``); ``line_flag``: the flag that makes its first
    operand such a line (a shell's ``-c``); ``joined``: the words after the options are
    joined into one such line (``watch`` without ``-x``, ``eval``); ``until``: words that end the
    command (``parallel … :::``); ``inert``: options with which it runs no command
    (``command -v``, ``chrt -p``); ``stdin``: with no command it runs what it reads (a shell,
    ``su``, ``script``); ``prompts``: Claude Code always asks before it runs (only an exact
    allow rule approves it); ``view``: what Claude Code 2.1.332 does with it."""

    name: str
    view: View
    skip: int = 0
    assignments: bool = False
    lines: frozenset[str] = frozenset()
    line_flag: str | None = None
    joined: bool = False
    until: frozenset[str] = frozenset()
    inert: frozenset[str] = frozenset()
    stdin: bool = False
    prompts: bool = False
    kind: BypassKind = BypassKind.EXEC_WRAPPER
    grammar: Grammar = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "grammar", GRAMMARS.get(self.name, Grammar(permute=False)))


def _f(*forms: Form) -> frozenset[Form]:
    return frozenset(forms)


def _runners(*rows: Runner) -> dict[str, Runner]:
    return {r.name: r for r in rows}


#: Every program that runs its arguments, one row each (reference §2.1).
RUNNERS: Mapping[str, Runner] = _runners(
    # --- stripped by Claude Code before matching any rule (spellings observed in 2.1.332)
    Runner(
        "timeout",
        View(Sees.STRIPS, _ALL_FORMS, False, _ALL_FORMS, True),
        skip=1,
    ),
    Runner("time", View(Sees.STRIPS, _f(), False, _f(Form.SHORT), True)),
    Runner(
        "nice",
        View(
            Sees.STRIPS,
            _f(Form.SEPARATE, Form.NUMBER),
            False,
            _f(Form.SEPARATE, Form.NUMBER),
            True,
            weak=True,
            strong=Form.SEPARATE,
        ),
    ),
    Runner("nohup", View(Sees.STRIPS, _f(), False, _f(), True)),
    Runner(
        "stdbuf", View(Sees.STRIPS, _f(Form.ATTACHED), False, _f(Form.ATTACHED), False, weak=True)
    ),
    Runner(
        "command",
        View(Sees.STRIPS, _f(Form.SHORT), True, _f(Form.SHORT), True),
        inert=frozenset({"-v", "-V"}),
    ),
    Runner("builtin", View(Sees.STRIPS)),
    Runner("noglob", View(Sees.STRIPS)),
    Runner("xargs", View(Sees.STRIPS, last=True), kind=BypassKind.XARGS),
    # --- seen through by its deny and ask check
    Runner(
        "sudo",
        _SEES,
        assignments=True,
        inert=frozenset({"-l", "-e", "-h", "-V", "-K"}),
        kind=BypassKind.SUDO,
    ),
    Runner("doas", _SEES, kind=BypassKind.SUDO),
    Runner(
        "env",
        _SEES,
        assignments=True,
        lines=frozenset({"-S"}),
        kind=BypassKind.ENV,
    ),
    Runner("exec", _SEES),
    Runner("setsid", _SEES, prompts=True),
    Runner("chrt", _SEES, skip=1, inert=frozenset({"-p", "-m"})),
    Runner("taskset", _SEES, skip=1, inert=frozenset({"-p"})),
    Runner("ionice", _SEES, inert=frozenset({"-p", "-P", "-u"}), prompts=True),
    Runner("strace", _SEES, inert=frozenset({"-p"})),
    Runner("ltrace", _SEES, inert=frozenset({"-p"})),
    Runner("flock", _SEES, skip=1, lines=frozenset({"-c"}), prompts=True),
    Runner("watch", _SEES, joined=True, prompts=True),
    Runner(
        "script",
        View(Sees.SEES, misses=frozenset({("-c", Form.BUNDLED)})),
        lines=frozenset({"-c"}),
        stdin=True,
    ),
    Runner("nsenter", _SEES),
    Runner("unshare", _SEES),
    Runner("pkexec", _SEES),
    # --- invisible to Claude Code's rules
    Runner("numactl", _MISSES),
    Runner("unbuffer", _MISSES),
    Runner("fakeroot", _MISSES, stdin=True),
    Runner("chroot", _MISSES, skip=1, stdin=True),
    Runner("runuser", _MISSES, lines=frozenset({"-c", "--session-command"}), stdin=True),
    Runner(
        "su",
        _MISSES,
        lines=frozenset({"-c", "--session-command"}),
        stdin=True,
        kind=BypassKind.SUDO,
    ),
    Runner("parallel", _MISSES, until=frozenset({":::", "::::", ":::+", "::::+"})),
    Runner("setpriv", _MISSES),
    Runner("prlimit", _MISSES, inert=frozenset({"-p"})),
    Runner("runcon", _MISSES),
    Runner("sg", _MISSES, skip=1, lines=frozenset({"-c"})),
    Runner("coproc", _MISSES),
    Runner("eval", _MISSES, joined=True, kind=BypassKind.EVAL),
    *(
        Runner(shell, _MISSES, line_flag="-c", stdin=True, kind=BypassKind.SHELL_C)
        for shell in sorted(SHELLS)
    ),
)
#: Runners that always prompt; only an exact allow rule approves them (observed in 2.1.332).
EXEC_WRAPPERS = frozenset(name for name, runner in RUNNERS.items() if runner.prompts)


@dataclass(frozen=True)
class Layer:
    """One command a runner runs: the ``runner`` and the ``prefix`` of words that name it
    with its options, then either the inner ``words`` or a ``line`` a shell reads (``su -c
    '…'``), or ``stdin``: it runs what it reads, which cannot be known before it runs.
    ``guess``: the runner's options could not all be placed, so the inner command is the
    first word that is not an option (a best guess, for warnings only)."""

    runner: str
    prefix: tuple[str, ...]
    words: tuple[str, ...] = ()
    line: str | None = None
    stdin: bool = False
    guess: bool = False
    parsed: Parsed = field(default_factory=Parsed, compare=False, repr=False)


def _program(word: str) -> str:
    """``/usr/bin/nohup`` → ``nohup``: bash runs the same program."""
    return word.rsplit("/", 1)[-1] if "/" in word else word


def unwrap(words: Sequence[str]) -> Layer | None:
    """The command ``words[0]`` runs (one layer), or ``None`` when it is not a runner or runs
    nothing (``command -v rm``, ``chrt -p 5 1234``). Never raises."""
    if not words:
        return None
    name = _program(words[0])
    runner = RUNNERS.get(name)
    if runner is None:
        return _find_exec(words) if name == "find" else None
    args = list(words[1:])
    parsed = parse(runner.grammar, args)
    if parsed.problem:
        rest = [w for w in args if not w.startswith("-") and not _ASSIGNMENT.fullmatch(w)]
        if not rest:
            return None
        at = args.index(rest[0]) + 1
        return Layer(name, tuple(words[:at]), tuple(words[at:]), guess=True, parsed=parsed)
    if any(parsed.has(flag) for flag in runner.inert):
        return None
    for found in parsed.found:
        if set(found.option.names) & runner.lines and found.value is not None:
            return Layer(name, tuple(words), line=found.value, parsed=parsed)
    start = 1 + (parsed.rest_at if parsed.rest_at is not None else len(args))
    if runner.line_flag and parsed.has(runner.line_flag):
        if start < len(words):  # "bash -c 'rm x' name args": the first operand is the line
            return Layer(name, tuple(words[: start + 1]), line=words[start], parsed=parsed)
        return None
    if runner.grammar.permute:
        # "runuser -u x rm y": the operands are the command; "su root": a shell reads input
        if name == "runuser" and parsed.has("-u") and parsed.operands:
            at = len(words) - len(parsed.operands)
            return Layer(name, tuple(words[:at]), tuple(parsed.operands), parsed=parsed)
        start = len(words)
    return _inner(runner, words, start, parsed)


def _inner(runner: Runner, words: Sequence[str], start: int, parsed: Parsed) -> Layer | None:
    """The layer of ``runner`` whose command starts at ``words[start]``, once its
    ``NAME=value`` words and leading operands are skipped."""
    while runner.assignments and start < len(words) and _ASSIGNMENT.fullmatch(words[start]):
        start += 1
    start += runner.skip
    rest = list(words[start:])
    if runner.until:
        cut = next((i for i, w in enumerate(rest) if w in runner.until), len(rest))
        rest = rest[:cut]
    prefix = tuple(words[:start])
    name = runner.name
    if len(rest) > 1 and rest[0] in runner.lines:  # "flock FILE -c 'rm x'"
        return Layer(name, (*prefix, rest[0]), line=rest[1], parsed=parsed)
    if not rest:
        return Layer(name, prefix, stdin=True, parsed=parsed) if runner.stdin else None
    if runner.joined and not (name == "watch" and parsed.has("-x")):
        return Layer(name, prefix, line=" ".join(rest), parsed=parsed)
    return Layer(name, prefix, tuple(rest), parsed=parsed)


_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find_exec(words: Sequence[str]) -> Layer | None:
    """The first command of ``find … -exec CMD … ;`` (``{}`` stands for each file found)."""
    for i, word in enumerate(words):
        if word in _FIND_EXEC:
            end = next((j for j in range(i + 1, len(words)) if words[j] in (";", "+")), None)
            inner = tuple(words[i + 1 : end if end is not None else len(words)])
            if inner:
                return Layer("find", tuple(words[: i + 1]), inner)
    return None


def peel(words: Sequence[str], *, depth: int = 8) -> Iterator[Layer]:
    """Every layer of ``words``, outermost first: what each runner in turn runs. A layer
    holding a command line or reading its input ends the walk here (the caller analyses the
    line with the tokenizer and peels what it finds)."""
    current = list(words)
    for _ in range(depth):
        layer = unwrap(current)
        if layer is None:
            return
        yield layer
        if layer.line is not None or layer.stdin or not layer.words:
            return
        if _program(layer.words[0]) == "find" and layer.runner == "find":
            return
        current = list(layer.words)


def _accepts(parsed: Parsed, forms: frozenset[Form], end: bool) -> bool:
    return all(f.form in forms for f in parsed.found) and (end or not parsed.ended)


def _stripped(words: Sequence[str], *, deny: bool) -> tuple[int, Runner, Layer] | None:
    """How many words Claude Code strips off the front of ``words`` (a stripped runner),
    with the runner and its layer, or ``None``."""
    if not words:
        return None
    runner = RUNNERS.get(_program(words[0]))
    if runner is None or runner.view.sees is not Sees.STRIPS:
        return None
    layer = unwrap(words)
    if layer is None or layer.guess or layer.line is not None or not layer.words:
        return None
    view = runner.view
    forms, end = (view.deny_forms, view.deny_end) if deny else (view.strip_forms, view.strip_end)
    if not _accepts(layer.parsed, forms, end):
        return None
    if runner.name == "timeout" and not re.fullmatch(r"[\d.]+[smhd]?", layer.prefix[-1]):
        return None
    return len(layer.prefix), runner, layer


def claude_strip(words: Sequence[str]) -> tuple[int, list[str]]:
    """How many leading words Claude Code 2.1.332 strips before matching any rule (allow,
    ask and deny), and the stripped wrappers' names: ``timeout 5 nohup rm x`` → 3.

    ``words`` are the words after quote removal (observed in 2.1.332: ``"nohup" rm`` and
    ``\\nohup rm`` are stripped as ``nohup rm`` is)."""
    at, names = 0, list[str]()
    while True:
        got = _stripped(words[at:], deny=False)
        if got is None:
            return at, names
        count, runner, _ = got
        at += count
        names.append(words[at - count])
        if runner.view.last:
            return at, names


def claude_sees(words: Sequence[str]) -> Iterator[tuple[str, Sequence[str] | str]]:
    """The inner commands Claude Code 2.1.332's deny and ask check looks at behind the
    runners of ``words`` (quotes removed), in order: ``("words",
    [...])``, ``("exact", [...])`` after a stripped ``xargs`` (matched as written, no program
    path removed), or ``("line", text)`` for a command line it reads too (``env -S '…'``,
    ``script -c '…'``)."""
    current: Sequence[str] = words
    weak = False
    for _ in range(8):
        got = _stripped(current, deny=True)
        if got is not None:
            count, runner, layer = got
            view = runner.view
            if view.weak and not (
                view.strong and any(f.form is view.strong for f in layer.parsed.found)
            ):
                weak = True
            current = current[count:]
            yield ("exact" if view.last else "words"), current
            if view.last:
                return
            continue
        if not current:
            return
        seen = RUNNERS.get(_program(current[0]))
        if seen is None or seen.view.sees is not Sees.SEES or weak:
            return
        inner = unwrap(current)
        if inner is None or inner.guess or inner.stdin:
            return
        if any((n, f.form) in seen.view.misses for f in inner.parsed.found for n in f.option.names):
            return
        if inner.line is not None:
            yield "line", inner.line
            return
        current = inner.words
        yield "words", current
