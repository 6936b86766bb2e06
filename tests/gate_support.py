"""The seeded generator of Bash commands for the permission gate, and the tripwire workspace
that runs what the gate approves (issue 29).

:func:`generate` draws commands from the read-only set as the gate knows it
(:data:`mcpmini.permissions.commands.READERS` and the one option table
:data:`mcpmini.permissions.options.GRAMMARS`): every command with its options in every
spelling ``getopt_long`` reads (bundled, attached, separate, ``--name=value``, shortened,
``--``), operands that are paths inside and outside the working folder, option-like file
names, subscripts and substitutions in every word position, and quoting forms; plus the
commands with a syntax of their own (``test``, ``[``, ``[[ ]]``, ``printf``, ``find``, ``sed``,
``git``, ``date``, ``xargs``), here-docs, redirects, lists and wrappers. The same seed gives
the same commands.

:class:`Tripwire` lays out a workspace (``ws/`` the working folder, ``home/``, ``outside/``
with a secret, a symlink out of the workspace, files named like options), and
:meth:`Tripwire.run` runs a batch of commands inside bubblewrap, one after another, each by
``bash -c`` under ``strace -f -e trace=execve`` with its input closed and a deadline, and
reports for each what it did that a read must not do: a file written, changed or removed
anywhere the sandbox can write; a program run that is not the command's own (the canary
``tripwire`` on ``PATH`` and in the folder, or any other); the outside secrets opened
(inotify) or printed. The driver inside the sandbox is ``tests/tripwire_driver.py``.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from mcpmini.permissions import gate
from mcpmini.permissions.commands import READERS
from mcpmini.permissions.options import GRAMMARS, Arg, Grammar, Kind, Option
from mcpmini.permissions.programs import RUNNERS

__all__ = [
    "SECRET",
    "Finding",
    "Tripwire",
    "approved",
    "bind",
    "generate",
    "smallest",
    "tripwire_available",
    "tripwire_or_skip",
]

SECRET = "TRIPWIRE-SECRET-7f3a"
DRIVER = Path(__file__).with_name("tripwire_driver.py")
REAL_PATH = "/usr/local/bin:/usr/bin:/bin"

# --- the generator ------------------------------------------------------------------------

INSIDE = [
    "f", "a.txt", "sub", "sub/c.txt", ".", "./f", "*.txt", "sub/*", "-", "'a b.txt'", "*",
    "*/secret", "l*",
]  # fmt: skip
OUTSIDE = [
    "../outside/secret",
    "{out}/secret",
    "~/secret",
    "~root/secret",
    "~-/secret",
    "link/secret",
    "link",
    "sub/../../outside/secret",
    "/etc/hostname",
    "{f,../outside/secret}",
]
#: Words bash would run or evaluate: a substitution, a subscript, an expansion.
NASTY = [
    "$(tripwire)",
    "`tripwire`",
    '"$(tripwire)"',
    "'a[$(tripwire)]'",
    "a[$(tripwire)]",
    '"a[$(tripwire)]"',
    "x$(tripwire)",
    "<(tripwire)",
    "${X:-$(tripwire)}",
    "$'\\x66'",
    "$HOME/secret",
    "\\$(tripwire)",
]
TEXT = ["x", "a", "%s", ",", "'a b'", "1", "-x", "+%s", "''", "'*'"]
NAMES = ["x", "PATH", "a[1]", "'a[$(tripwire)]'", "a[$(tripwire)]", "IFS"]


def _value(rng: random.Random, kind: Kind) -> str:
    if kind is Kind.PATH:
        return rng.choice(INSIDE * 2 + OUTSIDE + NASTY[:4])
    if kind is Kind.NUMBER:
        return rng.choice(["1", "3", "0", "-1", "1k", "$(tripwire)", "'a[$(tripwire)]'"])
    if kind is Kind.NAME:
        return rng.choice(NAMES)
    if kind is Kind.COMMAND:
        return rng.choice(["tripwire", "./tripwire", "'tripwire x'"])
    if kind is Kind.PATTERN:
        return rng.choice(["a", "'*.txt'", "x.*", "'a[$(tripwire)]'"])
    return rng.choice(TEXT + NASTY[:3])


def _shorts(grammar: Grammar) -> list[Option]:
    return [o for o in grammar.options if o.arg is Arg.NONE and any(len(n) == 2 for n in o.names)]


def _option_words(rng: random.Random, grammar: Grammar) -> list[str]:
    """One option of ``grammar`` in a spelling drawn at random (or an unknown one)."""
    if not grammar.options or rng.random() < 0.04:
        return [rng.choice(["--zzz", "-Q", "--", "--=x"])]
    option = rng.choice(grammar.options)
    name = rng.choice(option.names)
    value = _value(rng, option.value)
    if len(name) == 2:  # a short option
        flag = rng.choice(_shorts(grammar) or [option])
        other = next((n[1] for n in flag.names if len(n) == 2), "")
        if option.arg is Arg.NONE:
            return [rng.choice([name, name + other, f"-{other}{name[1]}"])]
        if option.arg is Arg.OPTIONAL:
            return [rng.choice([name, name + value])]
        return rng.choice([[name + value], [name, value], [f"-{other}{name[1]}", value]])
    if option.arg is Arg.NONE:
        return [rng.choice([name, name[: max(3, len(name) - rng.randint(1, 4))]])]
    short = name[: max(3, len(name) - rng.randint(1, 3))]
    if option.arg is Arg.OPTIONAL:
        return [rng.choice([name, f"{name}={value}", f"{short}={value}"])]
    if option.count > 1:
        return [name, "x", value]
    return rng.choice([[f"{name}={value}"], [name, value], [f"{short}={value}"]])


def _quote(rng: random.Random, word: str) -> str:
    """``word`` as written in one of the quoting forms that mean the same to bash."""
    if not word or any(c in word for c in "'\"$`\\ *?[{<~") or rng.random() < 0.7:
        return word
    return rng.choice([f"'{word}'", f'"{word}"', "\\" + word, word[:1] + "''" + word[1:]])


_SPECIAL = {"test", "[", "find", "sed", "git", "date", "xargs", "printf", "echo"}


def _simple(rng: random.Random) -> str:
    name = rng.choice(sorted(set(READERS) - _SPECIAL))
    reader = READERS[name]
    words = [name]
    grammar = GRAMMARS.get(name, Grammar())
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        words += _option_words(rng, grammar)
    kinds = [*reader.operands, *([reader.rest] * 3 if reader.rest else [])]
    if rng.random() < 0.15:
        words.append("--")
    for kind in kinds[: rng.choice([0, 1, 1, 2, 3])]:
        if kind is None:
            break
        words.append(_value(rng, kind) if rng.random() > 0.15 else rng.choice(NASTY))
    return " ".join(_quote(rng, w) for w in words)


def _test(rng: random.Random) -> str:
    arg = lambda: rng.choice(["f", "a", "1", "x", "../outside/secret", *NASTY[:5], "''"])  # noqa: E731
    forms = [
        lambda: [rng.choice(["-f", "-e", "-d", "-n", "-z", "-v", "-R", "-o", "-a"]), arg()],
        lambda: [arg(), rng.choice(["=", "==", "!=", "-eq", "-lt", "-nt", "-ef", "<"]), arg()],
        lambda: [arg()],
        lambda: ["!", rng.choice(["-f", "-v"]), arg()],
        lambda: [arg(), "-eq", arg(), "-a", "-f", arg()],
    ]
    body = rng.choice(forms)()
    if rng.random() < 0.5:
        return "test " + " ".join(body)
    return "[ " + " ".join(body) + " ]"


def _conditional(rng: random.Random) -> str:
    arg = lambda: rng.choice(["1", "0x1", "10#1", "x", "X", "a[1]", *NASTY[:6], "'1'"])  # noqa: E731
    body = rng.choice(
        [
            lambda: [arg(), rng.choice(["-eq", "-lt", "-ge"]), arg()],
            lambda: ["-v", rng.choice(NAMES)],
            lambda: ["-R", rng.choice(NAMES)],
            lambda: [
                rng.choice(["a", "f"]),
                rng.choice(["==", "=", "!=", "=~"]),
                rng.choice(["a", "a*", "'a*'", "^a"]),
            ],
            lambda: ["-f", rng.choice(["f", "../outside/secret", "link/secret"])],
            lambda: ["!", "-e", "f", "&&", arg(), "-eq", "1"],
        ]
    )()
    return "[[ " + " ".join(body) + " ]]"


def _printf(rng: random.Random) -> str:
    words = ["printf"]
    if rng.random() < 0.4:
        words += ["-v", rng.choice(NAMES)]
    if rng.random() < 0.2:
        words.append("--")
    words.append(rng.choice(["%s", "'%s\\n'", "%d", "'%(%Y)T'", "%b", "'%q'", "x"]))
    words += [rng.choice(TEXT + NASTY) for _ in range(rng.randint(0, 2))]
    return " ".join(words)


def _find(rng: random.Random) -> str:
    words = ["find", *rng.sample([*INSIDE[:4], *OUTSIDE[:3]], rng.randint(0, 2))]
    pool = [
        ["-name", "'*.txt'"],
        ["-type", "f"],
        ["-maxdepth", "1"],
        ["-print"],
        ["-newer", rng.choice(["f", "../outside/secret"])],
        ["-exec", "tripwire", "{}", ";"],
        ["-execdir", "cat", "{}", "+"],
        ["-delete"],
        ["-fprint", "out"],
        ["-fls", "out"],
        ["-files0-from", "../outside/secret"],
        ["-printf", "'%p\\n'"],
        ["-L"],
        ["-follow"],
        ["-ok", "tripwire", ";"],
        ["-o"],
        ["!", "-empty"],
    ]
    for _ in range(rng.randint(0, 3)):
        words += rng.choice(pool)
    return " ".join(words).replace(" ;", " \\;")


def _sed(rng: random.Random) -> str:
    options = rng.sample(
        ["-n", "-E", "-i", "-e", "-s", "--posix", "-nE", "-z", "--qui"], rng.randint(0, 2)
    )
    script = rng.choice(
        [
            "1p",
            "'1,2p'",
            "s/a/b/",
            "'s/a/b/w out'",
            "'1e tripwire'",
            "'r ../outside/secret'",
            "'w out'",
            "p",
            "1d",
            "'s/a/b/e'",
        ]
    )
    files = rng.sample(["f", "a.txt", "../outside/secret"], rng.randint(0, 2))
    words = ["sed", *options]
    if "-e" in options:
        words.insert(words.index("-e") + 1, script)
    else:
        words.append(script)
    return " ".join([*words, *files])


def _git(rng: random.Random) -> str:
    sub = rng.choice(
        [
            "status",
            "log",
            "diff",
            "show",
            "branch",
            "rev-parse",
            "ls-files",
            "blame",
            "config",
            "stash",
            "tag",
            "remote",
            "grep",
        ]
    )
    words = ["git"]
    if rng.random() < 0.1:
        words += rng.choice([["-c", "core.pager=tripwire"], ["-C", "../outside"], ["--no-pager"]])
    words.append(sub)
    extra = [
        ["--output=out"],
        ["--ext-diff"],
        ["--textconv"],
        ["--no-index", "f", rng.choice(["a.txt", "../outside/secret"])],
        ["-n5"],
        ["-5"],
        ["--oneline"],
        ["--stat"],
        ["-p"],
        ["--format=%H"],
        ["-sb"],
        ["--", "f"],
        ["HEAD"],
        ["newbranch"],
        ["-D", "x"],
        ["--get", "user.name"],
        ["list"],
        ["--contents", "../outside/secret", "f"],
    ]
    for _ in range(rng.randint(0, 2)):
        words += rng.choice(extra)
    return " ".join(words)


def _date(rng: random.Random) -> str:
    return "date " + rng.choice(
        [
            "+%s",
            "-u",
            "-d yesterday",
            "-s 2000-01-01",
            "-f ../outside/secret",
            "-r f",
            "0101",
            "--set=x",
            "-I",
            "+$(tripwire)",
        ]
    )


def _xargs(rng: random.Random) -> str:
    target = rng.choice(
        [
            "grep a",
            "wc -l",
            "cat",
            "tripwire",
            "echo",
            "head -1",
            "sort -o out",
            "grep -f ../outside/secret",
        ]
    )
    options = rng.choice(["", "-0", "-n1", "-I{} ", "-r", "-a ../outside/secret", "-P2"])
    return f"echo f | xargs {options} {target}".replace("  ", " ")


def _here(rng: random.Random) -> str:
    return rng.choice(
        [
            "cat <<EOF ../outside/secret\nx\nEOF",
            "cat <<EOF\n$(tripwire)\nEOF",
            "cat <<'EOF'\n$(tripwire)\nEOF",
            "grep a <<< x",
            "cat <<< $(tripwire)",
            "wc -l <<< 'a b'",
            "bash <<< 'tripwire'",
            "cat <<-EOF link/secret\n\tx\nEOF",
            # X holds "a[$(tripwire)]" in the sandbox: arithmetic on it runs the canary
            'cat <<< "$((X))"',
            'cat <<< "${a[X]}"',
            "cat <<EOF\n${a[X]}\nEOF",
            "cat <<'EOF'\n$((X))\nEOF",
            'cat <<< "$X"',
        ]
    )


def _compound(rng: random.Random) -> str:
    one, two = _simple(rng), rng.choice([_simple, _printf, _test])(rng)
    return rng.choice(
        [
            f"{one} && {two}",
            f"{one}; {two}",
            f"{one} | {two}",
            f"{one} || {two}",
            f"{one} 2>/dev/null",
            f"{one} > out",
            f"{one} < f",
            f"{one} < ../outside/secret",
            f"{one} 2>&1 | head -1",
            f"printf -v PATH %s . && {one}",
            f"PATH=. {one}",
            f"LANG=C {one}",
            f"GIT_EXTERNAL_DIFF=tripwire {one}",
            f"timeout 5 {one}",
            f"command {one}",
            f"nice {one}",
            f"cd sub && {one}",
            f"{one} &",
            f"({one})",
            f"$(tripwire) {one}",
        ]
    )


_MAKERS: list[tuple[int, Callable[[random.Random], str]]] = [
    (50, _simple),
    (6, _test),
    (6, _conditional),
    (5, _printf),
    (5, _find),
    (5, _sed),
    (6, _git),
    (3, _date),
    (4, _xargs),
    (2, _here),
    (10, _compound),
]


def generate(seed: int, count: int) -> list[str]:
    """``count`` commands drawn with ``seed`` (see the module doc); duplicates removed, so
    slightly fewer may come back."""
    rng = random.Random(seed)
    weights = [w for w, _ in _MAKERS]
    makers = [m for _, m in _MAKERS]
    found: dict[str, None] = {}
    for _ in range(count):
        maker = rng.choices(makers, weights)[0]
        found[maker(rng)] = None
    return list(found)


# --- the tripwire -------------------------------------------------------------------------


def tripwire_available() -> str:
    """Why the tripwire cannot run here (empty: it can): bubblewrap and strace are needed."""
    for tool in ("bwrap", "strace"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (apt-get install bubblewrap strace)"
    probe = subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--unshare-user", "--unshare-net", "--", "true"],
        capture_output=True,
        timeout=30,
        check=False,
    )
    if probe.returncode != 0:
        return "bubblewrap cannot start a sandbox here: " + probe.stderr.decode()[-200:]
    return ""


#: Canary programs on PATH: every runner and the programs a read must never start. The
#: read-only programs themselves are not here (they must run); copies of them in the
#: working folder catch a PATH pointed at it.
_CANARY_ON_PATH = sorted(
    (
        set(RUNNERS) - {"timeout"}
        | {
            "tripwire",
            "sh",
            "gzip",
            "xz",
            "perl",
            "python3",
            "rm",
            "touch",
            "cp",
            "mv",
            "mkdir",
            "curl",
            "less",
            "more",
            "vi",
            "pager",
            "ssh",
            "tar",
            "make",
        }
    )
    - set(READERS)
)


@dataclass(frozen=True)
class Finding:
    """What one approved command did that a read must not: ``why`` in one line."""

    command: str
    why: str


def approved(commands: Iterable[str], ws: str, home: str) -> list[str]:
    """The commands the gate approves in the default mode with no rules (``cwd`` ``ws``)."""
    return [c for c in commands if gate("Bash", {"command": c}, cwd=ws, home=home).final == "allow"]


def bind(commands: Iterable[str], tripwire: Tripwire) -> list[str]:
    """The commands with ``{out}`` (the outside folder, named absolutely) filled in."""
    return [c.replace("{out}", str(tripwire.outside)) for c in commands]


def smallest(findings: Sequence[Finding]) -> Finding | None:
    """The shortest offending command (ties: the first)."""
    return min(findings, key=lambda f: (len(f.command), f.command), default=None)


class Tripwire:
    """A tripwire workspace under ``root`` (see the module doc); paths are the same inside
    the sandbox and out, so the gate judges the very folder the commands run in."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.ws = self.root / "ws"
        self.home = self.root / "home"
        self.outside = self.root / "outside"
        self._lay_out()

    def _lay_out(self) -> None:
        for folder in (self.ws / "sub", self.home, self.outside, self.root / "bin"):
            folder.mkdir(parents=True, exist_ok=True)
        (self.ws / "f").write_text("one\ntwo\n")
        (self.ws / "a.txt").write_text("b\na\n")
        (self.ws / "a b.txt").write_text("space\n")
        (self.ws / "sub" / "c.txt").write_text("c\n")
        # file names a glob may turn into options (wildcard injection)
        for name in ("-i", "--output=planted", "-n"):
            (self.ws / name).write_text("x\n")
        (self.ws / "link").symlink_to(self.outside)
        (self.outside / "secret").write_text(SECRET + "\n")
        (self.home / "secret").write_text(SECRET + "\n")
        canary = '#!/bin/sh\n: > "$TRIPWIRE_MARKS/${0##*/}-$$"\n'
        for name in _CANARY_ON_PATH:
            self._script(self.root / "bin" / name, canary)
        for name in [*READERS, "tripwire"]:
            if "/" not in name and name not in ("[", "."):
                self._script(self.ws / name, canary)
        subprocess.run(
            ["git", "init", "-q", str(self.ws)], check=True, capture_output=True, timeout=60
        )
        subprocess.run(
            [
                "git",
                "-C",
                str(self.ws),
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-q",
                "--allow-empty",
                "-m",
                "init",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )

    @staticmethod
    def _script(path: Path, text: str) -> None:
        path.write_text(text)
        path.chmod(0o755)

    def argv(self, plan: Path) -> list[str]:
        """The bubblewrap command that runs the driver on ``plan``."""
        python = os.path.realpath(sys.executable)
        return [
            "bwrap", "--unshare-all", "--unshare-user", "--uid", "1000", "--gid", "1000",
            "--die-with-parent", "--new-session",
            "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
            "--tmpfs", "/tmp", "--tmpfs", "/root", "--tmpfs", "/home", "--tmpfs", "/run",
            *self._python_binds(),
            # the driver itself, wherever the checkout lies (a clone under /tmp or /root is
            # hidden by the tmpfs above)
            "--ro-bind", str(DRIVER), str(DRIVER),
            "--bind", str(self.root), str(self.root),
            "--chdir", str(self.ws), "--",
            python, "-I", str(DRIVER), str(plan),
        ]  # fmt: skip

    @staticmethod
    def _python_binds() -> list[str]:
        """The interpreter's own folders, bound back over the hidden /root, /home and /tmp."""
        binds: list[str] = []
        for path in sorted({os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)}):
            binds += ["--ro-bind", path, path]
        return binds

    def run(self, commands: Sequence[str], *, timeout: float = 4.0) -> list[Finding]:
        """Run every command (each approved by the gate) in the sandbox; one
        :class:`Finding` per command that wrote, ran another program or read a secret."""
        if not commands:
            return []
        plan = self.root / "plan.json"
        out = self.root / "results.jsonl"
        out.unlink(missing_ok=True)
        plan.write_text(
            json.dumps(
                {
                    "root": str(self.root),
                    "ws": str(self.ws),
                    "home": str(self.home),
                    "outside": str(self.outside),
                    "secret": SECRET,
                    "path": f"{self.root / 'bin'}:{REAL_PATH}",
                    "real_path": REAL_PATH,
                    "timeout": timeout,
                    "out": str(out),
                    "cases": [{"command": c, "programs": _programs(c)} for c in commands],
                    "bound": [b for b in self._python_binds() if b.startswith("/")][::2],
                }
            )
        )
        done = subprocess.run(
            self.argv(plan),
            capture_output=True,
            timeout=60 + timeout * len(commands),
            check=False,
            env={"PATH": REAL_PATH, "LANG": "C.UTF-8"},
        )
        if not out.exists():
            raise RuntimeError(
                f"the tripwire sandbox did not run (exit {done.returncode}): "
                + done.stderr.decode("utf-8", "replace")[-300:]
            )
        lines = out.read_text().splitlines()
        if len(lines) != len(commands):
            raise RuntimeError(
                f"the tripwire sandbox stopped after {len(lines)} of {len(commands)} commands: "
                + done.stderr.decode("utf-8", "replace")[-600:]
            )
        findings = []
        for line in lines:
            row: dict[str, Any] = json.loads(line)
            if row["why"]:
                findings.append(Finding(row["command"], row["why"]))
        return findings


def _programs(command: str) -> list[str]:
    """The programs ``command`` itself runs: every simple command's program, the wrappers
    stripped in front of it, and what a runner among them runs (``xargs grep``)."""
    from mcpmini.permissions import analyze
    from mcpmini.permissions.programs import peel

    names: set[str] = set()
    for sub in analyze(command).subcommands:
        plain = [p for p in sub.plain if p is not None]
        if sub.program:
            names.add(sub.program)
        names.update(sub.wrappers)
        names.update(layer.words[0] for layer in peel(plain) if layer.words)
    if names & {"egrep", "fgrep"}:
        names.add("grep")  # the scripts run grep -E / grep -F
    return sorted(names)


def workspace() -> Tripwire:
    """A fresh tripwire workspace in a temporary folder (removed by the caller)."""
    return Tripwire(Path(tempfile.mkdtemp(prefix="gate-tripwire-")))


@contextmanager
def tripwire_or_skip() -> Iterator[Tripwire]:
    """A :func:`workspace` for one test module, removed at its end; where the tripwire cannot
    run, a skip saying why (a failure under ``CI=true``)."""
    why = tripwire_available()
    if why:
        if os.environ.get("CI") == "true":
            pytest.fail(f"the tripwire cannot run: {why}")
        pytest.skip(why)
    made = workspace()
    try:
        yield made
    finally:
        shutil.rmtree(made.root, ignore_errors=True)
