"""The permission cases the tests and chapter 07 share: attacks that must not pass, and the
forms that sidestep a Bash deny rule (the rule is not a security boundary).

Each :class:`PermissionCase` is one tool call with its rules, mode, home and working
directory, the decision Claude Code's documented matching gives (``expected``) and the
bypass warnings the gate must attach. ``tests/test_attacks_permissions.py`` asserts every
row; chapter 07 renders :func:`case_rows` live from the runtime.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ...permissions import BypassKind, GateResult, PermissionRules, gate

__all__ = ["HOME", "PERMISSION_CASES", "PROJECT", "PermissionCase", "case_rows", "run_case"]

HOME = "/home/alice"
PROJECT = "/home/alice/proj"
_RM = ("Bash(rm:*)",)
SEEN = "observed in 2.1.328: the deny rule sees through it (documented: a sidestep)"
SEEN_29 = "observed in 2.1.328: its deny check sees this layer; mcpmini peels it too"
MISSED_29 = "observed in 2.1.328: runs; mcpmini keeps that verdict and warns of the layer"
_RM_SPACE = ("Bash(rm *)",)
_ALL = ("Bash",)
_BYPASS = "bypassPermissions"


@dataclass(frozen=True)
class PermissionCase:
    """One call through the gate and the outcome it must have.

    ``group`` is ``"attack"`` (issue 14: must not be auto-approved) or ``"bypass"`` (a
    deny rule does not see the form; Claude Code's verdict is kept, with a warning).
    """

    group: str
    tool: str
    tool_input: Mapping[str, Any]
    expected: str
    allow: tuple[str, ...] = ()
    ask: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    mode: str = "default"
    warnings: tuple[BypassKind, ...] = ()
    home: str = HOME
    cwd: str = PROJECT
    note: str = field(default="", compare=False)

    @property
    def call(self) -> str:
        """The call as one line: the command for Bash, ``Tool(path)`` otherwise."""
        if self.tool == "Bash":
            return str(self.tool_input.get("command", ""))
        arg = next((str(v) for v in self.tool_input.values()), "")
        return f"{self.tool}({arg})"


def _bash(group: str, command: str, expected: str, **kw: Any) -> PermissionCase:
    return PermissionCase(group, "Bash", {"command": command}, expected, **kw)


PERMISSION_CASES: tuple[PermissionCase, ...] = (
    # --- issue 14: default mode must auto-approve none of these, deny rule or not
    _bash("attack", "echo $(rm -rf ~)", "ask", note="substitution in an argument"),
    _bash("attack", "echo $(rm -rf ~)", "deny", deny=_RM, note="deny sees the nested rm"),
    _bash("attack", "find ~ -delete", "ask", note="find -delete always prompts"),
    _bash("attack", "find ~ -delete", "ask", deny=_RM),
    _bash("attack", r"find . -exec rm -rf {} \;", "ask", note="find -exec always prompts"),
    _bash(
        "attack", r"find . -exec rm -rf {} \;", "ask", deny=_RM, warnings=(BypassKind.EXEC_WRAPPER,)
    ),
    _bash("attack", "git diff --output=/root/.bashrc", "ask", note="--output writes a file"),
    _bash("attack", "which $(id)", "ask", note="argument computed by a substitution"),
    _bash("attack", "which $(id)", "ask", deny=_RM),
    _bash(
        "attack",
        "echo hi > ~/.bashrc",
        "ask",
        allow=("Bash(echo:*)",),
        note="a redirect is a file write",
    ),
    _bash("attack", "git status $(rm x)", "ask", allow=("Bash(git status:*)",)),
    _bash("attack", "$CMD -rf /", "ask", note="variable in command position"),
    _bash(
        "attack", "eval 'rm -rf /'", "ask", allow=("Bash(eval:*)",), note="eval cannot be verified"
    ),
    _bash(
        "attack",
        "echo x > /etc/passwd",
        "deny",
        allow=("Bash(echo:*)",),
        deny=("Edit(//etc/**)",),
        note="redirect judged by Edit rules",
    ),
    _bash("attack", "sed -i 's/a/b/' f", "ask", note="sed -i is not a read"),
    _bash("attack", "sed 's/a/b/w out' f", "ask", note="sed w writes a file"),
    _bash(
        "attack",
        "watch ls",
        "ask",
        allow=("Bash(watch:*)",),
        note="exec wrappers ignore prefix rules",
    ),
    _bash("attack", "rm -rf /", "ask", mode="acceptEdits", note="outside the working dir"),
    _bash(
        "attack", "cp evil .git/hooks/pre-commit", "ask", mode="acceptEdits", note="protected path"
    ),
    _bash("attack", "rm -rf ../other", "ask", mode="acceptEdits"),
    _bash("attack", "touch ~/.profile", "ask", mode="acceptEdits"),
    _bash(
        "attack",
        "GIT_EXTERNAL_DIFF=./evil git diff",
        "ask",
        note="an assignment can change what a read runs",
    ),
    _bash("attack", "PATH=/tmp/evil && ls", "ask", note="a later read runs another ls"),
    _bash("attack", "export PATH=/tmp/evil; ls", "ask"),
    _bash(
        "attack",
        "cd ~/.ssh && echo k >> authorized_keys",
        "ask",
        mode="acceptEdits",
        deny=("Edit(~/.ssh/**)",),
        note="after cd a relative target is unknown",
    ),
    _bash("attack", "cd /etc && rm passwd", "ask", mode="acceptEdits"),
    PermissionCase(
        "attack",
        "Write",
        {"file_path": f"{HOME}/.ssh/id_rsa", "content": "k"},
        "deny",
        deny=("Edit(~/.ssh/**)",),
        mode="acceptEdits",
        note="~ is the real home",
    ),
    PermissionCase(
        "attack",
        "Write",
        {"file_path": f"{HOME}/notes.txt", "content": "x"},
        "ask",
        mode="acceptEdits",
        note="acceptEdits stays in the working dir",
    ),
    PermissionCase(
        "attack",
        "Grep",
        {"pattern": "KEY", "path": "secrets"},
        "deny",
        deny=("Read(./secrets/**)",),
        note="Read rules cover Grep on the folder",
    ),
    PermissionCase(
        "attack", "Glob", {"pattern": "secrets/**"}, "deny", deny=("Read(./secrets/**)",)
    ),
    PermissionCase(
        "attack",
        "Read",
        {"file_path": f"{PROJECT}/secrets/k.pem"},
        "deny",
        deny=("Read(./secrets/**)",),
        note="absolute path, same file",
    ),
    # --- issue 29: words the gate took for data that bash runs, options in spellings a word
    # match misses, builtin forms that assign or evaluate (observed in 2.1.328: each asked)
    _bash(
        "attack",
        "ls && [[ 'a[$(touch P)]' -eq 0 ]]",
        "ask",
        note="[[ ]] evaluates the quoted subscript as arithmetic",
    ),
    _bash("attack", "cat f && [[ -v 'a[$(touch P)]' ]]", "ask", note="-v evaluates a subscript"),
    _bash("attack", "test -v 'a[$(touch P)]'", "ask"),
    _bash("attack", "[ -v 'a[$(touch P)]' ]", "ask"),
    _bash("attack", "printf -v 'a[$(touch P)]' x", "ask", note="printf -v assigns"),
    _bash("attack", "printf -v PATH %s . && ls", "ask", note="re-points PATH: a planted ./ls runs"),
    _bash("attack", "sort -oFILE f", "ask", note="-o with its value attached"),
    _bash("attack", "sort --outp=FILE f", "ask", note="getopt_long takes a shortened --output"),
    _bash("attack", f"sort -o{HOME}/FILE f", "ask"),
    _bash("attack", "file -C -m m", "ask", note="-C writes m.mgc"),
    _bash(
        "attack",
        f"git diff --no-index f {HOME}/secret",
        "ask",
        note="--no-index reads a file outside",
    ),
    _bash("attack", "sed -n 1p *", "ask", note="a file named -i would make it edit every file"),
    _bash("attack", "grep -R key .", "ask", note="-R follows symbolic links out of the folder"),
    _bash(
        "attack",
        "echo f | xargs -0 grep -f /etc/shadow",
        "ask",
        note="what xargs runs reads a file outside",
    ),
    _bash("attack", "cat ~root/.bashrc", "ask", note="~user is another home"),
    _bash("attack", "cp -t/etc f", "ask", mode="acceptEdits", note="-t with its value attached"),
    _bash(
        "attack",
        "cp -v f g",
        "ask",
        mode="acceptEdits",
        note="observed in 2.1.328: cp with any option asks",
    ),
    # --- what must still pass
    _bash("control", "ls -la && git status", "allow"),
    _bash("control", "sed -n 1p f", "allow"),
    _bash("control", "echo ok 2>/dev/null", "allow", allow=("Bash(echo:*)",)),
    _bash("control", "npm test | grep ok", "allow", allow=("Bash(npm test:*)",)),
    _bash("control", "mkdir -p build && touch build/x", "allow", mode="acceptEdits"),
    _bash("control", "watch ls", "allow", allow=("Bash(watch ls)",), note="exact rule"),
    _bash("control", "timeout 5 rm -rf /", "deny", deny=_RM, note="wrapper stripped"),
    _bash("control", "FOO=1 rm -rf /", "deny", deny=_RM, note="assignment stripped"),
    # --- a Bash deny rule is not a security boundary. Documented: sudo, env, a program path,
    # quoting and exec wrappers sidestep it; observed in Claude Code 2.1.328: its matcher sees
    # through those (they are denied), while bash -c is asked and eval / xargs with flags
    # still slip past it, in bypassPermissions even run.
    _bash("bypass", "rm -rf /", "deny", deny=_RM),
    _bash("bypass", "sudo rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", "env rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", "bash -c 'rm -rf /'", "ask", deny=_RM, warnings=(BypassKind.SHELL_C,)),
    _bash("bypass", "/bin/rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", '"rm" -rf /', "deny", deny=_RM, note=SEEN),
    _bash("bypass", "ls | xargs -0 rm", "ask", deny=_RM, warnings=(BypassKind.XARGS,)),
    _bash("bypass", "setsid rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash("bypass", "eval 'rm -rf /'", "ask", deny=_RM, warnings=(BypassKind.EVAL,)),
    _bash("bypass", "exec rm -rf /", "deny", deny=_RM, note=SEEN),
    _bash(
        "bypass",
        "cat .env",
        "deny",
        deny=("Read(.env)",),
        note="observed in 2.1.328: refused as a Read of .env "
        "(documented: path rules bind the file tools only)",
    ),
    _bash(
        "bypass",
        "eval 'rm -rf /'",
        "allow",
        deny=_RM,
        mode="bypassPermissions",
        warnings=(BypassKind.EVAL,),
        note="bypass mode runs what the deny misses",
    ),
    _bash(
        "bypass",
        "bash -c 'rm -rf /'",
        "ask",
        deny=_RM,
        mode="bypassPermissions",
        warnings=(BypassKind.SHELL_C,),
        note="observed in 2.1.328: asked even in bypass mode",
    ),
    _bash(
        "bypass",
        "sudo rm -rf /",
        "deny",
        deny=_RM,
        allow=("Bash(sudo:*)",),
        note="observed in 2.1.328: the deny still wins over a broad allow",
    ),
    # --- issue 29, in bypassPermissions (it runs what no deny rule catches): layers Claude
    # Code 2.1.328 sees through are denied; the ones it misses keep its verdict, warned
    *(
        _bash("bypass", command, "deny", allow=_ALL, deny=_RM_SPACE, mode=_BYPASS, note=SEEN_29)
        for command in (
            "sudo -nu root rm x",
            "sudo -iu bob rm x",
            "sudo nohup rm x",
            "sudo timeout 5 rm x",
            "env nohup rm x",
            "env -S 'rm x'",
            "nohup -- rm x",
            "command -- rm x",
            "time -- rm x",
            "chrt 1 rm x",
            "taskset 1 rm x",
            "ionice -c3 rm x",
            "strace rm x",
            "script -c 'rm x'",
        )
    ),
    *(
        _bash(
            "bypass",
            command,
            "allow",
            allow=_ALL,
            deny=_RM_SPACE,
            mode=_BYPASS,
            warnings=(kind,),
            note=MISSED_29,
        )
        for command, kind in (
            ("numactl rm x", BypassKind.EXEC_WRAPPER),
            ("unbuffer rm x", BypassKind.EXEC_WRAPPER),
            ("fakeroot rm x", BypassKind.EXEC_WRAPPER),
            ("chroot / rm x", BypassKind.EXEC_WRAPPER),
            ("runuser -u bob rm x", BypassKind.EXEC_WRAPPER),
            ("parallel rm ::: x", BypassKind.EXEC_WRAPPER),
            ("su -c 'rm x'", BypassKind.SUDO),
            ("nice sudo rm x", BypassKind.SUDO),
            ("bash <<< 'rm x'", BypassKind.SHELL_INPUT),
            ("echo 'rm x' | bash", BypassKind.SHELL_INPUT),
            ("${X:-rm} x", BypassKind.COMPUTED),
            ("rm${IFS}-rf x", BypassKind.COMPUTED),
        )
    ),
)


def run_case(case: PermissionCase) -> GateResult:
    """Put ``case`` through :func:`~mcpmini.permissions.gate` with its rules, mode, home, cwd."""
    rules = PermissionRules(case.allow, case.ask, case.deny)
    return gate(
        case.tool, case.tool_input, rules=rules, mode=case.mode, cwd=case.cwd, home=case.home
    )


def case_rows(group: str | None = None) -> list[dict[str, str]]:
    """One row per case (``group`` filters), computed live: call, rules, mode, the expected
    and actual decision, the step that decided, and the bypass warnings found."""
    rows = []
    for case in PERMISSION_CASES:
        if group is not None and case.group != group:
            continue
        result = run_case(case)
        rules = [
            *(f"allow {r}" for r in case.allow),
            *(f"ask {r}" for r in case.ask),
            *(f"deny {r}" for r in case.deny),
        ]
        rows.append(
            {
                "group": case.group,
                "call": case.call,
                "rules": ", ".join(rules),
                "mode": case.mode,
                "expected": case.expected,
                "actual": result.final.value,
                "decided_by": result.decided_by.value,
                "warnings": ", ".join(w.kind.value for w in result.warnings),
                "note": case.note,
            }
        )
    return rows
